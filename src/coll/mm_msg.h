/**
 * @file mm_msg.h
 * @brief Messages between team members inside a collective: the two protocols of OPTWEB.
 *
 * A message of collective s from member i to member j travels in one of three ways, chosen by
 * the sender from its size; the receiver learns which from i's DATA flag line:
 *   inline  (<= MM_MSG_INLINE bytes): in the DATA line itself, one cache line per message;
 *   eager   (<= mm_g.eager_bytes): copied by i into its channel in j's slot (parity s&1), then
 *           the DATA line; j copies it out. One step, no round trip.
 *   rendezvous (larger): the DATA line carries a descriptor of i's buffer, which j can address
 *           directly (symmetric heap, static data, or staging memory in i's segment); j copies
 *           once, straight into its destination, then posts DONE to i. i must not touch the
 *           buffer until every such DONE arrived (mm_msg_send_complete).
 * Between hosts (mm_tp.h) the same protocol runs over the network transport: an inline message
 * is one post of its line, an eager one one post of the channel's bytes and the line together,
 * and a larger one is pushed (MM_MSG_PUSH): the sender hands its buffer to the network as one
 * active message tagged with the team and the collective (mm_msg.c matches them) and posts the
 * DATA line with the size; the receiver takes the message straight into its destination
 * (mm_msg_post_pushed) and posts nothing back; the sender completes when the network has sent
 * it (mm_msg_send_complete). With MESHMEM_NET_PUSH=0 a
 * larger message between hosts is a rendezvous as on a node: the receiver gets the sender's
 * buffer (straight into its destination in mm_msg_recv) before it posts DONE.
 * Posting follows the room check of mm_team.h, so channels and lines are never overwritten
 * before they are read.
 *
 * Buffers that are not in shared memory (a user's malloc or stack) are copied into this
 * member's staging area before a rendezvous send (one local copy); staging lives in a private
 * arena at the end of the segment, one growable buffer per team.
 */
#ifndef MM_MSG_H
#define MM_MSG_H

#include "mm_team.h"

#define MM_MSG_INLINE 48 /* payload bytes that fit in a DATA line next to the header word */

/* DATA line payload[0]: bytes in the low 40 bits, the call's tag in the next 16, the protocol
 * in the top 8 (the wire format of every collective message, mm_msg.c's and the line path's,
 * mm_coll_line.c). The tag's low 16 bits say which collective the sender is in and with
 * which root (its low bits), operator and type (mm_team.h's MM_CALL_TAG, mm_coll_line.c's
 * MM_LINE_TAG; 0 where a path sets none): the receiver compares the whole word with the one
 * it expects, so that arguments that differ between ranks cost no more to catch than
 * differing counts. A root that differs in its higher bits only is caught by the whole tag
 * the "completed" line and the call records carry (mm_coll_sync.c). */
enum { MM_MSG_INLINED = 1, MM_MSG_EAGER = 2, MM_MSG_RNDV = 3, MM_MSG_PUSH = 4 };
#define MM_MSG_BYTES_BITS    40
#define MM_MSG_HDR(proto, n) (((uint64_t)(proto) << 56) | (uint64_t)(n))
#define MM_MSG_PROTO(h)      ((int)((h) >> 56))
#define MM_MSG_BYTES(h)      ((size_t)((h) & ((UINT64_C(1) << MM_MSG_BYTES_BITS) - 1)))
#define MM_MSG_TAG(h)        ((unsigned)((h) >> MM_MSG_BYTES_BITS) & 0xffffu)

/** Where a peer finds one of this rank's buffers. */
enum { MM_DESC_NONE = 0, MM_DESC_HEAP = 1, MM_DESC_DATA = 2, MM_DESC_SEG = 3 };

typedef struct {
    uint64_t kind;
    uint64_t offset; /* from the start of the region named by kind */
} mm_desc_t;

/*
 * The receiver's checks of what a sender wrote (a DATA line is another process's word): pure,
 * so that the fuzz target (tests/fuzz/coll_msg_fuzz.c) runs the very code the receiver runs.
 */

