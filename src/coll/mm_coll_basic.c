/*
 * Collectives on symmetric buffers (the native calls under OpenSHMEM's team collectives), on
 * the message engine of the MPI-like collectives (mm_msg.h, mm_coll_*.c), so that they follow
 * the team's topology (full mesh or GHC) and its protocols: inline / eager for small blocks,
 * rendezvous by descriptor for large ones, where a peer copies straight from this member's
 * buffer. Because dest is symmetric, a large private source is first copied once into this
 * member's own block of dest, which peers then read directly: no staging and no extra round.
 *
 *   broadcast   meshmem_coll_bcast from the root's source (or its dest, after one local copy)
 *   collect     all-gather of the sizes, then all-gather-v into dest
 *   fcollect    all-gather into dest
 *   alltoall(s) all-to-all into dest (alltoalls: packed to blocks, then unpacked at the strides)
 *   allreduce   meshmem_coll_allreduce (one step or aggressive; results bitwise identical)
 *
 * The first implementation (mm_ref_*) stays below as the reference the engine is tested
 * against (tests/c/coll_ghc.c): two steps over the full mesh, writing straight into every
 * peer's dest:
 *   arrive:  every member posts ARRIVE (with small metadata such as its size) to the members
 *            that will write into its memory: a writer must not overwrite a destination the
 *            owner may still be reading from the previous collective;
 *   write:   each member copies its blocks straight into each peer's destination;
 *   done:    each writer posts DONE to each peer it wrote to; a member returns once every DONE
 *            it expects has arrived (its destination is complete, and, for reductions, peers
 *            have finished reading its source).
 */
#include "mm_coll.h"
#include "mm_tp.h"
#include "mm_trace.h"
#include "mm_wait.h"

#include <stdlib.h>
#include <string.h>

/* write @p n bytes of @p src at @p off into symmetric @p dest (@p len bytes, checked for
 * @p call) on @p world_rank: a copy into its mapping, or a put to another host */
static void mm_ref_write(const char *call, void *dest, size_t len, size_t off, const void *src,
                         size_t n, int world_rank)
{
    if (len == 0) /* zero-size collectives may pass any pointer */
        return;
    char *d = mm_xlate_checked(call, "dest", dest, len, world_rank);
    if (n == 0)
        return;
    if (d)
        memmove(d + off, src, n);
    else
        mm_tp_put((char *)dest + off, src, n, world_rank);
}

/* post DONE of @p seq to every other member, then wait for theirs */
static void mm_coll_done_all(struct meshmem_team *t, uint64_t seq)
{
    mm_tp_quiet(); /* the copies and puts (maybe non-temporal) before DONE */
    for (int k = 1; k < t->size; k++)
        mm_coll_post(t, (t->my_rank + k) % t->size, MM_FLAG_DONE, seq, NULL, 0);
    mm_coll_wake_all(t);
    for (int k = 1; k < t->size; k++)
        mm_coll_wait(t, (t->my_rank + t->size - k) % t->size, MM_FLAG_DONE, seq);
    mm_coll_end(t, seq);
}

/* a barrier on the team's topology */
static void mm_basic_sync(struct meshmem_team *t)
{
    if (mm_leader_barrier_for(t))
        mm_leader_barrier(t);
    else if (mm_topo_ghc(t))
        mm_ghc_barrier(t);
    else
        mm_coll_sync(t);
}

