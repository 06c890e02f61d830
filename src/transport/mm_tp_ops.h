/**
 * @file mm_tp_ops.h
 * @brief What a transport implements: the operations table every peer's entry points to
 * (mm_tp.h, mm_tp_peer_t). The shared-memory transport's data path is inline (mm_tp.h: one
 * test of the peer's kind, then a copy, a store or a CPU atomic), so its table names it and
 * little else; a network transport (UCX: src/transport/ucx, a plugin) fills the table, and the
 * runtime calls it out of line for the peers it reaches.
 *
 * Addresses are symmetric: an address inside this rank's own segment or static data names the
 * same place in every rank's (every segment has one layout; the heap is allocated
 * deterministically), and the transport finds it in the peer's registered memory.
 *
 * Completion: put returns when the source may be reused (local completion), get and the
 * fetching AMOs when the result is here; a put's data is visible at the peer after the next
 * quiet (remote completion). fence orders the operations before it to a peer before those after
 * it. post is how the runtime's own protocols (flag lines, eager channels, active-message
 * slots, credits) reach a remote peer: the target sees the extra data and the body complete no
 * later than the sequence word, which it stores last with release semantics, exactly as a
 * local writer does; posts to one peer are applied in the order they were made.
 */
#ifndef MM_TP_OPS_H
#define MM_TP_OPS_H

#include "meshmem.h"
#include "mm_boot.h"
#include "mm_plugin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mm_tp_ops {
    const char *name;
    /** @return true when this transport can connect world ranks @p a and @p b, whose cards
     * are @p cards[a] and @p cards[b] (a pure function of the cards and the configuration:
     * every rank decides every pair alike, mm_tp_net.c). */
    bool (*reaches)(const mm_boot_card_t *cards, int a, int b);
    /** Set up: register this rank's segment and static data, exchange addresses through the
     * bootstrap (collective), connect to every rank that @p remote marks. @return 0 or -1. */
    int (*init)(const mm_boot_card_t *cards, const bool *remote);
    /** Complete everything, disconnect and release (collective: after finalize's barrier). */
    void (*fini)(void);
    /** Copy @p n bytes from @p src to symmetric @p dest at @p pe; returns at local completion. */
    void (*put)(int pe, void *dest, const void *src, size_t n);
    /** Start the same put; the source must stay unchanged until quiet. */
    void (*put_nbi)(int pe, void *dest, const void *src, size_t n);
    /** Copy @p n bytes from symmetric @p src at @p pe to @p dest; returns with the data here. */
    void (*get)(int pe, void *dest, const void *src, size_t n);
    /** Start the same get; @p dest is valid after quiet. */
    void (*get_nbi)(int pe, void *dest, const void *src, size_t n);
    /** Atomic @p op on the @p size-byte word at symmetric @p dest of @p pe (1, 2, 4, 8 bytes,
     * naturally aligned); @p value and @p cond as meshmem_atomic; the old value into
     * *@p fetched when not NULL. Atomic with respect to every other rank's AMOs on the word. */
    void (*amo)(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
                uint64_t cond, uint64_t *fetched);
    /** Put @p n bytes of @p src at symmetric @p dest on @p pe (@p dest may be NULL when @p n is
     * 0), then apply @p op (MESHMEM_SIGNAL_SET or _ADD) with @p value to the 64-bit symmetric
     * @p sig there, as one operation: the target sees the data before the signal. Returns at
     * local completion; complete at the target by quiet; ordered by fence as a put. */
    void (*put_signal)(int pe, void *dest, const void *src, size_t n, uint64_t *sig, int op,
                       uint64_t value);
    /** Start the same put with signal; the source must stay unchanged until quiet. */
    void (*put_signal_nbi)(int pe, void *dest, const void *src, size_t n, uint64_t *sig, int op,
                           uint64_t value);
    /** Write @p extra_len bytes at symmetric @p extra_dest (may be 0), @p body_len bytes at
     * symmetric @p line + 8, then the 8-byte @p seq at @p line, in that order as seen by the
     * target (see above). Returns at local completion. */
    void (*post)(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                 void *extra_dest, const void *extra, size_t extra_len);
    /** Order: what this rank issued to any peer before, before what it issues after. */
    void (*fence)(void);
    /** Complete: every put, get and AMO issued so far is done at its target. */
    void (*quiet)(void);
    /** Make progress (serve peers' operations on this rank's memory). @return events handled. */
    int (*progress)(void);
    /** The rank is about to sleep in a wait (it stops calling progress): serve its peers from
     * now on, not after a polling interval. NULL: nothing to do. */
    void (*idle)(void);
    /** Send @p n bytes at @p buf to @p pe as the message @p tag (a collective's large message,
     * whose receiver names its buffer when it posts its receive: msg_post). Returns at once;
     * *@p pending is counted up now and down once @p buf may be reused (msg_wait). */
    void (*msg_send)(int pe, uint64_t tag, const void *buf, size_t n, _Atomic uint64_t *pending);
    /** Receive message @p tag from @p pe, of exactly @p n bytes (the sender's announced size;
     * another size ends the job), into @p buf, whether it was sent already or is sent later.
     * Returns at once; *@p pending is counted up now and down once the data is in @p buf
     * (msg_wait), so that a receive posted early fills its buffer while the rank works. */
    void (*msg_post)(int pe, uint64_t tag, void *buf, size_t n, _Atomic uint64_t *pending);
    /** Host name of @p pe, for messages. */
    const char *(*host)(int pe);
    /** The collectives this transport runs itself (an engine that does them in one step),
     * or NULL: the runtime's algorithms then run over the point-to-point operations. */
    const struct mm_tp_coll_ops *coll;
} mm_tp_ops_t;

/** A network plugin's entry (symbol MM_NET_PLUGIN_ENTRY in libmeshmem_NAME.so, NAME one of
 * MESHMEM_NET's): its operations, or NULL (logged) when the ABI differs. */
typedef const mm_tp_ops_t *(*mm_net_plugin_fn)(const mm_plugin_host_t *host);
#define MM_NET_PLUGIN_ENTRY "meshmem_net_plugin"

#endif /* MM_TP_OPS_H */
