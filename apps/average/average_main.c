/**
 * @file average_main.c
 * @brief `average`: sharing averaged parameters (OPTWEB §3.C) on meshmem, naive or
 * aggressive, on the full mesh or a GHC. For each size: warm-up, then timed runs (each from a
 * barrier; the rank's mean time, the slowest rank reported), then the result verified against
 * the float64 reference. One line per size:
 *   @average algo=aggressive topo=full ranks=4 bytes=1024 us=... GBps=... verified=1 iters=...
 * Throughput as the paper's Fig. 17: bytes per rank / time. Exit status 1 if any size fails.
 * Options, timing, verdict and result line are the application harness's (app_harness.h).
 */
#include "average.h"
#include "average_data.h"

#include "../common/app_harness.h"

#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one size's runs: the job, the algorithm (or alternate), fresh input and a check per run */
typedef struct {
    avg_job_t a;
    avg_algo_t algo;
    int alternate, each, nranks, me;
    size_t count;
    uint64_t seed, in_seed; /* in_seed: the input of the last run */
    uint64_t bad;
} avg_runs_t;

static void prepare_avg(void *ctx, int it)
{
    avg_runs_t *r = ctx;
    if (r->each) { /* x may change as soon as the previous run returned */
        r->in_seed = r->seed + (uint64_t)it;
        avg_fill(r->a.x, r->count, r->in_seed, r->me);
    }
}

static void run_avg(void *ctx, int it)
{
    avg_runs_t *r = ctx;
    avg_run(&r->a, r->alternate ? (it % 2 ? AVG_AGGRESSIVE : AVG_NAIVE) : r->algo);
}

static void check_avg(void *ctx, int it)
{
    avg_runs_t *r = ctx;
    (void)it;
    double err;
    if (r->each)
        r->bad += avg_check(r->a.res, r->count, r->in_seed, r->nranks, &err);
}

int main(int argc, char **argv)
{
    const char *algo_name = "aggressive", *size_list = "1K,64K,1M";
    int ghc_x = 0, iters_large = 100, each = 0;
    long long onestep = AVG_ONESTEP_BYTES;
    app_t h = APP_INIT("average", "average");
    h.iters = 1000;
    h.warmup = -1; /* 10 % of the timed runs, at least 2 */
    const app_opt_t opts[] = {
        {'a', APP_STR, &algo_name, 0, "ALGO",
         "naive, aggressive or alternate (default aggressive)"},
        {'S', APP_STR, &size_list, 0, "SIZES",
         "bytes per rank, comma-separated, 0 allowed (default 1K,64K,1M)"},
        {'g', APP_INT, &ghc_x, 0, "X", "GHC with X columns (default: full mesh)"},
        {'I', APP_INT, &iters_large, 1, "ITERS",
         "timed runs above 64 KiB (default 100; -i: up to 64 KiB, default 1000)"},
        {'T', APP_COUNT, &onestep, 0, "BYTES",
         "aggressive: one-step form up to BYTES x ranks/2 per rank (default 2048; 0 never)"},
        {'V', APP_FLAG, &each, 0, "",
         "fresh input and a verified result at every run, no barrier between runs (tests "
         "the reuse of the buffers; with -a alternate the forms follow each other)"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(&h, "average [options]   (start with meshrun -n RANKS)", opts, argc, argv);
    avg_runs_t r = {.algo = AVG_AGGRESSIVE, .each = each};
    if (!strcmp(algo_name, "naive"))
        r.algo = AVG_NAIVE;
    else if (!strcmp(algo_name, "alternate"))
        r.alternate = 1;
    else if (strcmp(algo_name, "aggressive"))
        app_bad_option(&h, "-a %s: unknown algorithm (naive, aggressive, alternate)", algo_name);
    long long sizes[64];
    int nsizes = app_parse_counts(size_list, sizes, 64);
    if (nsizes <= 0)
        app_bad_option(&h, "-S %s: sizes are byte counts, e.g. 0,1K,1M", size_list);
    app_start(&h, &app_rt_meshmem);
    r.me = h.me;
    r.nranks = h.nranks;
    /* meshrun --fabric: filling, checks and timing are the host's, not the modelled run's
       (the replay leaves the "setup" phase out of its total); each size's runs are one phase */
    for (int si = 0; si < nsizes; si++) {
        r.count = (size_t)sizes[si] / sizeof(float);
        if (avg_setup(&r.a, r.count, ghc_x, (size_t)onestep) != 0)
            app_arg_error(&h, "-g %d: a GHC needs columns that divide %d ranks", ghc_x, h.nranks);
        r.seed = r.in_seed = h.seed;
        r.bad = 0;
        avg_fill(r.a.x, r.count, h.seed, h.me);
        int it_n = sizes[si] <= 65536 ? h.iters : iters_large;
        char phase[48];
        snprintf(phase, sizeof(phase), "average-%zu", r.count * sizeof(float)); /* bytes= */
        app_runs_t runs = {.prepare = prepare_avg,
                           .run = run_avg,
                           .check = check_avg,
                           .ctx = &r,
                           .phase = phase,
                           .timing = APP_TIME_MEAN,
                           .barrier = !each,
                           .iters = it_n,
                           .warmup = h.warmup >= 0 ? h.warmup : (it_n / 10 > 2 ? it_n / 10 : 2)};
        app_time_runs(&h, &runs);
        if (h.corrupt && r.count)
            r.a.res[r.count / 2] += 0.5f;
        double err;
        r.bad += avg_check(r.a.res, r.count, r.in_seed, h.nranks, &err);
        char what[96];
        snprintf(what, sizeof(what),
                 "elements off the float64 reference by more than %g at "
                 "%zu bytes",
                 AVG_TOL, r.count * sizeof(float));
        app_verdict(&h, r.bad, err, what);
        double t = h.t.median;
        app_report(&h, "algo=%s topo=%s bytes=%zu us=%.3f GBps=%.4f steps=%d",
                   r.alternate           ? "alternate"
                   : r.algo == AVG_NAIVE ? "naive"
                                         : "aggressive",
                   r.a.nteams == 2 ? "ghc" : "full", r.count * sizeof(float), t * 1e6,
                   t > 0 ? (double)(r.count * sizeof(float)) / t * 1e-9 : 0.0,
                   avg_steps(&r.a, r.algo));
        avg_free(&r.a);
    }
    return app_finish(&h);
}
