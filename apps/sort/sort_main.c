/**
 * @file sort_main.c
 * @brief `sort`: the distributed counting sort and LSD radix sort of seeds 000/004 on meshmem.
 *
 * Generates the input from a seed, sorts it with one variant (warm-up, then timed runs: the
 * time of a run is the slowest rank's, from a common barrier), verifies the last run's output
 * (sorted, a permutation of the input, stable) and prints one line for the tools:
 *   @sort variant=a1 ranks=2 records=... A=1 m=1 seconds=<median> GBps=<key bytes / s> ...
 * Exit status 0 when verified, 1 when the verifier rejects the output, 2 for bad arguments.
 * Options, timing, verdict and result line are the application harness's (app_harness.h).
 */
#include "sort_engine.h"

#include "../common/app_harness.h"

#include <inttypes.h>
#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_sort(void *ctx, int run)
{
    (void)run;
    sort_job_run(ctx); /* names its own phases */
}

static void prepare_sort(void *ctx, int run)
{
    (void)run;
    sort_job_prepare(ctx);
}

int main(int argc, char **argv)
{
    sort_params_t p = {.variant = SORT_A1,
                       .total = 1 << 20,
                       .K = 0,
                       .keybits = 0,
                       .has_vals = 1,
                       .channels = 128,
                       .ghc_x = 0};
    const char *variant = "a1", *dist_name = "uniform";
    long long total = 1 << 20, K = 0;
    int keys_only = 0, heap_ranks = 0, parts = 1;
    app_t h = APP_INIT("sort", "sort");
    const app_opt_t opts[] = {
        {'v', APP_STR, &variant, 0, "VARIANT",
         "a11 a6 a3 (3step) a2 a1 (single) ghc radix serial "
         "(default a1)"},
        {'n', APP_COUNT, &total, 0, "RECORDS",
         "records in the whole job, e.g. 2^24, 16M (default 1M)"},
        {'K', APP_COUNT, &K, 1, "TYPES",
         "key types for the counting sorts (default ranks x channels)"},
        {'b', APP_INT, &p.keybits, 0, "BITS", "32 or 64: full-width keys (radix, serial)"},
        {'c', APP_INT, &p.channels, 1, "CHANNELS",
         "memory channels (key regions) per rank (default 128)"},
        {'k', APP_FLAG, &keys_only, 0, "", "keys only (default: key + value records)"},
        {'d', APP_STR, &dist_name, 0, "DIST",
         "uniform skew equal sorted reverse top (default uniform)"},
        {'g', APP_INT, &p.ghc_x, 0, "X",
         "GHC columns (default MESHMEM_TOPOLOGY=ghc:XxY or a near square)"},
        {'p', APP_INT, &parts, 1, "PARTS",
         "serial: lay the input out as for PARTS ranks (dist top; default 1)"},
        {'H', APP_INT, &heap_ranks, 1, "RANKS",
         "print the symmetric heap bytes a run on RANKS ranks needs, and exit"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(&h, "sort [options]   (start with meshrun -n RANKS --heap SIZE)", opts, argc, argv);
    if ((int)(p.variant = sort_variant_parse(variant)) < 0)
        app_bad_option(&h, "-v %s: unknown variant (a11 a6 a3 a2 a1 ghc radix serial)", variant);
    int dist = sort_dist_parse(dist_name);
    if (dist < 0)
        app_bad_option(&h, "-d %s: unknown distribution (uniform skew equal sorted reverse top)",
                       dist_name);
    p.total = (uint64_t)total;
    p.K = (uint64_t)K;
    p.has_vals = !keys_only;
    if (heap_ranks > 0) {
        if (p.K == 0)
            p.K = (uint64_t)heap_ranks * (uint64_t)p.channels;
        printf("%zu\n", sort_heap_bytes(&p, heap_ranks));
        return 0;
    }
    app_start(&h, &app_rt_meshmem);
    int me = h.me, n = h.nranks;
    if (p.K == 0)
        p.K = (uint64_t)n * (uint64_t)p.channels;
    char why[256];
    if (sort_params_check(&p, n, why, sizeof(why)) != 0)
        app_arg_error(&h, "%s", why);
    sort_job_t j;
    sort_job_setup(&j, &p);
    sort_input_t in = {.total = p.total,
                       .nranks = p.variant == SORT_SERIAL ? parts : n,
                       .K = p.K,
                       .keybits = p.keybits,
                       .dist = (sort_dist_t)dist,
                       .seed = h.seed};
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

    app_runs_t runs = {
        .prepare = prepare_sort, .run = run_sort, .ctx = &j, .timing = APP_TIME_EACH, .warmup = -1};
    app_time_runs(&h, &runs);

    if (h.corrupt)
        sort_corrupt(&j.out, j.keybytes);
    uint64_t rlo = 0, rhi = 0;
    if (p.keybits == 0) {
        rlo = p.variant == SORT_SERIAL ? 0 : j.map.lo[me];
        rhi = p.variant == SORT_SERIAL ? p.K : j.map.lo[me + 1];
    }
    sort_check_local(&chk, &j.out, j.keybytes, rlo, rhi);
    sort_check_t *all = app_alloc(&h, (size_t)n * sizeof(sort_check_t), "the checks");
    meshmem_coll_allgather(MESHMEM_TEAM_WORLD, &chk, all, sizeof(chk), MESHMEM_BYTE,
                           MESHMEM_ALGO_AUTO);
    int ok = sort_check_global(all, n, p.total, j.has_vals, why, sizeof(why));
    app_verdict(&h, me == 0 && !ok, 0, why);
    double key_bytes = (double)p.total * (double)j.keybytes;
    app_report(&h,
               "variant=%s records=%" PRIu64 " K=%" PRIu64 " keybits=%d digit_bits=%d "
               "digits=%d form=%s dist=%s channels=%d ghc=%dx%d A=%d m=%d GBps=%.4f",
               sort_variant_name(p.variant), p.total, p.keybits ? 0 : p.K, p.keybits, j.digit_bits,
               j.ndigit_passes, j.has_vals ? "kv" : "keys", sort_dist_name((sort_dist_t)dist),
               p.channels, j.ghc_x, j.ghc_y, j.passes_A, j.passes_m,
               h.t.median > 0 ? key_bytes / h.t.median * 1e-9 : 0.0);
    free(all);
    sort_job_free(&j);
    return app_finish(&h);
}
