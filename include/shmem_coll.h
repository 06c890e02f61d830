/**
 * @file shmem_coll.h
 * @brief OpenSHMEM 1.5 teams, synchronisation and collectives (included by shmem.h).
 *
 * This header is included near the end of shmem.h, after shmem_team_t, shmem_team_config_t,
 * SHMEM_TEAM_WORLD / SHARED / INVALID and the SHMEM_*_SYNC_SIZE constants; include shmem.h,
 * not this file. Every routine is a thin layer over meshmem.h: argument checks that name the
 * call and the argument, then one native call.
 *
 * Typed families are declared from the type tables of shmem_types.h (table numbers of the
 * OpenSHMEM 1.5 specification); one comment documents each family.
 *
 * Active-set routines (deprecated in 1.5: PE_start, logPE_stride, PE_size, pSync) are called by
 * the members of the set only. The first use of a set agrees on an internal team through pSync
 * (see src/shmem/shmem_coll_aset.c); pSync holds SHMEM_SYNC_VALUE again when the call returns.
 */
#ifndef MESHMEM_SHMEM_COLL_H
#define MESHMEM_SHMEM_COLL_H

#include "shmem_types.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what this header declares is libmeshmem's API: exported, while everything else in the
 * library is hidden (built with -fvisibility=hidden) */
#pragma GCC visibility push(default)

/* ------------------------------------------------------------------------------------------ */
/* Constants (shmem.h defines them; these are fall-backs with the same values)                 */
/* ------------------------------------------------------------------------------------------ */

#ifndef SHMEM_TEAM_NUM_CONTEXTS
/** Configuration mask bit: shmem_team_config_t.num_contexts is set. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
#endif
#ifndef SHMEM_SYNC_VALUE
/** The value every element of a pSync array holds between active-set collectives. */
#define SHMEM_SYNC_VALUE 0L
#endif
/* pSync sizes: the active-set protocol uses SHMEM_ASET_PSYNC_WORDS longs of pSync */
#define SHMEM_ASET_PSYNC_WORDS 3
#ifndef SHMEM_SYNC_SIZE
#define SHMEM_SYNC_SIZE 8 /**< longs in the pSync of shmem_sync / any active-set routine */
#endif
#ifndef SHMEM_BARRIER_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE 8 /**< longs in the pSync of shmem_barrier */
#endif
#ifndef SHMEM_BCAST_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE 8 /**< longs in the pSync of shmem_broadcast32/64 */
#endif
#ifndef SHMEM_COLLECT_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE 8 /**< longs in the pSync of shmem_(f)collect32/64 */
#endif
#ifndef SHMEM_REDUCE_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE 8 /**< longs in the pSync of shmem_TYPENAME_OP_to_all */
#endif
#ifndef SHMEM_ALLTOALL_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE 8 /**< longs in the pSync of shmem_alltoall32/64 */
#endif
#ifndef SHMEM_ALLTOALLS_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE 8 /**< longs in the pSync of shmem_alltoalls32/64 */
#endif
#ifndef SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1 /**< minimum pWrk elements of *_to_all (unused) */
#endif

/* ------------------------------------------------------------------------------------------ */
/* Teams                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** @return the calling PE's number in @p team, or -1 if it is not a member or the team is invalid. */
int shmem_team_my_pe(shmem_team_t team);

/** @return the number of PEs in @p team, or -1 for SHMEM_TEAM_INVALID. */
int shmem_team_n_pes(shmem_team_t team);

/**
 * @brief Copy the fields of @p team's configuration selected by @p config_mask
 * (SHMEM_TEAM_NUM_CONTEXTS) into @p config.
 * @return 0 on success, non-zero for an invalid team, a NULL @p config or an unknown mask bit.
 */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);

/**
 * @brief Translate PE @p src_pe of @p src_team into its number in @p dest_team.
 * @return the number in @p dest_team, or -1 if it is not a member of it or a team is invalid.
 */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);

/**
 * @brief Create the team of parent PEs start, start+stride, ... (@p size of them); collective
 * over @p parent_team. @p config applies where @p config_mask selects its fields (NULL / 0: the
 * defaults). PEs outside the new team get SHMEM_TEAM_INVALID.
 * @return 0 on success; non-zero (and SHMEM_TEAM_INVALID) for an invalid parent, arguments that
 * do not fit the parent, or no team resource left.
 */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);

/**
 * @brief Split @p parent_team into a 2-D grid of @p xrange columns (collective): @p xaxis_team
 * is the caller's row, @p yaxis_team its column. An @p xrange above the parent size is treated
 * as the parent size; the last row may be short.
 * @return 0 on success; non-zero (both teams SHMEM_TEAM_INVALID) otherwise.
 */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);

