/*
 * The sort job: parameters, buffers, the dispatch to the flows, and the serial baseline.
 * See sort_engine.h for what each variant does and how its passes are counted.
 */
#include "sort_work.h"

#include "sort_local.h"
#include "mm_grid.h"

#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const variant_names[SORT_VARIANT_COUNT] = {"a11", "a6",  "a3",    "a2",
                                                              "a1",  "ghc", "radix", "serial"};

int sort_variant_parse(const char *name)
{
    if (!strcmp(name, "single") || !strcmp(name, "singlepass"))
        return SORT_A1;
    if (!strcmp(name, "3step"))
        return SORT_A3;
    for (int v = 0; v < SORT_VARIANT_COUNT; v++)
        if (!strcmp(name, variant_names[v]))
            return v;
    return -1;
}

const char *sort_variant_name(sort_variant_t v)
{
    return (unsigned)v < SORT_VARIANT_COUNT ? variant_names[v] : "?";
}

void *sort_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "sort: out of memory (%zu bytes)\n", bytes);
        meshmem_global_exit(1);
    }
    return p;
}

void *sort_xmalloc_touched(size_t bytes)
{
    void *p = sort_xmalloc(bytes);
    memset(p, 0, bytes);
    return p;
}

void *sort_symalloc(size_t bytes)
{
    /* meshmem_malloc(0) is NULL: keep every buffer a real, distinct allocation */
    size_t want = bytes < 64 ? 64 : bytes;
    void *p = meshmem_align(4096, want);
    if (p == NULL) {
        size_t total = 0, left = 0;
        meshmem_heap_info(&total, &left);
        fprintf(stderr,
                "sort: the symmetric heap (%zu bytes, %zu free) has no room for %zu "
                "bytes: start it with a larger --heap (sort --print-heap tells how much)\n",
                total, left, want);
        meshmem_global_exit(1);
    }
    return p;
}

/* GHC grid: -g, else MESHMEM_TOPOLOGY=ghc:XxY, else the squarest grid with x >= y */
static int ghc_columns(int want, int nranks)
{
    if (want > 0)
        return want;
    const char *t = getenv("MESHMEM_TOPOLOGY");
    int x = 0, y = 0;
    if (t && sscanf(t, "ghc:%dx%d", &x, &y) == 2 && x > 0 && y > 0 && x * y == nranks)
        return x;
    mm_grid_most_square(nranks, &x, &y);
    return x;
}

static int floor_log2(uint64_t v)
{
    int b = 0;
    while (v > 1) {
        v >>= 1;
        b++;
    }
    return b;
}

/* radix digit width: log2(ranks x channels), at most 12 bits (a CPU's fan-out limit) */
static int radix_bits(const sort_params_t *p, int nranks)
{
    int b = floor_log2((uint64_t)nranks * (uint64_t)p->channels);
    if (b > 12)
        b = 12;
    return b < 1 ? 1 : b;
}

int sort_params_check(const sort_params_t *p, int nranks, char *why, size_t whylen)
{
    snprintf(why, whylen, "ok");
    if (p->total > UINT32_MAX) {
        snprintf(why, whylen, "at most 2^32-1 records (values are 32-bit input indices)");
        return -1;
    }
    if (p->channels < 1) {
        snprintf(why, whylen, "channels per rank must be at least 1");
        return -1;
    }
    if (p->variant == SORT_RADIX || (p->variant == SORT_SERIAL && p->keybits)) {
        if (p->keybits != 32 && p->keybits != 64) {
            snprintf(why, whylen, "the radix sort takes 32- or 64-bit keys (-b 32|64)");
            return -1;
        }
        return 0;
    }
    if (p->keybits) {
        snprintf(why, whylen, "-b %d: full-width keys need -v radix (or serial)", p->keybits);
        return -1;
    }
    uint64_t channels = (uint64_t)nranks * (uint64_t)p->channels;
    if (p->K < 1 || (p->variant != SORT_SERIAL && p->K > channels)) {
        snprintf(why, whylen,
                 "K = %llu key types: must be 1..%llu (ranks x channels); wider "
                 "keys need the radix sort",
                 (unsigned long long)p->K, (unsigned long long)channels);
        return -1;
    }
    if (p->K > (UINT64_C(1) << 32)) {
        snprintf(why, whylen, "K above 2^32 does not fit 32-bit keys");
        return -1;
    }
    if (p->variant == SORT_A11 && !p->has_vals) {
        snprintf(why, whylen, "a11 is the key+value flow (a6 is its keys-only form)");
        return -1;
    }
    if (p->variant == SORT_A6 && p->has_vals) {
        snprintf(why, whylen, "a6 is the keys-only flow (a11 is its key+value form)");
        return -1;
    }
    if ((p->variant == SORT_A11 || p->variant == SORT_A6) && p->K > 65536) {
        snprintf(why, whylen, "a11/a6 keep uint16 tables: at most 65536 key types");
        return -1;
    }
    if (p->variant == SORT_SERIAL && nranks != 1) {
        snprintf(why, whylen, "the serial baseline runs on one rank");
        return -1;
    }
    if (p->variant == SORT_GHC) {
        int x = ghc_columns(p->ghc_x, nranks);
        if (x < 1 || nranks % x) {
            snprintf(why, whylen, "GHC needs a full grid: %d columns do not divide %d ranks", x,
                     nranks);
            return -1;
        }
    }
    return 0;
}

