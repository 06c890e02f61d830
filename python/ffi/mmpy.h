/*
 * mmpy.h: the C side of meshmem's Python bindings (compiled into meshmem._ffi by cffi, API mode).
 *
 * Only the public headers are used. Python passes buffers as integer addresses (uintptr_t): an
 * integer crosses cffi without a cdata object, which keeps an 8-byte call from Python within a
 * few hundred nanoseconds of the C call.
 *
 * Three jobs:
 *  1. Checked calls: the native calls that end the job on bad arguments (a put to a rank out of
 *     range, into memory that is not symmetric) are checked here first and return a status, so
 *     that Python raises an exception naming the call and the argument instead.
 *  2. Active-message trampolines: a meshmem handler receives no user data, so every index has a
 *     C trampoline that passes its index to one Python entry (mmpy_am_python). Once the
 *     interpreter is finalizing (mmpy_python_gone), trampolines no longer enter Python.
 *  3. Timed loops in C, so that `meshmem bench --python` measures the C figure in the same
 *     process, on the same buffers and with the same per-call timing as the Python loop.
 */
#include <meshmem.h>
#include <meshmem_am.h>
#include <meshmem_coll.h>

#include <stdio.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------- */
/* 1. Checked calls                                                                          */
/* ---------------------------------------------------------------------------------------- */

/* [addr, addr + n) lies in symmetric memory reachable on @p rank (n = 0: nothing to check) */
static int mmpy_range_ok(uintptr_t addr, size_t n, int rank)
{
    return n == 0 || (meshmem_addr_accessible((const void *)addr, rank) &&
                      meshmem_addr_accessible((const void *)(addr + n - 1), rank));
}

static int mmpy_rank_ok(int rank)
{
    return rank >= 0 && rank < meshmem_nranks();
}

/* @return @p st, the calls of this thread named by their own names again (meshmem_name_calls:
 * the collectives below name themselves in Python's terms, meshmem.alltoall, in the runtime's
 * error lines, e.g. when ranks are in different collectives) */
static int mmpy_unnamed(int st)
{
    meshmem_name_calls(NULL);
    return st;
}

/* a symmetric allocation named @p name (meshmem.zeros, ...) in the runtime's error lines */
static void *mmpy_align(size_t alignment, size_t size, const char *name)
{
    meshmem_name_calls(name);
    void *p = meshmem_align(alignment, size);
    meshmem_name_calls(NULL);
    return p;
}

/* the all-gathers by which an allocation agrees on the blocks no rank refers to any more
 * (memory.py), named as the allocation, @p name */
static int mmpy_allgather_as(const char *name, uintptr_t s, uintptr_t r, size_t count)
{
    meshmem_name_calls(name);
    return mmpy_unnamed(meshmem_coll_allgather(MESHMEM_TEAM_WORLD, (const void *)s, (void *)r,
                                               count, MESHMEM_UINT8, MESHMEM_ALGO_AUTO));
}

static int mmpy_allgatherv_as(const char *name, uintptr_t s, size_t scount, uintptr_t r,
                              const size_t *rcounts, const size_t *displs)
{
    meshmem_name_calls(name);
    return mmpy_unnamed(meshmem_coll_allgatherv(MESHMEM_TEAM_WORLD, (const void *)s, scount,
                                                (void *)r, rcounts, displs, MESHMEM_UINT8,
                                                MESHMEM_ALGO_AUTO));
}

/* The symmetric side is checked; the local side is any memory Python handed over. */
static int mmpy_put(uintptr_t dest, uintptr_t src, size_t n, int rank)
{
    if (!mmpy_rank_ok(rank))
        return MESHMEM_ERR_RANK;
    if (!mmpy_range_ok(dest, n, rank))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    meshmem_put((void *)dest, (const void *)src, n, rank);
    return MESHMEM_OK;
}

static int mmpy_get(uintptr_t dest, uintptr_t src, size_t n, int rank)
{
    if (!mmpy_rank_ok(rank))
        return MESHMEM_ERR_RANK;
    if (!mmpy_range_ok(src, n, rank))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    meshmem_get((void *)dest, (const void *)src, n, rank);
    return MESHMEM_OK;
}

/* strided: [lo, lo + span) holds every element of the symmetric side (strides may be negative) */
static int mmpy_iput(uintptr_t dest, uintptr_t src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
                     size_t nelems, uintptr_t lo, size_t span, int rank)
{
    if (!mmpy_rank_ok(rank))
        return MESHMEM_ERR_RANK;
    if (nelems && !mmpy_range_ok(lo, span, rank))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    meshmem_iput((void *)dest, (const void *)src, dst, sst, elem_size, nelems, rank);
    return MESHMEM_OK;
}

