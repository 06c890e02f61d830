/*
 * Active-message channels: per (sender -> receiver) rings of fixed-size slots in the receiver's
 * segment, credits returned by the receiver, replies in slots their request reserved.
 *
 * Fields and writers (region layout in mm_am.h; S = MESHMEM_AM_SLOTS slots per ring):
 *   owner R, req[p] slot k   written by p only: request number n (n % S == k) from p to R.
 *                            p writes header, arguments and payload with plain stores, then
 *                            seq = n + 1 with a release store (the reader that sees seq sees
 *                            the message), then reads R's sleeper count to decide on a wake.
 *   owner R, rep[p] slot k   written by p only: p's reply to R's request n, in slot n % S, seq
 *                            n + 1, same store order. Only p's handler of R's request n writes
 *                            it, at most once.
 *   owner R, ctrl[p]         written by p only: req_done = how many of R's requests p has
 *                            finished handling (handler returned, reply if any already posted).
 *                            A release store after the handler: it orders the handler's reads
 *                            of the slot before the slot is handed back (R may rewrite it as
 *                            soon as it sees the credit); the wake check follows. Stored only
 *                            after a request that got no reply (or with
 *                            rings of one slot): a reply carries the credit of the requests
 *                            before it (below), so a request-reply round trip writes no line
 *                            but its two messages.
 *   private to R, per peer p req_sent (requests R sent to p), rep_next (R's requests to p whose
 *                            reply was handled or is known never to come), req_next (requests
 *                            of p that R handled).
 * Readers poll seq with acquire loads; nothing else is read before seq matches, so a slot is
 * never read half-written. Sequence numbers grow forever; a slot's seq is unique per use.
 * No fence between a publishing store and the sleeper check (a seq_cst store made the writer
 * wait until the line was its own, a line transfer, on every message): as for the collectives'
 * posts (mm_coll_sync.c, mm_coll_wake), a waiter that registers while the store is still in
 * the writer's store buffer may miss the wake and sleep until its futex timeout
 * (MESHMEM_SLEEP_US), and waits sleep only after their spin and yield budgets (mm_wait.c).
 *
 * Flow control: R sends request n to p only when
 *   n - req_done < S    (slot n % S of p's req[R] is free: request n - S was handled) and
 *   n - rep_next < S    (slot n % S of R's rep[p] is free: the reply to n - S, if any, was
 *                        handled here).
 * (The sender keeps the last req_done it read and reads the shared line again only when that
 * leaves no room: a stale value is smaller, so it can only make the sender wait, never
 * overwrite.)
 * Credits from replies: p runs R's requests one at a time, in order, so once R has handled the
 * reply to request r, p has returned from every handler before r's: R counts its first r
 * requests as done, req_done or not (rep_next - 1 >= r). A requester whose requests all get
 * replies therefore keeps S - 1 in flight (request n needs the reply to n - S + 1), and needs
 * S >= 2 for that; with S = 1 p stores req_done after every request.
 * So a reply always finds its slot free and never waits; only requests wait, and a waiting
 * sender runs the progress engine (its wait steps call mm_progress_hook), serving the requests
 * and replies that reach it meanwhile. A flood of requests between any ranks in any directions
 * therefore cannot deadlock: every wait is for a receiver that polls in its own waits.
 * Whether request n produced a reply: when req_done > n and slot n % S of rep[p] does not hold
 * seq n + 1 after that acquire load of req_done, no reply was sent (the reply, if any, was
 * posted before req_done was stored).
 *
 * Idle polls (every wait step calls the hook) take no lock: mm_am_pending reads the head slot
 * of each request ring, and for a peer with requests outstanding the head reply slot and the
 * credit, relaxed; only when one of them moved does the poll take the lock and handle.
 *
 * Handler atomicity: every handler runs under mm_am.busy (an atomic flag taken with a try-lock),
 * whichever thread polls (application thread in a wait, meshmem_am_poll, progress thread); a
 * thread inside a handler does not poll (mm_am_cur). Sends to one peer are serialised by that
 * peer's send lock; replies are written under busy, which serialises them.
 */
#include "mm_am.h"
#include "mm_tp.h"
#include "mm_trace.h"
#include "meshmem_am.h"
#include "mm_wait.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static_assert(MESHMEM_AM_MAX_ARGS == MM_AM_MAX_ARGS, "one argument limit");
static_assert(MESHMEM_AM_MAX_HANDLERS == MM_AM_USER_HANDLERS, "one handler range");
static_assert((int)MESHMEM_AM_SHORT == MM_AM_SHORT && (int)MESHMEM_AM_LONG == MM_AM_LONG,
              "kinds on the wire are the API's");

/* large copies may use non-temporal stores: order them before the seq store (as mm_rma.c) */
#define MM_AM_NT_THRESHOLD 4096

typedef struct {
    MM_ALIGNED _Atomic uint64_t req_sent; /* written under send_lock */
    uint64_t done_seen;                   /* under send_lock: req_done as last read (credits
                                             cached: the shared line is read only when these
                                             do not leave room) */
    _Atomic uint64_t rep_next;            /* written under busy */
    _Atomic uint64_t req_next;            /* written under busy */
    atomic_flag send_lock;
    /* the seq words of the slots of request req_next and reply rep_next from this peer, in
     * this rank's region, kept with them under busy: an idle poll loads them and compares,
     * with no address arithmetic (read without the lock, they are a hint that the handling
     * under busy checks again) */
    _Atomic(_Atomic uint64_t *) req_head, rep_head;
    /* set at init: the peer's rings and credit line in this rank's region, and this rank's in
     * the peer's as mapped here (NULL: the peer is on another host) */
    char *req_in, *rep_in;
    _Atomic uint64_t *credit_in;
    char *req_out, *rep_out;
    _Atomic uint64_t *credit_out;
} mm_am_peer_t;

/* what a token points to: the message a handler runs for */
struct meshmem_am_token {
    int src;
    uint64_t n;   /* the request's number (for the reply's slot) */
    bool request; /* a request handler (may reply) */
    bool replied;
};

static struct {
    bool ready;
    size_t slot_bytes, reg_bytes, max_medium;
    uint32_t slots;
    uint32_t slot_mask; /* slots - 1 when slots is a power of two (the default), else 0 */
    mm_am_peer_t *peer;
    meshmem_am_handler_t fns[MM_AM_NHANDLERS];
    uint8_t kinds[MM_AM_NHANDLERS];
    uint8_t flags[MM_AM_NHANDLERS];
    int8_t nargs[MM_AM_NHANDLERS];
    uint8_t short_dirs[MM_AM_USER_HANDLERS]; /* flags of the user's SHORT handlers, 0 for
                                                    * the others: a SHORT send's check in one
                                                    * load (kinds and flags keep the truth) */
    mm_am_limits_t lim;
    atomic_flag busy;
    pthread_t thread;
    bool thread_on;
    atomic_bool stop;
} mm_am = {.busy = ATOMIC_FLAG_INIT};

/* the handler running on this thread, NULL outside handlers (initial-exec: read on every
 * poll, so a plain %fs load rather than a __tls_get_addr call from the shared library) */
static _Thread_local struct meshmem_am_token *mm_am_cur __attribute__((tls_model("initial-exec")));

/* ---- layout ---- */

size_t mm_am_slot_bytes(void)
{
    size_t medium = (size_t)(mm_config.am_medium_size > 0 ? mm_config.am_medium_size : 0);
    return (MM_AM_HDR_BYTES + 8 * MM_AM_MAX_ARGS + medium + 63) & ~(size_t)63;
}

static uint32_t mm_am_nslots(void)
{
    int64_t s = mm_config.am_slots;
    return (uint32_t)(s < 1 ? 1 : s > 65536 ? 65536 : s);
}

size_t mm_am_region_bytes(int nranks)
{
    size_t reg = (sizeof(mm_am_reg_t) + 63) & ~(size_t)63;
    return reg + (size_t)nranks * sizeof(mm_am_ctrl_t) +
           2 * (size_t)nranks * mm_am_nslots() * mm_am_slot_bytes();
}

/* this rank's own region (whose layout every rank shares, so its addresses are also the
 * symmetric ones by which a peer's copy is reached: mm_tp_line, mm_tp_post) */
