/* Reduction kernels for every type x operator (see mm_reduce.h), generated from one table. */
#include "mm_reduce.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

const char *mm_op_name(meshmem_op_t op)
{
    static const char *n[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
    return (unsigned)op < MESHMEM_OP_COUNT ? n[op] : "?";
}

const char *mm_dtype_name(meshmem_dtype_t t)
{
    static const char *n[] = {"int8",    "int16",    "int32",      "int64",    "uint8",
                              "uint16",  "uint32",   "uint64",     "float32",  "float64",
                              "float16", "bfloat16", "longdouble", "complexf", "complexd"};
    return (unsigned)t < MESHMEM_DTYPE_COUNT ? n[t] : "?";
}

bool mm_reduce_supported(meshmem_dtype_t t, meshmem_op_t op)
{
    if ((unsigned)t >= MESHMEM_DTYPE_COUNT || (unsigned)op >= MESHMEM_OP_COUNT)
        return false;
    bool integer = t <= MESHMEM_UINT64;
    if (op == MESHMEM_OP_AND || op == MESHMEM_OP_OR || op == MESHMEM_OP_XOR)
        return integer;
    if (t == MESHMEM_COMPLEXF || t == MESHMEM_COMPLEXD)
        return op == MESHMEM_OP_SUM || op == MESHMEM_OP_PROD;
    if (t == MESHMEM_FLOAT16 || t == MESHMEM_BFLOAT16) /* ACCL's half-precision set */
        return op != MESHMEM_OP_PROD;
    return true;
}

/* ---- half precision ---- */
float mm_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) {
                man <<= 1;
                exp--;
            }
            bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000 | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t mm_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t man = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff) /* inf / nan */
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)exp << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++; /* may carry into the exponent: still correct rounding */
    return (uint16_t)half;
}

float mm_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t mm_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7f800000) == 0x7f800000 && (x & 0x7fffff))
        return (uint16_t)((x >> 16) | 0x40); /* quiet nan */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* ---- kernels ---- */
#define MM_OP_SUM(a, b)  ((a) + (b))
#define MM_OP_PROD(a, b) ((a) * (b))
#define MM_OP_MIN(a, b)  ((b) < (a) ? (b) : (a))
#define MM_OP_MAX(a, b)  ((b) > (a) ? (b) : (a))
#define MM_OP_AND(a, b)  ((a) & (b))
#define MM_OP_OR(a, b)   ((a) | (b))
#define MM_OP_XOR(a, b)  ((a) ^ (b))

#define MM_KERNEL(T, OPNAME)                                                                       \
    static void mm_k_##T##_##OPNAME(void *o_, const void *a_, const void *b_, size_t n)            \
    {                                                                                              \
        T *o = o_;                                                                                 \
        const T *a = a_, *b = b_;                                                                  \
        for (size_t i = 0; i < n; i++)                                                             \
            o[i] = (T)MM_OP_##OPNAME(a[i], b[i]);                                                  \
    }

/*
 * The arithmetic and bitwise operators on 16-byte vectors (GCC vector extensions): GCC 12 at
 * -O2 vectorises no loop of unknown length, and the reductions run at memory speed only when
 * vectorised. Element-wise, each result is the scalar operator's (IEEE, no reassociation), so
 * results stay bitwise identical to the scalar loop. A chunk is loaded before it is stored:
 * out may be a or b, as the scalar kernel allows.
 */
