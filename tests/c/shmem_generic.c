/*
 * The C11 type-generic interfaces, with and without a context, for every C type of the C11
 * tables: RMA (arrays and pointers as arguments, const sources), put_signal, every AMO, the
 * deprecated generic AMO names, and the wait/test families. Selecting the wrong typed routine
 * would store the wrong width, which the value checks would see.
 */
#include "shmem_test.h"

#include <string.h>

static uint64_t sig;

#define TEST_RMA(T, N)                                                                             \
    static void test_rma_##N(shmem_ctx_t ctx)                                                      \
    {                                                                                              \
        static T dst[8];                                                                           \
        T src[8], got[8];                                                                          \
        const T *csrc = src;                                                                       \
        for (int i = 0; i < 8; i++)                                                                \
            src[i] = TEST_VAL(T, me, i), dst[i] = got[i] = TEST_SENTINEL(T);                       \
        shmem_barrier_all();                                                                       \
        shmem_put(dst, src, 2, right);               /* arrays */                                  \
        shmem_put(ctx, &dst[2], csrc + 2, 1, right); /* pointers, const source */                  \
        shmem_put_nbi(&dst[3], &src[3], 1, right);                                                 \
        shmem_put_nbi(ctx, &dst[4], &src[4], 1, right);                                            \
        shmem_p(&dst[5], src[5], right);                                                           \
        shmem_p(ctx, &dst[6], src[6], right);                                                      \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 7; i++)                                                                \
            EXPECT(dst[i] == TEST_VAL(T, left, i), "generic put %s element %d", #T, i);            \
        EXPECT(dst[7] == TEST_SENTINEL(T), "generic put %s wrote past", #T);                       \
        shmem_get(got, dst, 2, right);                                                             \
        shmem_get(ctx, &got[2], &dst[2], 1, right);                                                \
        shmem_get_nbi(&got[3], &dst[3], 1, right);                                                 \
        shmem_get_nbi(ctx, &got[4], &dst[4], 1, right);                                            \
        shmem_quiet();                                                                             \
        got[5] = shmem_g(&dst[5], right);                                                          \
        got[6] = shmem_g(ctx, (const T *)&dst[6], right);                                          \
        for (int i = 0; i < 7; i++)                                                                \
            EXPECT(got[i] == TEST_VAL(T, me, i), "generic get %s element %d", #T, i);              \
        shmem_barrier_all();                                                                       \
        shmem_iput(dst, src, 2, 1, 3, right);                                                      \
        shmem_iput(ctx, &dst[1], &src[3], 2, 1, 3, right);                                         \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 6; i++)                                                                \
            EXPECT(dst[i] == TEST_VAL(T, left, i % 2 ? 3 + i / 2 : i / 2), "generic iput %s", #T); \
        shmem_iget(got, dst, 1, 2, 3, right);                                                      \
        shmem_iget(ctx, &got[3], &dst[1], 1, 2, 3, right);                                         \
        for (int i = 0; i < 6; i++)                                                                \
            EXPECT(got[i] == TEST_VAL(T, me, i), "generic iget %s element %d", #T, i);             \
        shmem_barrier_all();                                                                       \
        sig = 0;                                                                                   \
        shmem_barrier_all();                                                                       \
        shmem_put_signal(dst, src, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);                           \
        shmem_put_signal(ctx, &dst[1], &src[1], 1, &sig, 1, SHMEM_SIGNAL_ADD, right);              \
        shmem_put_signal_nbi(&dst[2], &src[2], 1, &sig, 1, SHMEM_SIGNAL_ADD, right);               \
        shmem_put_signal_nbi(ctx, &dst[3], &src[3], 1, &sig, 1, SHMEM_SIGNAL_ADD, right);          \
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 4);                                            \
        for (int i = 0; i < 4; i++)                                                                \
            EXPECT(dst[i] == TEST_VAL(T, left, i), "generic put_signal %s", #T);                   \
        shmem_barrier_all();                                                                       \
    }
SHMEM_C11_RMA_TYPES(TEST_RMA)

#define TEST_AMO_EXTENDED(T, N)                                                                    \
    static void test_amo_ext_##N(shmem_ctx_t ctx)                                                  \
    {                                                                                              \
        static T x;                                                                                \
        T f;                                                                                       \
        shmem_atomic_set(&x, TEST_VAL(T, me, 0), right);                                           \
        shmem_barrier_all();                                                                       \
        EXPECT(x == TEST_VAL(T, left, 0), "generic atomic_set %s", #T);                            \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_atomic_fetch(&x, right) == TEST_VAL(T, me, 0), "generic fetch %s", #T);       \
        EXPECT(shmem_atomic_fetch(ctx, (const T *)&x, right) == TEST_VAL(T, me, 0), "ctx fetch");  \
        EXPECT(shmem_atomic_swap(&x, TEST_VAL(T, me, 1), right) == TEST_VAL(T, me, 0), "swap");    \
        EXPECT(shmem_atomic_swap(ctx, &x, TEST_VAL(T, me, 2), right) == TEST_VAL(T, me, 1),        \
               "ctx swap %s", #T);                                                                 \
        shmem_atomic_set(ctx, &x, TEST_VAL(T, me, 3), right);                                      \
        shmem_atomic_fetch_nbi(&f, &x, right);                                                     \
        shmem_quiet();                                                                             \
        EXPECT(f == TEST_VAL(T, me, 3), "fetch_nbi %s", #T);                                       \
        shmem_atomic_swap_nbi(ctx, &f, &x, TEST_VAL(T, me, 4), right);                             \
        shmem_quiet();                                                                             \
        EXPECT(f == TEST_VAL(T, me, 3), "ctx swap_nbi %s", #T);                                    \
        shmem_atomic_swap_nbi(&f, &x, TEST_VAL(T, me, 5), right);                                  \
        shmem_atomic_fetch_nbi(ctx, &f, &x, right);                                                \
        shmem_quiet();                                                                             \
        EXPECT(f == TEST_VAL(T, me, 5), "swap_nbi then ctx fetch_nbi %s", #T);                     \
        shmem_barrier_all();                                                                       \
    }
SHMEM_C11_AMO_EXTENDED_TYPES(TEST_AMO_EXTENDED)

#define TEST_AMO_STANDARD(T, N)                                                                    \
    static void test_amo_std_##N(shmem_ctx_t ctx)                                                  \
    {                                                                                              \
        static T c;                                                                                \
        T f;                                                                                       \
        c = 0;                                                                                     \
        shmem_barrier_all();                                                                       \
        (void)shmem_atomic_fetch_inc(&c, 0);                                                       \
        (void)shmem_atomic_fetch_inc(ctx, &c, 0);                                                  \
        shmem_atomic_inc(&c, 0);                                                                   \
        shmem_atomic_inc(ctx, &c, 0);                                                              \
        (void)shmem_atomic_fetch_add(&c, 2, 0);                                                    \
        (void)shmem_atomic_fetch_add(ctx, &c, 2, 0);                                               \
        shmem_atomic_add(&c, 3, 0);                                                                \
        shmem_atomic_add(ctx, &c, 3, 0);                                                           \
        shmem_atomic_fetch_inc_nbi(&f, &c, 0);                                                     \
        shmem_atomic_fetch_inc_nbi(ctx, &f, &c, 0);                                                \
        shmem_atomic_fetch_add_nbi(&f, &c, 1, 0);                                                  \
        shmem_atomic_fetch_add_nbi(ctx, &f, &c, 1, 0);                                             \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        if (me == 0)                                                                               \
            EXPECT(c == (T)(18 * npes), "generic counting %s: %lld", #T, (long long)c);            \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            T now = c;                                                                             \
            EXPECT(shmem_atomic_compare_swap(&c, now, 1, 0) == now, "cswap %s", #T);               \
            EXPECT(shmem_atomic_compare_swap(ctx, &c, 5, 2, 0) == 1, "failed cswap %s", #T);       \
            shmem_atomic_compare_swap_nbi(&f, &c, 1, 9, 0);                                        \
            shmem_atomic_compare_swap_nbi(ctx, &f, &c, 9, 4, 0);                                   \
            shmem_quiet();                                                                         \
            EXPECT(f == 9 && c == 4, "cswap_nbi %s", #T);                                          \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
    }
SHMEM_C11_AMO_STANDARD_TYPES(TEST_AMO_STANDARD)

#define TEST_AMO_BITWISE(T, N)                                                                     \
    static void test_amo_bit_##N(shmem_ctx_t ctx)                                                  \
    {                                                                                              \
        static T b;                                                                                \
        T f, mine = (T)((T)1 << me);                                                               \
        b = 0;                                                                                     \
        shmem_barrier_all();                                                                       \
        shmem_atomic_or(&b, mine, 0);                                                              \
        shmem_atomic_xor(ctx, &b, mine, 0);        /* clear */                                     \
        (void)shmem_atomic_fetch_xor(&b, mine, 0); /* set */                                       \
        (void)shmem_atomic_fetch_or(ctx, &b, mine, 0);                                             \
        shmem_atomic_or(ctx, &b, mine, 0);              /* the other form of each: set */          \
        shmem_atomic_xor(&b, mine, 0);                  /* clear */                                \
        (void)shmem_atomic_fetch_xor(ctx, &b, mine, 0); /* set */                                  \
        (void)shmem_atomic_fetch_or(&b, mine, 0);                                                  \
        shmem_atomic_fetch_and_nbi(&f, &b, (T)~0, 0);                                              \
        shmem_atomic_fetch_or_nbi(ctx, &f, &b, 0, 0);                                              \
        shmem_atomic_fetch_xor_nbi(&f, &b, 0, 0);                                                  \
        shmem_atomic_fetch_xor_nbi(ctx, &f, &b, 0, 0);                                             \
        shmem_atomic_fetch_and_nbi(ctx, &f, &b, (T)~0, 0);                                         \
        shmem_atomic_fetch_or_nbi(&f, &b, 0, 0);                                                   \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_atomic_fetch(&b, 0) == (T)(((T)1 << npes) - 1), "generic or/xor %s", #T);     \
        shmem_barrier_all();                                                                       \
        (void)shmem_atomic_fetch_and(&b, (T)~mine, 0);                                             \
        shmem_atomic_and(ctx, &b, (T)~mine, 0);                                                    \
        (void)shmem_atomic_fetch_and(ctx, &b, (T)~mine, 0);                                        \
        shmem_atomic_and(&b, (T)~mine, 0);                                                         \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_atomic_fetch(&b, 0) == 0, "generic and %s", #T);                              \
        shmem_barrier_all();                                                                       \
    }
SHMEM_C11_AMO_BITWISE_TYPES(TEST_AMO_BITWISE)

#define TEST_P2P(T, N)                                                                             \
    static void test_p2p_##N(void)                                                                 \
    {                                                                                              \
        static T v[3];                                                                             \
        T cmpv[3] = {1, 2, 3};                                                                     \
        size_t idx[3];                                                                             \
        memset(v, 0, sizeof v);                                                                    \
        EXPECT(shmem_test(&v[0], SHMEM_CMP_EQ, 0) && !shmem_test(&v[0], SHMEM_CMP_NE, 0),          \
               "generic test %s", #T);                                                             \
        shmem_barrier_all();                                                                       \
        shmem_p(&v[0], 1, right);                                                                  \
        shmem_p(&v[1], 2, right);                                                                  \
        shmem_p(&v[2], 3, right);                                                                  \
        shmem_wait_until(&v[2], SHMEM_CMP_EQ, 3);                                                  \
        shmem_wait(&v[1], 0);                                                                      \
        shmem_wait_until_all(v, 3, NULL, SHMEM_CMP_GT, 0);                                         \
        EXPECT(shmem_wait_until_any(v, 3, NULL, SHMEM_CMP_EQ, 2) == 1, "wait_until_any %s", #T);   \
        EXPECT(shmem_wait_until_some(v, 3, idx, NULL, SHMEM_CMP_GE, 2) == 2, "some %s", #T);       \
        shmem_wait_until_all_vector(v, 3, NULL, SHMEM_CMP_EQ, cmpv);                               \
        EXPECT(shmem_wait_until_any_vector(v, 3, NULL, SHMEM_CMP_EQ, cmpv) < 3, "any_vector");     \
        EXPECT(shmem_wait_until_some_vector(v, 3, idx, NULL, SHMEM_CMP_EQ, cmpv) == 3, "some_v");  \
        EXPECT(shmem_test_all(v, 3, NULL, SHMEM_CMP_GT, 0), "test_all %s", #T);                    \
        EXPECT(shmem_test_any(v, 3, NULL, SHMEM_CMP_EQ, 3) == 2, "test_any %s", #T);               \
        EXPECT(shmem_test_some(v, 3, idx, NULL, SHMEM_CMP_LT, 3) == 2, "test_some %s", #T);        \
        EXPECT(shmem_test_all_vector(v, 3, NULL, SHMEM_CMP_EQ, cmpv), "test_all_vector %s", #T);   \
        EXPECT(shmem_test_any_vector(v, 3, NULL, SHMEM_CMP_NE, cmpv) == SIZE_MAX, "any_v %s", #T); \
        EXPECT(shmem_test_some_vector(v, 3, idx, NULL, SHMEM_CMP_LE, cmpv) == 3, "some_v %s", #T); \
        shmem_barrier_all();                                                                       \
    }
SHMEM_C11_P2P_TYPES(TEST_P2P)

/* the deprecated 1.4 generic AMO names */
#define TEST_DEPRECATED(T, N)                                                                      \
    static void test_deprecated_##N(void)                                                          \
    {                                                                                              \
        static T c;                                                                                \
        c = 0;                                                                                     \
        shmem_barrier_all();                                                                       \
        (void)shmem_finc(&c, 0);                                                                   \
        shmem_inc(&c, 0);                                                                          \
        (void)shmem_fadd(&c, 2, 0);                                                                \
        shmem_add(&c, 3, 0);                                                                       \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_fetch(&c, 0) == (T)(7 * npes), "deprecated generic counting %s", #T);         \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            EXPECT(shmem_cswap(&c, (T)(7 * npes), 1, 0) == (T)(7 * npes), "cswap %s", #T);         \
            EXPECT(shmem_swap(&c, 2, 0) == 1, "swap %s", #T);                                      \
            shmem_set(&c, 3, 0);                                                                   \
            EXPECT(c == 3, "set %s", #T);                                                          \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
    }
SHMEM_AMO_DEPRECATED_TYPES(TEST_DEPRECATED)

static float fv;
static double dv;

int main(void)
{
    shmem_init();
    test_neighbours();
    shmem_ctx_t ctx;
    EXPECT(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");
    for (int round = 0; round < 2; round++) { /* the default and a created context */
        shmem_ctx_t c = round ? ctx : SHMEM_CTX_DEFAULT;
#define RUN(T, N) test_rma_##N(c);
        SHMEM_C11_RMA_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_amo_ext_##N(c);
        SHMEM_C11_AMO_EXTENDED_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_amo_std_##N(c);
        SHMEM_C11_AMO_STANDARD_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_amo_bit_##N(c);
        SHMEM_C11_AMO_BITWISE_TYPES(RUN)
#undef RUN
    }
#define RUN(T, N) test_p2p_##N();
    SHMEM_C11_P2P_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_deprecated_##N();
    SHMEM_AMO_DEPRECATED_TYPES(RUN)
#undef RUN
    shmem_set(&fv, 1.25f, right);
    shmem_set(&dv, 2.25, right);
    shmem_barrier_all();
    EXPECT(shmem_fetch(&fv, right) == 1.25f && shmem_swap(&dv, 0.5, right) == 2.25,
           "deprecated generic float/double");
    shmem_ctx_destroy(ctx);
    shmem_finalize();
    return 0;
}
