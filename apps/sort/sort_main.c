/**
 * @file sort_main.c
 * @brief `sort`: the distributed counting sort and LSD radix sort of seeds 000/004 on meshmem.
 *
 * Generates the input from a seed, sorts it with one variant (warm-up, then timed runs: the
 * time of a run is the slowest rank's, from a common barrier), verifies the last run's output
 * (sorted, a permutation of the input, stable) and prints one line for the tools:
 *   @sort variant=a1 ranks=2 records=... A=1 m=1 seconds=<median> GBps=<key bytes / s> ...
 * Exit status 0 when verified, 1 when the verifier rejects the output, 2 for bad arguments.
 */
#include "sort_engine.h"

#include "../common/app_common.h"

#include <getopt.h>
#include <inttypes.h>
#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: sort [options]   (start with meshrun -n RANKS --heap SIZE)\n"
           "  -v VARIANT  a11 a6 a3 (3step) a2 a1 (single) ghc radix serial (default a1)\n"
           "  -n RECORDS  records in the whole job, e.g. 2^24, 16M (default 1M)\n"
           "  -K TYPES    key types for the counting sorts (default ranks x channels)\n"
           "  -b BITS     32 or 64: full-width keys (radix, serial)\n"
           "  -c CHANNELS memory channels (key regions) per rank (default 128)\n"
           "  -k          keys only (default: key + value records)\n"
           "  -d DIST     uniform skew equal sorted reverse top (default uniform)\n"
           "  -s SEED     input seed (default 1)\n"
           "  -g X        GHC columns (default MESHMEM_TOPOLOGY=ghc:XxY or a near square)\n"
           "  -p PARTS    serial: lay the input out as for PARTS ranks (dist top; default 1)\n"
           "  -i ITERS    timed runs (default 5); -w WARMUP untimed runs first (default 1)\n"
           "  -H RANKS    print the symmetric heap bytes a run on RANKS ranks needs, and exit\n"
           "  -C          corrupt the output before verifying (tests that the verifier fails)\n");
}

