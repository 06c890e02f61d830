/*
 * The rtl transport: every peer reached through the simulated OPTWEB engine of rtl/ (issue 30,
 * docs/rtl-transport.md). A plugin, libmeshmem_rtl.so, opened when MESHMEM_NET names rtl (meshrun
 * --rtl CONFIG sets it, with MESHMEM_SHM=0: every rank a node of the engine, reaching only
 * itself through shared memory).
 *
 * The simulator is one process (mm_rtl_ctl.h says why) that maps each rank's memory as its
 * node's: node address 0 is the rank's heap segment, then its static data, then this
 * transport's region (below), each at the same node address on every rank, so a symmetric
 * address has one node address everywhere. An operation is a descriptor (rtl/include/
 * mm_rtl_desc.h) in the rank's queue of the control block; the simulator runs the clock only
 * while every rank waits on it, so a wait here is "block until the next epoch" (futex, no
 * spinning), and the job's clock is the engine's cycle.
 *
 * The region: the mailboxes (active messages: the runtime's posts and collectives' large
 * messages, MM_RTL_AM_SLOTS slots per sender, each written by one PUT_SIGNAL whose signal is the
 * slot's sequence word; a large message in fragments; credits go back by PUT), the staging
 * area (puts are copied there, so a put completes locally at once and its source may be
 * private; gets land there), and the collectives' area (both halves at one node address on
 * every member, as OPTWEB's collectives are programmed at every end).
 *
 * Completion: puts, puts with signal and messages are one-sided descriptors without a
 * completion entry; quiet is the engine's QUIET (every one-sided operation acknowledged, so in
 * place at its target), fence marks the next descriptor MM_RTL_F_FENCE. Gets, AMOs and
 * collectives wait for their completion. AMOs run at the target's memory port while every rank
 * waits, so they are atomic with respect to the target's CPU atomics too.
 */
#include "mm_rtl_ctl.h"
#include "mm_tp_coll.h"
#include "mm_tp_ops.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MM_RTL_AM_SLOTS 4           /* mailbox slots per sender */
#define MM_RTL_SLOT     (16u << 10) /* bytes of a slot */
#define MM_RTL_SLOT_HDR 256u        /* the runtime's header, at most */
#define MM_RTL_STAGE    (4u << 20)  /* staging bytes */
#define MM_RTL_COLL     (8u << 20)  /* collectives' area: two halves */
#define MM_RTL_PAGE     4096u

/* a slot: the sequence word (the signal), then what the PUT_SIGNAL wrote */
typedef struct {
    uint32_t id, hdr_len;
    uint64_t len;  /* the message's data bytes */
    uint64_t off;  /* this fragment's offset in them */
    uint64_t frag; /* this fragment's bytes */
} mm_rtl_msg_t;
#define MM_RTL_BODY 64u /* a slot's body starts here (the signal word's line before it) */
#define MM_RTL_FRAG (MM_RTL_SLOT - MM_RTL_BODY - sizeof(mm_rtl_msg_t) - MM_RTL_SLOT_HDR)

/* a message handed to the runtime's handler (its rx), or kept */
typedef struct {
    const char *data;
    size_t len;
    char *owned; /* the data's heap copy, freed with it */
    bool kept;
} mm_rtl_rx_t;

static const mm_plugin_host_t *H;

static struct {
    mm_rtl_ctl_t *ctl;
    mm_rtl_slot_t *me;
    int rank, n;
    mm_tp_am_fn arrived;
    char *region; /* this transport's region here */
    size_t region_bytes;
    uint64_t base[3];                           /* node addresses of segment, static data, region */
    size_t mbox, credit, consumed, stage, coll; /* offsets in the region */
    size_t stage_used;
    bool fence_next, dirty, serving;
    uint32_t next_id;
    uint64_t *sent, *got; /* messages per peer */
    char **asm_buf;       /* a fragmented message being put together, per sender */
    char host[80];
} R;

/* ---- the simulator's clock and the epochs ---- */

static void mm_rtl_check(void)
{
    if (atomic_load(&R.ctl->sim_state) == MM_RTL_S_FAILED)
        H->fatal("rtl: the simulator failed: %s", R.ctl->error);
}

/* nothing to do here: wait for the simulator's next step (it runs once every rank waits) */
static void mm_rtl_block(void)
{
    uint32_t e = atomic_load(&R.ctl->epoch);
    mm_rtl_check();
    atomic_store(&R.me->blocked, e + 1);
    atomic_fetch_add(&R.ctl->bell, 1);
    syscall(SYS_futex, (uint32_t *)&R.ctl->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 100000000L};
    while (atomic_load(&R.ctl->epoch) == e) {
        syscall(SYS_futex, (uint32_t *)&R.ctl->epoch, FUTEX_WAIT, e, &ts, NULL, 0);
        mm_rtl_check();
        if (getppid() == 1)
            H->fatal("rtl: meshrun is gone");
    }
}

static double mm_rtl_wtime(void)
{
    return (double)atomic_load(&R.ctl->cycle) / (R.ctl->clock_mhz * 1e6);
}

/* ---- addresses ---- */

/* the node address of [@p p, @p p + @p len) in this rank's memory; UINT64_MAX: not there */
static uint64_t mm_rtl_addr(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    const mm_state_t *g = H->g;
    if (a - (uintptr_t)g->seg < g->seg_bytes && len <= g->seg_bytes - (a - (uintptr_t)g->seg))
        return R.base[0] + (a - (uintptr_t)g->seg);
    if (a - g->data_base < g->data_size && len <= g->data_size - (a - g->data_base))
        return R.base[1] + (a - g->data_base);
    if (a - (uintptr_t)R.region < R.region_bytes &&
        len <= R.region_bytes - (a - (uintptr_t)R.region))
        return R.base[2] + (a - (uintptr_t)R.region);
    return UINT64_MAX;
}

