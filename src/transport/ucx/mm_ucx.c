/*
 * The UCX network transport (mm_tp_ops.h), built as the plugin libmeshmem_ucx.so
 * (mm_plugin.h): one ucp worker per rank, endpoints to the ranks on other hosts, this rank's
 * heap segment and static data registered (ucp_mem_map) and their keys exchanged at init.
 *
 * Operations. put, get and AMOs are ucp_put_nbx, ucp_get_nbx and ucp_atomic_op_nbx on the
 * peer's registered memory, except puts and gets of MESHMEM_NET_AM_RMA_BYTES or more: UCX's TCP
 * transport has no RMA and emulates it in pieces of a few KiB, each served by the target, 10 to
 * 25 times slower than its active messages, which move a large message in one eager send or a
 * rendezvous (ucx_perftest between two virtual hosts, docs/results-across.md). So a large put is
 * an active message (MM_UCX_AM_PUT) whose handler places the data. A large get is a request
 * (MM_UCX_AM_GET) that the target answers with the data (MM_UCX_AM_GET_REPLY); the reply's
 * handler places it and counts the get down. UCX has 32- and 64-bit atomics only: 8- and 16-bit
 * AMOs are a compare-and-swap loop on the aligned 32-bit word that contains them (the other
 * bytes are rewritten with what they held, so a concurrent AMO on them makes the swap fail and
 * retry). fence is ucp_worker_fence, quiet a worker flush, each plus the completion of the puts
 * that travelled as messages (below).
 *
 * Puts that travel as messages are not acknowledged one by one (an acknowledgement per put
 * with signal would double a ping-pong's messages, and its time). Each side counts them per
 * peer, the sender those it sent, the target those in place; quiet and fence ask every peer
 * with puts it has not confirmed (MM_UCX_AM_COMPLETE, the count sent so far) and wait for the
 * answer (MM_UCX_AM_DONE), which the target gives once that many are in place.
 *
 * The runtime's own active messages (mm_tp_ops.h: am_send, and the handler init is given:
 * the posts of its flag lines and channels, puts with signal, collectives' large messages,
 * src/transport/mm_tp_am.c and src/coll/mm_msg.c) travel as UCX active messages of one id,
 * MM_UCX_AM_RUNTIME: a prefix naming the sender and the runtime's id (mm_ucx_rt_t), then the
 * runtime's header; the data eagerly or by rendezvous, as UCX chooses unless the runtime asks
 * for eager. The handler gets eager data in place; rendezvous data (or eager data it keeps)
 * stays UCX's until the runtime names a buffer (am_recv) or drops it. Messages sent as puts
 * (MM_TP_AM_PUT: a put with signal) are counted as the large puts are, landed once their
 * handler returned with the data in place, so that quiet completes them.
 *
 * Progress. Over TCP UCX has no hardware RMA: a peer's put, get or AMO on this rank's memory is
 * carried out by this rank's ucp_worker_progress. Every wait of the runtime calls it while it
 * polls; and a thread serves the peers when the application has not progressed for
 * MESHMEM_NET_PROGRESS_US (it is computing), or at once when the application is about to sleep
 * in a wait (the idle op kicks it): it then sleeps on the worker's event file descriptor,
 * progresses as soon as something arrives and wakes the application's sleepers. The worker is
 * thread-safe (UCS_THREAD_MODE_MULTI).
 *
 * AMOs are atomic with respect to the CPU atomics that the ranks of a node use on the same
 * words: over TCP UCX carries them out with the target's CPU atomics, and UCX_ATOMIC_MODE=cpu
 * (set unless the user chose otherwise) keeps a NIC from using atomics of its own.
 *
 * Failures. Endpoints handle peer errors (UCP_ERR_HANDLING_MODE_PEER, with a keepalive of
 * MM_UCX_KEEPALIVE unless UCX_KEEPALIVE_INTERVAL says otherwise): a peer that dies or becomes
 * unreachable ends the job from here with a message naming the rank and its host.
 */
#include "mm_tp_ops.h"
#include "mm_ucx_post.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#define MM_UCX_AM_RUNTIME   1 /* the runtime's (mm_ucx_rt_t, its header, then the data) */
#define MM_UCX_AM_PUT       2 /* a large put (mm_ucx_rma_t, then the data) */
#define MM_UCX_AM_DONE      3 /* answer to a completion request (mm_ucx_done_t) */
#define MM_UCX_AM_GET       4 /* a large get's request (mm_ucx_rma_t) */
#define MM_UCX_AM_GET_REPLY 5 /* its answer (mm_ucx_rma_t, then the data) */
#define MM_UCX_AM_COMPLETE  8 /* completion request: are my first n puts in place? (mm_ucx_done_t) */
#define MM_UCX_EAGER_MAX    ((size_t)64 << 10) /* a post's extra bytes above it go by put */
#define MM_UCX_KEEPALIVE    "5s"

static const mm_plugin_host_t *H;

typedef struct {
    ucp_ep_h ep;
    ucp_rkey_h rkey[MM_UCX_REGIONS];
    uint64_t base[MM_UCX_REGIONS]; /* the peer's segment and static data, in its address space */
    /* puts that travel as messages (large puts, puts with signal), counted both ways: */
    _Atomic uint64_t sent;      /* to the peer, so far */
    _Atomic uint64_t done;      /* to the peer: how many it said are in place */
    _Atomic uint64_t landed;    /* from the peer: in place here */
    _Atomic uint64_t asked;     /* from the peer: the count its pending request waits for */
    _Atomic uint64_t requested; /* to the peer: the largest count asked for so far */
} mm_ucx_peer_t;

static struct {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_mem_h mem[MM_UCX_REGIONS];
    mm_ucx_peer_t *peer; /* [nranks]; ep NULL for peers of the node */
    int efd;             /* the worker's event file descriptor */
    int kickfd;          /* eventfd: the application sleeps, the thread serves */
    pthread_t thread;
    bool thread_on;
    atomic_bool stop;
    atomic_bool closing;            /* finalize: peers closing their endpoints is no error */
    _Atomic uint64_t app_polls;     /* progress calls by the application */
    _Atomic uint64_t gets_out;      /* large get_nbi whose data is not here yet */
    _Atomic uint64_t sent_all;      /* puts sent as messages, to every peer (the peers' sum) */
    _Atomic uint64_t confirmed_all; /* of those, the first this many are known in place: a
                                       * quiet with nothing new sent need not ask any peer */
    atomic_bool fenced;             /* a fence since the last flush: RMA may be in flight */
    int32_t me;                     /* this rank, the body of every acknowledgement */
    char (*hosts)[64];              /* [nranks] host names, for messages */
    mm_tp_am_fn arrived;            /* the runtime's handler of its messages */
} U = {.efd = -1, .kickfd = -1};

#define G (H->g)

/* ---- addresses ---- */

/* the region and offset of symmetric [addr, addr + len) (for rank @p pe, in messages) */
static void mm_ucx_locate(int pe, const void *addr, size_t len, uint32_t *region, uint64_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    if (a - (uintptr_t)G->seg < G->seg_bytes && len <= G->seg_bytes - (a - (uintptr_t)G->seg)) {
        *region = MM_UCX_SEG;
        *off = a - (uintptr_t)G->seg;
    } else if (a - G->data_base < G->data_size && len <= G->data_size - (a - G->data_base)) {
        *region = MM_UCX_DATA;
        *off = a - G->data_base;
    } else {
        H->fatal("transport: address %p (%zu bytes) for rank %d is outside the symmetric "
                 "memory",
                 addr, len, pe);
    }
}

/* this rank's own copy of @p region */
static char *mm_ucx_base(uint32_t region)
{
    return region == MM_UCX_DATA ? (char *)G->data_base : G->seg;
}

