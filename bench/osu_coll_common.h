/**
 * @file osu_coll_common.h
 * @brief What the collective benchmark (osu_coll.c, meshmem_coll.h) and its MPI twin
 * (osu_coll_mpi.c) share: the operations, their buffer geometry, the extra options, the timed
 * loop and the result check, so that both sides are measured the same way.
 *
 * Methodology (OSU collective benchmarks, osu_alltoall etc.): per size, untimed warm-up, then
 * the timed iterations (1000 up to 8 KiB, 100 above); each call is timed on its own and a
 * barrier (the runtime's own) separates iterations, untimed; a rank's latency is its average,
 * and the reported latency the average over ranks. The barrier benchmark times the whole loop.
 *
 * Command line: that of osu_common.h plus
 *   -a ALGO   meshmem algorithm hint (auto, onestep, naive, aggressive, ring, recdbl); the MPI
 *             twin accepts and ignores it (OpenMPI chooses its own)
 *   -p 0|1    1: buffers from malloc (private) instead of the symmetric heap / MPI_Alloc_mem
 *   -d TYPE   element type of the reductions: float32 (default, as OSU), float64, int32, int64
 * Output: the lines of osu_common.h; @memcpy lines carry moved=M, the bytes one rank moves per
 * call (N blocks for all-to-all and all-gather), which is what the reference copies. The
 * meshmem program adds "@floor bytes=.. us=.." for blocks that fit in a flag line: the same
 * pattern of cache lines written by the benchmark itself, with no runtime (osu_coll.c).
 *
 * Sizes follow OSU: `bytes` is the block one rank sends to one peer (alltoall(v), allgather(v),
 * scatter, gather, reduce_scatter's per-member block) or the whole vector (bcast, reduce,
 * allreduce). Reductions use max(1, bytes / element size) elements.
 */
#ifndef OSU_COLL_COMMON_H
#define OSU_COLL_COMMON_H

/* osu_common.h's point-to-point helpers are not all used here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "osu_common.h"

/** The collectives, in the order `meshmem bench` lists them. */
enum {
    COLL_BARRIER,
    COLL_BCAST,
    COLL_SCATTER,
    COLL_GATHER,
    COLL_ALLGATHER,
    COLL_ALLGATHERV,
    COLL_ALLTOALL,
    COLL_ALLTOALLV,
    COLL_REDUCE,
    COLL_ALLREDUCE,
    COLL_REDUCE_SCATTER,
    COLL_COUNT
};
static const char *const coll_names[COLL_COUNT] = {
    "barrier",  "bcast",     "scatter", "gather",    "allgather",     "allgatherv",
    "alltoall", "alltoallv", "reduce",  "allreduce", "reduce_scatter"};

/** Element types of the reductions. */
enum { CT_F32, CT_F64, CT_I32, CT_I64, CT_COUNT };
static const char *const coll_type_names[CT_COUNT] = {"float32", "float64", "int32", "int64"};
static const size_t coll_type_size[CT_COUNT] = {4, 8, 4, 8};

/** The options beyond osu_common.h's. */
typedef struct {
    int op;           /* COLL_* */
    const char *algo; /* -a, "auto" by default */
    int private_bufs; /* -p 1 */
    int type;         /* CT_* */
} coll_opts_t;

/** Buffer geometry of one call of @c op at one size, for one rank. */
typedef struct {
    size_t block; /* bytes per block (elements * esize for reductions) */
    size_t count; /* elements per block */
    size_t esize; /* element size (1 for the data-movement collectives) */
    size_t send;  /* send buffer bytes */
    size_t recv;  /* receive buffer bytes */
    size_t moved; /* bytes this rank moves per call: the memcpy reference copies as much */
} coll_geom_t;

static inline int coll_is_reduction(int op)
{
    return op == COLL_REDUCE || op == COLL_ALLREDUCE || op == COLL_REDUCE_SCATTER;
}

