/*
 * Collectives on symmetric buffers (the native calls under OpenSHMEM's barrier and team
 * collectives), on the message engine of the MPI-like collectives (mm_msg.h, mm_coll_*.c), so
 * that they follow the team's topology (full mesh, GHC or node leaders) and its protocols:
 * inline / eager for small blocks, rendezvous by descriptor for large ones, where a peer copies
 * straight from this member's buffer. Because dest is symmetric, a large private source is first
 * copied once into this member's own block of dest, which peers then read directly: no staging
 * and no extra round.
 *
 *   barrier     quiet, then mm_coll_barrier (team_sync: mm_coll_barrier alone)
 *   broadcast   meshmem_coll_bcast from the root's source (or its dest, after one local copy)
 *   collect     all-gather of the sizes, then all-gather-v into dest
 *   fcollect    all-gather into dest
 *   alltoall(s) all-to-all into dest (alltoalls: packed to blocks, then unpacked at the strides)
 *   allreduce   meshmem_coll_allreduce (one step or aggressive; results bitwise identical)
 *
 * tests/c/coll_reference.c keeps the first, two-step implementation these are tested against.
 */
#include "mm_coll.h"
#include "mm_trace.h"

#include <stdlib.h>
#include <string.h>

meshmem_status_t meshmem_barrier(meshmem_team_t team)
{
    MM_TRACE_SCOPE(mm_trace_coll("barrier", team, 0));
    const char *call = mm_call_name("meshmem_barrier");
    MM_CHECK_INIT(call);
    struct meshmem_team *t = mm_team_checked(call, team);
    mm_coll_enter(t, call, MM_CALL_TAG(MM_CALL_BARRIER, 0));
    meshmem_quiet();
    mm_coll_barrier(t);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_team_sync(meshmem_team_t team)
{
    MM_TRACE_SCOPE(mm_trace_coll("barrier", team, 0));
    const char *call = mm_call_name("meshmem_team_sync");
    MM_CHECK_INIT(call);
    struct meshmem_team *t = mm_team_checked(call, team);
    mm_coll_enter(t, call, MM_CALL_TAG(MM_CALL_BARRIER, 0));
    mm_coll_barrier(t);
    return MESHMEM_OK;
}

struct meshmem_team *mm_symmetric_rooted(meshmem_team_t team, int root)
{
    struct meshmem_team *t = mm_team_checked("shmem_broadcast", team);
    if (root < 0 || root >= t->size) {
        mm_error("shmem_broadcast: PE_root argument (%d) is not in the team (size %d)", root,
                 t->size);
        return NULL;
    }
    return t;
}

meshmem_status_t mm_symmetric_reduce_check(meshmem_team_t team, const void *src, size_t count,
                                           meshmem_dtype_t dtype, meshmem_op_t op)
{
    mm_team_checked("shmem_reduce", team);
    if (!mm_reduce_supported(dtype, op)) {
        mm_error("shmem_%s_%s_reduce: operator %s is not defined on type %s", mm_dtype_name(dtype),
                 mm_op_name(op), mm_op_name(op), mm_dtype_name(dtype));
        return MESHMEM_ERR_ARG;
    }
    size_t bytes = count * meshmem_dtype_size(dtype);
    if (bytes && !mm_is_symmetric(src, bytes))
        mm_fatal("shmem_reduce: source argument (%p, %zu bytes) is not in symmetric memory", src,
                 bytes);
    return MESHMEM_OK;
}

static_assert(sizeof(size_t) == sizeof(uint64_t), "collect exchanges sizes as uint64");

/* @p len bytes of @p dest on this rank must be symmetric (nothing to check for 0 bytes) */
static void mm_symmetric_dest(const char *call, const void *dest, size_t len)
{
    if (len)
        mm_tp_xlate(call, "dest", dest, len, mm_g.rank);
}

/*
 * What peers read this member's @p len bytes from: @p src itself when it travels eagerly or
 * lies in shared memory; else @p own (this member's block of the symmetric dest), after one
 * local copy, so that peers read it by descriptor without staging.
 */
static const void *mm_symmetric_source(const void *src, size_t len, void *own)
{
    mm_desc_t d;
    if (len <= mm_g.eager_bytes || mm_desc_of(src, len, &d))
        return src;
    if (own != src)
        memmove(own, src, len);
    return own;
}

meshmem_status_t meshmem_broadcast(meshmem_team_t team, void *dest, const void *src, size_t nbytes,
                                   int root)
{
    MM_TRACE_SCOPE(mm_trace_coll("bcast", team, nbytes));
    MM_CHECK_INIT("meshmem_broadcast");
    struct meshmem_team *t = mm_symmetric_rooted(team, root);
    if (t == NULL)
        return MESHMEM_ERR_RANK;
    mm_symmetric_dest("shmem_broadcast", dest, nbytes);
    void *buf = dest;
    bool copy_after = false;
    if (t->my_rank == root && nbytes) {
        /* the root sends from src when peers can read it, else from its dest (copied first) */
        buf = (void *)mm_symmetric_source(src, nbytes, dest);
        copy_after = buf != dest; /* the root's dest gets its copy too (OpenSHMEM 1.5) */
    }
    meshmem_status_t st =
        meshmem_coll_bcast(team, buf, nbytes, MESHMEM_BYTE, root, MESHMEM_ALGO_AUTO);
    if (st == MESHMEM_OK && copy_after) /* every peer has its copy: src may overlap dest */
        memmove(dest, src, nbytes);
    return st;
}

meshmem_status_t meshmem_collect(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_TRACE_SCOPE(mm_trace_coll("allgather", team, mm_trace_team_bytes(team, nbytes)));
    MM_CHECK_INIT("meshmem_collect");
    struct meshmem_team *t = mm_team_checked("shmem_collect", team);
    int n = t->size, me = t->my_rank;
    size_t *v = calloc(2 * (size_t)n, sizeof(size_t));
    if (v == NULL)
        return MESHMEM_ERR_NOMEM;
    size_t *sizes = v, *displs = v + n, total = 0;
    uint64_t mine = nbytes;
    meshmem_status_t st =
        meshmem_coll_allgather(team, &mine, sizes, 1, MESHMEM_UINT64, MESHMEM_ALGO_AUTO);
    for (int r = 0; r < n; r++) {
        displs[r] = total;
        total += sizes[r];
    }
    if (st == MESHMEM_OK) {
        mm_symmetric_dest("shmem_collect", dest, total);
        const void *send = mm_symmetric_source(src, nbytes, (char *)dest + displs[me]);
        st = meshmem_coll_allgatherv(team, send, nbytes, dest, sizes, displs, MESHMEM_BYTE,
                                     MESHMEM_ALGO_AUTO);
    }
    free(v);
    return st;
}

meshmem_status_t meshmem_fcollect(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_TRACE_SCOPE(mm_trace_coll("allgather", team, mm_trace_team_bytes(team, nbytes)));
    MM_CHECK_INIT("meshmem_fcollect");
    struct meshmem_team *t = mm_team_checked("shmem_fcollect", team);
    mm_symmetric_dest("shmem_fcollect", dest, nbytes * (size_t)t->size);
    const void *send = mm_symmetric_source(src, nbytes, (char *)dest + nbytes * (size_t)t->my_rank);
    return meshmem_coll_allgather(team, send, dest, nbytes, MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
}

meshmem_status_t meshmem_alltoall(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_TRACE_SCOPE(mm_trace_coll("alltoall", team, mm_trace_team_bytes(team, nbytes)));
    MM_CHECK_INIT("meshmem_alltoall");
    struct meshmem_team *t = mm_team_checked("shmem_alltoall", team);
    mm_symmetric_dest("shmem_alltoall", dest, nbytes * (size_t)t->size);
    return meshmem_coll_alltoall(team, src == dest ? MESHMEM_IN_PLACE : src, dest, nbytes,
                                 MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
}

meshmem_status_t meshmem_alltoalls(meshmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                                   ptrdiff_t sst, size_t esize, size_t nelems)
{
    MM_TRACE_SCOPE(mm_trace_coll("alltoall", team, mm_trace_team_bytes(team, esize * nelems)));
    MM_CHECK_INIT("meshmem_alltoalls");
    struct meshmem_team *t = mm_team_checked("shmem_alltoalls", team);
    if (dst < 1 || sst < 1) {
        mm_error("shmem_alltoalls: dst (%td) and sst (%td) must be at least 1", dst, sst);
        return MESHMEM_ERR_ARG;
    }
    size_t n = (size_t)t->size, blk = nelems * esize;
    /* the last element written is ((size*nelems - 1)*dst) */
    mm_symmetric_dest("shmem_alltoalls", dest,
                      nelems ? ((n * nelems - 1) * (size_t)dst + 1) * esize : 0);
    if (dst == 1 && sst == 1)
        return meshmem_coll_alltoall(team, src == dest ? MESHMEM_IN_PLACE : src, dest, blk,
                                     MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
    /* strided: pack the blocks, exchange, unpack at the destination stride */
    char *packed = malloc(2 * n * blk + 1);
    if (packed == NULL)
        return MESHMEM_ERR_NOMEM;
    char *got = packed + n * blk;
    for (size_t i = 0; i < n * nelems; i++)
        memcpy(packed + i * esize, (const char *)src + i * (size_t)sst * esize, esize);
    meshmem_status_t st =
        meshmem_coll_alltoall(team, packed, got, blk, MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
    if (st == MESHMEM_OK)
        for (size_t i = 0; i < n * nelems; i++)
            memcpy((char *)dest + i * (size_t)dst * esize, got + i * esize, esize);
    free(packed);
    return st;
}

meshmem_status_t meshmem_allreduce(meshmem_team_t team, void *dest, const void *src, size_t count,
                                   meshmem_dtype_t dtype, meshmem_op_t op)
{
    MM_TRACE_SCOPE(mm_trace_coll("allreduce", team, count * meshmem_dtype_size(dtype)));
    MM_CHECK_INIT("meshmem_allreduce");
    meshmem_status_t st = mm_symmetric_reduce_check(team, src, count, dtype, op);
    if (st != MESHMEM_OK)
        return st;
    return meshmem_coll_allreduce(team, src == dest ? MESHMEM_IN_PLACE : src, dest, count, dtype,
                                  op, MESHMEM_ALGO_AUTO);
}
