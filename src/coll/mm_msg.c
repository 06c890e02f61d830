/* Messages inside collectives: inline, eager and rendezvous (protocol in mm_msg.h). */
#include "mm_msg.h"
#include "mm_heap.h"
#include "mm_tp.h"
#include "mm_config.h"
#include "mm_wait.h"

#include <stdlib.h>
#include <string.h>

static mm_heap_t *mm_stage_arena;
static char *mm_stage_base;
static size_t mm_stage_bytes;
static pthread_mutex_t mm_stage_lock = PTHREAD_MUTEX_INITIALIZER;

/* per team staging buffer, kept in a side table by slot (teams are plain structs) */
static struct {
    struct meshmem_team *team;
    void *buf;
    size_t bytes;
    uint64_t until; /* the team's collective that may still read buf: it is idle once the
                     * team has completed this one (mm_msg_stage_reclaim) */
} mm_stage_of[MM_TEAM_SLOTS];

bool mm_desc_of(const void *buf, size_t len, mm_desc_t *desc)
{
    uintptr_t a = (uintptr_t)buf;
    if (a - mm_g.heap_base < mm_g.heap_size && len <= mm_g.heap_size - (a - mm_g.heap_base)) {
        *desc = (mm_desc_t){MM_DESC_HEAP, a - mm_g.heap_base};
        return true;
    }
    if (a - mm_g.data_base < mm_g.data_size && len <= mm_g.data_size - (a - mm_g.data_base)) {
        *desc = (mm_desc_t){MM_DESC_DATA, a - mm_g.data_base};
        return true;
    }
    uintptr_t seg = (uintptr_t)mm_g.seg;
    if (a - seg < mm_g.seg_bytes && len <= mm_g.seg_bytes - (a - seg)) {
        *desc = (mm_desc_t){MM_DESC_SEG, a - seg};
        return true;
    }
    *desc = (mm_desc_t){MM_DESC_NONE, 0};
    return false;
}

void *mm_desc_sym(const mm_desc_t *d, size_t len, int owner)
{
    /* the same bounds as mm_desc_of checked: a descriptor comes from another process */
    if (!mm_desc_valid(d, len, mm_g.heap_size, mm_g.data_size, mm_g.seg_bytes))
        mm_fatal("collective: corrupt buffer descriptor (kind %llu, offset %llu, %zu bytes) from "
                 "rank %d",
                 (unsigned long long)d->kind, (unsigned long long)d->offset, len, owner);
    switch (d->kind) {
    case MM_DESC_HEAP: return (char *)mm_g.heap_base + d->offset;
    case MM_DESC_DATA: return (char *)mm_g.data_base + d->offset;
    default: return mm_g.seg + d->offset;
    }
}

void *mm_desc_resolve(const mm_desc_t *d, size_t len, int owner)
{
    char *sym = mm_desc_sym(d, len, owner);
    return d->kind == MM_DESC_DATA ? mm_tp_ptr(sym, owner) : mm_tp_line(owner, sym);
}

static void mm_msg_on_push(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                           size_t len, void *rx);
static void mm_msg_push_fini(void);

int mm_msg_init(void *base, size_t bytes)
{
    mm_tp_am_register(MM_TP_AM_MSG, mm_msg_on_push);
    mm_stage_base = base;
    mm_stage_bytes = bytes;
    memset(mm_stage_of, 0, sizeof(mm_stage_of));
    if (bytes == 0)
        return 0;
    mm_stage_arena = mm_heap_new();
    return mm_stage_arena && mm_heap_init(mm_stage_arena, base, bytes) == 0 ? 0 : -1;
}

void mm_msg_fini(void)
{
    mm_msg_push_fini();
    mm_heap_delete(mm_stage_arena);
    mm_stage_arena = NULL;
    memset(mm_stage_of, 0, sizeof(mm_stage_of));
}

size_t mm_msg_stage_capacity(void)
{
    /* a team may not take more than half, so that two teams can stage at once */
    return mm_stage_bytes / 2;
}