static uint64_t mm_rtl_sym(const char *call, int pe, const void *p, size_t len)
{
    uint64_t a = mm_rtl_addr(p, len);
    if (a == UINT64_MAX)
        H->fatal("rtl: %s: address %p (%zu bytes) for rank %d is outside the symmetric memory",
                 call, p, len, pe);
    return a;
}

static uint64_t mm_rtl_reg(size_t off)
{
    return R.base[2] + off;
}

/* ---- descriptors ---- */

static const char *mm_rtl_op_name(unsigned op)
{
    static const char *const names[] = {[MM_RTL_OP_NOP] = "nop",
                                        [MM_RTL_OP_SEND] = "send",
                                        [MM_RTL_OP_RECV] = "recv",
                                        [MM_RTL_OP_BARRIER] = "barrier",
                                        [MM_RTL_OP_BCAST] = "bcast",
                                        [MM_RTL_OP_SCATTER] = "scatter",
                                        [MM_RTL_OP_GATHER] = "gather",
                                        [MM_RTL_OP_ALLGATHER] = "allgather",
                                        [MM_RTL_OP_ALLTOALL] = "alltoall",
                                        [MM_RTL_OP_ALLTOALLV] = "alltoallv",
                                        [MM_RTL_OP_REDUCE_SCATTER] = "reduce_scatter",
                                        [MM_RTL_OP_PUT] = "put",
                                        [MM_RTL_OP_GET] = "get",
                                        [MM_RTL_OP_AMO] = "amo",
                                        [MM_RTL_OP_PUT_SIGNAL] = "put_signal",
                                        [MM_RTL_OP_QUIET] = "quiet"};
    return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] : "?";
}

static int mm_rtl_serve(void);

/* queue @p d (its id set here); @return the id */
static uint32_t mm_rtl_submit(mm_rtl_desc *d)
{
    if (R.fence_next) {
        d->flags |= MM_RTL_F_FENCE;
        R.fence_next = false;
    }
    d->id = ++R.next_id;
    uint64_t head = atomic_load(&R.me->sq_head);
    while (head - atomic_load(&R.me->sq_tail) >= MM_RTL_SQ)
        mm_rtl_block();
    R.me->sq[head % MM_RTL_SQ] = *d;
    atomic_store(&R.me->sq_head, head + 1);
    if (d->op == MM_RTL_OP_PUT || d->op == MM_RTL_OP_PUT_SIGNAL)
        R.dirty = true;
    return d->id;
}

/* wait for descriptor @p id's completion */
static mm_rtl_cqe mm_rtl_wait(uint32_t id)
{
    for (;;) {
        uint64_t tail = atomic_load(&R.me->cq_tail);
        while (tail != atomic_load(&R.me->cq_head)) {
            mm_rtl_cqe e = R.me->cq[tail % MM_RTL_CQ];
            atomic_store(&R.me->cq_tail, ++tail);
            if (e.status != MM_RTL_ST_OK)
                H->fatal("rtl: the engine failed a %s of rank %d (status %u, cycle %llu)",
                         mm_rtl_op_name(e.op), R.rank, e.status, (unsigned long long)e.end);
            if (e.id == id)
                return e;
            H->fatal("rtl: rank %d got a completion it did not wait for (%s, id %u)", R.rank,
                     mm_rtl_op_name(e.op), e.id);
        }
        /* serve the peers meanwhile: one of them may need a message handled here before it
         * joins this collective (the transport's mailboxes, then the runtime's handlers: a
         * request that landed in the rings of src/am is answered by its progress hook) */
        int events = mm_rtl_serve();
        H->progress_hook();
        if (events == 0)
            mm_rtl_block();
    }
}

static mm_rtl_cqe mm_rtl_do(mm_rtl_desc *d)
{
    return mm_rtl_wait(mm_rtl_submit(d));
}

static void mm_rtl_quiet(void)
{
    if (R.dirty) {
        mm_rtl_do(&(mm_rtl_desc){.op = MM_RTL_OP_QUIET});
        R.dirty = false;
    }
    R.stage_used = 0;
}

static void mm_rtl_fence(void)
{
    R.fence_next = R.dirty;
}

/* @p len bytes of staging (quiet first when it is full: what it held is then delivered) */
static char *mm_rtl_stage(size_t len)
{
    len = (len + 31) & ~(size_t)31;
    if (R.stage_used + len > MM_RTL_STAGE)
        mm_rtl_quiet();
    char *p = R.region + R.stage + R.stage_used;
    R.stage_used += len;
    return p;
}

/* ---- RMA and AMOs ---- */

static void mm_rtl_put(int pe, void *dest, const void *src, size_t n)
{
    uint64_t to = mm_rtl_sym("put", pe, dest, n);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < MM_RTL_STAGE / 2 ? n - done : MM_RTL_STAGE / 2;
        char *s = mm_rtl_stage(k);
        memcpy(s, (const char *)src + done, k);
        mm_rtl_submit(&(mm_rtl_desc){.op = MM_RTL_OP_PUT,
                                     .flags = MM_RTL_F_NOCQ,
                                     .peer = (uint16_t)pe,
                                     .src = mm_rtl_addr(s, k),
                                     .dst = to + done,
                                     .len = k});
        done += k;
    }
}

