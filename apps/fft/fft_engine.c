/*
 * The distributed 3-D FFT on meshmem: stages of plane FFTs whose rows go straight to their
 * destinations (see fft_engine.h for the layouts, the pipeline and the signal protocol).
 */
#include "fft_engine.h"
#include "mm_grid.h"

#include <math.h>
#include <meshmem.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 4 };                         /* signal slots: 2 forward, 2 inverse */
enum { BUF_IN, BUF_MID, BUF_OUT, BUF_EXT }; /* the buffers a stage reads and writes */
typedef enum { ALONG_ROWS, ALONG_COLS, PLANE_2D } fft_kind_t;

/* where one destination's rows of a source plane go: rows b in [b0, b1), columns [c0, c1) of
 * source plane a land at base + a*as + (b - b0)*bs elements of the destination's buffer */
typedef struct {
    int world, b0, b1, c0, c1;
    size_t base, as, bs;
} fft_dest_t;

typedef struct fft_stage {
    const char *phase;
    int na, nb, nc; /* source planes: [na][nb][nc] */
    fft_kind_t kind;
    int src, dst;         /* BUF_* (dst == src: transformed in place, no exchange) */
    int chunk;            /* planes per FFT call (and per signal) */
    fftw_plan plan, tail; /* chunk planes, and the last na % chunk (fftwf_plan for float) */
    int slot;             /* this stage's signals (exchange), -1 none */
    int nd;               /* destinations (exchange) */
    fft_dest_t *dest;
    int wait_slot;    /* the previous exchange's slot this stage waits on, -1 none */
    int wait_aligned; /* 1: chunk k needs only chunk k of every source */
    int nw;           /* sources of the previous exchange */
    int *wait_world;
    int *wait_chunks; /* chunks each source sends per run */
} fft_stage_t;

static int nchunks(int na, int chunk)
{
    return na <= 0 ? 0 : (na + chunk - 1) / chunk;
}

/* the planes per chunk of a stage of na planes: the parameter, or all of them (0) */
static int chunk_of(int chunk, int na)
{
    return chunk > 0 ? chunk : (na > 0 ? na : 1);
}

static void *buf(const fft_job_t *j, int id, int parity, const void *ext)
{
    switch (id) {
    case BUF_IN: return j->in;
    case BUF_MID: return j->mid[parity];
    case BUF_OUT: return j->out[parity];
    default: return (void *)ext;
    }
}

/* ---- planning ------------------------------------------------------------------------- */

static fftw_plan plan_planes(const fft_job_t *j, const fft_stage_t *s, int count, void *in,
                             void *out, int sign, unsigned flags)
{
    if (count <= 0 || s->nb <= 0 || s->nc <= 0)
        return NULL;
    int pl = s->nb * s->nc;
    /* float planes of an odd element count leave 16-byte alignment: plans execute on every
       plane, so they must not assume it */
    if (j->p.single && pl % 2)
        flags |= FFTW_UNALIGNED;
    fftw_iodim dims[2], many[2];
    int rank, hr;
    switch (s->kind) {
    case ALONG_ROWS:
        rank = 1, dims[0] = (fftw_iodim){s->nc, 1, 1};
        hr = 2, many[0] = (fftw_iodim){s->nb, s->nc, s->nc};
        break;
    case ALONG_COLS:
        rank = 1, dims[0] = (fftw_iodim){s->nb, s->nc, s->nc};
        hr = 2, many[0] = (fftw_iodim){s->nc, 1, 1};
        break;
    default:
        rank = 2, dims[0] = (fftw_iodim){s->nb, s->nc, s->nc}, dims[1] = (fftw_iodim){s->nc, 1, 1};
        hr = 1;
        break;
    }
    many[hr - 1] = (fftw_iodim){count, pl, pl};
    if (j->p.single)
        return (fftw_plan)fftwf_plan_guru_dft(rank, dims, hr, many, in, out, sign, flags);
    return fftw_plan_guru_dft(rank, dims, hr, many, in, out, sign, flags);
}

