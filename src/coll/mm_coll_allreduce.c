/*
 * Reductions: all-reduce (five algorithms), reduce and reduce-scatter.
 *
 *   ONESTEP     every member sends its whole vector to every peer and reduces all N vectors
 *               itself, in member order: one step, bitwise-identical results. For small sizes.
 *   AGGRESSIVE  OPTWEB's aggressive sharing of averaged parameters (OPTWEB §3.C, Fig. 6b):
 *               member r owns slice r; every member sends slice r to r, which reduces the
 *               slices as they arrive, reading each straight from the channel or the sender's
 *               buffer (no intermediate copy), then all-gathers the results. Two memory passes.
 *   NAIVE       OPTWEB's naive form (Fig. 6a): all-to-all of the slices into a buffer, reduce
 *               it, all-gather: three memory passes.
 *   RING        reduce-scatter then all-gather around a ring, 2(N-1) steps.
 *   RECDBL      recursive doubling (non-powers of two fold the extra members first).
 * Every algorithm computes each result element along one fixed order, and distributes the
 * bits rather than recomputing them, so every member gets identical floating-point results.
 */
#include "mm_coll.h"
#include "mm_trace.h"

#include <stdlib.h>
#include <string.h>

static void *mm_xalloc(const mm_coll_args_t *a, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        mm_fatal("%s: out of memory (%zu bytes)", a->call, bytes);
    return p;
}

/* expose sendbuf for rendezvous messages when some message is above the eager size */
static const char *mm_red_expose(const mm_coll_args_t *a, const void *buf, size_t len,
                                 size_t largest_msg, mm_desc_t *d)
{
    *d = (mm_desc_t){MM_DESC_NONE, 0};
    if (largest_msg <= mm_g.eager_bytes || a->t->size == 1)
        return buf;
    const char *p = mm_coll_expose(a, buf, len, d);
    if (p == NULL)
        mm_fatal("%s: %zu bytes to stage exceed the staging memory (MESHMEM_STAGE_SIZE)", a->call,
                 len);
    return p;
}

/* Fold the team's n pieces of collective @p seq, @p cnt elements each, into @p out, member 0
 * first: @p mine for this member, each other member's message as it comes. The order is the
 * same everywhere, so equal pieces give equal bits. (@p out may be @p mine on member 0.) */
static void mm_reduce_fold(const mm_coll_args_t *a, uint64_t seq, const void *mine, void *out,
                           size_t cnt, meshmem_dtype_t dtype, meshmem_op_t op)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    size_t bytes = cnt * a->esize;
    for (int r = 0; r < n; r++) {
        mm_msg_t m = {.data = mine, .bytes = bytes, .by_desc = false};
        if (r != me)
            m = mm_msg_peek(t, seq, r);
        if (m.bytes != bytes)
            mm_msg_counts_differ(a->call, r, m.bytes, bytes);
        if (r != 0)
            mm_reduce_apply(dtype, op, out, m.data, cnt);
        else if (out != m.data && bytes)
            memcpy(out, m.data, bytes);
        if (r != me)
            mm_msg_release(t, seq, r, &m);
    }
}

/* a member's part of a rooted step: @p len bytes of @p buf to member @p root, returning once
 * @p buf may be reused */
static void mm_red_send_to_root(const mm_coll_args_t *a, uint64_t seq, const void *buf, size_t len,
                                int root)
{
    mm_desc_t d;
    const char *s = mm_red_expose(a, buf, len, len, &d);
    mm_msg_send_wait(a->t, seq, root, s, len, &d);
}

/*
 * One step of "send, then reduce what arrives in member order": member r gets piece r of
 * every member's vector — slice r when @p slices, else the whole vector — and reduces the n
 * pieces it receives, member 0 first, into @p out (mm_reduce_fold).
 */
