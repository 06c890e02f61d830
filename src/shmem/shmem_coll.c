/*
 * OpenSHMEM 1.5 team collectives: broadcast, collect, fcollect, alltoall(s) and the reductions,
 * typed (generated from the type tables of shmem_types.h) and mem forms. Each entry point names
 * itself to one checked helper, which validates the arguments (ending the job with one line
 * naming the routine and the argument) and makes one native call.
 */
#include "shmem_coll_impl.h"

#include <string.h>

static struct meshmem_team *shmemi_coll_team(const char *call, shmem_team_t team)
{
    MM_CHECK_INIT(call);
    return mm_team_checked(call, team);
}

/* bytes of @p count elements of @p esize, times @p blocks; a "negative" (huge) count ends the job */
static size_t shmemi_coll_bytes(const char *call, const char *what, size_t count, size_t esize,
                                size_t blocks)
{
    size_t bytes;
    if (MM_UNLIKELY(__builtin_mul_overflow(count, esize, &bytes) ||
                    __builtin_mul_overflow(bytes, blocks, &bytes) || bytes > PTRDIFF_MAX))
        mm_fatal("%s: %s argument (%zu) is negative or too large", call, what, count);
    return bytes;
}

/* the status of the native call that routine mm_user_call made, its name cleared again */
static int shmemi_coll_done(int status)
{
    mm_user_call = NULL;
    return status;
}

/* @p addr must hold @p len bytes of symmetric memory (nothing to check for 0 bytes) */
static void shmemi_coll_symmetric(const char *call, const char *what, const void *addr, size_t len)
{
    if (len)
        mm_tp_xlate(call, what, addr, len, mm_g.rank);
}

/* @p addr must be a readable local buffer of @p len bytes */
static void shmemi_coll_local(const char *call, const char *what, const void *addr, size_t len)
{
    if (MM_UNLIKELY(len && addr == NULL))
        mm_fatal("%s: %s argument is NULL for %zu bytes", call, what, len);
}

int shmemi_coll_broadcast(const char *call, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, size_t esize, int root)
{
    struct meshmem_team *t = shmemi_coll_team(call, team);
    size_t bytes = shmemi_coll_bytes(call, "nelems", nelems, esize, 1);
    if (MM_UNLIKELY(root < 0 || root >= t->size))
        mm_fatal("%s: PE_root argument (%d) is not a PE of the team (0..%d)", call, root,
                 t->size - 1);
    shmemi_coll_symmetric(call, "dest", dest, bytes);
    if (t->my_rank == root)
        shmemi_coll_local(call, "source", source, bytes);
    mm_user_call = call; /* errors in the native call name this routine */
    return shmemi_coll_done(meshmem_broadcast(team, dest, source, bytes, root));
}

int shmemi_coll_gather(const char *call, shmemi_coll_kind_t kind, shmem_team_t team, void *dest,
                       const void *source, size_t nelems, size_t esize)
{
    struct meshmem_team *t = shmemi_coll_team(call, team);
    size_t bytes = shmemi_coll_bytes(call, "nelems", nelems, esize, 1);
    /* collect: only this member's block is known here; the native call checks the total */
    size_t span = kind == SHMEMI_COLL_COLLECT
                      ? bytes
                      : shmemi_coll_bytes(call, "nelems", nelems, esize, (size_t)t->size);
    shmemi_coll_symmetric(call, "dest", dest, span);
    shmemi_coll_local(call, "source", source, kind == SHMEMI_COLL_ALLTOALL ? span : bytes);
    mm_user_call = call;
    switch (kind) {
    case SHMEMI_COLL_COLLECT: return shmemi_coll_done(meshmem_collect(team, dest, source, bytes));
    case SHMEMI_COLL_FCOLLECT: return shmemi_coll_done(meshmem_fcollect(team, dest, source, bytes));
    case SHMEMI_COLL_ALLTOALL: return shmemi_coll_done(meshmem_alltoall(team, dest, source, bytes));
    }
    return shmemi_coll_done(MESHMEM_ERR_ARG);
}

int shmemi_coll_alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    struct meshmem_team *t = shmemi_coll_team(call, team);
    if (MM_UNLIKELY(dst < 1 || sst < 1))
        mm_fatal("%s: %s argument (%td) must be at least 1", call, dst < 1 ? "dst" : "sst",
                 dst < 1 ? dst : sst);
    size_t blocks = shmemi_coll_bytes(call, "nelems", nelems, (size_t)t->size, 1);
    /* the last element written / read is element (blocks - 1) * stride */
    size_t dspan = blocks ? shmemi_coll_bytes(call, "dst", (blocks - 1), (size_t)dst, 1) + 1 : 0;
    size_t sspan = blocks ? shmemi_coll_bytes(call, "sst", (blocks - 1), (size_t)sst, 1) + 1 : 0;
    shmemi_coll_symmetric(call, "dest", dest, shmemi_coll_bytes(call, "nelems", dspan, esize, 1));
    shmemi_coll_local(call, "source", source, shmemi_coll_bytes(call, "nelems", sspan, esize, 1));
    mm_user_call = call;
    return shmemi_coll_done(meshmem_alltoalls(team, dest, source, dst, sst, esize, nelems));
}