static void exec(const fft_job_t *j, fftw_plan p, void *in, void *out)
{
    if (j->p.single)
        fftwf_execute_dft((fftwf_plan)p, in, out);
    else
        fftw_execute_dft(p, in, out);
}

static void destroy(const fft_job_t *j, fftw_plan p)
{
    if (p && j->p.single)
        fftwf_destroy_plan((fftwf_plan)p);
    else if (p)
        fftw_destroy_plan(p);
}

/* ---- geometry ------------------------------------------------------------------------- */

static int X(const fft_params_t *p, int row)
{
    return fft_blk_len(p->n[0], p->pr, row);
}
static int X0(const fft_params_t *p, int row)
{
    return fft_blk_lo(p->n[0], p->pr, row);
}
static int Y(const fft_params_t *p, int col)
{
    return fft_blk_len(p->n[1], p->pc, col);
}
static int Y0(const fft_params_t *p, int col)
{
    return fft_blk_lo(p->n[1], p->pc, col);
}
static int Z(const fft_params_t *p, int col)
{
    return fft_blk_len(p->n[2], p->pc, col);
}
static int Z0(const fft_params_t *p, int col)
{
    return fft_blk_lo(p->n[2], p->pc, col);
}
static int YT(const fft_params_t *p, int row)
{
    return fft_blk_len(p->n[1], p->pr, row);
}
static int YT0(const fft_params_t *p, int row)
{
    return fft_blk_lo(p->n[1], p->pr, row);
}

void fft_grid(int nranks, int want_pc, int *pr, int *pc)
{
    if (want_pc > 0) {
        *pc = want_pc;
        *pr = nranks / want_pc;
    } else {
        mm_grid_most_square(nranks, pr, pc);
    }
}

/* elements of the largest L0, L1 and L2 block over the grid */
static void block_max(const fft_params_t *p, size_t *in, size_t *mid, size_t *out)
{
    *in = *mid = *out = 1;
    for (int r = 0; r < p->pr; r++)
        for (int c = 0; c < p->pc; c++) {
            size_t a = (size_t)X(p, r) * Y(p, c) * p->n[2];
            size_t b = (size_t)X(p, r) * p->n[1] * Z(p, c);
            size_t o = (size_t)YT(p, r) * p->n[0] * Z(p, c);
            *in = a > *in ? a : *in;
            *mid = b > *mid ? b : *mid;
            *out = o > *out ? o : *out;
        }
}

size_t fft_heap_bytes(const fft_params_t *p, int nranks)
{
    fft_params_t q = *p;
    if (q.pr * q.pc != nranks)
        fft_grid(nranks, q.pc, &q.pr, &q.pc);
    size_t in, mid, out, es = p->single ? 8 : 16;
    block_max(&q, &in, &mid, &out);
    size_t bytes = (in + 2 * out + (q.pc > 1 ? 2 * mid : 0)) * es;
    return bytes + SLOTS * (size_t)nranks * 8 + 16 * 4096 + (8u << 20);
}

/* the ranks of this rank's row (same x block) or column (same y' block) */
static int team_world(const fft_job_t *j, int row_team, int k)
{
    return row_team ? j->row * j->p.pc + k : k * j->p.pc + j->col;
}

/* destinations of an exchange over this rank's row (split_c: columns split by the
   destination's z block) or column (rows split by the destination's x or y' block) */
