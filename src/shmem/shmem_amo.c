/*
 * OpenSHMEM atomic memory operations (1.5 section 9.8) and the deprecated 1.4 names.
 *
 * To a PE of the node an AMO is one hardware atomic (sequentially consistent) on the peer's
 * copy of the target, which every PE of the node maps: atomic with respect to every other PE's
 * AMOs, ordered after this PE's earlier puts, and a full fence for the sleeper check of
 * mm_wake (mm_wait.h). Float and double (Table 7: fetch, set, swap) use the generic __atomic
 * builtins on their bytes. To a PE on another host it is the transport's AMO (mm_tp_amo), the
 * one the native meshmem_atomic calls. The _nbi forms complete immediately and store the
 * fetched value in *fetch.
 */
#include "mm_tp.h"
#include "mm_trace.h"
#include "shmem_internal.h"

#include <string.h>

/* translate an AMO target: symmetric and naturally aligned (an unaligned atomic is not one);
 * NULL for a PE on another host */
SHMEMI_INLINE void *shmemi_amo_xlate(const char *call, const char *what, const void *addr,
                                     size_t size, int pe)
{
    void *p = shmemi_xlate(call, what, addr, size, pe);
    if (MM_UNLIKELY(((uintptr_t)addr & (size - 1)) != 0))
        mm_fatal("%s: %s argument (%p) is not aligned to its %zu-byte type", call, what, addr,
                 size);
    return p;
}

#define SHMEMI_SC __ATOMIC_SEQ_CST

/* the AMO @p OP on symmetric @p ADDR of a PE on another host, through the transport (operand
 * V, condition C; both and the result as the word's bits): @return the old value */
#define SHMEMI_AMO_NET(OP, T, PE, ADDR, V, C)                                                      \
    ({                                                                                             \
        T v_ = (V), c_ = (C), r_;                                                                  \
        uint64_t vb_ = 0, cb_ = 0, ob_ = 0;                                                        \
        memcpy(&vb_, &v_, sizeof(T));                                                              \
        memcpy(&cb_, &c_, sizeof(T));                                                              \
        mm_tp_amo(PE, (void *)(ADDR), OP, sizeof(T), vb_, cb_, &ob_);                              \
        memcpy(&r_, &ob_, sizeof(T));                                                              \
        r_;                                                                                        \
    })

/* ---- bodies: BODY(CALL, T, PE); RESULT_ is the fetched value ---- */

/* KIND names the operation for the trace: amo (one way) or famo (a round trip) */
#define SHMEMI_AMO_TARGET_AS(KIND, CALL, T, PE)                                                    \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p(KIND, sizeof(T), world_, MM_TRACE_STORE));                         \
    T *target_ = shmemi_amo_xlate(CALL, "dest", dest, sizeof(T), world_)
#define SHMEMI_AMO_TARGET(CALL, T, PE) SHMEMI_AMO_TARGET_AS("amo", CALL, T, PE)

/* the value of source at PE, one atomic load (or the transport's fetch) */
#define SHMEMI_FETCH_VALUE(CALL, T, PE)                                                            \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p("get", sizeof(T), world_, 0));                                     \
    const T *from_ = shmemi_amo_xlate(CALL, "source", source, sizeof(T), world_);                  \
    T result_;                                                                                     \
    if (MM_LIKELY(from_ != NULL))                                                                  \
        __atomic_load(from_, &result_, SHMEMI_SC);                                                 \
    else                                                                                           \
        result_ = SHMEMI_AMO_NET(MESHMEM_AMO_FETCH, T, world_, source, (T)0, (T)0)
#define SHMEMI_FETCH_BODY(CALL, T, PE)                                                             \
    SHMEMI_FETCH_VALUE(CALL, T, PE);                                                               \
    return result_
#define SHMEMI_FETCH_NBI_BODY(CALL, T, PE)                                                         \
    SHMEMI_FETCH_VALUE(CALL, T, PE);                                                               \
    *fetch = result_
#define SHMEMI_SET_BODY(CALL, T, PE)                                                               \
    SHMEMI_AMO_TARGET(CALL, T, PE);                                                                \
    if (MM_LIKELY(target_ != NULL)) {                                                              \
        __atomic_store(target_, &value, SHMEMI_SC);                                                \
        mm_wake_local(world_);                                                                           \
    } else {                                                                                       \
        (void)SHMEMI_AMO_NET(MESHMEM_AMO_SET, T, world_, dest, value, (T)0);                       \
    }

/* a read-modify-write: RESULT_ = EXPR on target_ (then wake the owner), or the transport's
 * OP with operand V and condition C for a PE on another host */
#define SHMEMI_RMW_AS(KIND, CALL, T, PE, EXPR, OP, V, C)                                           \
    SHMEMI_AMO_TARGET_AS(KIND, CALL, T, PE);                                                       \
    T result_;                                                                                     \
    if (MM_LIKELY(target_ != NULL)) {                                                              \
        EXPR;                                                                                      \
        mm_wake_local(world_);                                                                           \
    } else {                                                                                       \
        result_ = SHMEMI_AMO_NET(OP, T, world_, dest, V, C);                                       \
    }                                                                                              \
    (void)result_ /* the non-fetching forms */
