/* Unit tests of small pieces: wrap-safe sequence compare, size parsing, the most square grid,
 * half precision, reduction kernels, the shared-memory transport's copy, collectives' tags. */
#include "mm_config.h"
#include "mm_core.h"
#include "mm_grid.h"
#include "mm_reduce.h"
#include "mm_shm_ops.h"
#include "mm_team.h"
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
    CHECK(mm_parse_size("nan", &v) == -1 &&
          mm_parse_size("inf", &v) == -1); /* found by config_fuzz */
    /* what the applications' counts and meshrun's --heap accepted: one syntax for all */
    CHECK(mm_parse_size("2^24", &v) == 0 && v == 1LL << 24);
    CHECK(mm_parse_size("2^10K", &v) == 0 && v == 1LL << 20);
    CHECK(mm_parse_size("2^62", &v) == 0 && v == 1LL << 62);
    CHECK(mm_parse_size("2^63", &v) == -1 && mm_parse_size("2^", &v) == -1);
    CHECK(mm_parse_size("3^4", &v) == -1 && mm_parse_size("2^-1", &v) == -1);
    CHECK(mm_parse_size("16m", &v) == 0 && v == 16LL << 20);
    CHECK(mm_parse_size("16MB", &v) == 0 && v == 16LL << 20);
    CHECK(mm_parse_size("64 K", &v) == 0 && v == 65536);
    CHECK(mm_parse_size(" 8", &v) == 0 && v == 8);
    CHECK(mm_parse_size("8B", &v) == 0 && v == 8);
    CHECK(mm_parse_size("0x10", &v) == 0 && v == 16);
    CHECK(mm_parse_size("1e3", &v) == 0 && v == 1000);
    CHECK(mm_parse_size("0", &v) == 0 && v == 0);
    /* integers stay exact past a double's 53 bits */
    CHECK(mm_parse_size("9007199254740993", &v) == 0 && v == 9007199254740993LL);
    CHECK(mm_parse_size("9223372036854775807", &v) == 0 && v == INT64_MAX);
    CHECK(mm_parse_size("9223372036854775808", &v) == -1);
    CHECK(mm_parse_size("8388607T", &v) == 0 && v == 8388607LL << 40);
    CHECK(mm_parse_size("8388608T", &v) == -1); /* 2^63: past INT64_MAX */
    CHECK(mm_parse_size("8388608.0T", &v) == -1);
    CHECK(mm_parse_size(mm_format_size(buf, sizeof buf, INT64_MAX), &v) == 0 && v == INT64_MAX);
    /* not sizes: a unit alone, an i without a unit, two units, stray characters */
    CHECK(mm_parse_size("K", &v) == -1 && mm_parse_size("5i", &v) == -1);
    CHECK(mm_parse_size("4KK", &v) == -1 && mm_parse_size("4K x", &v) == -1);
    CHECK(mm_parse_size(" 4K ", &v) == 0 && v == 4096);
    CHECK(mm_parse_size("4,5", &v) == -1 && mm_parse_size("-1K", &v) == -1);
    v = 7;
    CHECK(mm_parse_size("bad", &v) == -1 && v == 7); /* *out untouched */
}

