/*
 * Collectives whose every message fits in a flag line (MM_MSG_INLINE bytes): the whole call is
 * one cache line per pair, as NCCL's LL protocol. Same wire format as mm_msg's inline messages
 * (header word, then the bytes), so a member that takes the general path on mismatched counts
 * still reads these lines and reports the mismatch; this path checks the header too.
 *
 * Why a path of its own: at 8 bytes the line transfer between cores is ~60 ns, and the general
 * engine's bookkeeping (peer bitmaps, descriptors, staging checks, protocol switch) cost as much
 * again. Here a post is: room check, header, bytes, release store.
 */
#include "mm_coll.h"

#include <string.h>

/* the low 16 bits of call tag @p tag (mm_team.h), where a line's header carries them (mm_msg.h) */
#define MM_LINE_TAG(tag) ((uint64_t)((tag)&0xffffu) << MM_MSG_BYTES_BITS)

static_assert(MESHMEM_DTYPE_COUNT <= 16 && MESHMEM_OP_COUNT <= 8, "a call tag holds op and type");

/* n <= MM_MSG_INLINE bytes, inline: a libc memcpy call of unknown length costs as much as the
 * rest of an 8-byte post; words by fixed-size copies (single moves), then the tail */
static inline void mm_line_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    for (; n >= 8; n -= 8, d += 8, s += 8)
        memcpy(d, s, 8);
    for (; n > 0; n--)
        *d++ = *s++;
}

/* mm_line_post to world rank w on another host: the line built here, sent as one message (out
 * of line: its buffer would cost the shared-memory path a stack frame) */
static __attribute__((noinline, cold)) void mm_line_post_remote(struct meshmem_team *t, int w,
                                                                uint64_t seq, const void *buf,
                                                                size_t n, uint64_t tag)
{
    uint64_t line[MM_FLAG_PAYLOAD] = {MM_MSG_HDR(MM_MSG_INLINED, n) | tag};
    mm_line_copy(&line[1], buf, n);
    mm_coll_post_remote(t, w, MM_FLAG_DATA, seq, line, 1 + (int)((n + 7) / 8), NULL, NULL, 0);
}

/* post n bytes at buf to member dst inside collective seq, with the call's tag; no wake */
static inline void mm_line_post(struct meshmem_team *t, int dst, uint64_t seq, const void *buf,
                                size_t n, uint64_t tag)
{
    mm_coll_room(t, dst, seq);
    int w = mm_team_world(t, dst);
    mm_flag_t *f = mm_tp_line(w, mm_team_flag(t, seq, MM_FLAG_DATA, t->my_rank));
    if (MM_UNLIKELY(f == NULL)) {
        mm_line_post_remote(t, w, seq, buf, n, tag);
        return;
    }
    f->payload[0] = MM_MSG_HDR(MM_MSG_INLINED, n) | tag;
    mm_line_copy(&f->payload[1], buf, n);
    atomic_store_explicit(&f->seq, seq, memory_order_release);
}

/* end the job for a line of member src whose header @p got is not the one expected, @p want:
 * the call's tag differs (mm_coll_differs names what, the peer's tag known in its low 16 bits),
 * else the counts (out of line: the check itself is one compare on the path) */
static __attribute__((noinline, cold, noreturn)) void mm_line_differs(const mm_coll_args_t *a,
                                                                      int src, uint64_t got,
                                                                      uint64_t want)
{
    unsigned gt = MM_MSG_TAG(got), wt = MM_MSG_TAG(want);
    if (MM_MSG_PROTO(got) != MM_MSG_INLINED || gt == 0 || gt == wt)
        mm_msg_counts_differ(a->call, src, MM_MSG_BYTES(got), MM_MSG_BYTES(want));
    mm_coll_differs(a->t, a->call, src, gt | MM_CALL_TAG_PARTIAL, (unsigned)a->t->tag);
}

/* wait for member src's line of collective seq, tagged @p tag; @return its n bytes */
static inline const void *mm_line_wait(const mm_coll_args_t *a, int src, uint64_t seq, size_t n,
                                       uint64_t tag)
{
    const mm_flag_t *f = mm_coll_wait(a->t, src, MM_FLAG_DATA, seq);
    if (MM_UNLIKELY(f->payload[0] != (MM_MSG_HDR(MM_MSG_INLINED, n) | tag)))
        mm_line_differs(a, src, f->payload[0], MM_MSG_HDR(MM_MSG_INLINED, n) | tag);
    return &f->payload[1];
}

/* every member posts src + j * sstep to member j, then takes member j's block into rbuf + j * len
 * (its own from src + me * sstep): all-to-all (sstep = len) and all-gather (sstep = 0) */
static void mm_line_exchange(const mm_coll_args_t *a, const char *src, size_t sstep, char *rbuf,
                             size_t len, unsigned ctag)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    uint64_t tag = MM_LINE_TAG(ctag);
    uint64_t seq = mm_coll_begin(t);
    mm_coll_enter(t, a->call, ctag);
    for (int k = 1; k < n; k++) {
        int j = me + k < n ? me + k : me + k - n;
        mm_line_post(t, j, seq, src + (size_t)j * sstep, len, tag);
    }
    mm_coll_wake_all(t);
    /* every outgoing block is in a line now, so writing rbuf is safe in place */
    if (rbuf + (size_t)me * len != src + (size_t)me * sstep) /* else in place */
        mm_line_copy(rbuf + (size_t)me * len, src + (size_t)me * sstep, len);
    for (int k = 1; k < n; k++) {
        int j = me >= k ? me - k : me - k + n;
        mm_line_copy(rbuf + (size_t)j * len, mm_line_wait(a, j, seq, len, tag), len);
    }
    mm_coll_end_tag(t, seq, ctag);
}