/** @return true when DATA header @p h names a protocol and a size it can carry: an inline
 * message fits the line (MM_MSG_INLINE), an eager one the channel (@p eager_bytes). A
 * rendezvous size is checked with its descriptor (mm_desc_valid), a pushed one against the
 * message that arrives (mm_msg_post_pushed). */
static inline bool mm_msg_hdr_valid(uint64_t h, size_t eager_bytes)
{
    switch (MM_MSG_PROTO(h)) {
    case MM_MSG_INLINED: return MM_MSG_BYTES(h) <= MM_MSG_INLINE;
    case MM_MSG_EAGER: return MM_MSG_BYTES(h) <= eager_bytes;
    case MM_MSG_RNDV:
    case MM_MSG_PUSH: return true;
    default: return false;
    }
}

/** @return true when descriptor @p d of @p len bytes lies inside the region it names, of the
 * sizes given (the owner's heap, static data and segment: the same on every rank). */
static inline bool mm_desc_valid(const mm_desc_t *d, size_t len, size_t heap, size_t data,
                                 size_t seg)
{
    size_t size = d->kind == MM_DESC_HEAP   ? heap
                  : d->kind == MM_DESC_DATA ? data
                  : d->kind == MM_DESC_SEG  ? seg
                                            : 0;
    return d->kind != MM_DESC_NONE && d->kind <= MM_DESC_SEG && d->offset <= size &&
           len <= size - d->offset;
}

/**
 * @brief Describe [buf, buf+len) for peers. @return true when peers can address it directly
 * (symmetric heap, static data or this rank's segment), false for private memory.
 */
bool mm_desc_of(const void *buf, size_t len, mm_desc_t *desc);

/** @return @p desc (of @p len bytes) of world rank @p owner, as addressable here (a rank of
 * this node); ends the job when the descriptor does not lie in the rank's memory. */
void *mm_desc_resolve(const mm_desc_t *desc, size_t len, int owner);

/** @return the symmetric address (mm_tp.h) of @p desc (@p len bytes) from world rank
 * @p owner: where a transport finds it at the owner; checked as mm_desc_resolve. */
void *mm_desc_sym(const mm_desc_t *desc, size_t len, int owner);

/** @brief Set up the staging arena [base, base+bytes) of this rank (init). @return 0 or -1. */
int mm_msg_init(void *base, size_t bytes);

/** @brief Release the staging arena (finalize). */
void mm_msg_fini(void);

/** @return the bytes of the largest staging buffer a team can get. */
size_t mm_msg_stage_capacity(void);

/**
 * @brief The bytes per block of one round of a rooted collective that moves @p blocks blocks
 * of @p len bytes (elements of @p esize bytes) through staging: @p len at or below the eager
 * size or without staging (one round), else at most an equal share of the staging capacity.
 * The same on every member (it depends on the arguments and the staging size alone, which
 * init checks is the same everywhere), so that members cut the same rounds untold.
 */
size_t mm_msg_round_bytes(size_t len, size_t esize, int blocks);

/**
 * @brief A staging buffer of at least @p bytes for team @p t (kept per team, grown on demand).
 * @return it, or NULL when @p bytes exceed mm_msg_stage_capacity().
 */
void *mm_msg_stage(struct meshmem_team *t, size_t bytes);

/** @brief Release team @p t's staging buffer and its kept receive buffer (team destroy). */
void mm_msg_stage_release(struct meshmem_team *t);

/** @brief Free team @p t's kept receive buffer (mm_msg_peek's, for messages from other hosts). */
void mm_msg_rx_release(struct meshmem_team *t);

/**
 * @brief Make @p buf addressable for a rendezvous: its descriptor when it is in shared memory;
 * otherwise copy it into @p stage (which must hold @p len bytes) and describe that.
 * @return the buffer peers will read (buf or stage).
 */
const void *mm_msg_expose(const void *buf, size_t len, void *stage, mm_desc_t *desc);

/** @return true when a message larger than the eager size to member @p dst of team @p t is
 * pushed (MM_MSG_PUSH: @p buf may be any memory, it needs no descriptor). */
bool mm_msg_pushed_to(struct meshmem_team *t, int dst);