static coll_geom_t coll_geom(const coll_opts_t *o, size_t bytes, int npes)
{
    coll_geom_t g = {0};
    size_t n = (size_t)npes;
    g.esize = coll_is_reduction(o->op) ? coll_type_size[o->type] : 1;
    g.count = bytes / g.esize ? bytes / g.esize : (o->op == COLL_BARRIER ? 0 : 1);
    g.block = g.count * g.esize;
    switch (o->op) {
    case COLL_BARRIER: break;
    case COLL_BCAST: g.send = g.recv = g.moved = g.block; break;
    case COLL_SCATTER:
        g.send = n * g.block;
        g.recv = g.moved = g.block;
        break;
    case COLL_GATHER:
        g.send = g.moved = g.block;
        g.recv = n * g.block;
        break;
    case COLL_ALLGATHER:
    case COLL_ALLGATHERV:
        g.send = g.block;
        g.recv = g.moved = n * g.block;
        break;
    case COLL_ALLTOALL:
    case COLL_ALLTOALLV: g.send = g.recv = g.moved = n * g.block; break;
    case COLL_REDUCE:
    case COLL_ALLREDUCE: g.send = g.recv = g.moved = g.block; break;
    case COLL_REDUCE_SCATTER:
        g.send = g.moved = n * g.block;
        g.recv = g.block;
        break;
    }
    return g;
}

/**
 * @brief Parse the command line: the -a/-p/-d options here, the rest by osu_parse_args.
 * Exits with status 2 and a message on an error.
 */
static void coll_parse_args(int argc, char **argv, osu_args_t *a, coll_opts_t *o)
{
    char **rest = calloc((size_t)argc + 1, sizeof(char *));
    int nrest = 0;
    o->algo = "auto";
    o->private_bufs = 0;
    o->type = CT_F32;
    for (int i = 0; i < argc; i++) {
        const char *f = argv[i];
        if (i > 0 && i + 1 < argc && f[0] == '-' && f[1] && !f[2] && strchr("apd", f[1])) {
            const char *v = argv[++i];
            if (f[1] == 'a') {
                o->algo = v;
            } else if (f[1] == 'p') {
                o->private_bufs = (int)osu_parse_long(argv[0], "-p", v, 0, 1);
            } else {
                int t = -1;
                for (int k = 0; k < CT_COUNT; k++)
                    if (!strcmp(v, coll_type_names[k]))
                        t = k;
                if (t < 0) {
                    fprintf(stderr,
                            "%s: -d \"%s\": type must be float32, float64, int32 or "
                            "int64\n",
                            argv[0], v);
                    exit(2);
                }
                o->type = t;
            }
            continue;
        }
        rest[nrest++] = argv[i];
    }
    osu_parse_args(nrest, rest, a);
    free(rest);
    o->op = -1;
    for (int k = 0; k < COLL_COUNT; k++)
        if (!strcmp(a->op, coll_names[k]))
            o->op = k;
    if (o->op < 0) {
        fprintf(stderr, "%s: unknown collective \"%s\" (", argv[0], a->op);
        for (int k = 0; k < COLL_COUNT; k++)
            fprintf(stderr, "%s%s", k ? ", " : "", coll_names[k]);
        fprintf(stderr, ")\n");
        exit(2);
    }
}

/** Byte pattern of block @p j sent by rank @p r (never 0: a zeroed buffer fails the check). */
static inline unsigned char coll_pat(int r, int j)
{
    return (unsigned char)(1 + (r * 37 + j * 11) % 251);
}

/** Fill an element of reduction type @p t with the integer @p v. */
static inline void coll_set_elem(void *p, int t, size_t i, long v)
{
    switch (t) {
    case CT_F32: ((float *)p)[i] = (float)v; break;
    case CT_F64: ((double *)p)[i] = (double)v; break;
    case CT_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    default: ((int64_t *)p)[i] = (int64_t)v; break;
    }
}