static void set_dests(fft_job_t *j, fft_stage_t *s, int row_team, int slot)
{
    const fft_params_t *p = &j->p;
    s->slot = slot;
    s->nd = row_team ? p->pc : p->pr;
    s->dest = calloc((size_t)s->nd, sizeof(fft_dest_t));
    for (int k = 0; k < s->nd; k++) {
        fft_dest_t *d = &s->dest[k];
        d->world = team_world(j, row_team, k);
        d->b0 = 0, d->b1 = s->nb, d->c0 = 0, d->c1 = s->nc;
        if (slot == 0 && p->pc > 1) { /* forward z split: [X][n1][Z(k)] */
            d->c0 = Z0(p, k), d->c1 = Z0(p, k) + Z(p, k);
            d->base = (size_t)j->y0 * Z(p, k), d->as = (size_t)p->n[1] * Z(p, k),
            d->bs = (size_t)Z(p, k);
        } else if (slot <= 1) { /* forward to the y' owner: [YT(k)][n0][nz] */
            d->b0 = YT0(p, k), d->b1 = YT0(p, k) + YT(p, k);
            d->base = (size_t)j->x0 * j->nz, d->as = (size_t)j->nz, d->bs = (size_t)p->n[0] * j->nz;
        } else if (slot == 2) { /* inverse to the x owner: [X(k)][n1][nz] */
            d->b0 = X0(p, k), d->b1 = X0(p, k) + X(p, k);
            d->base = (size_t)j->yt0 * j->nz, d->as = (size_t)j->nz,
            d->bs = (size_t)p->n[1] * j->nz;
        } else { /* inverse z gather: [X][Y(k)][n2] */
            d->b0 = Y0(p, k), d->b1 = Y0(p, k) + Y(p, k);
            d->base = (size_t)j->z0, d->as = (size_t)Y(p, k) * p->n[2], d->bs = (size_t)p->n[2];
        }
    }
}

/* the sources this stage waits for: the previous exchange's team, and their chunks per run */
static void set_waits(fft_job_t *j, fft_stage_t *s, const fft_stage_t *prev, int row_team)
{
    const fft_params_t *p = &j->p;
    s->wait_slot = prev->slot;
    s->wait_aligned = row_team; /* the row's ranks share their x-planes */
    s->nw = row_team ? p->pc : p->pr;
    s->wait_world = calloc((size_t)s->nw, sizeof(int));
    s->wait_chunks = calloc((size_t)s->nw, sizeof(int));
    for (int k = 0; k < s->nw; k++) {
        s->wait_world[k] = team_world(j, row_team, k);
        /* the source's plane count in the previous stage */
        int na = row_team ? j->nx : prev->slot == 2 ? YT(p, k) : X(p, k);
        s->wait_chunks[k] = nchunks(na, chunk_of(p->chunk, na));
    }
    if (s->wait_aligned)
        s->chunk = prev->chunk;
}

static fft_stage_t stage(const char *phase, int na, int nb, int nc, fft_kind_t kind, int src,
                         int dst, int chunk)
{
    return (fft_stage_t){.phase = phase,
                         .na = na,
                         .nb = nb,
                         .nc = nc,
                         .kind = kind,
                         .src = src,
                         .dst = dst,
                         .chunk = chunk_of(chunk, na),
                         .slot = -1,
                         .wait_slot = -1};
}

