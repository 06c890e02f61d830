/* Core runtime through the native API: heap, globals, put/get, atomics, barrier, collectives. */
#include "meshmem.h"
#include "mm_test.h"

#include <stdbool.h>
#include <string.h>

int mm_test_rank_hint = -1;

static long global_counter;           /* bss */
static int global_array[37] = {1, 2}; /* data */

int main(void)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    int me = meshmem_rank(), n = meshmem_nranks();
    mm_test_rank_hint = me;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* heap: put my rank into my right neighbour's slot */
    long *slot = meshmem_malloc(sizeof(long) * 4);
    CHECK(slot != NULL);
    slot[0] = -1;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    long v = 1000 + me;
    meshmem_put(&slot[0], &v, sizeof v, right);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    CHECK_EQ_LL(slot[0], 1000 + left);

    /* globals (bss and data) are symmetric */
    CHECK(meshmem_addr_accessible(&global_counter, right));
    CHECK(meshmem_addr_accessible(global_array, right));
    int arr[37];
    for (int i = 0; i < 37; i++)
        arr[i] = me * 100 + i;
    meshmem_put(global_array, arr, sizeof arr, right);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    for (int i = 0; i < 37; i++)
        CHECK_EQ_LL(global_array[i], left * 100 + i);
    int got[37];
    meshmem_get(got, global_array, sizeof got, right);
    for (int i = 0; i < 37; i++)
        CHECK_EQ_LL(got[i], me * 100 + i);

    /* strided, negative strides: reverse 5 elements into the neighbour's global_array */
    int fwd[5] = {1, 2, 3, 4, 5};
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_iput(&global_array[30], fwd, -2, 1, sizeof(int), 5, right);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_LL(global_array[30 - 2 * i], i + 1);
    int back[5];
    meshmem_iget(back, &global_array[30], 1, -2, sizeof(int), 5, left);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_LL(back[i], i + 1);

    /* puts with signal, blocking and started: 64 KiB blocks, each counted into the right
     * neighbour's signal; when it shows 2 both blocks are there (the started one's source
     * stays unchanged until quiet) */
    enum { SIG_BLOCK = 8192 };
    uint64_t *sig = meshmem_calloc(1, sizeof(uint64_t));
    long *blocks = meshmem_malloc(2 * SIG_BLOCK * sizeof(long));
    long *mine = meshmem_malloc(2 * SIG_BLOCK * sizeof(long));
    CHECK(sig != NULL && blocks != NULL && mine != NULL);
    for (long i = 0; i < 2 * SIG_BLOCK; i++)
        mine[i] = me * 1000003L + i;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_put_signal(blocks, mine, SIG_BLOCK * sizeof(long), sig, 1, MESHMEM_SIGNAL_ADD, right);
    meshmem_put_signal_nbi(blocks + SIG_BLOCK, mine + SIG_BLOCK, SIG_BLOCK * sizeof(long), sig, 1,
                           MESHMEM_SIGNAL_ADD, right);
    uint64_t two = 2;
    CHECK(meshmem_wait_until(sig, MESHMEM_UINT64, MESHMEM_CMP_EQ, &two) == MESHMEM_OK);
    for (long i = 0; i < 2 * SIG_BLOCK; i++)
        CHECK_EQ_LL(blocks[i], left * 1000003L + i);
    meshmem_quiet();
    meshmem_barrier(MESHMEM_TEAM_WORLD);

    /* atomics: everyone adds its rank+1 to rank 0's counter */
    int64_t one = me + 1;
    CHECK(meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_INT64, &global_counter, &one, NULL, NULL, 0) ==
          MESHMEM_OK);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    if (me == 0)
        CHECK_EQ_LL(global_counter, (long long)n * (n + 1) / 2);
    CHECK(meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_FLOAT64, slot, &one, NULL, NULL, 0) ==
          MESHMEM_ERR_ARG);

    /* a local pointer to a peer of this host (of the shared team); none to another host's */
    long *peer = meshmem_ptr(slot, right);
    bool same_host = meshmem_team_translate(MESHMEM_TEAM_WORLD, right, MESHMEM_TEAM_SHARED) >= 0;
    CHECK((peer != NULL) == same_host || meshmem_team_size(MESHMEM_TEAM_SHARED) == 1);
    CHECK(meshmem_ptr(&v, right) == NULL); /* a stack variable is not symmetric */

    /* collectives */
    int *src = meshmem_malloc(sizeof(int) * (size_t)n * 3);
    int *dst = meshmem_malloc(sizeof(int) * (size_t)n * 3);
    for (int i = 0; i < n * 3; i++)
        src[i] = me * 1000 + i;
    CHECK(meshmem_alltoall(MESHMEM_TEAM_WORLD, dst, src, 3 * sizeof(int)) == MESHMEM_OK);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            CHECK_EQ_LL(dst[j * 3 + k], j * 1000 + me * 3 + k);
    CHECK(meshmem_fcollect(MESHMEM_TEAM_WORLD, dst, src, 2 * sizeof(int)) == MESHMEM_OK);
    for (int j = 0; j < n; j++)
        CHECK_EQ_LL(dst[j * 2 + 1], j * 1000 + 1);
    for (int root = 0; root < n; root++) {
        int b[5] = {root, 7, 8, 9, 10};
        CHECK(meshmem_broadcast(MESHMEM_TEAM_WORLD, dst, b, sizeof b, root) == MESHMEM_OK);
        CHECK_EQ_LL(dst[0], root);
        CHECK_EQ_LL(dst[4], 10);
    }
    CHECK(meshmem_allreduce(MESHMEM_TEAM_WORLD, dst, src, 3, MESHMEM_INT32, MESHMEM_OP_SUM) ==
          MESHMEM_OK);
    CHECK_EQ_LL(dst[2], 1000LL * n * (n - 1) / 2 + 2LL * n);
    meshmem_free(dst);
    meshmem_free(src);
    meshmem_free(slot);
    meshmem_finalize();
    return 0;
}
