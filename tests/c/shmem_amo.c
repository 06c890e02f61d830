/*
 * OpenSHMEM AMOs for every type of Tables 6, 7 and 8 (loops generated from the library's
 * tables) and the deprecated 1.4 names: results checked against what every PE did; targets are
 * globals, statics and heap objects; contention on PE 0 from every PE; context and _nbi forms.
 */
#include "shmem_test.h"

#define DECLARE_GLOBAL(T, N) T amo_global_##N[4];
SHMEM_AMO_EXTENDED_TYPES(DECLARE_GLOBAL)

/* fetch, set, swap (Table 7): each PE works on its right neighbour's word */
#define TEST_EXTENDED(T, N)                                                                        \
    static void test_extended_##N(void)                                                            \
    {                                                                                              \
        static T static_target[2];                                                                 \
        T *heap = shmem_malloc(2 * sizeof(T));                                                     \
        T *targets[3] = {amo_global_##N, static_target, heap};                                     \
        for (int t = 0; t < 3; t++) {                                                              \
            T *x = targets[t], fetched = 0;                                                        \
            shmem_##N##_atomic_set(x, TEST_VAL(T, me, 1), right);                                  \
            shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, x + 1, TEST_VAL(T, me, 2), right);       \
            shmem_barrier_all();                                                                   \
            EXPECT(x[0] == TEST_VAL(T, left, 1) && x[1] == TEST_VAL(T, left, 2), "%s set", #T);    \
            shmem_barrier_all(); /* checked before the neighbour swaps into it */                  \
            EXPECT(shmem_##N##_atomic_fetch(x, right) == TEST_VAL(T, me, 1), "%s fetch", #T);      \
            EXPECT(shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, x + 1, right) ==                \
                       TEST_VAL(T, me, 2),                                                         \
                   "%s ctx fetch", #T);                                                            \
            shmem_##N##_atomic_fetch_nbi(&fetched, x, right);                                      \
            shmem_quiet();                                                                         \
            EXPECT(fetched == TEST_VAL(T, me, 1), "%s fetch_nbi", #T);                             \
            shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &fetched, x + 1, right);           \
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                    \
            EXPECT(fetched == TEST_VAL(T, me, 2), "%s ctx fetch_nbi", #T);                         \
            EXPECT(shmem_##N##_atomic_swap(x, TEST_VAL(T, me, 3), right) == TEST_VAL(T, me, 1),    \
                   "%s swap", #T);                                                                 \
            EXPECT(shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, x, TEST_VAL(T, me, 4), right) == \
                       TEST_VAL(T, me, 3),                                                         \
                   "%s ctx swap", #T);                                                             \
            shmem_##N##_atomic_swap_nbi(&fetched, x, TEST_VAL(T, me, 5), right);                   \
            shmem_quiet();                                                                         \
            EXPECT(fetched == TEST_VAL(T, me, 4), "%s swap_nbi", #T);                              \
            shmem_ctx_##N##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &fetched, x, TEST_VAL(T, me, 6),    \
                                            right);                                                \
            shmem_quiet();                                                                         \
            EXPECT(fetched == TEST_VAL(T, me, 5), "%s ctx swap_nbi", #T);                          \
            shmem_barrier_all();                                                                   \
            EXPECT(x[0] == TEST_VAL(T, left, 6), "%s after swaps", #T);                            \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        shmem_free(heap);                                                                          \
    }
SHMEM_AMO_EXTENDED_TYPES(TEST_EXTENDED)

/* compare_swap, fetch_inc, inc, fetch_add, add (Table 6): every PE on PE 0's counter */
#define TEST_STANDARD(T, N)                                                                        \
    static void test_standard_##N(void)                                                            \
    {                                                                                              \
        static T counter; /* a static target on PE 0, a heap target for compare-swap */            \
        T *word = shmem_calloc(1, sizeof(T));                                                      \
        T fetched = 0;                                                                             \
        counter = 0;                                                                               \
        shmem_barrier_all();                                                                       \
        /* each PE adds 1 + 2 + (me + 1) + (me + 1) + 1 + 1 + 1 + (me + 1) */                      \
        T a = shmem_##N##_atomic_fetch_inc(&counter, 0);                                           \
        EXPECT(a < (T)(npes * 100), "%s fetch_inc result", #T);                                    \
        shmem_##N##_atomic_add(&counter, 2, 0);                                                    \
        a = shmem_##N##_atomic_fetch_add(&counter, (T)(me + 1), 0);                                \
        shmem_ctx_##N##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &fetched, &counter, (T)(me + 1),   \
                                             0);                                                   \
        shmem_##N##_atomic_inc(&counter, 0);                                                       \
        shmem_ctx_##N##_atomic_inc(SHMEM_CTX_DEFAULT, &counter, 0);                                \
        shmem_##N##_atomic_fetch_inc_nbi(&fetched, &counter, 0);                                   \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &fetched, &counter, 0);            \
        shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, &counter, (T)(me + 1), 0);                   \
        shmem_##N##_atomic_fetch_add_nbi(&fetched, &counter, 0, 0);                                \
        (void)shmem_ctx_##N##_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &counter, 0);                    \
        a = shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, &counter, 2, 0);                   \
        EXPECT(a < (T)(npes * 100), "%s ctx fetch_add result", #T);                                \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        long long total = 0;                                                                       \
        for (int p = 0; p < npes; p++)                                                             \
            total += 1 + 2 + 3 * (p + 1) + 1 + 1 + 1 + 1 + 1 + 2;                                  \
        if (me == 0)                                                                               \
            EXPECT((long long)counter == total, "%s counter %lld, expected %lld", #T,              \
                   (long long)counter, total);                                                     \
        EXPECT((long long)shmem_##N##_atomic_fetch(&counter, 0) == total, "%s fetch", #T);         \
        shmem_barrier_all();                                                                       \
        /* compare-swap: PEs take turns claiming the word; exactly one wins each value */          \
        int wins = 0;                                                                              \
        for (int round = 0; round < 3; round++) {                                                  \
            T old = (round % 2)                                                                    \
                        ? shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, word, (T)round,   \
                                                              (T)(round + 1), 0)                   \
                        : shmem_##N##_atomic_compare_swap(word, (T)round, (T)(round + 1), 0);      \
            wins += old == (T)round;                                                               \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        int total_wins = 0;                                                                        \
        static int wins_sym;                                                                       \
        wins_sym = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_int_atomic_add(&wins_sym, wins, 0);                                                  \
        shmem_barrier_all();                                                                       \
        total_wins = shmem_int_atomic_fetch(&wins_sym, 0);                                         \
        EXPECT(total_wins == 3, "%s compare_swap: %d winners of 3 rounds", #T, total_wins);        \
        shmem_##N##_atomic_compare_swap_nbi(&fetched, word, (T)99, (T)5, 0);                       \
        shmem_quiet();                                                                             \
        EXPECT(fetched == (T)3, "%s failed compare_swap_nbi returns the value", #T);               \
        shmem_barrier_all();                                                                       \
        shmem_ctx_##N##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &fetched, word, (T)3,           \
                                                (T)(10 + me), 0);                                  \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        T final_ = shmem_##N##_atomic_fetch(word, 0);                                              \
        EXPECT(final_ >= (T)10 && final_ < (T)(10 + npes), "%s compare_swap_nbi winner", #T);      \
        shmem_barrier_all();                                                                       \
        shmem_free(word);                                                                          \
    }
SHMEM_AMO_STANDARD_TYPES(TEST_STANDARD)

/* and, or, xor (Table 8): every PE sets, then clears, its bit in PE 0's word */
#define TEST_BITWISE(T, N)                                                                         \
    static void test_bitwise_##N(void)                                                             \
    {                                                                                              \
        static T bits;                                                                             \
        T fetched, mine = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1);                          \
        bits = 0;                                                                                  \
        shmem_barrier_all();                                                                       \
        if (me % 2)                                                                                \
            shmem_##N##_atomic_or(&bits, mine, 0);                                                 \
        else                                                                                       \
            (void)shmem_ctx_##N##_atomic_fetch_or(SHMEM_CTX_DEFAULT, &bits, mine, 0);              \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_##N##_atomic_fetch(&bits, 0) == all, "%s or", #T);                            \
        shmem_barrier_all();                                                                       \
        fetched = shmem_##N##_atomic_fetch_xor(&bits, mine, 0); /* clears my bit */                \
        EXPECT((fetched & mine) == mine, "%s fetch_xor saw my bit", #T);                           \
        shmem_ctx_##N##_atomic_xor(SHMEM_CTX_DEFAULT, &bits, mine, 0); /* sets it again */         \
        shmem_##N##_atomic_fetch_xor_nbi(&fetched, &bits, mine, 0);    /* clears it */             \
        shmem_ctx_##N##_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &fetched, &bits, mine, 0);          \
        shmem_quiet();                                                                             \
        shmem_##N##_atomic_xor(&bits, mine, 0); /* clears it */                                    \
        fetched = shmem_ctx_##N##_atomic_fetch_xor(SHMEM_CTX_DEFAULT, &bits, mine, 0); /* sets */  \
        EXPECT((fetched & mine) == 0, "%s ctx fetch_xor saw my bit clear", #T);                    \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_##N##_atomic_fetch(&bits, 0) == all, "%s xor", #T);                           \
        shmem_barrier_all();                                                                       \
        if (me % 3 == 2) {                                                                         \
            fetched = shmem_##N##_atomic_fetch_and(&bits, (T)~mine, 0);                            \
            EXPECT((fetched & mine) == mine, "%s fetch_and saw my bit", #T);                       \
        } else if (me % 2)                                                                         \
            shmem_##N##_atomic_and(&bits, (T)~mine, 0);                                            \
        else {                                                                                     \
            fetched = shmem_ctx_##N##_atomic_fetch_and(SHMEM_CTX_DEFAULT, &bits, (T)~mine, 0);     \
            EXPECT((fetched & mine) == mine, "%s fetch_and saw my bit", #T);                       \
        }                                                                                          \
        shmem_##N##_atomic_fetch_and_nbi(&fetched, &bits, (T)~mine, 0);                            \
        shmem_ctx_##N##_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &fetched, &bits, (T)~mine, 0);     \
        shmem_ctx_##N##_atomic_and(SHMEM_CTX_DEFAULT, &bits, (T)~mine, 0);                         \
        shmem_##N##_atomic_fetch_or_nbi(&fetched, &bits, 0, 0);                                    \
        shmem_ctx_##N##_atomic_or(SHMEM_CTX_DEFAULT, &bits, 0, 0);                                 \
        shmem_ctx_##N##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &fetched, &bits, 0, 0);            \
        (void)shmem_##N##_atomic_fetch_or(&bits, 0, 0);                                            \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_##N##_atomic_fetch(&bits, 0) == 0, "%s and", #T);                             \
        shmem_barrier_all();                                                                       \
    }
SHMEM_AMO_BITWISE_TYPES(TEST_BITWISE)

/* the deprecated 1.4 names */
#define TEST_DEPRECATED(T, N)                                                                      \
    static void test_deprecated_##N(void)                                                          \
    {                                                                                              \
        static T c;                                                                                \
        c = 0;                                                                                     \
        shmem_barrier_all();                                                                       \
        (void)shmem_##N##_finc(&c, 0);                                                             \
        shmem_##N##_inc(&c, 0);                                                                    \
        (void)shmem_##N##_fadd(&c, 3, 0);                                                          \
        shmem_##N##_add(&c, 4, 0);                                                                 \
        shmem_barrier_all();                                                                       \
        EXPECT(shmem_##N##_fetch(&c, 0) == (T)(9 * npes), "%s finc/inc/fadd/add", #T);             \
        shmem_barrier_all();                                                                       \
        if (me == 0) { /* only PE 0's copy was counted up */                                       \
            T was = right == 0 ? (T)(9 * npes) : 0;                                                \
            EXPECT(shmem_##N##_cswap(&c, was, 7, right) == was, "%s cswap", #T);                   \
            EXPECT(shmem_##N##_swap(&c, 8, right) == 7, "%s swap", #T);                            \
            shmem_##N##_set(&c, 6, right);                                                         \
            EXPECT(shmem_##N##_fetch(&c, right) == 6, "%s set", #T);                               \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
    }
SHMEM_AMO_DEPRECATED_TYPES(TEST_DEPRECATED)

static float fvar;
static double dvar;

int main(void)
{
    shmem_init();
    test_neighbours();
#define RUN(T, N) test_extended_##N();
    SHMEM_AMO_EXTENDED_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_standard_##N();
    SHMEM_AMO_STANDARD_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_bitwise_##N();
    SHMEM_AMO_BITWISE_TYPES(RUN)
#undef RUN
#define RUN(T, N) test_deprecated_##N();
    SHMEM_AMO_DEPRECATED_TYPES(RUN)
#undef RUN
    /* the deprecated float and double names */
    shmem_float_set(&fvar, 1.5f + (float)me, right);
    shmem_double_set(&dvar, 2.5 + me, right);
    shmem_barrier_all();
    EXPECT(fvar == 1.5f + (float)left && dvar == 2.5 + left, "float/double set");
    shmem_barrier_all();
    EXPECT(shmem_float_swap(&fvar, 0.25f, right) == 1.5f + (float)me, "float swap");
    EXPECT(shmem_double_fetch(&dvar, right) == 2.5 + me, "double fetch");
    EXPECT(shmem_float_fetch(&fvar, right) == 0.25f &&
               shmem_double_swap(&dvar, 1, right) == 2.5 + me,
           "float fetch / double swap");
    shmem_finalize();
    return 0;
}
