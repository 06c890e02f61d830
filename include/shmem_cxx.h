/**
 * @file shmem_cxx.h
 * @brief The OpenSHMEM 1.5 generic routines for C++: overloads in place of C11's _Generic.
 *
 * Included by shmem.h when compiled as C++ (meshc++). As in Sandia OpenSHMEM, the type-generic
 * routines are overloads: shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, ...)
 * pick the typed routine by the type of their first pointer argument, from the same type
 * tables as the C11 forms (shmem.h's SHMEM_C11_* tables: each C type once). Each overload is a
 * template that forwards its remaining arguments to the typed C routine, so arguments convert
 * as in a call of that routine, and a pointer of another type is a compile-time error.
 *
 * Covered: RMA (put, p, g, get, iput, iget, put_nbi, get_nbi), put_signal(_nbi), every 1.5
 * AMO with its context form, the point-to-point waits and tests, and the team collectives and
 * reductions. Not covered: the deprecated 1.4 generic AMO names (shmem_fadd, ...): C++ code
 * calls the typed names or the 1.5 ones.
 */
#ifndef MESHMEM_SHMEM_CXX_H
#define MESHMEM_SHMEM_CXX_H

#ifdef __cplusplus

/* R(T *first, ...) -> shmem_N_R(first, ...); P is T * or const T * (routines that only read) */
#define SHMEM_CXX_OVERLOAD_(R, P, CALL)                                                            \
    template <class... A> static inline auto R(P first, A... rest)->decltype(CALL(first, rest...)) \
    {                                                                                              \
        return CALL(first, rest...);                                                               \
    }
/* the context form: R(ctx, T *first, ...) -> shmem_ctx_N_R(ctx, first, ...) */
#define SHMEM_CXX_CTX_OVERLOAD_(R, P, CALL)                                                        \
    template <class... A>                                                                          \
    static inline auto R(shmem_ctx_t ctx, P first, A... rest)->decltype(CALL(ctx, first, rest...)) \
    {                                                                                              \
        return CALL(ctx, first, rest...);                                                          \
    }
/* a team routine: R(team, T *dest, ...) -> shmem_N_R(team, dest, ...) */
#define SHMEM_CXX_TEAM_OVERLOAD_(R, P, CALL)                                                       \
    template <class... A>                                                                          \
    static inline auto R(shmem_team_t team, P dest, A... rest)                                     \
        ->decltype(CALL(team, dest, rest...))                                                      \
    {                                                                                              \
        return CALL(team, dest, rest...);                                                          \
    }

#define SHMEM_CXX_BOTH_(T, N, R, P)                                                                \
    SHMEM_CXX_OVERLOAD_(shmem_##R, P, shmem_##N##_##R)                                             \
    SHMEM_CXX_CTX_OVERLOAD_(shmem_##R, P, shmem_ctx_##N##_##R)

#define SHMEM_CXX_RMA_(T, N)                                                                       \
    SHMEM_CXX_BOTH_(T, N, put, T *)                                                                \
    SHMEM_CXX_BOTH_(T, N, p, T *)                                                                  \
    SHMEM_CXX_BOTH_(T, N, g, const T *)                                                            \
    SHMEM_CXX_BOTH_(T, N, get, T *)                                                                \
    SHMEM_CXX_BOTH_(T, N, iput, T *)                                                               \
    SHMEM_CXX_BOTH_(T, N, iget, T *)                                                               \
    SHMEM_CXX_BOTH_(T, N, put_nbi, T *)                                                            \
    SHMEM_CXX_BOTH_(T, N, get_nbi, T *)                                                            \
    SHMEM_CXX_BOTH_(T, N, put_signal, T *)                                                         \
    SHMEM_CXX_BOTH_(T, N, put_signal_nbi, T *)
SHMEM_C11_RMA_TYPES(SHMEM_CXX_RMA_)

#define SHMEM_CXX_AMO_EXTENDED_(T, N)                                                              \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch, const T *)                                                 \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_nbi, T *)                                                   \
    SHMEM_CXX_BOTH_(T, N, atomic_set, T *)                                                         \
    SHMEM_CXX_BOTH_(T, N, atomic_swap, T *)                                                        \
    SHMEM_CXX_BOTH_(T, N, atomic_swap_nbi, T *)
SHMEM_C11_AMO_EXTENDED_TYPES(SHMEM_CXX_AMO_EXTENDED_)

#define SHMEM_CXX_AMO_STANDARD_(T, N)                                                              \
    SHMEM_CXX_BOTH_(T, N, atomic_compare_swap, T *)                                                \
    SHMEM_CXX_BOTH_(T, N, atomic_compare_swap_nbi, T *)                                            \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_inc, T *)                                                   \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_inc_nbi, T *)                                               \
    SHMEM_CXX_BOTH_(T, N, atomic_inc, T *)                                                         \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_add, T *)                                                   \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_add_nbi, T *)                                               \
    SHMEM_CXX_BOTH_(T, N, atomic_add, T *)
SHMEM_C11_AMO_STANDARD_TYPES(SHMEM_CXX_AMO_STANDARD_)

