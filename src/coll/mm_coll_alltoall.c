/*
 * All-to-all and all-to-all-v in one step (OPTWEB §2.C): every member sends each peer its
 * block as one message (inline, eager, or by descriptor; mm_msg.h) and receives one from each.
 * There is no algorithmic step besides that: the start-up cost is one unicast per pair, all
 * pairs at once on their own channels. RING is the pairwise-exchange baseline (N-1 steps).
 *
 * Private send buffers above the eager size are staged once into shared memory; when they do
 * not fit in staging the exchange runs in rounds over slices of every block.
 */
#include "mm_coll.h"
#include "mm_trace.h"

#include <stdlib.h>
#include <string.h>

/* a bitmap over members, on the stack for common sizes */
typedef struct {
    uint8_t small[256];
    uint8_t *bits;
} mm_peerset_t;

static void mm_peerset_init(mm_peerset_t *s, int n)
{
    s->bits = n <= 256 ? s->small : calloc((size_t)n, 1);
    if (s->bits == NULL)
        mm_fatal("collective: out of memory for %d peers", n);
    memset(s->bits, 0, (size_t)n);
}

static void mm_peerset_fini(mm_peerset_t *s)
{
    if (s->bits != s->small)
        free(s->bits);
}

/* block of @p len bytes to member @p j goes by descriptor from staging when not in shared memory
 * (or always, @p stage_all: in place) */
static bool mm_a2a_staged(struct meshmem_team *t, int j, size_t len, bool stage_all)
{
    return j != t->my_rank && len > mm_g.eager_bytes && (stage_all || !mm_msg_pushed_to(t, j));
}

void mm_coll_a2a_step(const mm_coll_args_t *a, const char *sbuf, const size_t *soff,
                      const size_t *slen, char *rbuf, const size_t *roff, const size_t *rcap,
                      size_t *rlen, bool stage_all)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    uint64_t seq = mm_coll_begin(t);
    mm_peerset_t rndv;
    mm_peerset_init(&rndv, n);

    /* expose what goes by descriptor: in place, or private blocks, go through staging (a block
     * pushed to another host needs no descriptor; in place it is staged all the same, since
     * this rank's receives overwrite it while the push may still read it) */
    size_t big = 0;
    for (int j = 0; j < n; j++)
        if (mm_a2a_staged(t, j, slen[j], stage_all))
            big += slen[j];
    char *stage = NULL;
    if (big) {
        mm_desc_t probe;
        bool shared = true;
        for (int j = 0; j < n && shared; j++)
            if (mm_a2a_staged(t, j, slen[j], stage_all))
                shared = mm_desc_of(sbuf + soff[j], slen[j], &probe);
        if (stage_all || !shared) {
            stage = mm_msg_stage(t, big);
            if (stage == NULL)
                mm_fatal("%s: the private send buffer's %zu bytes to stage exceed the staging "
                         "memory (%zu): send from symmetric memory (meshmem_malloc) or raise "
                         "MESHMEM_STAGE_SIZE",
                         a->call, big, mm_msg_stage_capacity());
        }
    }
    size_t at = 0;
    for (int k = 1; k < n; k++) {
        int j = (me + k) % n;
        const char *blk = sbuf + soff[j];
        mm_desc_t d = {MM_DESC_NONE, 0};
        if (slen[j] > mm_g.eager_bytes) {
            if (stage && mm_a2a_staged(t, j, slen[j], stage_all)) {
                memcpy(stage + at, blk, slen[j]);
                blk = stage + at;
                at += slen[j];
            }
            mm_desc_of(blk, slen[j], &d);
        }
        rndv.bits[j] = mm_msg_send(t, seq, j, blk, slen[j], &d);
    }
    mm_coll_wake_all(t);
    /* own block: a local copy (memmove: in place it may overlap itself) */
    if (rcap[me] < slen[me])
        mm_fatal("%s: %zu bytes for rank %d's own block, room for %zu", a->call, slen[me], me,
                 rcap[me]);
    if (slen[me] && rbuf + roff[me] != sbuf + soff[me])
        memmove(rbuf + roff[me], sbuf + soff[me], slen[me]);
    if (rlen)
        rlen[me] = slen[me];
    for (int k = 1; k < n; k++) {
        int j = (me + n - k) % n;
        size_t got = mm_msg_recv(a->call, t, seq, j, rbuf + roff[j], rcap[j]);
        if (rlen)
            rlen[j] = got;
    }
    mm_msg_send_complete(t, seq, rndv.bits);
    mm_coll_end(t, seq);
    mm_peerset_fini(&rndv);
}

