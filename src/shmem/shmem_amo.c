/*
 * OpenSHMEM atomic memory operations (1.5 section 9.8) and the deprecated 1.4 names.
 *
 * An AMO is one hardware atomic (sequentially consistent) on the peer's copy of the target,
 * which every PE of the node maps: atomic with respect to every other PE's AMOs, ordered after
 * this PE's earlier puts, and a full fence for the sleeper check of mm_wake (mm_wait.h). Float
 * and double (Table 7: fetch, set, swap) use the generic __atomic builtins on their bytes.
 * The _nbi forms complete immediately and store the fetched value in *fetch.
 */
#include "mm_trace.h"
#include "shmem_internal.h"

/* translate an AMO target: symmetric and naturally aligned (an unaligned atomic is not one) */
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

/* ---- bodies: BODY(CALL, T, PE); RESULT_ is the fetched value ---- */

/* KIND names the operation for the trace: amo (one way) or famo (a round trip) */
#define SHMEMI_AMO_TARGET_AS(KIND, CALL, T, PE)                                                    \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p(KIND, sizeof(T), world_, MM_TRACE_STORE));                         \
    T *target_ = shmemi_amo_xlate(CALL, "dest", dest, sizeof(T), world_)
#define SHMEMI_AMO_TARGET(CALL, T, PE) SHMEMI_AMO_TARGET_AS("amo", CALL, T, PE)

#define SHMEMI_FETCH_BODY(CALL, T, PE)                                                             \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p("get", sizeof(T), world_, 0));                                     \
    T result_;                                                                                     \
    __atomic_load((const T *)shmemi_amo_xlate(CALL, "source", source, sizeof(T), world_),         \
                  &result_, SHMEMI_SC);                                                            \
    return result_
#define SHMEMI_FETCH_NBI_BODY(CALL, T, PE)                                                         \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p("get", sizeof(T), world_, 0));                                     \
    __atomic_load((const T *)shmemi_amo_xlate(CALL, "source", source, sizeof(T), world_), fetch,  \
                  SHMEMI_SC)
#define SHMEMI_SET_BODY(CALL, T, PE)                                                               \
    SHMEMI_AMO_TARGET(CALL, T, PE);                                                                \
    __atomic_store(target_, &value, SHMEMI_SC);                                                    \
    mm_wake(world_)

/* a fetching read-modify-write: RESULT_ = OP(target_); then wake the owner */
#define SHMEMI_RMW_AS(KIND, CALL, T, PE, EXPR)                                                     \
    SHMEMI_AMO_TARGET_AS(KIND, CALL, T, PE);                                                       \
    T result_;                                                                                     \
    EXPR;                                                                                          \
    (void)result_; /* the non-fetching forms */                                                    \
    mm_wake(world_)
#define SHMEMI_RMW(CALL, T, PE, EXPR) SHMEMI_RMW_AS("amo", CALL, T, PE, EXPR)

#define SHMEMI_SWAP_EXPR(T) __atomic_exchange(target_, &value, &result_, SHMEMI_SC)
#define SHMEMI_CSWAP_EXPR(T)                                                                       \
    result_ = cond;                                                                                \
    __atomic_compare_exchange(target_, &result_, &value, false, SHMEMI_SC, SHMEMI_SC)

/* the returning form, the _nbi form and the non-fetching form of one RMW expression */
#define SHMEMI_RMW_RET(CALL, T, PE, EXPR)                                                          \
    SHMEMI_RMW_AS("famo", CALL, T, PE, EXPR);                                                      \
    return result_
#define SHMEMI_RMW_NBI(CALL, T, PE, EXPR)                                                          \
    SHMEMI_RMW_AS("famo", CALL, T, PE, EXPR);                                                      \
    *fetch = result_

#define SHMEMI_SWAP_BODY(CALL, T, PE)      SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_SWAP_EXPR(T))
#define SHMEMI_SWAP_NBI_BODY(CALL, T, PE)  SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_SWAP_EXPR(T))
#define SHMEMI_CSWAP_BODY(CALL, T, PE)     SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_CSWAP_EXPR(T))
#define SHMEMI_CSWAP_NBI_BODY(CALL, T, PE) SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_CSWAP_EXPR(T))

#define SHMEMI_FETCH_OP_EXPR(OP, V) result_ = __atomic_fetch_##OP(target_, V, SHMEMI_SC)
#define SHMEMI_FINC_BODY(CALL, T, PE)      SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(add, 1))
#define SHMEMI_FINC_NBI_BODY(CALL, T, PE)  SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(add, 1))
#define SHMEMI_INC_BODY(CALL, T, PE)       SHMEMI_RMW(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(add, 1))
#define SHMEMI_FADD_BODY(CALL, T, PE)      SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(add, value))
#define SHMEMI_FADD_NBI_BODY(CALL, T, PE)  SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(add, value))
#define SHMEMI_ADD_BODY(CALL, T, PE)       SHMEMI_RMW(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(add, value))
#define SHMEMI_FAND_BODY(CALL, T, PE)      SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(and, value))
#define SHMEMI_FAND_NBI_BODY(CALL, T, PE)  SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(and, value))
#define SHMEMI_AND_BODY(CALL, T, PE)       SHMEMI_RMW(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(and, value))
#define SHMEMI_FOR_BODY(CALL, T, PE)       SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(or, value))
#define SHMEMI_FOR_NBI_BODY(CALL, T, PE)   SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(or, value))
#define SHMEMI_OR_BODY(CALL, T, PE)        SHMEMI_RMW(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(or, value))
#define SHMEMI_FXOR_BODY(CALL, T, PE)      SHMEMI_RMW_RET(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(xor, value))
#define SHMEMI_FXOR_NBI_BODY(CALL, T, PE)  SHMEMI_RMW_NBI(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(xor, value))
#define SHMEMI_XOR_BODY(CALL, T, PE)       SHMEMI_RMW(CALL, T, PE, SHMEMI_FETCH_OP_EXPR(xor, value))

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