/**
 * @brief Send @p n bytes to member @p dst in collective @p seq. Inline and eager messages are
 * copied now; a larger one is sent by @p desc (describing exactly @p buf), and @p buf must stay
 * unchanged until mm_msg_send_complete(). Does not wake @p dst (mm_coll_wake_all after a batch).
 * @return true when @p buf is still in use: sent by descriptor (a DONE will come back) or
 * pushed and not yet sent; either way mm_msg_sent_wait() (or mm_msg_send_complete()) tells when
 * it is free.
 */
bool mm_msg_send(struct meshmem_team *t, uint64_t seq, int dst, const void *buf, size_t n,
                 const mm_desc_t *desc);

/** @brief A lone send of collective @p seq: mm_msg_send(), the wake of @p dst, and the wait
 * until @p buf may be reused (a member's part of a rooted step: gather, reduce). */
void mm_msg_send_wait(struct meshmem_team *t, uint64_t seq, int dst, const void *buf, size_t n,
                      const mm_desc_t *desc);

/** A received message, before it is released. */
typedef struct {
    const void *data; /* the bytes, wherever they are (line, channel, sender's buffer) */
    size_t bytes;
    bool by_desc;       /* the sender waits for our DONE */
    void *owned;        /* a copy fetched from a sender on another host (kept or freed at
                          * release) */
    size_t owned_bytes; /* its size */
} mm_msg_t;

/** @brief Wait for member @p src's message of collective @p seq; @return it (not copied). */
mm_msg_t mm_msg_peek(struct meshmem_team *t, uint64_t seq, int src);

/** @brief Done with a peeked message: tell a rendezvous sender its buffer is free. */
void mm_msg_release(struct meshmem_team *t, uint64_t seq, int src, const mm_msg_t *m);

/**
 * @brief Receive member @p src's message of collective @p seq into @p buf (at most @p cap
 * bytes; a longer message ends the job with an error naming @p call).
 * @return the bytes received.
 */
size_t mm_msg_recv(const char *call, struct meshmem_team *t, uint64_t seq, int src, void *buf,
                   size_t cap);

/** @brief mm_msg_recv of exactly @p len bytes: a shorter message ends the job too. */
void mm_msg_recv_exact(const char *call, struct meshmem_team *t, uint64_t seq, int src, void *buf,
                       size_t len);

/** @brief End the job: team member @p src sent @p got bytes where @p want were expected (the
 * members passed different counts to @p call). */
void mm_msg_counts_differ(const char *call, int src, size_t got, size_t want)
    __attribute__((noreturn, cold));

/**
 * @brief Post the receive of member @p src's pushed message of collective @p seq (@p src on
 * another host, mm_msg_pushed_to(t, src), and the message larger than the eager size) of
 * exactly @p n bytes into @p buf, before it is sent: the data flows into @p buf while this
 * member works. *@p pending counts up now and down once the data is there
 * (mm_msg_posted_wait).
 * The message's DATA line must still be taken: mm_msg_take_posted().
 */
void mm_msg_post_pushed(struct meshmem_team *t, uint64_t seq, int src, void *buf, size_t n,
                        _Atomic uint64_t *pending);

/** @brief Wait for the DATA line of the message posted by mm_msg_post_pushed(); a line that
 * announces another protocol or size ends the job (the members passed different counts to
 * @p call). */
void mm_msg_take_posted(const char *call, struct meshmem_team *t, uint64_t seq, int src, size_t n);

/** @brief Progress until the receives mm_msg_post_pushed() counted in *@p pending are in. */
void mm_msg_posted_wait(_Atomic uint64_t *pending);

/** @brief mm_msg_sent_wait() for every member in @p sent_by_desc (a bitmap over members). */
void mm_msg_send_complete(struct meshmem_team *t, uint64_t seq, const uint8_t *sent_by_desc);

/** @brief Wait until the buffer of a message of collective @p seq that mm_msg_send() to member
 * @p dst reported in use is free: its DONE, or the sends of the team's pushed messages. */
void mm_msg_sent_wait(struct meshmem_team *t, uint64_t seq, int dst);

#endif /* MM_MSG_H */