static void mm_reduce_step(const mm_coll_args_t *a, const void *sendbuf, void *out, size_t count,
                           meshmem_dtype_t dtype, meshmem_op_t op, bool slices)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    size_t es = a->esize;
    uint64_t seq = mm_coll_begin(t);
    mm_desc_t d;
    size_t largest = slices ? (count / (size_t)n + 1) * es : count * es;
    const char *src = mm_red_expose(a, sendbuf, count * es, largest, &d);
    uint8_t small[256], *sent = n <= 256 ? small : mm_xalloc(a, (size_t)n);
    memset(sent, 0, (size_t)n);
    for (int k = 1; k < n; k++) {
        int r = (me + k) % n;
        size_t lo = slices ? mm_slice_lo(count, n, r) : 0;
        size_t hi = slices ? mm_slice_lo(count, n, r + 1) : count;
        mm_desc_t dr = mm_desc_add(d, lo * es);
        sent[r] = mm_msg_send(t, seq, r, src + lo * es, (hi - lo) * es, &dr);
    }
    mm_coll_wake_all(t);
    size_t lo = slices ? mm_slice_lo(count, n, me) : 0;
    size_t cnt = (slices ? mm_slice_lo(count, n, me + 1) : count) - lo;
    mm_reduce_fold(a, seq, (const char *)sendbuf + lo * es, out, cnt, dtype, op);
    mm_msg_send_complete(t, seq, sent);
    mm_coll_end(t, seq);
    if (sent != small)
        free(sent);
}

meshmem_status_t mm_coll_reduce_slices(const mm_coll_args_t *a, const void *sendbuf, void *out,
                                       size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    mm_reduce_step(a, sendbuf, out, count, dtype, op, true);
    return MESHMEM_OK;
}

/* one step: everyone's whole vector to everyone; each reduces all of them in member order */
static void mm_allreduce_onestep(const mm_coll_args_t *a, const void *sendbuf, void *res,
                                 size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    mm_reduce_step(a, sendbuf, res, count, dtype, op, false);
}

/* all-gather of the reduced slices (slice r at its place in recvbuf, on member r) */
static void mm_allreduce_share(const mm_coll_args_t *a, void *recvbuf, size_t count)
{
    int n = a->t->size;
    size_t *v = mm_xalloc(a, sizeof(size_t) * 2 * (size_t)n);
    for (int r = 0; r < n; r++) {
        v[r] = mm_slice_lo(count, n, r) * a->esize;
        v[n + r] = mm_slice_lo(count, n, r + 1) * a->esize - v[r];
    }
    mm_coll_args_t g = *a;
    g.algo = MESHMEM_ALGO_ONESTEP;
    mm_coll_allgather_run(&g, MESHMEM_IN_PLACE, v[n + a->t->my_rank], recvbuf, v, v + n);
    free(v);
}

/* the result slice goes to recvbuf, through a temporary when recvbuf is also the source */
static void mm_allreduce_aggressive(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                    size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    int n = a->t->size, me = a->t->my_rank;
    size_t es = a->esize, lo = mm_slice_lo(count, n, me);
    size_t cnt = mm_slice_lo(count, n, me + 1) - lo;
    char *dst = (char *)recvbuf + lo * es;
    bool alias = sendbuf == recvbuf;
    char *res = alias ? mm_xalloc(a, cnt * es) : dst;
    mm_coll_reduce_slices(a, sendbuf, res, count, dtype, op);
    if (alias) { /* every peer has read our slices (reduce_slices waited for it) */
        memcpy(dst, res, cnt * es);
        free(res);
    }
    mm_allreduce_share(a, recvbuf, count);
}

static void mm_allreduce_naive(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                               size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    size_t es = a->esize, lo = mm_slice_lo(count, n, me);
    size_t cnt = mm_slice_lo(count, n, me + 1) - lo, sl = cnt * es;
    /* pass 1: all-to-all of the slices into a buffer */
    size_t *v = mm_xalloc(a, sizeof(size_t) * 4 * (size_t)n);
    size_t *soff = v, *slen = v + n, *roff = v + 2 * n, *rcap = v + 3 * n;
    for (int r = 0; r < n; r++) {
        soff[r] = mm_slice_lo(count, n, r) * es;
        slen[r] = mm_slice_lo(count, n, r + 1) * es - soff[r];
        roff[r] = (size_t)r * sl;
        rcap[r] = sl;
    }
    char *gathered = mm_xalloc(a, sl * (size_t)n);
    mm_coll_a2a_step(a, sendbuf, soff, slen, gathered, roff, rcap, NULL, false);
    /* pass 2: reduce the buffer (member order) into our slice of the result */
    char *dst = (char *)recvbuf + lo * es;
    if (sl)
        memcpy(dst, gathered, sl);
    for (int r = 1; r < n; r++)
        mm_reduce_apply(dtype, op, dst, gathered + (size_t)r * sl, cnt);
    free(gathered);
    free(v);
    /* pass 3: all-gather */
    mm_allreduce_share(a, recvbuf, count);
}

