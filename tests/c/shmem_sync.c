/*
 * OpenSHMEM point-to-point synchronization for every Table 12 type (wait_until, test and their
 * _all/_any/_some/_vector forms, status masks, the deprecated shmem_wait), signals (put_signal
 * and its nbi, sized, mem and context forms, signal_fetch, signal_wait_until), and locks
 * (mutual exclusion and a counter under contention from every PE).
 */
#include "shmem_test.h"

#include <stdlib.h>
#include <string.h>

#define NV 4

/* every check on local values is deterministic; waits are released by the left neighbour */
#define TEST_P2P(T, N)                                                                             \
    static void test_p2p_##N(void)                                                                 \
    {                                                                                              \
        static T ivars[NV];                                                                        \
        size_t idx[NV];                                                                            \
        int status[NV] = {0, 1, 0, 0}; /* element 1 excluded */                                    \
        int none[NV] = {1, 1, 1, 1};                                                               \
        T cmpv[NV] = {1, 2, 3, 4};                                                                 \
        memset(ivars, 0, sizeof ivars);                                                            \
        shmem_barrier_all();                                                                       \
        /* nothing written yet */                                                                  \
        EXPECT(shmem_##N##_test(&ivars[0], SHMEM_CMP_EQ, 0) == 1, "%s test EQ", #T);               \
        EXPECT(shmem_##N##_test(&ivars[0], SHMEM_CMP_NE, 0) == 0, "%s test NE", #T);               \
        EXPECT(shmem_##N##_test(&ivars[0], SHMEM_CMP_GT, 0) == 0, "%s test GT", #T);               \
        EXPECT(shmem_##N##_test(&ivars[0], SHMEM_CMP_GE, 0) == 1, "%s test GE", #T);               \
        EXPECT(shmem_##N##_test(&ivars[0], SHMEM_CMP_LT, 1) == 1, "%s test LT", #T);               \
        EXPECT(shmem_##N##_test(&ivars[0], SHMEM_CMP_LE, 0) == 1, "%s test LE", #T);               \
        EXPECT(shmem_##N##_test_any(ivars, NV, NULL, SHMEM_CMP_GT, 0) == SIZE_MAX,                 \
               "%s test_any none", #T);                                                            \
        EXPECT(shmem_##N##_test_some(ivars, NV, idx, NULL, SHMEM_CMP_GT, 0) == 0,                  \
               "%s test_some none", #T);                                                           \
        EXPECT(shmem_##N##_test_all(ivars, NV, NULL, SHMEM_CMP_EQ, 0) == 1, "%s test_all", #T);    \
        EXPECT(shmem_##N##_test_all(ivars, NV, NULL, SHMEM_CMP_NE, 0) == 0, "%s test_all NE", #T); \
        /* all excluded: nothing to wait for */                                                    \
        EXPECT(shmem_##N##_wait_until_any(ivars, NV, none, SHMEM_CMP_NE, 0) == SIZE_MAX,           \
               "%s wait_until_any all excluded", #T);                                              \
        EXPECT(shmem_##N##_wait_until_some(ivars, NV, idx, none, SHMEM_CMP_NE, 0) == 0,            \
               "%s wait_until_some all excluded", #T);                                             \
        shmem_##N##_wait_until_all(ivars, NV, none, SHMEM_CMP_NE, 0);                              \
        shmem_##N##_wait_until_all(ivars, 0, NULL, SHMEM_CMP_NE, 0);                               \
        shmem_barrier_all();                                                                       \
        /* step 1: the left neighbour sets ivars[2] = 3; any/some see index 2 */                   \
        shmem_##N##_p(&ivars[2], 3, right);                                                        \
        EXPECT(shmem_##N##_wait_until_any(ivars, NV, status, SHMEM_CMP_GT, 0) == 2,                \
               "%s wait_until_any", #T);                                                           \
        EXPECT(shmem_##N##_wait_until_some(ivars, NV, idx, NULL, SHMEM_CMP_EQ, 3) == 1 &&          \
                   idx[0] == 2,                                                                    \
               "%s wait_until_some", #T);                                                          \
        EXPECT(shmem_##N##_test_any_vector(ivars, NV, NULL, SHMEM_CMP_EQ, cmpv) == 2,              \
               "%s test_any_vector", #T);                                                          \
        EXPECT(shmem_##N##_test_some_vector(ivars, NV, idx, status, SHMEM_CMP_GE, cmpv) == 1 &&    \
                   idx[0] == 2,                                                                    \
               "%s test_some_vector", #T);                                                         \
        shmem_barrier_all();                                                                       \
        /* step 2: the left neighbour sets every element to cmpv[i] (element 1 by itself) */       \
        shmem_##N##_p(&ivars[0], 1, right);                                                        \
        shmem_fence();                                                                             \
        shmem_##N##_p(&ivars[3], 4, right);                                                        \
        shmem_##N##_wait_until_all_vector(ivars, NV, status, SHMEM_CMP_EQ, cmpv);                  \
        EXPECT(shmem_##N##_test_all_vector(ivars, NV, status, SHMEM_CMP_EQ, cmpv) == 1,            \
               "%s test_all_vector", #T);                                                          \
        EXPECT(shmem_##N##_test_all_vector(ivars, NV, NULL, SHMEM_CMP_EQ, cmpv) == 0,              \
               "%s test_all_vector counts element 1 without a mask", #T);                          \
        EXPECT(shmem_##N##_wait_until_any_vector(ivars, NV, status, SHMEM_CMP_EQ, cmpv) != 1,      \
               "%s wait_until_any_vector skips the excluded element", #T);                         \
        EXPECT(shmem_##N##_wait_until_some_vector(ivars, NV, idx, status, SHMEM_CMP_EQ, cmpv) ==   \
                   3,                                                                              \
               "%s wait_until_some_vector", #T);                                                   \
        EXPECT(idx[0] == 0 && idx[1] == 2 && idx[2] == 3, "%s some indices", #T);                  \
        shmem_barrier_all();                                                                       \
        /* step 3: wait_until and the deprecated wait on one element */                            \
        shmem_##N##_p(&ivars[1], 2, right);                                                        \
        shmem_##N##_wait_until(&ivars[1], SHMEM_CMP_EQ, 2);                                        \
        shmem_##N##_wait(&ivars[1], 0);                                                            \
        shmem_##N##_wait_until_all(ivars, NV, NULL, SHMEM_CMP_GE, 1);                              \
        EXPECT(shmem_##N##_test_all(ivars, NV, NULL, SHMEM_CMP_GE, 1) == 1, "%s test_all", #T);    \
        shmem_barrier_all();                                                                       \
    }
SHMEM_P2P_TYPES(TEST_P2P)

/* ---- signals ---- */

static uint64_t sig[4];
static long data[64];

static void test_signals(void)
{
    long src[64];
    for (int i = 0; i < 64; i++)
        src[i] = me * 1000 + i;
    memset(sig, 0, sizeof sig);
    memset(data, 0, sizeof data);
    EXPECT(shmem_signal_fetch(&sig[0]) == 0, "signal_fetch before");
    shmem_barrier_all();

    /* set: data then signal to the right neighbour; the signal implies the data */
    shmem_long_put_signal(data, src, 17, &sig[0], 5, SHMEM_SIGNAL_SET, right);
    EXPECT(shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 5) == 5, "signal_wait_until result");
    for (int i = 0; i < 17; i++)
        EXPECT(data[i] == left * 1000 + i, "put_signal data %d", i);
    EXPECT(shmem_signal_fetch(&sig[0]) == 5, "signal_fetch");
    shmem_barrier_all();

    /* add: every PE adds 1 to PE 0's signal 1 in each of the forms */
    shmem_putmem_signal(&data[20 + me % 8], src, 1, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
    shmem_put64_signal_nbi(&data[30], src, 1, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
    shmem_ctx_long_put_signal_nbi(SHMEM_CTX_DEFAULT, &data[31], src, 0, &sig[1], 1,
                                  SHMEM_SIGNAL_ADD, 0);
    shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, NULL, NULL, 0, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
    shmem_ctx_put32_signal(SHMEM_CTX_DEFAULT, &data[32], src, 2, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
    shmem_int_put_signal(&((int *)&data[40])[1], (int *)src, 1, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
    shmem_quiet();
    if (me == 0) {
        uint64_t v = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, (uint64_t)npes * 6);
        EXPECT(v == (uint64_t)npes * 6, "signal add total %llu", (unsigned long long)v);
        EXPECT(shmem_signal_wait_until(&sig[1], SHMEM_CMP_GT, 0) == (uint64_t)npes * 6,
               "signal_wait_until GT returns the value");
    }
    shmem_barrier_all();

    /* the signal is a 64-bit value: set a large one */
    shmem_putmem_signal_nbi(&data[50], src, 8, &sig[2], UINT64_C(1) << 40, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig[2], SHMEM_CMP_NE, 0);
    EXPECT(sig[2] == UINT64_C(1) << 40 && data[50] == left * 1000, "64-bit signal");
    shmem_barrier_all();
}

/* Large puts with signal started back to back, each from its own part of one private source
 * (to another host they travel as rendezvous messages still going on after the call): when
 * the count shows n, the first n blocks are in place, whatever order they landed in; the
 * source is rewritten only after quiet. Then a fence orders a large started put with signal
 * before the put after it. */
static void test_signals_nbi_large(void)
{
    enum { BLOCKS = 6, BLOCK = 96 * 1024 + 8 }; /* longs per block: 768 KiB + 64 B */
    long *dst = shmem_malloc((size_t)BLOCKS * BLOCK * sizeof(long));
    long *src = malloc((size_t)BLOCKS * BLOCK * sizeof(long));
    uint64_t *count = shmem_calloc(2, sizeof(uint64_t));
    EXPECT(dst && src && count, "allocations");
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < (size_t)BLOCKS * BLOCK; i++)
            src[i] = (long)(me * 7919 + round) * 1000003 + (long)i;
        shmem_barrier_all();
        for (int b = 0; b < BLOCKS; b++)
            shmem_long_put_signal_nbi(dst + (size_t)b * BLOCK, src + (size_t)b * BLOCK, BLOCK,
                                      &count[0], 1, SHMEM_SIGNAL_ADD, right);
        shmem_signal_wait_until(&count[0], SHMEM_CMP_GE, (uint64_t)(round + 1) * BLOCKS);
        long bad = 0;
        for (size_t i = 0; i < (size_t)BLOCKS * BLOCK; i++)
            bad += dst[i] != (long)(left * 7919 + round) * 1000003 + (long)i;
        EXPECT(bad == 0, "round %d: %ld elements of the started puts with signal wrong", round,
               bad);
        shmem_quiet(); /* the source may change now */
    }
    /* fence: the started put with signal lands before the flag put after it */
    shmem_barrier_all();
    shmem_long_put_signal_nbi(dst, src, BLOCK, &count[0], 1, SHMEM_SIGNAL_ADD, right);
    shmem_fence();
    shmem_uint64_p(&count[1], 1, right);
    shmem_uint64_wait_until(&count[1], SHMEM_CMP_EQ, 1);
    long want = (long)(left * 7919 + 1) * 1000003 + BLOCK - 1;
    EXPECT(count[0] == 2 * BLOCKS + 1 && dst[BLOCK - 1] == want,
           "fence after a started put with signal: count %llu", (unsigned long long)count[0]);
    shmem_barrier_all();
    shmem_free(dst), shmem_free(count), free(src);
}

/* ---- locks ---- */

static long lock;
static long counter;
static int inside;

static void critical_section(int iteration)
{
    /* nobody else inside: the occupancy counter on PE 0 was 0 */
    int was = shmem_int_atomic_fetch_inc(&inside, 0);
    EXPECT(was == 0, "lock: %d other PEs inside (iteration %d)", was, iteration);
    long c = shmem_long_g(&counter, 0);
    shmem_long_p(&counter, c + 1, 0); /* a lost update would show in the total */
    shmem_quiet();
    shmem_int_atomic_add(&inside, -1, 0);
}

static void test_locks(void)
{
    const int iters = 50;
    shmem_barrier_all();
    for (int i = 0; i < iters; i++) {
        shmem_set_lock(&lock);
        critical_section(i);
        shmem_clear_lock(&lock);
    }
    for (int i = 0; i < iters; i++) {
        while (shmem_test_lock(&lock) != 0)
            ;
        critical_section(i);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    EXPECT(shmem_long_g(&counter, 0) == 2L * iters * npes, "lock counter %ld",
           shmem_long_g(&counter, 0));
    /* free again: test_lock takes it, and another PE's test fails while it is held */
    if (me == 0)
        EXPECT(shmem_test_lock(&lock) == 0, "test_lock on a free lock");
    shmem_barrier_all();
    if (me != 0)
        EXPECT(shmem_test_lock(&lock) == 1, "test_lock on a held lock");
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock);
    shmem_barrier_all();
}

/* every typed, sized and mem form of put_signal, plain and nbi, with and without a context:
 * each PE puts to PE 0 and adds 1 to one signal per form family; PE 0 waits for them all */
#define SIGNAL_TYPED(T, N)                                                                         \
    {                                                                                              \
        static T d[4 * 8];                                                                         \
        T v = (T)(me + 1);                                                                         \
        T *mine = &d[4 * (me % 8)];                                                                \
        shmem_##N##_put_signal(mine, &v, 1, &typed_sig, 1, SHMEM_SIGNAL_ADD, 0);                   \
        shmem_ctx_##N##_put_signal(SHMEM_CTX_DEFAULT, mine + 1, &v, 1, &typed_sig, 1,              \
                                   SHMEM_SIGNAL_ADD, 0);                                           \
        shmem_##N##_put_signal_nbi(mine + 2, &v, 1, &typed_sig, 1, SHMEM_SIGNAL_ADD, 0);           \
        shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, mine + 3, &v, 1, &typed_sig, 1,          \
                                       SHMEM_SIGNAL_ADD, 0);                                       \
        ntyped += 4;                                                                               \
    }
#define SIGNAL_SIZED(BITS, BYTES)                                                                  \
    {                                                                                              \
        static unsigned char d[8][4 * 16];                                                         \
        unsigned char v[16] = {(unsigned char)me};                                                 \
        unsigned char *mine = d[me % 8];                                                           \
        shmem_put##BITS##_signal(mine, v, 1, &typed_sig, 1, SHMEM_SIGNAL_ADD, 0);                  \
        shmem_ctx_put##BITS##_signal(SHMEM_CTX_DEFAULT, mine + 16, v, 1, &typed_sig, 1,            \
                                     SHMEM_SIGNAL_ADD, 0);                                         \
        shmem_put##BITS##_signal_nbi(mine + 32, v, 1, &typed_sig, 1, SHMEM_SIGNAL_ADD, 0);         \
        shmem_ctx_put##BITS##_signal_nbi(SHMEM_CTX_DEFAULT, mine + 48, v, 1, &typed_sig, 1,        \
                                         SHMEM_SIGNAL_ADD, 0);                                     \
        ntyped += 4;                                                                               \
    }

static uint64_t typed_sig;

static void test_signal_forms(void)
{
    static unsigned char bytes[8][2];
    uint64_t ntyped = 0;
    typed_sig = 0;
    shmem_barrier_all();
    SHMEM_RMA_TYPES(SIGNAL_TYPED)
    SHMEM_SIZED_TYPES(SIGNAL_SIZED)
    unsigned char b = (unsigned char)me;
    shmem_putmem_signal(&bytes[me % 8][0], &b, 1, &typed_sig, 1, SHMEM_SIGNAL_ADD, 0);
    shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, &bytes[me % 8][1], &b, 1, &typed_sig, 1,
                                SHMEM_SIGNAL_ADD, 0);
    ntyped += 2;
    shmem_quiet();
    if (me == 0) {
        uint64_t want = ntyped * (uint64_t)npes;
        EXPECT(shmem_signal_wait_until(&typed_sig, SHMEM_CMP_EQ, want) == want,
               "every put_signal form added its 1");
        EXPECT(bytes[npes > 7 ? 7 : npes - 1][1] == (unsigned char)(npes > 7 ? 7 : npes - 1) ||
                   npes > 8,
               "putmem_signal_nbi data");
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    test_neighbours();
#define RUN(T, N) test_p2p_##N();
    SHMEM_P2P_TYPES(RUN)
    test_signals();
    test_signals_nbi_large();
    test_signal_forms();
    test_locks();
    shmem_finalize();
    return 0;
}