static void mm_rtl_get(int pe, void *dest, const void *src, size_t n)
{
    uint64_t from = mm_rtl_sym("get", pe, src, n);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < MM_RTL_STAGE / 2 ? n - done : MM_RTL_STAGE / 2;
        char *s = mm_rtl_stage(k);
        mm_rtl_do(&(mm_rtl_desc){.op = MM_RTL_OP_GET,
                                 .peer = (uint16_t)pe,
                                 .src = from + done,
                                 .dst = mm_rtl_addr(s, k),
                                 .len = k});
        memcpy((char *)dest + done, s, k);
        done += k;
    }
}

static void mm_rtl_put_signal(int pe, void *dest, const void *src, size_t n, uint64_t *sig,
                              uint64_t signal, int op)
{
    uint64_t to = n ? mm_rtl_sym("put_signal", pe, dest, n) : 0;
    uint64_t at = mm_rtl_sym("put_signal", pe, sig, sizeof(*sig));
    /* the data in pieces the staging holds, the last with the signal */
    size_t done = 0;
    do {
        size_t k = n - done < MM_RTL_STAGE / 2 ? n - done : MM_RTL_STAGE / 2;
        char *s = mm_rtl_stage(k ? k : 1);
        memcpy(s, (const char *)src + done, k);
        bool last = done + k == n;
        mm_rtl_desc d = {.op = last ? MM_RTL_OP_PUT_SIGNAL : MM_RTL_OP_PUT,
                         .flags = MM_RTL_F_NOCQ,
                         .peer = (uint16_t)pe,
                         .src = mm_rtl_addr(s, 1),
                         .dst = to + done,
                         .len = k};
        if (last) {
            d.aux = at;
            d.value = signal;
            d.src_stride = op ? MM_RTL_SIG_ADD : MM_RTL_SIG_SET;
        }
        mm_rtl_submit(&d);
        done += k;
    } while (done < n);
}

static uint64_t mm_rtl_amo_word(int pe, uint64_t at, unsigned code, size_t size, uint64_t value,
                                uint64_t cond)
{
    mm_rtl_cqe e = mm_rtl_do(&(mm_rtl_desc){.op = MM_RTL_OP_AMO,
                                            .peer = (uint16_t)pe,
                                            .dst = at,
                                            .len = size,
                                            .src_stride = code,
                                            .value = value,
                                            .aux = cond});
    return e.value;
}

static void mm_rtl_amo(int pe, void *dest, meshmem_amo_op_t op, size_t size, uint64_t value,
                       uint64_t cond, uint64_t *fetched)
{
    static const unsigned code[] = {
        [MESHMEM_AMO_FETCH] = MM_RTL_AMO_FETCH, [MESHMEM_AMO_SET] = MM_RTL_AMO_SET,
        [MESHMEM_AMO_SWAP] = MM_RTL_AMO_SWAP,   [MESHMEM_AMO_CSWAP] = MM_RTL_AMO_CSWAP,
        [MESHMEM_AMO_ADD] = MM_RTL_AMO_FADD,    [MESHMEM_AMO_AND] = MM_RTL_AMO_FAND,
        [MESHMEM_AMO_OR] = MM_RTL_AMO_FOR,      [MESHMEM_AMO_XOR] = MM_RTL_AMO_FXOR};
    uint64_t at = mm_rtl_sym("amo", pe, dest, size);
    uint64_t old;
    if (size >= 4) {
        old = mm_rtl_amo_word(pe, at, code[op], size, value, cond);
    } else {
        /* 1 and 2 bytes: compare-and-swap on the aligned 32-bit word that holds them */
        uint64_t w = at & ~(uint64_t)3;
        unsigned shift = (unsigned)(at - w) * 8;
        uint32_t mask = (uint32_t)(((1ull << (size * 8)) - 1) << shift);
        uint32_t cur = (uint32_t)mm_rtl_amo_word(pe, w, MM_RTL_AMO_FETCH, 4, 0, 0);
        for (;;) {
            uint64_t o = (cur & mask) >> shift, v = value & (mask >> shift);
            uint64_t nv = op == MESHMEM_AMO_ADD     ? o + v
                          : op == MESHMEM_AMO_AND   ? (o & v)
                          : op == MESHMEM_AMO_OR    ? (o | v)
                          : op == MESHMEM_AMO_XOR   ? (o ^ v)
                          : op == MESHMEM_AMO_FETCH ? o
                          : op == MESHMEM_AMO_CSWAP ? (o == (cond & (mask >> shift)) ? v : o)
                                                    : v;
            uint32_t want = (cur & ~mask) | (uint32_t)((nv << shift) & mask);
            if (op == MESHMEM_AMO_FETCH || want == cur) {
                old = o;
                break;
            }
            uint32_t seen = (uint32_t)mm_rtl_amo_word(pe, w, MM_RTL_AMO_CSWAP, 4, want, cur);
            if (seen == cur) {
                old = o;
                break;
            }
            cur = seen;
        }
    }
    if (fetched)
        *fetched = old;
}

/* ---- active messages ---- */

static char *mm_rtl_slot(size_t region_off, int sender, uint64_t seq)
{
    return R.region + region_off +
           ((size_t)sender * MM_RTL_AM_SLOTS + seq % MM_RTL_AM_SLOTS) * MM_RTL_SLOT;
}