/* the peer-side address and key of symmetric [addr, addr + len) on @p pe */
static void mm_ucx_remote(int pe, const void *addr, size_t len, uint64_t *raddr, ucp_rkey_h *rkey)
{
    uint32_t region;
    uint64_t off;
    mm_ucx_locate(pe, addr, len, &region, &off);
    *raddr = U.peer[pe].base[region] + off;
    *rkey = U.peer[pe].rkey[region];
}

static const char *mm_ucx_host(int pe)
{
    return U.hosts && (unsigned)pe < (unsigned)G->nranks ? U.hosts[pe] : "?";
}

/* ---- completion ---- */

/* the UCX library in use, for messages: "UCX 1.13.1, /usr/lib/.../libucp.so.0" */
static char mm_ucx_lib[320] = "UCX ?";

static void mm_ucx_failed(const char *what, int pe, ucs_status_t st)
{
    H->fatal("%s to rank %d (host %s) failed: %s (%s)", what, pe, pe >= 0 ? mm_ucx_host(pe) : "-",
             ucs_status_string(st), mm_ucx_lib);
}

/* one turn of a blocking operation's completion loop: counted as the application's progress
 * on a rank with a core of its own, so that the progress thread, on that core, keeps out of the
 * worker while the application polls it (where ranks share cores the thread stays free to
 * serve: counting there stalled 2x2 jobs) */
static void mm_ucx_spin(void)
{
    if (!G->oversubscribed) {
        atomic_fetch_add_explicit(&U.app_polls, 1, memory_order_relaxed);
        ucp_worker_progress(U.worker);
    } else if (ucp_worker_progress(U.worker) == 0) {
        sched_yield(); /* the peer this waits for may need this core */
    }
}

/* wait for @p req to complete, progressing; NULL: it completed at once */
static void mm_ucx_wait(ucs_status_ptr_t req, const char *what, int pe)
{
    if (req == NULL)
        return;
    if (UCS_PTR_IS_ERR(req))
        mm_ucx_failed(what, pe, UCS_PTR_STATUS(req));
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
        mm_ucx_spin();
    ucp_request_free(req);
    if (st != UCS_OK)
        mm_ucx_failed(what, pe, st);
}

/* let @p req complete on its own (nbi operations: quiet completes them) */
static void mm_ucx_release(ucs_status_ptr_t req, const char *what, int pe)
{
    if (req == NULL)
        return;
    if (UCS_PTR_IS_ERR(req))
        mm_ucx_failed(what, pe, UCS_PTR_STATUS(req));
    ucp_request_free(req);
}

/* progress until the counter @p out is down to zero (handlers count it down) */
static void mm_ucx_drain(_Atomic uint64_t *out)
{
    while (atomic_load_explicit(out, memory_order_acquire) != 0)
        mm_ucx_spin();
}

/* ---- large transfers: active messages (see the head of the file) ---- */

/* a send whose header must outlive the call (UCX 1.13 keeps the pointer until completion) */
typedef struct {
    union {
        mm_ucx_rma_t rma;
        mm_ucx_done_t done;
        char rt[sizeof(mm_ucx_rt_t) + MM_UCX_RT_HDR_MAX]; /* a runtime message's */
    } h;
    int pe;
    const char *what;
    _Atomic uint64_t *pending; /* counted down at completion (NULL: none) */
} mm_ucx_sending_t;

static void mm_ucx_sending_done(mm_ucx_sending_t *s)
{
    if (s->pending)
        atomic_fetch_sub_explicit(s->pending, 1, memory_order_release);
    free(s);
}

static void mm_ucx_sent(void *req, ucs_status_t st, void *user_data)
{
    mm_ucx_sending_t *s = user_data;
    ucp_request_free(req);
    if (st != UCS_OK && !atomic_load(&U.closing))
        mm_ucx_failed(s->what, s->pe, st);
    mm_ucx_sending_done(s);
}

/* send active message @p id, header *@p s (@p hlen bytes, malloc'd; freed at completion) and
 * @p n bytes of @p data, to s->pe, with UCP_AM_SEND_FLAG_* @p send_flags; returns at once */
static void mm_ucx_send_owned(mm_ucx_sending_t *s, unsigned id, size_t hlen, const void *data,
                              size_t n, uint32_t send_flags)
{
    if (s->pending)
        atomic_fetch_add_explicit(s->pending, 1, memory_order_relaxed);
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA |
                                               UCP_OP_ATTR_FIELD_FLAGS,
                               .cb.send = mm_ucx_sent,
                               .user_data = s,
                               .flags = send_flags};
    ucs_status_ptr_t req = ucp_am_send_nbx(U.peer[s->pe].ep, id, &s->h, hlen, data, n, &prm);
    if (req == NULL) /* done at once: the callback is not called */
        mm_ucx_sending_done(s);
    else if (UCS_PTR_IS_ERR(req))
        mm_ucx_failed(s->what, s->pe, UCS_PTR_STATUS(req));
    /* else the callback comes, and frees the request and s (ucp_request_free here would
     * cancel the callback: UCX calls none for a request freed before it completes) */
}

static mm_ucx_sending_t *mm_ucx_sending_new(int pe, const char *what, _Atomic uint64_t *pending)
{
    mm_ucx_sending_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        H->fatal("transport: out of memory for a %s to rank %d", what, pe);
    s->pe = pe, s->what = what, s->pending = pending;
    return s;
}

/* send header @p h (@p hlen bytes, one of mm_ucx_sending_t's) and @p n bytes of @p data to
 * @p pe as active message @p id; @p wait: return at local completion, else let it complete on
 * its own (the header copied into a mm_ucx_sending_t that lives until then) */
static void mm_ucx_send_am(int pe, unsigned id, const void *h, size_t hlen, const void *data,
                           size_t n, bool wait, const char *what)
{
    if (wait) {
        ucp_request_param_t prm = {.op_attr_mask = 0};
        mm_ucx_wait(ucp_am_send_nbx(U.peer[pe].ep, id, h, hlen, data, n, &prm), what, pe);
        return;
    }
    mm_ucx_sending_t *s = mm_ucx_sending_new(pe, what, NULL);
    memcpy(&s->h, h, hlen);
    mm_ucx_send_owned(s, id, hlen, data, n, 0);
}

/* complete every RMA operation and AMO issued so far (not the large transfers' messages) */
static void mm_ucx_flush_worker(void)
{
    ucp_request_param_t prm = {.op_attr_mask = 0};
    mm_ucx_wait(ucp_worker_flush_nbx(U.worker, &prm), "flush", -1);
}

/* before a large put: RMA issued before a fence is complete, so the put lands after it (a
 * worker fence orders RMA, not messages) */
static void mm_ucx_settle_fence(void)
{
    if (atomic_exchange(&U.fenced, false))
        mm_ucx_flush_worker();
}

/* one more put to @p pe that travels as a message (completed by mm_ucx_complete_puts) */
static void mm_ucx_count_sent(int pe)
{
    atomic_fetch_add_explicit(&U.peer[pe].sent, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&U.sent_all, 1, memory_order_relaxed);
}

static void mm_ucx_am_put(int pe, void *dest, const void *src, size_t n, bool wait)
{
    mm_ucx_settle_fence();
    mm_ucx_rma_t h = {.len = n, .src = U.me};
    mm_ucx_locate(pe, dest, n, &h.region, &h.off);
    mm_ucx_count_sent(pe);
    mm_ucx_send_am(pe, MM_UCX_AM_PUT, &h, sizeof(h), src, n, wait, "put");
}

