/**
 * @file mm_ucx_post.h
 * @brief The header of a post between hosts (mm_net.h's post over UCX active messages), and the
 * check a receiver makes before it writes anything: pure, so that the fuzz target
 * (tests/fuzz/ucx_post_fuzz.c) calls the very function the transport calls.
 *
 * Wire format: this header, then body_len bytes for the line (after its sequence word), then
 * extra_len bytes for extra_region at extra_off. Every field comes from another process.
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

#endif /* MM_UCX_POST_H */
