/**
 * @file mm_ucx_post.h
 * @brief The headers of a post and of a large put or get between hosts (mm_tp_ops.h's post and
 * transfers over UCX active messages), and the checks a receiver makes before it writes
 * anything: pure, so that the fuzz target (tests/fuzz/ucx_post_fuzz.c) calls the very functions
 * the transport calls.
 *
 * Wire format of a post: its header, then body_len bytes for the line (after its sequence word),
 * then extra_len bytes for extra_region at extra_off. Every field comes from another process.
 */
#ifndef MM_UCX_POST_H
#define MM_UCX_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The regions a post may write: the target's heap segment, its static data. */
enum { MM_UCX_SEG = 0, MM_UCX_DATA = 1, MM_UCX_REGIONS = 2 };

/** What a post carries ahead of its data (the body, then the extra bytes). */
typedef struct {
    uint64_t line;       /* offset of the line in the target's segment */
    uint64_t seq;
    uint64_t extra_off;  /* offset of the extra bytes in their region */
    uint64_t extra_len;
    uint32_t body_len;
    uint32_t extra_region;
} mm_ucx_post_t;

/**
 * @return true when post @p h, which arrived with @p length data bytes, writes only inside this
 * rank's memory: the 8-aligned line and its body inside the segment of @p seg_bytes, the extra
 * bytes inside their region (the segment, or static data of @p data_size bytes), and the data
 * exactly body + extra. Each comparison is arranged so that no sum of untrusted values can wrap.
 */
static inline bool mm_ucx_post_valid(const mm_ucx_post_t *h, size_t length, size_t seg_bytes,
                                     size_t data_size)
{
    if (h->extra_region > MM_UCX_DATA || seg_bytes < 8)
        return false;
    size_t region = h->extra_region == MM_UCX_DATA ? data_size : seg_bytes;
    if (h->line % 8 || h->line > seg_bytes - 8 || h->body_len > seg_bytes - 8 - h->line)
        return false;
    if (h->extra_off > region || h->extra_len > region - h->extra_off)
        return false;
    return length >= h->body_len && length - h->body_len == h->extra_len;
}

/**
 * What a large put or get between hosts carries (mm_ucx.c: such transfers travel as active
 * messages, which UCX moves in one eager message or by rendezvous, where its TCP transport
 * emulates RMA in small pieces). A put (MM_UCX_AM_PUT): this header, then len data bytes for
 * region at off. A get request (MM_UCX_AM_GET): this header alone; the target answers with a
 * reply (MM_UCX_AM_GET_REPLY) carrying reply_dest, token and len back, then the len bytes.
 */
typedef struct {
    uint64_t off;        /* offset in the target's region */
    uint64_t len;
    uint64_t reply_dest; /* a get: where the data goes in the requester (its own address) */
    uint64_t token;      /* a get: the requester's completion counter (its own address) */
    uint32_t region;     /* MM_UCX_SEG or MM_UCX_DATA */
    int32_t  src;        /* the rank that sent it: where acknowledgements and replies go */
} mm_ucx_rma_t;

/**
 * @return true when large transfer @p h, which arrived with @p length data bytes (0 for a get
 * request), stays inside this rank's memory (its region, the segment of @p seg_bytes or static
 * data of @p data_size bytes), carries exactly its len bytes, and names a sender in
 * [0, @p nranks). Arranged, as mm_ucx_post_valid, so that no sum of untrusted values can wrap.
 */
static inline bool mm_ucx_rma_valid(const mm_ucx_rma_t *h, size_t length, bool is_get,
                                    size_t seg_bytes, size_t data_size, int nranks)
{
    if (h->region > MM_UCX_DATA || h->src < 0 || h->src >= nranks)
        return false;
    size_t region = h->region == MM_UCX_DATA ? data_size : seg_bytes;
    if (h->off > region || h->len > region - h->off)
        return false;
    return length == (is_get ? 0 : h->len);
}

/**
 * A completion request (MM_UCX_AM_COMPLETE: are the sender's first count puts that travelled
 * as messages in place?) and its answer (MM_UCX_AM_DONE: they are), both this header alone.
 */
typedef struct {
    uint64_t count;
    int32_t  from;
    uint32_t pad;
} mm_ucx_done_t;

/** @return true when completion request or answer @p h, which arrived with @p length data
 * bytes (none), names a rank in [0, @p nranks) and a count of at least one. */
static inline bool mm_ucx_done_valid(const mm_ucx_done_t *h, size_t length, int nranks)
{
    return length == 0 && h->from >= 0 && h->from < nranks && h->count != 0;
}

/** The signal operations of a put with signal (MESHMEM_SIGNAL_SET and _ADD's values). */
enum { MM_UCX_SIG_SET = 0, MM_UCX_SIG_ADD = 1 };

/**
 * What a put with signal to another host carries (MM_UCX_AM_PUT_SIGNAL): the put's header
 * (its data follows, put.len bytes for put.region at put.off), then where the 64-bit signal
 * word is and what to do to it once the data is in place.
 */
typedef struct {
    mm_ucx_rma_t put;
    uint64_t     sig_off;    /* offset of the signal word in its region */
    uint64_t     value;
    uint32_t     sig_region; /* MM_UCX_SEG or MM_UCX_DATA */
    uint32_t     op;         /* MM_UCX_SIG_SET or MM_UCX_SIG_ADD */
} mm_ucx_putsig_t;

/**
 * @return true when put with signal @p h, which arrived with @p length data bytes, is a valid
 * put (mm_ucx_rma_valid) whose signal is an 8-aligned word inside its region and whose op is
 * one of the two.
 */
static inline bool mm_ucx_putsig_valid(const mm_ucx_putsig_t *h, size_t length,
                                       size_t seg_bytes, size_t data_size, int nranks)
{
    if (!mm_ucx_rma_valid(&h->put, length, false, seg_bytes, data_size, nranks))
        return false;
    if (h->sig_region > MM_UCX_DATA || h->op > MM_UCX_SIG_ADD)
        return false;
    size_t region = h->sig_region == MM_UCX_DATA ? data_size : seg_bytes;
    return region >= 8 && h->sig_off % 8 == 0 && h->sig_off <= region - 8;
}

/**
 * What a collective's large message carries ahead of its data (MM_UCX_AM_MSG: mm_tp_ops.h's
 * msg_send): the tag its receiver matches on, the sender, and the data's length.
 */
typedef struct {
    uint64_t tag;
    uint64_t len;
    int32_t  src;
    uint32_t pad;
} mm_ucx_msg_t;

/** @return true when message header @p h, which arrived with @p length data bytes, names a
 * sender in [0, @p nranks) and carries exactly its len bytes. */
static inline bool mm_ucx_msg_valid(const mm_ucx_msg_t *h, size_t length, int nranks)
{
    return h->src >= 0 && h->src < nranks && h->len == length && h->pad == 0;
}

#endif /* MM_UCX_POST_H */