static void mm_rtl_am_send(int pe, unsigned id, const void *hdr, size_t hdr_len,
                           const struct iovec *iov, int iovcnt, unsigned flags,
                           _Atomic uint64_t *pending)
{
    (void)flags; /* every message goes eagerly, in fragments; it is local-complete on return */
    if (hdr_len > MM_RTL_SLOT_HDR)
        H->fatal("rtl: a message header of %zu bytes (at most %u)", hdr_len, MM_RTL_SLOT_HDR);
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    volatile uint64_t *credit = (volatile uint64_t *)(R.region + R.credit) + pe;
    int piece = 0;
    size_t in_piece = 0, off = 0;
    do {
        while (R.sent[pe] - *credit >= MM_RTL_AM_SLOTS) { /* the peer's slots are full */
            if (!R.serving && mm_rtl_serve() > 0)
                continue;
            mm_rtl_block();
        }
        size_t frag = len - off < MM_RTL_FRAG ? len - off : MM_RTL_FRAG;
        size_t body = sizeof(mm_rtl_msg_t) + MM_RTL_SLOT_HDR + frag;
        char *s = mm_rtl_stage(body);
        *(mm_rtl_msg_t *)s = (mm_rtl_msg_t){
            .id = id, .hdr_len = (uint32_t)hdr_len, .len = len, .off = off, .frag = frag};
        memcpy(s + sizeof(mm_rtl_msg_t), hdr, hdr_len);
        for (size_t k = 0; k < frag;) { /* gather the fragment from the pieces */
            size_t c =
                iov[piece].iov_len - in_piece < frag - k ? iov[piece].iov_len - in_piece : frag - k;
            memcpy(s + sizeof(mm_rtl_msg_t) + MM_RTL_SLOT_HDR + k,
                   (const char *)iov[piece].iov_base + in_piece, c);
            k += c;
            in_piece += c;
            if (in_piece == iov[piece].iov_len) {
                piece++;
                in_piece = 0;
            }
        }
        uint64_t seq = R.sent[pe]++;
        char *slot = mm_rtl_slot(R.mbox, R.rank, seq); /* its place at the peer */
        mm_rtl_submit(&(mm_rtl_desc){.op = MM_RTL_OP_PUT_SIGNAL,
                                     .flags = MM_RTL_F_NOCQ,
                                     .peer = (uint16_t)pe,
                                     .src = mm_rtl_addr(s, body),
                                     .dst = mm_rtl_addr(slot + MM_RTL_BODY, body),
                                     .len = body,
                                     .aux = mm_rtl_addr(slot, 8),
                                     .value = seq + 1,
                                     .src_stride = MM_RTL_SIG_SET});
        off += frag;
    } while (off < len);
    if (pending) { /* copied into staging: reusable at once */
        atomic_fetch_add(pending, 1);
        atomic_fetch_sub(pending, 1);
    }
}

static void mm_rtl_am_recv(void *rx, void *buf, size_t len, void (*landed)(void *arg), void *arg)
{
    mm_rtl_rx_t *m = rx;
    memcpy(buf, m->data, len < m->len ? len : m->len);
    if (m->kept) {
        free(m->owned);
        free(m);
    }
    landed(arg);
}

static void *mm_rtl_am_keep(void *rx)
{
    mm_rtl_rx_t *m = rx, *k = malloc(sizeof(*k));
    if (k == NULL)
        H->fatal("rtl: out of memory keeping a message");
    *k = (mm_rtl_rx_t){.len = m->len, .kept = true, .owned = m->owned};
    if (m->owned == NULL) { /* it lies in a mailbox slot: copy it out */
        k->owned = malloc(m->len ? m->len : 1);
        if (k->owned == NULL)
            H->fatal("rtl: out of memory keeping a message of %zu bytes", m->len);
        memcpy(k->owned, m->data, m->len);
    }
    m->owned = NULL; /* now the kept one's */
    k->data = k->owned;
    return k;
}

static void mm_rtl_am_drop(void *kept)
{
    mm_rtl_rx_t *k = kept;
    free(k->owned);
    free(k);
}

/* the messages that arrived: run their handlers, return the credits. @return messages handled */
static int mm_rtl_serve(void)
{
    if (R.serving)
        return 0;
    R.serving = true;
    int events = 0;
    volatile uint64_t *consumed = (volatile uint64_t *)(R.region + R.consumed);
    for (int s = 0; s < R.n; s++) {
        uint64_t before = R.got[s];
        for (;;) {
            char *slot = mm_rtl_slot(R.mbox, s, R.got[s]);
            if (atomic_load((_Atomic uint64_t *)slot) != R.got[s] + 1)
                break;
            const mm_rtl_msg_t *m = (const mm_rtl_msg_t *)(slot + MM_RTL_BODY);
            const char *hdr = (const char *)(m + 1), *data = hdr + MM_RTL_SLOT_HDR;
            mm_rtl_rx_t rx = {.data = data, .len = m->len};
            bool whole = m->off == 0 && m->frag == m->len;
            if (!whole) { /* a fragment: put the message together */
                if (m->off == 0) {
                    free(R.asm_buf[s]);
                    R.asm_buf[s] = malloc(m->len);
                    if (R.asm_buf[s] == NULL)
                        H->fatal("rtl: out of memory for a message of %llu bytes from rank %d",
                                 (unsigned long long)m->len, s);
                }
                memcpy(R.asm_buf[s] + m->off, data, m->frag);
                rx.data = rx.owned = R.asm_buf[s];
            }
            R.got[s]++;
            if (whole || m->off + m->frag == m->len) {
                if (!whole)
                    R.asm_buf[s] = NULL;
                char h[MM_RTL_SLOT_HDR];
                uint32_t hl = m->hdr_len;
                unsigned id = m->id;
                memcpy(h, hdr, hl);
                R.arrived(s, id, h, hl, rx.data, rx.len, &rx);
                free(rx.owned); /* NULL once kept */
                events++;
            }
        }
        if (R.got[s] != before) { /* the slots are free again: tell the sender */
            consumed[s] = R.got[s];
            mm_rtl_submit(&(mm_rtl_desc){.op = MM_RTL_OP_PUT,
                                         .flags = MM_RTL_F_NOCQ,
                                         .peer = (uint16_t)s,
                                         .src = mm_rtl_reg(R.consumed + (size_t)s * 8),
                                         .dst = mm_rtl_reg(R.credit + (size_t)R.rank * 8),
                                         .len = 8});
        }
    }
    if (events)
        atomic_fetch_add(&R.me->work, (uint64_t)events);
    R.serving = false;
    return events;
}

