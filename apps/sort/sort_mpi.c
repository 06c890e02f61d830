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

#include "../common/app_common.h"

#include <getopt.h>
#include <inttypes.h>
#include <mpi.h>

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
    size_t cap;                 /* records per destination area */
    void *send_k, *recv_k, *buf_k[2];
    uint32_t *send_v, *recv_v, *buf_v[2];
    uint64_t *hist, *hist_all;
    int *scount, *sdispl, *rcount, *rdispl;
    size_t *fill, *cursor;
} mpi_sort_t;

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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    uint64_t total = 1 << 20, K = 0, seed = 1;
    int keybits = 0, channels = 128, has_vals = 1, dist = SORT_DIST_UNIFORM, iters = 5, warmup = 1;
    int radix = 0, c;
    long long v;
    while ((c = getopt(argc, argv, "v:n:K:b:c:kd:s:g:p:i:w:")) != -1) {
        switch (c) {
        case 'v':
            if (!strcmp(optarg, "radix"))
                radix = 1;
            else if (strcmp(optarg, "a3") && strcmp(optarg, "3step"))
                APP_DIE("sort_mpi", "variant %s: the MPI twin runs a3 and radix", optarg);
            break;
        case 'n':
            if ((v = app_parse_count(optarg)) < 0)
                APP_DIE("sort_mpi", "-n %s: not a record count", optarg);
            total = (uint64_t)v;
            break;
        case 'K':
            if ((v = app_parse_count(optarg)) < 1)
                APP_DIE("sort_mpi", "-K %s: not a key count", optarg);
            K = (uint64_t)v;
            break;
        case 'b': keybits = atoi(optarg); break;
        case 'c': channels = atoi(optarg); break;
        case 'k': has_vals = 0; break;
        case 'd':
            if ((dist = sort_dist_parse(optarg)) < 0)
                APP_DIE("sort_mpi", "unknown distribution %s", optarg);
            break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'i': iters = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        default: break; /* -g, -p: meshmem-only options */
        }
    }
    if (K == 0)
        K = (uint64_t)nranks * (uint64_t)channels;
    if (iters < 1)
        iters = 1;
    if (radix && keybits != 32 && keybits != 64)
        APP_DIE("sort_mpi", "the radix sort takes -b 32 or -b 64");
    if (!radix && (keybits || K > (uint64_t)nranks * (uint64_t)channels))
        APP_DIE("sort_mpi", "counting sort: K up to ranks x channels, no -b");
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
        sort_map_init(&s.map, K, nranks);
    }
    uint64_t lo = sort_share_lo(total, nranks, me), hi = sort_share_lo(total, nranks, me + 1);
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
    sort_input_t in = {.total = total, .nranks = nranks, .K = K, .keybits = keybits,
                       .dist = (sort_dist_t)dist, .seed = seed};
    if (kb == 8)
        sort_gen64(&in, lo, hi, in_k, in_v);
    else
        sort_gen32(&in, lo, hi, in_k, in_v);
    sort_check_t chk;
    memset(&chk, 0, sizeof(chk));
    for (size_t i = 0; i < nl; i++)
        sort_sum_add(&chk.in, kb == 8 ? ((uint64_t *)in_k)[i] : ((uint32_t *)in_k)[i],
                     in_v ? in_v[i] : 0, has_vals);

    double *times = calloc((size_t)iters, sizeof(double));
    size_t nout = 0;
    void *out_k = NULL;
    uint32_t *out_v = NULL;
    for (int it = 0; it < warmup + iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = app_now();
        const void *src_k = in_k;
        const uint32_t *src_v = in_v;
        size_t n = nl;
        for (int p = 0; p < passes; p++) {
            out_k = s.buf_k[p % 2];
            out_v = s.buf_v[p % 2];
            n = pass(&s, src_k, src_v, n, p * digit_bits, out_k, out_v);
            src_k = out_k;
            src_v = out_v;
        }
        nout = n;
        double t = app_now() - t0, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it >= warmup)
            times[it - warmup] = tmax;
    }
    sort_seq_t q = {0};
    sort_seq_push(&q, out_k, out_v, nout);
    sort_check_local(&chk, &q, s.keybytes, radix ? 0 : s.map.lo[me], radix ? 0 : s.map.lo[me + 1]);
    sort_check_t *all = calloc((size_t)nranks, sizeof(sort_check_t));
    MPI_Allgather(&chk, (int)sizeof(chk), MPI_BYTE, all, (int)sizeof(chk), MPI_BYTE,
                  MPI_COMM_WORLD);
    char why[256];
    int ok = sort_check_global(all, nranks, total, has_vals, why, sizeof(why));
    if (me == 0) {
        double best = app_min(times, iters);
        char list[1024];
        app_times_list(times, iters, list, sizeof(list));
        double med = app_median(times, iters);
        printf("@sort variant=%s runtime=openmpi ranks=%d records=%" PRIu64 " K=%" PRIu64
               " keybits=%d digit_bits=%d digits=%d form=%s dist=%s channels=%d A=%d m=%d "
               "seconds=%.6f best=%.6f GBps=%.4f verified=%d iters=%d times=%s\n",
               radix ? "radix" : "a3", nranks, total, radix ? 0 : K, keybits, digit_bits, passes,
               has_vals ? "kv" : "keys", sort_dist_name((sort_dist_t)dist), channels, 3 * passes,
               passes, med, best, med > 0 ? (double)total * (double)kb / med * 1e-9 : 0.0, ok,
               iters, list);
        if (!ok)
            fprintf(stderr, "sort_mpi: verification FAILED: %s\n", why);
        fflush(stdout);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
