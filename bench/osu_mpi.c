/**
 * @file osu_mpi.c
 * @brief The MPI twins of osu_shmem.c: the same operations, iteration counts and output, on
 * MPI-3 one-sided communication (passive target, one MPI_Win_lock_all for the whole run) and on
 * two-sided MPI for the ping-pong. Used by `meshmem bench` when OpenMPI's OSHMEM does not run,
 * and always for `pingpong`, whose reference is an MPI_Send/MPI_Recv ping-pong.
 *
 * Operations (-o), by the lower half of the ranks towards their partners (osu_peer):
 *   put         MPI_Put + MPI_Win_flush
 *   get         MPI_Get + MPI_Win_flush
 *   atomic      MPI_Fetch_and_op (MPI_SUM on a long) + MPI_Win_flush
 *   put_signal  MPI_Put + MPI_Win_flush + MPI_Accumulate(REPLACE) of the 64-bit signal +
 *               MPI_Win_flush (the first flush orders the data before the signal)
 *   pingpong    MPI_Send / MPI_Recv of SIZE bytes there and back; half the round trip
 *   put_pingpong  MPI_Put + MPI_Win_flush of SIZE bytes whose last word is a sequence number;
 *               the partner polls that word (MPI_Win_sync) and answers the same way; half the
 *               round trip
 *   put_bidir   MPI_Put + MPI_Win_flush by both partners towards each other at once
 *   barrier     MPI_Barrier by every rank
 */
#include "osu_common.h"

#include <mpi.h>

static int me, npes;
static MPI_Win win;
static char *win_buf; /* [max_size] message area, then the signal and the counter */
static char *s_buf, *r_buf;
static MPI_Aint sig_disp, counter_disp;

static void rt_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

/* poll a window word until it holds @p v (the exact number: a smaller size after a larger one
 * finds fill bytes there): MPI_Win_sync for the window's copy, and MPI_Iprobe so that the MPI
 * library progresses, which a put over UCX's TCP transport needs at its target (osc ucx's
 * MPI_Win_sync is a barrier and a fence, no progress) */
static void osu_mpi_wait_word(volatile long *word, long v)
{
    int flag;
    while (MPI_Win_sync(win) == MPI_SUCCESS && *word != v)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static double rt_sum_to_root(double v)
{
    double sum = 0;
    MPI_Reduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum;
}

static uint64_t seq;

/* one rank's average latency (us) of @p iters iterations of @p op after @p warmup */
static double run_op(const char *op, size_t size, int iters, int warmup)
{
    int peer = osu_peer(me, npes);
    int initiator = osu_is_initiator(me, npes);
    int n = (int)size;
    double t0 = 0;

    if (!strcmp(op, "barrier")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            MPI_Barrier(MPI_COMM_WORLD);
        }
        return (osu_now_us() - t0) / iters;
    }
    if (peer < 0)
        return 0;

    if (!strcmp(op, "pingpong")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            if (initiator) {
                MPI_Send(s_buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(r_buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r_buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s_buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            }
        }
        return (osu_now_us() - t0) / iters / 2;
    }
    if (!strcmp(op, "put_pingpong")) {
        long *mine = (long *)(s_buf + n - (int)sizeof(long));
        volatile long *arrived = (volatile long *)(win_buf + n - (int)sizeof(long));
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            long v = (long)++seq;
            if (!initiator)
                osu_mpi_wait_word(arrived, v);
            *mine = v;
            MPI_Put(s_buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win);
            MPI_Win_flush(peer, win);
            if (initiator)
                osu_mpi_wait_word(arrived, v);
        }
        return (osu_now_us() - t0) / iters / 2;
    }
    if (!strcmp(op, "put_bidir")) { /* the partner puts too */
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            MPI_Put(s_buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win);
            MPI_Win_flush(peer, win);
        }
        /* the partners meet before the clock stops: one that drifted ahead would leave the
         * other's last puts one-way */
        MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, 2, NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        return (osu_now_us() - t0) / iters;
    }
    if (!initiator)
        return 0;

    if (!strcmp(op, "put")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            MPI_Put(s_buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win);
            MPI_Win_flush(peer, win);
        }
    } else if (!strcmp(op, "get")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            MPI_Get(r_buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win);
            MPI_Win_flush(peer, win);
        }
    } else if (!strcmp(op, "atomic")) {
        long one = 1, fetched = 0, sink = 0;
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            MPI_Fetch_and_op(&one, &fetched, MPI_LONG, peer, counter_disp, MPI_SUM, win);
            MPI_Win_flush(peer, win);
            sink += fetched;
        }
        if (sink < 0)
            printf("# unexpected negative counter\n");
    } else if (!strcmp(op, "put_signal")) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            uint64_t v = ++seq;
            MPI_Put(s_buf, n, MPI_BYTE, peer, 0, n, MPI_BYTE, win);
            MPI_Win_flush(peer, win);
            MPI_Accumulate(&v, 1, MPI_UINT64_T, peer, sig_disp, 1, MPI_UINT64_T, MPI_REPLACE, win);
            MPI_Win_flush(peer, win);
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
    if (a.max_size > (size_t)1 << 30) {
        fprintf(stderr, "%s: sizes above 1 GiB do not fit an MPI int count\n", argv[0]);
        return 2;
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    int needs_pair = strcmp(a.op, "barrier") != 0;
    if (needs_pair && npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: %s needs at least 2 ranks\n", argv[0], a.op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t bytes = a.max_size ? a.max_size : 1;
    /* message area rounded to 64 bytes, then the signal and the counter on their own lines */
    size_t area = (bytes + 63) & ~(size_t)63;
    sig_disp = (MPI_Aint)area;
    counter_disp = (MPI_Aint)(area + 64);
    MPI_Win_allocate((MPI_Aint)(area + 128), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_buf, &win);
    MPI_Win_lock_all(0, win);
    s_buf = malloc(bytes);
    r_buf = malloc(bytes);
    if (!s_buf || !r_buf) {
        fprintf(stderr, "%s: rank %d: cannot allocate 2 x %zu bytes\n", argv[0], me, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(win_buf, 0, area + 128);
    memset(s_buf, 'a' + me % 26, bytes);
    memset(r_buf, 0, bytes);
    MPI_Win_sync(win);
    osu_runtime_t rt = {rt_barrier, rt_sum_to_root, me, npes};
    osu_run_sizes(&rt, &a, run_op, !needs_pair || osu_is_initiator(me, npes));
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(r_buf);
    free(s_buf);
    MPI_Finalize();
    return 0;
}