size_t mm_msg_round_bytes(size_t len, size_t esize, int blocks)
{
    if (len <= mm_g.eager_bytes)
        return len;
    size_t cap = mm_msg_stage_capacity() / (size_t)blocks / esize * esize;
    return cap == 0 || len < cap ? len : cap;
}

/* Free the kept staging buffers of other teams that no collective of theirs can still read
 * (each team keeps its buffer between collectives; with several teams' buffers kept, say a
 * world team's and a GHC's row and column, the arena fills). Under mm_stage_lock. */
static void mm_msg_stage_reclaim(const struct meshmem_team *keep)
{
    for (int i = 0; i < MM_TEAM_SLOTS; i++) {
        typeof(mm_stage_of[0]) *o = &mm_stage_of[i];
        if (o->buf == NULL || o->team == keep)
            continue;
        uint64_t done =
            atomic_load_explicit(&mm_team_completed(o->team)->seq, memory_order_acquire);
        if (!mm_seq_reached(done, o->until))
            continue;
        mm_heap_free(mm_stage_arena, o->buf);
        memset(o, 0, sizeof(*o));
    }
}

void *mm_msg_stage(struct meshmem_team *t, size_t bytes)
{
    if (bytes > mm_msg_stage_capacity() || mm_stage_arena == NULL)
        return NULL;
    pthread_mutex_lock(&mm_stage_lock);
    typeof(mm_stage_of[0]) *s = &mm_stage_of[t->slot];
    if (s->team != t || s->bytes < bytes) {
        if (s->buf && s->team == t)
            mm_heap_free(mm_stage_arena, s->buf);
        size_t want = bytes < 65536 ? 65536 : bytes;
        if (want > mm_msg_stage_capacity())
            want = bytes;
        s->buf = mm_heap_alloc(mm_stage_arena, want, 4096);
        if (s->buf == NULL) { /* the arena is full of other teams' kept buffers */
            mm_msg_stage_reclaim(t);
            s->buf = mm_heap_alloc(mm_stage_arena, want, 4096);
        }
        s->bytes = s->buf ? want : 0;
        s->team = t;
    }
    /* in use until the collective running now completes; staged before it began (the team
     * has completed all it began): until the next one does */
    uint64_t done = atomic_load_explicit(&mm_team_completed(t)->seq, memory_order_relaxed);
    s->until = t->seq == done ? t->seq + 1 : t->seq;
    void *buf = s->buf;
    pthread_mutex_unlock(&mm_stage_lock);
    return buf;
}

void mm_msg_rx_release(struct meshmem_team *t)
{
    free(t->rx_spare);
    t->rx_spare = NULL;
    t->rx_spare_bytes = 0;
}

/* A buffer for a message of @p bytes from another host (mm_msg_peek): the team's kept one when
 * it is large enough. A malloc of a large one is a fresh mapping each time, whose page faults
 * cost more than the transfer (nearly doubling a 1 MiB reduce between two hosts); a team's
 * collectives run one at a time, so one kept buffer, the largest, serves them. */