int main(int argc, char **argv)
{
    sort_params_t p = {.variant = SORT_A1, .total = 1 << 20, .K = 0, .keybits = 0,
                       .has_vals = 1, .channels = 128, .ghc_x = 0};
    int dist = SORT_DIST_UNIFORM, iters = 5, warmup = 1, heap_ranks = 0, corrupt = 0, parts = 1;
    uint64_t seed = 1;
    int c;
    long long v;
    while ((c = getopt(argc, argv, "v:n:K:b:c:kd:s:g:p:i:w:H:Ch")) != -1) {
        switch (c) {
        case 'v':
            if ((p.variant = sort_variant_parse(optarg)) == (sort_variant_t)-1)
                APP_DIE("sort", "unknown variant %s", optarg);
            break;
        case 'n':
            if ((v = app_parse_count(optarg)) < 0)
                APP_DIE("sort", "-n %s: not a record count", optarg);
            p.total = (uint64_t)v;
            break;
        case 'K':
            if ((v = app_parse_count(optarg)) < 1)
                APP_DIE("sort", "-K %s: not a key count", optarg);
            p.K = (uint64_t)v;
            break;
        case 'b': p.keybits = atoi(optarg); break;
        case 'c': p.channels = atoi(optarg); break;
        case 'k': p.has_vals = 0; break;
        case 'd':
            if ((dist = sort_dist_parse(optarg)) < 0)
                APP_DIE("sort", "unknown distribution %s", optarg);
            break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'g': p.ghc_x = atoi(optarg); break;
        case 'p': parts = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 'H': heap_ranks = atoi(optarg); break;
        case 'C': corrupt = 1; break;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    if (iters < 1 || warmup < 0 || parts < 1)
        APP_DIE("sort", "-i must be at least 1, -w at least 0, -p at least 1");
    if (heap_ranks > 0) {
        if (p.K == 0)
            p.K = (uint64_t)heap_ranks * (uint64_t)p.channels;
        printf("%zu\n", sort_heap_bytes(&p, heap_ranks));
        return 0;
    }
    if (meshmem_init(MESHMEM_THREAD_SINGLE, NULL) != MESHMEM_OK)
        return 1;
    /* meshrun --fabric: generation, checks and timing are this host's work, not the sort's:
       the replay charges a "setup" phase's unannotated time nothing and leaves the phase out of
       the predicted total (docs/model.md) */
    meshmem_model_phase("setup");
    int me = meshmem_rank(), n = meshmem_nranks();
    if (p.K == 0)
        p.K = (uint64_t)n * (uint64_t)p.channels;
    char why[256];
    if (sort_params_check(&p, n, why, sizeof(why)) != 0) {
        if (me == 0)
            fprintf(stderr, "sort: %s\n", why);
        meshmem_finalize();
        return 2;
    }
    sort_job_t j;
    sort_job_setup(&j, &p);
    sort_input_t in = {.total = p.total, .nranks = p.variant == SORT_SERIAL ? parts : n,
                       .K = p.K, .keybits = p.keybits, .dist = (sort_dist_t)dist, .seed = seed};
    uint64_t lo = sort_share_lo(p.total, n, me), hi = sort_share_lo(p.total, n, me + 1);
    if (j.keybytes == 8)
        sort_gen64(&in, lo, hi, j.in_keys, j.in_vals);
    else
        sort_gen32(&in, lo, hi, j.in_keys, j.in_vals);
    sort_check_t chk;
    memset(&chk, 0, sizeof(chk));
    for (size_t i = 0; i < j.nlocal; i++) {
        uint64_t k = j.keybytes == 8 ? ((uint64_t *)j.in_keys)[i] : ((uint32_t *)j.in_keys)[i];
        sort_sum_add(&chk.in, k, j.in_vals ? j.in_vals[i] : 0, j.has_vals);
    }

    double *times = calloc((size_t)iters, sizeof(double));
    for (int it = 0; it < warmup + iters; it++) {
        sort_job_prepare(&j);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        double t0 = app_now();
        sort_job_run(&j); /* names its own phases */
        double t = app_now() - t0, tmax = 0;
        meshmem_model_phase("setup");
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &t, &tmax, 1, MESHMEM_FLOAT64, MESHMEM_OP_MAX,
                               MESHMEM_ALGO_AUTO);
        if (it >= warmup)
            times[it - warmup] = tmax;
    }

    if (corrupt)
        sort_corrupt(&j.out, j.keybytes);
    uint64_t rlo = 0, rhi = 0;
    if (p.keybits == 0) {
        rlo = p.variant == SORT_SERIAL ? 0 : j.map.lo[me];
        rhi = p.variant == SORT_SERIAL ? p.K : j.map.lo[me + 1];
    }
    sort_check_local(&chk, &j.out, j.keybytes, rlo, rhi);
    sort_check_t *all = calloc((size_t)n, sizeof(sort_check_t));
    meshmem_coll_allgather(MESHMEM_TEAM_WORLD, &chk, all, sizeof(chk), MESHMEM_BYTE,
                           MESHMEM_ALGO_AUTO);
    int ok = sort_check_global(all, n, p.total, j.has_vals, why, sizeof(why));

    if (me == 0) {
        double best = app_min(times, iters);
        char list[1024];
        app_times_list(times, iters, list, sizeof(list));
        double med = app_median(times, iters);
        double key_bytes = (double)p.total * (double)j.keybytes;
        printf("@sort variant=%s ranks=%d records=%" PRIu64 " K=%" PRIu64 " keybits=%d "
               "digit_bits=%d digits=%d form=%s dist=%s channels=%d ghc=%dx%d A=%d m=%d "
               "seconds=%.6f best=%.6f GBps=%.4f verified=%d iters=%d times=%s\n",
               sort_variant_name(p.variant), n, p.total, p.keybits ? 0 : p.K, p.keybits,
               j.digit_bits, j.ndigit_passes, j.has_vals ? "kv" : "keys",
               sort_dist_name((sort_dist_t)dist), p.channels, j.ghc_x, j.ghc_y, j.passes_A,
               j.passes_m, med, best, med > 0 ? key_bytes / med * 1e-9 : 0.0, ok, iters, list);
        if (!ok)
            fprintf(stderr, "sort: verification FAILED: %s\n", why);
        fflush(stdout);
    }
    free(all);
    free(times);
    sort_job_free(&j);
    meshmem_finalize();
    return ok ? 0 : 1;
}