static inline char *mm_am_base(void)
{
    return mm_g.seg + mm_g.am_offset;
}

static inline mm_am_reg_t *mm_am_reg(void)
{
    return (mm_am_reg_t *)mm_am_base();
}

/* ctrl line written by @p writer in the region at @p base (mm_am_base) */
static inline mm_am_ctrl_t *mm_am_ctrl_in(char *base, int writer)
{
    return (mm_am_ctrl_t *)(base + mm_am.reg_bytes) + writer;
}

/* ctrl line written by @p writer in this rank's own region */
static inline mm_am_ctrl_t *mm_am_ctrl(int writer)
{
    return mm_am_ctrl_in(mm_am_base(), writer);
}

/* slot of message @p n from @p writer in the request (rep = 0) or reply ring of the region at
 * @p base (mm_am_base) */
static inline char *mm_am_slot_in(char *base, int writer, int rep, uint64_t n)
{
    size_t ring = (size_t)rep * (size_t)mm_g.nranks + (size_t)writer;
    /* a mask, not a division, for the usual power-of-two ring: the pending check polls two
     * slots per peer, and a 64-bit division is tens of cycles */
    size_t i = mm_am.slot_mask ? (size_t)(n & mm_am.slot_mask) : (size_t)(n % mm_am.slots);
    return base + mm_am.reg_bytes + (size_t)mm_g.nranks * sizeof(mm_am_ctrl_t) +
           (ring * mm_am.slots + i) * mm_am.slot_bytes;
}

/* slot of message @p n from @p writer in this rank's own request (rep = 0) or reply ring */
static inline char *mm_am_slot(int writer, int rep, uint64_t n)
{
    return mm_am_slot_in(mm_am_base(), writer, rep, n);
}

static inline _Atomic uint64_t *mm_am_seq(char *slot)
{
    return (_Atomic uint64_t *)slot;
}

/* slot of message @p n in the ring starting at @p ring (a peer's req_in, rep_out, ...) */
static inline char *mm_am_ring_slot(char *ring, uint64_t n)
{
    size_t i = mm_am.slot_mask ? (size_t)(n & mm_am.slot_mask) : (size_t)(n % mm_am.slots);
    return ring + i * mm_am.slot_bytes;
}

/* wake @p rank if it sleeps in any wait: a message can end a runtime wait (credits, replies)
 * and a user wait (the handler may write what it waits for); after the release store that
 * published the message, with no fence (see the top; a network peer's transport wakes it) */
static inline void mm_am_wake(int rank)
{
    mm_tp_wake_any(rank);
}

/* symmetric [addr, addr + len) as (region, offset) */
static bool mm_am_encode(const void *addr, size_t len, uint8_t *region, uint64_t *offset)
{
    uintptr_t a = (uintptr_t)addr;
    if (a - mm_g.heap_base < mm_g.heap_size && len <= mm_g.heap_size - (a - mm_g.heap_base)) {
        *region = 0;
        *offset = a - mm_g.heap_base;
        return true;
    }
    if (a - mm_g.data_base < mm_g.data_size && len <= mm_g.data_size - (a - mm_g.data_base)) {
        *region = 1;
        *offset = a - mm_g.data_base;
        return true;
    }
    return false;
}

/* ---- receiving ---- */

/* run the handler of message @p n from @p src in @p slot; @return whether it replied */
static bool mm_am_dispatch(int src, char *slot, bool reply_ring, uint64_t n)
{
    mm_am_msg_t m;
    int rc = mm_am_decode(slot, &mm_am.lim, reply_ring, &m);
    if (MM_UNLIKELY(rc != MM_AM_OK)) {
        mm_error("active message %llu from rank %d (handler %u) dropped: %s", (unsigned long long)n,
                 src, (unsigned)((mm_am_hdr_t *)slot)->handler, mm_am_decode_error(rc));
        return false;
    }
    if (m.inline_payload && m.dest && m.nbytes)
        memcpy(m.dest, m.payload, m.nbytes);
    struct meshmem_am_token tok = {.src = src, .n = n, .request = !m.reply, .replied = false};
    void *buf = m.kind == MM_AM_MEDIUM ? (void *)m.payload : m.kind == MM_AM_LONG ? m.dest : NULL;
    struct meshmem_am_token *prev = mm_am_cur;
    mm_am_cur = &tok;
    mm_am.fns[m.handler](&tok, buf, m.kind == MM_AM_SHORT ? 0 : m.nbytes, m.args, m.nargs);
    mm_am_cur = prev;
    return tok.replied;
}

/* handle the replies from @p p that have come; under busy */
static int mm_am_drain_replies(int p)
{
    mm_am_peer_t *pe = &mm_am.peer[p];
    uint64_t sent = atomic_load_explicit(&pe->req_sent, memory_order_acquire);
    uint64_t r = atomic_load_explicit(&pe->rep_next, memory_order_relaxed);
    int handled = 0;
    while (r != sent) {
        char *slot = mm_am_ring_slot(pe->rep_in, r);
        if (atomic_load_explicit(mm_am_seq(slot), memory_order_acquire) == r + 1) {
            mm_am_dispatch(p, slot, true, r);
            handled++;
        } else {
            uint64_t done = atomic_load_explicit(pe->credit_in, memory_order_acquire);
            if (!mm_seq_reached(done, r + 1))
                break; /* request r not finished yet */
            if (atomic_load_explicit(mm_am_seq(slot), memory_order_acquire) == r + 1)
                continue; /* its reply came just before the credit: handle it */
        }
        atomic_store_explicit(&pe->rep_next, ++r, memory_order_release);
        atomic_store_explicit(&pe->rep_head, mm_am_seq(mm_am_ring_slot(pe->rep_in, r)),
                              memory_order_relaxed);
    }
    return handled;
}

/* handle the requests and replies that have come; under busy */
static int mm_am_progress_locked(void)
{
    int me = mm_g.rank, handled = 0;
    for (int k = 0; k < mm_g.nranks; k++) {
        int p = me + k < mm_g.nranks ? me + k : me + k - mm_g.nranks;
        mm_am_peer_t *pe = &mm_am.peer[p];
        for (uint32_t i = 0; i < mm_am.slots; i++) {
            uint64_t n = atomic_load_explicit(&pe->req_next, memory_order_relaxed);
            char *slot = mm_am_ring_slot(pe->req_in, n);
            if (atomic_load_explicit(mm_am_seq(slot), memory_order_acquire) != n + 1)
                break;
            bool replied = mm_am_dispatch(p, slot, false, n);
            atomic_store_explicit(&pe->req_next, n + 1, memory_order_relaxed);
            atomic_store_explicit(&pe->req_head, mm_am_seq(mm_am_ring_slot(pe->req_in, n + 1)),
                                  memory_order_relaxed);
            handled++;
            if (replied && mm_am.slots >= 2)
                continue; /* the reply carries the credit (see the top) */
            if (MM_LIKELY(pe->credit_out != NULL)) {
                atomic_store_explicit(pe->credit_out, n + 1, memory_order_release);
                mm_am_wake(p);
            } else { /* the credit, by the network: no body, the count is the sequence word */
                mm_tp_post(p, mm_am_ctrl(me), NULL, 0, n + 1, NULL, NULL, 0);
            }
        }
        if (atomic_load_explicit(&pe->rep_next, memory_order_relaxed) !=
            atomic_load_explicit(&pe->req_sent, memory_order_relaxed))
            handled += mm_am_drain_replies(p);
    }
    return handled;
}

/* anything to do? (cheap, no lock: the common case of an idle wait step) */
static bool mm_am_pending(void)
{
    mm_am_peer_t *pe = mm_am.peer, *end = pe + mm_g.nranks;
    for (; pe != end; pe++) {
        uint64_t n = atomic_load_explicit(&pe->req_next, memory_order_relaxed);
        _Atomic uint64_t *req = atomic_load_explicit(&pe->req_head, memory_order_relaxed);
        if (atomic_load_explicit(req, memory_order_relaxed) == n + 1)
            return true;
        /* a reply arrived, or a request finished without one */
        uint64_t r = atomic_load_explicit(&pe->rep_next, memory_order_relaxed);
        if (r != atomic_load_explicit(&pe->req_sent, memory_order_relaxed)) {
            _Atomic uint64_t *rep = atomic_load_explicit(&pe->rep_head, memory_order_relaxed);
            if (atomic_load_explicit(rep, memory_order_relaxed) == r + 1 ||
                mm_seq_reached(atomic_load_explicit(pe->credit_in, memory_order_relaxed), r + 1))
                return true;
        }
    }
    return false;
}