static void *mm_msg_rx_take(struct meshmem_team *t, size_t bytes, int src, size_t *got)
{
    if (t->rx_spare != NULL && t->rx_spare_bytes >= bytes) {
        void *p = t->rx_spare;
        *got = t->rx_spare_bytes;
        t->rx_spare = NULL;
        t->rx_spare_bytes = 0;
        return p;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        mm_fatal("collective: out of memory receiving %zu bytes from team rank %d", bytes, src);
    *got = bytes;
    return p;
}

/* done with a buffer of mm_msg_rx_take: kept when larger than the team's kept one */
static void mm_msg_rx_give(struct meshmem_team *t, void *p, size_t bytes)
{
    if (p == NULL)
        return;
    if (t->rx_spare_bytes >= bytes) {
        free(p);
        return;
    }
    free(t->rx_spare);
    t->rx_spare = p;
    t->rx_spare_bytes = bytes;
}

void mm_msg_stage_release(struct meshmem_team *t)
{
    mm_msg_rx_release(t);
    pthread_mutex_lock(&mm_stage_lock);
    if (t->slot >= 0 && mm_stage_of[t->slot].team == t) {
        if (mm_stage_of[t->slot].buf)
            mm_heap_free(mm_stage_arena, mm_stage_of[t->slot].buf);
        memset(&mm_stage_of[t->slot], 0, sizeof(mm_stage_of[0]));
    }
    pthread_mutex_unlock(&mm_stage_lock);
}

const void *mm_msg_expose(const void *buf, size_t len, void *stage, mm_desc_t *desc)
{
    if (mm_desc_of(buf, len, desc))
        return buf;
    memcpy(stage, buf, len);
    mm_desc_of(stage, len, desc);
    return stage;
}

/*
 * Pushed messages (MM_MSG_PUSH, mm_msg.h): one active message of the network (MM_TP_AM_MSG),
 * its header the tag it is matched by and its length, matched here, so that a network provides
 * only an active-message send with a handler. When the receive is posted already, the handler
 * takes the data straight into the receiver's buffer (by rendezvous when the network chose
 * one); otherwise it keeps the message (the network holds its data) until the receive is
 * posted and names its buffer. A receive posted early lets the data flow while the receiver
 * does other work (the pipelined two-level collectives, mm_coll_ghc.c). The sender pushes: no
 * descriptor for the receiver to fetch from, no request, no acknowledgement of its own (the
 * network completes the send when the data has left its buffer). The handler runs on whatever
 * thread progresses the network, hence the lock.
 */

/* what a pushed message carries ahead of its data */
typedef struct {
    uint64_t tag;
    uint64_t len;
} mm_msg_push_t;

/* a pushed message that arrived before its receive, or a receive waiting for its message */
typedef struct mm_msg_match {
    struct mm_msg_match *next;
    int src; /* world rank */
    uint64_t tag;
    size_t len;
    void *kept;                /* arrived: the network's handle of the message */
    _Atomic uint64_t *pending; /* waiting: counted down once the data is in its buffer */
    void *buf;
} mm_msg_match_t;

static struct {
    pthread_mutex_t lock;
    mm_msg_match_t *arrived, *waiting;
} mm_msg_matches = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* the tag of team @p t's messages in collective @p seq (a team's slot is the same on every
 * member; a member sends another at most one message per collective) */
static uint64_t mm_msg_tag(const struct meshmem_team *t, uint64_t seq)
{
    return (uint64_t)t->slot << 56 | (seq & ((UINT64_C(1) << 56) - 1));
}

/* take the entry for (@p src, @p tag) off @p list (under the lock); NULL when there is none
 * (a sender sends at most one message per tag: the lists' order does not matter) */
static mm_msg_match_t *mm_msg_match_take(mm_msg_match_t **list, int src, uint64_t tag)
{
    for (mm_msg_match_t **p = list; *p; p = &(*p)->next)
        if ((*p)->src == src && (*p)->tag == tag) {
            mm_msg_match_t *m = *p;
            *p = m->next;
            return m;
        }
    return NULL;
}

static void mm_msg_push_sizes_differ(int src, size_t got, size_t want)
{
    mm_fatal("collective: rank %d sent a message of %zu bytes where %zu were announced", src, got,
             want);
}

/* the data of a receive is in its buffer: count it down, free the entry, wake this rank */
static void mm_msg_push_landed(void *arg)
{
    mm_msg_match_t *m = arg;
    atomic_fetch_sub_explicit(m->pending, 1, memory_order_release);
    free(m);
    mm_wake_self();
}