void mm_line_alltoall(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len)
{
    mm_line_exchange(a, sbuf, len, rbuf, len, MM_CALL_TAG(MM_CALL_ALLTOALL, 0));
}

void mm_line_allgather(const mm_coll_args_t *a, const char *blk, char *rbuf, size_t len)
{
    mm_line_exchange(a, blk, 0, rbuf, len, MM_CALL_TAG(MM_CALL_ALLGATHER, 0));
}

/* every member's vector of collective seq reduced into recvbuf in member order from member 0:
 * the same order, so the same bits, wherever it runs; the own vector is kept aside first, as
 * recvbuf may be sendbuf */
static void mm_line_reduce_all(const mm_coll_args_t *a, uint64_t seq, const void *sendbuf,
                               void *recvbuf, size_t count, meshmem_dtype_t dtype, meshmem_op_t op,
                               uint64_t tag)
{
    size_t len = count * a->esize;
    _Alignas(16) uint64_t mine[MM_FLAG_PAYLOAD]; /* read as any type, long double included */
    mm_line_copy(mine, sendbuf, len);
    for (int r = 0; r < a->t->size; r++) {
        const void *v = r == a->t->my_rank ? (const void *)mine : mm_line_wait(a, r, seq, len, tag);
        if (r == 0)
            mm_line_copy(recvbuf, v, len);
        else
            mm_reduce_apply(dtype, op, recvbuf, v, count);
    }
}

void mm_line_allreduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf, size_t count,
                       meshmem_dtype_t dtype, meshmem_op_t op)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    unsigned ctag = MM_CALL_TAG(MM_CALL_ALLREDUCE, MM_CALL_OP(dtype, op));
    uint64_t tag = MM_LINE_TAG(ctag);
    uint64_t seq = mm_coll_begin(t);
    mm_coll_enter(t, a->call, ctag);
    for (int k = 1; k < n; k++) {
        int j = me + k < n ? me + k : me + k - n;
        mm_line_post(t, j, seq, sendbuf, count * a->esize, tag);
    }
    mm_coll_wake_all(t);
    mm_line_reduce_all(a, seq, sendbuf, recvbuf, count, dtype, op, tag);
    mm_coll_end_tag(t, seq, ctag);
}

/* @p root posts sbuf + j * sstep to member j, the others take it into rbuf; the root's own block
 * goes from sbuf + root * sstep to rbuf: broadcast (sstep = 0, rbuf = sbuf) and scatter */
static void mm_line_from_root(const mm_coll_args_t *a, const char *sbuf, size_t sstep, char *rbuf,
                              size_t len, int root, unsigned ctag)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    uint64_t tag = MM_LINE_TAG(ctag);
    uint64_t seq = mm_coll_begin(t);
    mm_coll_enter(t, a->call, ctag);
    if (me == root) {
        for (int k = 1; k < n; k++) {
            int j = root + k < n ? root + k : root + k - n;
            mm_line_post(t, j, seq, sbuf + (size_t)j * sstep, len, tag);
        }
        mm_coll_wake_all(t);
        if (rbuf != sbuf + (size_t)me * sstep) /* else in place (a broadcast) */
            mm_line_copy(rbuf, sbuf + (size_t)me * sstep, len);
    } else {
        mm_line_copy(rbuf, mm_line_wait(a, root, seq, len, tag), len);
    }
    mm_coll_end_tag(t, seq, ctag);
}

void mm_line_bcast(const mm_coll_args_t *a, void *buf, size_t len, int root)
{
    mm_line_from_root(a, buf, 0, buf, len, root, MM_CALL_TAG(MM_CALL_BCAST, root));
}

void mm_line_scatter(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len, int root)
{
    mm_line_from_root(a, sbuf, len, rbuf, len, root, MM_CALL_TAG(MM_CALL_SCATTER, root));
}

void mm_line_gather(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len, int root)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    unsigned ctag = MM_CALL_TAG(MM_CALL_GATHER, root);
    uint64_t tag = MM_LINE_TAG(ctag);
    uint64_t seq = mm_coll_begin(t);
    mm_coll_enter(t, a->call, ctag);
    if (me != root) {
        mm_line_post(t, root, seq, sbuf, len, tag);
        mm_coll_wake(t, root);
    } else {
        if (sbuf != NULL && rbuf + (size_t)me * len != sbuf) /* NULL: in place */
            memmove(rbuf + (size_t)me * len, sbuf, len);
        for (int k = 1; k < n; k++) {
            int j = me + k < n ? me + k : me + k - n;
            mm_line_copy(rbuf + (size_t)j * len, mm_line_wait(a, j, seq, len, tag), len);
        }
    }
    mm_coll_end_tag(t, seq, ctag);
}

void mm_line_reduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf, size_t count,
                    meshmem_dtype_t dtype, meshmem_op_t op, int root)
{
    struct meshmem_team *t = a->t;
    unsigned ctag = MM_CALL_TAG(MM_CALL_REDUCE, MM_CALL_ROOT_OP(root, dtype, op));
    uint64_t tag = MM_LINE_TAG(ctag);
    uint64_t seq = mm_coll_begin(t);
    mm_coll_enter(t, a->call, ctag);
    if (t->my_rank != root) {
        mm_line_post(t, root, seq, sendbuf, count * a->esize, tag);
        mm_coll_wake(t, root);
    } else {
        mm_line_reduce_all(a, seq, sendbuf, recvbuf, count, dtype, op, tag);
    }
    mm_coll_end_tag(t, seq, ctag);
}