static int mm_am_try_progress(void)
{
    if (mm_am_cur != NULL || !mm_am.ready || !mm_am_pending())
        return 0;
    if (atomic_flag_test_and_set_explicit(&mm_am.busy, memory_order_acquire))
        return 0; /* another thread is running handlers */
    int n = mm_am_progress_locked();
    atomic_flag_clear_explicit(&mm_am.busy, memory_order_release);
    return n;
}

/*
 * Wait until @p cond, running the progress engine on every poll: the condition (ring space, a
 * get's replies, quiet) is made true by handlers that this rank itself must run. (The generic
 * MM_WAIT_* macros poll inline before their first step, and so before any progress.)
 */
#define MM_AM_WAIT_UNTIL(cond)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            mm_wait_t mm_aw_;                                                                      \
            mm_wait_init_runtime(&mm_aw_);                                                         \
            while (mm_am_try_progress(), !(cond))                                                  \
                mm_wait_step(&mm_aw_);                                                             \
            mm_wait_done(&mm_aw_);                                                                 \
        }                                                                                          \
    } while (0)

static void mm_am_hook(void)
{
    mm_am_try_progress();
}

int meshmem_am_poll(void)
{
    if (!mm_g.initialized)
        return 0;
    return mm_am_try_progress();
}

/* ---- sending ---- */

/* one packet of a packed message (packed fragments, below): its own header in the payload */
typedef struct {
    uint32_t rel; /* offset from the message's base (source and destination alike) */
    uint32_t len; /* bytes; the data follows, padded to 8 bytes */
} mm_am_pkt_t;

typedef struct {
    int handler, kind, nargs;
    const uint64_t *args;
    const void *buf;
    size_t nbytes;
    bool has_dest;
    uint8_t region;
    uint64_t offset;
    const mm_am_pkt_t *pkts; /* npkts > 0: the payload is these packets, data from buf + rel */
    size_t npkts;
} mm_am_out_t;

#define MM_AM_PAD8(n) (((n) + 7) & ~(size_t)7)

/* lay out @p o's packets at @p p: header, data, padding (nbytes is their total) */
static void mm_am_pack_write(char *p, const mm_am_out_t *o)
{
    for (size_t i = 0; i < o->npkts; i++) {
        memcpy(p, &o->pkts[i], sizeof(mm_am_pkt_t));
        memcpy(p + sizeof(mm_am_pkt_t), (const char *)o->buf + o->pkts[i].rel, o->pkts[i].len);
        p += sizeof(mm_am_pkt_t) + MM_AM_PAD8(o->pkts[i].len);
    }
}

/* write the header, arguments and in-slot payload of @p o into @p slot (all but seq); inline:
 * a round trip of SHORT messages called it twice (callgrind: +35 instructions per round trip
 * against the code before the transport layer, where it was part of mm_am_post) */
MM_INLINE_HOT void mm_am_fill(char *slot, const mm_am_out_t *o, bool reply, bool inl)
{
    mm_am_hdr_t *h = (mm_am_hdr_t *)slot;
    h->handler = (uint16_t)o->handler;
    h->kind = (uint8_t)o->kind;
    h->flags = (uint8_t)((reply ? MM_AM_F_REPLY : 0) |
                         (o->kind == MM_AM_LONG && inl ? MM_AM_F_INLINE : 0));
    h->nargs = (uint8_t)o->nargs;
    h->region = o->region;
    h->reserved = 0;
    h->nbytes = (uint32_t)(o->kind == MM_AM_SHORT ? 0 : o->nbytes);
    h->reserved2 = 0;
    h->offset = o->offset;
    for (int i = 0; i < o->nargs; i++) /* a word at a time: no call into memcpy for a few */
        memcpy(slot + MM_AM_HDR_BYTES + 8 * (size_t)i, &o->args[i], 8);
    if (inl && o->npkts)
        mm_am_pack_write(slot + MM_AM_HDR_BYTES + 8 * (size_t)o->nargs, o);
    else if (inl && o->nbytes)
        memcpy(slot + MM_AM_HDR_BYTES + 8 * (size_t)o->nargs, o->buf, o->nbytes);
}

/* message @p n of @p o to @p rank on another host: the slot's image, and a LONG payload too
 * large for the slot, in one post to the symmetric @p slot (mm_tp_post) */
static void mm_am_post_remote(int rank, char *slot, uint64_t n, const mm_am_out_t *o, bool reply,
                              bool inl)
{
    size_t used = MM_AM_HDR_BYTES + 8 * (size_t)o->nargs + (inl ? o->nbytes : 0);
    char *img = malloc(used);
    if (img == NULL)
        mm_fatal("active message to rank %d: out of memory", rank);
    mm_am_fill(img, o, reply, inl);
    void *dest = NULL;
    if (o->kind == MM_AM_LONG && !inl)
        dest = (o->region ? (char *)mm_g.data_base : (char *)mm_g.heap_base) + o->offset;
    mm_tp_post(rank, slot, img + 8, used - 8, n + 1, dest, dest ? o->buf : NULL,
               dest ? o->nbytes : 0);
    free(img);
}

/* write a SHORT message's header (all but seq) and arguments into @p slot: the header's three
 * words after seq as one copy, not a store per field */
MM_INLINE_HOT void mm_am_fill_short(char *slot, const mm_am_out_t *o, bool reply)
{
    mm_am_hdr_t h = {.handler = (uint16_t)o->handler,
                     .kind = MM_AM_SHORT,
                     .flags = (uint8_t)(reply ? MM_AM_F_REPLY : 0),
                     .nargs = (uint8_t)o->nargs};
    memcpy(slot + 8, (const char *)&h + 8, MM_AM_HDR_BYTES - 8);
    for (int i = 0; i < o->nargs; i++)
        memcpy(slot + MM_AM_HDR_BYTES + 8 * (size_t)i, &o->args[i], 8);
}

/* write message @p n of @p o into its slot of this rank's request (or @p reply) ring at
 * @p rank, then publish it */
static void mm_am_post(int rank, uint64_t n, const mm_am_out_t *o, bool reply)
{
    bool inl = o->kind == MM_AM_MEDIUM || (o->kind == MM_AM_LONG && o->nbytes <= mm_am.max_medium);
    mm_am_peer_t *pe = &mm_am.peer[rank];
    char *ring = reply ? pe->rep_out : pe->req_out;
    if (MM_UNLIKELY(ring == NULL)) { /* another host: by the symmetric address of the slot */
        mm_am_post_remote(rank, mm_am_slot(mm_g.rank, reply, n), n, o, reply, inl);
        return;
    }
    char *slot = mm_am_ring_slot(ring, n);
    if (o->kind == MM_AM_SHORT) {
        mm_am_fill_short(slot, o, reply);
        atomic_store_explicit(mm_am_seq(slot), n + 1, memory_order_release); /* see the top */
        mm_am_wake(rank);
        return;
    }
    if (o->kind == MM_AM_LONG && !inl) {
        /* too large for the slot: written straight into the destination (the peer is mapped) */
        char *local = (o->region ? (char *)mm_g.data_base : (char *)mm_g.heap_base) + o->offset;
        memcpy(mm_tp_ptr(local, rank), o->buf, o->nbytes);
    }
    mm_am_fill(slot, o, reply, inl);
    if (o->nbytes >= MM_AM_NT_THRESHOLD)
        atomic_thread_fence(memory_order_seq_cst);
    atomic_store_explicit(mm_am_seq(slot), n + 1, memory_order_release); /* see the top */
    mm_am_wake(rank);
}

/* check a send of @p o by @p call; @return MESHMEM_OK or the error, logged */
/* handler checks of mm_am_check: a user's index, the runtime's own, or none (get's source) */
enum { MM_AM_CHECK_USER, MM_AM_CHECK_INTERNAL, MM_AM_CHECK_NO_HANDLER };