/* a large get into @p dest; @p token is counted up now and down when the data is here */
static void mm_ucx_am_get(int pe, void *dest, const void *src, size_t n, _Atomic uint64_t *token,
                          bool wait)
{
    mm_ucx_rma_t h = {.len = n,
                      .reply_dest = (uint64_t)(uintptr_t)dest,
                      .token = (uint64_t)(uintptr_t)token,
                      .src = U.me};
    mm_ucx_locate(pe, src, n, &h.region, &h.off);
    atomic_fetch_add_explicit(token, 1, memory_order_relaxed);
    mm_ucx_send_am(pe, MM_UCX_AM_GET, &h, sizeof(h), NULL, 0, wait, "get");
}

/* tell rank @p to that its first @p n puts are in place here */
static void mm_ucx_send_done(int to, uint64_t n)
{
    mm_ucx_sending_t *s = mm_ucx_sending_new(to, "completion answer", NULL);
    s->h.done = (mm_ucx_done_t){.count = n, .from = U.me};
    mm_ucx_send_owned(s, MM_UCX_AM_DONE, sizeof(s->h.done), NULL, 0, 0);
}

/* rank @p src's request for @p want: answered now, or by the landing that reaches it; the
 * compare-and-swap makes exactly one of the two answer */
static void mm_ucx_answer_if_landed(int src)
{
    mm_ucx_peer_t *p = &U.peer[src];
    uint64_t want = atomic_load_explicit(&p->asked, memory_order_acquire);
    if (want != 0 && atomic_load_explicit(&p->landed, memory_order_acquire) >= want &&
        atomic_compare_exchange_strong(&p->asked, &want, 0))
        mm_ucx_send_done(src, want);
}

/* the data of a put from rank @p from is in place: wake this rank's sleepers, count it, and
 * answer a completion request that waited for it (puts are not acknowledged one by one: a
 * put with signal would cost two messages) */
static void mm_ucx_put_landed(void *from)
{
    int src = (int)(intptr_t)from;
    H->wake_self();
    atomic_fetch_add_explicit(&U.peer[src].landed, 1, memory_order_release);
    mm_ucx_answer_if_landed(src);
}

static void mm_ucx_put_received(void *req, ucs_status_t st, size_t length, void *user_data)
{
    int src = (int)(intptr_t)user_data;
    (void)length;
    ucp_request_free(req);
    if (st != UCS_OK) {
        if (!atomic_load(&U.closing))
            mm_ucx_failed("receiving a put", src, st);
        return;
    }
    mm_ucx_put_landed(user_data);
}

/* a peer's message header of @p size bytes into @p out, checked by @p valid (its fields) and
 * for a sender (the int32_t at @p src_off) on another host: a malformed one ends the job (its
 * sender would wait for an answer that never comes, or its data land where it must not) */
static void mm_ucx_header(void *out, size_t size, const void *header, size_t header_length,
                          bool (*valid)(const void *h, size_t length), size_t length,
                          size_t src_off, const char *what)
{
    if (header_length != size)
        H->fatal("transport: a malformed %s (%zu header bytes) arrived", what, header_length);
    memcpy(out, header, size);
    int32_t src;
    memcpy(&src, (const char *)out + src_off, sizeof(src));
    if (!valid(out, length) || U.peer[src].ep == NULL)
        H->fatal("transport: a malformed %s (%zu data bytes) arrived", what, length);
}

static bool mm_ucx_put_header_valid(const void *h, size_t length)
{
    return mm_ucx_rma_valid(h, length, false, G->seg_bytes, G->data_size, G->nranks);
}

static bool mm_ucx_get_header_valid(const void *h, size_t length)
{
    return mm_ucx_rma_valid(h, length, true, G->seg_bytes, G->data_size, G->nranks);
}

/* the header of a large put (@p is_get false) or get request from a peer, checked */
static mm_ucx_rma_t mm_ucx_rma_header(const void *header, size_t header_length, size_t length,
                                      bool is_get, const char *what)
{
    mm_ucx_rma_t h;
    mm_ucx_header(&h, sizeof(h), header, header_length,
                  is_get ? mm_ucx_get_header_valid : mm_ucx_put_header_valid, length,
                  offsetof(mm_ucx_rma_t, src), what);
    return h;
}

/* accept rendezvous @p desc: its @p len bytes straight into @p dest; @p landed(@p arg) runs
 * once they are there, now or from @p received when the transfer completes later */
static void mm_ucx_recv_rndv(void *desc, void *dest, size_t len,
                             ucp_am_recv_data_nbx_callback_t received, void *arg,
                             void (*landed)(void *arg), const char *what, int from)
{
    ucp_request_param_t prm = {.op_attr_mask =
                                   UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.recv_am = received,
                               .user_data = arg};
    ucs_status_ptr_t req = ucp_am_recv_data_nbx(U.worker, desc, dest, len, &prm);
    if (req == NULL)
        landed(arg);
    else if (UCS_PTR_IS_ERR(req))
        mm_ucx_failed(what, from, UCS_PTR_STATUS(req));
}

/* place a message's @p len data bytes at @p dest: copied from an eager message (UCX passes
 * no data pointer for none), or by rendezvous straight into place; @p landed(@p arg) runs once
 * they are there. @return what the message's handler returns. */
static ucs_status_t mm_ucx_place(void *data, void *dest, size_t len,
                                 const ucp_am_recv_param_t *param,
                                 ucp_am_recv_data_nbx_callback_t received, void *arg,
                                 void (*landed)(void *arg), const char *what, int from)
{
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        if (len)
            memcpy(dest, data, len);
        landed(arg);
        return UCS_OK;
    }
    mm_ucx_recv_rndv(data, dest, len, received, arg, landed, what, from);
    return UCS_INPROGRESS;
}

/* a large put arrives: place its data (by rendezvous, straight into place), then acknowledge */
static ucs_status_t mm_ucx_on_put(void *arg, const void *header, size_t header_length, void *data,
                                  size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    mm_ucx_rma_t h = mm_ucx_rma_header(header, header_length, length, false, "put");
    return mm_ucx_place(data, mm_ucx_base(h.region) + h.off, h.len, param, mm_ucx_put_received,
                        (void *)(intptr_t)h.src, mm_ucx_put_landed, "receiving a put", h.src);
}

/* *@p w = max(*@p w, @p v), atomically */
static void mm_ucx_raise(_Atomic uint64_t *w, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(w, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(w, &cur, v, memory_order_release,
                                                             memory_order_relaxed))
        ;
}

static bool mm_ucx_done_header_valid(const void *h, size_t length)
{
    return mm_ucx_done_valid(h, length, G->nranks);
}

/* a completion request or its answer, checked */
static mm_ucx_done_t mm_ucx_done_header(const void *header, size_t header_length, size_t length,
                                        const char *what)
{
    mm_ucx_done_t h;
    mm_ucx_header(&h, sizeof(h), header, header_length, mm_ucx_done_header_valid, length,
                  offsetof(mm_ucx_done_t, from), what);
    return h;
}

/* a peer asks whether its first count puts are in place here */
static ucs_status_t mm_ucx_on_complete(void *arg, const void *header, size_t header_length,
                                       void *data, size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)param;
    mm_ucx_done_t h = mm_ucx_done_header(header, header_length, length, "completion request");
    /* the largest count asked for (requests from two threads of the peer may cross): its
     * answer answers the smaller ones too */
    mm_ucx_raise(&U.peer[h.from].asked, h.count);
    mm_ucx_answer_if_landed(h.from);
    return UCS_OK;
}

/* a peer answers: our first count puts are in place there */
static ucs_status_t mm_ucx_on_done(void *arg, const void *header, size_t header_length, void *data,
                                   size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)param;
    mm_ucx_done_t h = mm_ucx_done_header(header, header_length, length, "completion answer");
    mm_ucx_raise(&U.peer[h.from].done, h.count);
    return UCS_OK;
}