/* pairwise exchange: N-1 steps, in step k send to me+k and receive from me-k */
static void mm_a2a_ring(const mm_coll_args_t *a, const char *sbuf, const size_t *soff,
                        const size_t *slen, char *rbuf, const size_t *roff, const size_t *rcap,
                        size_t *rlen, bool stage_all)
{
    struct meshmem_team *t = a->t;
    int n = t->size, me = t->my_rank;
    /* in place, step k would overwrite the block step n-k still has to send: copy first */
    char *copy = NULL;
    if (stage_all) {
        size_t end = 0;
        for (int j = 0; j < n; j++)
            if (soff[j] + slen[j] > end)
                end = soff[j] + slen[j];
        copy = malloc(end ? end : 1);
        if (copy == NULL)
            mm_fatal("%s: out of memory (%zu bytes)", a->call, end);
        memcpy(copy, sbuf, end);
        sbuf = copy;
        stage_all = false;
    }
    if (slen[me] && rbuf + roff[me] != sbuf + soff[me])
        memmove(rbuf + roff[me], sbuf + soff[me], slen[me]);
    if (rlen)
        rlen[me] = slen[me];
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me + n - k) % n;
        uint64_t seq = mm_coll_begin(t);
        const char *blk = sbuf + soff[to];
        mm_desc_t d = {MM_DESC_NONE, 0};
        if (slen[to] > mm_g.eager_bytes && !mm_msg_pushed_to(t, to)) {
            if (stage_all || !mm_desc_of(blk, slen[to], &d)) {
                char *stage = mm_msg_stage(t, slen[to]);
                if (stage == NULL)
                    mm_fatal("%s: %zu bytes to stage exceed the staging memory", a->call, slen[to]);
                blk = mm_msg_expose(blk, slen[to], stage, &d);
            }
        }
        bool by_desc = mm_msg_send(t, seq, to, blk, slen[to], &d);
        mm_coll_wake(t, to);
        size_t got = mm_msg_recv(a->call, t, seq, from, rbuf + roff[from], rcap[from]);
        if (rlen)
            rlen[from] = got;
        if (by_desc)
            mm_msg_sent_wait(t, seq, to);
        mm_coll_end(t, seq);
    }
    free(copy);
}

typedef void (*mm_a2a_fn)(const mm_coll_args_t *, const char *, const size_t *, const size_t *,
                          char *, const size_t *, const size_t *, size_t *, bool);

static mm_a2a_fn mm_a2a_algo(const mm_coll_args_t *a)
{
    switch (a->algo) {
    case MESHMEM_ALGO_AUTO:
    case MESHMEM_ALGO_ONESTEP: return mm_coll_a2a_step;
    case MESHMEM_ALGO_RING: return mm_a2a_ring;
    default: return NULL;
    }
}

