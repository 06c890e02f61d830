/*
 * Gather and all-gather(v) in one step. Gather: every member sends its block to the root,
 * which copies each into place (by descriptor above the eager size: straight from the
 * member's buffer). All-gather: every member sends its one block to every peer: N-1 messages
 * out, N-1 in, all pairs at once. RING is the N-1-step neighbour baseline.
 */
#include "mm_coll.h"
#include "mm_trace.h"

#include <stdlib.h>
#include <string.h>

/* expose my block for rendezvous sends (staging a private one) */
static const char *mm_gather_expose(const mm_coll_args_t *a, const void *blk, size_t len,
                                    bool force_stage, mm_desc_t *d)
{
    *d = (mm_desc_t){MM_DESC_NONE, 0};
    if (len <= mm_g.eager_bytes || a->t->size == 1)
        return blk;
    if (!force_stage && mm_desc_of(blk, len, d))
        return blk;
    char *stage = mm_msg_stage(a->t, len);
    if (stage == NULL)
        mm_fatal("%s: %zu bytes to stage exceed the staging memory (MESHMEM_STAGE_SIZE)", a->call,
                 len);
    return mm_msg_expose(blk, len, stage, d);
}

meshmem_status_t meshmem_coll_gather(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                     size_t count, meshmem_dtype_t dtype, int root,
                                     meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("gather", team,
                                 mm_trace_team_bytes(team, count * meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check_rooted(&a, "meshmem_coll_gather", team, dtype, algo, root,
                                               MESHMEM_ALGO_ONESTEP);
    if (st != MESHMEM_OK)
        return st;
    struct meshmem_team *t = a.t;
    int n = t->size, me = t->my_rank;
    size_t len = mm_coll_bytes(&a, count);
    MM_COLL_TRY_OFFLOAD(&a, gather,
                        sendbuf == MESHMEM_IN_PLACE ? (char *)recvbuf + (size_t)me * len : sendbuf,
                        recvbuf, len, root);
    if (mm_ghc_for(&a))
        return mm_ghc_gather(&a, sendbuf, recvbuf, len, root);
    if (mm_line_fits(&a, len)) {
        mm_line_gather(&a, sendbuf == MESHMEM_IN_PLACE ? NULL : sendbuf, recvbuf, len, root);
        return MESHMEM_OK;
    }
    char *rbuf = recvbuf;
    if (me == root && sendbuf != MESHMEM_IN_PLACE && len && rbuf + (size_t)me * len != sendbuf)
        memmove(rbuf + (size_t)me * len, sendbuf, len);
    /* rounds over slices of every block, cut alike by every member (mm_msg_round_bytes), so
     * that a private block larger than staging still goes */
    size_t chunk = mm_msg_round_bytes(len, a.esize, 1), done = 0;
    do {
        size_t c = len - done < chunk ? len - done : chunk;
        uint64_t seq = mm_coll_begin(t);
        if (me != root) {
            mm_desc_t d;
            const char *src = mm_gather_expose(&a, (const char *)sendbuf + done, c, false, &d);
            mm_msg_send_wait(t, seq, root, src, c, &d);
        } else {
            /* blocks pushed from other hosts: every receive posted first, so that they all
             * flow straight into place while this member takes its host's blocks */
            _Atomic uint64_t landing = 0;
            bool push = c > mm_g.eager_bytes;
            for (int r = 0; r < n && push; r++)
                if (r != me && mm_msg_pushed_to(t, r))
                    mm_msg_post_pushed(t, seq, r, rbuf + (size_t)r * len + done, c, &landing);
            for (int k = 1; k < n; k++) {
                int r = (me + k) % n;
                if (!push || !mm_msg_pushed_to(t, r))
                    mm_msg_recv_exact(a.call, t, seq, r, rbuf + (size_t)r * len + done, c);
            }
            for (int r = 0; r < n && push; r++)
                if (r != me && mm_msg_pushed_to(t, r))
                    mm_msg_take_posted(a.call, t, seq, r, c);
            mm_msg_posted_wait(&landing);
        }
        mm_coll_end(t, seq);
        done += c;
    } while (done < len);
    return MESHMEM_OK;
}

/* one step: my block to everyone, everyone's block to me */
static void mm_allgather_step(const mm_coll_args_t *a, const char *blk, size_t mylen, char *rbuf,
                              const size_t *roff, const size_t *rcap, bool in_place)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    uint64_t seq = mm_coll_begin(t);
    mm_desc_t d;
    const char *src = mm_gather_expose(a, blk, mylen, in_place, &d);
    uint8_t small[256], *sent = n <= 256 ? small : malloc((size_t)n);
    if (sent == NULL)
        mm_fatal("%s: out of memory", a->call);
    memset(sent, 0, (size_t)n);
    for (int k = 1; k < n; k++) {
        int r = (me + k) % n;
        sent[r] = mm_msg_send(t, seq, r, src, mylen, &d);
    }
    mm_coll_wake_all(t);
    if (mylen && rbuf + roff[me] != blk)
        memmove(rbuf + roff[me], blk, mylen);
    for (int k = 1; k < n; k++) {
        int r = (me + n - k) % n;
        mm_msg_recv_exact(a->call, t, seq, r, rbuf + roff[r], rcap[r]);
    }
    mm_msg_send_complete(t, seq, sent);
    mm_coll_end(t, seq);
    if (sent != small)
        free(sent);
}

/* ring: in step k pass on the block received in step k-1 (my own first) */
static void mm_allgather_ring(const mm_coll_args_t *a, const char *blk, size_t mylen, char *rbuf,
                              const size_t *roff, const size_t *rcap, bool in_place)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank, right = (me + 1) % n, left = (me + n - 1) % n;
    if (mylen && rbuf + roff[me] != blk)
        memmove(rbuf + roff[me], blk, mylen);
    for (int k = 0; k < n - 1; k++) {
        int out = (me + n - k) % n, in = (me + n - k - 1) % n;
        uint64_t seq = mm_coll_begin(t);
        mm_desc_t d;
        const char *src = mm_gather_expose(a, rbuf + roff[out], rcap[out], false, &d);
        bool by_desc = mm_msg_send(t, seq, right, src, rcap[out], &d);
        mm_coll_wake(t, right);
        mm_msg_recv_exact(a->call, t, seq, left, rbuf + roff[in], rcap[in]);
        if (by_desc)
            mm_msg_sent_wait(t, seq, right);
        mm_coll_end(t, seq);
    }
    (void)in_place;
}

