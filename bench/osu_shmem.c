/**
 * @file osu_shmem.c
 * @brief OSU-style latency benchmarks written in the standard OpenSHMEM API.
 *
 * The same source builds with meshcc (meshmem, OpenSHMEM 1.5) and with OpenMPI's oshcc
 * (OSHMEM, OpenSHMEM 1.4), so that `meshmem bench` compares the two runtimes on identical code.
 * OpenSHMEM 1.4 has no signals: there put_signal is emulated as put + fence + atomic set and
 * signal_wait_until as a 64-bit wait_until, which is what a 1.4 program would write.
 *
 * Operations (-o), each measured per size as OSU does (untimed warm-up, then the average of the
 * timed iterations), by the lower half of the ranks, each towards its partner in the upper half:
 *   put         shmem_putmem + shmem_quiet
 *   get         shmem_getmem
 *   atomic      shmem_long_atomic_fetch_add (size ignored: 8 bytes)
 *   put_signal  shmem_putmem_signal (SET) + shmem_quiet
 *   pingpong    put_signal to the partner, which waits on the signal and answers the same way;
 *               half the round trip is reported
 *   put_pingpong  put of SIZE bytes (a multiple of 8) whose last word is a sequence number; the
 *               partner waits until that word changes and answers the same way; half the round
 *               trip (what ucx_perftest's ucp_put_lat measures, the UCX floor across hosts)
 *   put_bidir   put + quiet by both partners towards each other at once (OSU's bibw): the time
 *               of one iteration, each direction carrying SIZE bytes
 *   barrier     shmem_barrier_all by every rank (size ignored)
 * The reported latency is the average over the initiating ranks (over all ranks for barrier).
 * Sizes >= -m also get the memcpy reference (osu_common.h).
 */
#include "osu_common.h"

#include <shmem.h>

#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define OSU_HAVE_SIGNAL 1
#else
#define OSU_HAVE_SIGNAL 0
/* the 1.4 emulation stores the 64-bit signal through shmem_ulong_atomic_set */
_Static_assert(sizeof(unsigned long) == sizeof(uint64_t), "unsigned long must be 64 bits");
#endif

static char *s_buf, *r_buf;  /* symmetric message buffers */
static uint64_t signal_word; /* symmetric (static data): the put_signal / pingpong flag */
static long counter;         /* symmetric: the fetch_add target */
static double *root_sum;     /* symmetric [npes]: values gathered at rank 0 */
static int me, npes;

/* put with signal (SET), in whichever form the OpenSHMEM version offers */
static inline void osu_put_signal(void *dest, const void *src, size_t n, uint64_t v, int pe)
{
#if OSU_HAVE_SIGNAL
    shmem_putmem_signal(dest, src, n, &signal_word, v, SHMEM_SIGNAL_SET, pe);
#else
    shmem_putmem(dest, src, n, pe);
    shmem_fence();
    shmem_ulong_atomic_set((unsigned long *)&signal_word, (unsigned long)v, pe);
#endif
}

/* wait until the local signal reaches @p v (sequence numbers only grow, so >= is exact) */
static inline void osu_signal_wait_ge(uint64_t v)
{
#if OSU_HAVE_SIGNAL
    shmem_signal_wait_until(&signal_word, SHMEM_CMP_GE, v);
#else
    shmem_uint64_wait_until(&signal_word, SHMEM_CMP_GE, v);
#endif
}

static void rt_barrier(void)
{
    shmem_barrier_all();
}

static double rt_sum_to_root(double v)
{
    shmem_double_p(&root_sum[me], v, 0);
    shmem_barrier_all();
    double sum = 0;
    if (me == 0)
        for (int i = 0; i < npes; i++)
            sum += root_sum[i];
    shmem_barrier_all();
    return sum;
}

/* sequence of the pingpong / put_signal signal: never reset, so sizes follow one another */
static uint64_t seq;