/* complete every put that travelled as a message to @p pe (all peers when @p pe < 0): ask each
 * peer with puts it has not confirmed, then wait for the answers */
static void mm_ucx_complete_puts(int pe)
{
    uint64_t all = atomic_load_explicit(&U.sent_all, memory_order_acquire);
    if (pe < 0 && atomic_load_explicit(&U.confirmed_all, memory_order_acquire) >= all)
        return;
    int lo = pe < 0 ? 0 : pe, hi = pe < 0 ? G->nranks : pe + 1;
    for (int r = lo; r < hi; r++) {
        mm_ucx_peer_t *p = &U.peer[r];
        uint64_t n = atomic_load_explicit(&p->sent, memory_order_relaxed);
        if (p->ep == NULL || atomic_load_explicit(&p->done, memory_order_acquire) >= n)
            continue;
        mm_ucx_raise(&p->requested, n);
        mm_ucx_done_t h = {.count = n, .from = U.me};
        ucp_request_param_t prm = {.op_attr_mask = 0};
        mm_ucx_wait(ucp_am_send_nbx(p->ep, MM_UCX_AM_COMPLETE, &h, sizeof(h), NULL, 0, &prm),
                    "completion request", r);
    }
    /* wait for the largest count asked for, not the count sent by now: puts another thread
     * sent since were asked for by nobody (a larger count asked for is answered too) */
    for (int r = lo; r < hi; r++) {
        mm_ucx_peer_t *p = &U.peer[r];
        uint64_t n = atomic_load_explicit(&p->requested, memory_order_acquire);
        while (p->ep != NULL && atomic_load_explicit(&p->done, memory_order_acquire) < n)
            mm_ucx_spin();
    }
    if (pe < 0)
        mm_ucx_raise(&U.confirmed_all, all);
}

/* a large get's request arrives: answer with the data (UCX reads it from this rank's memory
 * until the reply completes; the get returns a value the memory held meanwhile) */
static ucs_status_t mm_ucx_on_get(void *arg, const void *header, size_t header_length, void *data,
                                  size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)param;
    mm_ucx_rma_t h = mm_ucx_rma_header(header, header_length, length, true, "get request");
    const char *src = mm_ucx_base(h.region) + h.off;
    int to = h.src;
    h.src = U.me;
    mm_ucx_send_am(to, MM_UCX_AM_GET_REPLY, &h, sizeof(h), src, h.len, false, "get reply");
    return UCS_OK;
}

/* a large get's data is here: count down its token (an _Atomic uint64_t) */
static void mm_ucx_get_arrived(void *token)
{
    atomic_fetch_sub_explicit((_Atomic uint64_t *)token, 1, memory_order_release);
}

static void mm_ucx_get_received(void *req, ucs_status_t st, size_t length, void *user_data)
{
    (void)length;
    ucp_request_free(req);
    if (st != UCS_OK && !atomic_load(&U.closing))
        mm_ucx_failed("receiving a get's data", -1, st);
    mm_ucx_get_arrived(user_data);
}

/* a large get's data arrives: into the requester's buffer it named (its own address) */
static ucs_status_t mm_ucx_on_get_reply(void *arg, const void *header, size_t header_length,
                                        void *data, size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    mm_ucx_rma_t h;
    if (header_length != sizeof(h))
        H->fatal("transport: a malformed get reply (%zu header bytes) arrived", header_length);
    memcpy(&h, header, sizeof(h));
    if (length != h.len)
        H->fatal("transport: a get reply of %zu bytes where %llu were asked for", length,
                 (unsigned long long)h.len);
    return mm_ucx_place(data, (void *)(uintptr_t)h.reply_dest, h.len, param, mm_ucx_get_received,
                        (void *)(uintptr_t)h.token, mm_ucx_get_arrived, "receiving a get's data",
                        h.src);
}

/* ---- the runtime's active messages (see the head of the file) ---- */

static void mm_ucx_am_send(int pe, unsigned id, const void *hdr, size_t hdr_len,
                           const struct iovec *iov, int iovcnt, unsigned flags,
                           _Atomic uint64_t *pending)
{
    if (hdr_len > MM_UCX_RT_HDR_MAX || (iovcnt > 1 && !(flags & MM_TP_AM_WAIT)))
        H->fatal("transport: a message of %zu header bytes in %d pieces cannot be sent", hdr_len,
                 iovcnt);
    if (flags & MM_TP_AM_PUT) { /* ordered and completed as a put */
        mm_ucx_settle_fence();
        mm_ucx_count_sent(pe);
    }
    mm_ucx_rt_t rt = {.src = U.me, .id = (uint16_t)id, .flags = (uint16_t)flags};
    size_t hlen = sizeof(rt) + hdr_len;
    ucp_dt_iov_t pieces[2];
    const void *data = iovcnt ? iov[0].iov_base : NULL;
    size_t n = iovcnt ? iov[0].iov_len : 0;
    if (iovcnt > 1) { /* (a blocking send: the pieces outlive it) */
        for (int k = 0; k < iovcnt && k < 2; k++)
            pieces[k] = (ucp_dt_iov_t){iov[k].iov_base, iov[k].iov_len};
        data = pieces;
        n = (size_t)(iovcnt < 2 ? iovcnt : 2);
    }
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                               .datatype = iovcnt > 1 ? ucp_dt_make_iov() : ucp_dt_make_contig(1)};
    if (flags & MM_TP_AM_EAGER) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        prm.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    if (flags & MM_TP_AM_WAIT) {
        char h[sizeof(mm_ucx_rt_t) + MM_UCX_RT_HDR_MAX];
        memcpy(h, &rt, sizeof(rt));
        memcpy(h + sizeof(rt), hdr, hdr_len);
        if (pending)
            atomic_fetch_add_explicit(pending, 1, memory_order_relaxed);
        mm_ucx_wait(ucp_am_send_nbx(U.peer[pe].ep, MM_UCX_AM_RUNTIME, h, hlen, data, n, &prm),
                    "message", pe);
        if (pending)
            atomic_fetch_sub_explicit(pending, 1, memory_order_release);
        return;
    }
    mm_ucx_sending_t *s = mm_ucx_sending_new(pe, "message", pending);
    memcpy(s->h.rt, &rt, sizeof(rt));
    memcpy(s->h.rt + sizeof(rt), hdr, hdr_len);
    mm_ucx_send_owned(s, MM_UCX_AM_RUNTIME, hlen, data, n,
                      (flags & MM_TP_AM_EAGER) ? UCP_AM_SEND_FLAG_EAGER : 0);
}

/* a runtime message as its handler sees it (mm_tp_am_fn's rx), and once kept (am_keep) */
typedef struct {
    void *data; /* UCX's: the eager bytes, or the rendezvous descriptor; a kept copy */
    size_t len;
    int src;
    bool rndv;     /* data is a rendezvous descriptor */
    bool ucx_data; /* UCX lets the eager bytes be kept (UCP_AM_RECV_ATTR_FLAG_DATA) */
    bool counted;  /* sent as a put: its landing is counted for the sender's quiet */
    bool kept;     /* on the heap (am_keep) */
    bool copied;   /* kept: data is this plugin's copy */
    bool settled;  /* taken or kept, during its handler */
} mm_ucx_rx_t;

/* the landing of a runtime message's data taken into place: the runtime's, then the count */
typedef struct {
    void (*landed)(void *arg);
    void *arg;
    int src;
    bool counted;
} mm_ucx_landing_t;

static void mm_ucx_rt_landed(void *arg)
{
    mm_ucx_landing_t *l = arg;
    l->landed(l->arg);
    if (l->counted)
        mm_ucx_put_landed((void *)(intptr_t)l->src);
    free(l);
}

