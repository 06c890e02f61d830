/**
 * @file average_mpi.c
 * @brief The OpenMPI twin of `average`: the paper's CPU cluster approach (seed 000 §4.D: "the
 * sum computation using the all-reduce operation of OpenMPI"), MPI_Allreduce(MPI_SUM) then the
 * scaling by 1/ranks (the same vectorised loop as the meshmem program's averaging pass), with
 * the same input, timing and verifier and the same output line
 * (algo=mpi_allreduce).
 */
#include "average_data.h"

#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    size_t sizes[64];
    int nsizes = avg_parse_sizes("1K,64K,1M", sizes, 64);
    int iters = 1000, iters_large = 100, warmup = -1;
    uint64_t seed = 1;
    int c;
    MPI_Init(&argc, &argv);
    while ((c = getopt(argc, argv, "a:S:g:i:I:w:s:")) != -1) {
        switch (c) {
        case 'S':
            if ((nsizes = avg_parse_sizes(optarg, sizes, 64)) <= 0)
                APP_DIE("average_mpi", "-S %s: bad sizes", optarg);
            break;
        case 'i': iters = atoi(optarg); break;
        case 'I': iters_large = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        default: break; /* -a, -g: the twin has one algorithm and no topology */
        }
    }
    int me, n, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int si = 0; si < nsizes; si++) {
        size_t count = sizes[si] / sizeof(float);
        float *x = calloc(count + 1, sizeof(float)), *res = calloc(count + 1, sizeof(float));
        avg_fill(x, count, seed, me);
        int it_n = sizes[si] <= 65536 ? iters : iters_large;
        int wu = warmup >= 0 ? warmup : (it_n / 10 > 2 ? it_n / 10 : 2);
        float scale = 1.0f / (float)n;
        double sum = 0;
        for (int it = 0; it < wu + it_n; it++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = app_now();
            MPI_Allreduce(x, res, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            avg_scale(res, count, scale); /* the same vectorised pass as meshmem's */
            if (it >= wu)
                sum += app_now() - t0;
        }
        double mine = sum / it_n, worst_t = 0, worst_err;
        MPI_Allreduce(&mine, &worst_t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        long long bad = (long long)avg_check(res, count, seed, n, &worst_err), bad_all = 0;
        MPI_Allreduce(&bad, &bad_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (bad_all)
            failed = 1;
        if (me == 0) {
            printf("@average algo=mpi_allreduce topo=full ranks=%d bytes=%zu us=%.3f GBps=%.4f "
                   "verified=%d iters=%d max_err=%.3g\n",
                   n, count * sizeof(float), worst_t * 1e6,
                   worst_t > 0 ? (double)(count * sizeof(float)) / worst_t * 1e-9 : 0.0,
                   bad_all == 0, it_n, worst_err);
            fflush(stdout);
        }
        free(x);
        free(res);
    }
    MPI_Finalize();
    return failed;
}