/* every wait polls here: what arrived, or else the simulator's next step */
static int mm_rtl_progress(void)
{
    int events = mm_rtl_serve();
    if (events == 0)
        mm_rtl_block();
    return events;
}

static const char *mm_rtl_host(int pe)
{
    (void)pe;
    return R.host;
}

/* ---- collectives offloaded to the engine: one command each (mm_tp_coll.h) ---- */

/* the team of every rank in order: the engine's own (its collectives address all nodes) */
static int mm_rtl_team_init(mm_tp_group_t *g)
{
    return g->start == 0 && g->stride == 1 && g->size == R.n ? 0 : -1;
}

static size_t mm_rtl_stride(size_t len)
{
    return (len + 31) & ~(size_t)31;
}

/* both halves of the collectives' area: sending and receiving, the same node address on every
 * member */
static char *mm_rtl_coll_half(int k)
{
    return R.region + R.coll + (size_t)k * (MM_RTL_COLL / 2);
}

static bool mm_rtl_coll_fits(size_t blocks, size_t len)
{
    return blocks * mm_rtl_stride(len) <= MM_RTL_COLL / 2;
}

static meshmem_status_t mm_rtl_coll(mm_rtl_desc d)
{
    mm_rtl_quiet(); /* the one-sided operations before it are in place first */
    mm_rtl_do(&d);
    return MESHMEM_OK;
}

static meshmem_status_t mm_rtl_barrier(mm_tp_group_t *g)
{
    (void)g;
    return mm_rtl_coll((mm_rtl_desc){.op = MM_RTL_OP_BARRIER});
}

static meshmem_status_t mm_rtl_bcast(mm_tp_group_t *g, void *buf, size_t len, int root)
{
    (void)g;
    if (!mm_rtl_coll_fits(1, len))
        return MESHMEM_ERR_UNSUPPORTED;
    char *s = mm_rtl_coll_half(0), *r = mm_rtl_coll_half(1);
    if (R.rank == root)
        memcpy(s, buf, len);
    mm_rtl_coll((mm_rtl_desc){.op = MM_RTL_OP_BCAST,
                              .peer = (uint16_t)root,
                              .src = mm_rtl_addr(s, 1),
                              .dst = mm_rtl_addr(r, 1),
                              .len = len});
    if (R.rank != root)
        memcpy(buf, r, len);
    return MESHMEM_OK;
}

/* the block collectives: @p sblocks blocks of @p len bytes from @p sbuf into the sending half,
 * the command, then @p rblocks blocks out of the receiving half into @p rbuf, and this member's
 * own block copied here (@p own_from, @p own_to: where it is and goes; NULL: none) */
static meshmem_status_t mm_rtl_blocks(mm_rtl_desc d, const void *sbuf, size_t sblocks, void *rbuf,
                                      size_t rblocks, size_t len, const void *own_from,
                                      void *own_to)
{
    size_t st = mm_rtl_stride(len);
    if (!mm_rtl_coll_fits(sblocks > rblocks ? sblocks : rblocks, len) || len > MM_RTL_STAGE / 2)
        return MESHMEM_ERR_UNSUPPORTED;
    char *s = mm_rtl_coll_half(0), *r = mm_rtl_coll_half(1);
    for (size_t j = 0; j < sblocks; j++)
        memcpy(s + j * st, (const char *)sbuf + j * len, len);
    d.src = mm_rtl_addr(s, 1);
    d.dst = mm_rtl_addr(r, 1);
    d.len = len;
    d.src_stride = st;
    d.dst_stride = st;
    mm_rtl_coll(d);
    /* this member's own block straight from its source (kept first: in place, the copy out
     * would overwrite it) */
    char *own = own_from ? mm_rtl_stage(len) : NULL;
    if (own)
        memcpy(own, own_from, len);
    for (size_t j = 0; j < rblocks; j++)
        memcpy((char *)rbuf + j * len, r + j * st, len);
    if (own_to)
        memcpy(own_to, own, len);
    return MESHMEM_OK;
}

static meshmem_status_t mm_rtl_scatter(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len,
                                       int root)
{
    bool me = g->my_rank == root;
    mm_rtl_desc d = {.op = MM_RTL_OP_SCATTER, .peer = (uint16_t)root};
    if (!me)
        return mm_rtl_blocks(d, NULL, 0, rbuf, 1, len, NULL, NULL);
    return mm_rtl_blocks(d, sbuf, (size_t)R.n, NULL, 0, len,
                         (const char *)sbuf + (size_t)root * len, rbuf);
}