static void mm_ucx_rt_received(void *req, ucs_status_t st, size_t length, void *user_data)
{
    (void)length;
    ucp_request_free(req);
    if (st != UCS_OK && !atomic_load(&U.closing))
        mm_ucx_failed("receiving a message", ((mm_ucx_landing_t *)user_data)->src, st);
    mm_ucx_rt_landed(user_data);
}

/* give back the data of kept message @p rx: UCX's, or this plugin's copy */
static void mm_ucx_rx_release(mm_ucx_rx_t *rx)
{
    if (rx->copied)
        free(rx->data);
    else
        ucp_am_data_release(U.worker, rx->data);
}

static void mm_ucx_am_recv(void *arg, void *buf, size_t len, void (*landed)(void *),
                           void *landed_arg)
{
    mm_ucx_rx_t *rx = arg;
    if (len != rx->len)
        H->fatal("transport: rank %d sent a message of %zu bytes where %zu were announced", rx->src,
                 rx->len, len);
    mm_ucx_landing_t *l = malloc(sizeof(*l));
    if (l == NULL)
        H->fatal("transport: out of memory receiving a message from rank %d", rx->src);
    *l = (mm_ucx_landing_t){landed, landed_arg, rx->src, rx->counted};
    rx->settled = true;
    if (rx->rndv) {
        mm_ucx_recv_rndv(rx->data, buf, len, mm_ucx_rt_received, l, mm_ucx_rt_landed,
                         "receiving a message", rx->src);
    } else {
        if (len)
            memcpy(buf, rx->data, len);
        if (rx->kept)
            mm_ucx_rx_release(rx);
        mm_ucx_rt_landed(l);
    }
    if (rx->kept)
        free(rx);
}

static void *mm_ucx_am_keep(void *arg)
{
    mm_ucx_rx_t *rx = arg, *k = malloc(sizeof(*k));
    if (k == NULL)
        H->fatal("transport: out of memory for a message from rank %d", rx->src);
    *k = *rx;
    k->kept = true;
    if (!rx->rndv && !rx->ucx_data) { /* eager bytes UCX takes back: copied */
        k->copied = true;
        k->data = malloc(rx->len ? rx->len : 1);
        if (k->data == NULL)
            H->fatal("transport: out of memory for a message of %zu bytes from rank %d", rx->len,
                     rx->src);
        memcpy(k->data, rx->data, rx->len);
    }
    rx->settled = true;
    rx->kept = true; /* (the handler's copy: tells the callback what it returns) */
    rx->copied = k->copied;
    return k;
}

static void mm_ucx_am_drop(void *kept)
{
    mm_ucx_rx_release(kept);
    free(kept);
}

static bool mm_ucx_rt_header_valid(const void *h, size_t length)
{
    (void)length;
    return mm_ucx_rt_valid(h, G->nranks);
}

/* a runtime message arrives: its handler, then what UCX is to do with the data */
static ucs_status_t mm_ucx_on_runtime(void *arg, const void *header, size_t header_length,
                                      void *data, size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    mm_ucx_rt_t rt;
    if (header_length < sizeof(rt))
        H->fatal("transport: a malformed message (%zu header bytes) arrived", header_length);
    mm_ucx_header(&rt, sizeof(rt), header, sizeof(rt), mm_ucx_rt_header_valid, length,
                  offsetof(mm_ucx_rt_t, src), "message");
    bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    mm_ucx_rx_t rx = {.data = data,
                      .len = length,
                      .src = rt.src,
                      .rndv = rndv,
                      .ucx_data = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) != 0,
                      .counted = (rt.flags & MM_TP_AM_PUT) != 0};
    U.arrived(rt.src, rt.id, (const char *)header + sizeof(rt), header_length - sizeof(rt),
              rndv ? NULL : data, length, &rx);
    if (!rx.settled && rndv)
        H->fatal("transport: the handler of message %u from rank %d left its data behind",
                 (unsigned)rt.id, rt.src);
    if (!rx.settled && rx.counted) /* read in place: landed now */
        mm_ucx_put_landed((void *)(intptr_t)rt.src);
    /* UCX's descriptor or data stay this plugin's until taken or released */
    return rndv || (rx.kept && !rx.copied) ? UCS_INPROGRESS : UCS_OK;
}

/* ---- operations ---- */

/* a put (@p local -> symmetric @p sym at @p pe) or a get (the reverse) of @p n bytes;
 * @p wait: return at local completion, else let it complete by quiet */
static void mm_ucx_rma(int pe, bool put, bool wait, void *local, const void *sym, size_t n)
{
    if (n == 0)
        return;
    int64_t am = H->config->net_am_rma_bytes;
    if (am > 0 && n >= (uint64_t)am) {
        if (put) {
            mm_ucx_am_put(pe, (void *)sym, local, n, wait);
        } else if (wait) {
            _Atomic uint64_t here = 0;
            mm_ucx_am_get(pe, local, sym, n, &here, true);
            mm_ucx_drain(&here);
        } else {
            mm_ucx_am_get(pe, local, sym, n, &U.gets_out, false);
        }
        return;
    }
    uint64_t raddr;
    ucp_rkey_h rkey;
    mm_ucx_remote(pe, sym, n, &raddr, &rkey);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    ucp_ep_h ep = U.peer[pe].ep;
    ucs_status_ptr_t req = put ? ucp_put_nbx(ep, local, n, raddr, rkey, &prm)
                               : ucp_get_nbx(ep, local, n, raddr, rkey, &prm);
    if (wait)
        mm_ucx_wait(req, put ? "put" : "get", pe);
    else
        mm_ucx_release(req, put ? "put" : "get", pe);
}

static void mm_ucx_put(int pe, void *dest, const void *src, size_t n)
{
    mm_ucx_rma(pe, true, true, (void *)src, dest, n);
}

static void mm_ucx_put_nbi(int pe, void *dest, const void *src, size_t n)
{
    mm_ucx_rma(pe, true, false, (void *)src, dest, n);
}

static void mm_ucx_get(int pe, void *dest, const void *src, size_t n)
{
    mm_ucx_rma(pe, false, true, dest, src, n);
}

static void mm_ucx_get_nbi(int pe, void *dest, const void *src, size_t n)
{
    mm_ucx_rma(pe, false, false, dest, src, n);
}

/* one UCX atomic on a 4- or 8-byte word; @return the old value (0 when not fetched) */
static uint64_t mm_ucx_atomic(int pe, uint64_t raddr, ucp_rkey_h rkey, ucp_atomic_op_t op,
                              size_t size, uint64_t operand, uint64_t swap_in, bool fetch)
{
    union {
        uint32_t u32;
        uint64_t u64;
    } buf, reply;
    if (size == 4) {
        buf.u32 = (uint32_t)operand;
        reply.u32 = (uint32_t)swap_in;
    } else {
        buf.u64 = operand;
        reply.u64 = swap_in;
    }
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                               .datatype = ucp_dt_make_contig(size)};
    if (fetch) {
        prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        prm.reply_buffer = &reply;
    }
    mm_ucx_wait(ucp_atomic_op_nbx(U.peer[pe].ep, op, &buf, 1, raddr, rkey, &prm),
                "atomic operation", pe);
    return !fetch ? 0 : size == 4 ? reply.u32 : reply.u64;
}

