/**
 * @file sort_mpi.c
 * @brief The OpenMPI twin of `sort`: the same distributed counting sort written the way an MPI
 * program does it, on the same input with the same verifier and output line.
 *
 *   a3     (default) one pass classifies the records into per-destination areas and counts
 *          the histogram; MPI_Allreduce of the histogram (every key region's size),
 *          MPI_Alltoall of the counts, MPI_Alltoallv of the keys and of the values; one pass
 *          places the received records into their key regions (stable). Seed 004's A=3 flow.
 *          The single pass (A=1) cannot be written on MPI collectives: MPI_Alltoallv needs every
 *          count before it starts and delivers whole blocks, so its MPI counterpart is this flow.
 *   radix  LSD radix sort of 32/64-bit keys: the a3 flow once per digit (the same digit width
 *          as the meshmem radix sort: log2(ranks x channels), at most 12 bits).
 */
#include "sort_data.h"
#include "sort_local.h"

#include "../common/app_harness.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, nranks;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "sort_mpi: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

typedef struct {
    int keybytes, has_vals;
    sort_map_t map;
    size_t cap; /* records per destination area */
    void *send_k, *recv_k, *buf_k[2];
    uint32_t *send_v, *recv_v, *buf_v[2];
    uint64_t *hist, *hist_all;
    int *scount, *sdispl, *rcount, *rdispl;
    size_t *fill, *cursor;
} mpi_sort_t;

/* one timed run: every pass of the variant; the output is the last pass's */
typedef struct {
    mpi_sort_t *s;
    const void *in_k;
    const uint32_t *in_v;
    size_t nl, nout;
    int passes, digit_bits;
    void *out_k;
    uint32_t *out_v;
} mpi_run_t;