static void build_stages(fft_job_t *j)
{
    const fft_params_t *p = &j->p;
    int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2], ch = p->chunk;
    fft_stage_t *f = j->fwd, *v = j->inv;
    if (p->pc == 1) {
        f[0] = stage("fft_yz_transpose", j->nx, n1, n2, PLANE_2D, BUF_IN, BUF_OUT, ch);
        set_dests(j, &f[0], 0, 0);
        f[1] = stage("fft_x", j->nyt, n0, n2, ALONG_COLS, BUF_OUT, BUF_OUT, 0);
        set_waits(j, &f[1], &f[0], 0);
        v[0] = stage("ifft_x_transpose", j->nyt, n0, n2, ALONG_COLS, BUF_EXT, BUF_IN, ch);
        set_dests(j, &v[0], 0, 2);
        v[1] = stage("ifft_yz", j->nx, n1, n2, PLANE_2D, BUF_IN, BUF_IN, 0);
        set_waits(j, &v[1], &v[0], 0);
        j->nfwd = j->ninv = 2;
        return;
    }
    f[0] = stage("fft_z_transpose", j->nx, j->ny, n2, ALONG_ROWS, BUF_IN, BUF_MID, ch);
    set_dests(j, &f[0], 1, 0);
    f[1] = stage("fft_y_transpose", j->nx, n1, j->nz, ALONG_COLS, BUF_MID, BUF_OUT, ch);
    set_waits(j, &f[1], &f[0], 1);
    set_dests(j, &f[1], 0, 1);
    f[2] = stage("fft_x", j->nyt, n0, j->nz, ALONG_COLS, BUF_OUT, BUF_OUT, 0);
    set_waits(j, &f[2], &f[1], 0);
    v[0] = stage("ifft_x_transpose", j->nyt, n0, j->nz, ALONG_COLS, BUF_EXT, BUF_MID, ch);
    set_dests(j, &v[0], 0, 2);
    v[1] = stage("ifft_y_transpose", j->nx, n1, j->nz, ALONG_COLS, BUF_MID, BUF_IN, ch);
    set_waits(j, &v[1], &v[0], 0);
    set_dests(j, &v[1], 1, 3);
    v[2] = stage("ifft_z", j->nx, j->ny, n2, ALONG_ROWS, BUF_IN, BUF_IN, 0);
    set_waits(j, &v[2], &v[1], 1);
    j->nfwd = j->ninv = 3;
}

static int plan_stages(fft_job_t *j, fft_stage_t *st, int ns, int sign, unsigned flags)
{
    for (int i = 0; i < ns; i++) {
        fft_stage_t *s = &st[i];
        int full = s->chunk < s->na ? s->chunk : s->na, rest = s->na % s->chunk;
        void *in = buf(j, s->src == BUF_EXT ? BUF_OUT : s->src, 0, NULL);
        void *out = s->dst == s->src ? in : j->chunkbuf;
        s->plan = plan_planes(j, s, full, in, out, sign, flags);
        s->tail = rest && rest != full ? plan_planes(j, s, rest, in, out, sign, flags) : NULL;
        if ((full > 0 && s->nb * s->nc > 0 && !s->plan) || (rest && rest != full && !s->tail))
            return -1;
    }
    return 0;
}

static void *sym_alloc(size_t bytes)
{
    return meshmem_align(64, bytes);
}

int fft_setup(fft_job_t *j, const fft_params_t *p)
{
    memset(j, 0, sizeof(*j));
    j->p = *p;
    int P = p->pr * p->pc;
    j->me = meshmem_rank();
    j->row = j->me / p->pc;
    j->col = j->me % p->pc;
    j->es = p->single ? 8 : 16;
    j->x0 = X0(p, j->row), j->nx = X(p, j->row);
    j->y0 = Y0(p, j->col), j->ny = Y(p, j->col);
    j->z0 = p->pc > 1 ? Z0(p, j->col) : 0, j->nz = p->pc > 1 ? Z(p, j->col) : p->n[2];
    j->yt0 = YT0(p, j->row), j->nyt = YT(p, j->row);
    size_t in, mid, out;
    block_max(p, &in, &mid, &out);
    j->in = sym_alloc(in * j->es);
    for (int k = 0; k < 2; k++) {
        j->out[k] = sym_alloc(out * j->es);
        j->mid[k] = p->pc > 1 ? sym_alloc(mid * j->es) : NULL;
    }
    j->sig = meshmem_calloc(SLOTS * (size_t)P, sizeof(uint64_t));
    j->expect = calloc(SLOTS * (size_t)P, sizeof(uint64_t));
    j->fwd = calloc(3, sizeof(fft_stage_t));
    j->inv = calloc(3, sizeof(fft_stage_t));
    if (!j->in || !j->out[0] || !j->out[1] || (p->pc > 1 && (!j->mid[0] || !j->mid[1])) ||
        !j->sig || !j->expect || !j->fwd || !j->inv)
        return -1;
    build_stages(j);
    size_t cb = 1;
    for (int i = 0; i < j->nfwd + j->ninv; i++) {
        const fft_stage_t *s = i < j->nfwd ? &j->fwd[i] : &j->inv[i - j->nfwd];
        size_t b = (size_t)s->chunk * s->nb * s->nc;
        cb = s->dst != s->src && b > cb ? b : cb;
    }
    j->chunkbuf = p->single ? (void *)fftwf_malloc(cb * j->es) : (void *)fftw_malloc(cb * j->es);
    if (!j->chunkbuf)
        return -1;
    /* the inverse is the round trip of the verification, not timed: planned cheaply */
    if (plan_stages(j, j->fwd, j->nfwd, FFTW_FORWARD, p->flags) != 0 ||
        plan_stages(j, j->inv, j->ninv, FFTW_BACKWARD, FFTW_ESTIMATE | FFTW_UNALIGNED) != 0)
        return -1;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    return 0;
}

