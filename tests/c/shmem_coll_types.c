/*
 * Every OpenSHMEM 1.5 team collective x every type of its table x every operator x every root,
 * on the world, strided (stride 1 and 2), 2-D (x and y; disjoint rows run concurrently) and
 * shared teams, for 0, 1, odd, odd-byte and ~100 KB element counts, against a serial reference
 * computed locally. The typed names and the C11 generic forms are used alternately; the mem
 * forms run as one more "type". Reductions also run in place (dest == source). No barrier
 * separates the collectives.
 */
#include "shmem_coll_test.h"

int mm_test_rank_hint = -1;

#define BUF_BYTES ((size_t)4 << 20)
static unsigned char *sbuf, *dbuf; /* symmetric */

/* the mem forms, named like a typed family so the same generated test covers them */
static int shmem_mem_broadcast(shmem_team_t t, unsigned char *d, const unsigned char *s, size_t n,
                               int root)
{
    return shmem_broadcastmem(t, d, s, n, root);
}
static int shmem_mem_collect(shmem_team_t t, unsigned char *d, const unsigned char *s, size_t n)
{
    return shmem_collectmem(t, d, s, n);
}
static int shmem_mem_fcollect(shmem_team_t t, unsigned char *d, const unsigned char *s, size_t n)
{
    return shmem_fcollectmem(t, d, s, n);
}
static int shmem_mem_alltoall(shmem_team_t t, unsigned char *d, const unsigned char *s, size_t n)
{
    return shmem_alltoallmem(t, d, s, n);
}
static int shmem_mem_alltoalls(shmem_team_t t, unsigned char *d, const unsigned char *s,
                               ptrdiff_t dst, ptrdiff_t sst, size_t n)
{
    return shmem_alltoallsmem(t, d, s, dst, sst, n);
}
#define TEST_RMA_TYPES(X) SHMEM_RMA_TYPES(X) X(unsigned char, mem)

/* members contribute different counts to collect (0 stays 0) */
#define COLLECT_COUNT(n, r) ((n) ? (n) + (size_t)((r) % 3) : 0)

