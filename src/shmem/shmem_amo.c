/*
 * OpenSHMEM atomic memory operations (1.5 section 9.8) and the deprecated 1.4 names.
 *
 * A typed shell over the native AMO (mm_rma_amo): each routine passes its operation and its
 * type's size as constants and the operands as the word's bits, so that to a PE of the node the
 * one CPU AMO switch (mm_shm_amo) folds to one sequentially consistent instruction on the
 * peer's copy of the target (atomic with respect to every PE's AMOs, ordered after this PE's
 * earlier puts, and the waker's half of the sleeper check: mm_tp_wake, mm_tp.h). Float and
 * double (Table 7: fetch, set, swap) travel as their bits. To a PE reached through a network it
 * is the network's AMO. The _nbi forms complete immediately and store the fetched value in
 * *fetch.
 */
#include "mm_rma.h"
#include "shmem_internal.h"

#include <string.h>

/* the bits of @p v, a T, in the low bytes of a uint64_t, and back */
#define SHMEMI_BITS(T, v)                                                                          \
    ({                                                                                             \
        T in_ = (v);                                                                               \
        uint64_t bits_ = 0;                                                                        \
        memcpy(&bits_, &in_, sizeof(T));                                                           \
        bits_;                                                                                     \
    })
#define SHMEMI_FROM_BITS(T, b)                                                                     \
    ({                                                                                             \
        uint64_t word_ = (b);                                                                      \
        T out_;                                                                                    \
        memcpy(&out_, &word_, sizeof(T));                                                          \
        out_;                                                                                      \
    })

/* ---- bodies: BODY(CALL, T, PE); RESULT_ is the fetched value ---- */

/* AMO @p OP with operand V and condition C on the argument WHAT at ADDR; KIND and FLAGS name
 * it for the trace: get (a fetch), amo (one way) or famo (a round trip) */
#define SHMEMI_AMO(KIND, FLAGS, CALL, T, PE, WHAT, ADDR, OP, V, C)                                 \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p(KIND, sizeof(T), world_, FLAGS));                                  \
    T result_ = SHMEMI_FROM_BITS(T, mm_rma_amo(CALL, WHAT, (void *)(ADDR), OP, sizeof(T),          \
                                               SHMEMI_BITS(T, V), SHMEMI_BITS(T, C), world_));     \
    (void)result_ /* the non-fetching forms */

/* the value of source at PE */
#define SHMEMI_FETCH(CALL, T, PE)                                                                  \
    SHMEMI_AMO("get", 0, CALL, T, PE, "source", source, MESHMEM_AMO_FETCH, (T)0, (T)0)
#define SHMEMI_FETCH_BODY(CALL, T, PE)                                                             \
    SHMEMI_FETCH(CALL, T, PE);                                                                     \
    return result_
#define SHMEMI_FETCH_NBI_BODY(CALL, T, PE)                                                         \
    SHMEMI_FETCH(CALL, T, PE);                                                                     \
    *fetch = result_
#define SHMEMI_SET_BODY(CALL, T, PE)                                                               \
    SHMEMI_AMO("amo", MM_TRACE_STORE, CALL, T, PE, "dest", dest, MESHMEM_AMO_SET, value, (T)0)

/* the returning form, the _nbi form and the non-fetching form of operation OP on dest */
#define SHMEMI_RMW_RET(CALL, T, PE, OP, V, C)                                                      \
    SHMEMI_AMO("famo", MM_TRACE_STORE, CALL, T, PE, "dest", dest, OP, V, C);                       \
    return result_
#define SHMEMI_RMW_NBI(CALL, T, PE, OP, V, C)                                                      \
    SHMEMI_AMO("famo", MM_TRACE_STORE, CALL, T, PE, "dest", dest, OP, V, C);                       \
    *fetch = result_
#define SHMEMI_RMW(CALL, T, PE, OP, V)                                                             \
    SHMEMI_AMO("amo", MM_TRACE_STORE, CALL, T, PE, "dest", dest, OP, V, (T)0)

#define SHMEMI_SWAP_BODY(CALL, T, PE)     SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_SWAP, value, (T)0)
#define SHMEMI_SWAP_NBI_BODY(CALL, T, PE) SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_SWAP, value, (T)0)
#define SHMEMI_CSWAP_BODY(CALL, T, PE)    SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_CSWAP, value, cond)
#define SHMEMI_CSWAP_NBI_BODY(CALL, T, PE)                                                         \
    SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_CSWAP, value, cond)