static meshmem_status_t mm_rtl_gather(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len,
                                      int root)
{
    bool me = g->my_rank == root;
    mm_rtl_desc d = {.op = MM_RTL_OP_GATHER, .peer = (uint16_t)root};
    return mm_rtl_blocks(d, sbuf, 1, rbuf, me ? (size_t)R.n : 0, len, me ? sbuf : NULL,
                         me ? (char *)rbuf + (size_t)root * len : NULL);
}

static meshmem_status_t mm_rtl_allgather(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len)
{
    return mm_rtl_blocks((mm_rtl_desc){.op = MM_RTL_OP_ALLGATHER}, sbuf, 1, rbuf, (size_t)R.n, len,
                         sbuf, (char *)rbuf + (size_t)g->my_rank * len);
}

static meshmem_status_t mm_rtl_alltoall(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len)
{
    size_t me = (size_t)g->my_rank;
    return mm_rtl_blocks((mm_rtl_desc){.op = MM_RTL_OP_ALLTOALL}, sbuf, (size_t)R.n, rbuf,
                         (size_t)R.n, len, (const char *)sbuf + me * len, (char *)rbuf + me * len);
}

/* All-to-all-v: one ALLTOALLV command, whose receivers learn each block's length from its
 * end-of-packet mark. The command's capacity (its len) decides eager or rendezvous at both ends
 * of every pair and bounds what a block may bring, so every member must program the same one,
 * and a member that declines alone would leave the others waiting in the engine: one ALLGATHER
 * of each member's largest block first, then every member takes the same decision on the same
 * figures. The blocks at one stride in the sending half, the engine's tables of send and
 * received lengths (u32 per member) after them. */
static meshmem_status_t mm_rtl_alltoallv(mm_tp_group_t *g, const void *sbuf, const size_t *soff,
                                         const size_t *slen, void *rbuf, const size_t *roff,
                                         const size_t *rcap, size_t *rlen)
{
    size_t n = (size_t)R.n, big = 0;
    for (size_t j = 0; j < n; j++)
        big = slen[j] > big ? slen[j] : big;
    char *s = mm_rtl_coll_half(0), *r = mm_rtl_coll_half(1);
    memcpy(s, &(uint64_t){big}, sizeof(uint64_t));
    mm_rtl_coll((mm_rtl_desc){.op = MM_RTL_OP_ALLGATHER,
                              .src = mm_rtl_addr(s, 1),
                              .dst = mm_rtl_addr(r, 1),
                              .len = sizeof(uint64_t),
                              .dst_stride = mm_rtl_stride(sizeof(uint64_t))});
    uint64_t most = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b;
        memcpy(&b, r + i * mm_rtl_stride(sizeof(uint64_t)), sizeof(b));
        most = b > most ? b : most;
    }
    size_t st = mm_rtl_stride(most), tables = mm_rtl_stride(n * sizeof(uint32_t));
    if (most > UINT32_MAX || n * st + tables > MM_RTL_COLL / 2)
        return MESHMEM_ERR_UNSUPPORTED; /* every member alike: the runtime's algorithm */
    (void)g;
    if (most == 0) { /* nothing to move anywhere */
        for (size_t i = 0; i < n; i++)
            rlen[i] = 0;
        return MESHMEM_OK;
    }
    uint32_t *stab = (uint32_t *)(void *)(s + n * st), *rtab = (uint32_t *)(void *)(r + n * st);
    for (size_t j = 0; j < n; j++) {
        memcpy(s + j * st, (const char *)sbuf + soff[j], slen[j]);
        stab[j] = (uint32_t)slen[j];
    }
    mm_rtl_coll((mm_rtl_desc){.op = MM_RTL_OP_ALLTOALLV,
                              .src = mm_rtl_addr(s, 1),
                              .dst = mm_rtl_addr(r, 1),
                              .len = most,
                              .src_stride = st,
                              .dst_stride = st,
                              .value = mm_rtl_addr(stab, 1),
                              .aux = mm_rtl_addr(rtab, 1)});
    for (size_t i = 0; i < n; i++) {
        if (rtab[i] > rcap[i])
            H->fatal("rtl: alltoallv: team rank %zu sent %u bytes where %zu were expected "
                     "(counts differ between ranks)",
                     i, rtab[i], rcap[i]);
        memcpy((char *)rbuf + roff[i], r + i * st, rtab[i]);
        rlen[i] = rtab[i];
    }
    return MESHMEM_OK;
}

/* The averaging core adds 32-bit lanes with wrap-around (mm_core_avg). An integer sum of any
 * width is exact on them when each element goes in as lanes that cannot carry out of 32 bits:
 * 8- and 16-bit elements zero-extended into one lane each, 32-bit ones as they are, 64-bit ones
 * as three lanes of 21, 21 and 22 bits (N members add up to N * 2^22, under 2^32 for N < 1024).
 * Taken back modulo the element's width, that is the runtime's sum bit for bit, signed or not,
 * in any order. @return the lanes per element (its bytes into @p es), 0: not a sum the core
 * does exactly. */
static size_t mm_rtl_lanes(meshmem_dtype_t dtype, meshmem_op_t op, size_t *es)
{
    if (op != MESHMEM_OP_SUM || R.n >= 1024)
        return 0;
    switch (dtype) {
    case MESHMEM_INT8:
    case MESHMEM_UINT8: *es = 1; return 1;
    case MESHMEM_INT16:
    case MESHMEM_UINT16: *es = 2; return 1;
    case MESHMEM_INT32:
    case MESHMEM_UINT32: *es = 4; return 1;
    case MESHMEM_INT64:
    case MESHMEM_UINT64: *es = 8; return 3;
    default: return 0;
    }
}

