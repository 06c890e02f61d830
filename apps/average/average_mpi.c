/**
 * @file average_mpi.c
 * @brief The OpenMPI twin of `average`: the paper's CPU cluster approach (OPTWEB §4.D: "the
 * sum computation using the all-reduce operation of OpenMPI"), MPI_Allreduce(MPI_SUM) then the
 * scaling by 1/ranks (the same vectorised loop as the meshmem program's averaging pass), with
 * the same input, timing and verifier and the same output line
 * (algo=mpi_allreduce).
 */
#include "average_data.h"

#include "../common/app_harness.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    float *x, *res;
    size_t count;
    float scale;
} mpi_avg_t;

static void run_avg(void *ctx, int it)
{
    mpi_avg_t *r = ctx;
    (void)it;
    MPI_Allreduce(r->x, r->res, (int)r->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    avg_scale(r->res, r->count, r->scale); /* the same vectorised pass as meshmem's */
}

int main(int argc, char **argv)
{
    const char *size_list = "1K,64K,1M";
    int iters_large = 100;
    app_t h = APP_INIT("average_mpi", "average");
    h.iters = 1000;
    h.warmup = -1; /* 10 % of the timed runs, at least 2 */
    const app_opt_t opts[] = {
        {'S', APP_STR, &size_list, 0, "SIZES",
         "bytes per rank, comma-separated (default 1K,64K,1M)"},
        {'I', APP_INT, &iters_large, 1, "ITERS", "timed runs above 64 KiB (default 100)"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(&h, "average_mpi [options]   (start with mpirun -n RANKS)", opts, argc, argv);
    long long sizes[64];
    int nsizes = app_parse_counts(size_list, sizes, 64);
    if (nsizes <= 0)
        app_bad_option(&h, "-S %s: sizes are byte counts, e.g. 0,1K,1M", size_list);
    app_start(&h, &app_rt_mpi);
    for (int si = 0; si < nsizes; si++) {
        mpi_avg_t r = {.count = (size_t)sizes[si] / sizeof(float), .scale = 1.0f / (float)h.nranks};
        r.x = app_alloc(&h, (r.count + 1) * sizeof(float), "the parameters");
        r.res = app_alloc(&h, (r.count + 1) * sizeof(float), "the mean");
        avg_fill(r.x, r.count, h.seed, h.me);
        int it_n = sizes[si] <= 65536 ? h.iters : iters_large;
        app_runs_t runs = {.run = run_avg,
                           .ctx = &r,
                           .timing = APP_TIME_MEAN,
                           .barrier = 1,
                           .iters = it_n,
                           .warmup = h.warmup >= 0 ? h.warmup : (it_n / 10 > 2 ? it_n / 10 : 2)};
        app_time_runs(&h, &runs);
        if (h.corrupt && r.count)
            r.res[r.count / 2] += 0.5f;
        double err;
        uint64_t bad = avg_check(r.res, r.count, h.seed, h.nranks, &err);
        app_verdict(&h, bad, err, "elements off the float64 reference");
        double t = h.t.median;
        app_report(&h, "algo=mpi_allreduce topo=full bytes=%zu us=%.3f GBps=%.4f",
                   r.count * sizeof(float), t * 1e6,
                   t > 0 ? (double)(r.count * sizeof(float)) / t * 1e-9 : 0.0);
        free(r.x);
        free(r.res);
    }
    return app_finish(&h);
}