static meshmem_status_t mm_am_check(const char *call, int rank, mm_am_out_t *o, void *dest, int dir,
                                    int mode)
{
    if (MM_UNLIKELY(!mm_g.initialized || !mm_am.ready)) {
        mm_error("%s: called before meshmem_init (or after finalize)", call);
        return MESHMEM_ERR_STATE;
    }
    if (MM_UNLIKELY((unsigned)rank >= (unsigned)mm_g.nranks)) {
        mm_error("%s: rank argument (%d) is invalid: the job has ranks 0..%d", call, rank,
                 mm_g.nranks - 1);
        return MESHMEM_ERR_RANK;
    }
    const char *kname = o->kind == MM_AM_SHORT    ? "SHORT"
                        : o->kind == MM_AM_MEDIUM ? "MEDIUM"
                                                  : "LONG";
    if (mode == MM_AM_CHECK_NO_HANDLER)
        goto payload;
    unsigned limit = mode == MM_AM_CHECK_USER ? MM_AM_USER_HANDLERS : MM_AM_NHANDLERS;
    if (MM_UNLIKELY((unsigned)o->handler >= limit || mm_am.kinds[o->handler] == 0)) {
        mm_error("%s: handler argument (%d) is not a registered handler index (0..%d, "
                 "meshmem_am_register)",
                 call, o->handler, MM_AM_USER_HANDLERS - 1);
        return MESHMEM_ERR_ARG;
    }
    if (MM_UNLIKELY(mm_am.kinds[o->handler] != o->kind)) {
        mm_error("%s: handler %d is not registered for %s messages", call, o->handler, kname);
        return MESHMEM_ERR_ARG;
    }
    if (MM_UNLIKELY(!(mm_am.flags[o->handler] & dir))) {
        mm_error("%s: handler %d is not registered for %s", call, o->handler,
                 dir == MM_AM_REQ ? "requests" : "replies");
        return MESHMEM_ERR_ARG;
    }
    if (MM_UNLIKELY(o->nargs < 0 || o->nargs > MM_AM_MAX_ARGS ||
                    (mm_am.nargs[o->handler] >= 0 && o->nargs != mm_am.nargs[o->handler]))) {
        mm_error("%s: nargs argument (%d) is not %s", call, o->nargs,
                 mm_am.nargs[o->handler] >= 0 ? "the count registered for the handler"
                                              : "in 0..16");
        return MESHMEM_ERR_ARG;
    }
    if (MM_UNLIKELY(o->nargs > 0 && o->args == NULL)) {
        mm_error("%s: args argument is NULL with nargs %d", call, o->nargs);
        return MESHMEM_ERR_ARG;
    }
payload:
    if (o->kind == MM_AM_MEDIUM && MM_UNLIKELY(o->nbytes > mm_am.max_medium)) {
        mm_error("%s: nbytes argument (%zu) exceeds the largest MEDIUM payload (%zu, "
                 "meshmem_am_max_medium)",
                 call, o->nbytes, mm_am.max_medium);
        return MESHMEM_ERR_ARG;
    }
    if (o->kind == MM_AM_LONG) {
        if (MM_UNLIKELY(o->nbytes > meshmem_am_max_long() || o->nbytes > UINT32_MAX)) {
            mm_error("%s: nbytes argument (%zu) exceeds the largest LONG payload (%zu, "
                     "meshmem_am_max_long)",
                     call, o->nbytes, meshmem_am_max_long());
            return MESHMEM_ERR_ARG;
        }
        if (MM_UNLIKELY(!mm_am_encode(dest, o->nbytes, &o->region, &o->offset))) {
            mm_error("%s: dest argument (%p, %zu bytes) is not in symmetric memory", call, dest,
                     o->nbytes);
            return MESHMEM_ERR_NOT_SYMMETRIC;
        }
        o->has_dest = true;
    }
    if (MM_UNLIKELY(o->nbytes > 0 && o->buf == NULL)) {
        mm_error("%s: buf argument is NULL with nbytes %zu", call, o->nbytes);
        return MESHMEM_ERR_ARG;
    }
    return MESHMEM_OK;
}

static void mm_am_lock_send(mm_am_peer_t *pe)
{
    while (atomic_flag_test_and_set_explicit(&pe->send_lock, memory_order_acquire)) {
        mm_am_try_progress();
        sched_yield();
    }
}

/* send request @p o to @p rank, waiting for ring space (checked already) */
static void mm_am_send_request(int rank, const mm_am_out_t *o)
{
    mm_am_peer_t *pe = &mm_am.peer[rank];
    _Atomic uint64_t *done = pe->credit_in;
    uint64_t S = mm_am.slots;
    mm_am_lock_send(pe);
    uint64_t n = atomic_load_explicit(&pe->req_sent, memory_order_relaxed);
    /* room: the request slot and the reply slot of request n - S are both free (see top);
     * request n - S is known done from the credit seen last, from the replies handled since
     * (n + 1 - rep_next < S), or from the credit line, read only when neither leaves room */
    _Atomic uint64_t *rep_next = &pe->rep_next;
    if (n - pe->done_seen >= S && n + 1 - atomic_load_explicit(rep_next, memory_order_acquire) >= S)
        MM_AM_WAIT_UNTIL(n - (pe->done_seen = atomic_load_explicit(done, memory_order_acquire)) <
                             S ||
                         n + 1 - atomic_load_explicit(rep_next, memory_order_acquire) < S);
    MM_AM_WAIT_UNTIL(n - atomic_load_explicit(rep_next, memory_order_acquire) < S);
    mm_am_post(rank, n, o, false);
    atomic_store_explicit(&pe->req_sent, n + 1, memory_order_release);
    atomic_flag_clear_explicit(&pe->send_lock, memory_order_release);
}

/* @return whether a SHORT message @p o in direction @p dir passes every check of mm_am_check
 * (registered, in range, the arguments given), tested in a few loads: the sends' common case;
 * when it does not, mm_am_check says what fails */
MM_INLINE_HOT bool mm_am_short_ok(const mm_am_out_t *o, int dir)
{
    unsigned h = (unsigned)o->handler;
    return h < MM_AM_USER_HANDLERS && (mm_am.short_dirs[h] & dir) &&
           (unsigned)o->nargs <= MM_AM_MAX_ARGS &&
           (mm_am.nargs[h] < 0 || mm_am.nargs[h] == o->nargs) && (o->nargs == 0 || o->args);
}

static meshmem_status_t mm_am_request(const char *call, int rank, mm_am_out_t *o, void *dest)
{
    if (MM_LIKELY(o->kind == MM_AM_SHORT && mm_am.ready && mm_am_cur == NULL &&
                  (unsigned)rank < (unsigned)mm_g.nranks && mm_am_short_ok(o, MM_AM_REQ))) {
        mm_am_send_request(rank, o);
        return MESHMEM_OK;
    }
    meshmem_status_t st = mm_am_check(call, rank, o, dest, MM_AM_REQ, MM_AM_CHECK_USER);
    if (st != MESHMEM_OK)
        return st;
    if (MM_UNLIKELY(mm_am_cur != NULL)) {
        mm_error("%s: requests cannot be sent from inside a handler (only a reply can)", call);
        return MESHMEM_ERR_STATE;
    }
    mm_am_send_request(rank, o);
    return MESHMEM_OK;
}

static meshmem_status_t mm_am_reply(const char *call, meshmem_am_token_t token, mm_am_out_t *o,
                                    void *dest)
{
    if (MM_LIKELY(o->kind == MM_AM_SHORT && token != NULL && token == mm_am_cur && token->request &&
                  !token->replied && mm_am_short_ok(o, MM_AM_REP))) {
        token->replied = true;
        mm_am_post(token->src, token->n, o, true); /* never waits: see below */
        return MESHMEM_OK;
    }
    if (MM_UNLIKELY(token == NULL || token != mm_am_cur)) {
        mm_error("%s: %s", call,
                 mm_am_cur == NULL ? "a reply can only be sent from inside a request handler"
                                   : "token argument is not the running handler's token");
        return MESHMEM_ERR_STATE;
    }
    if (MM_UNLIKELY(!token->request)) {
        mm_error("%s: a reply handler cannot reply", call);
        return MESHMEM_ERR_STATE;
    }
    if (MM_UNLIKELY(token->replied)) {
        mm_error("%s: this request was already replied to (at most one reply per request)", call);
        return MESHMEM_ERR_STATE;
    }
    meshmem_status_t st = mm_am_check(call, token->src, o, dest, MM_AM_REP, MM_AM_CHECK_USER);
    if (st != MESHMEM_OK)
        return st;
    token->replied = true;
    /* never waits: the request reserved slot n % S of our rep ring at the requester */
    mm_am_post(token->src, token->n, o, true);
    return MESHMEM_OK;
}