/**
 * @brief shmem_ptr for the PE numbered @p pe in @p team (OpenSHMEM 1.6): a load/store address of
 * symmetric @p dest on that PE, or NULL when it is not in reach of load/store, @p pe is not a
 * member or @p team is SHMEM_TEAM_INVALID.
 */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/** @brief Destroy @p team (collective over it); its resources are reused by later splits. */
void shmem_team_destroy(shmem_team_t team);

/* ------------------------------------------------------------------------------------------ */
/* Synchronisation                                                                             */
/* ------------------------------------------------------------------------------------------ */

/** @brief Complete every outstanding RMA/AMO (quiet), then barrier over all PEs. */
void shmem_barrier_all(void);

/**
 * @brief Deprecated active-set barrier: quiet, then barrier over PEs PE_start + i*2^logPE_stride
 * (i < PE_size). Called by the members only; @p pSync of SHMEM_BARRIER_SYNC_SIZE longs.
 */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);

/** @brief Synchronise all PEs without completing outstanding operations. */
void shmem_sync_all(void);

/** @brief Synchronise the members of @p team. @return 0 on success. */
int shmem_team_sync(shmem_team_t team);

/** @brief Deprecated active-set form of shmem_team_sync (pSync of SHMEM_SYNC_SIZE longs). */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

#ifndef __cplusplus
/*
 * shmem_sync(team), the C11 binding of shmem_team_sync (1.5 9.9.6), beside the deprecated
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync): the number of arguments picks the routine
 * (1: shmem_team_sync; 4: the function shmem_sync, which a macro does not expand again). Taking
 * the address, &shmem_sync or (shmem_sync)(...), still names the function.
 */
#define SHMEM_SYNC_PICK_(a1, a2, a3, a4, routine, ...) routine
#define shmem_sync(...)                                                                            \
    SHMEM_SYNC_PICK_(__VA_ARGS__, shmem_sync, shmem_sync_takes_1_or_4_arguments,                   \
                     shmem_sync_takes_1_or_4_arguments, shmem_team_sync, )                         \
    (__VA_ARGS__)
#endif

/**
 * Operator classes of the reductions: X(CTYPE, TYPENAME, OP) for each operator of the class,
 * applied per entry of the matching type table (bitwise: Table 10's and/or/xor types, and so on).
 */
#define SHMEM_REDUCE_OPS_BITWISE(X, CTYPE, TYPENAME)                                               \
    X(CTYPE, TYPENAME, and) X(CTYPE, TYPENAME, or) X(CTYPE, TYPENAME, xor)
#define SHMEM_REDUCE_OPS_MINMAX(X, CTYPE, TYPENAME) X(CTYPE, TYPENAME, max) X(CTYPE, TYPENAME, min)
#define SHMEM_REDUCE_OPS_ARITH(X, CTYPE, TYPENAME)  X(CTYPE, TYPENAME, sum) X(CTYPE, TYPENAME, prod)

/* ------------------------------------------------------------------------------------------ */
/* Team collectives (1.5). Each returns 0 on success, non-zero on an error that does not end    */
/* the job. dest is symmetric; for reductions source is symmetric too (dest == source allowed). */
/* ------------------------------------------------------------------------------------------ */

/**
 * @brief Table 5 types: broadcast @p nelems elements of @p source on team PE @p PE_root to
 * @p dest on every member (the root's included).
 */
#define SHMEM_COLL_DECL_BROADCAST(CTYPE, TYPENAME)                                                 \
    int shmem_##TYPENAME##_broadcast(shmem_team_t team, CTYPE *dest, const CTYPE *source,          \
                                     size_t nelems, int PE_root);
SHMEM_RMA_TYPES(SHMEM_COLL_DECL_BROADCAST)
#undef SHMEM_COLL_DECL_BROADCAST
/** @brief Broadcast of @p nelems bytes. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);

/**
 * @brief Table 5 types: concatenate every member's @p nelems elements (collect: may differ per
 * member; fcollect: the same on all) into @p dest on every member, in team order.
 * Alltoall: block j of @p nelems elements of @p source goes to block me of @p dest on member j.
 */
#define SHMEM_COLL_DECL_GATHER(CTYPE, TYPENAME)                                                    \
    int shmem_##TYPENAME##_collect(shmem_team_t team, CTYPE *dest, const CTYPE *source,            \
                                   size_t nelems);                                                 \
    int shmem_##TYPENAME##_fcollect(shmem_team_t team, CTYPE *dest, const CTYPE *source,           \
                                    size_t nelems);                                                \
    int shmem_##TYPENAME##_alltoall(shmem_team_t team, CTYPE *dest, const CTYPE *source,           \
                                    size_t nelems);
