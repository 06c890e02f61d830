/**
 * @file mm_tp_ops.h
 * @brief What a transport implements: the table every peer's entry points to (mm_tp.h,
 * mm_tp_peer_t's ops). A network provides RMA, AMOs, an active-message send with a handler,
 * and progress; everything else the runtime builds on those (mm_tp_am.c: the posts of its flag
 * lines and channels, put with signal; coll/mm_msg.c: a collective's large messages, matched
 * by tag). The shared-memory transport's data path is inline (mm_tp.h: one test of the peer's
 * kind, then a copy, a store or a CPU atomic), so its table only names it.
 *
 * A network is a plugin, libmeshmem_NAME.so, built from src/transport/NAME/ and named in
 * MESHMEM_NET; it sees the runtime only through mm_plugin_host_t (mm_plugin.h) and what init
 * is given. docs/transport.md walks through adding one.
 *
 * Addresses are symmetric: an address inside this rank's own segment or static data names the
 * same place in every rank's (every segment has one layout; the heap is allocated
 * deterministically), and the transport finds it in the peer's memory (UCX: its registered
 * keys). PEs are world ranks.
 *
 * Completion: put returns when the source may be reused (local completion), get and the
 * fetching AMOs when the result is here; a put's data is visible at the peer after the next
 * quiet (remote completion). fence orders the operations before it to a peer before those after
 * it. Active messages sent with MM_TP_AM_PUT complete and order as puts do.
 */
#ifndef MM_TP_OPS_H
#define MM_TP_OPS_H

#include "meshmem.h"
#include "mm_boot.h"
#include "mm_plugin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* ---- active messages (mm_tp_am.c says what the runtime sends with them) ---- */

/** Flags of an active-message send (am_send). */
enum {
    /** Deliver the data with the message: the handler reads it in place (a post's). Without it the network may hold the data back (a rendezvous) until
     * the handler names where it goes (am_recv). */
    MM_TP_AM_EAGER = 1,
    /** Return once the data may be reused (local completion); without it am_send returns at
     * once, and the data must stay unchanged until *pending is down again (or, with
     * MM_TP_AM_PUT, until quiet). */
    MM_TP_AM_WAIT = 2,
    /** The message is a put: quiet completes it at the target (its handler has run and its
     * data is in place there), fence orders it after the RMA before it. */
    MM_TP_AM_PUT = 4,
};

/**
 * The runtime's handler of an arriving active message, which the network calls from its
 * progress (any thread that progresses it): message @p id (MM_TP_AM_*, mm_tp.h) from rank
 * @p src with header @p hdr (@p hdr_len bytes, valid during the call) and @p len data bytes,
 * in memory at @p data when they came with it (always with MM_TP_AM_EAGER), else @p data is
 * NULL. During the call the handler either takes the data (am_recv with @p rx), or keeps the
 * message for later (am_keep), or reads @p data and returns; a message whose data did not come
 * must be taken or kept.
 */
typedef void (*mm_tp_am_fn)(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                            size_t len, void *rx);