/* ring: reduce-scatter (N-1 steps) then all-gather (N-1 steps) around the ring */
static void mm_allreduce_ring(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                              size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank, right = (me + 1) % n, left = (me + n - 1) % n;
    size_t es = a->esize;
    if (recvbuf != sendbuf && count)
        memcpy(recvbuf, sendbuf, count * es);
    char *acc = recvbuf;
    for (int k = 0; k < n - 1; k++) {
        /* send chunk me-k (partly reduced), receive chunk me-k-1 and add ours to it */
        int cs = (me + n - k) % n, cr = (me + 2 * n - k - 1) % n;
        size_t slo = mm_slice_lo(count, n, cs), shi = mm_slice_lo(count, n, cs + 1);
        size_t rlo = mm_slice_lo(count, n, cr), rhi = mm_slice_lo(count, n, cr + 1);
        uint64_t seq = mm_coll_begin(t);
        mm_desc_t d;
        const char *src = mm_red_expose(a, acc + slo * es, (shi - slo) * es, (shi - slo) * es, &d);
        bool by_desc = mm_msg_send(t, seq, right, src, (shi - slo) * es, &d);
        mm_coll_wake(t, right);
        mm_msg_t m = mm_msg_peek(t, seq, left);
        if (m.bytes != (rhi - rlo) * es)
            mm_msg_counts_differ(a->call, left, m.bytes, (rhi - rlo) * es);
        /* received (reduced along the ring so far) op ours: one fixed order per element */
        mm_reduce_apply3(dtype, op, acc + rlo * es, m.data, acc + rlo * es, rhi - rlo);
        mm_msg_release(t, seq, left, &m);
        if (by_desc)
            mm_msg_sent_wait(t, seq, right);
        mm_coll_end(t, seq);
    }
    /* member me now holds the full reduction of chunk me+1: ring all-gather of the chunks */
    for (int k = 0; k < n - 1; k++) {
        int cs = (me + 1 + n - k) % n, cr = (me + n - k) % n;
        size_t slo = mm_slice_lo(count, n, cs), shi = mm_slice_lo(count, n, cs + 1);
        size_t rlo = mm_slice_lo(count, n, cr), rhi = mm_slice_lo(count, n, cr + 1);
        uint64_t seq = mm_coll_begin(t);
        mm_desc_t d;
        const char *src = mm_red_expose(a, acc + slo * es, (shi - slo) * es, (shi - slo) * es, &d);
        bool by_desc = mm_msg_send(t, seq, right, src, (shi - slo) * es, &d);
        mm_coll_wake(t, right);
        mm_msg_recv_exact(a->call, t, seq, left, acc + rlo * es, (rhi - rlo) * es);
        if (by_desc)
            mm_msg_sent_wait(t, seq, right);
        mm_coll_end(t, seq);
    }
}

/* exchange the whole vector with @p peer in a collective of its own; combine, lower rank first */
static void mm_recdbl_step(const mm_coll_args_t *a, int peer, char *acc, size_t count,
                           meshmem_dtype_t dtype, meshmem_op_t op, bool combine, bool send,
                           bool recv)
{
    struct meshmem_team *t = a->t;
    size_t len = count * a->esize;
    uint64_t seq = mm_coll_begin(t);
    bool by_desc = false;
    if (send) {
        mm_desc_t d;
        const char *src = mm_red_expose(a, acc, len, len, &d);
        by_desc = mm_msg_send(t, seq, peer, src, len, &d);
        mm_coll_wake(t, peer);
    }
    if (recv) {
        mm_msg_t m = mm_msg_peek(t, seq, peer);
        if (m.bytes != len)
            mm_msg_counts_differ(a->call, peer, m.bytes, len);
        /* while the peer reads our acc (by descriptor) the result goes to a temporary */
        char *dst = by_desc ? mm_xalloc(a, len) : acc;
        if (!combine)
            memcpy(dst, m.data, len);
        else if (peer < t->my_rank) /* lower rank's vector first: the same bits on both */
            mm_reduce_apply3(dtype, op, dst, m.data, acc, count);
        else
            mm_reduce_apply3(dtype, op, dst, acc, m.data, count);
        mm_msg_release(t, seq, peer, &m);
        if (by_desc) {
            mm_msg_sent_wait(t, seq, peer);
            memcpy(acc, dst, len);
            free(dst);
        }
    } else if (by_desc) {
        mm_msg_sent_wait(t, seq, peer);
    }
    mm_coll_end(t, seq);
}