meshmem_status_t mm_coll_allgather_run(mm_coll_args_t *a, const void *sendbuf, size_t mylen,
                                       void *recvbuf, const size_t *roff, const size_t *rcap)
{
    bool in_place = sendbuf == MESHMEM_IN_PLACE;
    const char *blk = in_place ? (const char *)recvbuf + roff[a->t->my_rank] : sendbuf;
    void (*form)(const mm_coll_args_t *, const char *, size_t, char *, const size_t *,
                 const size_t *, bool) = NULL;
    switch (a->algo) {
    case MESHMEM_ALGO_AUTO:
    case MESHMEM_ALGO_ONESTEP:
        if (mm_ghc_for(a))
            return mm_ghc_allgatherv(a, sendbuf, mylen, recvbuf, roff, rcap);
        form = mm_allgather_step;
        break;
    case MESHMEM_ALGO_RING: form = mm_allgather_ring; break;
    default: return mm_coll_no_algo(a);
    }
    /* a block larger than staging (a private one is staged whole): rounds over pieces of every
     * block, cut alike by every member from the block sizes, which all members know */
    int n = a->t->size;
    size_t largest = 0, cap = mm_msg_stage_capacity();
    for (int r = 0; r < n; r++)
        largest = rcap[r] > largest ? rcap[r] : largest;
    if (largest <= cap || cap == 0 || n == 1) {
        form(a, blk, mylen, recvbuf, roff, rcap, in_place);
        return MESHMEM_OK;
    }
    size_t *v = malloc(sizeof(size_t) * 2 * (size_t)n);
    if (v == NULL)
        mm_fatal("%s: out of memory", a->call);
    for (size_t at = 0; at < largest; at += cap) {
        for (int r = 0; r < n; r++) {
            size_t left = rcap[r] > at ? rcap[r] - at : 0;
            v[r] = roff[r] + (left ? at : 0);
            v[n + r] = left < cap ? left : cap;
        }
        size_t mine = mylen > at ? mylen - at : 0;
        form(a, blk + (mine ? at : 0), mine < cap ? mine : cap, recvbuf, v, v + n, in_place);
    }
    free(v);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_coll_allgather(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                        size_t count, meshmem_dtype_t dtype, meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("allgather", team,
                                 mm_trace_team_bytes(team, count * meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_allgather", team, dtype, algo);
    if (st != MESHMEM_OK)
        return st;
    int n = a.t->size;
    size_t len = mm_coll_bytes(&a, count);
    MM_COLL_TRY_OFFLOAD(&a, allgather,
                        sendbuf == MESHMEM_IN_PLACE ? (char *)recvbuf + (size_t)a.t->my_rank * len
                                                    : sendbuf,
                        recvbuf, len);
    if (mm_leader_for(&a, len)) { /* across hosts, the smallest (mm_coll_leader.c) */
        char *rbuf = recvbuf;
        mm_leader_allgather(
            &a, sendbuf == MESHMEM_IN_PLACE ? rbuf + (size_t)a.t->my_rank * len : sendbuf, rbuf,
            len);
        return MESHMEM_OK;
    }
    if (mm_line_fits(&a, len) && !mm_ghc_for(&a)) {
        char *rbuf = recvbuf;
        mm_line_allgather(&a,
                          sendbuf == MESHMEM_IN_PLACE ? rbuf + (size_t)a.t->my_rank * len : sendbuf,
                          rbuf, len);
        return MESHMEM_OK;
    }
    size_t *v = malloc(sizeof(size_t) * 2 * (size_t)n);
    if (v == NULL)
        return MESHMEM_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        v[r] = (size_t)r * len;
        v[n + r] = len;
    }
    st = mm_coll_allgather_run(&a, sendbuf, len, recvbuf, v, v + n);
    free(v);
    return st;
}

meshmem_status_t meshmem_coll_allgatherv(meshmem_team_t team, const void *sendbuf, size_t sendcount,
                                         void *recvbuf, const size_t *recvcounts,
                                         const size_t *displs, meshmem_dtype_t dtype,
                                         meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("allgather", team,
                                 mm_trace_sum_bytes(team, recvcounts, meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_allgatherv", team, dtype, algo);
    if (st != MESHMEM_OK)
        return st;
    if (recvcounts == NULL || displs == NULL) {
        mm_error("%s: recvcounts and displs are required", a.call);
        return MESHMEM_ERR_ARG;
    }
    int n = a.t->size;
    if (recvcounts[a.t->my_rank] != sendcount) {
        mm_error("%s: sendcount (%zu) differs from recvcounts[%d] (%zu)", a.call, sendcount,
                 a.t->my_rank, recvcounts[a.t->my_rank]);
        return MESHMEM_ERR_ARG;
    }
    size_t *v = malloc(sizeof(size_t) * 2 * (size_t)n);
    if (v == NULL)
        return MESHMEM_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        v[r] = mm_coll_bytes(&a, displs[r]);
        v[n + r] = mm_coll_bytes(&a, recvcounts[r]);
    }
    st = mm_coll_allgather_run(&a, sendbuf, mm_coll_bytes(&a, sendcount), recvbuf, v, v + n);
    free(v);
    return st;
}