/* ---- public sends ---- */

meshmem_status_t meshmem_am_request_short(int rank, int handler, int nargs,
                                          const meshmem_am_arg_t *args)
{
    MM_TRACE_SCOPE(mm_trace_p2p("am", (uint64_t)(nargs > 0 ? nargs : 0) * sizeof(meshmem_am_arg_t),
                                rank, MM_TRACE_STORE));
    mm_am_out_t o = {.handler = handler, .kind = MM_AM_SHORT, .nargs = nargs, .args = args};
    return mm_am_request("meshmem_am_request_short", rank, &o, NULL);
}

meshmem_status_t meshmem_am_request_medium(int rank, int handler, const void *buf, size_t nbytes,
                                           int nargs, const meshmem_am_arg_t *args)
{
    MM_TRACE_SCOPE(mm_trace_p2p("am", nbytes, rank, MM_TRACE_STORE));
    mm_am_out_t o = {.handler = handler,
                     .kind = MM_AM_MEDIUM,
                     .nargs = nargs,
                     .args = args,
                     .buf = buf,
                     .nbytes = nbytes};
    return mm_am_request("meshmem_am_request_medium", rank, &o, NULL);
}

meshmem_status_t meshmem_am_request_long(int rank, int handler, const void *buf, size_t nbytes,
                                         void *dest, int nargs, const meshmem_am_arg_t *args)
{
    MM_TRACE_SCOPE(mm_trace_p2p("am", nbytes, rank, MM_TRACE_STORE));
    mm_am_out_t o = {.handler = handler,
                     .kind = MM_AM_LONG,
                     .nargs = nargs,
                     .args = args,
                     .buf = buf,
                     .nbytes = nbytes};
    return mm_am_request("meshmem_am_request_long", rank, &o, dest);
}

meshmem_status_t meshmem_am_reply_short(meshmem_am_token_t token, int handler, int nargs,
                                        const meshmem_am_arg_t *args)
{
    MM_TRACE_SCOPE(mm_trace_p2p("am", (uint64_t)(nargs > 0 ? nargs : 0) * sizeof(meshmem_am_arg_t),
                                meshmem_am_token_rank(token), MM_TRACE_STORE));
    mm_am_out_t o = {.handler = handler, .kind = MM_AM_SHORT, .nargs = nargs, .args = args};
    return mm_am_reply("meshmem_am_reply_short", token, &o, NULL);
}

meshmem_status_t meshmem_am_reply_medium(meshmem_am_token_t token, int handler, const void *buf,
                                         size_t nbytes, int nargs, const meshmem_am_arg_t *args)
{
    MM_TRACE_SCOPE(mm_trace_p2p("am", nbytes, meshmem_am_token_rank(token), MM_TRACE_STORE));
    mm_am_out_t o = {.handler = handler,
                     .kind = MM_AM_MEDIUM,
                     .nargs = nargs,
                     .args = args,
                     .buf = buf,
                     .nbytes = nbytes};
    return mm_am_reply("meshmem_am_reply_medium", token, &o, NULL);
}

meshmem_status_t meshmem_am_reply_long(meshmem_am_token_t token, int handler, const void *buf,
                                       size_t nbytes, void *dest, int nargs,
                                       const meshmem_am_arg_t *args)
{
    MM_TRACE_SCOPE(mm_trace_p2p("am", nbytes, meshmem_am_token_rank(token), MM_TRACE_STORE));
    mm_am_out_t o = {.handler = handler,
                     .kind = MM_AM_LONG,
                     .nargs = nargs,
                     .args = args,
                     .buf = buf,
                     .nbytes = nbytes};
    return mm_am_reply("meshmem_am_reply_long", token, &o, dest);
}

int meshmem_am_token_rank(meshmem_am_token_t token)
{
    return token ? token->src : -1;
}

int meshmem_am_max_args(void)
{
    return MESHMEM_AM_MAX_ARGS;
}

size_t meshmem_am_max_medium(void)
{
    return mm_am.ready ? mm_am.max_medium : (size_t)mm_config.am_medium_size;
}

size_t meshmem_am_max_long(void)
{
    return mm_g.heap_size;
}

static bool mm_am_all_answered(void)
{
    for (int p = 0; p < mm_g.nranks; p++)
        if (atomic_load_explicit(&mm_am.peer[p].rep_next, memory_order_acquire) !=
            atomic_load_explicit(&mm_am.peer[p].req_sent, memory_order_relaxed))
            return false;
    return true;
}

meshmem_status_t meshmem_am_quiet(void)
{
    if (!mm_am.ready)
        return MESHMEM_OK;
    if (mm_am_cur != NULL) {
        mm_error("meshmem_am_quiet: cannot wait inside a handler");
        return MESHMEM_ERR_STATE;
    }
    MM_AM_WAIT_UNTIL(mm_am_all_answered());
    return MESHMEM_OK;
}

/* ---- registration ---- */

static int mm_am_entry_bad(const meshmem_am_entry_t *e)
{
    return (unsigned)e->index >= MM_AM_USER_HANDLERS || e->fn == NULL || e->kind < 1 ||
           e->kind > 3 || e->flags < 1 || e->flags > 3 || e->nargs < -1 ||
           e->nargs > MM_AM_MAX_ARGS;
}

meshmem_status_t meshmem_am_register(const meshmem_am_entry_t *entries, int count)
{
    if (!mm_g.initialized || !mm_am.ready) {
        mm_error("meshmem_am_register: called before meshmem_init (or after finalize)");
        return MESHMEM_ERR_STATE;
    }
    if (mm_am_cur != NULL) {
        mm_error("meshmem_am_register: collective, cannot be called from a handler");
        return MESHMEM_ERR_STATE;
    }
    int me = mm_g.rank;
    mm_am_reg_t *mine = mm_am_reg();
    memcpy(mine->kinds, mm_am.kinds, MM_AM_USER_HANDLERS);
    memcpy(mine->flags, mm_am.flags, MM_AM_USER_HANDLERS);
    memcpy(mine->nargs, mm_am.nargs, MM_AM_USER_HANDLERS);
    mine->ok = 1;
    mine->bad_index = 0;
    if (count < 0 || (count > 0 && entries == NULL)) {
        mm_error("meshmem_am_register: count argument (%d) is negative or entries is NULL", count);
        mine->ok = 0;
        mine->bad_index = -1;
    }
    for (int i = 0; mine->ok && i < count; i++) {
        const meshmem_am_entry_t *e = &entries[i];
        if (mm_am_entry_bad(e)) {
            mm_error("meshmem_am_register: entry %d (index %d, kind %d, flags %d, nargs %d%s) "
                     "is invalid: index 0..%d, kind SHORT/MEDIUM/LONG, flags REQUEST/REPLY/"
                     "REQREP, nargs -1..%d",
                     i, e->index, (int)e->kind, e->flags, e->nargs, e->fn ? "" : ", fn NULL",
                     MM_AM_USER_HANDLERS - 1, MM_AM_MAX_ARGS);
            mine->ok = 0;
            mine->bad_index = e->index;
            break;
        }
        mine->kinds[e->index] = (uint8_t)e->kind;
        mine->flags[e->index] = (uint8_t)e->flags;
        mine->nargs[e->index] = (int8_t)e->nargs;
    }
    meshmem_barrier(MESHMEM_TEAM_WORLD); /* every proposal published */
    bool ok = true;
    mm_am_reg_t remote;
    for (int p = 0; p < mm_g.nranks && ok; p++) {
        const mm_am_reg_t *r = &remote;
        mm_tp_get_line(p, &remote, mine, sizeof(remote)); /* a load, or a get from another host */
        if (!r->ok) {
            if (me == 0 && p != 0)
                mm_error("meshmem_am_register: rank %d passed an invalid entry (index %d)", p,
                         r->bad_index);
            ok = false;
            break;
        }
        for (int i = 0; i < MM_AM_USER_HANDLERS; i++) {
            if (r->kinds[i] != mine->kinds[i] || r->flags[i] != mine->flags[i] ||
                r->nargs[i] != mine->nargs[i]) {
                if (me == 0)
                    mm_error("meshmem_am_register: handler index %d differs between rank %d "
                             "(kind %d, flags %d, nargs %d) and rank %d (kind %d, flags %d, "
                             "nargs %d): registration must be the same on every rank",
                             i, me, mine->kinds[i], mine->flags[i], mine->nargs[i], p, r->kinds[i],
                             r->flags[i], r->nargs[i]);
                ok = false;
                break;
            }
        }
    }
    if (ok) {
        /* commit before the second barrier: no peer sends to the new handlers before it */
        while (atomic_flag_test_and_set_explicit(&mm_am.busy, memory_order_acquire))
            sched_yield();
        for (int i = 0; i < count; i++) {
            const meshmem_am_entry_t *e = &entries[i];
            mm_am.fns[e->index] = e->fn;
        }
        memcpy(mm_am.kinds, mine->kinds, MM_AM_USER_HANDLERS);
        memcpy(mm_am.flags, mine->flags, MM_AM_USER_HANDLERS);
        memcpy(mm_am.nargs, mine->nargs, MM_AM_USER_HANDLERS);
        for (int i = 0; i < MM_AM_USER_HANDLERS; i++)
            mm_am.short_dirs[i] = mm_am.kinds[i] == MM_AM_SHORT ? mm_am.flags[i] : 0;
        atomic_flag_clear_explicit(&mm_am.busy, memory_order_release);
    }
    meshmem_barrier(MESHMEM_TEAM_WORLD); /* nobody rewrites its proposal before all compared */
    return ok ? MESHMEM_OK : MESHMEM_ERR_ARG;
}

