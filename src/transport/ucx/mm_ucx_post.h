/**
 * @file mm_ucx_post.h
 * @brief The headers of the UCX transport's own active messages (a large put or get between
 * hosts, the completion of the puts that travelled as messages, the prefix of the runtime's
 * messages) and the checks a receiver makes before it acts on one: pure, so that the fuzz
 * target (tests/fuzz/ucx_rma_fuzz.c) calls the very functions the transport calls. Every field
 * comes from another process.
 */
#ifndef MM_UCX_POST_H
#define MM_UCX_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The regions a large put or get reaches: the target's heap segment, its static data. */
enum { MM_UCX_SEG = 0, MM_UCX_DATA = 1, MM_UCX_REGIONS = 2 };

/**
 * What a large put or get between hosts carries (mm_ucx.c: such transfers travel as active
 * messages, which UCX moves in one eager message or by rendezvous, where its TCP transport
 * emulates RMA in small pieces). A put (MM_UCX_AM_PUT): this header, then len data bytes for
 * region at off. A get request (MM_UCX_AM_GET): this header alone; the target answers with a
 * reply (MM_UCX_AM_GET_REPLY) carrying reply_dest, token and len back, then the len bytes.
 */
typedef struct {
    uint64_t off; /* offset in the target's region */
    uint64_t len;
    uint64_t reply_dest; /* a get: where the data goes in the requester (its own address) */
    uint64_t token;      /* a get: the requester's completion counter (its own address) */
    uint32_t region;     /* MM_UCX_SEG or MM_UCX_DATA */
    int32_t src;         /* the rank that sent it: where acknowledgements and replies go */
} mm_ucx_rma_t;

/**
 * @return true when large transfer @p h, which arrived with @p length data bytes (0 for a get
 * request), stays inside this rank's memory (its region, the segment of @p seg_bytes or static
 * data of @p data_size bytes), carries exactly its len bytes, and names a sender in
 * [0, @p nranks). Arranged so that no sum of untrusted values can wrap.
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
    int32_t from;
    uint32_t pad;
} mm_ucx_done_t;

/** @return true when completion request or answer @p h, which arrived with @p length data
 * bytes (none), names a rank in [0, @p nranks) and a count of at least one. */
static inline bool mm_ucx_done_valid(const mm_ucx_done_t *h, size_t length, int nranks)
{
    return length == 0 && h->from >= 0 && h->from < nranks && h->count != 0;
}

/** The most header bytes of a runtime message (mm_tp_ops.h's am_send). */
#define MM_UCX_RT_HDR_MAX 256

/**
 * What this plugin puts ahead of a runtime message's own header (MM_UCX_AM_RUNTIME): who sent
 * it, the runtime's id of the message and the flags it was sent with (MM_TP_AM_*: a message
 * sent as a put is counted when it lands).
 */
typedef struct {
    int32_t src;
    uint16_t id;
    uint16_t flags;
} mm_ucx_rt_t;

/** @return true when runtime prefix @p h names a sender in [0, @p nranks) (its id is the
 * runtime's to check) and no flag beyond the three. */
static inline bool mm_ucx_rt_valid(const mm_ucx_rt_t *h, int nranks)
{
    return h->src >= 0 && h->src < nranks && h->flags < 8;
}

#endif /* MM_UCX_POST_H */
