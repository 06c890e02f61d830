/*
 * The harness's runtime table on meshmem (app_harness.h): the public API only.
 */
#include "app_harness.h"

#include <meshmem.h>
#include <meshmem_coll.h>

static int mm_init(void)
{
    return meshmem_init(MESHMEM_THREAD_SINGLE, NULL) == MESHMEM_OK ? 0 : -1;
}

static void mm_barrier(void)
{
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

static void mm_allreduce(double *v, int n, app_red_t op)
{
    meshmem_op_t o = op == APP_SUM   ? MESHMEM_OP_SUM
                     : op == APP_MAX ? MESHMEM_OP_MAX
                                     : MESHMEM_OP_MIN;
    meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, MESHMEM_IN_PLACE, v, (size_t)n, MESHMEM_FLOAT64, o,
                           MESHMEM_ALGO_AUTO);
}

static void mm_abort(int status)
{
    meshmem_global_exit(status);
}

const app_rt_t app_rt_meshmem = {
    .name = "meshmem",
    .init = mm_init,
    .finalize = meshmem_finalize,
    .rank = meshmem_rank,
    .nranks = meshmem_nranks,
    .barrier = mm_barrier,
    .allreduce = mm_allreduce,
    .phase = meshmem_model_phase,
    .abort = mm_abort,
    .now = meshmem_wtime, /* the engine's cycles under meshrun --rtl, else CLOCK_MONOTONIC */
};
