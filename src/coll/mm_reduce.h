/**
 * @file mm_reduce.h
 * @brief Reduction kernels: acc[i] = acc[i] op in[i], for every meshmem type and operator.
 *
 * Half-precision types (float16, bfloat16) are widened to float, combined and rounded back
 * (round to nearest even), so every rank that combines the same inputs in the same order gets
 * the same bits.
 */
#ifndef MM_REDUCE_H
#define MM_REDUCE_H

#include "meshmem.h"

#include <stdbool.h>
#include <stddef.h>

/** @return true when @p op is defined on @p dtype (bitwise ops on integers only, ...). */
bool mm_reduce_supported(meshmem_dtype_t dtype, meshmem_op_t op);

/** @brief acc[i] = acc[i] op in[i] for i < count. The pair must be supported. */
void mm_reduce_apply(meshmem_dtype_t dtype, meshmem_op_t op, void *acc, const void *in,
                     size_t count);

/** @brief out[i] = a[i] op b[i] (out may alias a or b). */
void mm_reduce_apply3(meshmem_dtype_t dtype, meshmem_op_t op, void *out, const void *a,
                      const void *b, size_t count);

/** @return the name of @p op ("sum", ...). */
const char *mm_op_name(meshmem_op_t op);

/** @return the name of @p dtype ("int32", ...). */
const char *mm_dtype_name(meshmem_dtype_t dtype);

/** @brief float16 / bfloat16 conversions (round to nearest even). */
float mm_half_to_float(uint16_t h);
uint16_t mm_float_to_half(float f);
float mm_bf16_to_float(uint16_t h);
uint16_t mm_float_to_bf16(float f);

#endif /* MM_REDUCE_H */
