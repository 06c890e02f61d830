/**
 * @file gemm_main.c
 * @brief `gemm`: the distributed matrix multiply of FSHMEM §V on meshmem (gemm_data.h for the
 * variants and the verification).
 *
 * stream (FSHMEM Fig. 6, automatic result transfer): rank p computes the partial product of
 * row block r of C (owner r) chunk by chunk, starting with the next rank's block and ending
 * with its own. A chunk for a peer in load/store reach is written by dgemm straight into the
 * owner's receive slot for p (meshmem_ptr: no copy, the transfer is the multiply's own
 * stores), then a fence and a signal (ADD 1); for a peer on another host it is multiplied
 * into a private buffer and put with the signal. The owner waits for every sender's chunk
 * count and sums the P partials in rank order (the same order whatever the timing).
 *   Symmetric: slots[P][rows of the largest block][N] (slot s written by sender s only), and
 *   the chunks' counted signals (app_stream.h; one product is one phase). A sender cannot
 *   overwrite a slot the owner is still summing: every timed run starts from a barrier, and
 *   the owner sums before it reaches the next.
 * summa: per panel of K, a broadcast (meshmem_coll_bcast, in place, as the twin's MPI_Bcast)
 * of the A panel over the grid row's team and of the B panel over the grid column's team, then
 * a local dgemm accumulating C. The panels a rank owns live in the symmetric heap, so peers
 * copy them straight from the owner's memory (private panels would be staged first: one more
 * copy of every panel that the twin does not make).
 * serial: one dgemm of the whole product on one rank.
 */
#include "gemm_data.h"
#include "../common/app_stream.h"

#include <meshmem.h>
#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    app_t *h;
    const gemm_opts_t *o;
    int P, me;
    /* stream */
    int kp, maxrows;
    double *a, *b, *slots, *tmp;
    app_stream_t st;
    /* summa */
    meshmem_team_t row, col;
    gemm_summa_t s;
    double *abuf, *bbuf, *owned; /* receive panels; the owned panels, symmetric */
    /* result: this rank's block of C (rows x its columns) */
    double *c;
    int crow0, crows, ccol0, ccols;
} gemm_job_t;

/* --- stream -------------------------------------------------------------------------------- */

static int chunks_of(const gemm_job_t *j, int rows)
{
    return (rows + j->o->chunk - 1) / j->o->chunk;
}

static void stream_setup(gemm_job_t *j)
{
    const gemm_opts_t *o = j->o;
    gemm_stream_inputs(j->h, o, j->P, j->me, &j->kp, &j->a, &j->b);
    j->maxrows = (o->M + j->P - 1) / j->P;
    j->tmp = app_alloc(j->h, (size_t)o->chunk * o->N * sizeof(double), "a chunk");
    j->slots = meshmem_malloc((size_t)j->P * j->maxrows * o->N * sizeof(double));
    app_stream_init(j->h, &j->st);
    if (!j->slots)
        app_fatal(j->h, "out of symmetric memory (gemm -N %s -H %d prints what it needs)", o->size,
                  j->P);
    j->crow0 = app_part_lo(o->M, j->P, j->me), j->crows = app_part_len(o->M, j->P, j->me);
    j->ccol0 = 0, j->ccols = o->N;
    j->c = app_alloc(j->h, (size_t)j->crows * o->N * sizeof(double), "C's rows");
}

