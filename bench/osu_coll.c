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

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

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
    meshmem_coll_reduce(MESHMEM_TEAM_WORLD, sum_slot, &sum, 1, MESHMEM_FLOAT64, MESHMEM_OP_SUM, 0,
                        MESHMEM_ALGO_AUTO);
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
        st = meshmem_coll_allgatherv(w, s_buf, g->count, r_buf, counts, displs, MESHMEM_BYTE, algo);
        break;
    case COLL_ALLTOALL:
        st = meshmem_coll_alltoall(w, s_buf, r_buf, g->count, MESHMEM_BYTE, algo);
        break;
    case COLL_ALLTOALLV:
        st = meshmem_coll_alltoallv(w, s_buf, counts, displs, r_buf, counts, displs, g->recv, NULL,
                                    MESHMEM_BYTE, algo);
        break;
    case COLL_REDUCE:
        st = meshmem_coll_reduce(w, s_buf, r_buf, g->count, red_type, MESHMEM_OP_SUM, 0, algo);
        break;
    case COLL_ALLREDUCE:
        st = meshmem_coll_allreduce(w, s_buf, r_buf, g->count, red_type, MESHMEM_OP_SUM, algo);
        break;
    case COLL_REDUCE_SCATTER:
        st = meshmem_coll_reduce_scatter(w, s_buf, r_buf, g->count, red_type, MESHMEM_OP_SUM, algo);
        break;
    }
    if (st != MESHMEM_OK)
        fail(coll_names[op], st);
}

/*
 * The floor: the operation's one-step pattern of cache lines, written by the benchmark itself
 * with no runtime in between. Each rank owns one line per writer in the symmetric heap; a post
 * is the block's bytes and a sequence number in the writer's line at the destination (one line
 * transfer, as the runtime's line path); a wait polls the own copy of the writer's line. Timed
 * like the collective, so meshmem's time over this one is what the runtime costs beyond the
 * machine's line transfers (and, oversubscribed, its context switches: waits yield, as the
 * runtime's do). No reduction arithmetic and no flow control: a floor, not an implementation.
 */
typedef struct {
    _Alignas(64) _Atomic uint64_t seq;
    unsigned char bytes[56];
} floor_line_t;

static floor_line_t *floor_lines; /* symmetric: floor_lines[r] is written by rank r */
static floor_line_t **floor_out;  /* floor_out[j]: my line at rank j, as loads/stores reach it */
static uint64_t floor_seq;
static int floor_yield; /* more ranks than cores: a wait yields its core */

/* the floor's lines, with every peer's reachable by load/store; @return 0, or -1 when a peer
 * is not (no floor then: it is defined by direct stores) */
static int floor_setup(void)
{
    floor_lines = meshmem_calloc((size_t)npes, sizeof(floor_line_t));
    floor_out = malloc(sizeof(*floor_out) * (size_t)npes);
    if (floor_lines == NULL || floor_out == NULL) {
        fprintf(stderr, "osu_coll: rank %d: no memory for the floor's lines\n", me);
        meshmem_global_exit(1);
    }
    int reachable = 1;
    for (int j = 0; j < npes; j++)
        reachable &= (floor_out[j] = meshmem_ptr(&floor_lines[me], j)) != NULL;
    /* the runtime's test of oversubscription: the job's CPUs as meshrun counts them */
    const char *job_cpus = getenv("MESHMEM_JOB_CPUS");
    long cpus = job_cpus ? atol(job_cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    floor_yield = cpus > 0 && npes > cpus;
    /* all or none: a rank that skipped the floor would leave the others in its barriers */
    int all = 0;
    meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &reachable, &all, 1, MESHMEM_INT32, MESHMEM_OP_MIN,
                           MESHMEM_ALGO_AUTO);
    return all ? 0 : -1;
}

static void floor_post(int dst, uint64_t seq, const char *src, size_t n)
{
    floor_line_t *l = floor_out[dst];
    memcpy(l->bytes, src, n);
    atomic_store_explicit(&l->seq, seq, memory_order_release);
}

static void floor_wait(int src, uint64_t seq, char *dst, size_t n)
{
    const floor_line_t *l = &floor_lines[src];
    while (atomic_load_explicit(&l->seq, memory_order_acquire) < seq)
        if (floor_yield)
            sched_yield();
    memcpy(dst, l->bytes, n);
}

/* one call of the floor: who posts to whom is the one-step algorithm's (root 0) */
static void floor_call(const coll_geom_t *g)
{
    uint64_t seq = ++floor_seq;
    size_t n = g->block;
    /* per-peer blocks on the sending or the receiving side, else the one vector */
    size_t sstep = op == COLL_ALLTOALL || op == COLL_ALLTOALLV || op == COLL_SCATTER ? n : 0;
    size_t rstep = op == COLL_ALLTOALL || op == COLL_ALLTOALLV || op == COLL_GATHER ||
                           op == COLL_ALLGATHER || op == COLL_ALLGATHERV
                       ? n
                       : 0;
    int from_root = op == COLL_BCAST || op == COLL_SCATTER;
    int to_root = op == COLL_GATHER || op == COLL_REDUCE;
    char *into = op == COLL_BCAST ? s_buf : r_buf;
    for (int k = 1; k < npes; k++) {
        int j = (me + k) % npes;
        if ((!from_root && !to_root) || (from_root && me == 0) || (to_root && j == 0))
            floor_post(j, seq, s_buf + (size_t)j * sstep, n);
    }
    for (int k = 1; k < npes; k++) {
        int j = (me + npes - k) % npes;
        if ((!from_root && !to_root) || (from_root && j == 0) || (to_root && me == 0))
            floor_wait(j, seq, into + (size_t)j * rstep, n);
    }
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
        fprintf(stderr,
                "osu_coll: rank %d: cannot allocate %zu bytes (%s); a larger "
                "--heap may help\n",
                me, bytes, private_bufs ? "malloc" : "symmetric heap");
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
    static const meshmem_dtype_t types[CT_COUNT] = {MESHMEM_FLOAT32, MESHMEM_FLOAT64, MESHMEM_INT32,
                                                    MESHMEM_INT64};
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
    void (*floor)(const coll_geom_t *) = floor_setup() == 0 ? floor_call : NULL;
    osu_runtime_t rt = {rt_barrier, rt_sum_to_root, me, npes};
    if (coll_run_sizes(&rt, &a, &o, call, layout, floor, s_buf, r_buf))
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
    free(floor_out);
    meshmem_free(floor_lines);
    meshmem_free(sum_slot);
    meshmem_finalize();
    return 0;
}
