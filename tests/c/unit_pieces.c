/* Unit tests of small pieces: wrap-safe sequence compare, size parsing, half precision,
 * reduction kernels. */
#include "mm_config.h"
#include "mm_core.h"
#include "mm_reduce.h"
#include "mm_test.h"

#include <complex.h>
#include <math.h>
#include <string.h>

int mm_test_rank_hint = 0;

static void test_seq(void)
{
    /* sequence numbers never reset: the compare must survive wrap-around */
    uint64_t near_wrap = UINT64_MAX - 2;
    CHECK(mm_seq_reached(near_wrap, near_wrap));
    CHECK(mm_seq_reached(near_wrap + 1, near_wrap));
    CHECK(mm_seq_reached(near_wrap + 5, near_wrap)); /* wrapped past zero */
    CHECK(!mm_seq_reached(near_wrap, near_wrap + 5));
    CHECK(!mm_seq_reached(0, 1));
    CHECK(mm_seq_reached(1, 0));
}

static void test_sizes(void)
{
    int64_t v;
    CHECK(mm_parse_size("64", &v) == 0 && v == 64);
    CHECK(mm_parse_size("4K", &v) == 0 && v == 4096);
    CHECK(mm_parse_size("256M", &v) == 0 && v == 256LL << 20);
    CHECK(mm_parse_size("1G", &v) == 0 && v == 1LL << 30);
    CHECK(mm_parse_size("2MiB", &v) == 0 && v == 2LL << 20);
    CHECK(mm_parse_size("1.5k", &v) == 0 && v == 1536);
    CHECK(mm_parse_size("12Q", &v) == -1);
    CHECK(mm_parse_size("", &v) == -1);
    char buf[24];
    CHECK(!strcmp(mm_format_size(buf, sizeof buf, 8), "8"));
    CHECK(!strcmp(mm_format_size(buf, sizeof buf, 64 << 10), "64K"));
    CHECK(!strcmp(mm_format_size(buf, sizeof buf, 40ULL << 30), "40G"));
    CHECK(!strcmp(mm_format_size(buf, sizeof buf, 1536ULL << 20), "1.5G"));
    CHECK(mm_parse_size(mm_format_size(buf, sizeof buf, 3ULL << 40), &v) == 0 && v == 3LL << 40);
    CHECK(mm_parse_size("-5", &v) == -1);
    CHECK(mm_parse_size("nan", &v) == -1 && mm_parse_size("inf", &v) == -1); /* found by config_fuzz */
}

static void test_half(void)
{
    /* every finite float16 survives a round trip through float */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue; /* inf / nan */
        CHECK(mm_float_to_half(mm_half_to_float((uint16_t)h)) == h);
    }
    CHECK(mm_half_to_float(0x3c00) == 1.0f);
    CHECK(mm_float_to_half(65504.0f) == 0x7bff);
    CHECK(mm_float_to_half(1e6f) == 0x7c00); /* overflow to inf */
    CHECK(mm_float_to_half(1.0f + 1.0f / 2048) == 0x3c00); /* tie rounds to even */
    CHECK(mm_bf16_to_float(mm_float_to_bf16(3.0f)) == 3.0f);
    CHECK(mm_float_to_bf16(1.0f) == 0x3f80);
    CHECK(isnan(mm_bf16_to_float(mm_float_to_bf16(NAN))));
}

static void test_kernels(void)
{
    int32_t a[5] = {1, -2, 3, 4, 5}, b[5] = {10, 20, -30, 40, 50};
    mm_reduce_apply(MESHMEM_INT32, MESHMEM_OP_SUM, a, b, 5);
    CHECK(a[0] == 11 && a[1] == 18 && a[2] == -27);
    mm_reduce_apply(MESHMEM_INT32, MESHMEM_OP_MIN, a, b, 5);
    CHECK(a[2] == -30 && a[0] == 10);
    uint16_t h1[2] = {mm_float_to_half(1.5f), mm_float_to_half(-2.0f)};
    uint16_t h2[2] = {mm_float_to_half(2.25f), mm_float_to_half(8.0f)};
    mm_reduce_apply(MESHMEM_FLOAT16, MESHMEM_OP_SUM, h1, h2, 2);
    CHECK(mm_half_to_float(h1[0]) == 3.75f && mm_half_to_float(h1[1]) == 6.0f);
    CHECK(mm_reduce_supported(MESHMEM_UINT8, MESHMEM_OP_XOR));
    CHECK(!mm_reduce_supported(MESHMEM_FLOAT32, MESHMEM_OP_XOR));
    CHECK(!mm_reduce_supported(MESHMEM_FLOAT16, MESHMEM_OP_PROD));
    CHECK(!mm_reduce_supported(MESHMEM_COMPLEXD, MESHMEM_OP_MAX));
    double _Complex c1[1] = {1.0 + 2.0 * I}, c2[1] = {3.0 - 1.0 * I};
    mm_reduce_apply(MESHMEM_COMPLEXD, MESHMEM_OP_PROD, c1, c2, 1);
    CHECK(creal(c1[0]) == 5.0 && cimag(c1[0]) == 5.0);
}

int main(void)
{
    test_seq();
    test_sizes();
    test_half();
    test_kernels();
    return 0;
}