static int mmpy_iget(uintptr_t dest, uintptr_t src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
                     size_t nelems, uintptr_t lo, size_t span, int rank)
{
    if (!mmpy_rank_ok(rank))
        return MESHMEM_ERR_RANK;
    if (nelems && !mmpy_range_ok(lo, span, rank))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    meshmem_iget((void *)dest, (const void *)src, dst, sst, elem_size, nelems, rank);
    return MESHMEM_OK;
}

static int mmpy_put_signal(uintptr_t dest, uintptr_t src, size_t n, uintptr_t sig, uint64_t signal,
                           int sig_op, int rank)
{
    if (!mmpy_rank_ok(rank))
        return MESHMEM_ERR_RANK;
    if (!mmpy_range_ok(dest, n, rank) || !mmpy_range_ok(sig, sizeof(uint64_t), rank))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    if (sig_op != MESHMEM_SIGNAL_SET && sig_op != MESHMEM_SIGNAL_ADD)
        return MESHMEM_ERR_ARG;
    meshmem_put_signal((void *)dest, (const void *)src, n, (uint64_t *)sig, signal, sig_op, rank);
    return MESHMEM_OK;
}

static int mmpy_atomic(int op, int dtype, uintptr_t dest, uintptr_t value, uintptr_t cond,
                       uintptr_t fetched, int rank)
{
    if (!mmpy_rank_ok(rank))
        return MESHMEM_ERR_RANK;
    if (!mmpy_range_ok(dest, meshmem_dtype_size((meshmem_dtype_t)dtype), rank))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    return meshmem_atomic((meshmem_amo_op_t)op, (meshmem_dtype_t)dtype, (void *)dest,
                          (const void *)value, (const void *)cond, (void *)fetched, rank);
}

static int mmpy_wait_until(uintptr_t ivar, int dtype, int cmp, uintptr_t value)
{
    return meshmem_wait_until((void *)ivar, (meshmem_dtype_t)dtype, (meshmem_cmp_t)cmp,
                              (const void *)value);
}

static int mmpy_test(uintptr_t ivar, int dtype, int cmp, uintptr_t value)
{
    return meshmem_test((const void *)ivar, (meshmem_dtype_t)dtype, (meshmem_cmp_t)cmp,
                        (const void *)value);
}

/* The collectives: addresses in, the runtime's status out (it logs the line naming the
 * argument; Python raises with the call's name). */
static int mmpy_bcast(meshmem_team_t t, uintptr_t buf, size_t count, int dtype, int root, int algo)
{
    meshmem_name_calls("meshmem.bcast");
    return mmpy_unnamed(meshmem_coll_bcast(t, (void *)buf, count, (meshmem_dtype_t)dtype, root,
                                           (meshmem_algo_t)algo));
}

static int mmpy_scatter(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                        int root, int algo)
{
    meshmem_name_calls("meshmem.scatter");
    return mmpy_unnamed(meshmem_coll_scatter(t, (const void *)s, (void *)r, count,
                                             (meshmem_dtype_t)dtype, root, (meshmem_algo_t)algo));
}

static int mmpy_gather(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                       int root, int algo)
{
    meshmem_name_calls("meshmem.gather");
    return mmpy_unnamed(meshmem_coll_gather(t, (const void *)s, (void *)r, count,
                                            (meshmem_dtype_t)dtype, root, (meshmem_algo_t)algo));
}

static int mmpy_allgather(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                          int algo)
{
    meshmem_name_calls("meshmem.allgather");
    return mmpy_unnamed(meshmem_coll_allgather(t, (const void *)s, (void *)r, count,
                                               (meshmem_dtype_t)dtype, (meshmem_algo_t)algo));
}

static int mmpy_allgatherv(meshmem_team_t t, uintptr_t s, size_t scount, uintptr_t r,
                           const size_t *rcounts, const size_t *displs, int dtype, int algo)
{
    meshmem_name_calls("meshmem.allgatherv");
    return mmpy_unnamed(meshmem_coll_allgatherv(t, (const void *)s, scount, (void *)r, rcounts,
                                                displs, (meshmem_dtype_t)dtype,
                                                (meshmem_algo_t)algo));
}

static int mmpy_alltoall(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                         int algo)
{
    meshmem_name_calls("meshmem.alltoall");
    return mmpy_unnamed(meshmem_coll_alltoall(t, (const void *)s, (void *)r, count,
                                              (meshmem_dtype_t)dtype, (meshmem_algo_t)algo));
}