/* ---- put and get carried by active messages ---- */

static void mm_am_h_put(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                        int na)
{
    /* the payload is in place (written by the sender, or copied from the slot by dispatch) */
    (void)t, (void)buf, (void)n, (void)a, (void)na;
}

enum {
    MM_GET_SRC_REGION,
    MM_GET_SRC_OFF,
    MM_GET_LEN,
    MM_GET_MODE,
    MM_GET_DEST,
    MM_GET_DEST_OFF,
    MM_GET_COUNTER,
    MM_GET_NARGS
};

static void mm_am_h_get(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                        int na)
{
    (void)buf, (void)n, (void)na;
    uint64_t region = a[MM_GET_SRC_REGION], off = a[MM_GET_SRC_OFF], len = a[MM_GET_LEN];
    size_t size = region == 0 ? mm_g.heap_size : mm_g.data_size;
    if (region > 1 || off > size || len > size - off)
        mm_fatal("meshmem_am_get: GET request from rank %d for a range outside the symmetric "
                 "region (corrupt message)",
                 t->src);
    const char *src = (region ? (char *)mm_g.data_base : (char *)mm_g.heap_base) + off;
    mm_am_out_t o = {.nargs = 1, .args = &a[MM_GET_COUNTER], .buf = src, .nbytes = len};
    const meshmem_am_arg_t medium_args[2] = {a[MM_GET_DEST], a[MM_GET_COUNTER]};
    if (a[MM_GET_MODE] == 1) {
        o.handler = MM_AM_H_GET_REPLY_LONG;
        o.kind = MM_AM_LONG;
        o.has_dest = true;
        o.region = (uint8_t)a[MM_GET_DEST];
        o.offset = a[MM_GET_DEST_OFF];
        size_t dsize = o.region == 0 ? mm_g.heap_size : mm_g.data_size;
        if (o.region > 1 || o.offset > dsize || len > dsize - o.offset)
            mm_fatal("meshmem_am_get: GET request from rank %d names a destination outside "
                     "the symmetric region (corrupt message)",
                     t->src);
    } else {
        o.handler = MM_AM_H_GET_REPLY_MEDIUM;
        o.kind = MM_AM_MEDIUM;
        o.nargs = 2;
        o.args = medium_args;
        if (len > mm_am.max_medium)
            mm_fatal("meshmem_am_get: GET request from rank %d too large for a MEDIUM reply "
                     "(corrupt message)",
                     t->src);
    }
    t->replied = true;
    mm_am_post(t->src, t->n, &o, true);
}

static void mm_am_h_get_long(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                             int na)
{
    (void)t, (void)buf, (void)n, (void)na;
    atomic_fetch_add_explicit((_Atomic uint64_t *)(uintptr_t)a[0], 1, memory_order_release);
}

static void mm_am_h_get_medium(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                               int na)
{
    (void)t, (void)na;
    memcpy((void *)(uintptr_t)a[0], buf, n);
    atomic_fetch_add_explicit((_Atomic uint64_t *)(uintptr_t)a[1], 1, memory_order_release);
}

/*
 * Packed fragments. A transfer in packets of frag bytes would take one ring slot per packet,
 * and with S slots a sender stalls for credits every S packets (2 KiB in flight with 16 slots
 * of 128-byte packets). Consecutive packets of one transfer therefore share a slot: each keeps
 * its own header (mm_am_pkt_t: offset, length) and is handled on its own at the receiver
 * (bounds check and copy, FSHMEM's PUT handler per packet); what they share is the slot, its
 * sequence store and its credit. A slot holds max_medium / (8 + frag) packets: 30 of 128 B,
 * 4 of 1 KiB with the default 4 KiB medium. GET packs the same way: one MEDIUM request carries
 * the packets' descriptors, its MEDIUM reply (in the slot the request reserved) their data.
 */
#define MM_AM_MAX_PKTS 512

enum {
    MM_GETP_SRC_REGION,
    MM_GETP_SRC_OFF,
    MM_GETP_MODE,
    MM_GETP_DEST,
    MM_GETP_DEST_OFF,
    MM_GETP_COUNTER,
    MM_GETP_NARGS
};

/* @return packets of @p frag bytes that share a slot; below 2, packing does not pay */
static size_t mm_am_pack_count(size_t frag)
{
    size_t k = mm_am.max_medium / (sizeof(mm_am_pkt_t) + MM_AM_PAD8(frag));
    return k > MM_AM_MAX_PKTS ? MM_AM_MAX_PKTS : k;
}

/* @return the local address of [off, off + len) of symmetric region @p region, NULL outside */
static char *mm_am_region_at(uint64_t region, uint64_t off, uint64_t len)
{
    size_t size = region == 0 ? mm_g.heap_size : mm_g.data_size;
    if (region > 1 || off > size || len > size - off)
        return NULL;
    return (region ? (char *)mm_g.data_base : (char *)mm_g.heap_base) + off;
}

/* the packet at *at of the packed payload [buf, buf + n): header copied once (the slot is
 * shared memory), checked against the payload; @return its data, NULL after the last */
static const char *mm_am_pkt_next(const char *buf, size_t n, size_t *at, mm_am_pkt_t *h,
                                  const char *what, int src)
{
    if (*at >= n)
        return NULL;
    if (n - *at < sizeof *h)
        mm_fatal("%s: packed message from rank %d ends inside a packet header (corrupt "
                 "message)",
                 what, src);
    memcpy(h, buf + *at, sizeof *h);
    const char *data = buf + *at + sizeof *h;
    size_t room = n - *at - sizeof *h;
    if (h->len > room)
        mm_fatal("%s: packed message from rank %d has a packet past its payload (corrupt "
                 "message)",
                 what, src);
    *at += sizeof *h + (MM_AM_PAD8((size_t)h->len) < room ? MM_AM_PAD8((size_t)h->len) : room);
    return data;
}

