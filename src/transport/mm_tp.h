/**
 * @file mm_tp.h
 * @brief The transport interface: every access to another rank's memory goes through here, and
 * here alone is it decided whether a peer is reached by load and store or through a network.
 *
 * A peer is a transport. Every world rank has an entry (mm_tp_peer_t) naming the transport that
 * reaches it, {kind, ops}, chosen at init (mm_tp_net.c: the shared memory of the node first,
 * then the first network of MESHMEM_NET that reaches it):
 *   - MM_TP_SHM: a peer of the node (this rank itself included); its segments are mapped here
 *     and every operation is inline: one test of the kind, one add to translate, then a copy, a
 *     store or a CPU atomic (mm_shm_ops.h). This is the fast path, and it costs what it cost
 *     before there was an interface;
 *   - MM_TP_NET: a peer reached through a network transport (UCX, src/transport/ucx), whose
 *     operations (mm_tp_ops.h) are called out of line through the entry's ops.
 *
 * Two kinds of operation:
 *   - RMA and AMOs on symmetric addresses (an address in this rank's own heap or static data,
 *     which names the same place in every rank's): put, get, put with signal, AMO, fence,
 *     quiet. Each comes as OP(addr, ..., pe) and, for a caller that has translated addr already
 *     (mm_tp_xlate names the API call in its messages), OP_at(local, addr, ..., pe), @p local
 *     being the load/store address of addr on pe, NULL when pe is reached through a network;
 *   - line primitives, for the runtime's own protocols (flag lines, eager channels,
 *     active-message slots, credits): mm_tp_line gives a peer's copy of a line where load and
 *     store reach it (the caller then writes it as its protocol says), mm_tp_post writes one to
 *     any peer, mm_tp_wake* wake a peer that sleeps, mm_tp_peer_state reads its lifecycle.
 *     Layers above (coll/, am/, shmem/) reach peers only through these: none reads a peer's
 *     segment by itself.
 *
 * Completion, as OpenSHMEM defines it: stores and copies to a peer of the node are complete on
 * return; to a network peer, put returns at local completion and mm_tp_quiet completes it.
 * Gets and fetching AMOs return with their data, whatever the peer. PEs are world ranks.
 */
#ifndef MM_TP_H
#define MM_TP_H

#include "mm_core.h"
#include "mm_shm_ops.h"
#include "mm_shm_peer.h"
#include "mm_tp_ops.h"

/** How a peer is reached (mm_tp_peer_t's kind). */
enum { MM_TP_SHM = 0, MM_TP_NET = 1 };

/**
 * A peer's transport. One cache line per peer, written at init only: the hot paths read the
 * kind and, for a peer of the node, the mapping in the same line.
 */
typedef struct {
    MM_ALIGNED mm_shm_peer_t shm; /* MM_TP_SHM: where its memory is mapped here */
    const mm_tp_ops_t *ops;       /* the transport's table (mm_shm_tp_ops for MM_TP_SHM) */
    uint8_t kind;                 /* MM_TP_SHM or MM_TP_NET */
} mm_tp_peer_t;

/** Every world rank's entry, [nranks] (mm_tp_init). */
extern mm_tp_peer_t *mm_tp_peers;

/** Networks a job may open at most (every one MESHMEM_NET can name). */
#define MM_TP_NETS_MAX 8

/** The network transports opened at init, in MESHMEM_NET's order; none on one host. */
extern const mm_tp_ops_t *mm_tp_nets[MM_TP_NETS_MAX];
extern int mm_tp_nnets;

/** @brief Join the job's transports (collective, at init, once this rank's segments exist):
 * exchange every rank's card, map the node's segments, open the networks that the other peers
 * need. @return 0, or -1 after logging why. */
int mm_tp_init(void);

/** @brief The job's clock (meshmem_wtime): a simulating network's, else CLOCK_MONOTONIC. */
double mm_tp_wtime(void);

/** @brief Leave them (collective, after finalize's last barrier): close the networks, unmap the
 * node's segments. */
void mm_tp_fini(void);

/* ---- where a peer is ---- */

/** @return true when @p pe's memory is in reach of this rank's loads and stores: the one test
 * of local or remote that every operation below makes. */
MM_INLINE_HOT bool mm_tp_load_store(int pe)
{
    return MM_LIKELY(mm_tp_peers[pe].kind == MM_TP_SHM);
}

/** @return true when [a, a + len) lies in [base, base + size) and len != 0: two compares
 * (off < size, then len - 1 < size - off, where len == 0 wraps to SIZE_MAX and fails). */
MM_INLINE_HOT bool mm_tp_within(uintptr_t a, size_t len, uintptr_t base, size_t size)
{
    uintptr_t off = a - base;
    return off < size && len - 1 < size - off;
}