/* element @p i of @p v (@p es bytes each) as its lanes (mm_rtl_lanes) into @p lane */
static void mm_rtl_lanes_of(const void *v, size_t es, size_t i, uint32_t *lane)
{
    uint64_t x = 0;
    memcpy(&x, (const char *)v + i * es, es); /* little-endian: the low bytes */
    if (es < 8) {
        lane[0] = (uint32_t)x;
        return;
    }
    lane[0] = (uint32_t)(x & 0x1FFFFF);
    lane[1] = (uint32_t)((x >> 21) & 0x1FFFFF);
    lane[2] = (uint32_t)(x >> 42);
}

/* the lanes' sums @p lane back into element @p i of @p v, modulo its width */
static void mm_rtl_lanes_to(void *v, size_t es, size_t i, const uint32_t *lane)
{
    uint64_t x = es < 8 ? lane[0] : lane[0] + ((uint64_t)lane[1] << 21) + ((uint64_t)lane[2] << 42);
    memcpy((char *)v + i * es, &x, es);
}

/* lane @p j of the vector in the staged blocks at @p base: word j % per of block j / per */
static inline char *mm_rtl_lane_at(char *base, size_t j, size_t per, size_t st)
{
    return base + j / per * st + j % per * sizeof(uint32_t);
}

/* All-reduce as OPTWEB shares averaged parameters (JOCN 2022 §3.C.2, the aggressive approach):
 * REDUCE_SCATTER on the averaging core (block k of every member summed in flight into member
 * k), then an ALLGATHER of the sums, fenced behind it on each member; both queued at once.
 * Integer sums only (mm_rtl_lanes); every other type and operation is the runtime's. The
 * vector's lanes in order, member k's block lanes [k * per, (k + 1) * per), the tail zeros. */
static meshmem_status_t mm_rtl_allreduce(mm_tp_group_t *g, const void *sbuf, void *rbuf,
                                         size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    (void)g;
    size_t es = 0, k = mm_rtl_lanes(dtype, op, &es);
    if (k == 0)
        return MESHMEM_ERR_UNSUPPORTED;
    if (count == 0)
        return MESHMEM_OK;
    size_t n = (size_t)R.n, lanes = count * k, per = (lanes + n - 1) / n;
    size_t blen = per * sizeof(uint32_t), st = mm_rtl_stride(blen);
    if (!mm_rtl_coll_fits(n + 1, blen))
        return MESHMEM_ERR_UNSUPPORTED;
    char *s = mm_rtl_coll_half(0), *sum = mm_rtl_coll_half(1), *all = sum + st;
    uint32_t lane[3];
    for (size_t b = 0; b < n; b++)
        memset(s + b * st, 0, blen);
    for (size_t i = 0; i < count; i++) {
        mm_rtl_lanes_of(sbuf, es, i, lane);
        for (size_t j = i * k; j < (i + 1) * k; j++)
            memcpy(mm_rtl_lane_at(s, j, per, st), &lane[j - i * k], sizeof(uint32_t));
    }
    mm_rtl_quiet();
    uint32_t rs = mm_rtl_submit(&(mm_rtl_desc){.op = MM_RTL_OP_REDUCE_SCATTER,
                                               .src = mm_rtl_addr(s, 1),
                                               .dst = mm_rtl_addr(sum, 1),
                                               .len = blen,
                                               .src_stride = st});
    uint32_t ag = mm_rtl_submit(&(mm_rtl_desc){.op = MM_RTL_OP_ALLGATHER,
                                               .flags = MM_RTL_F_FENCE,
                                               .src = mm_rtl_addr(sum, 1),
                                               .dst = mm_rtl_addr(all, 1),
                                               .len = blen,
                                               .dst_stride = st});
    mm_rtl_wait(rs);
    mm_rtl_wait(ag);
    for (size_t i = 0; i < count; i++) {
        for (size_t j = i * k; j < (i + 1) * k; j++)
            memcpy(&lane[j - i * k], mm_rtl_lane_at(all, j, per, st), sizeof(uint32_t));
        mm_rtl_lanes_to(rbuf, es, i, lane);
    }
    return MESHMEM_OK;
}

static const mm_tp_coll_ops_t mm_rtl_coll_ops = {
    .team_init = mm_rtl_team_init,
    .barrier = mm_rtl_barrier,
    .bcast = mm_rtl_bcast,
    .scatter = mm_rtl_scatter,
    .gather = mm_rtl_gather,
    .allgather = mm_rtl_allgather,
    .alltoall = mm_rtl_alltoall,
    .alltoallv = mm_rtl_alltoallv,
    .allreduce = mm_rtl_allreduce,
};

/* ---- set up ---- */

static size_t mm_rtl_align(size_t v)
{
    return (v + MM_RTL_PAGE - 1) & ~(size_t)(MM_RTL_PAGE - 1);
}

