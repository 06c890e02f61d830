/*
 * The harness's runtime table on MPI (app_harness.h), compiled by mpicc into the OpenMPI twins.
 */
#include "app_harness.h"

#include <mpi.h>

static int mpi_init(void)
{
    return MPI_Init(NULL, NULL) == MPI_SUCCESS ? 0 : -1;
}

static void mpi_finalize(void)
{
    MPI_Finalize();
}

static int mpi_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int mpi_nranks(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

static void mpi_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mpi_allreduce(double *v, int n, app_red_t op)
{
    MPI_Op o = op == APP_SUM ? MPI_SUM : op == APP_MAX ? MPI_MAX : MPI_MIN;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, o, MPI_COMM_WORLD);
}

/* MPI has no model: the phases are meshrun --fabric's */
static void mpi_phase(const char *name)
{
    (void)name;
}

static void mpi_abort(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

const app_rt_t app_rt_mpi = {
    .name = "openmpi",
    .init = mpi_init,
    .finalize = mpi_finalize,
    .rank = mpi_rank,
    .nranks = mpi_nranks,
    .barrier = mpi_barrier,
    .allreduce = mpi_allreduce,
    .phase = mpi_phase,
    .abort = mpi_abort,
    .now = app_now,
};