SHMEM_RMA_TYPES(SHMEM_COLL_DECL_GATHER)
#undef SHMEM_COLL_DECL_GATHER
/** @brief collect / fcollect / alltoall of @p nelems bytes. */
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);

/**
 * @brief Table 5 types: strided all-to-all. Element i of the block for member j is read at
 * source[(j*nelems + i)*sst] and written at dest[(me*nelems + i)*dst] on member j.
 */
#define SHMEM_COLL_DECL_ALLTOALLS(CTYPE, TYPENAME)                                                 \
    int shmem_##TYPENAME##_alltoalls(shmem_team_t team, CTYPE *dest, const CTYPE *source,          \
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SHMEM_COLL_DECL_ALLTOALLS)
#undef SHMEM_COLL_DECL_ALLTOALLS
/** @brief Strided all-to-all of bytes (strides in bytes). */
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

/**
 * @brief Table 10 types: dest[i] = source[i] of member 0 OP ... OP source[i] of the last member,
 * for i < @p nreduce, on every member; results are bitwise identical on every member.
 */
#define SHMEM_COLL_DECL_REDUCE(CTYPE, TYPENAME, OP)                                                \
    int shmem_##TYPENAME##_##OP##_reduce(shmem_team_t team, CTYPE *dest, const CTYPE *source,      \
                                         size_t nreduce);
#define SHMEM_COLL_DECL_REDUCE_BITWISE(C, T) SHMEM_REDUCE_OPS_BITWISE(SHMEM_COLL_DECL_REDUCE, C, T)
#define SHMEM_COLL_DECL_REDUCE_MINMAX(C, T)  SHMEM_REDUCE_OPS_MINMAX(SHMEM_COLL_DECL_REDUCE, C, T)
#define SHMEM_COLL_DECL_REDUCE_ARITH(C, T)   SHMEM_REDUCE_OPS_ARITH(SHMEM_COLL_DECL_REDUCE, C, T)
SHMEM_REDUCE_BITWISE_TYPES(SHMEM_COLL_DECL_REDUCE_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_COLL_DECL_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SHMEM_COLL_DECL_REDUCE_ARITH)

/* ------------------------------------------------------------------------------------------ */
/* Active-set collectives (deprecated in 1.5). Called by the members of the set                */
/* PE_start + i*2^logPE_stride, i < PE_size, only; pSync symmetric, every element              */
/* SHMEM_SYNC_VALUE on entry (and again on return).                                              */
/* ------------------------------------------------------------------------------------------ */

/** Element sizes of the active-set data movement routines: X(BITS, BYTES). */
#define SHMEM_ASET_SIZES(X)                                                                        \
    X(32, 4)                                                                                       \
    X(64, 8)

/**
 * @brief Active-set data movement on 32- or 64-bit elements. broadcast: @p PE_root is the
 * root's index within the set, and the root's @p dest is not modified (1.4 semantics);
 * collect / fcollect / alltoall(s) as their team forms.
 */
#define SHMEM_COLL_DECL_ASET(BITS, BYTES)                                                          \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,         \
                               int PE_start, int logPE_stride, int PE_size, long *pSync);          \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,          \
                             int logPE_stride, int PE_size, long *pSync);                          \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,         \
                              int logPE_stride, int PE_size, long *pSync);                         \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,         \
                              int logPE_stride, int PE_size, long *pSync);                         \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,         \
                               long *pSync);
SHMEM_ASET_SIZES(SHMEM_COLL_DECL_ASET)
#undef SHMEM_COLL_DECL_ASET

/**
 * @brief 1.4 reductions over an active set: dest[i] = OP over the set of source[i], i < nreduce.
 * @p pWrk is accepted for compatibility and not used.
 */
#define SHMEM_COLL_DECL_TO_ALL(CTYPE, TYPENAME, OP)                                                \
    void shmem_##TYPENAME##_##OP##_to_all(CTYPE *dest, const CTYPE *source, int nreduce,           \
                                          int PE_start, int logPE_stride, int PE_size,             \
                                          CTYPE *pWrk, long *pSync);
