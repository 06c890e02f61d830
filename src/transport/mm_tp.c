/* The transport interface's out-of-line operations (mm_tp.h): checked translation's errors,
 * AMOs by run-time type, runtime posts, peers' states, the networks' fence and quiet. */
#include "mm_tp.h"
#include "mm_shm.h"
#include "mm_tp_coll.h"

#include <string.h>

mm_tp_peer_t *mm_tp_peers;

void *mm_tp_xlate_slow(const char *call, const char *what, const void *addr, size_t len, int pe)
{
    MM_CHECK_INIT(call);
    MM_CHECK_RANK(call, pe);
    if (len == 0) {
        /* nothing is accessed: any non-NULL address will do for a zero-byte memcpy */
        static char nothing;
        return addr ? (void *)addr : &nothing;
    }
    if (len > mm_g.heap_size && len > mm_g.data_size)
        mm_fatal("%s: %zu bytes for %s is larger than any symmetric object (a negative or "
                 "overflowing element count?)",
                 call, len, what);
    if (!mm_is_symmetric(addr, len))
        mm_fatal("%s: %s argument (%p, %zu bytes) is not in symmetric memory (heap or "
                 "global/static data)",
                 call, what, addr, len);
    return mm_tp_ptr(addr, pe);
}

uint64_t mm_tp_amo_net(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
                       uint64_t cond)
{
    uint64_t old = 0;
    mm_tp_peers[pe].ops->amo(pe, dest, op, size, value, cond, &old);
    return old;
}

void mm_tp_amo(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value, uint64_t cond,
               uint64_t *fetched)
{
    uint64_t old = mm_tp_amo_at(mm_tp_ptr(dest, pe), dest, op, size, value, cond, pe);
    if (fetched)
        *fetched = old;
}

void mm_tp_post(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                void *extra_dest, const void *extra, size_t extra_len)
{
    char *l = mm_tp_line(pe, line);
    if (l == NULL) {
        mm_tp_post_net(pe, line, body, body_len, seq, extra_dest, extra, extra_len);
        return;
    }
    if (extra_len) {
        void *to = mm_tp_ptr(extra_dest, pe); /* symmetric memory, or a runtime area */
        memcpy(to ? to : mm_tp_line(pe, extra_dest), extra, extra_len);
    }
    memcpy(l + 8, body, body_len);
    atomic_store_explicit((_Atomic uint64_t *)l, seq, memory_order_release);
}

void mm_tp_get_line(int pe, void *dest, const void *line, size_t n)
{
    const void *l = mm_tp_line(pe, line);
    if (l)
        memcpy(dest, l, n);
    else
        mm_tp_peers[pe].ops->get(pe, dest, line, n);
}

int mm_tp_peer_state(int pe)
{
    _Atomic int32_t *own = &mm_own_hdr()->state, *st = mm_tp_line(pe, (const void *)own);
    if (st)
        return atomic_load_explicit(st, memory_order_acquire);
    int32_t v = 0;
    mm_tp_peers[pe].ops->get(pe, &v, (const void *)own, sizeof(v));
    return v;
}

bool mm_tp_claim_report(void)
{
    _Atomic uint64_t *own = &mm_own_hdr()->report, *l = mm_tp_line(0, (const void *)own);
    uint64_t old = 0;
    if (l != NULL) {
        atomic_compare_exchange_strong(l, &old, 1);
        return old == 0;
    }
    int st = mm_tp_peer_state(0);
    if (st == MM_RANK_FAILED) /* it said an error that ends the job (this one, as a rule) */
        return false;
    if (st != MM_RANK_RUNNING) /* it may have closed its endpoint: every rank reports */
        return true;
    mm_tp_peers[0].ops->amo(0, (void *)own, MESHMEM_AMO_CSWAP, sizeof(uint64_t), 1, 0, &old);
    return old == 0;
}

void mm_tp_nets_fence(void)
{
    for (int i = 0; i < mm_tp_nnets; i++)
        mm_tp_nets[i]->fence();
}

void mm_tp_nets_quiet(void)
{
    for (int i = 0; i < mm_tp_nnets; i++)
        mm_tp_nets[i]->quiet();
}

const mm_tp_coll_ops_t *mm_tp_coll_for(int start, int stride, int size)
{
    /* this rank reaches itself through shared memory whatever reaches its peers: the others
     * decide (a team of this rank alone has only its entry) */
    const mm_tp_ops_t *ops = NULL;
    for (int i = 0; i < size; i++) {
        int r = start + i * stride;
        if (r == mm_g.rank && size > 1)
            continue;
        if (ops != NULL && mm_tp_peers[r].ops != ops)
            return NULL;
        ops = mm_tp_peers[r].ops;
    }
    return ops ? ops->coll : NULL;
}
