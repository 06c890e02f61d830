/*
 * SHMEM_THREAD_MULTIPLE: threads of every PE put, get and run AMOs concurrently, on the default
 * context and on private contexts of their own; totals and every written slot are checked.
 */
#include "shmem_test.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS    200

static long slots[NTHREADS][ITERS];
static long counter;
static unsigned long long bits;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (t % 2)
        EXPECT(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "thread ctx_create");
    for (int i = 0; i < ITERS; i++) {
        long v = me * 1000000L + t * 1000 + i;
        shmem_ctx_long_put(ctx, &slots[t][i], &v, 1, right);
        shmem_ctx_long_atomic_inc(ctx, &counter, i % npes);
        shmem_ulonglong_atomic_fetch_or(&bits, 1ULL << (t * 8 + me % 8), 0);
        long back = shmem_ctx_long_g(ctx, &slots[t][i], right);
        EXPECT(back == v, "thread %d read back %ld, wrote %ld", t, back, v);
    }
    shmem_ctx_quiet(ctx);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    int provided = -1;
    EXPECT(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    EXPECT(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    test_neighbours();
    int q;
    shmem_query_thread(&q);
    EXPECT(q == SHMEM_THREAD_MULTIPLE, "query_thread");
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int t = 0; t < NTHREADS; t++)
        for (int i = 0; i < ITERS; i++)
            EXPECT(slots[t][i] == left * 1000000L + t * 1000 + i, "slot %d %d", t, i);
    /* PE p received one increment per (PE, thread, i) with i % npes == p */
    long expected = 0;
    for (int i = 0; i < ITERS; i++)
        expected += (i % npes == me) ? (long)npes * NTHREADS : 0;
    EXPECT(counter == expected, "counter %ld expected %ld", counter, expected);
    if (me == 0) {
        unsigned long long want = 0;
        for (int t = 0; t < NTHREADS; t++)
            for (int p = 0; p < npes; p++)
                want |= 1ULL << (t * 8 + p % 8);
        EXPECT(bits == want, "bits %llx want %llx", bits, want);
    }
    shmem_finalize();
    return 0;
}