#define SHMEMI_RMW(CALL, T, PE, EXPR, OP, V) SHMEMI_RMW_AS("amo", CALL, T, PE, EXPR, OP, V, (T)0)

#define SHMEMI_SWAP_EXPR(T) __atomic_exchange(target_, &value, &result_, SHMEMI_SC)
#define SHMEMI_CSWAP_EXPR(T)                                                                       \
    result_ = cond;                                                                                \
    __atomic_compare_exchange(target_, &result_, &value, false, SHMEMI_SC, SHMEMI_SC)

/* the returning form, the _nbi form and the non-fetching form of one RMW expression */
#define SHMEMI_RMW_RET(CALL, T, PE, EXPR, OP, V, C)                                                \
    SHMEMI_RMW_AS("famo", CALL, T, PE, EXPR, OP, V, C);                                            \
    return result_
#define SHMEMI_RMW_NBI(CALL, T, PE, EXPR, OP, V, C)                                                \
    SHMEMI_RMW_AS("famo", CALL, T, PE, EXPR, OP, V, C);                                            \
    *fetch = result_

#define SHMEMI_SWAP_BODY(CALL, T, PE)                                                              \
    SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_SWAP_EXPR(T), MESHMEM_AMO_SWAP, value, (T)0)
#define SHMEMI_SWAP_NBI_BODY(CALL, T, PE)                                                          \
    SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_SWAP_EXPR(T), MESHMEM_AMO_SWAP, value, (T)0)
#define SHMEMI_CSWAP_BODY(CALL, T, PE)                                                             \
    SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_CSWAP_EXPR(T), MESHMEM_AMO_CSWAP, value, cond)
#define SHMEMI_CSWAP_NBI_BODY(CALL, T, PE)                                                         \
    SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_CSWAP_EXPR(T), MESHMEM_AMO_CSWAP, value, cond)

#define SHMEMI_FETCH_OP_EXPR(OP, V) result_ = __atomic_fetch_##OP(target_, V, SHMEMI_SC)
/* FOP: the fetching form of a fetch-op (RET or NBI), of builtin OP, meshmem op MOP, operand V */
#define SHMEMI_FOP(FORM, CALL, T, PE, OP, MOP, V)                                                  \
    SHMEMI_RMW_##FORM(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(OP, V), MOP, V, (T)0)
#define SHMEMI_NOP(CALL, T, PE, OP, MOP, V)                                                        \
    SHMEMI_RMW(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(OP, V), MOP, V)

#define SHMEMI_FINC_BODY(CALL, T, PE)      SHMEMI_FOP(RET, CALL, T, PE, add, MESHMEM_AMO_ADD, 1)
#define SHMEMI_FINC_NBI_BODY(CALL, T, PE)  SHMEMI_FOP(NBI, CALL, T, PE, add, MESHMEM_AMO_ADD, 1)
#define SHMEMI_INC_BODY(CALL, T, PE)       SHMEMI_NOP(CALL, T, PE, add, MESHMEM_AMO_ADD, 1)
#define SHMEMI_FADD_BODY(CALL, T, PE)      SHMEMI_FOP(RET, CALL, T, PE, add, MESHMEM_AMO_ADD, value)
#define SHMEMI_FADD_NBI_BODY(CALL, T, PE)  SHMEMI_FOP(NBI, CALL, T, PE, add, MESHMEM_AMO_ADD, value)
#define SHMEMI_ADD_BODY(CALL, T, PE)       SHMEMI_NOP(CALL, T, PE, add, MESHMEM_AMO_ADD, value)
#define SHMEMI_FAND_BODY(CALL, T, PE)      SHMEMI_FOP(RET, CALL, T, PE, and, MESHMEM_AMO_AND, value)
#define SHMEMI_FAND_NBI_BODY(CALL, T, PE)  SHMEMI_FOP(NBI, CALL, T, PE, and, MESHMEM_AMO_AND, value)
#define SHMEMI_AND_BODY(CALL, T, PE)       SHMEMI_NOP(CALL, T, PE, and, MESHMEM_AMO_AND, value)
#define SHMEMI_FOR_BODY(CALL, T, PE)       SHMEMI_FOP(RET, CALL, T, PE, or, MESHMEM_AMO_OR, value)
#define SHMEMI_FOR_NBI_BODY(CALL, T, PE)   SHMEMI_FOP(NBI, CALL, T, PE, or, MESHMEM_AMO_OR, value)
#define SHMEMI_OR_BODY(CALL, T, PE)        SHMEMI_NOP(CALL, T, PE, or, MESHMEM_AMO_OR, value)
#define SHMEMI_FXOR_BODY(CALL, T, PE)      SHMEMI_FOP(RET, CALL, T, PE, xor, MESHMEM_AMO_XOR, value)
#define SHMEMI_FXOR_NBI_BODY(CALL, T, PE)  SHMEMI_FOP(NBI, CALL, T, PE, xor, MESHMEM_AMO_XOR, value)
#define SHMEMI_XOR_BODY(CALL, T, PE)       SHMEMI_NOP(CALL, T, PE, xor, MESHMEM_AMO_XOR, value)

