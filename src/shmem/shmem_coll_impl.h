/**
 * @file shmem_coll_impl.h
 * @brief Internals shared by the OpenSHMEM team, collective and active-set files: the mapping
 * of OpenSHMEM types and operators to meshmem's, and the checked collective helpers that every
 * typed and deprecated entry point calls.
 */
#ifndef SHMEM_COLL_IMPL_H
#define SHMEM_COLL_IMPL_H

#include "mm_core.h"
#include "mm_team.h"
#include "shmem.h"
#include "shmem_profiled.h"

#include <stdbool.h>

/* meshmem element type of a C type: floating kinds by type; integers by size and signedness
 * ((T)-1 / 2 is 0 only for a signed type; valid for every type of the tables, complex ones
 * included, so it also settles the signedness of plain char) */
#define SHMEMI_DTYPE(CTYPE)                                                                        \
    shmemi_coll_dtype(_Generic((CTYPE)0, float : 1, double : 2, long double : 3,                   \
                               float _Complex : 4, double _Complex : 5, default : 0),              \
                      sizeof(CTYPE), (CTYPE)-1 / 2 == 0)

static inline meshmem_dtype_t shmemi_coll_dtype(int kind, size_t size, bool is_signed)
{
    static const meshmem_dtype_t floats[] = {MESHMEM_FLOAT32, MESHMEM_FLOAT64, MESHMEM_LONGDOUBLE,
                                             MESHMEM_COMPLEXF, MESHMEM_COMPLEXD};
    if (kind > 0)
        return floats[kind - 1];
    int log2 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    return (meshmem_dtype_t)((is_signed ? MESHMEM_INT8 : MESHMEM_UINT8) + log2);
}

/* OpenSHMEM operator name (the OP of shmem_TYPENAME_OP_reduce) to meshmem's */
#define SHMEMI_MOP_and  MESHMEM_OP_AND
#define SHMEMI_MOP_or   MESHMEM_OP_OR
#define SHMEMI_MOP_xor  MESHMEM_OP_XOR
#define SHMEMI_MOP_max  MESHMEM_OP_MAX
#define SHMEMI_MOP_min  MESHMEM_OP_MIN
#define SHMEMI_MOP_sum  MESHMEM_OP_SUM
#define SHMEMI_MOP_prod MESHMEM_OP_PROD

/* the gathering collectives that share one helper */
typedef enum { SHMEMI_COLL_COLLECT, SHMEMI_COLL_FCOLLECT, SHMEMI_COLL_ALLTOALL } shmemi_coll_kind_t;

/* ---- shmem_coll.c: checked collectives; @p call names the API routine in every message ---- */

/** @brief Broadcast @p nelems elements of @p esize bytes; @return 0 or a meshmem status. */
int shmemi_coll_broadcast(const char *call, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, size_t esize, int root);

/** @brief collect / fcollect / alltoall of @p nelems elements of @p esize bytes. */
int shmemi_coll_gather(const char *call, shmemi_coll_kind_t kind, shmem_team_t team, void *dest,
                       const void *source, size_t nelems, size_t esize);

/** @brief Strided all-to-all (strides in elements of @p esize bytes). */
int shmemi_coll_alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize);

/** @brief All-reduce of @p nreduce elements of @p dtype with @p op. */
int shmemi_coll_reduce(const char *call, shmem_team_t team, void *dest, const void *source,
                       size_t nreduce, meshmem_dtype_t dtype, meshmem_op_t op);

/* ---- shmem_coll_aset.c ---- */

/**
 * @brief The internal team of the active set (PE_start, 2^logPE_stride, PE_size), created on
 * first use by its members (agreement through @p pSync). Ends the job on invalid arguments or
 * when the caller is not a member.
 */
shmem_team_t shmemi_aset_team(const char *call, int PE_start, int logPE_stride, int PE_size,
                              long *pSync);

#endif /* SHMEM_COLL_IMPL_H */