typedef struct mm_tp_ops {
    const char *name;
    /** @return true when this transport can connect world ranks @p a and @p b, whose cards
     * are @p cards[a] and @p cards[b] (a pure function of the cards and the configuration:
     * every rank decides every pair alike, mm_tp_net.c). */
    bool (*reaches)(const mm_boot_card_t *cards, int a, int b);
    /** Set up: make this rank's segment and static data reachable, exchange addresses through
     * the bootstrap (collective: every rank calls it, those with no peer here too), connect to
     * every rank that @p peers marks, and from then on hand every arriving active message to
     * @p arrived. @return 0 or -1 after logging why. */
    int (*init)(const mm_boot_card_t *cards, const bool *peers, mm_tp_am_fn arrived);
    /** Complete everything, disconnect and release (collective: after finalize's barrier). */
    void (*fini)(void);

    /* -- RMA and AMOs (NULL for shared memory: reached inline, mm_tp.h) -- */
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
     * *@p fetched when not NULL. Atomic with respect to every other rank's AMOs on the word,
     * the CPU atomics of the target's node included. */
    void (*amo)(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value, uint64_t cond,
                uint64_t *fetched);
    /** Order: what this rank issued to any peer before, before what it issues after. */
    void (*fence)(void);
    /** Complete: every put, get, AMO and MM_TP_AM_PUT message issued so far is done at its
     * target. */
    void (*quiet)(void);

    /* -- active messages -- */
    /** The data bytes up to which a message goes eagerly at its best (a post with more sends
     * its extra bytes ahead by put); a message sent with MM_TP_AM_EAGER goes eagerly at any
     * size. */
    size_t am_eager_max;
    /** Send message @p id to @p pe: the header (@p hdr_len bytes, copied: any size up to 256)
     * and the data, @p iovcnt pieces (more than one only with MM_TP_AM_EAGER), as one message
     * that @p pe's handler receives whole (mm_tp_am_fn). @p flags: MM_TP_AM_*. @p pending
     * (may be NULL) is counted up now and down once the data may be reused. Messages to one
     * peer need not arrive in the order they were sent. */
    void (*am_send)(int pe, unsigned id, const void *hdr, size_t hdr_len, const struct iovec *iov,
                    int iovcnt, unsigned flags, _Atomic uint64_t *pending);
    /** Take the @p len data bytes of message @p rx (its handler's, during the call, or one
     * am_keep returned) into @p buf; @p landed(@p arg) runs once they are there, now or later
     * from the network's progress. A kept message is released by this. */
    void (*am_recv)(void *rx, void *buf, size_t len, void (*landed)(void *arg), void *arg);
    /** In a handler: keep message @p rx, its data included, past the call. @return the handle
     * to take it later (am_recv) or drop it (am_drop). */
    void *(*am_keep)(void *rx);
    /** Release kept message @p kept unread (finalize: messages nobody asked for). */
    void (*am_drop)(void *kept);

    /* -- progress -- */
    /** Make progress (serve peers' operations on this rank's memory, run the handlers of the
     * messages that arrived). @return events handled. */
    int (*progress)(void);
    /** The rank is about to sleep in a wait (it stops calling progress): serve its peers from
     * now on, not after a polling interval. NULL: nothing to do. */
    void (*idle)(void);
    /** Host name of @p pe, for messages. */
    const char *(*host)(int pe);

    /** The collectives this transport runs itself (an engine that does them in one step:
     * mm_tp_coll.h), or NULL (shared memory, UCX): the runtime's algorithms then run over the
     * operations above. */
    const struct mm_tp_coll_ops *coll;

    /* -- optional: a simulated network (rtl) -- */
    /** Put @p n bytes, then set (@p op 0) or add (1) @p signal into the symmetric 64-bit
     * @p sig at @p pe, the signal after the data, as one operation of the network; completes
     * as a put. NULL: the runtime sends it as an active message (mm_tp_am.c). */
    void (*put_signal)(int pe, void *dest, const void *src, size_t n, uint64_t *sig,
                       uint64_t signal, int op);
    /** The job's clock in seconds, when the network keeps one (simulated time), else NULL:
     * meshmem_wtime reads CLOCK_MONOTONIC. */
    double (*wtime)(void);
    /** true: progress itself waits until something can happen (a simulator that advances
     * only while every rank waits on it), so waits poll it without spinning, yielding or
     * sleeping (mm_wait.h). */
    bool paced;
} mm_tp_ops_t;

/** A network plugin's entry (symbol MM_NET_PLUGIN_ENTRY in libmeshmem_NAME.so, NAME one of
 * MESHMEM_NET's): its operations, or NULL (logged) when the ABI differs. */
typedef const mm_tp_ops_t *(*mm_net_plugin_fn)(const mm_plugin_host_t *host);
#define MM_NET_PLUGIN_ENTRY "meshmem_net_plugin"

#endif /* MM_TP_OPS_H */
