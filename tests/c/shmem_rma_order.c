/*
 * OpenSHMEM ordering and completion of large transfers, the guarantees a program relies on
 * whatever path the bytes take (between hosts, puts and gets from MESHMEM_NET_AM_RMA_BYTES up
 * are active messages, below it UCX RMA; the host shapes of tests/CMakeLists.txt run this):
 *   - fence: a large put, fence, a small flag put; the reader that sees the flag sees the data;
 *     and a small put, fence, a large put to the same bytes: the large one's value stays;
 *   - put_signal of large data: the signal arrives after the data;
 *   - many large put_nbi then one quiet: all delivered; many large get_nbi then quiet: all here;
 *   - a large put into static data (the other registered region), and a get of it back;
 *   - sizes on both sides of the threshold (8 KiB by default), odd and unaligned.
 * Every PE works with its right neighbour.
 */
#include "shmem_test.h"

#include <stdint.h>
#include <string.h>

#define BIG    (1u << 20)
#define NBI    8
#define NBI_SZ (96u << 10)

static unsigned char static_area[BIG + 64]; /* static data: remapped, symmetric */
static uint64_t flag, sig;

static unsigned char pattern(int pe, size_t i, int salt)
{
    return (unsigned char)((size_t)pe * 31 + i * 7 + (size_t)salt * 13 + (i >> 9));
}

static void fill(unsigned char *p, size_t n, int pe, int salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pattern(pe, i, salt);
}

static void expect_pattern(const unsigned char *p, size_t n, int pe, int salt, const char *what)
{
    for (size_t i = 0; i < n; i++)
        EXPECT(p[i] == pattern(pe, i, salt), "%s: byte %zu of %zu is %u, expected %u", what, i, n,
               p[i], pattern(pe, i, salt));
}

/* one round's start: the target and its word cleared, @p n source bytes filled, then a barrier
 * (the neighbour writes only after this rank has cleared) */
static void start_round(unsigned char *heap, uint64_t *word, unsigned char *src, size_t n, int salt)
{
    memset(heap, 0, BIG + 64);
    *word = 0;
    fill(src, n, me, salt);
    shmem_barrier_all();
}

/* a large put, fence, then the flag: the neighbour that sees the flag sees all the data */
static void test_fence_orders_put_before_flag(unsigned char *heap, unsigned char *src)
{
    const size_t sizes[] = {8191, 8192, 65539, BIG};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        start_round(heap, &flag, src, n, (int)k);
        shmem_putmem(heap + 3, src, n, right);
        shmem_fence();
        uint64_t one = k + 1;
        shmem_putmem(&flag, &one, sizeof one, right);
        shmem_uint64_wait_until(&flag, SHMEM_CMP_EQ, k + 1);
        expect_pattern(heap + 3, n, left, (int)k, "data before the fenced flag");
        shmem_barrier_all();
    }
}

/* a small put, fence, a large put over the same bytes: the large put's bytes stay */
static void test_fence_orders_small_before_large(unsigned char *heap, unsigned char *src)
{
    unsigned char small[64];
    memset(small, 0xEE, sizeof small);
    fill(src, BIG, me, 40);
    shmem_barrier_all();
    shmem_putmem(heap, small, sizeof small, right);
    shmem_fence();
    shmem_putmem_nbi(heap, src, BIG, right);
    shmem_quiet();
    shmem_barrier_all();
    expect_pattern(heap, BIG, left, 40, "large put after a fenced small one");
    shmem_barrier_all();
}

/* put_signal: a neighbour waiting on the signal reads all the data */
static void test_put_signal_large(unsigned char *heap, unsigned char *src)
{
    const size_t sizes[] = {100, 8192, 300001, BIG};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        start_round(heap, &sig, src, n, 50 + (int)k);
        shmem_putmem_signal(heap + 1, src, n, &sig, k + 1, SHMEM_SIGNAL_SET, right);
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, k + 1);
        expect_pattern(heap + 1, n, left, 50 + (int)k, "data before its signal");
        shmem_barrier_all();
    }
}

/* NBI large puts then one quiet; NBI large gets then one quiet */
static void test_many_nbi(unsigned char *heap, unsigned char *src)
{
    memset(heap, 0, BIG + 64);
    fill(src, NBI * NBI_SZ, me, 60);
    shmem_barrier_all();
    for (int i = 0; i < NBI; i++)
        shmem_putmem_nbi(heap + (size_t)i * NBI_SZ, src + (size_t)i * NBI_SZ, NBI_SZ, right);
    shmem_quiet();
    shmem_barrier_all();
    expect_pattern(heap, NBI * NBI_SZ, left, 60, "put_nbi x8 then quiet");
    unsigned char *got = malloc(NBI * NBI_SZ);
    EXPECT(got != NULL, "out of memory");
    memset(got, 0, NBI * NBI_SZ);
    for (int i = NBI - 1; i >= 0; i--) /* backwards: completion is no matter of order */
        shmem_getmem_nbi(got + (size_t)i * NBI_SZ, heap + (size_t)i * NBI_SZ, NBI_SZ, right);
    shmem_quiet();
    expect_pattern(got, NBI * NBI_SZ, me, 60, "get_nbi x8 then quiet");
    free(got);
    shmem_barrier_all();
}

/* static data, the other registered region: a large put there and a get back */
static void test_static_region(unsigned char *src)
{
    memset(static_area, 0, sizeof static_area);
    fill(src, BIG, me, 70);
    shmem_barrier_all();
    shmem_putmem(static_area + 17, src, BIG, right);
    shmem_barrier_all(); /* a barrier completes puts (quiet) */
    expect_pattern(static_area + 17, BIG, left, 70, "put into static data");
    unsigned char *got = malloc(BIG);
    EXPECT(got != NULL, "out of memory");
    shmem_getmem(got, static_area + 17, BIG, right);
    expect_pattern(got, BIG, me, 70, "get from static data");
    EXPECT(static_area[16] == 0 && static_area[17 + BIG] == 0, "put outside its bytes");
    free(got);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    test_neighbours();
    unsigned char *heap = shmem_malloc(BIG + 64);
    unsigned char *src = malloc(NBI * NBI_SZ > BIG ? NBI * NBI_SZ : BIG);
    EXPECT(heap != NULL && src != NULL, "out of memory");
    test_fence_orders_put_before_flag(heap, src);
    test_fence_orders_small_before_large(heap, src);
    test_put_signal_large(heap, src);
    test_many_nbi(heap, src);
    test_static_region(src);
    free(src);
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