/* a pushed message arrives: into its waiting receive's buffer, or kept until it is asked for */
static void mm_msg_on_push(int src, unsigned id, const void *hdr, size_t hdr_len, const void *data,
                           size_t len, void *rx)
{
    (void)id, (void)data;
    mm_msg_push_t h;
    if (hdr_len != sizeof(h))
        mm_fatal("collective: a malformed message (%zu header bytes) arrived from rank %d", hdr_len,
                 src);
    memcpy(&h, hdr, sizeof(h));
    if (h.len != len)
        mm_msg_push_sizes_differ(src, len, (size_t)h.len);
    pthread_mutex_lock(&mm_msg_matches.lock);
    mm_msg_match_t *w = mm_msg_match_take(&mm_msg_matches.waiting, src, h.tag);
    if (w != NULL) {
        pthread_mutex_unlock(&mm_msg_matches.lock);
        if (w->len != len)
            mm_msg_push_sizes_differ(src, len, w->len);
        mm_tp_am_recv(src, rx, w->buf, len, mm_msg_push_landed, w);
        return;
    }
    mm_msg_match_t *k = calloc(1, sizeof(*k));
    if (k == NULL)
        mm_fatal("collective: out of memory for a message from rank %d", src);
    *k = (mm_msg_match_t){.src = src,
                          .tag = h.tag,
                          .len = len,
                          .kept = mm_tp_am_keep(src, rx),
                          .next = mm_msg_matches.arrived};
    mm_msg_matches.arrived = k;
    pthread_mutex_unlock(&mm_msg_matches.lock);
    mm_wake_self();
}

void mm_msg_post_pushed(struct meshmem_team *t, uint64_t seq, int src, void *buf, size_t n,
                        _Atomic uint64_t *pending)
{
    int w = mm_team_world(t, src);
    uint64_t tag = mm_msg_tag(t, seq);
    atomic_fetch_add_explicit(pending, 1, memory_order_relaxed);
    pthread_mutex_lock(&mm_msg_matches.lock);
    mm_msg_match_t *k = mm_msg_match_take(&mm_msg_matches.arrived, w, tag);
    if (k != NULL) {
        pthread_mutex_unlock(&mm_msg_matches.lock);
        if (k->len != n)
            mm_msg_push_sizes_differ(w, k->len, n);
        k->pending = pending;
        mm_tp_am_recv(w, k->kept, buf, n, mm_msg_push_landed, k);
        return;
    }
    mm_msg_match_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        mm_fatal("collective: out of memory for a receive from rank %d", w);
    *m = (mm_msg_match_t){.src = w,
                          .tag = tag,
                          .len = n,
                          .pending = pending,
                          .buf = buf,
                          .next = mm_msg_matches.waiting};
    mm_msg_matches.waiting = m;
    pthread_mutex_unlock(&mm_msg_matches.lock);
}

/* finalize: messages nobody asked for (none in a correct program) go back to the network */
static void mm_msg_push_fini(void)
{
    pthread_mutex_lock(&mm_msg_matches.lock);
    while (mm_msg_matches.arrived) {
        mm_msg_match_t *k = mm_msg_matches.arrived;
        mm_msg_matches.arrived = k->next;
        mm_tp_am_drop(k->src, k->kept);
        free(k);
    }
    while (mm_msg_matches.waiting) {
        mm_msg_match_t *w = mm_msg_matches.waiting;
        mm_msg_matches.waiting = w->next;
        free(w);
    }
    pthread_mutex_unlock(&mm_msg_matches.lock);
}

/* progress the networks until *@p pending, counted down as pushed messages are sent or land,
 * is zero (a landing wakes this rank, so the wait may sleep) */
static void mm_msg_net_wait(_Atomic uint64_t *pending)
{
    MM_WAIT_RUNTIME_UNTIL(atomic_load_explicit(pending, memory_order_acquire) == 0);
}

void mm_msg_posted_wait(_Atomic uint64_t *pending)
{
    /* nothing posted (no peer on another host: no network transport), or all landed */
    mm_msg_net_wait(pending);
}

/* the pushed message of @p bytes from team member @p src into @p buf, now */
static void mm_msg_take_pushed(struct meshmem_team *t, uint64_t seq, int src, void *buf,
                               size_t bytes)
{
    _Atomic uint64_t here = 0;
    mm_msg_post_pushed(t, seq, src, buf, bytes, &here);
    mm_msg_posted_wait(&here);
}

void mm_msg_take_posted(const char *call, struct meshmem_team *t, uint64_t seq, int src, size_t n)
{
    uint64_t h = mm_coll_wait(t, src, MM_FLAG_DATA, seq)->payload[0];
    /* another protocol or size: the member passed other counts (a pushed message of another
     * size ends the job in the transport, before its line may be read here) */
    if (MM_MSG_PROTO(h) != MM_MSG_PUSH || MM_MSG_BYTES(h) != n)
        mm_msg_counts_differ(call, src, MM_MSG_BYTES(h), n);
}