/* the new value of a word holding @p old after @p op with @p v (c: CSWAP's condition) */
static uint64_t mm_ucx_apply(meshmem_amo_op_t op, uint64_t old, uint64_t v, uint64_t c)
{
    switch (op) {
    case MESHMEM_AMO_FETCH: return old;
    case MESHMEM_AMO_SET:
    case MESHMEM_AMO_SWAP: return v;
    case MESHMEM_AMO_CSWAP: return old == c ? v : old;
    case MESHMEM_AMO_ADD: return old + v;
    case MESHMEM_AMO_AND: return old & v;
    case MESHMEM_AMO_OR: return old | v;
    case MESHMEM_AMO_XOR: return old ^ v;
    }
    return old;
}

/* 8- and 16-bit AMOs: compare-and-swap on the containing aligned 32-bit word */
static uint64_t mm_ucx_amo_narrow(int pe, void *dest, meshmem_amo_op_t op, size_t size,
                                  uint64_t value, uint64_t cond)
{
    uintptr_t a = (uintptr_t)dest, word = a & ~(uintptr_t)3;
    unsigned shift = (unsigned)(a - word) * 8; /* little endian */
    uint32_t mask = (uint32_t)(((1ull << (8 * size)) - 1) << shift);
    uint64_t raddr;
    ucp_rkey_h rkey;
    mm_ucx_remote(pe, (void *)word, 4, &raddr, &rkey);
    uint32_t cur = (uint32_t)mm_ucx_atomic(pe, raddr, rkey, UCP_ATOMIC_OP_OR, 4, 0, 0, true);
    for (;;) {
        uint64_t old = (cur & mask) >> shift;
        uint64_t lane = mm_ucx_apply(op, old, value, cond) & (mask >> shift);
        if (op == MESHMEM_AMO_FETCH || (lane == old && op != MESHMEM_AMO_SET))
            return old;
        uint32_t next = (cur & ~mask) | (uint32_t)(lane << shift);
        /* CSWAP: buffer is the condition, the reply buffer brings the new value in */
        uint32_t got =
            (uint32_t)mm_ucx_atomic(pe, raddr, rkey, UCP_ATOMIC_OP_CSWAP, 4, cur, next, true);
        if (got == cur)
            return old;
        cur = got;
    }
}

static void mm_ucx_amo(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
                       uint64_t cond, uint64_t *fetched)
{
    uint64_t old;
    if (size < 4) {
        old = mm_ucx_amo_narrow(pe, dest, op, size, value, cond);
    } else {
        uint64_t raddr;
        ucp_rkey_h rkey;
        mm_ucx_remote(pe, dest, size, &raddr, &rkey);
        ucp_atomic_op_t uop;
        uint64_t operand = value, swap_in = 0;
        bool fetch = fetched != NULL;
        switch (op) {
        case MESHMEM_AMO_FETCH:
            uop = UCP_ATOMIC_OP_OR;
            operand = 0;
            fetch = true;
            break;
        case MESHMEM_AMO_SET:
            uop = UCP_ATOMIC_OP_SWAP;
            fetch = true;
            break;
        case MESHMEM_AMO_SWAP:
            uop = UCP_ATOMIC_OP_SWAP;
            fetch = true;
            break;
        case MESHMEM_AMO_CSWAP:
            uop = UCP_ATOMIC_OP_CSWAP;
            operand = cond;
            swap_in = value;
            fetch = true;
            break;
        case MESHMEM_AMO_ADD: uop = UCP_ATOMIC_OP_ADD; break;
        case MESHMEM_AMO_AND: uop = UCP_ATOMIC_OP_AND; break;
        case MESHMEM_AMO_OR: uop = UCP_ATOMIC_OP_OR; break;
        default: uop = UCP_ATOMIC_OP_XOR; break;
        }
        old = mm_ucx_atomic(pe, raddr, rkey, uop, size, operand, swap_in, fetch);
    }
    if (fetched)
        *fetched = old;
}

static void mm_ucx_fence(void)
{
    ucp_worker_fence(U.worker);
    /* large puts are messages, which a worker fence does not order: they complete here, and
     * the next large put waits for the RMA before it */
    mm_ucx_complete_puts(-1);
    atomic_store(&U.fenced, true);
}

static void mm_ucx_quiet(void)
{
    atomic_store(&U.fenced, false);
    mm_ucx_flush_worker();
    mm_ucx_complete_puts(-1);
    mm_ucx_drain(&U.gets_out);
}

static int mm_ucx_progress(void)
{
    atomic_store_explicit(&U.app_polls,
                          atomic_load_explicit(&U.app_polls, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return (int)ucp_worker_progress(U.worker);
}

/* the application is about to sleep: the thread serves at once (one eventfd write; the
 * thread drains it when it next waits for a kick) */
static void mm_ucx_idle(void)
{
    if (U.thread_on) {
        uint64_t one = 1;
        if (write(U.kickfd, &one, sizeof(one)) < 0) { /* full counter: a kick is pending */
        }
    }
}

/* ---- the progress thread ---- */

/* the progress thread may run on any CPU of the machine (the kernel keeps it inside the job's
 * cpuset): bound to its rank's core, it competed with the rank and the rank's UCX async
 * thread there, and 2 x 2 virtual hosts bound to 2 cores stalled at their first flush */
static void mm_ucx_thread_float(void)
{
    cpu_set_t all;
    CPU_ZERO(&all);
    long n = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++)
        CPU_SET((int)c, &all);
    if (pthread_setaffinity_np(pthread_self(), sizeof(all), &all) != 0)
        H->log(MM_LOG_DEBUG, "transport: the progress thread stays on the rank's CPUs");
}

static void *mm_ucx_thread_main(void *arg)
{
    (void)arg;
    mm_ucx_thread_float();
    long us = (long)H->config->net_progress_us;
    uint64_t seen = atomic_load(&U.app_polls);
    while (!atomic_load(&U.stop)) {
        uint64_t now = atomic_load_explicit(&U.app_polls, memory_order_relaxed);
        if (now != seen) { /* the application progresses: stay out of its way */
            seen = now;
            struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
            struct pollfd kick = {U.kickfd, POLLIN, 0};
            if (ppoll(&kick, 1, &ts, NULL) > 0) { /* it went to sleep: serve from now */
                uint64_t n;
                if (read(U.kickfd, &n, sizeof(n)) < 0) { /* (nonblocking: drained already) */
                }
                seen = atomic_load(&U.app_polls);
            }
            continue;
        }
        /* idle application: serve, then sleep until something arrives or the interval ends */
        unsigned n = 0, k;
        while ((k = ucp_worker_progress(U.worker)) != 0)
            n += k;
        if (n)
            H->wake_self();
        ucs_status_t st = ucp_worker_arm(U.worker);
        if (st == UCS_ERR_BUSY)
            continue;
        struct pollfd pfd = {U.efd, POLLIN, 0};
        poll(&pfd, 1, (int)(us / 1000 > 0 ? us / 1000 : 1));
        /* seen stays what it was before the poll: if the application progressed meanwhile,
         * the check above sends this thread back to sleep rather than into the worker's lock
         * (on the application's core, every message would otherwise cost two context
         * switches) */
    }
    return NULL;
}

/* ---- init / fini ---- */

static void mm_ucx_on_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    (void)ep;
    int pe = (int)(intptr_t)arg;
    /* in finalize, peers that are through its barrier close their endpoints and exit: that
     * is no failure (a peer that dies instead never finalizes, and its launcher ends the job) */
    if (atomic_load(&U.closing) || G->finalizing)
        return;
    H->fatal("lost the connection to rank %d (host %s): %s; ending the job", pe, mm_ucx_host(pe),
             ucs_status_string(status));
}

static int mm_ucx_check(ucs_status_t st, const char *what)
{
    if (st == UCS_OK)
        return 0;
    H->log(MM_LOG_ERROR, "meshmem_init: %s: %s", what, ucs_status_string(st));
    return -1;
}