/**
 * @brief The slow path of mm_tp_xlate (cold): a zero-byte access comes back translated (any
 * non-NULL address, nothing is accessed); anything else that is wrong ends the job with a
 * message naming @p call and @p what.
 */
void *mm_tp_xlate_slow(const char *call, const char *what, const void *addr, size_t len, int pe)
    __attribute__((cold, noinline));

/**
 * @brief Translate symmetric @p addr (@p len bytes, the argument named @p what of API call
 * @p call) to its copy on world PE @p pe, ending the job with a clear message when it is not
 * symmetric or @p pe is invalid: the one translation of every RMA and AMO entry point.
 * @return the load/store address on @p pe, or NULL when @p pe is reached through a network.
 *
 * Hot path: three compares (PE in range, address inside the heap, the last byte too), the test
 * of the kind and one add, for the heap and for global/static data alike; errors and zero-byte
 * transfers go out of line. Before init and after finalize nranks is 1 and heap_size =
 * data_size = 0, so every call lands in the slow path, which reports the call.
 */
MM_INLINE_HOT void *mm_tp_xlate(const char *call, const char *what, const void *addr, size_t len,
                                int pe)
{
    uintptr_t a = (uintptr_t)addr;
    if (MM_LIKELY((unsigned)pe < (unsigned)mm_g.nranks)) {
        const mm_tp_peer_t *p = &mm_tp_peers[pe];
        if (MM_LIKELY(mm_tp_within(a, len, mm_g.heap_base, mm_g.heap_size)))
            return MM_LIKELY(p->kind == MM_TP_SHM) ? mm_shm_seg_at(&p->shm, addr) : NULL;
        if (mm_tp_within(a, len, mm_g.data_base, mm_g.data_size))
            return MM_LIKELY(p->kind == MM_TP_SHM)
                       ? mm_nonnull((void *)(a + (uintptr_t)p->shm.data_delta))
                       : NULL;
    }
    return mm_tp_xlate_slow(call, what, addr, len, pe);
}

/** @return a load/store pointer to symmetric @p addr on valid PE @p pe, NULL when @p addr is
 * not symmetric or @p pe is reached through a network (the meaning of shmem_ptr). */
static inline void *mm_tp_ptr(const void *addr, int pe)
{
    uintptr_t a = (uintptr_t)addr;
    const mm_tp_peer_t *p = &mm_tp_peers[pe];
    if (MM_UNLIKELY(p->kind != MM_TP_SHM))
        return NULL;
    if (MM_LIKELY(a - mm_g.heap_base < mm_g.heap_size))
        return mm_shm_seg_at(&p->shm, addr);
    if (a - mm_g.data_base < mm_g.data_size)
        return mm_nonnull((void *)(a + (uintptr_t)p->shm.data_delta));
    return NULL;
}

/* ---- line primitives: the runtime's own protocols ---- */

/**
 * @return where this rank's loads and stores reach @p pe's copy of @p line, an address in this
 * rank's own segment (a flag line, an eager channel, an active-message slot or credit: every
 * segment has one layout); NULL when @p pe is reached through a network (mm_tp_post then).
 */
MM_INLINE_HOT void *mm_tp_line(int pe, const void *line)
{
    const mm_tp_peer_t *p = &mm_tp_peers[pe];
    return MM_LIKELY(p->kind == MM_TP_SHM) ? mm_shm_seg_at(&p->shm, line) : NULL;
}

/**
 * @brief Post a runtime line to @p pe: @p extra_len bytes of @p extra at symmetric
 * @p extra_dest (may be 0), @p body_len bytes of @p body at @p line + 8, then @p seq at @p line
 * (an address in this rank's own segment) with release semantics, in that order as seen by
 * @p pe. For a peer of the node a protocol usually stores through mm_tp_line itself, its own
 * inline code kept next to the protocol; this is the path to a network peer, and the generic
 * one.
 */
void mm_tp_post(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                void *extra_dest, const void *extra, size_t extra_len);

/** @brief mm_tp_post to a network peer: one active message (mm_tp_am.c). */
void mm_tp_post_net(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                    void *extra_dest, const void *extra, size_t extra_len);

/** @brief Copy @p n bytes of @p pe's copy of @p line (an address in this rank's own segment:
 * a runtime area) into @p dest: a load where load and store reach it, else a network get (a
 * round trip: for reads that are rare, or polls of a remote peer's line). */
void mm_tp_get_line(int pe, void *dest, const void *line, size_t n);

/** @brief After storing into @p pe's memory (put, AMO, signal): wake it if it sleeps in a wait
 * on user memory. Nothing for a network peer, whose transport wakes it. */