bool mm_msg_pushed_to(struct meshmem_team *t, int dst)
{
    return mm_config.net_push && !mm_tp_load_store(mm_team_world(t, dst));
}

bool mm_msg_send(struct meshmem_team *t, uint64_t seq, int dst, const void *buf, size_t n,
                 const mm_desc_t *desc)
{
    uint64_t line[MM_FLAG_PAYLOAD];
    int words;
    bool by_desc = false;
    mm_coll_room(t, dst, seq);
    if (n <= MM_MSG_INLINE) {
        line[0] = MM_MSG_HDR(MM_MSG_INLINED, n);
        memcpy(&line[1], buf, n);
        words = 1 + (int)((n + 7) / 8);
    } else if (n <= mm_g.eager_bytes) {
        int w = mm_team_world(t, dst);
        char *sym = mm_team_eager(t, seq, t->my_rank), *channel = mm_tp_line(w, sym);
        line[0] = MM_MSG_HDR(MM_MSG_EAGER, n);
        if (MM_UNLIKELY(channel == NULL)) { /* the channel and the line in one message */
            mm_coll_post_remote(t, w, MM_FLAG_DATA, seq, line, 1, sym, buf, n);
            return false;
        }
        memcpy(channel, buf, n);
        words = 1;
    } else if (MM_UNLIKELY(n >> MM_MSG_BYTES_BITS)) { /* the header's size field: 1 TiB */
        mm_fatal("collective message of %zu bytes: larger than a message can be (%llu)", n,
                 1ULL << MM_MSG_BYTES_BITS);
    } else if (mm_msg_pushed_to(t, dst)) {
        int w = mm_team_world(t, dst);
        mm_msg_push_t h = {mm_msg_tag(t, seq), n};
        mm_tp_am_send(w, MM_TP_AM_MSG, &h, sizeof(h), buf, n, 0, &t->pushes);
        line[0] = MM_MSG_HDR(MM_MSG_PUSH, n);
        words = 1;
        by_desc = true; /* in use until sent: mm_msg_sent_wait */
    } else {
        line[0] = MM_MSG_HDR(MM_MSG_RNDV, n);
        line[1] = desc->kind;
        line[2] = desc->offset;
        words = 3;
        by_desc = true;
    }
    mm_coll_post(t, dst, MM_FLAG_DATA, seq, line, words);
    return by_desc;
}

mm_msg_t mm_msg_peek(struct meshmem_team *t, uint64_t seq, int src)
{
    const mm_flag_t *f = mm_coll_wait(t, src, MM_FLAG_DATA, seq);
    uint64_t h = f->payload[0];
    mm_msg_t m = {.bytes = MM_MSG_BYTES(h), .by_desc = false};
    if (MM_UNLIKELY(!mm_msg_hdr_valid(h, mm_g.eager_bytes)))
        mm_fatal("collective: corrupt message header %#llx from team rank %d (protocol %d, %zu "
                 "bytes)",
                 (unsigned long long)h, src, MM_MSG_PROTO(h), m.bytes);
    switch (MM_MSG_PROTO(h)) {
    case MM_MSG_INLINED: m.data = &f->payload[1]; break;
    case MM_MSG_EAGER: m.data = mm_team_eager(t, seq, src); break;
    case MM_MSG_RNDV: {
        mm_desc_t d = {f->payload[1], f->payload[2]};
        int w = mm_team_world(t, src);
        m.by_desc = true;
        if (MM_LIKELY(mm_tp_load_store(w))) {
            m.data = mm_desc_resolve(&d, m.bytes, w);
            break;
        }
        /* a sender on another host: its buffer comes here by get, whole (mm_msg_recv gets
         * straight into its destination instead) */
        m.owned = mm_msg_rx_take(t, m.bytes, src, &m.owned_bytes);
        mm_tp_get(m.owned, mm_desc_sym(&d, m.bytes, w), m.bytes, w);
        m.data = m.owned;
        break;
    }
    case MM_MSG_PUSH: {
        int w = mm_team_world(t, src);
        if (MM_UNLIKELY(mm_tp_load_store(w)))
            mm_fatal("collective: team rank %d of this host sent a network message header %#llx",
                     src, (unsigned long long)h);
        m.owned = mm_msg_rx_take(t, m.bytes, src, &m.owned_bytes);
        mm_msg_take_pushed(t, seq, src, m.owned, m.bytes);
        m.data = m.owned;
        break;
    }
    default:
        mm_fatal("collective: corrupt message header %#llx from team rank %d",
                 (unsigned long long)h, src);
    }
    return m;
}