static void test_grid(void)
{
    static const int want[][3] = {{1, 1, 1},  {2, 2, 1},   {3, 3, 1},     {4, 2, 2},  {6, 3, 2},
                                  {7, 7, 1},  {8, 4, 2},   {12, 4, 3},    {16, 4, 4}, {18, 6, 3},
                                  {36, 6, 6}, {97, 97, 1}, {1000, 40, 25}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int l = 0, s = 0;
        mm_grid_most_square(want[i][0], &l, &s);
        CHECK(l == want[i][1] && s == want[i][2]);
    }
    for (int n = 1; n <= 4096; n++) { /* the definition: the largest divisor at most sqrt(n) */
        int l, s;
        mm_grid_most_square(n, &l, &s);
        CHECK(l * s == n && s <= l && n % s == 0);
        for (int d = s + 1; d * d <= n; d++)
            CHECK(n % d != 0);
    }
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
    CHECK(mm_float_to_half(1e6f) == 0x7c00);               /* overflow to inf */
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

/* mm_copy at every size around its inline forms (1-3, 4-7, 8-16 bytes) and past them, at
 * every misalignment of source and destination: exactly the n bytes, none around them */
static void test_copy(void)
{
    unsigned char src[64], dst[80];
    for (size_t n = 0; n <= 40; n++)
        for (size_t so = 0; so < 8; so++)
            for (size_t doff = 0; doff < 8; doff++) {
                for (size_t i = 0; i < sizeof src; i++)
                    src[i] = (unsigned char)(i * 7 + n + 1);
                memset(dst, 0xA5, sizeof dst);
                mm_copy(dst + 8 + doff, src + so, n);
                for (size_t i = 0; i < sizeof dst; i++) {
                    bool inside = i >= 8 + doff && i < 8 + doff + n;
                    unsigned char want = inside ? src[so + i - 8 - doff] : 0xA5;
                    CHECK(dst[i] == want);
                }
            }
}

/* a collective's tag holds its root whole: two roots of a team of up to the world's size (and
 * far beyond) never share a tag, though the 16 bits a line's header carries may be equal */
static void test_call_tags(void)
{
    meshmem_dtype_t ty = MESHMEM_INT64;
    meshmem_op_t op = MESHMEM_OP_SUM;
    unsigned r0 = MM_CALL_TAG(MM_CALL_REDUCE, MM_CALL_ROOT_OP(0, ty, op));
    unsigned r32 = MM_CALL_TAG(MM_CALL_REDUCE, MM_CALL_ROOT_OP(32, ty, op));
    CHECK(r0 != r32 && (r0 & 0xffffu) == (r32 & 0xffffu)); /* the header's bits alike */
    unsigned b0 = MM_CALL_TAG(MM_CALL_BCAST, 0), b4096 = MM_CALL_TAG(MM_CALL_BCAST, 4096);
    CHECK(b0 != b4096 && (b0 & 0xffffu) == (b4096 & 0xffffu));
    for (unsigned root = 0; root < (1u << 20); root += root < 8192 ? 1 : 4099) {
        unsigned rt = MM_CALL_TAG(MM_CALL_REDUCE, MM_CALL_ROOT_OP(root, ty, op));
        CHECK(MM_CALL_KIND(rt) == MM_CALL_REDUCE && MM_CALL_ARG(rt) >> 7 == root);
        CHECK((MM_CALL_ARG(rt) & 0x7fu) == MM_CALL_OP(ty, op) && !(rt & MM_CALL_TAG_PARTIAL));
        unsigned bt = MM_CALL_TAG(MM_CALL_BCAST, root);
        CHECK(MM_CALL_KIND(bt) == MM_CALL_BCAST && MM_CALL_ARG(bt) == root);
        CHECK(!(bt & MM_CALL_TAG_PARTIAL));
    }
    /* every operator and type beside every root of a 4096-rank world: no two tags alike */
    static uint8_t seen[1u << 24 >> 3];
    for (unsigned root = 0; root < 4096; root++)
        for (unsigned o = 0; o < MESHMEM_OP_COUNT; o++)
            for (unsigned d = 0; d < MESHMEM_DTYPE_COUNT; d++) {
                unsigned t = MM_CALL_TAG(MM_CALL_REDUCE, MM_CALL_ROOT_OP(root, d, o));
                unsigned k = (t & 0xffffu) | (t >> 16 & 0xffu) << 16; /* root < 2^13 */
                CHECK(t >> 24 == 0 && !(seen[k >> 3] & (1u << (k & 7))));
                seen[k >> 3] |= (uint8_t)(1u << (k & 7));
            }
}

int main(void)
{
    test_seq();
    test_sizes();
    test_grid();
    test_half();
    test_kernels();
    test_copy();
    test_call_tags();
    return 0;
}
