/*
 * OpenSHMEM RMA: put, get, p, g, iput, iget, put_nbi, get_nbi and their context forms for every
 * Table 5 type (loops generated from the same table as the library), into a global, a static
 * and a heap object; sizes 0, 1, odd and larger; the sized (8..128) and byte forms at
 * unaligned offsets; a 1 MiB transfer. Every PE writes to its right neighbour and reads back.
 */
#include "shmem_test.h"

#include <string.h>

#define NMAX 37

/* one global target per type */
#define DECLARE_GLOBAL(T, N) T global_##N[NMAX + 1];
SHMEM_RMA_TYPES(DECLARE_GLOBAL)

static const size_t sizes[] = {0, 1, 3, NMAX};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* put variant v (plain, nbi + quiet, context) of n elements; then the get variant v back */
#define TEST_TYPE(T, N)                                                                            \
    static void test_##N(void)                                                                     \
    {                                                                                              \
        static T static_target[NMAX + 1];                                                          \
        T *heap = shmem_malloc(sizeof(T) * (NMAX + 1));                                            \
        T *targets[3] = {global_##N, static_target, heap};                                         \
        T src[NMAX + 1], got[NMAX + 1];                                                            \
        for (int t = 0; t < 3; t++) {                                                              \
            T *dst = targets[t];                                                                   \
            for (size_t k = 0; k < NSIZES; k++) {                                                  \
                size_t n = sizes[k];                                                               \
                int v = (int)(k + (size_t)t) % 4;                                                  \
                for (int i = 0; i <= NMAX; i++) {                                                  \
                    dst[i] = TEST_SENTINEL(T);                                                     \
                    src[i] = TEST_VAL(T, me, i);                                                   \
                    got[i] = TEST_SENTINEL(T);                                                     \
                }                                                                                  \
                shmem_barrier_all();                                                               \
                if (v == 0)                                                                        \
                    shmem_##N##_put(dst, src, n, right);                                           \
                else if (v == 1) {                                                                 \
                    shmem_##N##_put_nbi(dst, src, n, right);                                       \
                    shmem_quiet();                                                                 \
                } else if (v == 2)                                                                 \
                    shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, dst, src, n, right);                    \
                else {                                                                             \
                    shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, dst, src, n, right);                \
                    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                            \
                }                                                                                  \
                shmem_barrier_all();                                                               \
                for (size_t i = 0; i < n; i++)                                                     \
                    EXPECT(dst[i] == TEST_VAL(T, left, i), "%s put target %d n %zu i %zu", #T, t,  \
                           n, i);                                                                  \
                EXPECT(dst[n] == TEST_SENTINEL(T), "%s put wrote past %zu elements", #T, n);       \
                /* the right neighbour's copy holds what this PE put there */                      \
                if (v == 0)                                                                        \
                    shmem_##N##_get(got, dst, n, right);                                           \
                else if (v == 1) {                                                                 \
                    shmem_##N##_get_nbi(got, dst, n, right);                                       \
                    shmem_quiet();                                                                 \
                } else if (v == 2)                                                                 \
                    shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, got, dst, n, right);                    \
                else {                                                                             \
                    shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, got, dst, n, right);                \
                    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                            \
                }                                                                                  \
                for (size_t i = 0; i < n; i++)                                                     \
                    EXPECT(got[i] == TEST_VAL(T, me, i), "%s get target %d n %zu i %zu", #T, t, n, \
                           i);                                                                     \
                EXPECT(got[n] == TEST_SENTINEL(T), "%s get wrote past %zu elements", #T, n);       \
                shmem_barrier_all();                                                               \
            }                                                                                      \
            /* p and g, plain and context */                                                       \
            shmem_##N##_p(&dst[2], TEST_VAL(T, me, 30), right);                                    \
            shmem_ctx_##N##_p(SHMEM_CTX_DEFAULT, &dst[5], TEST_VAL(T, me, 31), right);             \
            shmem_barrier_all();                                                                   \
            EXPECT(dst[2] == TEST_VAL(T, left, 30), "%s p", #T);                                   \
            EXPECT(dst[5] == TEST_VAL(T, left, 31), "%s ctx p", #T);                               \
            EXPECT(shmem_##N##_g(&dst[2], right) == TEST_VAL(T, me, 30), "%s g", #T);              \
            EXPECT(shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, &dst[5], right) == TEST_VAL(T, me, 31),    \
                   "%s ctx g", #T);                                                                \
            shmem_barrier_all();                                                                   \
            /* strided: 5 elements, source stride 3, target stride 2 */                            \
            for (int i = 0; i <= NMAX; i++)                                                        \
                dst[i] = TEST_SENTINEL(T);                                                         \
            shmem_barrier_all();                                                                   \
            if (t == 1)                                                                            \
                shmem_ctx_##N##_iput(SHMEM_CTX_DEFAULT, dst, src, 2, 3, 5, right);                 \
            else                                                                                   \
                shmem_##N##_iput(dst, src, 2, 3, 5, right);                                        \
            shmem_barrier_all();                                                                   \
            for (int i = 0; i < 10; i++)                                                           \
                EXPECT(dst[i] == (i % 2 ? TEST_SENTINEL(T) : TEST_VAL(T, left, 3 * (i / 2))),      \
                       "%s iput element %d", #T, i);                                               \
            for (int i = 0; i <= NMAX; i++)                                                        \
                got[i] = TEST_SENTINEL(T);                                                         \
            if (t == 1)                                                                            \
                shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, got, dst, 3, 2, 5, right);                 \
            else                                                                                   \
                shmem_##N##_iget(got, dst, 3, 2, 5, right);                                        \
            for (int i = 0; i < 15; i++)                                                           \
                EXPECT(got[i] == (i % 3 ? TEST_SENTINEL(T) : TEST_VAL(T, me, i)),                  \
                       "%s iget element %d", #T, i);                                               \
            shmem_iput(dst, src, 2, 3, 0, right); /* zero elements: nothing, no error */           \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        shmem_free(heap);                                                                          \
    }
SHMEM_RMA_TYPES(TEST_TYPE)

/* sized forms: nelems elements of BYTES bytes at an unaligned heap offset */
static unsigned char global_bytes[4096 + 64];

static void fill(unsigned char *p, size_t n, int pe, int salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(pe * 31 + salt + (int)i * 7);
}

static void expect_filled(const unsigned char *p, size_t n, int pe, int salt, const char *what)
{
    for (size_t i = 0; i < n; i++)
        EXPECT(p[i] == (unsigned char)(pe * 31 + salt + (int)i * 7), "%s byte %zu of %zu", what, i,
               n);
}

#define TEST_SIZED(BITS, BYTES)                                                                    \
    {                                                                                              \
        size_t n = 5, off = 3; /* odd count, unaligned */                                          \
        unsigned char src[5 * BYTES * 2], got[5 * BYTES * 2], expected[5 * BYTES * 2];             \
        memset(global_bytes, 0, sizeof global_bytes);                                              \
        fill(src, sizeof src, me, BITS);                                                           \
        shmem_barrier_all();                                                                       \
        shmem_put##BITS(global_bytes + off, src, n, right);                                        \
        shmem_ctx_put##BITS##_nbi(SHMEM_CTX_DEFAULT, heap + off, src, n, right);                   \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        expect_filled(global_bytes + off, n * BYTES, left, BITS, "put" #BITS);                     \
        expect_filled(heap + off, n * BYTES, left, BITS, "ctx put" #BITS "_nbi");                  \
        EXPECT(global_bytes[off + n * BYTES] == 0, "put%d wrote past the end", BITS);              \
        shmem_get##BITS(got, heap + off, n, right);                                                \
        expect_filled(got, n *BYTES, me, BITS, "get" #BITS);                                       \
        shmem_ctx_get##BITS(SHMEM_CTX_DEFAULT, got, global_bytes + off, n, right);                 \
        expect_filled(got, n *BYTES, me, BITS, "ctx get" #BITS);                                   \
        shmem_get##BITS##_nbi(got, heap + off, n, right);                                          \
        shmem_quiet();                                                                             \
        expect_filled(got, n *BYTES, me, BITS, "get" #BITS "_nbi");                                \
        shmem_barrier_all();                                                                       \
        /* strided: element i of src (stride 2) to element i of dest (stride 1) */                 \
        memset(heap, 0, 4096);                                                                     \
        shmem_barrier_all();                                                                       \
        shmem_iput##BITS(heap, src, 1, 2, n, right);                                               \
        shmem_barrier_all();                                                                       \
        fill(expected, sizeof expected, left, BITS);                                               \
        for (size_t i = 0; i < n; i++)                                                             \
            EXPECT(memcmp(heap + i * BYTES, expected + 2 * i * BYTES, BYTES) == 0,                 \
                   "iput%d element %zu", BITS, i);                                                 \
        shmem_ctx_iget##BITS(SHMEM_CTX_DEFAULT, got, heap, 2, 1, n, right);                        \
        for (size_t i = 0; i < n; i++)                                                             \
            EXPECT(memcmp(got + 2 * i * BYTES, src + 2 * i * BYTES, BYTES) == 0,                   \
                   "iget%d element %zu", BITS, i);                                                 \
        shmem_barrier_all();                                                                       \
        /* the other form of each: context put and iput, plain iget, put_nbi, ctx get_nbi */       \
        memset(heap, 0, 4096);                                                                     \
        memset(global_bytes, 0, sizeof global_bytes);                                              \
        shmem_barrier_all();                                                                       \
        shmem_ctx_put##BITS(SHMEM_CTX_DEFAULT, heap + off, src, n, right);                         \
        shmem_put##BITS##_nbi(global_bytes + off, src, n, right);                                  \
        shmem_ctx_iput##BITS(SHMEM_CTX_DEFAULT, heap + 2048, src, 1, 2, n, right);                 \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        expect_filled(heap + off, n * BYTES, left, BITS, "ctx put" #BITS);                         \
        expect_filled(global_bytes + off, n * BYTES, left, BITS, "put" #BITS "_nbi");              \
        for (size_t i = 0; i < n; i++)                                                             \
            EXPECT(memcmp(heap + 2048 + i * BYTES, expected + 2 * i * BYTES, BYTES) == 0,          \
                   "ctx iput%d element %zu", BITS, i);                                             \
        shmem_iget##BITS(got, heap + 2048, 2, 1, n, right);                                        \
        for (size_t i = 0; i < n; i++)                                                             \
            EXPECT(memcmp(got + 2 * i * BYTES, src + 2 * i * BYTES, BYTES) == 0,                   \
                   "iget%d element %zu", BITS, i);                                                 \
        shmem_ctx_get##BITS##_nbi(SHMEM_CTX_DEFAULT, got, global_bytes + off, n, right);           \
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                        \
        expect_filled(got, n *BYTES, me, BITS, "ctx get" #BITS "_nbi");                            \
        shmem_barrier_all();                                                                       \
    }

static void test_sized_and_mem(void)
{
    unsigned char *heap = shmem_malloc(1 << 20);
    SHMEM_SIZED_TYPES(TEST_SIZED)

    /* byte forms: odd sizes at unaligned offsets, zero bytes, and 1 MiB */
    static unsigned char src[1 << 20], got[1 << 20];
    const size_t lens[] = {0, 1, 7, 4097, (1 << 20) - 8};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k], off = n < 4096 ? 5 : 8;
        fill(src, n, me, (int)k);
        memset(heap, 0, 1 << 20);
        shmem_barrier_all();
        if (k % 2)
            shmem_putmem(heap + off, src, n, right);
        else if (k == 2)
            shmem_putmem_nbi(heap + off, src, n, right), shmem_quiet();
        else {
            shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, heap + off, src, n, right);
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        }
        shmem_barrier_all();
        expect_filled(heap + off, n, left, (int)k, "putmem");
        if (off + n < (1 << 20))
            EXPECT(heap[off + n] == 0, "putmem wrote past %zu bytes", n);
        EXPECT(heap[off - 1] == 0, "putmem wrote before its target");
        memset(got, 0, n + 1);
        if (k % 2)
            shmem_getmem_nbi(got, heap + off, n, right), shmem_quiet();
        else if (k == 2)
            shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, got, heap + off, n, right),
                shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        else
            shmem_ctx_getmem(SHMEM_CTX_DEFAULT, got, heap + off, n, right);
        expect_filled(got, n, me, (int)k, "getmem");
        EXPECT(got[n] == 0, "getmem wrote past %zu bytes", n);
        shmem_barrier_all();
    }
    shmem_putmem(NULL, NULL, 0, right); /* zero bytes: no address is touched */
    shmem_getmem(NULL, NULL, 0, right);
    shmem_free(heap);
}

int main(void)
{
    shmem_init();
    test_neighbours();
#define RUN_TYPE(T, N) test_##N();
    SHMEM_RMA_TYPES(RUN_TYPE)
    test_sized_and_mem();
    shmem_finalize();
    return 0;
}