static int mmpy_alltoallv(meshmem_team_t t, uintptr_t s, const size_t *scounts,
                          const size_t *sdispls, uintptr_t r, const size_t *rcounts,
                          const size_t *rdispls, size_t rcap, size_t *rcounts_out, int dtype,
                          int algo)
{
    meshmem_name_calls("meshmem.alltoallv");
    return mmpy_unnamed(meshmem_coll_alltoallv(t, (const void *)s, scounts, sdispls, (void *)r,
                                               rcounts, rdispls, rcap, rcounts_out,
                                               (meshmem_dtype_t)dtype, (meshmem_algo_t)algo));
}

static int mmpy_reduce(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype, int op,
                       int root, int algo)
{
    meshmem_name_calls("meshmem.reduce");
    return mmpy_unnamed(meshmem_coll_reduce(t, (const void *)s, (void *)r, count,
                                            (meshmem_dtype_t)dtype, (meshmem_op_t)op, root,
                                            (meshmem_algo_t)algo));
}

static int mmpy_allreduce(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                          int op, int algo)
{
    meshmem_name_calls("meshmem.allreduce");
    return mmpy_unnamed(meshmem_coll_allreduce(t, (const void *)s, (void *)r, count,
                                               (meshmem_dtype_t)dtype, (meshmem_op_t)op,
                                               (meshmem_algo_t)algo));
}

static int mmpy_reduce_scatter(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                               int op, int algo)
{
    meshmem_name_calls("meshmem.reduce_scatter");
    return mmpy_unnamed(meshmem_coll_reduce_scatter(t, (const void *)s, (void *)r, count,
                                                    (meshmem_dtype_t)dtype, (meshmem_op_t)op,
                                                    (meshmem_algo_t)algo));
}

/* the symmetric (OpenSHMEM-shaped) collectives of meshmem.h: @p dest symmetric */
static int mmpy_sym_dest_ok(meshmem_team_t t, uintptr_t dest, size_t n)
{
    return mmpy_range_ok(dest, n, meshmem_team_world_rank(t, 0));
}

static int mmpy_broadcast(meshmem_team_t t, uintptr_t dest, uintptr_t src, size_t n, int root)
{
    if (!mmpy_sym_dest_ok(t, dest, n))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    return meshmem_broadcast(t, (void *)dest, (const void *)src, n, root);
}

static int mmpy_fcollect(meshmem_team_t t, uintptr_t dest, uintptr_t src, size_t n)
{
    if (!mmpy_sym_dest_ok(t, dest, n))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    return meshmem_fcollect(t, (void *)dest, (const void *)src, n);
}

static int mmpy_collect(meshmem_team_t t, uintptr_t dest, uintptr_t src, size_t n)
{
    if (!mmpy_sym_dest_ok(t, dest, n))
        return MESHMEM_ERR_NOT_SYMMETRIC;
    return meshmem_collect(t, (void *)dest, (const void *)src, n);
}

/* ---------------------------------------------------------------------------------------- */
/* 2. Active-message trampolines                                                             */
/* ---------------------------------------------------------------------------------------- */

/* the Python entry (cffi extern "Python"): index, then the handler's arguments */
static void mmpy_am_python(int index, meshmem_am_token_t token, void *buf, size_t nbytes,
                           const meshmem_am_arg_t *args, int nargs);

/* 0 once the interpreter is finalizing: no trampoline enters Python after that */
static volatile int mmpy_python_alive = 1;
static unsigned long mmpy_am_dropped;

static void mmpy_python_gone(void)
{
    mmpy_python_alive = 0;
}

static unsigned long mmpy_am_dropped_count(void)
{
    return mmpy_am_dropped;
}

static void mmpy_am_dispatch(int index, meshmem_am_token_t token, void *buf, size_t nbytes,
                             const meshmem_am_arg_t *args, int nargs)
{
    if (mmpy_python_alive) {
        mmpy_am_python(index, token, buf, nbytes, args, nargs);
        return;
    }
    /* the program has ended (Python is gone) while a peer still sends to it */
    if (mmpy_am_dropped++ == 0)
        fprintf(stderr,
                "meshmem[%d] warning: an active message for handler %d arrived after "
                "the Python program ended: not handled\n",
                meshmem_rank(), index);
}

/* one trampoline per index, named by its four base-4 digits (a b c d: 64a + 16b + 4c + d) so
 * that four macro levels make all 256 */