#define ALIGN_UP(v) (((v) + 4095) & ~(size_t)4095)

size_t sort_heap_bytes(const sort_params_t *p, int nranks)
{
    int kb = (p->variant == SORT_RADIX || p->variant == SORT_SERIAL) && p->keybits == 64 ? 8 : 4;
    size_t rec = (size_t)kb + (p->has_vals ? 4 : 0);
    size_t T = p->total;
    size_t nmax = (T + (size_t)nranks - 1) / (size_t)nranks;
    size_t n = (size_t)nranks;
    size_t b = 0;
    switch (p->variant) {
    case SORT_A11:
    case SORT_A6: b = nmax * rec + T * rec; break;
    case SORT_A3: b = n * nmax * rec + T * rec; break;
    case SORT_GHC: {
        size_t x = (size_t)ghc_columns(p->ghc_x, nranks), y = n / (x ? x : 1);
        b = x * nmax * rec + T * rec + y * T * rec + T * rec;
        break;
    }
    case SORT_A2: b = T * rec; break;
    case SORT_SERIAL: b = T * rec; break;
    default: break;
    }
    /* input (nmax records), the stream state, page alignment of each buffer, and headroom */
    uint64_t ndigits = p->variant == SORT_RADIX ? UINT64_C(1) << radix_bits(p, nranks) : p->K;
    return nmax * rec + b + sort_stream_heap_bytes(p, nranks, ndigits, kb) + 16 * 4096 + (8u << 20);
}

