/**
 * @file osu_coll_mpi.c
 * @brief The MPI twin of osu_coll.c: the same collectives, loop, check and output
 * (osu_coll_common.h) on MPI_COMM_WORLD with OpenMPI's own algorithm choice.
 *
 * Buffers come from MPI_Alloc_mem (OpenMPI's registered memory; on shared memory the same as
 * malloc), or from malloc with -p 1. The algorithm hint -a is accepted and ignored: OpenMPI's
 * tuned component picks its algorithm per size. The barrier between iterations is MPI_Barrier.
 */
#include "osu_coll_common.h"

#include <mpi.h>

static int me, npes, op;
static char *s_buf, *r_buf;
static int *counts, *displs;
static MPI_Datatype red_type;

static void rt_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static double rt_sum_to_root(double v)
{
    double sum = 0;
    MPI_Reduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum;
}

/* one call of the collective under test */
static void call(const coll_geom_t *g)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int c = (int)g->count;
    switch (op) {
    case COLL_BARRIER: MPI_Barrier(w); break;
    case COLL_BCAST: MPI_Bcast(s_buf, c, MPI_BYTE, 0, w); break;
    case COLL_SCATTER: MPI_Scatter(s_buf, c, MPI_BYTE, r_buf, c, MPI_BYTE, 0, w); break;
    case COLL_GATHER: MPI_Gather(s_buf, c, MPI_BYTE, r_buf, c, MPI_BYTE, 0, w); break;
    case COLL_ALLGATHER: MPI_Allgather(s_buf, c, MPI_BYTE, r_buf, c, MPI_BYTE, w); break;
    case COLL_ALLGATHERV:
        MPI_Allgatherv(s_buf, c, MPI_BYTE, r_buf, counts, displs, MPI_BYTE, w);
        break;
    case COLL_ALLTOALL: MPI_Alltoall(s_buf, c, MPI_BYTE, r_buf, c, MPI_BYTE, w); break;
    case COLL_ALLTOALLV:
        MPI_Alltoallv(s_buf, counts, displs, MPI_BYTE, r_buf, counts, displs, MPI_BYTE, w);
        break;
    case COLL_REDUCE: MPI_Reduce(s_buf, r_buf, c, red_type, MPI_SUM, 0, w); break;
    case COLL_ALLREDUCE: MPI_Allreduce(s_buf, r_buf, c, red_type, MPI_SUM, w); break;
    case COLL_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(s_buf, r_buf, c, red_type, MPI_SUM, w);
        break;
    }
}

/* counts and displacements of the v-variants: equal blocks, in rank order */
static void layout(const coll_geom_t *g)
{
    for (int r = 0; r < npes; r++) {
        counts[r] = (int)g->count;
        displs[r] = r * (int)g->count;
    }
}

static char *buffer(size_t bytes, int private_bufs)
{
    bytes = bytes ? bytes : 64;
    void *p = NULL;
    if (private_bufs) {
        if (posix_memalign(&p, 4096, bytes) != 0)
            p = NULL;
    } else if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS) {
        p = NULL;
    }
    if (p == NULL) {
        fprintf(stderr, "osu_coll_mpi: rank %d: cannot allocate %zu bytes\n", me, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0, bytes);
    return p;
}

int main(int argc, char **argv)
{
    osu_args_t a;
    coll_opts_t o;
    coll_parse_args(argc, argv, &a, &o);
    op = o.op;
    int known = 0;
    for (size_t k = 0; k < sizeof coll_algo_names / sizeof coll_algo_names[0]; k++)
        known |= !strcmp(o.algo, coll_algo_names[k]);
    if (!known) {
        fprintf(stderr, "%s: unknown algorithm \"%s\"\n", argv[0], o.algo);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (op != COLL_BARRIER && npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: %s needs at least 2 ranks\n", argv[0], a.op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    red_type = o.type == CT_F32   ? MPI_FLOAT
               : o.type == CT_F64 ? MPI_DOUBLE
               : o.type == CT_I32 ? MPI_INT32_T
                                  : MPI_INT64_T;
    coll_geom_t gmax = coll_geom(&o, a.max_size, npes);
    if (gmax.send > (size_t)1 << 31 || gmax.recv > (size_t)1 << 31) {
        if (me == 0)
            fprintf(stderr, "%s: buffers above 2 GiB do not fit MPI int counts\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    s_buf = buffer(gmax.send, o.private_bufs);
    r_buf = buffer(op == COLL_BCAST ? 0 : gmax.recv, o.private_bufs);
    counts = malloc(sizeof(int) * (size_t)npes);
    displs = malloc(sizeof(int) * (size_t)npes);
    osu_runtime_t rt = {rt_barrier, rt_sum_to_root, me, npes};
    if (coll_run_sizes(&rt, &a, &o, call, layout, NULL, s_buf, r_buf))
        MPI_Abort(MPI_COMM_WORLD, 1);
    free(counts);
    free(displs);
    if (o.private_bufs) {
        free(s_buf);
        free(r_buf);
    } else {
        MPI_Free_mem(r_buf);
        MPI_Free_mem(s_buf);
    }
    MPI_Finalize();
    return 0;
}