#define MM_KERNEL_VEC(T, OPNAME, SYM)                                                              \
    static void mm_k_##T##_##OPNAME(void *o_, const void *a_, const void *b_, size_t n)            \
    {                                                                                              \
        typedef T v_t __attribute__((vector_size(16)));                                            \
        enum { L = 16 / sizeof(T) };                                                               \
        T *o = o_;                                                                                 \
        const T *a = a_, *b = b_;                                                                  \
        size_t i = 0;                                                                              \
        for (; i + 2 * L <= n; i += 2 * L) {                                                       \
            v_t x0, x1, y0, y1;                                                                    \
            memcpy(&x0, a + i, 16);                                                                \
            memcpy(&x1, a + i + L, 16);                                                            \
            memcpy(&y0, b + i, 16);                                                                \
            memcpy(&y1, b + i + L, 16);                                                            \
            x0 = x0 SYM y0;                                                                        \
            x1 = x1 SYM y1;                                                                        \
            memcpy(o + i, &x0, 16);                                                                \
            memcpy(o + i + L, &x1, 16);                                                            \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            o[i] = (T)(a[i] SYM b[i]);                                                             \
    }

/* clang-format off */
#define MM_KERNELS_INT(T)                                                                          \
    MM_KERNEL_VEC(T, SUM, +) MM_KERNEL_VEC(T, PROD, *) MM_KERNEL(T, MIN) MM_KERNEL(T, MAX)         \
    MM_KERNEL_VEC(T, AND, &) MM_KERNEL_VEC(T, OR, |) MM_KERNEL_VEC(T, XOR, ^)
#define MM_KERNELS_FLOAT(T)                                                                        \
    MM_KERNEL_VEC(T, SUM, +) MM_KERNEL_VEC(T, PROD, *) MM_KERNEL(T, MIN) MM_KERNEL(T, MAX)

typedef long double longdouble;
typedef float _Complex complexf;
typedef double _Complex complexd;

MM_KERNELS_INT(int8_t)
MM_KERNELS_INT(int16_t)
MM_KERNELS_INT(int32_t)
MM_KERNELS_INT(int64_t)
MM_KERNELS_INT(uint8_t)
MM_KERNELS_INT(uint16_t)
MM_KERNELS_INT(uint32_t)
MM_KERNELS_INT(uint64_t)
MM_KERNELS_FLOAT(float)
MM_KERNELS_FLOAT(double)
MM_KERNEL(longdouble, SUM) /* no 16-byte vector of long double */
MM_KERNEL(longdouble, PROD)
MM_KERNEL(longdouble, MIN)
MM_KERNEL(longdouble, MAX)
MM_KERNEL(complexf, SUM)
MM_KERNEL(complexf, PROD)
MM_KERNEL(complexd, SUM)
MM_KERNEL(complexd, PROD)

#define MM_KERNEL_HALF(NAME, TOF, FROMF, OPNAME)                                                   \
    static void mm_k_##NAME##_##OPNAME(void *o_, const void *a_, const void *b_, size_t n)         \
    {                                                                                              \
        uint16_t *o = o_;                                                                          \
        const uint16_t *a = a_, *b = b_;                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            float x = TOF(a[i]), y = TOF(b[i]);                                                    \
            o[i] = FROMF(MM_OP_##OPNAME(x, y));                                                    \
        }                                                                                          \
    }
MM_KERNEL_HALF(f16, mm_half_to_float, mm_float_to_half, SUM)
MM_KERNEL_HALF(f16, mm_half_to_float, mm_float_to_half, MIN)
MM_KERNEL_HALF(f16, mm_half_to_float, mm_float_to_half, MAX)
MM_KERNEL_HALF(bf16, mm_bf16_to_float, mm_float_to_bf16, SUM)
MM_KERNEL_HALF(bf16, mm_bf16_to_float, mm_float_to_bf16, MIN)
MM_KERNEL_HALF(bf16, mm_bf16_to_float, mm_float_to_bf16, MAX)

typedef void (*mm_kernel_t)(void *, const void *, const void *, size_t);

#define MM_ROW_INT(T)                                                                              \
    {mm_k_##T##_SUM, mm_k_##T##_PROD, mm_k_##T##_MIN, mm_k_##T##_MAX,                              \
     mm_k_##T##_AND, mm_k_##T##_OR,   mm_k_##T##_XOR}
#define MM_ROW_FLOAT(T) {mm_k_##T##_SUM, mm_k_##T##_PROD, mm_k_##T##_MIN, mm_k_##T##_MAX}
#define MM_ROW_HALF(T)  {mm_k_##T##_SUM, NULL, mm_k_##T##_MIN, mm_k_##T##_MAX}

static const mm_kernel_t mm_kernels[MESHMEM_DTYPE_COUNT][MESHMEM_OP_COUNT] = {
    [MESHMEM_INT8] = MM_ROW_INT(int8_t),       [MESHMEM_INT16] = MM_ROW_INT(int16_t),
    [MESHMEM_INT32] = MM_ROW_INT(int32_t),     [MESHMEM_INT64] = MM_ROW_INT(int64_t),
    [MESHMEM_UINT8] = MM_ROW_INT(uint8_t),     [MESHMEM_UINT16] = MM_ROW_INT(uint16_t),
    [MESHMEM_UINT32] = MM_ROW_INT(uint32_t),   [MESHMEM_UINT64] = MM_ROW_INT(uint64_t),
    [MESHMEM_FLOAT32] = MM_ROW_FLOAT(float),   [MESHMEM_FLOAT64] = MM_ROW_FLOAT(double),
    [MESHMEM_FLOAT16] = MM_ROW_HALF(f16),      [MESHMEM_BFLOAT16] = MM_ROW_HALF(bf16),
    [MESHMEM_LONGDOUBLE] = MM_ROW_FLOAT(longdouble),
    [MESHMEM_COMPLEXF] = {mm_k_complexf_SUM, mm_k_complexf_PROD},
    [MESHMEM_COMPLEXD] = {mm_k_complexd_SUM, mm_k_complexd_PROD},
};
/* clang-format on */

void mm_reduce_apply3(meshmem_dtype_t dtype, meshmem_op_t op, void *out, const void *a,
                      const void *b, size_t count)
{
    mm_kernels[dtype][op](out, a, b, count);
}

void mm_reduce_apply(meshmem_dtype_t dtype, meshmem_op_t op, void *acc, const void *in,
                     size_t count)
{
    mm_kernels[dtype][op](acc, acc, in, count);
}
