/*
 * Deprecated active-set routines: shmem_barrier, shmem_sync, shmem_broadcast/collect/fcollect/
 * alltoall/alltoalls 32 and 64, and every shmem_TYPENAME_OP_to_all, on many sets (every start,
 * strides 1, 2 and 4, one PE, two PEs, as many as fit: odd starts and strides included), called
 * by the members only, with no barrier between sets. Checks the results against a serial
 * reference, that the root's dest is left alone by broadcast (1.4 semantics), and that every
 * pSync word is back to SHMEM_SYNC_VALUE when a call returns.
 */
#include "shmem_coll_test.h"

int mm_test_rank_hint = -1;

#define MAX_SETS 128
#define NSYNC    SHMEM_REDUCE_SYNC_SIZE
static long psync[MAX_SETS][2][NSYNC]; /* symmetric; two per set (first use on either) */
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];
static long counter[MAX_SETS][8]; /* per set: sets run without barriers between them */
#define BUF_BYTES (4 << 20)
static unsigned char *sbuf, *dbuf;

typedef struct {
    int start, logstride, size; /* the set */
    int idx;                    /* my index in it */
    int id;                     /* the set's number in this test */
    long *psync;
} aset_t;

static void check_psync(const aset_t *a, const char *what)
{
    for (int i = 0; i < NSYNC; i++)
        if (a->psync[i] != SHMEM_SYNC_VALUE) {
            fprintf(stderr, "[rank %d] %s (set %d/%d/%d): pSync[%d] = %ld after return\n",
                    mm_test_rank_hint, what, a->start, a->logstride, a->size, i, a->psync[i]);
            _exit(1);
        }
}

#define ASET_ARGS(a) (a)->start, (a)->logstride, (a)->size, (a)->psync

/* ---- 1.4 reductions: one generated test per type x operator ---- */
#define DEF_TO_ALL_TEST(CTYPE, TYPENAME, OP)                                                       \
    static void test_to_all_##TYPENAME##_##OP(const aset_t *a, size_t n)                           \
    {                                                                                              \
        CTYPE *s = (CTYPE *)(void *)sbuf, *d = (CTYPE *)(void *)dbuf;                              \
        for (size_t i = 0; i < n; i++)                                                             \
            s[i] = RED_VAL_##OP(CTYPE, a->idx, i);                                                 \
        shmem_##TYPENAME##_##OP##_to_all(d, s, (int)n, a->start, a->logstride, a->size,            \
                                         (CTYPE *)(void *)pwrk, a->psync);                         \
        check_psync(a, #TYPENAME "_" #OP "_to_all");                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            CTYPE ref = RED_VAL_##OP(CTYPE, 0, i);                                                 \
            for (int r = 1; r < a->size; r++)                                                      \
                ref = RED_OP_##OP(CTYPE, ref, RED_VAL_##OP(CTYPE, r, i));                          \
            CHECK_COLL(d[i] == ref, #OP "_to_all", #TYPENAME, "active set", i);                    \
        }                                                                                          \
    }