#define SHMEMI_FINC_BODY(CALL, T, PE)     SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_ADD, 1, (T)0)
#define SHMEMI_FINC_NBI_BODY(CALL, T, PE) SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_ADD, 1, (T)0)
#define SHMEMI_INC_BODY(CALL, T, PE)      SHMEMI_RMW(CALL, T, PE, MESHMEM_AMO_ADD, 1)
#define SHMEMI_FADD_BODY(CALL, T, PE)     SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_ADD, value, (T)0)
#define SHMEMI_FADD_NBI_BODY(CALL, T, PE) SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_ADD, value, (T)0)
#define SHMEMI_ADD_BODY(CALL, T, PE)      SHMEMI_RMW(CALL, T, PE, MESHMEM_AMO_ADD, value)
#define SHMEMI_FAND_BODY(CALL, T, PE)     SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_AND, value, (T)0)
#define SHMEMI_FAND_NBI_BODY(CALL, T, PE) SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_AND, value, (T)0)
#define SHMEMI_AND_BODY(CALL, T, PE)      SHMEMI_RMW(CALL, T, PE, MESHMEM_AMO_AND, value)
#define SHMEMI_FOR_BODY(CALL, T, PE)      SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_OR, value, (T)0)
#define SHMEMI_FOR_NBI_BODY(CALL, T, PE)  SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_OR, value, (T)0)
#define SHMEMI_OR_BODY(CALL, T, PE)       SHMEMI_RMW(CALL, T, PE, MESHMEM_AMO_OR, value)
#define SHMEMI_FXOR_BODY(CALL, T, PE)     SHMEMI_RMW_RET(CALL, T, PE, MESHMEM_AMO_XOR, value, (T)0)
#define SHMEMI_FXOR_NBI_BODY(CALL, T, PE) SHMEMI_RMW_NBI(CALL, T, PE, MESHMEM_AMO_XOR, value, (T)0)
#define SHMEMI_XOR_BODY(CALL, T, PE)      SHMEMI_RMW(CALL, T, PE, MESHMEM_AMO_XOR, value)

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
    SHMEMI_DEFINE_PAIR(T, N##_atomic_compare_swap, SHMEMI_CSWAP_BODY, T, T *dest, T cond, T value, \
                       int pe)                                                                     \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_compare_swap_nbi, SHMEMI_CSWAP_NBI_BODY, T, T *fetch,      \
                       T *dest, T cond, T value, int pe)                                           \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch_inc, SHMEMI_FINC_BODY, T, T *dest, int pe)              \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_inc_nbi, SHMEMI_FINC_NBI_BODY, T, T *fetch, T *dest, \
                       int pe)                                                                     \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_inc, SHMEMI_INC_BODY, T, T *dest, int pe)                  \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch_add, SHMEMI_FADD_BODY, T, T *dest, T value, int pe)     \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_add_nbi, SHMEMI_FADD_NBI_BODY, T, T *fetch, T *dest, \
                       T value, int pe)                                                            \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_add, SHMEMI_ADD_BODY, T, T *dest, T value, int pe)
SHMEM_AMO_STANDARD_TYPES(SHMEMI_AMO_STANDARD_)

/* ---- Table 8: fetch_and, and, fetch_or, or, fetch_xor, xor ---- */

#define SHMEMI_AMO_BITWISE_OP_(T, N, OP, FBODY, NBIBODY, BODY)                                     \
    SHMEMI_DEFINE_PAIR(T, N##_atomic_fetch_##OP, FBODY, T, T *dest, T value, int pe)               \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_fetch_##OP##_nbi, NBIBODY, T, T *fetch, T *dest, T value,  \
                       int pe)                                                                     \
    SHMEMI_DEFINE_PAIR(void, N##_atomic_##OP, BODY, T, T *dest, T value, int pe)
#define SHMEMI_AMO_BITWISE_(T, N)                                                                  \
    SHMEMI_AMO_BITWISE_OP_(T, N, and, SHMEMI_FAND_BODY, SHMEMI_FAND_NBI_BODY, SHMEMI_AND_BODY)     \
    SHMEMI_AMO_BITWISE_OP_(T, N, or, SHMEMI_FOR_BODY, SHMEMI_FOR_NBI_BODY, SHMEMI_OR_BODY)         \
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