/* ---- running -------------------------------------------------------------------------- */

/* FFT flops of cnt planes of stage s (5 L log2 L per line of length L) */
static double stage_flops(const fft_stage_t *s, int cnt)
{
    double nb = s->nb, nc = s->nc;
    double L = s->kind == ALONG_ROWS ? nc : s->kind == ALONG_COLS ? nb : nb * nc;
    double lines = nb * nc / (L > 0 ? L : 1);
    return L > 1 ? cnt * lines * 5.0 * L * log2(L) : 0.0;
}

/* wait until every source of the previous exchange has delivered @p upto chunks this run
   (counted from the run's start: expect holds the counter values at the run's start) */
static void wait_sources(const fft_job_t *j, const fft_stage_t *s, int upto_chunk)
{
    int P = j->p.pr * j->p.pc;
    for (int k = 0; k < s->nw; k++) {
        int w = s->wait_world[k];
        int want =
            upto_chunk < 0 || upto_chunk > s->wait_chunks[k] ? s->wait_chunks[k] : upto_chunk;
        uint64_t target = j->expect[s->wait_slot * P + w] + (uint64_t)want;
        meshmem_wait_until(&j->sig[s->wait_slot * P + w], MESHMEM_UINT64, MESHMEM_CMP_GE, &target);
    }
}

/* write the rows of @p cnt transformed planes (from plane a0) to every destination */
static void scatter(const fft_job_t *j, const fft_stage_t *s, const char *planes, int a0, int cnt,
                    char *dst, char *const *mapped)
{
    int P = j->p.pr * j->p.pc;
    size_t es = j->es, pl = (size_t)s->nb * s->nc;
    for (int k = 0; k < s->nd; k++) {
        const fft_dest_t *d = &s->dest[(k + j->me) % s->nd]; /* not everyone at rank 0 first */
        size_t rows = (size_t)(d->b1 - d->b0), cols = (size_t)(d->c1 - d->c0);
        /* whole rows that follow each other at the destination: one copy per plane */
        int whole = cols == (size_t)s->nc && d->bs == cols;
        size_t bytes = (size_t)cnt * rows * cols * es;
        char *to = mapped[k];
        if (bytes && to) {
            if (d->world == j->me)
                meshmem_model_compute(bytes, bytes, 0);
            else
                meshmem_model_transfer(d->world, bytes, 0);
        }
        for (int i = 0; i < cnt && rows && cols; i++) {
            const char *src = planes + ((size_t)i * pl + (size_t)d->b0 * s->nc + d->c0) * es;
            size_t off = (d->base + (size_t)(a0 + i) * d->as) * es;
            for (size_t b = 0; b < rows; b += whole ? rows : 1) {
                size_t len = (whole ? rows * cols : cols) * es;
                const char *from = src + b * (size_t)s->nc * es;
                size_t at = off + b * d->bs * es;
                if (to)
                    memcpy(to + at, from, len);
                else
                    meshmem_put(dst + at, from, len, d->world);
            }
        }
        uint64_t *sig = &j->sig[s->slot * P + j->me];
        meshmem_fence(); /* the rows before the signal, for puts as for stores */
        meshmem_put_signal(sig, sig, 0, sig, 1, MESHMEM_SIGNAL_ADD, d->world);
    }
}

