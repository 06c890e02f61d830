/**
 * @file average_main.c
 * @brief `average`: sharing averaged parameters (seed 000 §3.C) on meshmem, naive or
 * aggressive, on the full mesh or a GHC. For each size: warm-up, then timed runs (each from a
 * barrier; the rank's mean time, the slowest rank reported), then the result verified against
 * the float64 reference. One line per size:
 *   @average algo=aggressive topo=full ranks=4 bytes=1024 us=... GBps=... verified=1 iters=...
 * Throughput as the paper's Fig. 17: bytes per rank / time. Exit status 1 if any size fails.
 */
#include "average.h"
#include "average_data.h"

#include <getopt.h>
#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: average [options]   (start with meshrun -n RANKS)\n"
           "  -a ALGO   naive or aggressive (default aggressive)\n"
           "  -S SIZES  bytes per rank, comma-separated, 0 allowed (default 1K,64K,1M)\n"
           "  -g X      GHC with X columns (default: full mesh)\n"
           "  -i ITERS  timed runs up to 64 KiB (default 1000); -I above (default 100)\n"
           "  -w WARMUP untimed runs first (default 10%% of the timed, at least 2)\n"
           "  -s SEED   input seed (default 1)\n"
           "  -T BYTES  aggressive: one-step form up to BYTES x ranks/2 per rank (default %d; 0 never)\n"
           "  -V        fresh input and a verified result at every run, no barrier between runs\n"
           "            (tests the reuse of the buffers; -a alternate: naive and aggressive in\n"
           "            turn, so the one-step and sliced forms follow each other)\n"
           "  -C        corrupt the result before verifying (tests that the verifier fails)\n",
           AVG_ONESTEP_BYTES);
}

int main(int argc, char **argv)
{
    avg_algo_t algo = AVG_AGGRESSIVE;
    size_t sizes[64];
    int nsizes = avg_parse_sizes("1K,64K,1M", sizes, 64);
    int ghc_x = 0, iters = 1000, iters_large = 100, warmup = -1, corrupt = 0;
    int each = 0, alternate = 0;
    uint64_t seed = 1;
    long long onestep = AVG_ONESTEP_BYTES;
    int c;
    while ((c = getopt(argc, argv, "a:S:g:i:I:w:s:T:VCh")) != -1) {
        switch (c) {
        case 'a':
            if (!strcmp(optarg, "naive"))
                algo = AVG_NAIVE;
            else if (!strcmp(optarg, "aggressive"))
                algo = AVG_AGGRESSIVE;
            else if (!strcmp(optarg, "alternate"))
                alternate = 1;
            else
                APP_DIE("average", "unknown algorithm %s (naive, aggressive, alternate)", optarg);
            break;
        case 'S':
            if ((nsizes = avg_parse_sizes(optarg, sizes, 64)) <= 0)
                APP_DIE("average", "-S %s: sizes are byte counts, e.g. 0,1K,1M", optarg);
            break;
        case 'g': ghc_x = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'I': iters_large = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'T':
            if ((onestep = app_parse_count(optarg)) < 0)
                APP_DIE("average", "-T %s: a byte count, e.g. 4K (0: never one step)", optarg);
            break;
        case 'V': each = 1; break;
        case 'C': corrupt = 1; break;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    if (iters < 1 || iters_large < 1)
        APP_DIE("average", "-i and -I must be at least 1");
    if (meshmem_init(MESHMEM_THREAD_SINGLE, NULL) != MESHMEM_OK)
        return 1;
    /* meshrun --fabric: filling, checks and timing are the host's, not the modelled run's
       (the replay leaves a "setup" phase out of its total); each size's runs are one phase */
    meshmem_model_phase("setup");
    int me = meshmem_rank(), n = meshmem_nranks(), failed = 0;
    for (int si = 0; si < nsizes; si++) {
        size_t count = sizes[si] / sizeof(float);
        avg_job_t a;
        if (avg_setup(&a, count, ghc_x, (size_t)onestep) != 0) {
            if (me == 0)
                fprintf(stderr, "average: -g %d: a GHC needs columns that divide %d ranks\n",
                        ghc_x, n);
            meshmem_finalize();
            return 2;
        }
        avg_fill(a.x, count, seed, me);
        int it_n = sizes[si] <= 65536 ? iters : iters_large;
        int wu = warmup >= 0 ? warmup : (it_n / 10 > 2 ? it_n / 10 : 2);
        double sum = 0;
        uint64_t in_seed = seed; /* the input of the last run */
        size_t bad = 0;
        char phase[48];
        snprintf(phase, sizeof(phase), "average-%zu", count * sizeof(float)); /* bytes= */
        for (int it = 0; it < wu + it_n; it++) {
            avg_algo_t al = alternate ? (it % 2 ? AVG_AGGRESSIVE : AVG_NAIVE) : algo;
            if (each) { /* x may change as soon as the previous run returned */
                in_seed = seed + (uint64_t)it;
                avg_fill(a.x, count, in_seed, me);
            } else {
                meshmem_barrier(MESHMEM_TEAM_WORLD);
            }
            meshmem_model_phase(phase);
            double t0 = app_now();
            avg_run(&a, al);
            if (it >= wu)
                sum += app_now() - t0;
            meshmem_model_phase("setup");
            if (each) {
                double err;
                bad += avg_check(a.res, count, in_seed, n, &err);
            }
        }
        double mine = sum / it_n, worst_t = 0;
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &mine, &worst_t, 1, MESHMEM_FLOAT64,
                               MESHMEM_OP_MAX, MESHMEM_ALGO_AUTO);
        if (corrupt && count)
            a.res[count / 2] += 0.5f;
        double worst_err;
        bad += avg_check(a.res, count, in_seed, n, &worst_err);
        uint64_t bad_all = 0, b64 = bad;
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &b64, &bad_all, 1, MESHMEM_UINT64,
                               MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
        if (bad_all)
            failed = 1;
        if (me == 0) {
            printf("@average algo=%s topo=%s ranks=%d bytes=%zu us=%.3f GBps=%.4f verified=%d "
                   "iters=%d max_err=%.3g steps=%d\n",
                   alternate ? "alternate" : algo == AVG_NAIVE ? "naive" : "aggressive",
                   a.nteams == 2 ? "ghc" : "full", n,
                   count * sizeof(float), worst_t * 1e6,
                   worst_t > 0 ? (double)(count * sizeof(float)) / worst_t * 1e-9 : 0.0,
                   bad_all == 0, it_n, worst_err, avg_steps(&a, algo));
            if (bad_all)
                fprintf(stderr, "average: verification FAILED at %zu bytes: %llu elements off "
                        "the float64 reference by more than %g\n", count * sizeof(float),
                        (unsigned long long)bad_all, AVG_TOL);
            fflush(stdout);
        }
        avg_free(&a);
    }
    meshmem_finalize();
    return failed;
}