static void stream_run(void *ctx, int run)
{
    (void)run;
    gemm_job_t *j = ctx;
    const gemm_opts_t *o = j->o;
    const int N = o->N, lda = j->kp > 0 ? j->kp : 1;
    for (int t = 1; t <= j->P; t++) {
        int r = (j->me + t) % j->P, m0 = app_part_lo(o->M, j->P, r),
            mr = app_part_len(o->M, j->P, r);
        for (int c0 = 0; c0 < mr; c0 += o->chunk) {
            int rows = mr - c0 < o->chunk ? mr - c0 : o->chunk;
            size_t bytes = (size_t)rows * N * sizeof(double);
            double *dst = j->slots + ((size_t)j->me * j->maxrows + c0) * N;
            const double *a = j->a + (size_t)(m0 + c0) * j->kp;
            double *direct = r == j->me ? dst : meshmem_ptr(dst, r);
            meshmem_model_compute((size_t)rows * j->kp * 8 + (size_t)j->kp * N * 8, bytes,
                                  2ull * rows * N * j->kp);
            if (direct != NULL && r != j->me)
                meshmem_model_transfer(r, bytes, 0);
            gemm_multiply(rows, N, j->kp, a, lda, j->b, N, 0.0, direct ? direct : j->tmp, N);
            if (r == j->me)
                continue;
            if (direct != NULL)
                app_stream_stored(&j->st, r);
            else
                app_stream_put(&j->st, dst, j->tmp, bytes, r);
        }
    }
    uint64_t chunks = (uint64_t)chunks_of(j, j->crows);
    for (int s = 0; s < j->P; s++)
        if (s != j->me)
            app_stream_wait(&j->st, s, chunks);
    app_stream_next(&j->st, chunks);
    size_t n = (size_t)j->crows * N;
    gemm_sum_partials(j->c, j->slots, j->P, (size_t)j->maxrows * N, n);
    meshmem_model_compute(n * 8 * (size_t)j->P, n * 8, n * (size_t)(j->P - 1));
}

/* --- summa --------------------------------------------------------------------------------- */

/* SUMMA's symmetric memory on @p P ranks, in doubles: the owned A panels, the owned B panels,
 * then one received panel of each */
typedef struct {
    size_t own_a, own_b, pa, pb;
} summa_layout_t;

static summa_layout_t summa_layout(const gemm_opts_t *o, int P)
{
    gemm_summa_t g;
    gemm_summa_grid(o, P, &g);
    size_t maxr = (size_t)(o->M + g.pr - 1) / g.pr, maxc = (size_t)(o->N + g.pc - 1) / g.pc;
    summa_layout_t l = {.pa = maxr * g.maxkt, .pb = (size_t)g.maxkt * maxc};
    l.own_a = (size_t)((g.T + g.pc - 1) / g.pc) * l.pa; /* the most panels any rank owns */
    l.own_b = (size_t)((g.T + g.pr - 1) / g.pr) * l.pb;
    return l;
}

static size_t summa_doubles(const summa_layout_t *l)
{
    return l->own_a + l->own_b + l->pa + l->pb;
}

static void summa_setup(gemm_job_t *j)
{
    const gemm_opts_t *o = j->o;
    gemm_summa_t *s = &j->s;
    summa_layout_t l = summa_layout(o, j->P);
    j->owned = meshmem_malloc(summa_doubles(&l) * sizeof(double));
    if (!j->owned)
        app_fatal(j->h, "out of symmetric memory (gemm -N %s -H %d prints what it needs)", o->size,
                  j->P);
    /* the owned panels are filled in the symmetric heap, where peers read them */
    gemm_summa_setup(j->h, o, j->P, j->me, s, j->owned, j->owned + l.own_a);
    if (meshmem_team_split_2d(MESHMEM_TEAM_WORLD, s->pc, &j->row, &j->col) != MESHMEM_OK)
        app_fatal(j->h, "meshmem_team_split_2d of a %dx%d grid failed", s->pr, s->pc);
    j->abuf = j->owned + l.own_a + l.own_b;
    j->bbuf = j->abuf + l.pa;
    j->crow0 = s->r0, j->crows = s->nr, j->ccol0 = s->c0, j->ccols = s->nc;
    j->c = app_alloc(j->h, (size_t)s->nr * s->nc * sizeof(double), "C's block");
}

static void bcast_panel(gemm_job_t *j, meshmem_team_t team, double *panel, size_t bytes, int root)
{
    if (meshmem_coll_bcast(team, panel, bytes / sizeof(double), MESHMEM_FLOAT64, root,
                           MESHMEM_ALGO_AUTO) != MESHMEM_OK)
        app_fatal(j->h, "meshmem_coll_bcast of a %zu-byte panel failed", bytes);
}

