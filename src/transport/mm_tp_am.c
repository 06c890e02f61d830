/*
 * What the runtime builds on a network's active messages (mm_tp_ops.h: a network provides RMA,
 * AMOs, an active-message send with a handler, and progress; the rest is here, once, for
 * every network).
 *
 * Posts (mm_tp_post to a network peer). A post of a runtime line (a flag line, an eager channel
 * with its line, an active-message slot, a credit) is one message sent eagerly: the header says
 * where (mm_tp_wire.h), the data carries the body and the extra bytes, and the target's handler
 * writes the extra bytes, the body and then the sequence word into its own memory, as a writer
 * of its node would, and wakes its sleepers. No ordering of the network's is relied on: a
 * sequence word is only ever raised (a post that arrives late cannot lower it), and a line is
 * rewritten only after its reader has consumed the previous post (the protocols' room checks).
 * Extra bytes beyond what one eager message carries go ahead by put, complete at the peer
 * (quiet), then the post.
 *
 * Put with signal (mm_tp_put_signal_at to a network peer). One message sent as a put
 * (MM_TP_AM_PUT: quiet completes it, fence orders it after the RMA before it): the handler
 * places the data (in the message, or taken by rendezvous straight into place), then sets or
 * adds the signal word with a CPU atomic, the data first, and wakes this rank's sleepers. As
 * a put, a fence and an AMO, each emulated by the target over TCP, it cost several round trips.
 *
 * Handlers run on whatever thread progresses the network (a waiting application thread, the
 * network's progress thread); the ones here touch only this rank's memory and its sleepers.
 */
#include "mm_tp.h"
#include "mm_tp_wire.h"
#include "mm_wait.h"

#include <stdlib.h>
#include <string.h>

/* the region and offset of symmetric [addr, addr + len) (a message to @p pe); the job ends
 * when it is neither in this rank's segment nor in its static data */
static void mm_tp_locate(int pe, const void *addr, size_t len, uint32_t *region, uint64_t *off)
{
    uintptr_t a = (uintptr_t)addr, seg = (uintptr_t)mm_g.seg;
    if (a - seg < mm_g.seg_bytes && len <= mm_g.seg_bytes - (a - seg)) {
        *region = MM_TP_SEG;
        *off = a - seg;
    } else if (a - mm_g.data_base < mm_g.data_size &&
               len <= mm_g.data_size - (a - mm_g.data_base)) {
        *region = MM_TP_DATA;
        *off = a - mm_g.data_base;
    } else {
        mm_fatal("transport: address %p (%zu bytes) for rank %d is outside the symmetric memory",
                 addr, len, pe);
    }
}

/* this rank's own copy of @p region (checked by the wire's validation) */
static char *mm_tp_region_base(uint32_t region)
{
    return region == MM_TP_DATA ? (char *)mm_g.data_base : mm_g.seg;
}

/* ---- posts ---- */

void mm_tp_post_net(int pe, void *line, const void *body, size_t body_len, uint64_t seq,
                    void *extra_dest, const void *extra, size_t extra_len)
{
    const mm_tp_ops_t *net = mm_tp_peers[pe].ops;
    mm_tp_post_t h = {
        .line = (uint64_t)((char *)line - mm_g.seg), .seq = seq, .body_len = (uint32_t)body_len};
    if (body_len + extra_len > net->am_eager_max) {
        /* large: the bytes first, complete at the peer, then a post without them */
        net->put(pe, extra_dest, extra, extra_len);
        net->quiet();
        extra_len = 0;
    }
    if (extra_len) {
        mm_tp_locate(pe, extra_dest, extra_len, &h.extra_region, &h.extra_off);
        h.extra_len = extra_len;
    }
    struct iovec iov[2];
    int n = 0;
    if (body_len)
        iov[n++] = (struct iovec){(void *)body, body_len};
    if (extra_len)
        iov[n++] = (struct iovec){(void *)extra, extra_len};
    net->am_send(pe, MM_TP_AM_POST, &h, sizeof(h), iov, n, MM_TP_AM_EAGER | MM_TP_AM_WAIT, NULL);
}

/* a post arrives: check that it lies in this rank's memory, then apply it */
static void mm_tp_on_post(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                          size_t len, void *rx)
{
    (void)id;
    mm_tp_post_t h;
    if (hdr_len != sizeof(h) || (data == NULL && len != 0)) {
        mm_error("transport: malformed post from rank %d (%zu header bytes%s) dropped", src,
                 hdr_len, data ? "" : ", its data not sent eagerly");
        if (data == NULL && len != 0)
            mm_tp_am_drop(src, mm_tp_am_keep(src, rx));
        return;
    }
    memcpy(&h, hdr, sizeof(h));
    if (!mm_tp_post_valid(&h, len, mm_g.seg_bytes, mm_g.data_size)) {
        mm_error("transport: post from rank %d outside this rank's memory dropped (line %llu, "
                 "%u + %llu bytes)",
                 src, (unsigned long long)h.line, h.body_len, (unsigned long long)h.extra_len);
        return;
    }
    const char *d = data;
    if (h.extra_len)
        memcpy(mm_tp_region_base(h.extra_region) + h.extra_off, d + h.body_len, h.extra_len);
    char *line = mm_g.seg + h.line;
    if (h.body_len)
        memcpy(line + 8, d, h.body_len);
    /* raise the sequence word, never lower it: a late post of an older sequence is a no-op */
    _Atomic uint64_t *w = (_Atomic uint64_t *)line;
    uint64_t cur = atomic_load_explicit(w, memory_order_relaxed);
    while ((int64_t)(h.seq - cur) > 0 &&
           !atomic_compare_exchange_weak_explicit(w, &cur, h.seq, memory_order_seq_cst,
                                                  memory_order_relaxed))
        ;
    mm_wake_self();
}