static inline long coll_get_elem(const void *p, int t, size_t i)
{
    switch (t) {
    case CT_F32: return (long)((const float *)p)[i];
    case CT_F64: return (long)((const double *)p)[i];
    case CT_I32: return (long)((const int32_t *)p)[i];
    default: return (long)((const int64_t *)p)[i];
    }
}

/**
 * @brief Fill the buffers before a size is measured: send blocks with their pattern (reductions:
 * every element me+1), receive buffers with zeros (bcast: the root's buffer with its pattern).
 */
static void coll_fill(const coll_opts_t *o, const coll_geom_t *g, int me, int npes, char *sbuf,
                      char *rbuf)
{
    if (o->op == COLL_BARRIER)
        return;
    if (coll_is_reduction(o->op)) {
        for (size_t i = 0; i < g->send / g->esize; i++)
            coll_set_elem(sbuf, o->type, i, me + 1);
    } else if (o->op == COLL_BCAST) {
        memset(sbuf, me == 0 ? coll_pat(0, 0) : 0, g->block);
        return;
    } else {
        size_t nb = g->send / g->block;
        for (size_t j = 0; j < nb; j++)
            memset(sbuf + j * g->block, coll_pat(me, (int)j), g->block);
    }
    memset(rbuf, 0, g->recv);
    (void)npes;
}

/* first, middle and last byte of a received block hold @p want */
static inline int coll_block_ok(const char *blk, size_t len, unsigned char want)
{
    const unsigned char *b = (const unsigned char *)blk;
    return b[0] == want && b[len / 2] == want && b[len - 1] == want;
}

/**
 * @brief Check the result of the last call (root 0 for rooted collectives).
 * @return NULL when right, else a short description of the first wrong value.
 */
static const char *coll_check(const coll_opts_t *o, const coll_geom_t *g, int me, int npes,
                              const char *sbuf, const char *rbuf)
{
    static char why[160];
    long sum = (long)npes * (npes + 1) / 2;
    switch (o->op) {
    case COLL_BARRIER: return NULL;
    case COLL_BCAST:
        return coll_block_ok(sbuf, g->block, coll_pat(0, 0)) ? NULL : "broadcast data differ";
    case COLL_SCATTER:
        return coll_block_ok(rbuf, g->block, coll_pat(0, me)) ? NULL : "scattered block differs";
    case COLL_GATHER:
    case COLL_ALLGATHER:
    case COLL_ALLGATHERV:
    case COLL_ALLTOALL:
    case COLL_ALLTOALLV:
        if (o->op == COLL_GATHER && me != 0)
            return NULL;
        for (int r = 0; r < npes; r++) {
            int src_block = o->op == COLL_ALLTOALL || o->op == COLL_ALLTOALLV ? me : 0;
            if (!coll_block_ok(rbuf + (size_t)r * g->block, g->block, coll_pat(r, src_block))) {
                snprintf(why, sizeof why, "block from rank %d differs", r);
                return why;
            }
        }
        return NULL;
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_REDUCE_SCATTER:
        if (o->op == COLL_REDUCE && me != 0)
            return NULL;
        for (size_t i = 0; i<g->count; i += g->count> 2 ? g->count - 1 : 1) {
            long v = coll_get_elem(rbuf, o->type, i);
            if (v != sum) {
                snprintf(why, sizeof why, "element %zu is %ld, expected %ld", i, v, sum);
                return why;
            }
        }
        return NULL;
    }
    return "unknown collective";
}

/**
 * @brief Time @p call at one size the OSU way: warm-up, then the timed calls, each timed on its
 * own with @p rt->barrier between them (untimed); @p whole_loop (the barrier benchmark) times
 * the loop instead. Collective. @return this rank's average microseconds per call.
 */