static void run_stage(fft_job_t *j, const fft_stage_t *s, int parity, const void *ext)
{
    meshmem_model_phase(s->phase);
    char *src = buf(j, s->src, parity, ext), *dst = buf(j, s->dst, parity, ext);
    int inplace = s->dst == s->src;
    char *mapped[64], **map = mapped;
    if (!inplace && s->nd > 64)
        map = malloc((size_t)s->nd * sizeof(char *));
    for (int k = 0; !inplace && k < s->nd; k++)
        map[k] = meshmem_ptr(dst, s->dest[(k + j->me) % s->nd].world);
    if (s->wait_slot >= 0 && !s->wait_aligned)
        wait_sources(j, s, -1);
    size_t pl = (size_t)s->nb * s->nc;
    for (int a = 0, k = 0; a < s->na; a += s->chunk, k++) {
        int cnt = s->na - a < s->chunk ? s->na - a : s->chunk;
        if (s->wait_slot >= 0 && s->wait_aligned)
            wait_sources(j, s, k + 1);
        char *in = src + (size_t)a * pl * j->es;
        char *out = inplace ? in : j->chunkbuf;
        fftw_plan plan = cnt == s->chunk || cnt == s->na ? s->plan : s->tail;
        if (plan) {
            meshmem_model_compute((uint64_t)cnt * pl * j->es, (uint64_t)cnt * pl * j->es,
                                  (uint64_t)stage_flops(s, cnt));
            exec(j, plan, in, out);
        }
        if (!inplace)
            scatter(j, s, out, a, cnt, dst, map);
    }
    if (map != mapped)
        free(map);
}

/* the counters after a run: every source's chunks of every exchange this rank waited on */
static void account(fft_job_t *j, const fft_stage_t *st, int ns)
{
    int P = j->p.pr * j->p.pc;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < st[i].nw; k++)
            j->expect[st[i].wait_slot * P + st[i].wait_world[k]] += (uint64_t)st[i].wait_chunks[k];
}

void *fft_forward(fft_job_t *j)
{
    int parity = (int)(j->runs & 1);
    for (int i = 0; i < j->nfwd; i++)
        run_stage(j, &j->fwd[i], parity, NULL);
    account(j, j->fwd, j->nfwd);
    j->runs++;
    return j->out[parity];
}

void fft_inverse(fft_job_t *j, const void *src)
{
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    for (int i = 0; i < j->ninv; i++)
        run_stage(j, &j->inv[i], 0, src);
    account(j, j->inv, j->ninv);
}

static void free_stages(fft_job_t *j, fft_stage_t *st, int ns)
{
    for (int i = 0; st && i < ns; i++) {
        destroy(j, st[i].plan);
        destroy(j, st[i].tail);
        free(st[i].dest);
        free(st[i].wait_world);
        free(st[i].wait_chunks);
    }
    free(st);
}

void fft_free(fft_job_t *j)
{
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    free_stages(j, j->fwd, j->nfwd);
    free_stages(j, j->inv, j->ninv);
    if (j->p.single)
        fftwf_free(j->chunkbuf);
    else
        fftw_free(j->chunkbuf);
    free(j->expect);
    /* symmetric frees are collective: the same order on every rank */
    meshmem_free(j->sig);
    for (int k = 1; k >= 0; k--) {
        meshmem_free(j->mid[k]);
        meshmem_free(j->out[k]);
    }
    meshmem_free(j->in);
    memset(j, 0, sizeof(*j));
}