#define SHMEM_COLL_DECL_TO_ALL_BITWISE(C, T) SHMEM_REDUCE_OPS_BITWISE(SHMEM_COLL_DECL_TO_ALL, C, T)
#define SHMEM_COLL_DECL_TO_ALL_MINMAX(C, T)  SHMEM_REDUCE_OPS_MINMAX(SHMEM_COLL_DECL_TO_ALL, C, T)
#define SHMEM_COLL_DECL_TO_ALL_ARITH(C, T)   SHMEM_REDUCE_OPS_ARITH(SHMEM_COLL_DECL_TO_ALL, C, T)
SHMEM_TO_ALL_BITWISE_TYPES(SHMEM_COLL_DECL_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(SHMEM_COLL_DECL_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(SHMEM_COLL_DECL_TO_ALL_ARITH)

/* ------------------------------------------------------------------------------------------ */
/* C11 type-generic forms: shmem_broadcast(team, dest, source, nelems, PE_root),               */
/* shmem_collect / fcollect / alltoall(team, dest, source, nelems),                            */
/* shmem_alltoalls(team, dest, source, dst, sst, nelems), shmem_OP_reduce(team, dest, source,  */
/* nreduce) for OP in and, or, xor, max, min, sum, prod. The type of *dest selects.            */
/* ------------------------------------------------------------------------------------------ */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

/*
 * A _Generic selection needs distinct types, and the fixed-width, size_t and ptrdiff_t names
 * are typedefs of standard C types. So the data movement and min/max/sum/prod lists are the
 * standard C types of Table 5 (shmem.h's SHMEM_C11_RMA_TYPES, complex added for sum/prod); the
 * bitwise reductions (whose Table 10 row has no plain signed types) reach the signed ones
 * through int8_t .. int64_t, which are distinct from every unsigned type.
 */
#define SHMEM_GENERIC_RMA_TYPES(X) SHMEM_C11_RMA_TYPES(X)
#define SHMEM_GENERIC_REDUCE_BITWISE_TYPES(X)                                                      \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)
#define SHMEM_GENERIC_REDUCE_MINMAX_TYPES(X) SHMEM_GENERIC_RMA_TYPES(X)
#define SHMEM_GENERIC_REDUCE_ARITH_TYPES(X)                                                        \
    SHMEM_GENERIC_RMA_TYPES(X)                                                                     \
    X(double _Complex, complexd)                                                                   \
    X(float _Complex, complexf)

/* the last association of every selection: no user type matches it, and a type outside the
 * table is a compile-time error ("no association matches") */
struct shmem_generic_no_match_ {
    char unused_;
};

#define SHMEM_GENERIC_CASE_broadcast(CTYPE, TYPENAME)                                              \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_broadcast,
#define SHMEM_GENERIC_CASE_collect(CTYPE, TYPENAME)                                                \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_collect,
#define SHMEM_GENERIC_CASE_fcollect(CTYPE, TYPENAME)                                               \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_fcollect,
#define SHMEM_GENERIC_CASE_alltoall(CTYPE, TYPENAME)                                               \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_alltoall,
#define SHMEM_GENERIC_CASE_alltoalls(CTYPE, TYPENAME)                                              \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_alltoalls,
#define SHMEM_GENERIC_CASE_and(CTYPE, TYPENAME)                                                    \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_and_reduce,
#define SHMEM_GENERIC_CASE_or(CTYPE, TYPENAME)                                                     \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_or_reduce,
#define SHMEM_GENERIC_CASE_xor(CTYPE, TYPENAME)                                                    \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_xor_reduce,
#define SHMEM_GENERIC_CASE_max(CTYPE, TYPENAME)                                                    \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_max_reduce,
#define SHMEM_GENERIC_CASE_min(CTYPE, TYPENAME)                                                    \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_min_reduce,
#define SHMEM_GENERIC_CASE_sum(CTYPE, TYPENAME)                                                    \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_sum_reduce,
#define SHMEM_GENERIC_CASE_prod(CTYPE, TYPENAME)                                                   \
    CTYPE:                                                                                         \
    shmem_##TYPENAME##_prod_reduce,

/* select the typed routine NAME over the type list TYPES by the type of *dest */
#define SHMEM_GENERIC_SELECT(TYPES, NAME, dest)                                                    \
    _Generic(*(dest), TYPES(SHMEM_GENERIC_CASE_##NAME) struct shmem_generic_no_match_ : 0)

#define shmem_broadcast(team, dest, ...)                                                           \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_RMA_TYPES, broadcast, dest)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...)                                                             \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_RMA_TYPES, collect, dest)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...)                                                            \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_RMA_TYPES, fcollect, dest)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...)                                                            \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_RMA_TYPES, alltoall, dest)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...)                                                           \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_RMA_TYPES, alltoalls, dest)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...)                                                          \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_BITWISE_TYPES, and, dest)(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...)                                                           \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_BITWISE_TYPES, or, dest)(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...)                                                          \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_BITWISE_TYPES, xor, dest)(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...)                                                          \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_MINMAX_TYPES, max, dest)(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...)                                                          \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_MINMAX_TYPES, min, dest)(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...)                                                          \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_ARITH_TYPES, sum, dest)(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...)                                                         \
    SHMEM_GENERIC_SELECT(SHMEM_GENERIC_REDUCE_ARITH_TYPES, prod, dest)(team, dest, __VA_ARGS__)

#endif /* C11 */

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* MESHMEM_SHMEM_COLL_H */