int shmemi_coll_reduce(const char *call, shmem_team_t team, void *dest, const void *source,
                       size_t nreduce, meshmem_dtype_t dtype, meshmem_op_t op)
{
    shmemi_coll_team(call, team);
    size_t bytes = shmemi_coll_bytes(call, "nreduce", nreduce, meshmem_dtype_size(dtype), 1);
    shmemi_coll_symmetric(call, "dest", dest, bytes);
    shmemi_coll_symmetric(call, "source", source, bytes);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
    if (MM_UNLIKELY(bytes && d != s && d < s + bytes && s < d + bytes))
        mm_fatal("%s: dest (%p) and source (%p) overlap; only dest == source is allowed", call,
                 dest, source);
    mm_user_call = call;
    return shmemi_coll_done(meshmem_allreduce(team, dest, source, nreduce, dtype, op));
}

/* ---- typed and mem entry points ---- */

#define SHMEMI_DEF_BROADCAST(CTYPE, TYPENAME)                                                      \
    int shmem_##TYPENAME##_broadcast(shmem_team_t team, CTYPE *dest, const CTYPE *source,          \
                                     size_t nelems, int PE_root)                                   \
    {                                                                                              \
        return shmemi_coll_broadcast("shmem_" #TYPENAME "_broadcast", team, dest, source, nelems,  \
                                     sizeof(CTYPE), PE_root);                                      \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##TYPENAME##_broadcast)
SHMEM_RMA_TYPES(SHMEMI_DEF_BROADCAST)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return shmemi_coll_broadcast("shmem_broadcastmem", team, dest, source, nelems, 1, PE_root);
}
SHMEMI_PROFILED(shmem_broadcastmem)

#define SHMEMI_DEF_GATHER1(CTYPE, TYPENAME, NAME, KIND)                                            \
    int shmem_##TYPENAME##_##NAME(shmem_team_t team, CTYPE *dest, const CTYPE *source,             \
                                  size_t nelems)                                                   \
    {                                                                                              \
        return shmemi_coll_gather("shmem_" #TYPENAME "_" #NAME, KIND, team, dest, source, nelems,  \
                                  sizeof(CTYPE));                                                  \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##TYPENAME##_##NAME)
#define SHMEMI_DEF_GATHER(CTYPE, TYPENAME)                                                         \
    SHMEMI_DEF_GATHER1(CTYPE, TYPENAME, collect, SHMEMI_COLL_COLLECT)                              \
    SHMEMI_DEF_GATHER1(CTYPE, TYPENAME, fcollect, SHMEMI_COLL_FCOLLECT)                            \
    SHMEMI_DEF_GATHER1(CTYPE, TYPENAME, alltoall, SHMEMI_COLL_ALLTOALL)
SHMEM_RMA_TYPES(SHMEMI_DEF_GATHER)

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemi_coll_gather("shmem_collectmem", SHMEMI_COLL_COLLECT, team, dest, source, nelems,
                              1);
}
SHMEMI_PROFILED(shmem_collectmem)

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemi_coll_gather("shmem_fcollectmem", SHMEMI_COLL_FCOLLECT, team, dest, source, nelems,
                              1);
}
SHMEMI_PROFILED(shmem_fcollectmem)

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemi_coll_gather("shmem_alltoallmem", SHMEMI_COLL_ALLTOALL, team, dest, source, nelems,
                              1);
}
SHMEMI_PROFILED(shmem_alltoallmem)

#define SHMEMI_DEF_ALLTOALLS(CTYPE, TYPENAME)                                                      \
    int shmem_##TYPENAME##_alltoalls(shmem_team_t team, CTYPE *dest, const CTYPE *source,          \
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems)                  \
    {                                                                                              \
        return shmemi_coll_alltoalls("shmem_" #TYPENAME "_alltoalls", team, dest, source, dst,     \
                                     sst, nelems, sizeof(CTYPE));                                  \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##TYPENAME##_alltoalls)
SHMEM_RMA_TYPES(SHMEMI_DEF_ALLTOALLS)

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return shmemi_coll_alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}
SHMEMI_PROFILED(shmem_alltoallsmem)

#define SHMEMI_DEF_REDUCE(CTYPE, TYPENAME, OP)                                                     \
    int shmem_##TYPENAME##_##OP##_reduce(shmem_team_t team, CTYPE *dest, const CTYPE *source,      \
                                         size_t nreduce)                                           \
    {                                                                                              \
        return shmemi_coll_reduce("shmem_" #TYPENAME "_" #OP "_reduce", team, dest, source,        \
                                  nreduce, SHMEMI_DTYPE(CTYPE), SHMEMI_MOP_##OP);                  \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##TYPENAME##_##OP##_reduce)
#define SHMEMI_DEF_REDUCE_BITWISE(CTYPE, TYPENAME)                                                 \
    SHMEM_REDUCE_OPS_BITWISE(SHMEMI_DEF_REDUCE, CTYPE, TYPENAME)
#define SHMEMI_DEF_REDUCE_MINMAX(CTYPE, TYPENAME)                                                  \
    SHMEM_REDUCE_OPS_MINMAX(SHMEMI_DEF_REDUCE, CTYPE, TYPENAME)
#define SHMEMI_DEF_REDUCE_ARITH(CTYPE, TYPENAME)                                                   \
    SHMEM_REDUCE_OPS_ARITH(SHMEMI_DEF_REDUCE, CTYPE, TYPENAME)
SHMEM_REDUCE_BITWISE_TYPES(SHMEMI_DEF_REDUCE_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(SHMEMI_DEF_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SHMEMI_DEF_REDUCE_ARITH)