/* one rank's average latency (us) of @p iters iterations of @p op after @p warmup */
static double run_op(const char *op, size_t size, int iters, int warmup)
{
    int peer = osu_peer(me, npes);
    int initiator = osu_is_initiator(me, npes);
    double t0 = 0;

    if (!strcmp(op, "barrier")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            shmem_barrier_all();
        }
        return (osu_now_us() - t0) / iters;
    }
    if (peer < 0)
        return 0;

    if (!strcmp(op, "pingpong")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            uint64_t v = ++seq;
            if (initiator) {
                osu_put_signal(r_buf, s_buf, size, v, peer);
                osu_signal_wait_ge(v);
            } else {
                osu_signal_wait_ge(v);
                osu_put_signal(r_buf, s_buf, size, v, peer);
            }
        }
        return (osu_now_us() - t0) / iters / 2;
    }
    if (!strcmp(op, "put_pingpong")) {
        long *mine = (long *)(s_buf + size - sizeof(long));
        long *arrived = (long *)(r_buf + size - sizeof(long));
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            long v = (long)++seq;
            /* the exact number: a smaller size after a larger one finds fill bytes there */
            if (!initiator)
                shmem_long_wait_until(arrived, SHMEM_CMP_EQ, v);
            *mine = v;
            shmem_putmem(r_buf, s_buf, size, peer);
            if (initiator)
                shmem_long_wait_until(arrived, SHMEM_CMP_EQ, v);
        }
        return (osu_now_us() - t0) / iters / 2;
    }
    if (!strcmp(op, "put_bidir")) { /* the partner puts too */
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            shmem_putmem(r_buf, s_buf, size, peer);
            shmem_quiet();
        }
        /* the partners meet before the clock stops: one that drifted ahead would leave the
         * other's last puts one-way */
        uint64_t v = ++seq;
        osu_put_signal(r_buf, s_buf, 0, v, peer);
        osu_signal_wait_ge(v);
        return (osu_now_us() - t0) / iters;
    }
    if (!initiator)
        return 0;

    if (!strcmp(op, "put")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            shmem_putmem(r_buf, s_buf, size, peer);
            shmem_quiet();
        }
    } else if (!strcmp(op, "get")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            shmem_getmem(r_buf, s_buf, size, peer);
        }
    } else if (!strcmp(op, "atomic")) {
        long sink = 0;
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            sink += shmem_long_atomic_fetch_add(&counter, 1, peer);
        }
        if (sink < 0) /* keeps the fetched values alive */
            printf("# unexpected negative counter\n");
    } else if (!strcmp(op, "put_signal")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            osu_put_signal(r_buf, s_buf, size, ++seq, peer);
            shmem_quiet();
        }
    }
    return (osu_now_us() - t0) / iters;
}

int main(int argc, char **argv)
{
    osu_args_t a;
    osu_parse_args(argc, argv, &a);
    if (!osu_op_known(a.op)) {
        fprintf(stderr, "%s: unknown operation \"%s\"\n", argv[0], a.op);
        return 2;
    }
    if (osu_sizes_fit(argv[0], &a) != 0)
        return 2;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int needs_pair = strcmp(a.op, "barrier") != 0;
    if (needs_pair && npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: %s needs at least 2 PEs\n", argv[0], a.op);
        shmem_global_exit(2);
    }
    size_t bytes = a.max_size ? a.max_size : 1;
    s_buf = shmem_malloc(bytes);
    r_buf = shmem_malloc(bytes);
    root_sum = shmem_malloc((size_t)npes * sizeof(double));
    if (!s_buf || !r_buf || !root_sum) {
        fprintf(stderr, "%s: PE %d: shmem_malloc of %zu bytes failed (symmetric heap too small?)\n",
                argv[0], me, bytes);
        shmem_global_exit(1);
    }
    /* touch the buffers so that first-touch page faults are not measured */
    memset(s_buf, 'a' + me % 26, bytes);
    memset(r_buf, 0, bytes);
    osu_runtime_t rt = {rt_barrier, rt_sum_to_root, me, npes};
    osu_run_sizes(&rt, &a, run_op, !needs_pair || osu_is_initiator(me, npes));
    shmem_free(root_sum);
    shmem_free(r_buf);
    shmem_free(s_buf);
    shmem_finalize();
    return 0;
}