MM_INLINE_HOT void mm_tp_wake(int pe)
{
    const mm_tp_peer_t *p = &mm_tp_peers[pe];
    if (MM_LIKELY(p->kind == MM_TP_SHM))
        mm_shm_wake_user(&p->shm);
}

/** @brief mm_tp_wake for a @p pe known to be in reach of load and store (the caller holds a
 * translation into its memory): no test of the kind. */
MM_INLINE_HOT void mm_tp_wake_mapped(int pe)
{
    mm_shm_wake_user(&mm_tp_peers[pe].shm);
}

/** @brief After posting a runtime line to @p pe: wake it if it sleeps in a runtime wait. */
MM_INLINE_HOT void mm_tp_wake_runtime(int pe)
{
    const mm_tp_peer_t *p = &mm_tp_peers[pe];
    if (MM_LIKELY(p->kind == MM_TP_SHM))
        mm_shm_wake_runtime(&p->shm);
}

/** @brief Wake @p pe if it sleeps in a wait of either class (after an active message). */
MM_INLINE_HOT void mm_tp_wake_any(int pe)
{
    const mm_tp_peer_t *p = &mm_tp_peers[pe];
    if (MM_LIKELY(p->kind == MM_TP_SHM))
        mm_shm_wake_any(&p->shm);
}

/** @return the lifecycle state (MM_RANK_*) of world rank @p pe, as it published it. */
int mm_tp_peer_state(int pe);

/**
 * @brief Claim the report of an error that several ranks find at once (mm_report_claim, where
 * the bootstrap cannot: PMIx, across hosts): a compare-and-swap on rank 0's word
 * (mm_seg_hdr_t's report), one atomic on the error's path alone. @return true for the first
 * rank, false for the others and when rank 0 failed already (it said an error that ends the
 * job, and may no longer serve an atomic); true when rank 0 finalized (out of reach).
 */
bool mm_tp_claim_report(void);

/* ---- active messages to network peers (mm_tp_am.c; mm_tp_ops.h, am_send) ---- */

/** The runtime's active messages: what it builds on a network's send and handler. */
enum {
    MM_TP_AM_POST = 0,   /* a runtime line, its body and extra bytes (mm_tp_post) */
    MM_TP_AM_SIGNAL = 1, /* a put with signal (mm_tp_put_signal_net) */
    MM_TP_AM_MSG = 2,    /* a collective's large message, matched by tag (coll/mm_msg.c) */
    MM_TP_AM_IDS
};

/** @brief The handler every network is given (mm_tp_ops_t's init): runs message @p id's. */
void mm_tp_am_arrived(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                      size_t len, void *rx);

/** @brief Handle message @p id with @p fn from now on: a layer above the transport registers
 * its own (coll/mm_msg.c: MM_TP_AM_MSG) before any can arrive. */
void mm_tp_am_register(unsigned id, mm_tp_am_fn fn);

/** @brief Send message @p id (header @p hdr of @p hdr_len bytes, @p len data bytes at
 * @p data) to network peer @p pe, as its transport's am_send (flags MM_TP_AM_*). */
void mm_tp_am_send(int pe, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                   size_t len, unsigned flags, _Atomic uint64_t *pending);

/** @brief In the handler of a message from @p src, or later for one kept: take its data into
 * @p buf (@p len bytes); @p landed(@p arg) once there (the transport's am_recv). */
void mm_tp_am_recv(int src, void *rx, void *buf, size_t len, void (*landed)(void *arg), void *arg);

/** @brief In the handler of a message from @p src: keep it for a later mm_tp_am_recv.
 * @return its handle. */
void *mm_tp_am_keep(int src, void *rx);

/** @brief Release a message from @p src kept and never taken. */
void mm_tp_am_drop(int src, void *kept);

/* ---- RMA and AMOs ---- */

/** @brief Put @p n bytes from @p src to symmetric @p dest on @p pe (local: its translation). */
MM_INLINE_HOT void mm_tp_put_at(void *local, void *dest, const void *src, size_t n, int pe)
{
    if (MM_LIKELY(local != NULL)) {
        mm_copy(local, src, n);
        mm_tp_wake_mapped(pe);
    } else {
        mm_tp_peers[pe].ops->put(pe, dest, src, n);
    }
}

MM_INLINE_HOT void mm_tp_put(void *dest, const void *src, size_t n, int pe)
{
    mm_tp_put_at(mm_tp_ptr(dest, pe), dest, src, n, pe);
}