/* ---- Table 7: fetch, set, swap ---- */

#define SHMEMI_AMO_EXTENDED_(T, N)                                                                 \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch, SHMEMI_FETCH_BODY, T, const T *source, int pe)         \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_nbi, SHMEMI_FETCH_NBI_BODY, T, T *fetch,             \
                       const T *source, int pe)                                                    \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_set, SHMEMI_SET_BODY, T, T *dest, T value, int pe)         \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_swap, SHMEMI_SWAP_BODY, T, T *dest, T value, int pe)          \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_swap_nbi, SHMEMI_SWAP_NBI_BODY, T, T *fetch, T *dest,      \
                       T value, int pe)
SHMEM_AMO_EXTENDED_TYPES(SHMEMI_AMO_EXTENDED_)

/* ---- Table 6: compare_swap, fetch_inc, inc, fetch_add, add ---- */

#define SHMEMI_AMO_STANDARD_(T, N)                                                                 \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_compare_swap, SHMEMI_CSWAP_BODY, T, T *dest, T cond,         \
                       T value, int pe)                                                            \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_compare_swap_nbi, SHMEMI_CSWAP_NBI_BODY, T, T *fetch,     \
                       T *dest, T cond, T value, int pe)                                           \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch_inc, SHMEMI_FINC_BODY, T, T *dest, int pe)              \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_inc_nbi, SHMEMI_FINC_NBI_BODY, T, T *fetch,         \
                       T *dest, int pe)                                                            \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_inc, SHMEMI_INC_BODY, T, T *dest, int pe)                  \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch_add, SHMEMI_FADD_BODY, T, T *dest, T value, int pe)     \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_add_nbi, SHMEMI_FADD_NBI_BODY, T, T *fetch,         \
                       T *dest, T value, int pe)                                                   \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_add, SHMEMI_ADD_BODY, T, T *dest, T value, int pe)
SHMEM_AMO_STANDARD_TYPES(SHMEMI_AMO_STANDARD_)

/* ---- Table 8: fetch_and, and, fetch_or, or, fetch_xor, xor ---- */

#define SHMEMI_AMO_BITWISE_OP_(T, N, OP, FBODY, NBIBODY, BODY)                                     \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch_##OP, FBODY, T, T *dest, T value, int pe)              \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_##OP##_nbi, NBIBODY, T, T *fetch, T *dest, T value, \
                       int pe)                                                                     \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_##OP, BODY, T, T *dest, T value, int pe)
#define SHMEMI_AMO_BITWISE_(T, N)                                                                  \
    SHMEMI_AMO_BITWISE_OP_(T, N, and, SHMEMI_FAND_BODY, SHMEMI_FAND_NBI_BODY, SHMEMI_AND_BODY)    \
    SHMEMI_AMO_BITWISE_OP_(T, N, or, SHMEMI_FOR_BODY, SHMEMI_FOR_NBI_BODY, SHMEMI_OR_BODY)        \
    SHMEMI_AMO_BITWISE_OP_(T, N, xor, SHMEMI_FXOR_BODY, SHMEMI_FXOR_NBI_BODY, SHMEMI_XOR_BODY)
SHMEM_AMO_BITWISE_TYPES(SHMEMI_AMO_BITWISE_)

/* ---- deprecated 1.4 names, with their own names in messages ---- */

#define SHMEMI_AMO_DEPRECATED_(T, N)                                                               \
    SHMEMI_DEFINE(T, N##_cswap, SHMEMI_CSWAP_BODY, T, T *dest, T cond, T value, int pe)            \
    SHMEMI_DEFINE(T, N##_finc, SHMEMI_FINC_BODY, T, T *dest, int pe)                               \
    SHMEMI_DEFINE(void, N##_inc, SHMEMI_INC_BODY, T, T *dest, int pe)                              \
    SHMEMI_DEFINE(T, N##_fadd, SHMEMI_FADD_BODY, T, T *dest, T value, int pe)                      \
    SHMEMI_DEFINE(void, N##_add, SHMEMI_ADD_BODY, T, T *dest, T value, int pe)
SHMEM_AMO_DEPRECATED_TYPES(SHMEMI_AMO_DEPRECATED_)

#define SHMEMI_AMO_DEPRECATED_EXTENDED_(T, N)                                                      \
    SHMEMI_DEFINE(T, N##_fetch, SHMEMI_FETCH_BODY, T, const T *source, int pe)                     \
    SHMEMI_DEFINE(void, N##_set, SHMEMI_SET_BODY, T, T *dest, T value, int pe)                     \
    SHMEMI_DEFINE(T, N##_swap, SHMEMI_SWAP_BODY, T, T *dest, T value, int pe)
SHMEM_AMO_DEPRECATED_EXTENDED_TYPES(SHMEMI_AMO_DEPRECATED_EXTENDED_)
