/*
 * The reference symmetric collectives (mm_ref_*, coll_reference.h): the first implementation of
 * meshmem_broadcast / collect / fcollect / alltoall / alltoalls / allreduce, kept as what the
 * engine-based ones (src/coll/mm_coll_symmetric.c) are tested against (tests/c/coll_ghc.c). Two steps
 * over the full mesh, writing straight into every peer's dest:
 *   arrive:  every member posts ARRIVE (with small metadata such as its size) to the members
 *            that will write into its memory: a writer must not overwrite a destination the
 *            owner may still be reading from the previous collective;
 *   write:   each member copies its blocks straight into each peer's destination;
 *   done:    each writer posts DONE to each peer it wrote to; a member returns once every DONE
 *            it expects has arrived (its destination is complete, and, for reductions, peers
 *            have finished reading its source).
 */
#include "coll_reference.h"
#include "mm_coll.h"
#include "mm_tp.h"

#include <stdlib.h>
#include <string.h>

/* write @p n bytes of @p src at @p off into symmetric @p dest (@p len bytes, checked for
 * @p call) on @p world_rank: a copy into its mapping, or a put to another host */
static void mm_ref_write(const char *call, void *dest, size_t len, size_t off, const void *src,
                         size_t n, int world_rank)
{
    if (len == 0) /* zero-size collectives may pass any pointer */
        return;
    char *d = mm_tp_xlate(call, "dest", dest, len, world_rank);
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
meshmem_status_t mm_ref_broadcast(meshmem_team_t team, void *dest, const void *src, size_t nbytes,
                                  int root)
{
    MM_CHECK_INIT("mm_ref_broadcast");
    struct meshmem_team *t = mm_symmetric_rooted(team, root);
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
    uint64_t seq =
        mm_coll_exchange_open(t, MM_FLAG_ARRIVE, MM_CALL_TAG(MM_CALL_EXCHANGE, 0), &mine, 1, sizes);
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

/* block me of dest on every member: @p src's block @p stride * r (fcollect 0, alltoall 1) */
static meshmem_status_t mm_ref_blocks(const char *call, meshmem_team_t team, void *dest,
                                      const void *src, size_t nbytes, size_t stride)
{
    struct meshmem_team *t = mm_team_checked(call, team);
    uint64_t seq =
        mm_coll_exchange_open(t, MM_FLAG_ARRIVE, MM_CALL_TAG(MM_CALL_EXCHANGE, 0), NULL, 0, NULL);
    for (int k = 0; k < t->size; k++) {
        int r = (t->my_rank + k) % t->size;
        mm_ref_write(call, dest, nbytes * (size_t)t->size, nbytes * (size_t)t->my_rank,
                     (const char *)src + nbytes * stride * (size_t)r, nbytes, mm_team_world(t, r));
    }
    mm_coll_done_all(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_fcollect(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_CHECK_INIT("mm_ref_fcollect");
    return mm_ref_blocks("shmem_fcollect", team, dest, src, nbytes, 0);
}

meshmem_status_t mm_ref_alltoall(meshmem_team_t team, void *dest, const void *src, size_t nbytes)
{
    MM_CHECK_INIT("mm_ref_alltoall");
    return mm_ref_blocks("shmem_alltoall", team, dest, src, nbytes, 1);
}

meshmem_status_t mm_ref_alltoalls(meshmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                                  ptrdiff_t sst, size_t esize, size_t nelems)
{
    MM_CHECK_INIT("mm_ref_alltoalls");
    struct meshmem_team *t = mm_team_checked("shmem_alltoalls", team);
    if (dst < 1 || sst < 1) {
        mm_error("shmem_alltoalls: dst (%td) and sst (%td) must be at least 1", dst, sst);
        return MESHMEM_ERR_ARG;
    }
    uint64_t seq =
        mm_coll_exchange_open(t, MM_FLAG_ARRIVE, MM_CALL_TAG(MM_CALL_EXCHANGE, 0), NULL, 0, NULL);
    /* the last element written is ((size*nelems - 1)*dst) */
    size_t span = nelems ? (((size_t)t->size * nelems - 1) * (size_t)dst + 1) * esize : 0;
    for (int k = 0; k < t->size; k++) {
        int r = (t->my_rank + k) % t->size;
        /* block for member r: elements r*nelems .. of the source, strided */
        for (size_t i = 0; i < nelems; i++) {
            size_t di = ((size_t)t->my_rank * nelems + i) * (size_t)dst;
            size_t si = ((size_t)r * nelems + i) * (size_t)sst;
            mm_ref_write("shmem_alltoalls", dest, span, di * esize, (const char *)src + si * esize,
                         esize, mm_team_world(t, r));
        }
    }
    mm_coll_done_all(t, seq);
    return MESHMEM_OK;
}

meshmem_status_t mm_ref_allreduce(meshmem_team_t team, void *dest, const void *src, size_t count,
                                  meshmem_dtype_t dtype, meshmem_op_t op)
{
    MM_CHECK_INIT("mm_ref_allreduce");
    meshmem_status_t st = mm_symmetric_reduce_check(team, src, count, dtype, op);
    if (st != MESHMEM_OK)
        return st;
    struct meshmem_team *t = mm_team_checked("shmem_reduce", team);
    size_t bytes = count * meshmem_dtype_size(dtype);
    void *acc = bytes ? malloc(bytes) : NULL, *peer = bytes ? malloc(bytes) : NULL;
    if (bytes && (acc == NULL || peer == NULL)) {
        free(acc);
        free(peer);
        return MESHMEM_ERR_NOMEM;
    }
    uint64_t seq =
        mm_coll_exchange_open(t, MM_FLAG_ARRIVE, MM_CALL_TAG(MM_CALL_EXCHANGE, 0), NULL, 0, NULL);
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