/* name the UCX library that was loaded, and warn when it is not the release this plugin was
 * built for: the loader can find another libucp first (a machine's own UCX beside a carried
 * one), whose protocols and transport modules need not match, and an operation that fails
 * there then fails with a message that says nothing of why */
static unsigned mm_ucx_identify(void)
{
    unsigned major, minor, release;
    ucp_get_version(&major, &minor, &release);
    Dl_info di;
    const char *path = dladdr((void *)ucp_get_version, &di) && di.dli_fname ? di.dli_fname : "?";
    snprintf(mm_ucx_lib, sizeof(mm_ucx_lib), "UCX %u.%u.%u, %s", major, minor, release, path);
    if (major != UCP_API_MAJOR || minor != UCP_API_MINOR)
        H->log(MM_LOG_WARN | MM_LOG_ALWAYS,
               "transport: built for UCX %d.%d, running on %s: "
               "the two may disagree (set LD_LIBRARY_PATH to the UCX it was built for)",
               UCP_API_MAJOR, UCP_API_MINOR, mm_ucx_lib);
    else
        H->log(MM_LOG_DEBUG, "transport: %s", mm_ucx_lib);
    return major * 1000u + minor;
}

/* whether UCX_TLS lets UCX use its TCP transport ("tcp", "all", unset, or a "^" list of
 * exclusions without tcp) */
static bool mm_ucx_may_use_tcp(void)
{
    const char *tls = getenv("UCX_TLS");
    if (tls == NULL || *tls == '\0')
        return true;
    if (*tls == '^')
        return strstr(tls, "tcp") == NULL;
    return strstr(tls, "tcp") != NULL || strstr(tls, "all") != NULL;
}

/* meshmem's choice for UCX setting @p key of @p cfg, unless the user made one (environment
 * variable @p env): a release without the setting keeps its own behaviour */
static void mm_ucx_default(ucp_config_t *cfg, const char *env, const char *key, const char *value)
{
    if (getenv(env) == NULL && ucp_config_modify(cfg, key, value) != UCS_OK)
        H->log(MM_LOG_DEBUG, "transport: this UCX has no %s setting; left as it is", key);
}

static int mm_ucx_open(void)
{
    unsigned version = mm_ucx_identify();
    ucp_config_t *cfg;
    if (mm_ucx_check(ucp_config_read(NULL, NULL, &cfg), "ucp_config_read"))
        return -1;
    /* UCX 1.16 and later select protocols anew by default (PROTO_ENABLE=y), and over TCP that
     * selection finds none for a fetching AMO: UCX 1.16.0 between two virtual hosts printed
     * "cannot find remote protocol ... amo_fetch" and canceled the first fetch-add (so did
     * Ubuntu 24.04's UCX on the lent machine), where the selection of earlier releases, still
     * there, emulates it as 1.13 does: that one */
    if (version >= 1016u)
        mm_ucx_default(cfg, "UCX_PROTO_ENABLE", "PROTO_ENABLE", "n");
    mm_ucx_default(cfg, "UCX_KEEPALIVE_INTERVAL", "KEEPALIVE_INTERVAL", MM_UCX_KEEPALIVE);
    /* the ranks of a node update the same words with CPU atomics: UCX's must agree with them
     * (a NIC's own atomics are coherent only with each other) */
    mm_ucx_default(cfg, "UCX_ATOMIC_MODE", "ATOMIC_MODE", "cpu");
    /* the worker's lock is taken by the application and by the progress thread, which shares
     * the application's core: a spinning waiter would burn its time slice while the holder,
     * descheduled on that same core, cannot release (2 x 2 virtual hosts on 2 cores ran into
     * keepalive timeouts); a mutex sleeps instead */
    mm_ucx_default(cfg, "UCX_USE_MT_MUTEX", "USE_MT_MUTEX", "y");
    /* UCX's TCP transport sends in segments of 8 KiB and receives in 64 KiB ones: a 64 KiB
     * message (a collective's piece, a large put) then goes in fragments or by rendezvous, so
     * the segments hold one with its headers. Not larger: send segments also set UCX's eager
     * limit, and a 1 MiB message received eagerly arrives in copies (measured:
     * docs/results-across.md, "Waits that stay awake, whole 64 KiB segments"). TCP's settings
     * alone: other transports keep theirs */
    if (mm_ucx_may_use_tcp()) { /* (where it may not, UCX would warn of unused settings) */
        mm_ucx_default(cfg, "UCX_TCP_TX_SEG_SIZE", "TX_SEG_SIZE", "72K");
        mm_ucx_default(cfg, "UCX_TCP_RX_SEG_SIZE", "RX_SEG_SIZE", "256K");
    }
    ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
                      .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                                  UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
                      .mt_workers_shared = 1};
    ucs_status_t st = ucp_init(&p, cfg, &U.ctx);
    ucp_config_release(cfg);
    if (mm_ucx_check(st, "ucp_init"))
        return -1;
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_MULTI};
    if (mm_ucx_check(ucp_worker_create(U.ctx, &wp, &U.worker), "ucp_worker_create"))
        return -1;
    ucp_worker_attr_t wa = {.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE};
    if (ucp_worker_query(U.worker, &wa) == UCS_OK && wa.thread_mode != UCS_THREAD_MODE_MULTI) {
        H->log(MM_LOG_ERROR, "meshmem_init: this UCX has no thread-safe workers (build it with "
                             "--enable-mt)");
        return -1;
    }
    if (mm_ucx_check(ucp_worker_get_efd(U.worker, &U.efd), "ucp_worker_get_efd"))
        return -1;
    static const struct {
        unsigned id;
        ucp_am_recv_callback_t cb;
    } handlers[] = {
        {MM_UCX_AM_RUNTIME, mm_ucx_on_runtime}, {MM_UCX_AM_PUT, mm_ucx_on_put},
        {MM_UCX_AM_DONE, mm_ucx_on_done},       {MM_UCX_AM_COMPLETE, mm_ucx_on_complete},
        {MM_UCX_AM_GET, mm_ucx_on_get},         {MM_UCX_AM_GET_REPLY, mm_ucx_on_get_reply}};
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        ucp_am_handler_param_t ah = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                                   UCP_AM_HANDLER_PARAM_FIELD_CB |
                                                   UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
                                     .id = handlers[i].id,
                                     .cb = handlers[i].cb,
                                     .flags = UCP_AM_FLAG_WHOLE_MSG};
        if (mm_ucx_check(ucp_worker_set_am_recv_handler(U.worker, &ah),
                         "ucp_worker_set_am_recv_handler"))
            return -1;
    }
    return 0;
}

static int mm_ucx_map(int region, void *addr, size_t len, void **rkey, size_t *rkey_len)
{
    *rkey = NULL;
    *rkey_len = 0;
    if (len == 0)
        return 0;
    ucp_mem_map_params_t mp = {.field_mask =
                                   UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = addr,
                               .length = len};
    if (mm_ucx_check(ucp_mem_map(U.ctx, &mp, &U.mem[region]), "ucp_mem_map"))
        return -1;
    return mm_ucx_check(ucp_rkey_pack(U.ctx, U.mem[region], rkey, rkey_len), "ucp_rkey_pack");
}

/* what every rank publishes: this, then its worker address and its two packed keys */
typedef struct {
    uint64_t base[MM_UCX_REGIONS];
    uint32_t addr_len;
    uint32_t rkey_len[MM_UCX_REGIONS];
} mm_ucx_card_t;

