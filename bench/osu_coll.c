/**
 * @file osu_coll.c
 * @brief OSU-style latency benchmarks of meshmem's MPI-like collectives (meshmem_coll.h) on
 * the world team; the twin is osu_coll_mpi.c (MPI_*), with the same loop (osu_coll_common.h).
 *
 * Buffers come from the symmetric heap (meshmem_malloc): peers read and write them directly,
 * with no staging copy (OPTWEB's dedicated communication memory). With -p 1 they come from
 * malloc, as most MPI programs have them, and the runtime stages what peers must read.
 * The algorithm hint (-a) is passed to every call that takes one; a hint the call does not
 * implement ends the run with the runtime's message. The barrier between iterations is
 * meshmem_coll_barrier. The topology is the runtime's (MESHMEM_TOPOLOGY in the environment).
 */
#include "osu_coll_common.h"

#include <meshmem.h>
#include <meshmem_coll.h>

static int me, npes;
static char *s_buf, *r_buf;
static size_t *counts, *displs;
static meshmem_algo_t algo;
static meshmem_dtype_t red_type;
static double *sum_slot; /* symmetric: the value reduced at rank 0 */

static void rt_barrier(void)
{
    meshmem_coll_barrier(MESHMEM_TEAM_WORLD);
}

static double rt_sum_to_root(double v)
{
    *sum_slot = v;
    double sum = 0;
    meshmem_coll_reduce(MESHMEM_TEAM_WORLD, sum_slot, &sum, 1, MESHMEM_FLOAT64, MESHMEM_OP_SUM,
                        0, MESHMEM_ALGO_AUTO);
    return sum;
}

static int op;

static void fail(const char *what, meshmem_status_t st)
{
    fprintf(stderr, "osu_coll: rank %d: %s with algorithm %s failed: %s\n", me, what,
            meshmem_algo_name(algo), meshmem_status_string(st));
    meshmem_global_exit(3);
}

/* one call of the collective under test */
static void call(const coll_geom_t *g)
{
    meshmem_team_t w = MESHMEM_TEAM_WORLD;
    meshmem_status_t st = MESHMEM_OK;
    switch (op) {
    case COLL_BARRIER: st = meshmem_coll_barrier(w); break;
    case COLL_BCAST: st = meshmem_coll_bcast(w, s_buf, g->count, MESHMEM_BYTE, 0, algo); break;
    case COLL_SCATTER:
        st = meshmem_coll_scatter(w, s_buf, r_buf, g->count, MESHMEM_BYTE, 0, algo);
        break;
    case COLL_GATHER:
        st = meshmem_coll_gather(w, s_buf, r_buf, g->count, MESHMEM_BYTE, 0, algo);
        break;
    case COLL_ALLGATHER:
        st = meshmem_coll_allgather(w, s_buf, r_buf, g->count, MESHMEM_BYTE, algo);
        break;
    case COLL_ALLGATHERV:
        st = meshmem_coll_allgatherv(w, s_buf, g->count, r_buf, counts, displs, MESHMEM_BYTE,
                                     algo);
        break;
    case COLL_ALLTOALL:
        st = meshmem_coll_alltoall(w, s_buf, r_buf, g->count, MESHMEM_BYTE, algo);
        break;
    case COLL_ALLTOALLV:
        st = meshmem_coll_alltoallv(w, s_buf, counts, displs, r_buf, counts, displs, g->recv,
                                    NULL, MESHMEM_BYTE, algo);
        break;
    case COLL_REDUCE:
        st = meshmem_coll_reduce(w, s_buf, r_buf, g->count, red_type, MESHMEM_OP_SUM, 0, algo);
        break;
    case COLL_ALLREDUCE:
        st = meshmem_coll_allreduce(w, s_buf, r_buf, g->count, red_type, MESHMEM_OP_SUM, algo);
        break;
    case COLL_REDUCE_SCATTER:
        st = meshmem_coll_reduce_scatter(w, s_buf, r_buf, g->count, red_type, MESHMEM_OP_SUM,
                                         algo);
        break;
    }
    if (st != MESHMEM_OK)
        fail(coll_names[op], st);
}

/* counts and displacements of the v-variants: equal blocks, in rank order */
static void layout(const coll_geom_t *g)
{
    for (int r = 0; r < npes; r++) {
        counts[r] = g->count;
        displs[r] = (size_t)r * g->count;
    }
}

static char *buffer(size_t bytes, int private_bufs)
{
    bytes = bytes ? bytes : 64;
    void *p = NULL;
    if (private_bufs) {
        if (posix_memalign(&p, 4096, bytes) != 0)
            p = NULL;
    } else {
        p = meshmem_align(4096, bytes);
    }
    if (p == NULL) {
        fprintf(stderr, "osu_coll: rank %d: cannot allocate %zu bytes (%s); a larger "
                        "--heap may help\n", me, bytes, private_bufs ? "malloc" : "symmetric heap");
        meshmem_global_exit(1);
    }
    memset(p, 0, bytes); /* touch every page: page faults are not measured */
    return p;
}

int main(int argc, char **argv)
{
    osu_args_t a;
    coll_opts_t o;
    coll_parse_args(argc, argv, &a, &o);
    op = o.op;
    algo = MESHMEM_ALGO_COUNT;
    for (int k = 0; k < MESHMEM_ALGO_COUNT; k++)
        if (!strcmp(o.algo, meshmem_algo_name((meshmem_algo_t)k)))
            algo = (meshmem_algo_t)k;
    if (algo == MESHMEM_ALGO_COUNT) {
        fprintf(stderr, "%s: unknown algorithm \"%s\" (", argv[0], o.algo);
        for (int k = 0; k < MESHMEM_ALGO_COUNT; k++)
            fprintf(stderr, "%s%s", k ? ", " : "", meshmem_algo_name((meshmem_algo_t)k));
        fprintf(stderr, ")\n");
        return 2;
    }
    static const meshmem_dtype_t types[CT_COUNT] = {MESHMEM_FLOAT32, MESHMEM_FLOAT64,
                                                    MESHMEM_INT32, MESHMEM_INT64};
    red_type = types[o.type];

    if (meshmem_init(MESHMEM_THREAD_SINGLE, NULL) != MESHMEM_OK) {
        fprintf(stderr, "%s: meshmem_init failed\n", argv[0]);
        return 1;
    }
    me = meshmem_rank();
    npes = meshmem_nranks();
    if (op != COLL_BARRIER && npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: %s needs at least 2 ranks\n", argv[0], a.op);
        meshmem_global_exit(2);
    }
    coll_geom_t gmax = coll_geom(&o, a.max_size, npes);
    size_t sbytes = gmax.send, rbytes = gmax.recv;
    if (op == COLL_BCAST || op == COLL_BARRIER)
        rbytes = 0;
    sum_slot = meshmem_malloc(sizeof(double));
    s_buf = buffer(sbytes, o.private_bufs);
    r_buf = buffer(rbytes, o.private_bufs);
    counts = malloc(sizeof(size_t) * (size_t)npes);
    displs = malloc(sizeof(size_t) * (size_t)npes);
    osu_runtime_t rt = {rt_barrier, rt_sum_to_root, me, npes};
    if (coll_run_sizes(&rt, &a, &o, call, layout, s_buf, r_buf))
        meshmem_global_exit(1);
    free(counts);
    free(displs);
    if (o.private_bufs) {
        free(s_buf);
        free(r_buf);
    } else {
        meshmem_free(r_buf);
        meshmem_free(s_buf);
    }
    meshmem_free(sum_slot);
    meshmem_finalize();
    return 0;
}
