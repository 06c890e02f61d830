/**
 * @file mm_shm_peer.h
 * @brief The shared-memory transport's part of a peer's entry (mm_tp.h): where the peer's
 * segment and static data are mapped here, and the inline helpers that reach them. A
 * symmetric address is translated for the peer by one add: the peer's segment is mapped whole
 * (its heap at the same offset as this rank's), and its static data as one range.
 *
 * Written once, when the node's segments are mapped (mm_shm_node.c); read by every put, get,
 * AMO, flag post and wake-up to a peer of the node, so the fields share the entry's cache line.
 */
#ifndef MM_SHM_PEER_H
#define MM_SHM_PEER_H

#include "mm_core.h"
#include "mm_wait.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct {
    char *seg;           /* the peer's heap segment as mapped here (this rank's own for itself) */
    intptr_t seg_delta;  /* its address - this rank's own segment's: the delta of every address
                            in the segment, the heap's included */
    intptr_t data_delta; /* its static data's address here - this rank's static data's */
} mm_shm_peer_t;

/** @return @p a, an address of this rank's own segment, in the peer's mapping. */
MM_INLINE_HOT void *mm_shm_seg_at(const mm_shm_peer_t *p, const void *a)
{
    return mm_nonnull((char *)a + p->seg_delta);
}

/**
 * @brief After storing into the peer's memory (put, AMO, signal): wake it if it sleeps in a wait
 * on user memory (mm_waiter_t, mm_core.h). Cheap when it does not: one load of a line every
 * peer keeps shared-clean. The load is seq_cst so that after a seq_cst store or RMW (signals,
 * AMOs) it completes the Dekker pair with the waiter's registration (argument in mm_shm_ops.h,
 * mm_signal_post); on x86 a seq_cst load is a plain mov, as a relaxed one.
 */
MM_INLINE_HOT void mm_shm_wake_user(const mm_shm_peer_t *p)
{
    mm_waiter_t *w = &((mm_seg_hdr_t *)p->seg)->waiter;
    if (MM_UNLIKELY(atomic_load_explicit(&w->sleepers[MM_WAIT_USER], memory_order_seq_cst) != 0))
        mm_wake_slow(w);
}

/** @brief After posting a runtime flag to the peer: wake it if it sleeps in a runtime wait (a
 * relaxed load: flag posts carry no fence, mm_coll_sync.c says why that is enough). */
MM_INLINE_HOT void mm_shm_wake_runtime(const mm_shm_peer_t *p)
{
    mm_waiter_t *w = &((mm_seg_hdr_t *)p->seg)->waiter;
    if (MM_UNLIKELY(atomic_load_explicit(&w->sleepers[MM_WAIT_RUNTIME], memory_order_relaxed) != 0))
        mm_wake_slow(w);
}

/** @brief Wake the peer if it sleeps in a wait of either class (an active message can end
 * both: seq_cst loads after the sender's seq_cst store, the waker's half of the Dekker pair). */
MM_INLINE_HOT void mm_shm_wake_any(const mm_shm_peer_t *p)
{
    mm_waiter_t *w = &((mm_seg_hdr_t *)p->seg)->waiter;
    if (MM_UNLIKELY((atomic_load(&w->sleepers[MM_WAIT_USER]) |
                     atomic_load(&w->sleepers[MM_WAIT_RUNTIME])) != 0))
        mm_wake_slow(w);
}

#endif /* MM_SHM_PEER_H */