static double coll_time(const osu_runtime_t *rt, const osu_args_t *a, size_t size,
                        const coll_geom_t *g, void (*call)(const coll_geom_t *), int whole_loop)
{
    int iters, warmup;
    osu_iters_for(a, size, &iters, &warmup);
    double total = 0;
    rt->barrier();
    if (whole_loop) {
        for (int i = 0; i < warmup; i++)
            call(g);
        double t0 = osu_now_us();
        for (int i = 0; i < iters; i++)
            call(g);
        total = osu_now_us() - t0;
    } else {
        for (int i = 0; i < warmup + iters; i++) {
            double t0 = osu_now_us();
            call(g);
            double t1 = osu_now_us();
            if (i >= warmup)
                total += t1 - t0;
            rt->barrier();
        }
    }
    return total / iters;
}

/**
 * @brief Measure one size: coll_time, then the check; prints the @osu line on rank 0.
 * @return 0, or 1 after printing why the result was wrong.
 */
static int coll_measure(const osu_runtime_t *rt, const osu_args_t *a, const coll_opts_t *o,
                        size_t size, const coll_geom_t *g, void (*call)(const coll_geom_t *),
                        const char *sbuf, const char *rbuf)
{
    int iters, warmup;
    osu_iters_for(a, size, &iters, &warmup);
    double mine = coll_time(rt, a, size, g, call, o->op == COLL_BARRIER);
    const char *bad = coll_check(o, g, rt->me, rt->npes, sbuf, rbuf);
    double sum = rt->sum_to_root(mine);
    if (bad) {
        fprintf(stderr, "osu_coll: rank %d: %s of %zu bytes: wrong result: %s\n", rt->me,
                coll_names[o->op], size, bad);
        return 1;
    }
    if (rt->me == 0) {
        printf("@osu op=%s pes=%d bytes=%zu us=%.4f iters=%d\n", coll_names[o->op], rt->npes, size,
               sum / rt->npes, iters);
        fflush(stdout);
    }
    if (a->memcpy_min && size >= a->memcpy_min && g->moved)
        osu_memcpy_reference(rt, a, size, g->moved);
    return 0;
}

/** meshmem's algorithm names (meshmem_algo_name order); the MPI twin accepts and ignores them. */
static const char *const coll_algo_names[] = {"auto",       "onestep", "naive",
                                              "aggressive", "ring",    "recdbl"};

/** Sizes up to which the floor is measured: those whose blocks fit in one flag line with the
 * runtime's header word (meshmem's line path, MM_MSG_INLINE). */
#define COLL_FLOOR_MAX_BYTES 48

/**
 * @brief Measure every size of @p a: the geometry, @p layout (counts and displacements of the
 * v-variants, in the program's own integer type), the fill, then coll_measure. With @p floor
 * (NULL in the MPI twin), sizes up to COLL_FLOOR_MAX_BYTES also time @p floor, the machine's
 * floor for the operation, the same way, and print "@floor bytes=.. us=..".
 * @return 0, or 1 when a result was wrong (the caller ends the job).
 */
static int coll_run_sizes(const osu_runtime_t *rt, const osu_args_t *a, const coll_opts_t *o,
                          void (*call)(const coll_geom_t *), void (*layout)(const coll_geom_t *),
                          void (*floor)(const coll_geom_t *), char *sbuf, char *rbuf)
{
    for (int k = 0; k < a->nsizes; k++) {
        size_t size = a->sizes[k];
        coll_geom_t g = coll_geom(o, o->op == COLL_BARRIER ? 0 : size, rt->npes);
        layout(&g);
        coll_fill(o, &g, rt->me, rt->npes, sbuf, rbuf);
        if (coll_measure(rt, a, o, size, &g, call, sbuf, rbuf))
            return 1;
        if (floor && g.block <= COLL_FLOOR_MAX_BYTES) { /* after the check: it clobbers rbuf */
            double sum = rt->sum_to_root(coll_time(rt, a, size, &g, floor, o->op == COLL_BARRIER));
            if (rt->me == 0)
                printf("@floor bytes=%zu us=%.4f\n", size, sum / rt->npes);
            fflush(stdout);
        }
    }
    return 0;
}

#endif /* OSU_COLL_COMMON_H */