void mm_msg_release(struct meshmem_team *t, uint64_t seq, int src, const mm_msg_t *m)
{
    mm_msg_rx_give(t, m->owned, m->owned_bytes);
    if (!m->by_desc)
        return;
    mm_coll_post(t, src, MM_FLAG_DONE, seq, NULL, 0);
    mm_coll_wake(t, src);
}

size_t mm_msg_recv(const char *call, struct meshmem_team *t, uint64_t seq, int src, void *buf,
                   size_t cap)
{
    int w = mm_team_world(t, src);
    if (MM_UNLIKELY(!mm_tp_load_store(w))) {
        /* a rendezvous from another host: get straight into the destination */
        const mm_flag_t *f = mm_coll_wait(t, src, MM_FLAG_DATA, seq);
        if (MM_MSG_PROTO(f->payload[0]) == MM_MSG_PUSH) {
            size_t bytes = MM_MSG_BYTES(f->payload[0]);
            if (bytes > cap)
                mm_msg_counts_differ(call, src, bytes, cap);
            mm_msg_take_pushed(t, seq, src, buf, bytes);
            return bytes;
        }
        if (MM_MSG_PROTO(f->payload[0]) == MM_MSG_RNDV) {
            mm_msg_t m = {.bytes = MM_MSG_BYTES(f->payload[0]), .by_desc = true};
            if (m.bytes > cap)
                mm_msg_counts_differ(call, src, m.bytes, cap);
            mm_desc_t d = {f->payload[1], f->payload[2]};
            mm_tp_get(buf, mm_desc_sym(&d, m.bytes, w), m.bytes, w);
            mm_msg_release(t, seq, src, &m);
            return m.bytes;
        }
    }
    mm_msg_t m = mm_msg_peek(t, seq, src);
    if (m.bytes > cap)
        mm_msg_counts_differ(call, src, m.bytes, cap);
    if (m.bytes)
        memcpy(buf, m.data, m.bytes);
    mm_msg_release(t, seq, src, &m);
    return m.bytes;
}

void mm_msg_recv_exact(const char *call, struct meshmem_team *t, uint64_t seq, int src, void *buf,
                       size_t len)
{
    size_t got = mm_msg_recv(call, t, seq, src, buf, len);
    if (got != len)
        mm_msg_counts_differ(call, src, got, len);
}

void mm_msg_counts_differ(const char *call, int src, size_t got, size_t want)
{
    mm_fatal_collective("%s: team rank %d sent %zu bytes where %zu were expected (counts "
                        "differ between ranks)",
                        call, src, got, want);
}

void mm_msg_send_wait(struct meshmem_team *t, uint64_t seq, int dst, const void *buf, size_t n,
                      const mm_desc_t *desc)
{
    bool by_desc = mm_msg_send(t, seq, dst, buf, n, desc);
    mm_coll_wake(t, dst);
    if (by_desc)
        mm_msg_sent_wait(t, seq, dst);
}

void mm_msg_send_complete(struct meshmem_team *t, uint64_t seq, const uint8_t *sent_by_desc)
{
    for (int r = 0; r < t->size; r++)
        if (sent_by_desc[r])
            mm_msg_sent_wait(t, seq, r);
}

void mm_msg_sent_wait(struct meshmem_team *t, uint64_t seq, int dst)
{
    if (!mm_msg_pushed_to(t, dst))
        mm_coll_wait(t, dst, MM_FLAG_DONE, seq);
    else
        mm_msg_net_wait(&t->pushes); /* every push of the team: they complete in any order */
}