/* one stable distributed counting sort pass on the digit at @p shift; returns the records out */
static size_t pass(mpi_sort_t *s, const void *keys, const uint32_t *vals, size_t n, int shift,
                   void *out_k, uint32_t *out_v)
{
    size_t nd = (size_t)s->map.mask + 1;
    memset(s->hist, 0, nd * sizeof(uint64_t));
    memset(s->fill, 0, (size_t)nranks * sizeof(size_t));
    if (s->keybytes == 8)
        sl_classify_64(keys, vals, n, shift, s->map.mask, s->map.dest, s->hist, s->send_k,
                       s->send_v, s->cap, s->fill);
    else
        sl_classify_32(keys, vals, n, shift, s->map.mask, s->map.dest, s->hist, s->send_k,
                       s->send_v, s->cap, s->fill);
    MPI_Allreduce(s->hist, s->hist_all, (int)nd, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (int d = 0; d < nranks; d++) {
        s->scount[d] = (int)s->fill[d];
        s->sdispl[d] = (int)((size_t)d * s->cap);
    }
    MPI_Alltoall(s->scount, 1, MPI_INT, s->rcount, 1, MPI_INT, MPI_COMM_WORLD);
    size_t got = 0;
    for (int r = 0; r < nranks; r++) {
        s->rdispl[r] = (int)got;
        got += (size_t)s->rcount[r];
    }
    MPI_Datatype kt = s->keybytes == 8 ? MPI_UINT64_T : MPI_UINT32_T;
    MPI_Alltoallv(s->send_k, s->scount, s->sdispl, kt, s->recv_k, s->rcount, s->rdispl, kt,
                  MPI_COMM_WORLD);
    if (s->has_vals)
        MPI_Alltoallv(s->send_v, s->scount, s->sdispl, MPI_UINT32_T, s->recv_v, s->rcount,
                      s->rdispl, MPI_UINT32_T, MPI_COMM_WORLD);
    /* key regions: every rank's records of each digit, smaller digits first */
    size_t sum = 0;
    for (uint64_t d = s->map.lo[me]; d < s->map.lo[me + 1]; d++) {
        s->cursor[d - s->map.lo[me]] = sum;
        sum += s->hist_all[d];
    }
    if (s->keybytes == 8)
        sl_place_64(s->recv_k, s->recv_v, got, shift, s->map.mask, s->map.local, s->cursor, out_k,
                    out_v);
    else
        sl_place_32(s->recv_k, s->recv_v, got, shift, s->map.mask, s->map.local, s->cursor, out_k,
                    out_v);
    return got;
}

static void run_sort(void *ctx, int run)
{
    (void)run;
    mpi_run_t *r = ctx;
    const void *src_k = r->in_k;
    const uint32_t *src_v = r->in_v;
    size_t n = r->nl;
    for (int p = 0; p < r->passes; p++) {
        r->out_k = r->s->buf_k[p % 2];
        r->out_v = r->s->buf_v[p % 2];
        n = pass(r->s, src_k, src_v, n, p * r->digit_bits, r->out_k, r->out_v);
        src_k = r->out_k;
        src_v = r->out_v;
    }
    r->nout = n;
}

int main(int argc, char **argv)
{
    long long total = 1 << 20, K = 0;
    uint64_t seed;
    const char *variant = "a3", *dist_name = "uniform";
    int keybits = 0, channels = 128, keys_only = 0;
    app_t h = APP_INIT("sort_mpi", "sort");
    const app_opt_t opts[] = {
        {'v', APP_STR, &variant, 0, "VARIANT", "a3 (3step) or radix (default a3)"},
        {'n', APP_COUNT, &total, 0, "RECORDS", "records in the whole job (default 1M)"},
        {'K', APP_COUNT, &K, 1, "TYPES", "key types (default ranks x channels)"},
        {'b', APP_INT, &keybits, 0, "BITS", "32 or 64: radix keys"},
        {'c', APP_INT, &channels, 1, "CHANNELS", "key regions per rank (default 128)"},
        {'k', APP_FLAG, &keys_only, 0, "", "keys only"},
        {'d', APP_STR, &dist_name, 0, "DIST", "key distribution (default uniform)"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(&h, "sort_mpi [options]   (start with mpirun -n RANKS)", opts, argc, argv);
    int radix = !strcmp(variant, "radix");
    if (!radix && strcmp(variant, "a3") && strcmp(variant, "3step"))
        app_bad_option(&h, "-v %s: the MPI twin runs a3 and radix", variant);
    int dist = sort_dist_parse(dist_name);
    if (dist < 0)
        app_bad_option(&h, "-d %s: unknown distribution", dist_name);
    if (radix && keybits != 32 && keybits != 64)
        app_bad_option(&h, "-b %d: the radix sort takes -b 32 or -b 64", keybits);
    app_start(&h, &app_rt_mpi);
    me = h.me;
    nranks = h.nranks;
    seed = h.seed;
    int has_vals = !keys_only;
    if (K == 0)
        K = (long long)nranks * channels;
    if (!radix && (keybits || K > (long long)nranks * channels))
        app_arg_error(&h, "counting sort: K up to ranks x channels, no -b");
    mpi_sort_t s;
    memset(&s, 0, sizeof(s));
    s.keybytes = keybits == 64 ? 8 : 4;
    s.has_vals = has_vals;
    int digit_bits = 0, passes = 1;
    if (radix) {
        int b = 0;
        for (uint64_t t = (uint64_t)nranks * (uint64_t)channels; t > 1; t >>= 1)
            b++;
        digit_bits = b > 12 ? 12 : b < 1 ? 1 : b;
        passes = (keybits + digit_bits - 1) / digit_bits;
        sort_map_init(&s.map, UINT64_C(1) << digit_bits, nranks);
    } else {
        sort_map_init(&s.map, (uint64_t)K, nranks);
    }
    uint64_t lo = sort_share_lo((uint64_t)total, nranks, me);
    uint64_t hi = sort_share_lo((uint64_t)total, nranks, me + 1);
    size_t nl = (size_t)(hi - lo), kb = (size_t)s.keybytes, T = (size_t)total;
    /* a destination area must hold everything this rank has: its share, or (radix, after the
     * first digit) up to the whole job */
    s.cap = radix ? T : nl;
    size_t nd = (size_t)s.map.mask + 1;
    s.send_k = xmalloc((size_t)nranks * s.cap * kb);
    s.send_v = has_vals ? xmalloc((size_t)nranks * s.cap * 4) : NULL;
    s.recv_k = xmalloc(T * kb);
    s.recv_v = has_vals ? xmalloc(T * 4) : NULL;
    for (int b = 0; b < 2; b++) {
        s.buf_k[b] = xmalloc(T * kb);
        s.buf_v[b] = has_vals ? xmalloc(T * 4) : NULL;
    }
    s.hist = xmalloc(nd * sizeof(uint64_t));
    s.hist_all = xmalloc(nd * sizeof(uint64_t));
    s.cursor = xmalloc(nd * sizeof(size_t));
    s.fill = xmalloc((size_t)nranks * sizeof(size_t));
    s.scount = xmalloc(4 * (size_t)nranks * sizeof(int));
    s.sdispl = s.scount + nranks;
    s.rcount = s.scount + 2 * nranks;
    s.rdispl = s.scount + 3 * nranks;

    void *in_k = xmalloc(nl * kb);
    uint32_t *in_v = has_vals ? xmalloc(nl * 4) : NULL;
    sort_input_t in = {.total = (uint64_t)total,
                       .nranks = nranks,
                       .K = (uint64_t)K,
                       .keybits = keybits,
                       .dist = (sort_dist_t)dist,
                       .seed = seed};
    if (kb == 8)
        sort_gen64(&in, lo, hi, in_k, in_v);
    else
        sort_gen32(&in, lo, hi, in_k, in_v);
    sort_check_t chk;
    memset(&chk, 0, sizeof(chk));
    for (size_t i = 0; i < nl; i++)
        sort_sum_add(&chk.in, kb == 8 ? ((uint64_t *)in_k)[i] : ((uint32_t *)in_k)[i],
                     in_v ? in_v[i] : 0, has_vals);

    mpi_run_t r = {
        .s = &s, .in_k = in_k, .in_v = in_v, .nl = nl, .passes = passes, .digit_bits = digit_bits};
    app_runs_t runs = {.run = run_sort, .ctx = &r, .timing = APP_TIME_EACH, .warmup = -1};
    app_time_runs(&h, &runs);

    sort_seq_t q = {0};
    sort_seq_push(&q, r.out_k, r.out_v, r.nout);
    if (h.corrupt)
        sort_corrupt(&q, s.keybytes);
    sort_check_local(&chk, &q, s.keybytes, radix ? 0 : s.map.lo[me], radix ? 0 : s.map.lo[me + 1]);
    sort_check_t *all = xmalloc((size_t)nranks * sizeof(sort_check_t));
    MPI_Allgather(&chk, (int)sizeof(chk), MPI_BYTE, all, (int)sizeof(chk), MPI_BYTE,
                  MPI_COMM_WORLD);
    char why[256];
    int ok = sort_check_global(all, nranks, (uint64_t)total, has_vals, why, sizeof(why));
    app_verdict(&h, me == 0 && !ok, 0, why);
    app_report(&h,
               "variant=%s records=%lld K=%lld keybits=%d digit_bits=%d digits=%d form=%s "
               "dist=%s channels=%d A=%d m=%d GBps=%.4f",
               radix ? "radix" : "a3", total, radix ? 0 : K, keybits, digit_bits, passes,
               has_vals ? "kv" : "keys", sort_dist_name((sort_dist_t)dist), channels, 3 * passes,
               passes, h.t.median > 0 ? (double)total * (double)kb / h.t.median * 1e-9 : 0.0);
    free(all);
    free(q.seg);
    return app_finish(&h);
}