#define MMPY_TRAMP(a, b, c, d)                                                                     \
    static void mmpy_am_tramp_##a##b##c##d(meshmem_am_token_t t, void *p, size_t n,                \
                                           const meshmem_am_arg_t *x, int nx)                      \
    {                                                                                              \
        mmpy_am_dispatch(64 * a + 16 * b + 4 * c + d, t, p, n, x, nx);                             \
    }
#define MMPY_TRAMP4(a, b, c)                                                                       \
    MMPY_TRAMP(a, b, c, 0) MMPY_TRAMP(a, b, c, 1) MMPY_TRAMP(a, b, c, 2) MMPY_TRAMP(a, b, c, 3)
#define MMPY_TRAMP16(a, b)                                                                         \
    MMPY_TRAMP4(a, b, 0) MMPY_TRAMP4(a, b, 1) MMPY_TRAMP4(a, b, 2) MMPY_TRAMP4(a, b, 3)
#define MMPY_TRAMP64(a) MMPY_TRAMP16(a, 0) MMPY_TRAMP16(a, 1) MMPY_TRAMP16(a, 2) MMPY_TRAMP16(a, 3)
MMPY_TRAMP64(0)
MMPY_TRAMP64(1)
MMPY_TRAMP64(2)
MMPY_TRAMP64(3)
#define MMPY_ENTRY(a, b, c, d) mmpy_am_tramp_##a##b##c##d,
#define MMPY_ENTRY4(a, b, c)                                                                       \
    MMPY_ENTRY(a, b, c, 0) MMPY_ENTRY(a, b, c, 1) MMPY_ENTRY(a, b, c, 2) MMPY_ENTRY(a, b, c, 3)
#define MMPY_ENTRY16(a, b)                                                                         \
    MMPY_ENTRY4(a, b, 0) MMPY_ENTRY4(a, b, 1) MMPY_ENTRY4(a, b, 2) MMPY_ENTRY4(a, b, 3)
#define MMPY_ENTRY64(a) MMPY_ENTRY16(a, 0) MMPY_ENTRY16(a, 1) MMPY_ENTRY16(a, 2) MMPY_ENTRY16(a, 3)
static const meshmem_am_handler_t mmpy_am_trampolines[MESHMEM_AM_MAX_HANDLERS] = {
    MMPY_ENTRY64(0) MMPY_ENTRY64(1) MMPY_ENTRY64(2) MMPY_ENTRY64(3)};
_Static_assert(MESHMEM_AM_MAX_HANDLERS == 256, "one trampoline per handler index");

/* Register @p count handlers: entries[k].fn is replaced by the trampoline of its index. */
static int mmpy_am_register(meshmem_am_entry_t *entries, int count)
{
    for (int k = 0; k < count; k++) {
        int i = entries[k].index;
        if (i < 0 || i >= MESHMEM_AM_MAX_HANDLERS)
            return MESHMEM_ERR_ARG;
        entries[k].fn = mmpy_am_trampolines[i];
    }
    return meshmem_am_register(entries, count);
}

/* ---------------------------------------------------------------------------------------- */
/* 3. Timed loops in C for `meshmem bench --python`                                          */
/* ---------------------------------------------------------------------------------------- */

static double mmpy_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* OSU style: each call timed on its own, an untimed barrier between calls; mean in µs */
static double mmpy_bench_allreduce(uintptr_t s, uintptr_t r, size_t count, int dtype, int iters,
                                   int warmup)
{
    double total = 0;
    for (int i = 0; i < warmup + iters; i++) {
        double t0 = mmpy_now_us();
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, (const void *)s, (void *)r, count,
                               (meshmem_dtype_t)dtype, MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
        double t1 = mmpy_now_us();
        if (i >= warmup)
            total += t1 - t0;
        meshmem_coll_barrier(MESHMEM_TEAM_WORLD);
    }
    return iters > 0 ? total / iters : 0;
}

/* rank 0 puts @p n bytes to rank 1, each put timed on its own (complete on return) */
static double mmpy_bench_put(uintptr_t dest, uintptr_t src, size_t n, int iters, int warmup)
{
    double total = 0;
    for (int i = 0; i < warmup + iters; i++) {
        if (meshmem_rank() == 0) {
            double t0 = mmpy_now_us();
            meshmem_put((void *)dest, (const void *)src, n, 1);
            double t1 = mmpy_now_us();
            if (i >= warmup)
                total += t1 - t0;
        }
        meshmem_coll_barrier(MESHMEM_TEAM_WORLD);
    }
    return iters > 0 ? total / iters : 0;
}
