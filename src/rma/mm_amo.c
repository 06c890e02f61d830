/*
 * Atomic memory operations: hardware atomics on the peer's mapping. Every rank of the node
 * uses the same instructions on the same physical memory, so these are atomic with respect to
 * each other; they are sequentially consistent, which also orders them after earlier puts.
 */
#include "mm_core.h"
#include "mm_trace.h"

#include <string.h>

size_t meshmem_dtype_size(meshmem_dtype_t dtype)
{
    static const size_t sizes[MESHMEM_DTYPE_COUNT] = {
        [MESHMEM_INT8] = 1,    [MESHMEM_INT16] = 2,   [MESHMEM_INT32] = 4,
        [MESHMEM_INT64] = 8,   [MESHMEM_UINT8] = 1,   [MESHMEM_UINT16] = 2,
        [MESHMEM_UINT32] = 4,  [MESHMEM_UINT64] = 8,  [MESHMEM_FLOAT32] = 4,
        [MESHMEM_FLOAT64] = 8, [MESHMEM_FLOAT16] = 2, [MESHMEM_BFLOAT16] = 2,
        [MESHMEM_LONGDOUBLE] = sizeof(long double),           [MESHMEM_COMPLEXF] = 8,
        [MESHMEM_COMPLEXD] = 16};
    return (unsigned)dtype < MESHMEM_DTYPE_COUNT ? sizes[dtype] : 0;
}

/* integer AMO on an unsigned word of the type's size (two's complement makes add agree) */
#define MM_AMO_INT(T)                                                                              \
    static void mm_amo_##T(meshmem_amo_op_t op, T *p, T v, T c, T *f)                              \
    {                                                                                              \
        T old = 0;                                                                                 \
        switch (op) {                                                                              \
        case MESHMEM_AMO_FETCH: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                 \
        case MESHMEM_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;                     \
        case MESHMEM_AMO_SWAP: old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;           \
        case MESHMEM_AMO_CSWAP:                                                                    \
            old = c;                                                                               \
            __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
            break;                                                                                 \
        case MESHMEM_AMO_ADD: old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;             \
        case MESHMEM_AMO_AND: old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;             \
        case MESHMEM_AMO_OR: old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;               \
        case MESHMEM_AMO_XOR: old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;             \
        }                                                                                          \
        if (f)                                                                                     \
            *f = old;                                                                              \
    }
MM_AMO_INT(uint8_t)
MM_AMO_INT(uint16_t)
MM_AMO_INT(uint32_t)
MM_AMO_INT(uint64_t)
#undef MM_AMO_INT

meshmem_status_t meshmem_atomic(meshmem_amo_op_t op, meshmem_dtype_t dtype, void *dest,
                                const void *value, const void *cond, void *fetched, int rank)
{
    size_t size = meshmem_dtype_size(dtype);
    if (size == 0 || (unsigned)op > MESHMEM_AMO_XOR)
        return MESHMEM_ERR_ARG;
    if (dtype >= MESHMEM_LONGDOUBLE) /* no hardware atomics on these */
        return MESHMEM_ERR_ARG;
    bool is_float = dtype == MESHMEM_FLOAT32 || dtype == MESHMEM_FLOAT64 ||
                    dtype == MESHMEM_FLOAT16 || dtype == MESHMEM_BFLOAT16;
    /* floats: only fetch, set, swap, compare-swap, as the standard (bitwise on the word) */
    if (is_float && op != MESHMEM_AMO_FETCH && op != MESHMEM_AMO_SET && op != MESHMEM_AMO_SWAP &&
        op != MESHMEM_AMO_CSWAP)
        return MESHMEM_ERR_ARG;
    if (!mm_g.initialized)
        return MESHMEM_ERR_STATE;
    if ((unsigned)rank >= (unsigned)mm_g.nranks)
        return MESHMEM_ERR_RANK;
    if (!mm_is_symmetric(dest, size) || ((uintptr_t)dest & (size - 1)) != 0)
        return MESHMEM_ERR_NOT_SYMMETRIC;
    /* a fetch only reads; a fetching RMW is a round trip (famo), the others one way (amo) */
    MM_TRACE_SCOPE(op == MESHMEM_AMO_FETCH
                       ? mm_trace_p2p("get", size, rank, 0)
                       : mm_trace_p2p(fetched ? "famo" : "amo", size, rank, MM_TRACE_STORE));
    void *p = mm_xlate(dest, rank);
    uint64_t v = 0, c = 0;
    if (op != MESHMEM_AMO_FETCH)
        memcpy(&v, value, size);
    if (op == MESHMEM_AMO_CSWAP)
        memcpy(&c, cond, size);
    switch (size) {
    case 1: mm_amo_uint8_t(op, p, (uint8_t)v, (uint8_t)c, fetched); break;
    case 2: mm_amo_uint16_t(op, p, (uint16_t)v, (uint16_t)c, fetched); break;
    case 4: mm_amo_uint32_t(op, p, (uint32_t)v, (uint32_t)c, fetched); break;
    case 8: mm_amo_uint64_t(op, p, v, c, fetched); break;
    }
    if (op != MESHMEM_AMO_FETCH)
        mm_wake(rank);
    return MESHMEM_OK;
}