/** @brief Start the same put; @p src must stay unchanged until mm_tp_quiet. */
MM_INLINE_HOT void mm_tp_put_nbi_at(void *local, void *dest, const void *src, size_t n, int pe)
{
    if (MM_LIKELY(local != NULL)) {
        mm_copy(local, src, n);
        mm_tp_wake_mapped(pe);
    } else {
        mm_tp_peers[pe].ops->put_nbi(pe, dest, src, n);
    }
}

/** @brief Get @p n bytes from symmetric @p src on @p pe (local: its translation) into @p dest. */
MM_INLINE_HOT void mm_tp_get_at(const void *local, void *dest, const void *src, size_t n, int pe)
{
    if (MM_LIKELY(local != NULL))
        mm_copy(dest, local, n);
    else
        mm_tp_peers[pe].ops->get(pe, dest, src, n);
}

MM_INLINE_HOT void mm_tp_get(void *dest, const void *src, size_t n, int pe)
{
    mm_tp_get_at(mm_tp_ptr(src, pe), dest, src, n, pe);
}

/** @brief Start the same get; @p dest is valid after mm_tp_quiet. */
MM_INLINE_HOT void mm_tp_get_nbi_at(const void *local, void *dest, const void *src, size_t n,
                                    int pe)
{
    if (MM_LIKELY(local != NULL))
        mm_copy(dest, local, n);
    else
        mm_tp_peers[pe].ops->get_nbi(pe, dest, src, n);
}

/** @brief The network's AMO for mm_tp_amo_at (out of line: the fetched word's address would
 * keep the inline path's result on the stack). @return the word's value before. */
uint64_t mm_tp_amo_net(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
                       uint64_t cond);

/**
 * @brief Atomic @p op on the @p size-byte word (1, 2, 4 or 8; aligned; checked by the caller)
 * at symmetric @p dest on @p pe, @p local its translation: the operands and the result are the
 * word's bits in the low bytes of a uint64_t. Sequentially consistent; atomic with respect to
 * every rank's AMOs. @return the word's value before (0 for SET). Inline: where @p op and
 * @p size are constants (the typed OpenSHMEM routines) a peer of the node costs one instruction
 * and the sleeper check.
 */
MM_INLINE_HOT uint64_t mm_tp_amo_at(void *local, void *dest, meshmem_amo_op_t op, size_t size,
                                    uint64_t value, uint64_t cond, int pe)
{
    if (MM_LIKELY(local != NULL)) {
        uint64_t old = mm_shm_amo(local, op, size, value, cond);
        if (op != MESHMEM_AMO_FETCH)
            mm_tp_wake_mapped(pe);
        return old;
    }
    return mm_tp_amo_net(pe, dest, op, size, value, cond);
}

/** @brief mm_tp_amo_at, out of line, for an @p op and @p size known only at run time (the
 * native meshmem_atomic, locks); the old value into *@p fetched when not NULL. */
void mm_tp_amo(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value, uint64_t cond,
               uint64_t *fetched);

/** @brief mm_tp_put_signal_at to a network peer: one active message that carries both
 * (mm_tp_am.c). */
void mm_tp_put_signal_net(int pe, void *dest, const void *src, size_t n, uint64_t *sig,
                          uint64_t signal, int op, bool nbi);

/** @brief Put @p n bytes, then post @p signal (MESHMEM_SIGNAL_SET or _ADD, validated) into the
 * symmetric 64-bit @p sig on @p pe: a peer that sees the signal sees the data. @p local and
 * @p lsig: the translations of dest and sig (NULL: @p pe is reached through a network).
 * @p nbi: to a network peer, return before the source is read (it must stay unchanged until
 * quiet); on this host the copy is done on return either way. */
MM_INLINE_HOT void mm_tp_put_signal_at(void *local, uint64_t *lsig, void *dest, const void *src,
                                       size_t n, uint64_t *sig, uint64_t signal, int op, int pe,
                                       bool nbi)
{
    if (MM_LIKELY(local != NULL)) {
        mm_copy(local, src, n);
        mm_signal_post(lsig, signal, op);
        mm_tp_wake_mapped(pe);
    } else {
        mm_tp_put_signal_net(pe, dest, src, n, sig, signal, op, nbi);
    }
}

/** @brief Order and complete the networks' operations (out of line: there are some). */
void mm_tp_nets_fence(void);
void mm_tp_nets_quiet(void);

/** @brief Order this rank's operations to each peer (shmem_fence). */
MM_INLINE_HOT void mm_tp_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (MM_UNLIKELY(mm_tp_nnets != 0))
        mm_tp_nets_fence();
}

/** @brief Complete this rank's operations to every peer (shmem_quiet). */
MM_INLINE_HOT void mm_tp_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (MM_UNLIKELY(mm_tp_nnets != 0))
        mm_tp_nets_quiet();
}

#endif /* MM_TP_H */