meshmem_status_t meshmem_coll_alltoall(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                       size_t count, meshmem_dtype_t dtype, meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("alltoall", team,
                                 mm_trace_team_bytes(team, count * meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_alltoall", team, dtype, algo);
    if (st != MESHMEM_OK)
        return st;
    int n = a.t->size;
    size_t len = mm_coll_bytes(&a, count);
    bool in_place = sendbuf == MESHMEM_IN_PLACE;
    const char *sbuf = in_place ? recvbuf : sendbuf;
    MM_COLL_TRY_OFFLOAD(&a, alltoall, sbuf, recvbuf, len);
    if (mm_leader_for(&a, len)) { /* across hosts, the smallest (mm_coll_leader.c) */
        mm_leader_alltoall(&a, sbuf, recvbuf, len);
        return MESHMEM_OK;
    }
    mm_a2a_fn fn = mm_a2a_algo(&a);
    if (fn == NULL)
        return mm_coll_no_algo(&a);
    if (mm_ghc_for(&a)) { /* per dimension on a GHC team (mm_coll_ghc.c) */
        mm_ghc_alltoall(&a, sbuf, recvbuf, len);
        return MESHMEM_OK;
    }
    if (mm_line_fits(&a, len)) {
        mm_line_alltoall(&a, sbuf, recvbuf, len);
        return MESHMEM_OK;
    }
    /* offsets and lengths on the stack for teams up to 64: a malloc/free pair was ~125 of the
     * ~890 instructions of an 8-byte 2-rank call (callgrind, docs/results-coll.md) */
    size_t on_stack[4 * 64];
    size_t *v = n <= 64 ? on_stack : malloc(sizeof(size_t) * 4 * (size_t)n);
    if (v == NULL)
        return MESHMEM_ERR_NOMEM;
    size_t *off = v, *slen = v + n, *rcap = v + 2 * n, *roff = v + 3 * n;
    /* private blocks larger than staging go in rounds over slices of every block */
    mm_desc_t probe;
    size_t chunk = len;
    if (len > mm_g.eager_bytes && n > 1 &&
        (in_place || !mm_desc_of(sbuf, len * (size_t)n, &probe))) {
        size_t cap = mm_msg_stage_capacity() / (size_t)n / a.esize * a.esize;
        if (cap == 0)
            mm_fatal("%s: no staging memory (MESHMEM_STAGE_SIZE)", a.call);
        if (chunk > cap)
            chunk = cap;
    }
    size_t done = 0;
    do {
        size_t c = len - done < chunk ? len - done : chunk;
        for (int j = 0; j < n; j++) {
            off[j] = (size_t)j * len + done;
            roff[j] = off[j];
            slen[j] = rcap[j] = c;
        }
        fn(&a, sbuf, off, slen, recvbuf, roff, rcap, NULL, in_place);
        done += c;
    } while (done < len);
    if (v != on_stack)
        free(v);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_coll_alltoallv(meshmem_team_t team, const void *sendbuf,
                                        const size_t *sendcounts, const size_t *sdispls,
                                        void *recvbuf, const size_t *recvcounts,
                                        const size_t *rdispls, size_t recvcap,
                                        size_t *recvcounts_out, meshmem_dtype_t dtype,
                                        meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("alltoall", team,
                                 mm_trace_sum_bytes(team, sendcounts, meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check(&a, "meshmem_coll_alltoallv", team, dtype, algo);
    if (st != MESHMEM_OK)
        return st;
    mm_a2a_fn fn = mm_a2a_algo(&a);
    if (fn == NULL)
        return mm_coll_no_algo(&a);
    if (sendbuf == MESHMEM_IN_PLACE || !sendcounts || !sdispls || !rdispls) {
        mm_error("%s: sendbuf, sendcounts, sdispls and rdispls are required (no in-place form)",
                 a.call);
        return MESHMEM_ERR_ARG;
    }
    int n = a.t->size;
    size_t *v = malloc(sizeof(size_t) * 5 * (size_t)n);
    if (v == NULL)
        return MESHMEM_ERR_NOMEM;
    size_t *soff = v, *slen = v + n, *roff = v + 2 * n, *rcap = v + 3 * n, *rlen = v + 4 * n;
    for (int j = 0; j < n; j++) {
        soff[j] = mm_coll_bytes(&a, sdispls[j]);
        slen[j] = mm_coll_bytes(&a, sendcounts[j]);
        roff[j] = mm_coll_bytes(&a, rdispls[j]);
        if (recvcounts) {
            rcap[j] = mm_coll_bytes(&a, recvcounts[j]);
        } else {
            /* counts unknown: a block may run up to the next displacement or the end */
            size_t end = recvcap;
            for (int k = 0; k < n; k++)
                if (rdispls[k] > rdispls[j] && rdispls[k] < end)
                    end = rdispls[k];
            if (end < rdispls[j]) {
                mm_error("%s: rdispls[%d] (%zu) is past recvcap (%zu)", a.call, j, rdispls[j],
                         recvcap);
                free(v);
                return MESHMEM_ERR_ARG;
            }
            rcap[j] = mm_coll_bytes(&a, end - rdispls[j]);
        }
    }
    const mm_tp_coll_ops_t *off = mm_coll_offload(&a);
    st = MM_UNLIKELY(off != NULL) && off->alltoallv != NULL
             ? off->alltoallv(&a.t->group, sendbuf, soff, slen, recvbuf, roff, rcap, rlen)
             : MESHMEM_ERR_UNSUPPORTED;
    if (st == MESHMEM_ERR_UNSUPPORTED) {
        if (mm_ghc_for(&a))
            mm_ghc_alltoallv(&a, sendbuf, soff, slen, recvbuf, roff, rcap, rlen);
        else
            fn(&a, sendbuf, soff, slen, recvbuf, roff, rcap, rlen, false);
        st = MESHMEM_OK;
    }
    for (int j = 0; j < n && st == MESHMEM_OK; j++) {
        if (rlen[j] % a.esize)
            mm_fatal("%s: %zu bytes from rank %d are not whole elements", a.call, rlen[j], j);
        if (recvcounts && rlen[j] != rcap[j])
            mm_fatal("%s: rank %d sent %zu elements, recvcounts[%d] is %zu", a.call, j,
                     rlen[j] / a.esize, j, recvcounts[j]);
        if (recvcounts_out)
            recvcounts_out[j] = rlen[j] / a.esize;
    }
    free(v);
    return st;
}