#define SHMEM_CXX_AMO_BITWISE_(T, N)                                                               \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_and, T *)                                                   \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_and_nbi, T *)                                               \
    SHMEM_CXX_BOTH_(T, N, atomic_and, T *)                                                         \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_or, T *)                                                    \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_or_nbi, T *)                                                \
    SHMEM_CXX_BOTH_(T, N, atomic_or, T *)                                                          \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_xor, T *)                                                   \
    SHMEM_CXX_BOTH_(T, N, atomic_fetch_xor_nbi, T *)                                               \
    SHMEM_CXX_BOTH_(T, N, atomic_xor, T *)
SHMEM_C11_AMO_BITWISE_TYPES(SHMEM_CXX_AMO_BITWISE_)

#define SHMEM_CXX_P2P1_(T, N, R) SHMEM_CXX_OVERLOAD_(shmem_##R, T *, shmem_##N##_##R)
#define SHMEM_CXX_P2P_(T, N)                                                                       \
    SHMEM_CXX_P2P1_(T, N, wait_until)                                                              \
    SHMEM_CXX_P2P1_(T, N, wait_until_all)                                                          \
    SHMEM_CXX_P2P1_(T, N, wait_until_any)                                                          \
    SHMEM_CXX_P2P1_(T, N, wait_until_some)                                                         \
    SHMEM_CXX_P2P1_(T, N, wait_until_all_vector)                                                   \
    SHMEM_CXX_P2P1_(T, N, wait_until_any_vector)                                                   \
    SHMEM_CXX_P2P1_(T, N, wait_until_some_vector)                                                  \
    SHMEM_CXX_P2P1_(T, N, test)                                                                    \
    SHMEM_CXX_P2P1_(T, N, test_all)                                                                \
    SHMEM_CXX_P2P1_(T, N, test_any)                                                                \
    SHMEM_CXX_P2P1_(T, N, test_some)                                                               \
    SHMEM_CXX_P2P1_(T, N, test_all_vector)                                                         \
    SHMEM_CXX_P2P1_(T, N, test_any_vector)                                                         \
    SHMEM_CXX_P2P1_(T, N, test_some_vector)                                                        \
    SHMEM_CXX_P2P1_(T, N, wait)
SHMEM_C11_P2P_TYPES(SHMEM_CXX_P2P_)

/* team collectives: the type of dest selects (shmem_coll.h's generic lists) */
#define SHMEM_CXX_TEAM1_(T, R, CALL) SHMEM_CXX_TEAM_OVERLOAD_(R, T *, CALL)
#define SHMEM_CXX_COLL_(T, N)                                                                      \
    SHMEM_CXX_TEAM1_(T, shmem_broadcast, shmem_##N##_broadcast)                                    \
    SHMEM_CXX_TEAM1_(T, shmem_collect, shmem_##N##_collect)                                        \
    SHMEM_CXX_TEAM1_(T, shmem_fcollect, shmem_##N##_fcollect)                                      \
    SHMEM_CXX_TEAM1_(T, shmem_alltoall, shmem_##N##_alltoall)                                      \
    SHMEM_CXX_TEAM1_(T, shmem_alltoalls, shmem_##N##_alltoalls)                                    \
    SHMEM_CXX_TEAM1_(T, shmem_max_reduce, shmem_##N##_max_reduce)                                  \
    SHMEM_CXX_TEAM1_(T, shmem_min_reduce, shmem_##N##_min_reduce)
SHMEM_C11_RMA_TYPES(SHMEM_CXX_COLL_)

#define SHMEM_CXX_ARITH_(T, N)                                                                     \
    SHMEM_CXX_TEAM1_(T, shmem_sum_reduce, shmem_##N##_sum_reduce)                                  \
    SHMEM_CXX_TEAM1_(T, shmem_prod_reduce, shmem_##N##_prod_reduce)
SHMEM_C11_RMA_TYPES(SHMEM_CXX_ARITH_)
SHMEM_CXX_ARITH_(double _Complex, complexd)
SHMEM_CXX_ARITH_(float _Complex, complexf)

/* the bitwise reductions: the unsigned types, and the signed ones through int8_t .. int64_t */
#define SHMEM_CXX_BITWISE_(T, N)                                                                   \
    SHMEM_CXX_TEAM1_(T, shmem_and_reduce, shmem_##N##_and_reduce)                                  \
    SHMEM_CXX_TEAM1_(T, shmem_or_reduce, shmem_##N##_or_reduce)                                    \
    SHMEM_CXX_TEAM1_(T, shmem_xor_reduce, shmem_##N##_xor_reduce)
SHMEM_CXX_BITWISE_(unsigned char, uchar)
SHMEM_CXX_BITWISE_(unsigned short, ushort)
SHMEM_CXX_BITWISE_(unsigned int, uint)
SHMEM_CXX_BITWISE_(unsigned long, ulong)
SHMEM_CXX_BITWISE_(unsigned long long, ulonglong)
SHMEM_CXX_BITWISE_(int8_t, int8)
SHMEM_CXX_BITWISE_(int16_t, int16)
SHMEM_CXX_BITWISE_(int32_t, int32)
SHMEM_CXX_BITWISE_(int64_t, int64)

#endif /* __cplusplus */

#endif /* MESHMEM_SHMEM_CXX_H */