static void summa_run(void *ctx, int run)
{
    (void)run;
    gemm_job_t *j = ctx;
    const gemm_summa_t *s = &j->s;
    for (int t = 0; t < s->T; t++) {
        int kt = app_part_len(j->o->K, s->T, t);
        size_t abytes = (size_t)s->nr * kt * sizeof(double);
        size_t bbytes = (size_t)kt * s->nc * sizeof(double);
        double *a = s->apan[t] ? s->apan[t] : j->abuf, *b = s->bpan[t] ? s->bpan[t] : j->bbuf;
        bcast_panel(j, j->row, a, abytes, t % s->pc);
        bcast_panel(j, j->col, b, bbytes, t % s->pr);
        meshmem_model_compute(abytes + bbytes, (size_t)s->nr * s->nc * 8,
                              2ull * s->nr * s->nc * kt);
        gemm_multiply(s->nr, s->nc, kt, a, kt, b, s->nc, t ? 1.0 : 0.0, j->c, s->nc);
    }
}

/* --- serial -------------------------------------------------------------------------------- */

static void serial_setup(gemm_job_t *j)
{
    const gemm_opts_t *o = j->o;
    j->a = app_alloc(j->h, (size_t)o->M * o->K * sizeof(double), "A");
    j->b = app_alloc(j->h, (size_t)o->K * o->N * sizeof(double), "B");
    j->c = app_alloc(j->h, (size_t)o->M * o->N * sizeof(double), "C");
    gemm_fill_a(j->h->seed, o, 0, o->M, 0, o->K, j->a, o->K);
    gemm_fill_b(j->h->seed, o, 0, o->K, 0, o->N, j->b, o->N);
    j->crow0 = 0, j->crows = o->M, j->ccol0 = 0, j->ccols = o->N;
}

static void serial_run(void *ctx, int run)
{
    (void)run;
    gemm_job_t *j = ctx;
    gemm_multiply(j->o->M, j->o->N, j->o->K, j->a, j->o->K, j->b, j->o->N, 0.0, j->c, j->o->N);
}

/* symmetric bytes a run on @p P ranks needs (the largest of the variants) and the runtime's */
static size_t heap_bytes(const gemm_opts_t *o, int P)
{
    size_t slots = (size_t)P * ((o->M + P - 1) / P) * o->N * sizeof(double);
    summa_layout_t l = summa_layout(o, P);
    size_t panels = summa_doubles(&l) * sizeof(double);
    return (slots > panels ? slots : panels) + (8u << 20);
}

int main(int argc, char **argv)
{
    app_t h = APP_INIT("gemm", "gemm");
    h.iters = 3;
    gemm_opts_t o;
    gemm_parse(&h, &o, "gemm [options]   (start with meshrun -n RANKS --heap SIZE)",
               "stream,summa,serial", argc, argv);
    if (o.heap_ranks > 0) {
        printf("%zu\n", heap_bytes(&o, o.heap_ranks));
        return 0;
    }
    app_blas_one_thread();
    app_start(&h, &app_rt_meshmem);
    gemm_job_t j = {.h = &h, .o = &o, .P = h.nranks, .me = h.me};
    app_runs_t runs = {.ctx = &j, .phase = "gemm", .timing = APP_TIME_EACH, .warmup = -1};
    if (!strcmp(o.variant, "serial")) {
        if (h.nranks != 1)
            app_arg_error(&h, "-v serial: the one-rank baseline runs on one rank (not %d)",
                          h.nranks);
        serial_setup(&j);
        runs.run = serial_run;
    } else if (!strcmp(o.variant, "summa")) {
        summa_setup(&j);
        runs.run = summa_run;
    } else {
        stream_setup(&j);
        runs.run = stream_run;
    }
    app_time_runs(&h, &runs);
    gemm_verify_report(&h, &o, j.crow0, j.crows, j.ccol0, j.ccols, j.c);
    return app_finish(&h);
}