void sort_job_setup(sort_job_t *j, const sort_params_t *p)
{
    memset(j, 0, sizeof(*j));
    j->variant = p->variant;
    j->me = meshmem_rank();
    j->nranks = meshmem_nranks();
    j->keybits = p->keybits;
    j->keybytes = p->keybits == 64 ? 8 : 4;
    j->has_vals = p->has_vals;
    j->total = p->total;
    int n = j->nranks;
    j->nlocal = (size_t)(sort_share_lo(p->total, n, j->me + 1) - sort_share_lo(p->total, n, j->me));
    j->nmax = (size_t)((p->total + (uint64_t)n - 1) / (uint64_t)n);
    j->w = calloc(1, sizeof(struct sort_work));
    if (j->w == NULL)
        meshmem_global_exit(1);
    struct sort_work *w = j->w;
    size_t kb = (size_t)j->keybytes, T = (size_t)p->total;

    if (p->variant == SORT_RADIX || (p->variant == SORT_SERIAL && p->keybits)) {
        j->digit_bits = p->variant == SORT_RADIX ? radix_bits(p, n) : 11;
        j->ndigit_passes = (p->keybits + j->digit_bits - 1) / j->digit_bits;
        j->ndigits = UINT64_C(1) << j->digit_bits;
    } else {
        j->ndigits = p->K;
        j->ndigit_passes = 1;
    }
    sort_map_init(&j->map, j->ndigits, n);

    /* the input lives in the symmetric heap (the dedicated communication memory) */
    j->in_keys = sort_symalloc(j->nmax * kb);
    j->in_vals = j->has_vals ? sort_symalloc(j->nmax * 4) : NULL;

    size_t nd = (size_t)j->map.mask + 1;
    w->hist = calloc(nd, sizeof(uint64_t));
    w->hist_all = calloc(nd, sizeof(uint64_t));
    w->cursor = calloc(nd > (size_t)n ? nd : (size_t)n, sizeof(size_t));
    w->sendcounts = calloc((size_t)n * 4, sizeof(size_t));
    if (!w->hist || !w->hist_all || !w->cursor || !w->sendcounts)
        meshmem_global_exit(1);
    w->sdispls = w->sendcounts + n;
    w->rdispls = w->sendcounts + 2 * n;
    w->recvcounts = w->sendcounts + 3 * n;

    switch (p->variant) {
    case SORT_A11:
    case SORT_A6:
        j->passes_A = p->variant == SORT_A11 ? 11 : 6;
        j->passes_m = p->variant == SORT_A11 ? 2 : 1;
        w->send_cap = j->nmax;
        w->send_keys = sort_symalloc(j->nmax * kb);
        w->send_vals = j->has_vals ? sort_symalloc(j->nmax * 4) : NULL;
        w->recv_keys = sort_symalloc(T * kb);
        w->recv_vals = j->has_vals ? sort_symalloc(T * 4) : NULL;
        w->table = sort_xmalloc_touched(j->nmax * sizeof(uint16_t));
        w->table2 = sort_xmalloc_touched(T * sizeof(uint16_t));
        w->out_keys = sort_xmalloc_touched(T * kb);
        w->out_vals = j->has_vals ? sort_xmalloc_touched(T * 4) : NULL;
        break;
    case SORT_A3:
        j->passes_A = 3;
        j->passes_m = 1;
        w->send_cap = j->nmax;
        w->send_keys = sort_symalloc((size_t)n * j->nmax * kb);
        w->send_vals = j->has_vals ? sort_symalloc((size_t)n * j->nmax * 4) : NULL;
        w->recv_keys = sort_symalloc(T * kb);
        w->recv_vals = j->has_vals ? sort_symalloc(T * 4) : NULL;
        w->out_keys = sort_xmalloc_touched(T * kb);
        w->out_vals = j->has_vals ? sort_xmalloc_touched(T * 4) : NULL;
        break;
    case SORT_GHC: {
        j->passes_A = 5;
        j->passes_m = 2;
        j->ghc_x = ghc_columns(p->ghc_x, n);
        j->ghc_y = n / j->ghc_x;
        if (meshmem_team_split_2d(MESHMEM_TEAM_WORLD, j->ghc_x, &w->xteam, &w->yteam) !=
            MESHMEM_OK) {
            fprintf(stderr, "sort: meshmem_team_split_2d failed\n");
            meshmem_global_exit(1);
        }
        size_t x = (size_t)j->ghc_x, y = (size_t)j->ghc_y;
        w->ghc_fx = sort_xmalloc_touched(nd * sizeof(uint32_t));
        w->ghc_fy = sort_xmalloc_touched(nd * sizeof(uint32_t));
        for (size_t d = 0; d < nd; d++) {
            w->ghc_fx[d] = j->map.dest[d] % (uint32_t)j->ghc_x;
            w->ghc_fy[d] = j->map.dest[d] / (uint32_t)j->ghc_x;
        }
        w->send_cap = j->nmax;
        w->send_keys = sort_symalloc(x * j->nmax * kb);
        w->send_vals = j->has_vals ? sort_symalloc(x * j->nmax * 4) : NULL;
        w->recv_keys = sort_symalloc(T * kb);
        w->recv_vals = j->has_vals ? sort_symalloc(T * 4) : NULL;
        w->send2_cap = T;
        w->send2_keys = sort_symalloc(y * T * kb);
        w->send2_vals = j->has_vals ? sort_symalloc(y * T * 4) : NULL;
        w->recv2_keys = sort_symalloc(T * kb);
        w->recv2_vals = j->has_vals ? sort_symalloc(T * 4) : NULL;
        w->out_keys = sort_xmalloc_touched(T * kb);
        w->out_vals = j->has_vals ? sort_xmalloc_touched(T * 4) : NULL;
        break;
    }
    case SORT_A2:
    case SORT_A1:
        j->passes_A = p->variant == SORT_A2 ? 2 : 1;
        j->passes_m = 1;
        if (p->variant == SORT_A2) {
            w->recv_keys = sort_symalloc(T * kb);
            w->recv_vals = j->has_vals ? sort_symalloc(T * 4) : NULL;
        }
        sort_stream_setup(j);
        break;
    case SORT_RADIX:
        j->passes_A = j->ndigit_passes;
        j->passes_m = j->ndigit_passes;
        sort_stream_setup(j);
        break;
    case SORT_SERIAL:
        /* counting: histogram + scatter; radix: histograms + one pass per digit */
        j->passes_A = p->keybits ? 1 + j->ndigit_passes : 2;
        j->passes_m = 0;
        if (p->keybits) {
            w->serial_keys = sort_xmalloc_touched(T * kb);
            w->serial_tmp_keys = sort_xmalloc_touched(T * kb);
            w->serial_vals = j->has_vals ? sort_xmalloc_touched(T * 4) : NULL;
            w->serial_tmp_vals = j->has_vals ? sort_xmalloc_touched(T * 4) : NULL;
        } else {
            w->out_keys = sort_xmalloc_touched(T * kb);
            w->out_vals = j->has_vals ? sort_xmalloc_touched(T * 4) : NULL;
        }
        break;
    default: break;
    }
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

/* the serial radix sorts in place: every run starts from a fresh copy (untimed, sort_main) */
void sort_job_prepare(sort_job_t *j)
{
    struct sort_work *w = j->w;
    if (j->variant == SORT_SERIAL && j->keybits) {
        memcpy(w->serial_keys, j->in_keys, j->nlocal * (size_t)j->keybytes);
        if (j->has_vals)
            memcpy(w->serial_vals, j->in_vals, j->nlocal * 4);
    }
}

void sort_run_serial(sort_job_t *j)
{
    struct sort_work *w = j->w;
    j->out.nseg = 0;
    size_t n = j->nlocal;
    if (j->keybits == 0) {
        sl_serial_counting_32(j->in_keys, j->in_vals, n, j->ndigits, w->out_keys, w->out_vals);
        sort_seq_push(&j->out, w->out_keys, w->out_vals, n);
        return;
    }
    int in_tmp = j->keybits == 64 ? sl_serial_radix_64(w->serial_keys, w->serial_vals,
                                                       w->serial_tmp_keys, w->serial_tmp_vals, n)
                                  : sl_serial_radix_32(w->serial_keys, w->serial_vals,
                                                       w->serial_tmp_keys, w->serial_tmp_vals, n);
    sort_seq_push(&j->out, in_tmp ? w->serial_tmp_keys : w->serial_keys,
                  in_tmp ? w->serial_tmp_vals : w->serial_vals, n);
}

void sort_model_pass(uint64_t records, size_t bytes, int writes)
{
    uint64_t b = records * (uint64_t)bytes;
    meshmem_model_compute(b, writes ? b : 0, 0);
}

size_t sort_record_bytes(const sort_job_t *j)
{
    return (size_t)j->keybytes + (j->has_vals ? 4 : 0);
}

/* each flow names its stages (meshmem_model_phase) and annotates every memory pass where it
   happens (sort_model_pass), so that meshrun --fabric charges the passes at the fabric's
   memory rate and the exchanges with the fabric's collectives */
void sort_job_run(sort_job_t *j)
{
    switch (j->variant) {
    case SORT_A11:
    case SORT_A6: sort_run_separate(j); break;
    case SORT_A3: sort_run_fused(j); break;
    case SORT_GHC: sort_run_ghc(j); break;
    case SORT_A2:
    case SORT_A1:
    case SORT_RADIX: sort_run_stream(j); break;
    case SORT_SERIAL:
        meshmem_model_phase("serial"); /* not modelled: measured time */
        sort_run_serial(j);
        break;
    default: break;
    }
}

void sort_job_free(sort_job_t *j)
{
    struct sort_work *w = j->w;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    if (w->stream)
        sort_stream_free(j);
    /* symmetric frees are collective: every rank frees the same buffers in the same order */
    void *sym[] = {w->recv2_vals, w->recv2_keys, w->send2_vals, w->send2_keys, w->recv_vals,
                   w->recv_keys,  w->send_vals,  w->send_keys,  j->in_vals,    j->in_keys};
    for (size_t i = 0; i < sizeof(sym) / sizeof(sym[0]); i++)
        meshmem_free(sym[i]);
    if (w->xteam != MESHMEM_TEAM_INVALID)
        meshmem_team_destroy(w->xteam);
    if (w->yteam != MESHMEM_TEAM_INVALID)
        meshmem_team_destroy(w->yteam);
    free(w->table);
    free(w->ghc_fx);
    free(w->ghc_fy);
    free(w->table2);
    free(w->out_keys);
    free(w->out_vals);
    free(w->hist);
    free(w->hist_all);
    free(w->cursor);
    free(w->sendcounts);
    free(w->serial_keys);
    free(w->serial_vals);
    free(w->serial_tmp_keys);
    free(w->serial_tmp_vals);
    free(w);
    free(j->out.seg);
    sort_map_free(&j->map);
    memset(j, 0, sizeof(*j));
}