static int mm_rtl_init(const mm_boot_card_t *cards, const bool *peers, mm_tp_am_fn arrived)
{
    (void)peers;
    const char *fds = getenv("MESHMEM_RTL_FD");
    if (fds == NULL) {
        H->log(MM_LOG_ERROR, "MESHMEM_NET=rtl: no simulator: start the job with meshrun --rtl "
                             "CONFIG (docs/rtl-transport.md)");
        return -1;
    }
    const mm_state_t *g = H->g;
    R.rank = g->rank;
    R.n = g->nranks;
    R.arrived = arrived;
    snprintf(R.host, sizeof(R.host), "%.64s (rtl)", cards[g->rank].host);
    size_t bytes = mm_rtl_ctl_bytes((uint32_t)R.n);
    R.ctl = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(fds), 0);
    if (R.ctl == MAP_FAILED || R.ctl->magic != MM_RTL_CTL_MAGIC || R.ctl->nranks != (uint32_t)R.n) {
        H->log(MM_LOG_ERROR, "rtl: MESHMEM_RTL_FD=%s is not this job's control block", fds);
        R.ctl = NULL;
        return -1;
    }
    R.me = &R.ctl->rank[R.rank];
    /* the region */
    R.mbox = 0;
    R.credit = mm_rtl_align((size_t)R.n * MM_RTL_AM_SLOTS * MM_RTL_SLOT);
    R.consumed = R.credit + (size_t)R.n * 8;
    R.stage = mm_rtl_align(R.consumed + (size_t)R.n * 8);
    R.coll = R.stage + MM_RTL_STAGE;
    R.region_bytes = R.coll + MM_RTL_COLL;
    int rfd = memfd_create("meshmem-rtl", 0);
    if (rfd < 0 || ftruncate(rfd, (off_t)R.region_bytes) != 0) {
        H->log(MM_LOG_ERROR, "rtl: cannot create the transport's region: %s", strerror(errno));
        return -1;
    }
    R.region = mmap(NULL, R.region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
    R.sent = calloc((size_t)R.n, sizeof(uint64_t));
    R.got = calloc((size_t)R.n, sizeof(uint64_t));
    R.asm_buf = calloc((size_t)R.n, sizeof(char *));
    if (R.region == MAP_FAILED || !R.sent || !R.got || !R.asm_buf) {
        H->log(MM_LOG_ERROR, "rtl: out of memory");
        return -1;
    }
    /* node addresses: segment, static data, region, the same on every rank (one layout) */
    int segfds[2];
    H->seg_fds(segfds);
    R.base[0] = 0;
    R.base[1] = mm_rtl_align(g->seg_bytes);
    R.base[2] = R.base[1] + mm_rtl_align(g->data_size);
    R.me->pid = (int32_t)getpid();
    R.me->fd[0] = segfds[0];
    R.me->fd[1] = g->data_size ? segfds[1] : -1;
    R.me->fd[2] = rfd;
    R.me->bytes[0] = g->seg_bytes;
    R.me->bytes[1] = g->data_size;
    R.me->bytes[2] = R.region_bytes;
    memcpy(R.me->base, R.base, sizeof(R.base));
    atomic_store(&R.me->state, MM_RTL_R_JOINED);
    atomic_fetch_add(&R.ctl->bell, 1);
    syscall(SYS_futex, (uint32_t *)&R.ctl->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    /* the simulator's configuration: its clock, or its one line */
    while (atomic_load(&R.ctl->sim_state) == MM_RTL_S_STARTING)
        mm_rtl_block();
    mm_rtl_check();
    /* every rank joined: one step of the engine (a barrier) before the first operation */
    mm_rtl_do(&(mm_rtl_desc){.op = MM_RTL_OP_BARRIER});
    H->log(MM_LOG_DEBUG, "rtl: rank %d is node %d of the simulated engine (%.0f MHz)", R.rank,
           R.rank, R.ctl->clock_mhz);
    return 0;
}

static void mm_rtl_fini(void)
{
    if (R.ctl == NULL)
        return;
    mm_rtl_quiet();
    atomic_store(&R.me->state, MM_RTL_R_GONE);
    atomic_fetch_add(&R.ctl->bell, 1);
    syscall(SYS_futex, (uint32_t *)&R.ctl->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    for (int s = 0; s < R.n; s++)
        free(R.asm_buf[s]);
    free(R.asm_buf);
    free(R.sent);
    free(R.got);
    R.ctl = NULL;
}

/* the engine reaches every rank of a job started by meshrun --rtl (init says so otherwise) */
static bool mm_rtl_reaches(const mm_boot_card_t *cards, int a, int b)
{
    (void)cards, (void)a, (void)b;
    return true;
}

static const mm_tp_ops_t mm_rtl_ops = {
    .name = "rtl",
    .reaches = mm_rtl_reaches,
    .init = mm_rtl_init,
    .fini = mm_rtl_fini,
    .put = mm_rtl_put,
    .put_nbi = mm_rtl_put,
    .get = mm_rtl_get,
    .get_nbi = mm_rtl_get,
    .amo = mm_rtl_amo,
    .fence = mm_rtl_fence,
    .quiet = mm_rtl_quiet,
    .am_eager_max = MM_RTL_FRAG,
    .am_send = mm_rtl_am_send,
    .am_recv = mm_rtl_am_recv,
    .am_keep = mm_rtl_am_keep,
    .am_drop = mm_rtl_am_drop,
    .progress = mm_rtl_progress,
    .host = mm_rtl_host,
    .coll = &mm_rtl_coll_ops,
    .put_signal = mm_rtl_put_signal,
    .wtime = mm_rtl_wtime,
    .paced = true,
};

__attribute__((visibility("default"))) const mm_tp_ops_t *meshmem_net_plugin(
    const mm_plugin_host_t *host)
{
    if (host->abi != MM_PLUGIN_ABI) {
        host->log(MM_LOG_ERROR,
                  "meshmem_init: libmeshmem_rtl.so is from another build than "
                  "libmeshmem (interface %d, expected %d)",
                  MM_PLUGIN_ABI, host->abi);
        return NULL;
    }
    H = host;
    return &mm_rtl_ops;
}