static void mm_allreduce_recdbl(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    int n = a->t->size, me = a->t->my_rank;
    size_t len = count * a->esize;
    /* recvbuf accumulates; mm_recdbl_step never changes it while a peer reads it */
    char *acc = recvbuf;
    if (recvbuf != sendbuf && len)
        memcpy(acc, sendbuf, len);
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p;
    /* fold: among the first 2*rem members, even ones hand their vector to the next */
    bool folded_out = me < 2 * rem && me % 2 == 0;
    if (rem) {
        if (me < 2 * rem)
            mm_recdbl_step(a, me % 2 ? me - 1 : me + 1, acc, count, dtype, op, true, folded_out,
                           !folded_out);
        else
            mm_coll_end(a->t, mm_coll_begin(a->t)); /* keep the sequence in step */
    }
    int nr = me < 2 * rem ? me / 2 : me - rem;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (folded_out) {
            mm_coll_end(a->t, mm_coll_begin(a->t));
            continue;
        }
        int pn = nr ^ mask;
        int peer = pn < rem ? 2 * pn + 1 : pn + rem;
        mm_recdbl_step(a, peer, acc, count, dtype, op, true, true, true);
    }
    if (rem) {
        if (me < 2 * rem)
            mm_recdbl_step(a, me % 2 ? me - 1 : me + 1, acc, count, dtype, op, false, !folded_out,
                           folded_out);
        else
            mm_coll_end(a->t, mm_coll_begin(a->t));
    }
}

/* one round of a full-mesh all-reduce by algorithm a->algo */
static meshmem_status_t mm_allreduce_round(const mm_coll_args_t *a, const void *src, void *recvbuf,
                                           size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    void (*form)(const mm_coll_args_t *, const void *, void *, size_t, meshmem_dtype_t,
                 meshmem_op_t) = a->algo == MESHMEM_ALGO_ONESTEP      ? mm_allreduce_onestep
                                 : a->algo == MESHMEM_ALGO_AGGRESSIVE ? mm_allreduce_aggressive
                                 : a->algo == MESHMEM_ALGO_NAIVE      ? mm_allreduce_naive
                                 : a->algo == MESHMEM_ALGO_RING       ? mm_allreduce_ring
                                 : a->algo == MESHMEM_ALGO_RECDBL     ? mm_allreduce_recdbl
                                                                      : NULL;
    if (form == NULL)
        return mm_coll_no_algo(a);
    /* one step reads every member's whole vector while it writes: in place, to a temporary */
    char *tmp =
        form == mm_allreduce_onestep && src == recvbuf ? mm_xalloc(a, count * a->esize) : NULL;
    form(a, src, tmp ? tmp : recvbuf, count, dtype, op);
    if (tmp) {
        memcpy(recvbuf, tmp, count * a->esize);
        free(tmp);
    }
    return MESHMEM_OK;
}

