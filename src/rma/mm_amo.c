/*
 * Atomic memory operations of the native API, through the transport interface (mm_tp_amo):
 * hardware atomics on the peer's mapping for a peer of the node, the network transport's
 * atomics for a peer on another host. Sequentially consistent, which also orders them after
 * earlier puts.
 */
#include "mm_tp.h"
#include "mm_trace.h"

#include <string.h>

size_t meshmem_dtype_size(meshmem_dtype_t dtype)
{
    static const size_t sizes[MESHMEM_DTYPE_COUNT] = {[MESHMEM_INT8] = 1,
                                                      [MESHMEM_INT16] = 2,
                                                      [MESHMEM_INT32] = 4,
                                                      [MESHMEM_INT64] = 8,
                                                      [MESHMEM_UINT8] = 1,
                                                      [MESHMEM_UINT16] = 2,
                                                      [MESHMEM_UINT32] = 4,
                                                      [MESHMEM_UINT64] = 8,
                                                      [MESHMEM_FLOAT32] = 4,
                                                      [MESHMEM_FLOAT64] = 8,
                                                      [MESHMEM_FLOAT16] = 2,
                                                      [MESHMEM_BFLOAT16] = 2,
                                                      [MESHMEM_LONGDOUBLE] = sizeof(long double),
                                                      [MESHMEM_COMPLEXF] = 8,
                                                      [MESHMEM_COMPLEXD] = 16};
    return (unsigned)dtype < MESHMEM_DTYPE_COUNT ? sizes[dtype] : 0;
}

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
    uint64_t v = 0, c = 0, old = 0;
    if (op != MESHMEM_AMO_FETCH)
        memcpy(&v, value, size);
    if (op == MESHMEM_AMO_CSWAP)
        memcpy(&c, cond, size);
    mm_tp_amo(rank, dest, op, size, v, c, fetched ? &old : NULL);
    if (fetched)
        memcpy(fetched, &old, size); /* little endian: the word's bytes come first */
    return MESHMEM_OK;
}