#define DEF_TO_ALL_BITWISE(C, T) SHMEM_REDUCE_OPS_BITWISE(DEF_TO_ALL_TEST, C, T)
#define DEF_TO_ALL_MINMAX(C, T)  SHMEM_REDUCE_OPS_MINMAX(DEF_TO_ALL_TEST, C, T)
#define DEF_TO_ALL_ARITH(C, T)   SHMEM_REDUCE_OPS_ARITH(DEF_TO_ALL_TEST, C, T)
SHMEM_TO_ALL_BITWISE_TYPES(DEF_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(DEF_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(DEF_TO_ALL_ARITH)

#define TO_ALL_ENTRY(CTYPE, TYPENAME, OP) test_to_all_##TYPENAME##_##OP,
#define TO_ALL_ENTRY_BITWISE(C, T)        SHMEM_REDUCE_OPS_BITWISE(TO_ALL_ENTRY, C, T)
#define TO_ALL_ENTRY_MINMAX(C, T)         SHMEM_REDUCE_OPS_MINMAX(TO_ALL_ENTRY, C, T)
#define TO_ALL_ENTRY_ARITH(C, T)          SHMEM_REDUCE_OPS_ARITH(TO_ALL_ENTRY, C, T)
static void (*const to_all_tests[])(const aset_t *, size_t) = {
    SHMEM_TO_ALL_BITWISE_TYPES(TO_ALL_ENTRY_BITWISE) SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_ENTRY_MINMAX)
        SHMEM_TO_ALL_ARITH_TYPES(TO_ALL_ENTRY_ARITH)};

/* ---- data movement, 32 and 64 bits ---- */
#define DEF_MOVE_TEST(BITS, BYTES)                                                                 \
    static void test_move##BITS(const aset_t *a, size_t n)                                         \
    {                                                                                              \
        typedef uint##BITS##_t T;                                                                  \
        T *s = (T *)(void *)sbuf, *d = (T *)(void *)dbuf;                                          \
        int me = a->idx, np = a->size;                                                             \
        for (int root = 0; root < np; root++) {                                                    \
            for (size_t i = 0; i <= n; i++) {                                                      \
                s[i] = (T)TEST_VAL(me, i, root);                                                   \
                d[i] = (T)999;                                                                     \
            }                                                                                      \
            shmem_broadcast##BITS(d, s, n, root, ASET_ARGS(a));                                    \
            check_psync(a, "shmem_broadcast" #BITS);                                               \
            for (size_t i = 0; i <= n; i++) {                                                      \
                T want = (me == root || i == n) ? (T)999 : (T)TEST_VAL(root, i, root);             \
                CHECK_COLL(d[i] == want, "broadcast" #BITS, "", "active set", i);                  \
            }                                                                                      \
        }                                                                                          \
        size_t mine = COLLECT_COUNT(n, me);                                                        \
        for (size_t i = 0; i < mine; i++)                                                          \
            s[i] = (T)TEST_VAL(me, i, 1);                                                          \
        shmem_collect##BITS(d, s, mine, ASET_ARGS(a));                                             \
        check_psync(a, "shmem_collect" #BITS);                                                     \
        size_t pos = 0;                                                                            \
        for (int r = 0; r < np; r++)                                                               \
            for (size_t i = 0; i < COLLECT_COUNT(n, r); i++, pos++)                                \
                CHECK_COLL(d[pos] == (T)TEST_VAL(r, i, 1), "collect" #BITS, "", "active set",      \
                           pos);                                                                   \
        for (size_t i = 0; i < n; i++)                                                             \
            s[i] = (T)TEST_VAL(me, i, 2);                                                          \
        shmem_fcollect##BITS(d, s, n, ASET_ARGS(a));                                               \
        check_psync(a, "shmem_fcollect" #BITS);                                                    \
        for (size_t k = 0; k < n * (size_t)np; k++)                                                \
            CHECK_COLL(d[k] == (T)TEST_VAL(k / n, k % n, 2), "fcollect" #BITS, "", "active set",   \
                       k);                                                                         \
        for (size_t k = 0; k < n * (size_t)np; k++)                                                \
            s[k] = (T)TEST_VAL(me, k, 3);                                                          \
        shmem_alltoall##BITS(d, s, n, ASET_ARGS(a));                                               \
        check_psync(a, "shmem_alltoall" #BITS);                                                    \
        for (size_t k = 0; k < n * (size_t)np; k++)                                                \
            CHECK_COLL(d[k] == (T)TEST_VAL(k / n, (size_t)me * n + k % n, 3), "alltoall" #BITS,    \
                       "", "active set", k);                                                       \
        for (size_t k = 0; k < n * (size_t)np; k++) {                                              \
            s[k * 2] = (T)TEST_VAL(me, k, 4);                                                      \
            d[k * 3 + 1] = d[k * 3 + 2] = (T)7;                                                    \
        }                                                                                          \
        shmem_alltoalls##BITS(d, s, 3, 2, n, ASET_ARGS(a));                                        \
        check_psync(a, "shmem_alltoalls" #BITS);                                                   \
        for (size_t k = 0; k < n * (size_t)np; k++) {                                              \
            CHECK_COLL(d[k * 3] == (T)TEST_VAL(k / n, (size_t)me * n + k % n, 4),                  \
                       "alltoalls" #BITS, "", "active set", k * 3);                                \
            CHECK_COLL(d[k * 3 + 1] == (T)7 && d[k * 3 + 2] == (T)7, "alltoalls" #BITS " (gap)",   \
                       "", "active set", k * 3 + 1);                                               \
        }                                                                                          \
    }
#define COLLECT_COUNT(n, r) ((n) ? (n) + (size_t)((r) % 3) : 0)
SHMEM_ASET_SIZES(DEF_MOVE_TEST)

/* barrier completes a put to the next member; sync orders the rounds */
static void test_barrier(const aset_t *a)
{
    int stride = 1 << a->logstride;
    int next = a->start + ((a->idx + 1) % a->size) * stride;
    for (int round = 1; round <= 3; round++) {
        long v = round * 100 + a->idx;
        meshmem_put(&counter[a->id][a->idx % 8], &v, sizeof v, next);
        shmem_barrier(ASET_ARGS(a));
        check_psync(a, "shmem_barrier");
        int prev = (a->idx + a->size - 1) % a->size;
        CHECK_EQ_LL(counter[a->id][prev % 8], round * 100 + prev);
        shmem_sync(ASET_ARGS(a));
        check_psync(a, "shmem_sync");
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    mm_test_rank_hint = me;
    sbuf = shmem_malloc(BUF_BYTES);
    dbuf = shmem_malloc(BUF_BYTES);
    CHECK(sbuf && dbuf);
    int nsets = 0;
    for (int start = 0; start < n; start++)
        for (int logstride = 0; logstride <= 2; logstride++) {
            int stride = 1 << logstride, fit = (n - 1 - start) / stride + 1;
            int sizes[3] = {1, 2, fit};
            for (int k = 0; k < 3; k++) {
                if (sizes[k] > fit || (k == 2 && fit <= 2) || (k == 0 && logstride > 0))
                    continue;
                CHECK(nsets < MAX_SETS);
                int set = nsets++, d = me - start;
                if (d < 0 || d % stride || d / stride >= sizes[k])
                    continue; /* not a member: do not call */
                aset_t a = {start, logstride, sizes[k], d / stride, set, psync[set][0]};
                test_barrier(&a);
                a.psync = psync[set][1]; /* the cached set works with any pSync */
                static const size_t counts[] = {0, 1, 7, 37};
                for (size_t c = 0; c < 4; c++) {
                    test_move32(&a, counts[c]);
                    test_move64(&a, counts[c]);
                }
                /* the 1.4 reductions: every type x operator on a few sets, one type on all */
                size_t ntests = sizeof to_all_tests / sizeof to_all_tests[0];
                bool all = (start + logstride) % 3 == 0 || k == 2;
                for (size_t t = 0; t < ntests; t++)
                    if (all || t % 7 == (size_t)start % 7)
                        to_all_tests[t](&a, t % 2 ? 37 : 1);
            }
        }
    /* a large transfer on the world set and on the odd PEs (start 1, stride 2) */
    aset_t world = {0, 0, n, me, 0, psync[0][0]};
    test_move64(&world, (100 * 1024) / 8 + 1);
    if (me % 2 == 1) {
        aset_t odd = {1, 1, n / 2, me / 2, 1, psync[1][0]};
        test_move32(&odd, (100 * 1024) / 4 + 3);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("shmem_coll_aset: %d active sets, all correct\n", nsets);
    shmem_free(dbuf);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