meshmem_status_t meshmem_coll_allreduce(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                        size_t count, meshmem_dtype_t dtype, meshmem_op_t op,
                                        meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("allreduce", team, count * meshmem_dtype_size(dtype)));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_allreduce", team, dtype, algo);
    if (st == MESHMEM_OK)
        st = mm_coll_check_op(&a, dtype, op);
    if (st != MESHMEM_OK)
        return st;
    size_t len = mm_coll_bytes(&a, count);
    const void *src = sendbuf == MESHMEM_IN_PLACE ? recvbuf : sendbuf;
    MM_COLL_TRY_OFFLOAD(&a, allreduce, src, recvbuf, count, dtype, op);
    if (mm_leader_for(&a, len)) { /* across hosts, the smallest (mm_coll_leader.c) */
        mm_leader_allreduce(&a, src, recvbuf, count, dtype, op);
        return MESHMEM_OK;
    }
    algo = a.algo;
    if (mm_ghc_for(&a)) /* per dimension on a GHC team (mm_coll_ghc.c) */
        return mm_ghc_allreduce(&a, src, recvbuf, count, dtype, op, algo);
    if (mm_line_fits(&a, len)) {
        mm_line_allreduce(&a, src, recvbuf, count, dtype, op);
        return MESHMEM_OK;
    }
    if (algo == MESHMEM_ALGO_AUTO) {
        /* across hosts the naive form's all-to-all posts its receives before the data comes,
         * straight into one buffer, where the aggressive one takes each peer's slice after its
         * header, a network wait per peer; on one host aggressive is the faster (measured:
         * docs/results-across.md, "Rooted collectives and reductions between hosts") */
        algo = len <= mm_g.eager_bytes    ? MESHMEM_ALGO_ONESTEP
               : mm_team_spans_hosts(a.t) ? MESHMEM_ALGO_NAIVE
                                          : MESHMEM_ALGO_AGGRESSIVE;
    }
    a.algo = algo;
    /* rounds over pieces of the vector when it exceeds staging, so that a private one still
     * goes (cut alike by every member: sizes only; each element is folded as in one round) */
    size_t round = mm_msg_round_bytes(len, a.esize, 1) / a.esize, at = 0;
    do {
        size_t pc = count - at < round ? count - at : round;
        st = mm_allreduce_round(&a, (const char *)src + at * a.esize,
                                (char *)recvbuf + at * a.esize, pc, dtype, op);
        at += pc;
    } while (at < count && st == MESHMEM_OK);
    return st;
}

/* Reduce at the root in one step: the other member's whole vector to the root, which folds
 * them in member order (the bits of the slice path). For a pair of ranks on two hosts: the
 * slice path sends half each way, then the other half to the root, two network steps one
 * after the other where this takes one (docs/results-across.md, "Rooted collectives and
 * reductions between hosts") */
static void mm_reduce_direct(const mm_coll_args_t *a, const void *src, void *recvbuf, size_t count,
                             meshmem_dtype_t dtype, meshmem_op_t op, int root)
{
    struct meshmem_team *t = a->t;
    size_t len = count * a->esize;
    uint64_t seq = mm_coll_begin(t);
    if (t->my_rank != root) {
        mm_red_send_to_root(a, seq, src, len, root);
    } else {
        /* in place at a root other than member 0: member 0's vector would land on ours first */
        char *out = src == recvbuf && root != 0 ? mm_xalloc(a, len) : recvbuf;
        mm_reduce_fold(a, seq, src, out, count, dtype, op);
        if (out != recvbuf) {
            memcpy(recvbuf, out, len);
            free(out);
        }
    }
    mm_coll_end(t, seq);
}

/* one round of a full-mesh reduce to @p root (above the line path) */
static void mm_reduce_round(const mm_coll_args_t *a, const void *src, void *recvbuf, size_t count,
                            meshmem_dtype_t dtype, meshmem_op_t op, int root)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    size_t es = a->esize;
    if (n == 2 && mm_team_spans_hosts(t)) {
        mm_reduce_direct(a, src, recvbuf, count, dtype, op, root);
        return;
    }
    /* reduce-scatter the slices, then gather them at the root */
    size_t lo = mm_slice_lo(count, n, me), cnt = mm_slice_lo(count, n, me + 1) - lo;
    char *slice = mm_xalloc(a, cnt * es);
    mm_coll_reduce_slices(a, src, slice, count, dtype, op);
    uint64_t seq = mm_coll_begin(t);
    if (me != root) {
        mm_red_send_to_root(a, seq, slice, cnt * es, root);
    } else {
        memcpy((char *)recvbuf + lo * es, slice, cnt * es);
        for (int k = 1; k < n; k++) {
            int r = (me + k) % n;
            size_t rlo = mm_slice_lo(count, n, r), rhi = mm_slice_lo(count, n, r + 1);
            mm_msg_recv_exact(a->call, t, seq, r, (char *)recvbuf + rlo * es, (rhi - rlo) * es);
        }
    }
    mm_coll_end(t, seq);
    free(slice);
}