meshmem_status_t meshmem_barrier(meshmem_team_t team)
{
    MM_TRACE_SCOPE(mm_trace_coll("barrier", team, 0));
    MM_CHECK_INIT("meshmem_barrier");
    struct meshmem_team *t = mm_team_checked("shmem_barrier", team);
    meshmem_quiet();
    mm_basic_sync(t);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_team_sync(meshmem_team_t team)
{
    MM_TRACE_SCOPE(mm_trace_coll("barrier", team, 0));
    MM_CHECK_INIT("meshmem_team_sync");
    mm_basic_sync(mm_team_checked("shmem_team_sync", team));
    return MESHMEM_OK;
}

/* the team of a broadcast, NULL (after a line) when @p root is not one of its members */
static struct meshmem_team *mm_basic_rooted(meshmem_team_t team, int root)
{
    struct meshmem_team *t = mm_team_checked("shmem_broadcast", team);
    if (root < 0 || root >= t->size) {
        mm_error("shmem_broadcast: PE_root argument (%d) is not in the team (size %d)", root,
                 t->size);
        return NULL;
    }
    return t;
}

meshmem_status_t mm_ref_broadcast(meshmem_team_t team, void *dest, const void *src,
                                   size_t nbytes, int root)
{
    MM_CHECK_INIT("mm_ref_broadcast");
    struct meshmem_team *t = mm_basic_rooted(team, root);
    if (t == NULL)
        return MESHMEM_ERR_RANK;
    uint64_t seq = mm_coll_begin(t);
    if (t->my_rank != root) {
        mm_coll_post(t, root, MM_FLAG_ARRIVE, seq, NULL, 0);
        mm_coll_wake(t, root);
        mm_coll_wait(t, root, MM_FLAG_DONE, seq);
        mm_coll_end(t, seq);
        return MESHMEM_OK;
    }
    for (int k = 1; k < t->size; k++)
        mm_coll_wait(t, (root + k) % t->size, MM_FLAG_ARRIVE, seq);
    for (int k = 0; k < t->size; k++) {
        int r = (root + k) % t->size;
        if (r != root || dest != src)
            mm_ref_write("shmem_broadcast", dest, nbytes, 0, src, nbytes, mm_team_world(t, r));
    }
    mm_tp_quiet();
    for (int k = 1; k < t->size; k++)
        mm_coll_post(t, (root + k) % t->size, MM_FLAG_DONE, seq, NULL, 0);
    mm_coll_wake_all(t);
    mm_coll_end(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_collect(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_CHECK_INIT("mm_ref_collect");
    struct meshmem_team *t = mm_team_checked("shmem_collect", team);
    uint64_t *sizes = malloc(sizeof(uint64_t) * (size_t)t->size);
    if (sizes == NULL)
        return MESHMEM_ERR_NOMEM;
    uint64_t mine = nbytes;
    uint64_t seq = mm_coll_exchange_open(t, MM_FLAG_ARRIVE, &mine, 1, sizes);
    size_t offset = 0, total = 0;
    for (int r = 0; r < t->size; r++) {
        if (r < t->my_rank)
            offset += sizes[r];
        total += sizes[r];
    }
    free(sizes);
    for (int k = 0; k < t->size; k++) {
        int r = (t->my_rank + k) % t->size;
        mm_ref_write("shmem_collect", dest, total, offset, src, nbytes, mm_team_world(t, r));
    }
    mm_coll_done_all(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_fcollect(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_CHECK_INIT("mm_ref_fcollect");
    struct meshmem_team *t = mm_team_checked("shmem_fcollect", team);
    uint64_t seq = mm_coll_exchange_open(t, MM_FLAG_ARRIVE, NULL, 0, NULL);
    for (int k = 0; k < t->size; k++) {
        int r = (t->my_rank + k) % t->size;
        mm_ref_write("shmem_fcollect", dest, nbytes * (size_t)t->size,
                     nbytes * (size_t)t->my_rank, src, nbytes, mm_team_world(t, r));
    }
    mm_coll_done_all(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_alltoall(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_CHECK_INIT("mm_ref_alltoall");
    struct meshmem_team *t = mm_team_checked("shmem_alltoall", team);
    uint64_t seq = mm_coll_exchange_open(t, MM_FLAG_ARRIVE, NULL, 0, NULL);
    for (int k = 0; k < t->size; k++) {
        int r = (t->my_rank + k) % t->size;
        mm_ref_write("shmem_alltoall", dest, nbytes * (size_t)t->size,
                     nbytes * (size_t)t->my_rank, (const char *)src + nbytes * (size_t)r, nbytes,
                     mm_team_world(t, r));
    }
    mm_coll_done_all(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_alltoalls(meshmem_team_t team, void *dest, const void *src,
                                   ptrdiff_t dst, ptrdiff_t sst, size_t esize, size_t nelems)
{
    MM_CHECK_INIT("mm_ref_alltoalls");
    struct meshmem_team *t = mm_team_checked("shmem_alltoalls", team);
    if (dst < 1 || sst < 1) {
        mm_error("shmem_alltoalls: dst (%td) and sst (%td) must be at least 1", dst, sst);
        return MESHMEM_ERR_ARG;
    }
    uint64_t seq = mm_coll_exchange_open(t, MM_FLAG_ARRIVE, NULL, 0, NULL);
    /* the last element written is ((size*nelems - 1)*dst) */
    size_t span = nelems ? (((size_t)t->size * nelems - 1) * (size_t)dst + 1) * esize : 0;
    for (int k = 0; k < t->size; k++) {
        int r = (t->my_rank + k) % t->size;
        /* block for member r: elements r*nelems .. of the source, strided */
        for (size_t i = 0; i < nelems; i++) {
            size_t di = ((size_t)t->my_rank * nelems + i) * (size_t)dst;
            size_t si = ((size_t)r * nelems + i) * (size_t)sst;
            mm_ref_write("shmem_alltoalls", dest, span, di * esize,
                         (const char *)src + si * esize, esize, mm_team_world(t, r));
        }
    }
    mm_coll_done_all(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_allreduce(meshmem_team_t team, void *dest, const void *src,
                                   size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    MM_CHECK_INIT("mm_ref_allreduce");
    struct meshmem_team *t = mm_team_checked("shmem_reduce", team);
    if (!mm_reduce_supported(dtype, op)) {
        mm_error("shmem_%s_%s_reduce: operator %s is not defined on type %s", mm_dtype_name(dtype),
                 mm_op_name(op), mm_op_name(op), mm_dtype_name(dtype));
        return MESHMEM_ERR_ARG;
    }
    size_t bytes = count * meshmem_dtype_size(dtype);
    if (bytes && !mm_is_symmetric(src, bytes))
        mm_fatal("shmem_reduce: source argument (%p, %zu bytes) is not in symmetric memory", src,
                 bytes);
    void *acc = bytes ? malloc(bytes) : NULL, *peer = bytes ? malloc(bytes) : NULL;
    if (bytes && (acc == NULL || peer == NULL)) {
        free(acc);
        free(peer);
        return MESHMEM_ERR_NOMEM;
    }
    uint64_t seq = mm_coll_exchange_open(t, MM_FLAG_ARRIVE, NULL, 0, NULL);
    if (bytes) {
        /* the same order (member 0 first) on every member: bitwise identical results */
        mm_tp_get(acc, src, bytes, mm_team_world(t, 0));
        for (int r = 1; r < t->size; r++) {
            mm_tp_get(peer, src, bytes, mm_team_world(t, r));
            mm_reduce_apply(dtype, op, acc, peer, count);
        }
    }
    free(peer);
    mm_coll_done_all(t, seq); /* every member has read every source: dest may alias src */
    if (bytes)
        memcpy(dest, acc, bytes);
    free(acc);
    return MESHMEM_OK;
}

/* ---- on the message engine ---- */

static_assert(sizeof(size_t) == sizeof(uint64_t), "collect exchanges sizes as uint64");

/* @p len bytes of @p dest on this rank must be symmetric (nothing to check for 0 bytes) */
static void mm_basic_dest(const char *call, const void *dest, size_t len)
{
    if (len)
        mm_xlate_checked(call, "dest", dest, len, mm_g.rank);
}

/*
 * What peers read this member's @p len bytes from: @p src itself when it travels eagerly or
 * lies in shared memory; else @p own (this member's block of the symmetric dest), after one
 * local copy, so that peers read it by descriptor without staging.
 */
static const void *mm_basic_source(const void *src, size_t len, void *own)
{
    mm_desc_t d;
    if (len <= mm_g.eager_bytes || mm_desc_of(src, len, &d))
        return src;
    if (own != src)
        memmove(own, src, len);
    return own;
}

meshmem_status_t meshmem_broadcast(meshmem_team_t team, void *dest, const void *src,
                                   size_t nbytes, int root)
{
    MM_TRACE_SCOPE(mm_trace_coll("bcast", team, nbytes));
    MM_CHECK_INIT("meshmem_broadcast");
    struct meshmem_team *t = mm_basic_rooted(team, root);
    if (t == NULL)
        return MESHMEM_ERR_RANK;
    mm_basic_dest("shmem_broadcast", dest, nbytes);
    void *buf = dest;
    bool copy_after = false;
    if (t->my_rank == root && nbytes) {
        /* the root sends from src when peers can read it, else from its dest (copied first) */
        buf = (void *)mm_basic_source(src, nbytes, dest);
        copy_after = buf != dest; /* the root's dest gets its copy too (OpenSHMEM 1.5) */
    }
    meshmem_status_t st = meshmem_coll_bcast(team, buf, nbytes, MESHMEM_BYTE, root,
                                             MESHMEM_ALGO_AUTO);
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
    meshmem_status_t st = meshmem_coll_allgather(team, &mine, sizes, 1, MESHMEM_UINT64,
                                                 MESHMEM_ALGO_AUTO);
    for (int r = 0; r < n; r++) {
        displs[r] = total;
        total += sizes[r];
    }
    if (st == MESHMEM_OK) {
        mm_basic_dest("shmem_collect", dest, total);
        const void *send = mm_basic_source(src, nbytes, (char *)dest + displs[me]);
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
    mm_basic_dest("shmem_fcollect", dest, nbytes * (size_t)t->size);
    const void *send = mm_basic_source(src, nbytes, (char *)dest + nbytes * (size_t)t->my_rank);
    return meshmem_coll_allgather(team, send, dest, nbytes, MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
}

meshmem_status_t meshmem_alltoall(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_TRACE_SCOPE(mm_trace_coll("alltoall", team, mm_trace_team_bytes(team, nbytes)));
    MM_CHECK_INIT("meshmem_alltoall");
    struct meshmem_team *t = mm_team_checked("shmem_alltoall", team);
    mm_basic_dest("shmem_alltoall", dest, nbytes * (size_t)t->size);
    return meshmem_coll_alltoall(team, src == dest ? MESHMEM_IN_PLACE : src, dest, nbytes,
                                 MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
}

meshmem_status_t meshmem_alltoalls(meshmem_team_t team, void *dest, const void *src,
                                   ptrdiff_t dst, ptrdiff_t sst, size_t esize, size_t nelems)
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
    mm_basic_dest("shmem_alltoalls", dest,
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
    meshmem_status_t st = meshmem_coll_alltoall(team, packed, got, blk, MESHMEM_BYTE,
                                                MESHMEM_ALGO_AUTO);
    if (st == MESHMEM_OK)
        for (size_t i = 0; i < n * nelems; i++)
            memcpy((char *)dest + i * (size_t)dst * esize, got + i * esize, esize);
    free(packed);
    return st;
}

meshmem_status_t meshmem_allreduce(meshmem_team_t team, void *dest, const void *src,
                                   size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    MM_TRACE_SCOPE(mm_trace_coll("allreduce", team, count * meshmem_dtype_size(dtype)));
    MM_CHECK_INIT("meshmem_allreduce");
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
    return meshmem_coll_allreduce(team, src == dest ? MESHMEM_IN_PLACE : src, dest, count, dtype,
                                  op, MESHMEM_ALGO_AUTO);
}