static int mm_ucx_connect(const bool *remote, const char *all, size_t len)
{
    int n = G->nranks;
    for (int r = 0; r < n; r++) {
        if (!remote[r])
            continue;
        const char *blob = all + (size_t)r * len;
        mm_ucx_card_t c;
        memcpy(&c, blob, sizeof(c));
        const char *addr = blob + sizeof(c), *rk = addr + c.addr_len;
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                                            UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                                            UCP_EP_PARAM_FIELD_ERR_HANDLER,
                              .address = (const ucp_address_t *)addr,
                              .err_mode = UCP_ERR_HANDLING_MODE_PEER,
                              .err_handler = {.cb = mm_ucx_on_error, .arg = (void *)(intptr_t)r}};
        if (mm_ucx_check(ucp_ep_create(U.worker, &ep, &U.peer[r].ep), "ucp_ep_create"))
            return -1;
        for (int g = 0; g < MM_UCX_REGIONS; g++) {
            U.peer[r].base[g] = c.base[g];
            if (c.rkey_len[g] &&
                mm_ucx_check(ucp_ep_rkey_unpack(U.peer[r].ep, rk, &U.peer[r].rkey[g]),
                             "ucp_ep_rkey_unpack"))
                return -1;
            rk += c.rkey_len[g];
        }
    }
    return 0;
}

static int mm_ucx_init(const mm_boot_card_t *cards, const bool *remote, mm_tp_am_fn arrived)
{
    int n = G->nranks;
    U.me = G->rank;
    U.arrived = arrived;
    U.peer = calloc((size_t)n, sizeof(mm_ucx_peer_t));
    U.hosts = calloc((size_t)n, sizeof(*U.hosts));
    if (U.peer == NULL || U.hosts == NULL || mm_ucx_open() != 0)
        return -1;
    for (int r = 0; r < n; r++)
        snprintf(U.hosts[r], sizeof(U.hosts[r]), "%s", cards[r].host);
    void *rkey[MM_UCX_REGIONS];
    size_t rkey_len[MM_UCX_REGIONS];
    ucp_address_t *addr = NULL;
    size_t addr_len = 0;
    if (mm_ucx_map(MM_UCX_SEG, G->seg, G->seg_bytes, &rkey[0], &rkey_len[0]) ||
        mm_ucx_map(MM_UCX_DATA, (void *)G->data_base, G->data_size, &rkey[1], &rkey_len[1]) ||
        mm_ucx_check(ucp_worker_get_address(U.worker, &addr, &addr_len), "ucp_worker_get_address"))
        return -1;
    mm_ucx_card_t c = {.base = {(uint64_t)(uintptr_t)G->seg, G->data_base},
                       .addr_len = (uint32_t)addr_len,
                       .rkey_len = {(uint32_t)rkey_len[0], (uint32_t)rkey_len[1]}};
    uint64_t mine = sizeof(c) + addr_len + rkey_len[0] + rkey_len[1], most = 0;
    uint64_t *lens = calloc((size_t)n, sizeof(uint64_t));
    int rc = lens ? H->allgather(&mine, lens, sizeof(mine)) : -1;
    for (int r = 0; rc == 0 && r < n; r++)
        most = lens[r] > most ? lens[r] : most;
    char *blob = rc == 0 ? calloc(1, most) : NULL;
    char *all = rc == 0 ? calloc((size_t)n, most) : NULL;
    if (blob && all) {
        memcpy(blob, &c, sizeof(c));
        memcpy(blob + sizeof(c), addr, addr_len);
        memcpy(blob + sizeof(c) + addr_len, rkey[0], rkey_len[0]);
        memcpy(blob + sizeof(c) + addr_len + rkey_len[0], rkey[1], rkey_len[1]);
        rc = H->allgather(blob, all, most);
        if (rc == 0)
            rc = mm_ucx_connect(remote, all, most);
    } else {
        rc = -1;
    }
    free(lens);
    free(blob);
    free(all);
    ucp_worker_release_address(U.worker, addr);
    for (int g = 0; g < MM_UCX_REGIONS; g++)
        if (rkey[g])
            ucp_rkey_buffer_release(rkey[g]);
    if (rc == 0 && H->config->net_progress_us > 0) {
        U.kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        U.thread_on =
            U.kickfd >= 0 && pthread_create(&U.thread, NULL, mm_ucx_thread_main, NULL) == 0;
        if (!U.thread_on)
            H->log(MM_LOG_WARN, "transport: no progress thread (%s)", strerror(errno));
    }
    return rc;
}

static void mm_ucx_fini(void)
{
    atomic_store(&U.closing, true);
    if (U.thread_on) {
        atomic_store(&U.stop, true);
        pthread_join(U.thread, NULL);
        U.thread_on = false;
    }
    if (U.kickfd >= 0)
        close(U.kickfd);
    /* complete what is in flight; a peer already gone is no error here */
    ucp_request_param_t fp = {.op_attr_mask = 0};
    ucs_status_ptr_t freq = ucp_worker_flush_nbx(U.worker, &fp);
    if (freq && !UCS_PTR_IS_ERR(freq)) {
        while (ucp_request_check_status(freq) == UCS_INPROGRESS)
            ucp_worker_progress(U.worker);
        ucp_request_free(freq);
    }
    /* close while the worker is still progressed: over TCP a close that is not progressed
     * can hang at cleanup; FLUSH completes what is in flight first */
    int n = G->nranks;
    for (int r = 0; r < n; r++) {
        for (int g = 0; g < MM_UCX_REGIONS; g++)
            if (U.peer[r].rkey[g])
                ucp_rkey_destroy(U.peer[r].rkey[g]);
        if (U.peer[r].ep) {
            ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
            ucs_status_ptr_t req = ucp_ep_close_nbx(U.peer[r].ep, &prm);
            if (req && !UCS_PTR_IS_ERR(req)) {
                while (ucp_request_check_status(req) == UCS_INPROGRESS)
                    ucp_worker_progress(U.worker);
                ucp_request_free(req);
            }
        }
    }
    for (int g = 0; g < MM_UCX_REGIONS; g++)
        if (U.mem[g])
            ucp_mem_unmap(U.ctx, U.mem[g]);
    ucp_worker_destroy(U.worker);
    ucp_cleanup(U.ctx);
    free(U.peer);
    free(U.hosts);
    memset(&U, 0, sizeof(U));
    U.efd = U.kickfd = -1;
}

/* UCX reaches any host: TCP (or a fabric) connects every pair of ranks */
static bool mm_ucx_reaches(const mm_boot_card_t *cards, int a, int b)
{
    (void)cards, (void)a, (void)b;
    return true;
}

static const mm_tp_ops_t mm_ucx_ops = {
    .name = "ucx",
    .reaches = mm_ucx_reaches,
    .init = mm_ucx_init,
    .fini = mm_ucx_fini,
    .put = mm_ucx_put,
    .put_nbi = mm_ucx_put_nbi,
    .get = mm_ucx_get,
    .get_nbi = mm_ucx_get_nbi,
    .amo = mm_ucx_amo,
    .fence = mm_ucx_fence,
    .quiet = mm_ucx_quiet,
    .am_eager_max = MM_UCX_EAGER_MAX,
    .am_send = mm_ucx_am_send,
    .am_recv = mm_ucx_am_recv,
    .am_keep = mm_ucx_am_keep,
    .am_drop = mm_ucx_am_drop,
    .progress = mm_ucx_progress,
    .idle = mm_ucx_idle,
    .host = mm_ucx_host,
};

__attribute__((visibility("default"))) const mm_tp_ops_t *meshmem_net_plugin(
    const mm_plugin_host_t *host)
{
    if (host->abi != MM_PLUGIN_ABI) {
        host->log(MM_LOG_ERROR,
                  "meshmem_init: libmeshmem_ucx.so is from another build than "
                  "libmeshmem (interface %d, expected %d)",
                  MM_PLUGIN_ABI, host->abi);
        return NULL;
    }
    H = host;
    return &mm_ucx_ops;
}