/* PUT packets: args (region, offset of the message's base) */
static void mm_am_h_put_packed(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                               int na)
{
    (void)na;
    mm_am_pkt_t h;
    size_t at = 0;
    const char *data;
    /* the base in its region first: base + rel cannot overflow then */
    bool base_ok = mm_am_region_at(a[0], a[1], 0) != NULL;
    while ((data = mm_am_pkt_next(buf, n, &at, &h, "meshmem_am_put", t->src)) != NULL) {
        char *d = base_ok ? mm_am_region_at(a[0], a[1] + h.rel, h.len) : NULL;
        if (d == NULL)
            mm_fatal("meshmem_am_put: packet from rank %d outside the symmetric region "
                     "(corrupt message)",
                     t->src);
        memcpy(d, data, h.len);
    }
}

/* GET packet requests: their descriptors in the payload; one packed reply with the data */
static void mm_am_h_get_packed(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                               int na)
{
    (void)na;
    mm_am_pkt_t pk[MM_AM_MAX_PKTS];
    size_t k = n / sizeof(mm_am_pkt_t), wire = 0;
    const char *base = mm_am_region_at(a[MM_GETP_SRC_REGION], a[MM_GETP_SRC_OFF], 0);
    if (k > MM_AM_MAX_PKTS || base == NULL)
        mm_fatal("meshmem_am_get: GET request from rank %d is malformed (corrupt message)", t->src);
    memcpy(pk, buf, k * sizeof(mm_am_pkt_t)); /* read once: checked, then used */
    for (size_t i = 0; i < k; i++) {
        wire += sizeof(mm_am_pkt_t) + MM_AM_PAD8((size_t)pk[i].len);
        if (mm_am_region_at(a[MM_GETP_SRC_REGION], a[MM_GETP_SRC_OFF] + pk[i].rel, pk[i].len) ==
                NULL ||
            wire > mm_am.max_medium)
            mm_fatal("meshmem_am_get: GET packet request from rank %d outside the symmetric "
                     "region or too large for a reply (corrupt message)",
                     t->src);
    }
    mm_am_out_t o = {.handler = MM_AM_H_GET_REPLY_PACKED,
                     .kind = MM_AM_MEDIUM,
                     .nargs = 4,
                     .args = &a[MM_GETP_MODE],
                     .buf = base,
                     .nbytes = wire,
                     .pkts = pk,
                     .npkts = k};
    t->replied = true;
    mm_am_post(t->src, t->n, &o, true);
}

/* GET data packets: args (mode, dest region or pointer, dest offset, counter) */
static void mm_am_h_get_reply_packed(meshmem_am_token_t t, void *buf, size_t n,
                                     const meshmem_am_arg_t *a, int na)
{
    (void)na;
    mm_am_pkt_t h;
    size_t at = 0;
    uint64_t got = 0;
    const char *data;
    bool base_ok = a[0] != 1 || mm_am_region_at(a[1], a[2], 0) != NULL;
    while ((data = mm_am_pkt_next(buf, n, &at, &h, "meshmem_am_get", t->src)) != NULL) {
        char *d = a[0] == 1 ? (base_ok ? mm_am_region_at(a[1], a[2] + h.rel, h.len) : NULL)
                            : (char *)(uintptr_t)a[1] + h.rel; /* private: our own pointer */
        if (d == NULL)
            mm_fatal("meshmem_am_get: packet from rank %d outside the symmetric region "
                     "(corrupt message)",
                     t->src);
        memcpy(d, data, h.len);
        got++;
    }
    atomic_fetch_add_explicit((_Atomic uint64_t *)(uintptr_t)a[3], got, memory_order_release);
}

/* the next slot's packets of a transfer of @p nbytes from @p off: @return their bytes */
static size_t mm_am_pack_plan(mm_am_pkt_t *pk, size_t *npk, size_t *wire, size_t off, size_t nbytes,
                              size_t frag, size_t k)
{
    size_t rel = 0, i = 0;
    *wire = 0;
    for (; i < k && off + rel < nbytes; i++) {
        size_t len = nbytes - off - rel < frag ? nbytes - off - rel : frag;
        pk[i] = (mm_am_pkt_t){.rel = (uint32_t)rel, .len = (uint32_t)len};
        *wire += sizeof(mm_am_pkt_t) + MM_AM_PAD8(len);
        rel += len;
    }
    *npk = i;
    return rel;
}

/* meshmem_am_put in packed slots of @p k packets (@p o checked: region and offset set) */
static void mm_am_put_packed(int rank, const mm_am_out_t *o, size_t frag, size_t k)
{
    mm_am_pkt_t pk[MM_AM_MAX_PKTS];
    for (size_t off = 0, npk, wire; off < o->nbytes;) {
        size_t bytes = mm_am_pack_plan(pk, &npk, &wire, off, o->nbytes, frag, k);
        const meshmem_am_arg_t a[2] = {o->region, o->offset + off};
        mm_am_out_t f = {.handler = MM_AM_H_PUT_PACKED,
                         .kind = MM_AM_MEDIUM,
                         .nargs = 2,
                         .args = a,
                         .buf = (const char *)o->buf + off,
                         .nbytes = wire,
                         .pkts = pk,
                         .npkts = npk};
        mm_am_send_request(rank, &f);
        off += bytes;
    }
}

/* meshmem_am_get in packed slots; @return the packets requested (each counted on arrival) */
static uint64_t mm_am_get_packed(int rank, const mm_am_out_t *o, const meshmem_am_arg_t *dst,
                                 size_t frag, size_t k, _Atomic uint64_t *arrived)
{
    mm_am_pkt_t pk[MM_AM_MAX_PKTS];
    uint64_t total = 0;
    for (size_t off = 0, npk, wire; off < o->nbytes; total += npk) {
        size_t bytes = mm_am_pack_plan(pk, &npk, &wire, off, o->nbytes, frag, k);
        meshmem_am_arg_t a[MM_GETP_NARGS] = {o->region,
                                             o->offset + off,
                                             dst[0],
                                             dst[0] == 1 ? dst[1] : dst[1] + off,
                                             dst[0] == 1 ? dst[2] + off : 0,
                                             (uintptr_t)arrived};
        mm_am_out_t f = {.handler = MM_AM_H_GET_PACKED,
                         .kind = MM_AM_MEDIUM,
                         .nargs = MM_GETP_NARGS,
                         .args = a,
                         .buf = pk,
                         .nbytes = npk * sizeof(mm_am_pkt_t)};
        mm_am_send_request(rank, &f);
        off += bytes;
    }
    return total;
}