/* ---- put with signal ---- */

void mm_tp_put_signal_net(int pe, void *dest, const void *src, size_t n, uint64_t *sig,
                          uint64_t signal, int op, bool nbi)
{
    const mm_tp_ops_t *net = mm_tp_peers[pe].ops;
    if (net->put_signal != NULL) { /* the network's own: data, then the signal */
        net->put_signal(pe, dest, src, n, sig, signal, op == MESHMEM_SIGNAL_ADD);
        return;
    }
    mm_tp_signal_t h = {.len = n, .value = signal, .op = op == MESHMEM_SIGNAL_ADD};
    if (n)
        mm_tp_locate(pe, dest, n, &h.region, &h.off);
    mm_tp_locate(pe, sig, sizeof(*sig), &h.sig_region, &h.sig_off);
    struct iovec iov = {(void *)src, n};
    /* nbi: to another host the send goes on after the call (a rendezvous waits for the target
     * to take the data, which a target busy computing does when its progress thread runs) and
     * completes by quiet or fence, as a put_nbi */
    net->am_send(pe, MM_TP_AM_SIGNAL, &h, sizeof(h), &iov, 1,
                 MM_TP_AM_PUT | (nbi ? 0 : MM_TP_AM_WAIT), NULL);
}

/* a put with signal's signal, kept until its data is in place */
typedef struct {
    _Atomic uint64_t *word;
    uint64_t value;
    uint32_t op;
} mm_tp_signal_at_t;

/* the signal, once the data is in place (seq_cst: the waker's half of the sleeper check) */
static void mm_tp_signal_apply(const mm_tp_signal_at_t *s)
{
    if (s->op == 1)
        atomic_fetch_add_explicit(s->word, s->value, memory_order_seq_cst);
    else
        atomic_store_explicit(s->word, s->value, memory_order_seq_cst);
    mm_wake_self();
}

/* the landing of a rendezvous, whose signal waited on the heap */
static void mm_tp_signal_landed(void *arg)
{
    mm_tp_signal_apply(arg);
    free(arg);
}

static void mm_tp_on_signal(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                            size_t len, void *rx)
{
    (void)id;
    mm_tp_signal_t h;
    if (hdr_len != sizeof(h))
        mm_fatal("transport: a malformed put with signal (%zu header bytes) arrived from rank %d",
                 hdr_len, src);
    memcpy(&h, hdr, sizeof(h));
    if (!mm_tp_signal_valid(&h, len, mm_g.seg_bytes, mm_g.data_size))
        mm_fatal("transport: a malformed put with signal (%zu data bytes) arrived from rank %d",
                 len, src);
    mm_tp_signal_at_t s = {(_Atomic uint64_t *)(mm_tp_region_base(h.sig_region) + h.sig_off),
                           h.value, h.op};
    char *dest = mm_tp_region_base(h.region) + h.off;
    if (data != NULL || len == 0) { /* all here: no allocation */
        if (len)
            memcpy(dest, data, len);
        mm_tp_signal_apply(&s);
        return;
    }
    mm_tp_signal_at_t *k = malloc(sizeof(*k));
    if (k == NULL)
        mm_fatal("transport: out of memory for a put with signal from rank %d", src);
    *k = s;
    mm_tp_am_recv(src, rx, dest, len, mm_tp_signal_landed, k);
}

/* ---- dispatch ---- */

static mm_tp_am_fn mm_tp_am_handlers[MM_TP_AM_IDS] = {
    [MM_TP_AM_POST] = mm_tp_on_post,
    [MM_TP_AM_SIGNAL] = mm_tp_on_signal,
};

void mm_tp_am_register(unsigned id, mm_tp_am_fn fn)
{
    mm_tp_am_handlers[id] = fn;
}

void mm_tp_am_arrived(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                      size_t len, void *rx)
{
    if (id >= MM_TP_AM_IDS || mm_tp_am_handlers[id] == NULL)
        mm_fatal("transport: a message of unknown kind %u arrived from rank %d", id, src);
    mm_tp_am_handlers[id](src, id, hdr, hdr_len, data, len, rx);
}

void mm_tp_am_send(int pe, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                   size_t len, unsigned flags, _Atomic uint64_t *pending)
{
    struct iovec iov = {(void *)data, len};
    mm_tp_peers[pe].ops->am_send(pe, id, hdr, hdr_len, &iov, 1, flags, pending);
}

void mm_tp_am_recv(int src, void *rx, void *buf, size_t len, void (*landed)(void *arg), void *arg)
{
    mm_tp_peers[src].ops->am_recv(rx, buf, len, landed, arg);
}

void *mm_tp_am_keep(int src, void *rx)
{
    return mm_tp_peers[src].ops->am_keep(rx);
}

void mm_tp_am_drop(int src, void *kept)
{
    mm_tp_peers[src].ops->am_drop(kept);
}
