/*
 * The corners of OpenSHMEM 1.5 that programs written from the spec rely on:
 *  - shmem_sync(team), the C11 binding, beside the deprecated active-set shmem_sync;
 *  - shmem_team_ptr (1.6) on the world team and a strided team, NULL outside it;
 *  - shmem_ctx_fence / shmem_ctx_quiet on SHMEM_CTX_INVALID: no operation;
 *  - repeated shmem_test_any (and wait_until_any) rotating over the satisfied indices;
 *  - shmem_align for alignments past 2 MiB, up to what the heap holds; NULL beyond;
 *  - the C11 generic reductions (and, or, xor, max, min, sum, prod) on the world team.
 */
#include "shmem_test.h"

#include <stdint.h>
#include <string.h>

static int flag_ring; /* a global: symmetric */

static void test_sync(void)
{
    static long psync[SHMEM_SYNC_SIZE];
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    /* team form: the value put before it is there after it */
    shmem_int_p(&flag_ring, me + 1, right);
    shmem_quiet();
    EXPECT(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(team) returns 0");
    EXPECT(flag_ring == left + 1, "shmem_sync(SHMEM_TEAM_WORLD): got %d", flag_ring);
    shmem_sync(SHMEM_TEAM_WORLD);
    /* active-set form, over the even PEs (4 arguments: the deprecated routine) */
    if (me % 2 == 0) {
        int evens = (npes + 1) / 2;
        shmem_int_p(&flag_ring, 100 + me, (me + 2) % (2 * evens)); /* the next even PE */
        shmem_quiet();
        shmem_sync(0, 1, evens, psync);
        int from = me - 2 >= 0 ? me - 2 : 2 * (evens - 1);
        EXPECT(flag_ring == 100 + from, "active-set shmem_sync: got %d from PE %d", flag_ring,
               from);
    }
    shmem_barrier_all();
}

static void test_team_ptr(void)
{
    static long word;
    word = me;
    shmem_barrier_all();
    long *p = shmem_team_ptr(SHMEM_TEAM_WORLD, &word, right);
    EXPECT(p != NULL && p == shmem_ptr(&word, right) && *p == right, "team_ptr on the world");
    EXPECT(shmem_team_ptr(SHMEM_TEAM_INVALID, &word, 0) == NULL, "team_ptr on TEAM_INVALID");
    EXPECT(shmem_team_ptr(SHMEM_TEAM_WORLD, &word, npes) == NULL, "team_ptr of a PE past the team");
    shmem_team_t odd;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        int n = shmem_team_n_pes(odd), mine = shmem_team_my_pe(odd);
        long *q = shmem_team_ptr(odd, &word, (mine + 1) % n);
        EXPECT(q != NULL && *q == 1 + 2 * ((mine + 1) % n), "team_ptr in a strided team");
        EXPECT(shmem_team_ptr(odd, &word, n) == NULL, "team_ptr of a non-member");
    }
    shmem_barrier_all();
    shmem_team_destroy(odd);
}

static void test_ctx_invalid(void)
{
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    shmem_ctx_fence(ctx); /* no operation */
    shmem_ctx_quiet(ctx);
    shmem_team_t none = SHMEM_TEAM_INVALID;
    EXPECT(shmem_team_create_ctx(none, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
           "create_ctx on TEAM_INVALID");
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
}

static void test_any_rotates(void)
{
    int *flags = shmem_calloc(4, sizeof(int));
    for (int i = 0; i < 4; i++)
        flags[i] = i % 2; /* 1 and 3 satisfy, forever */
    size_t seen[4] = {0};
    for (int k = 0; k < 8; k++) {
        size_t i = shmem_test_any(flags, 4, NULL, SHMEM_CMP_EQ, 1);
        EXPECT(i == 1 || i == 3, "test_any returned %zu", i);
        seen[i]++;
    }
    EXPECT(seen[1] == 4 && seen[3] == 4, "test_any rotates: 1 seen %zu times, 3 %zu times", seen[1],
           seen[3]);
    size_t a = shmem_wait_until_any(flags, 4, NULL, SHMEM_CMP_EQ, 1);
    size_t b = shmem_wait_until_any(flags, 4, NULL, SHMEM_CMP_EQ, 1);
    EXPECT(a != b, "wait_until_any rotates too (%zu, %zu)", a, b);
    shmem_free(flags);
}

static void test_align(void)
{
    for (size_t align = 4096; align <= ((size_t)8 << 20); align *= 8) {
        char *p = shmem_align(align, 3000);
        EXPECT(p != NULL && (uintptr_t)p % align == 0, "shmem_align(%zu) gave %p", align, p);
        memset(p, me, 3000);
        shmem_barrier_all();
        char got[8];
        shmem_getmem(got, p + 2990, 8, right);
        EXPECT(got[0] == (char)right && got[7] == (char)right, "aligned block is symmetric");
        shmem_barrier_all();
        shmem_free(p);
    }
    /* an alignment the heap cannot hold: no block (and a warning), not the end of the job */
    EXPECT(shmem_align((size_t)1 << 40, 64) == NULL, "shmem_align(1 TiB) in a small heap");
}

/* CALL reduces src (2 elements of T) into dst; EXPR folds x into want, PE after PE */
#define CHECK_REDUCE(T, CALL, EXPR, INIT)                                                          \
    do {                                                                                           \
        T *src = shmem_malloc(2 * sizeof(T)), *dst = shmem_malloc(2 * sizeof(T));                  \
        src[0] = (T)(me + 1);                                                                      \
        src[1] = (T)((me % 2) + 1);                                                                \
        EXPECT((CALL) == 0, "%s", #CALL);                                                          \
        for (int e = 0; e < 2; e++) {                                                              \
            T want = INIT;                                                                         \
            for (int pe = 0; pe < npes; pe++) {                                                    \
                T x = e == 0 ? (T)(pe + 1) : (T)((pe % 2) + 1);                                    \
                want = EXPR;                                                                       \
            }                                                                                      \
            EXPECT(dst[e] == want, "%s on %s, element %d", #CALL, #T, e);                          \
        }                                                                                          \
        shmem_free(dst);                                                                           \
        shmem_free(src);                                                                           \
    } while (0)

static void test_generic_reductions(void)
{
    shmem_team_t w = SHMEM_TEAM_WORLD;
    CHECK_REDUCE(unsigned int, shmem_and_reduce(w, dst, src, 2), (pe == 0 ? x : (want & x)), 0);
    CHECK_REDUCE(unsigned long, shmem_or_reduce(w, dst, src, 2), (want | x), 0);
    CHECK_REDUCE(uint16_t, shmem_xor_reduce(w, dst, src, 2), (uint16_t)(want ^ x), 0);
    CHECK_REDUCE(int, shmem_max_reduce(w, dst, src, 2), (pe == 0 || x > want ? x : want), 0);
    CHECK_REDUCE(double, shmem_min_reduce(w, dst, src, 2), (pe == 0 || x < want ? x : want), 0);
    CHECK_REDUCE(long long, shmem_sum_reduce(w, dst, src, 2), (want + x), 0);
    CHECK_REDUCE(float, shmem_prod_reduce(w, dst, src, 2), (want * x), 1);
}

int main(void)
{
    shmem_init();
    test_neighbours();
    test_sync();
    test_team_ptr();
    test_ctx_invalid();
    test_any_rotates();
    test_align();
    test_generic_reductions();
    shmem_finalize();
    return 0;
}