meshmem_status_t meshmem_am_put(void *dest, const void *src, size_t nbytes, int rank, size_t frag)
{
    MM_TRACE_SCOPE(mm_trace_p2p("put", nbytes, rank, MM_TRACE_STORE));
    mm_am_out_t o = {.handler = MM_AM_H_PUT, .kind = MM_AM_LONG, .buf = src, .nbytes = nbytes};
    meshmem_status_t st =
        mm_am_check("meshmem_am_put", rank, &o, dest, MM_AM_REQ, MM_AM_CHECK_INTERNAL);
    if (st != MESHMEM_OK)
        return st;
    if (mm_am_cur != NULL) {
        mm_error("meshmem_am_put: cannot be called from inside a handler");
        return MESHMEM_ERR_STATE;
    }
    if (frag == 0 || frag > nbytes)
        frag = nbytes;
    if (frag < nbytes && mm_am_pack_count(frag) >= 2) {
        mm_am_put_packed(rank, &o, frag, mm_am_pack_count(frag));
        return MESHMEM_OK;
    }
    size_t off = 0;
    do {
        size_t len = nbytes - off < frag ? nbytes - off : frag;
        mm_am_out_t f = o;
        f.buf = (const char *)src + off;
        f.nbytes = len;
        f.offset = o.offset + off;
        mm_am_send_request(rank, &f);
        off += len;
    } while (off < nbytes);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_am_get(void *dest, const void *src, size_t nbytes, int rank, size_t frag)
{
    MM_TRACE_SCOPE(mm_trace_p2p("get", nbytes, rank, 0));
    mm_am_out_t o = {.handler = MM_AM_H_GET, .kind = MM_AM_LONG, .buf = dest, .nbytes = nbytes};
    /* the source range is checked as a LONG destination would be: symmetric, in range */
    meshmem_status_t st =
        mm_am_check("meshmem_am_get", rank, &o, (void *)src, MM_AM_REQ, MM_AM_CHECK_NO_HANDLER);
    if (st == MESHMEM_OK && mm_am_cur != NULL) {
        mm_error("meshmem_am_get: cannot be called from inside a handler");
        st = MESHMEM_ERR_STATE;
    }
    if (st != MESHMEM_OK || nbytes == 0)
        return st;
    uint8_t dregion = 0;
    uint64_t doff = 0;
    bool long_reply = mm_am_encode(dest, nbytes, &dregion, &doff);
    if (!long_reply && (frag == 0 || frag > mm_am.max_medium))
        frag = mm_am.max_medium; /* a private destination: MEDIUM replies, copied here */
    if (frag == 0 || frag > nbytes)
        frag = nbytes;
    _Atomic uint64_t arrived = 0;
    uint64_t nfrag = 0;
    if (frag < nbytes && mm_am_pack_count(frag) >= 2) {
        const meshmem_am_arg_t dst[3] = {long_reply, long_reply ? dregion : (uintptr_t)dest, doff};
        nfrag = mm_am_get_packed(rank, &o, dst, frag, mm_am_pack_count(frag), &arrived);
        MM_AM_WAIT_UNTIL(atomic_load_explicit(&arrived, memory_order_acquire) == nfrag);
        return MESHMEM_OK;
    }
    for (size_t off = 0; off < nbytes; off += frag, nfrag++) {
        size_t len = nbytes - off < frag ? nbytes - off : frag;
        meshmem_am_arg_t a[MM_GET_NARGS];
        a[MM_GET_SRC_REGION] = o.region;
        a[MM_GET_SRC_OFF] = o.offset + off;
        a[MM_GET_LEN] = len;
        a[MM_GET_MODE] = long_reply;
        a[MM_GET_DEST] = long_reply ? dregion : (uintptr_t)((char *)dest + off);
        a[MM_GET_DEST_OFF] = long_reply ? doff + off : 0;
        a[MM_GET_COUNTER] = (uintptr_t)&arrived;
        mm_am_out_t f = {
            .handler = MM_AM_H_GET, .kind = MM_AM_SHORT, .nargs = MM_GET_NARGS, .args = a};
        mm_am_send_request(rank, &f);
    }
    MM_AM_WAIT_UNTIL(atomic_load_explicit(&arrived, memory_order_acquire) == nfrag);
    return MESHMEM_OK;
}

/* ---- init and fini ---- */

static void *mm_am_thread_main(void *arg)
{
    (void)arg;
    mm_wait_t w;
    mm_wait_init_runtime(&w);
    while (!atomic_load_explicit(&mm_am.stop, memory_order_acquire)) {
        if (mm_am_try_progress() > 0) {
            mm_wait_done(&w);
            mm_wait_init_runtime(&w);
            continue;
        }
        mm_wait_step(&w);
    }
    mm_wait_done(&w);
    return NULL;
}

/* peer @p p's counters from zero, and where its rings and credit lines are (after the layout) */
static void mm_am_peer_init(int p)
{
    mm_am_peer_t *pe = &mm_am.peer[p];
    int me = mm_g.rank;
    atomic_init(&pe->req_sent, 0);
    pe->done_seen = 0;
    atomic_init(&pe->rep_next, 0);
    atomic_init(&pe->req_next, 0);
    atomic_flag_clear(&pe->send_lock);
    pe->req_in = mm_am_slot(p, 0, 0);
    pe->rep_in = mm_am_slot(p, 1, 0);
    pe->credit_in = &mm_am_ctrl(p)->req_done;
    atomic_init(&pe->req_head, mm_am_seq(pe->req_in));
    atomic_init(&pe->rep_head, mm_am_seq(pe->rep_in));
    pe->req_out = mm_tp_line(p, mm_am_slot(me, 0, 0));
    pe->rep_out = mm_tp_line(p, mm_am_slot(me, 1, 0));
    mm_am_ctrl_t *credit = mm_tp_line(p, mm_am_ctrl(me));
    pe->credit_out = credit ? &credit->req_done : NULL;
}

static void mm_am_internal(int index, meshmem_am_handler_t fn, int kind, int flags, int nargs)
{
    mm_am.fns[index] = fn;
    mm_am.kinds[index] = (uint8_t)kind;
    mm_am.flags[index] = (uint8_t)flags;
    mm_am.nargs[index] = (int8_t)nargs;
}

int mm_am_init(void)
{
    mm_am.slot_bytes = mm_am_slot_bytes();
    mm_am.slots = mm_am_nslots();
    mm_am.slot_mask = (mm_am.slots & (mm_am.slots - 1)) == 0 ? mm_am.slots - 1 : 0;
    mm_am.reg_bytes = (sizeof(mm_am_reg_t) + 63) & ~(size_t)63;
    mm_am.max_medium = mm_am.slot_bytes - MM_AM_HDR_BYTES - 8 * MM_AM_MAX_ARGS;
    mm_am.peer = aligned_alloc(MM_CACHELINE, (size_t)mm_g.nranks * sizeof(mm_am_peer_t));
    if (mm_am.peer == NULL)
        return -1;
    for (int p = 0; p < mm_g.nranks; p++)
        mm_am_peer_init(p);
    memset(mm_am.kinds, 0, sizeof mm_am.kinds);
    memset(mm_am.flags, 0, sizeof mm_am.flags);
    memset(mm_am.nargs, 0, sizeof mm_am.nargs);
    memset(mm_am.short_dirs, 0, sizeof mm_am.short_dirs);
    mm_am_internal(MM_AM_H_PUT, mm_am_h_put, MM_AM_LONG, MM_AM_REQ, 0);
    mm_am_internal(MM_AM_H_GET, mm_am_h_get, MM_AM_SHORT, MM_AM_REQ, MM_GET_NARGS);
    mm_am_internal(MM_AM_H_GET_REPLY_LONG, mm_am_h_get_long, MM_AM_LONG, MM_AM_REP, 1);
    mm_am_internal(MM_AM_H_GET_REPLY_MEDIUM, mm_am_h_get_medium, MM_AM_MEDIUM, MM_AM_REP, 2);
    mm_am_internal(MM_AM_H_PUT_PACKED, mm_am_h_put_packed, MM_AM_MEDIUM, MM_AM_REQ, 2);
    mm_am_internal(MM_AM_H_GET_PACKED, mm_am_h_get_packed, MM_AM_MEDIUM, MM_AM_REQ, MM_GETP_NARGS);
    mm_am_internal(MM_AM_H_GET_REPLY_PACKED, mm_am_h_get_reply_packed, MM_AM_MEDIUM, MM_AM_REP, 4);
    mm_am.lim = (mm_am_limits_t){.kinds = mm_am.kinds,
                                 .flags = mm_am.flags,
                                 .nargs = mm_am.nargs,
                                 .slot_bytes = mm_am.slot_bytes,
                                 .region_base = {(char *)mm_g.heap_base, (char *)mm_g.data_base},
                                 .region_size = {mm_g.heap_size, mm_g.data_size}};
    mm_am.ready = true;
    mm_progress_hook = mm_am_hook;
    atomic_store(&mm_am.stop, false);
    mm_am.thread_on = false;
    if (mm_config.progress_thread) {
        if (pthread_create(&mm_am.thread, NULL, mm_am_thread_main, NULL) != 0) {
            mm_error("meshmem_init: cannot start the progress thread (MESHMEM_PROGRESS_THREAD)");
            return -1;
        }
        mm_am.thread_on = true;
    }
    return 0;
}

void mm_am_quiesce(void)
{
    if (mm_am.ready && mm_am_cur == NULL)
        meshmem_am_quiet();
}

void mm_am_fini(void)
{
    if (!mm_am.ready)
        return;
    if (mm_am.thread_on) {
        atomic_store(&mm_am.stop, true);
        mm_wake_slow(&mm_own_hdr()->waiter);
        pthread_join(mm_am.thread, NULL);
        mm_am.thread_on = false;
    }
    mm_progress_hook = NULL;
    mm_am.ready = false;
    free(mm_am.peer);
    mm_am.peer = NULL;
}
