/*
 * An OpenSHMEM program as written for oshcc/oshrun: only standard names, static arrays as
 * targets, the 1.4 AMO names, barrier_all, a lock, a wait and a reduction. It must build with
 * meshcc and run with meshrun unchanged (and builds with OpenMPI's oshcc as well). Exit status
 * 0 and "classic: ok" on PE 0 when every check holds.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16

static long target[N];
static int counter;
static long lock;
static long flag;
static long psync[_SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[_SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long sum_src, sum_dst;

static void check(int ok, const char *what, int me)
{
    if (!ok) {
        fprintf(stderr, "classic: PE %d: %s failed\n", me, what);
        exit(1);
    }
}

int main(void)
{
    int i, me, npes, right, left;
    long src[N];

    start_pes(0);
    me = _my_pe();
    npes = _num_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    for (i = 0; i < _SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = _SHMEM_SYNC_VALUE;
    for (i = 0; i < N; i++)
        src[i] = me * 100 + i;
    shmem_barrier_all();

    /* put to the right neighbour, then a flag after a fence */
    shmem_long_put(target, src, N, right);
    shmem_fence();
    shmem_long_p(&flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    for (i = 0; i < N; i++)
        check(target[i] == left * 100 + i, "put", me);
    check(shmem_long_g(&target[3], right) == me * 100 + 3, "g", me);

    /* 1.4 atomics on PE 0 */
    shmem_int_fadd(&counter, me + 1, 0);
    shmem_int_finc(&counter, 0);
    shmem_int_inc(&counter, 0);
    shmem_int_add(&counter, 2, 0);
    shmem_barrier_all();
    if (me == 0)
        check(counter == npes * (npes + 1) / 2 + 4 * npes, "fadd/finc/inc/add", me);
    shmem_barrier_all();

    /* a lock around a read-modify-write */
    for (i = 0; i < 10; i++) {
        shmem_set_lock(&lock);
        shmem_int_p(&counter, shmem_int_g(&counter, 0) + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0)
        check(counter == npes * (npes + 1) / 2 + 4 * npes + 10 * npes, "lock", me);

    /* an active-set reduction over all PEs */
    sum_src = me + 1;
    shmem_barrier_all();
    shmem_long_sum_to_all(&sum_dst, &sum_src, 1, 0, 0, npes, pwrk, psync);
    check(sum_dst == (long)npes * (npes + 1) / 2, "sum_to_all", me);

    shmem_barrier_all();
    if (me == 0)
        printf("classic: ok on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