meshmem_status_t meshmem_coll_reduce(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                     size_t count, meshmem_dtype_t dtype, meshmem_op_t op, int root,
                                     meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("reduce", team, count * meshmem_dtype_size(dtype)));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_reduce", team, dtype, algo);
    if (st == MESHMEM_OK)
        st = mm_coll_check_root(&a, root);
    if (st == MESHMEM_OK)
        st = mm_coll_check_op(&a, dtype, op);
    if (st == MESHMEM_OK)
        st = mm_coll_check_algo(&a, MESHMEM_ALGO_AGGRESSIVE);
    if (st != MESHMEM_OK)
        return st;
    size_t es = a.esize, len = mm_coll_bytes(&a, count);
    const void *src = sendbuf == MESHMEM_IN_PLACE ? recvbuf : sendbuf;
    if (mm_ghc_for(&a))
        return mm_ghc_reduce(&a, src, recvbuf, count, dtype, op, root);
    /* whatever the hint (AUTO and AGGRESSIVE are the one algorithm of reduce): members that
     * mix them must still take the same path */
    if (len <= MM_MSG_INLINE) {
        mm_line_reduce(&a, src, recvbuf, count, dtype, op, root);
        return MESHMEM_OK;
    }
    /* rounds over pieces of the vector when it exceeds staging, as the all-reduce's */
    size_t round = mm_msg_round_bytes(len, es, 1) / es, at = 0;
    do {
        size_t pc = count - at < round ? count - at : round;
        char *out = recvbuf ? (char *)recvbuf + at * es : NULL;
        mm_reduce_round(&a, (const char *)src + at * es, out, pc, dtype, op, root);
        at += pc;
    } while (at < count);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_coll_reduce_scatter(meshmem_team_t team, const void *sendbuf,
                                             void *recvbuf, size_t recvcount, meshmem_dtype_t dtype,
                                             meshmem_op_t op, meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("reduce_scatter", team,
                                 mm_trace_team_bytes(team, recvcount * meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_reduce_scatter", team, dtype, algo);
    if (st == MESHMEM_OK)
        st = mm_coll_check_op(&a, dtype, op);
    if (st == MESHMEM_OK)
        st = mm_coll_check_algo(&a, MESHMEM_ALGO_AGGRESSIVE);
    if (st != MESHMEM_OK)
        return st;
    size_t count = recvcount * (size_t)a.t->size;
    mm_coll_bytes(&a, count);
    const char *src = sendbuf == MESHMEM_IN_PLACE ? recvbuf : sendbuf;
    size_t es = a.esize, n = (size_t)a.t->size;
    bool ghc = mm_ghc_for(&a);
    meshmem_status_t (*slices)(const mm_coll_args_t *, const void *, void *, size_t,
                               meshmem_dtype_t, meshmem_op_t) =
        ghc ? mm_ghc_reduce_scatter : mm_coll_reduce_slices;
    size_t round = ghc ? mm_ghc_round(&a) / n : mm_msg_round_bytes(count * es, es, (int)n) / es;
    round = round ? round : 1;
    bool one = round >= recvcount;
    if (one && (ghc || src != recvbuf)) /* the GHC's form handles in place itself */
        return slices(&a, src, recvbuf, count, dtype, op);
    /* in place (the source is recvbuf: reduce into a temporary first), or above staging:
     * rounds of @p round elements of every slice, packed side by side (so that a private
     * vector still goes; cut alike by every member: sizes only). In place, the result's piece
     * is written after the round has read its pieces of every slice: the pieces of slice 0
     * that later rounds read lie past it. */
    char *pack = one ? NULL : mm_xalloc(&a, round * n * es);
    char *part = mm_xalloc(&a, (one ? recvcount : round) * es);
    for (size_t at = 0; at < recvcount; at += round) {
        size_t pc = recvcount - at < round ? recvcount - at : round;
        for (size_t r = 0; pack && r < n; r++)
            memcpy(pack + r * pc * es, src + (r * recvcount + at) * es, pc * es);
        slices(&a, pack ? pack : src, part, pc * n, dtype, op);
        memcpy((char *)recvbuf + at * es, part, pc * es);
    }
    free(part);
    free(pack);
    return MESHMEM_OK;
}