#define DEF_RMA_TEST(CTYPE, TYPENAME)                                                              \
    static void test_rma_##TYPENAME(shmem_team_t team, const char *tn, size_t n, int generic)      \
    {                                                                                              \
        const char *ty = #TYPENAME;                                                                \
        int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);                              \
        CTYPE *s = (CTYPE *)(void *)sbuf, *d = (CTYPE *)(void *)dbuf;                              \
        bool gen = generic && strcmp(ty, "mem") != 0; /* mem has no generic form */                \
        for (int root = 0; root < np; root++) {                                                    \
            for (size_t i = 0; i < n; i++)                                                         \
                s[i] = (CTYPE)TEST_VAL(me, i, root);                                               \
            d[n] = (CTYPE)5;                                                                       \
            int rc = gen ? shmem_broadcast(team, d, s, n, root)                                    \
                         : shmem_##TYPENAME##_broadcast(team, d, s, n, root);                      \
            CHECK(rc == 0);                                                                        \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_COLL(d[i] == (CTYPE)TEST_VAL(root, i, root), "broadcast", ty, tn, i);        \
            CHECK_COLL(d[n] == (CTYPE)5, "broadcast (past the end)", ty, tn, n);                   \
        }                                                                                          \
        /* collect: member r gives COLLECT_COUNT(n, r) elements */                                 \
        size_t mine = COLLECT_COUNT(n, me);                                                        \
        for (size_t i = 0; i < mine; i++)                                                          \
            s[i] = (CTYPE)TEST_VAL(me, i, 1);                                                      \
        CHECK((gen ? shmem_collect(team, d, s, mine)                                               \
                   : shmem_##TYPENAME##_collect(team, d, s, mine)) == 0);                          \
        size_t pos = 0;                                                                            \
        for (int r = 0; r < np; r++)                                                               \
            for (size_t i = 0; i < COLLECT_COUNT(n, r); i++, pos++)                                \
                CHECK_COLL(d[pos] == (CTYPE)TEST_VAL(r, i, 1), "collect", ty, tn, pos);            \
        /* fcollect */                                                                             \
        for (size_t i = 0; i < n; i++)                                                             \
            s[i] = (CTYPE)TEST_VAL(me, i, 2);                                                      \
        CHECK((gen ? shmem_fcollect(team, d, s, n)                                                 \
                   : shmem_##TYPENAME##_fcollect(team, d, s, n)) == 0);                            \
        for (int r = 0; r < np; r++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_COLL(d[(size_t)r * n + i] == (CTYPE)TEST_VAL(r, i, 2), "fcollect", ty, tn,   \
                           (size_t)r * n + i);                                                     \
        /* alltoall: block j of my source goes to block me of member j */                          \
        for (size_t i = 0; i < n * (size_t)np; i++)                                                \
            s[i] = (CTYPE)TEST_VAL(me, i, 3);                                                      \
        CHECK((gen ? shmem_alltoall(team, d, s, n)                                                 \
                   : shmem_##TYPENAME##_alltoall(team, d, s, n)) == 0);                            \
        for (int j = 0; j < np; j++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_COLL(d[(size_t)j * n + i] == (CTYPE)TEST_VAL(j, (size_t)me * n + i, 3),      \
                           "alltoall", ty, tn, (size_t)j * n + i);                                 \
        /* alltoalls, dst 2 and sst 3: the gaps of dest keep their value */                        \
        size_t blocks = n * (size_t)np;                                                            \
        for (size_t i = 0; i < blocks; i++) {                                                      \
            s[i * 3] = (CTYPE)TEST_VAL(me, i, 4);                                                  \
            d[i * 2 + 1] = (CTYPE)6;                                                               \
        }                                                                                          \
        CHECK((gen ? shmem_alltoalls(team, d, s, 2, 3, n)                                          \
                   : shmem_##TYPENAME##_alltoalls(team, d, s, 2, 3, n)) == 0);                     \
        for (int j = 0; j < np; j++)                                                               \
            for (size_t i = 0; i < n; i++) {                                                       \
                size_t k = (size_t)j * n + i;                                                      \
                CHECK_COLL(d[k * 2] == (CTYPE)TEST_VAL(j, (size_t)me * n + i, 4), "alltoalls", ty, \
                           tn, k * 2);                                                             \
                CHECK_COLL(d[k * 2 + 1] == (CTYPE)6, "alltoalls (gap)", ty, tn, k * 2 + 1);        \
            }                                                                                      \
    }
TEST_RMA_TYPES(DEF_RMA_TEST)

#define DEF_RED_TEST(CTYPE, TYPENAME, OP)                                                          \
    static void test_red_##TYPENAME##_##OP(shmem_team_t team, const char *tn, size_t n,            \
                                           int inplace)                                            \
    {                                                                                              \
        int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);                              \
        CTYPE *s = (CTYPE *)(void *)sbuf, *d = inplace ? s : (CTYPE *)(void *)dbuf;                \
        for (size_t i = 0; i < n; i++)                                                             \
            s[i] = RED_VAL_##OP(CTYPE, me, i);                                                     \
        d[n] = (CTYPE)3;                                                                           \
        /* in place through the C11 generic form, otherwise by the typed name */                   \
        CHECK((inplace ? shmem_##OP##_reduce(team, d, s, n)                                        \
                       : shmem_##TYPENAME##_##OP##_reduce(team, d, s, n)) == 0);                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            CTYPE ref = RED_VAL_##OP(CTYPE, 0, i);                                                 \
            for (int r = 1; r < np; r++)                                                           \
                ref = RED_OP_##OP(CTYPE, ref, RED_VAL_##OP(CTYPE, r, i));                          \
            CHECK_COLL(d[i] == ref, #OP "_reduce", #TYPENAME, tn, i);                              \
        }                                                                                          \
        CHECK_COLL(d[n] == (CTYPE)3, #OP "_reduce (past the end)", #TYPENAME, tn, n);              \
    }
#define DEF_RED_BITWISE(C, T) SHMEM_REDUCE_OPS_BITWISE(DEF_RED_TEST, C, T)
#define DEF_RED_MINMAX(C, T)  SHMEM_REDUCE_OPS_MINMAX(DEF_RED_TEST, C, T)
#define DEF_RED_ARITH(C, T)   SHMEM_REDUCE_OPS_ARITH(DEF_RED_TEST, C, T)
SHMEM_REDUCE_BITWISE_TYPES(DEF_RED_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(DEF_RED_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(DEF_RED_ARITH)

/* ---- tables of the generated tests ---- */
typedef struct {
    const char *name;
    void (*fn)(shmem_team_t, const char *, size_t, int);
    size_t esize;
} test_entry_t;

#define RMA_ENTRY(CTYPE, TYPENAME) {#TYPENAME, test_rma_##TYPENAME, sizeof(CTYPE)},
static const test_entry_t rma_tests[] = {TEST_RMA_TYPES(RMA_ENTRY)};

#define RED_ENTRY(CTYPE, TYPENAME, OP)                                                             \
    {#TYPENAME "_" #OP, test_red_##TYPENAME##_##OP, sizeof(CTYPE)},
#define RED_ENTRY_BITWISE(C, T) SHMEM_REDUCE_OPS_BITWISE(RED_ENTRY, C, T)
#define RED_ENTRY_MINMAX(C, T)  SHMEM_REDUCE_OPS_MINMAX(RED_ENTRY, C, T)
#define RED_ENTRY_ARITH(C, T)   SHMEM_REDUCE_OPS_ARITH(RED_ENTRY, C, T)
static const test_entry_t red_tests[] = {SHMEM_REDUCE_BITWISE_TYPES(RED_ENTRY_BITWISE)
                                             SHMEM_REDUCE_MINMAX_TYPES(RED_ENTRY_MINMAX)
                                                 SHMEM_REDUCE_ARITH_TYPES(RED_ENTRY_ARITH)};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* element counts: 0, 1, odd, odd bytes for every type, and ~100 KB (odd) */
static size_t test_count(int k, size_t esize)
{
    static const size_t small[] = {0, 1, 7, 37};
    return k < 4 ? small[k] : (100 * 1024) / esize + 1;
}
#define N_COUNTS 5

/* argument "short" (the simulated engine, where every cycle that moves data is clocked): the
 * small counts only, on every team */
int main(int argc, char **argv)
{
    bool brief = argc > 1 && strcmp(argv[1], "short") == 0;
    shmem_init();
    mm_test_rank_hint = shmem_my_pe();
    sbuf = shmem_malloc(BUF_BYTES);
    dbuf = shmem_malloc(BUF_BYTES);
    CHECK(sbuf != NULL && dbuf != NULL);
    shmem_team_t teams[TEAM_COUNT];
    test_teams_create(teams);

    int runs = 0;
    for (int t = 0; t < TEAM_COUNT; t++) {
        if (teams[t] == SHMEM_TEAM_INVALID)
            continue;
        /* the large count on the full-mesh teams only: it is the same code on the others */
        int counts = (t == TEAM_WORLD || t == TEAM_ROW) && !brief ? N_COUNTS : N_COUNTS - 1;
        for (int k = 0; k < counts; k++) {
            for (size_t e = 0; e < COUNT_OF(rma_tests); e++, runs++)
                rma_tests[e].fn(teams[t], test_team_names[t], test_count(k, rma_tests[e].esize),
                                (int)(e + (size_t)k) & 1);
            for (size_t e = 0; e < COUNT_OF(red_tests); e++, runs++) {
                size_t n = test_count(k, red_tests[e].esize);
                red_tests[e].fn(teams[t], test_team_names[t], n, 0);
                if (k < 4)
                    red_tests[e].fn(teams[t], test_team_names[t], n, 1);
            }
        }
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("shmem_coll_types: %zu types x 5 collectives, %zu type x operator reductions; "
               "%d runs on PE 0, all correct\n",
               COUNT_OF(rma_tests), COUNT_OF(red_tests), runs);
    test_teams_destroy(teams);
    shmem_free(dbuf);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
