/**
 * @file mm_tp.h
 * @brief The transport interface: every access to another rank's memory goes through here.
 *
 * Two transports, one interface. A peer of the node (same host, its segments mapped here) is
 * reached by load and store, inline: the shared-memory transport (mm_shm_ops.h) is the fast
 * path and costs what it cost before the interface existed, one test of the peer's entry more.
 * A peer on another host is reached through the network transport (mm_net.h, UCX), out of line.
 *
 * Addresses given here are symmetric (mm_net.h): the caller has checked them (mm_xlate_checked
 * and its kin name the API call in their messages). PEs are world ranks.
 *
 * Completion, as OpenSHMEM defines it: stores and copies to a peer of the node are complete on
 * return; to a remote peer, put returns at local completion and mm_tp_quiet completes it.
 * Gets and fetching AMOs return with their data, whatever the peer.
 */
#ifndef MM_TP_H
#define MM_TP_H

#include "mm_core.h"
#include "mm_net.h"
#include "mm_shm_ops.h"

/** @brief Progress network transport @p net, if any (NULL: a job on one host). A poll loop
 * reads mm_net once before the loop and passes it here: a global read after each poll's
 * acquire load cannot be hoisted by the compiler, and on one host the loop would pay a load
 * and a branch per poll for nothing. */
MM_INLINE_HOT void mm_tp_poll_with(const mm_net_ops_t *net)
{
    if (MM_UNLIKELY(net != NULL))
        net->progress();
}

/** @brief Progress the network transport, if any: every wait calls it while it polls (over TCP
 * the peers' puts, gets and AMOs on this rank's memory are carried out by this progress). */
MM_INLINE_HOT void mm_tp_poll(void)
{
    mm_tp_poll_with(mm_net);
}

/** @return a load/store pointer to symmetric @p addr on @p pe, NULL when @p pe is on another
 * host (the meaning of shmem_ptr). */
static inline void *mm_tp_ptr(const void *addr, int pe)
{
    return mm_xlate(addr, pe);
}

/*
 * Each operation comes in two forms: OP(addr, ..., pe), and OP_at(local, addr, ..., pe) for a
 * caller that has already translated addr (checking it for its API call): @p local is the
 * load/store address of addr on pe (mm_xlate), NULL when pe is on another host.
 */

/** @brief Put @p n bytes from @p src to symmetric @p dest on @p pe (local: its translation). */
MM_INLINE_HOT void mm_tp_put_at(void *local, void *dest, const void *src, size_t n, int pe)
{
    if (MM_LIKELY(local != NULL)) {
        mm_copy(local, src, n);
        mm_wake_local(pe);
    } else {
        mm_net->put(pe, dest, src, n);
    }
}

MM_INLINE_HOT void mm_tp_put(void *dest, const void *src, size_t n, int pe)
{
    mm_tp_put_at(mm_xlate(dest, pe), dest, src, n, pe);
}

/** @brief Start the same put; @p src must stay unchanged until mm_tp_quiet. */
MM_INLINE_HOT void mm_tp_put_nbi_at(void *local, void *dest, const void *src, size_t n, int pe)
{
    if (MM_LIKELY(local != NULL)) {
        mm_copy(local, src, n);
        mm_wake_local(pe);
    } else {
        mm_net->put_nbi(pe, dest, src, n);
    }
}

/** @brief Get @p n bytes from symmetric @p src on @p pe (local: its translation) into @p dest. */
MM_INLINE_HOT void mm_tp_get_at(const void *local, void *dest, const void *src, size_t n, int pe)
{
    if (MM_LIKELY(local != NULL))
        mm_copy(dest, local, n);
    else
        mm_net->get(pe, dest, src, n);
}

MM_INLINE_HOT void mm_tp_get(void *dest, const void *src, size_t n, int pe)
{
    mm_tp_get_at(mm_xlate(src, pe), dest, src, n, pe);
}

/** @brief Start the same get; @p dest is valid after mm_tp_quiet. */
MM_INLINE_HOT void mm_tp_get_nbi_at(const void *local, void *dest, const void *src, size_t n,
                                    int pe)
{
    if (MM_LIKELY(local != NULL))
        mm_copy(dest, local, n);
    else
        mm_net->get_nbi(pe, dest, src, n);
}

/**
 * @brief Atomic @p op on the @p size-byte word (1, 2, 4 or 8; aligned; checked by the caller)
 * at symmetric @p dest on @p pe: the operands and the fetched value are the word's bits in the
 * low bytes of a uint64_t. Sequentially consistent; atomic with respect to every rank's AMOs.
 * @p fetched may be NULL for the non-fetching operations. (The OpenSHMEM layer's typed AMOs
 * inline the local case themselves: one instruction on the translated word.)
 */
void mm_tp_amo(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
               uint64_t cond, uint64_t *fetched);

/** @brief Put @p n bytes, then post @p signal (MESHMEM_SIGNAL_SET or _ADD, validated) into the
 * symmetric 64-bit @p sig on @p pe: a peer that sees the signal sees the data. @p local and
 * @p lsig: the translations of dest and sig (NULL: @p pe is on another host). @p nbi: to
 * another host, return before the source is read (it must stay unchanged until quiet); on
 * this host the copy is done on return either way. */
MM_INLINE_HOT void mm_tp_put_signal_at(void *local, uint64_t *lsig, void *dest, const void *src,
                                       size_t n, uint64_t *sig, uint64_t signal, int op, int pe,
                                       bool nbi)
{
    if (MM_LIKELY(local != NULL)) {
        mm_copy(local, src, n);
        mm_signal_post(lsig, signal, op);
        mm_wake_local(pe);
    } else if (nbi) {
        mm_net->put_signal_nbi(pe, dest, src, n, sig, op, signal);
    } else {
        mm_net->put_signal(pe, dest, src, n, sig, op, signal);
    }
}

/** @brief Order this rank's operations to each peer (shmem_fence). */
MM_INLINE_HOT void mm_tp_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (MM_UNLIKELY(mm_net != NULL))
        mm_net->fence();
}

/** @brief Complete this rank's operations to every peer (shmem_quiet). */
MM_INLINE_HOT void mm_tp_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (MM_UNLIKELY(mm_net != NULL))
        mm_net->quiet();
}

/**
 * @brief Post a runtime line to @p pe: @p body_len bytes of @p body at symmetric @p line + 8,
 * then @p seq at @p line with release semantics, after @p extra_len bytes of @p extra at
 * symmetric @p extra_dest. For a peer of the node the caller stores directly (its own inline
 * code, kept next to the protocol it implements); this is the path to a remote peer, and the
 * generic one.
 */
void mm_tp_post(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                void *extra_dest, const void *extra, size_t extra_len);

#endif /* MM_TP_H */
