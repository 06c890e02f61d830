/* The transport interface's out-of-line operations (mm_tp.h): AMOs, runtime posts, states. */
#include "mm_tp.h"

#include <string.h>

const mm_net_ops_t *mm_net;

/* integer AMO on an unsigned word of the type's size (two's complement makes add agree) */
#define MM_AMO_INT(T)                                                                              \
    static uint64_t mm_amo_##T(meshmem_amo_op_t op, T *p, T v, T c)                                \
    {                                                                                              \
        T old = 0;                                                                                 \
        switch (op) {                                                                              \
        case MESHMEM_AMO_FETCH: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                 \
        case MESHMEM_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;                     \
        case MESHMEM_AMO_SWAP: old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;           \
        case MESHMEM_AMO_CSWAP:                                                                    \
            old = c;                                                                               \
            __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
            break;                                                                                 \
        case MESHMEM_AMO_ADD: old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;             \
        case MESHMEM_AMO_AND: old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;             \
        case MESHMEM_AMO_OR: old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;               \
        case MESHMEM_AMO_XOR: old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;             \
        }                                                                                          \
        return old;                                                                                \
    }
MM_AMO_INT(uint8_t)
MM_AMO_INT(uint16_t)
MM_AMO_INT(uint32_t)
MM_AMO_INT(uint64_t)
#undef MM_AMO_INT

void mm_tp_amo(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
               uint64_t cond, uint64_t *fetched)
{
    void *p = mm_xlate(dest, pe);
    if (p == NULL) {
        mm_net->amo(pe, dest, op, size, value, cond, fetched);
        return;
    }
    uint64_t old = 0;
    switch (size) {
    case 1: old = mm_amo_uint8_t(op, p, (uint8_t)value, (uint8_t)cond); break;
    case 2: old = mm_amo_uint16_t(op, p, (uint16_t)value, (uint16_t)cond); break;
    case 4: old = mm_amo_uint32_t(op, p, (uint32_t)value, (uint32_t)cond); break;
    default: old = mm_amo_uint64_t(op, p, value, cond); break;
    }
    if (fetched)
        *fetched = old;
    if (op != MESHMEM_AMO_FETCH)
        mm_wake(pe);
}

void mm_tp_post(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                void *extra_dest, const void *extra, size_t extra_len)
{
    char *l = mm_seg_xlate(line, pe);
    if (l == NULL) {
        mm_net->post(pe, line, body, body_len, seq, extra_dest, extra, extra_len);
        return;
    }
    if (extra_len)
        memcpy(mm_xlate(extra_dest, pe) ? mm_xlate(extra_dest, pe) : mm_seg_xlate(extra_dest, pe),
               extra, extra_len);
    memcpy(l + 8, body, body_len);
    atomic_store_explicit((_Atomic uint64_t *)l, seq, memory_order_release);
}

void mm_wake_self(void)
{
    mm_waiter_t *w = &((mm_seg_hdr_t *)mm_g.seg)->waiter;
    if ((atomic_load(&w->sleepers[MM_WAIT_USER]) | atomic_load(&w->sleepers[MM_WAIT_RUNTIME])) != 0)
        mm_wake_slow(w);
}

void mm_set_state(int state)
{
    if (mm_g.seg)
        atomic_store(&((mm_seg_hdr_t *)mm_g.seg)->state, state);
    if (mm_boot)
        mm_boot->set_state(state);
}

int mm_peer_state(int rank)
{
    mm_seg_hdr_t *own = (mm_seg_hdr_t *)mm_g.seg;
    mm_seg_hdr_t *h = mm_seg_hdr(rank);
    if (h)
        return atomic_load_explicit(&h->state, memory_order_acquire);
    int32_t st = 0;
    mm_net->get(rank, &st, (void *)&own->state, sizeof(st));
    return st;
}
