/**
 * @file mm_tp_wire.h
 * @brief What the runtime's own active messages to a network peer carry (mm_tp_am.c: a post
 * of a runtime line, a put with signal), and the checks a receiver makes before it writes
 * anything: pure, so that the fuzz targets (tests/fuzz/tp_post_fuzz.c, tp_signal_fuzz.c) call
 * the very functions the receiver calls. Every field comes from another process.
 *
 * Addresses travel as (region, offset): every rank's segment and static data have one layout
 * and one size (checked at init), so an offset names the same place at the target.
 */
#ifndef MM_TP_WIRE_H
#define MM_TP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The regions a message may write: the target's heap segment, its static data. */
enum { MM_TP_SEG = 0, MM_TP_DATA = 1 };

/** @return true when [@p off, @p off + @p len) lies in @p region (MM_TP_SEG, of @p seg_bytes,
 * or MM_TP_DATA, of @p data_size); arranged so that no sum of untrusted values can wrap. */
static inline bool mm_tp_wire_within(uint32_t region, uint64_t off, uint64_t len, size_t seg_bytes,
                                     size_t data_size)
{
    if (region > MM_TP_DATA)
        return false;
    size_t size = region == MM_TP_DATA ? data_size : seg_bytes;
    return off <= size && len <= size - off;
}

/**
 * A post (MM_TP_AM_POST): this header, then body_len bytes for the line (after its sequence
 * word), then extra_len bytes for extra_region at extra_off. The receiver writes the extra
 * bytes, the body, then raises the sequence word, as a writer of the node would.
 */
typedef struct {
    uint64_t line; /* offset of the line in the target's segment */
    uint64_t seq;
    uint64_t extra_off; /* offset of the extra bytes in their region */
    uint64_t extra_len;
    uint32_t body_len;
    uint32_t extra_region;
} mm_tp_post_t;

/**
 * @return true when post @p h, which arrived with @p length data bytes, writes only inside this
 * rank's memory: the 8-aligned line and its body inside the segment of @p seg_bytes, the extra
 * bytes inside their region (the segment, or static data of @p data_size bytes), and the data
 * exactly body + extra.
 */
static inline bool mm_tp_post_valid(const mm_tp_post_t *h, size_t length, size_t seg_bytes,
                                    size_t data_size)
{
    if (seg_bytes < 8 || h->line % 8 || h->line > seg_bytes - 8 ||
        h->body_len > seg_bytes - 8 - h->line)
        return false;
    if (!mm_tp_wire_within(h->extra_region, h->extra_off, h->extra_len, seg_bytes, data_size))
        return false;
    return length >= h->body_len && length - h->body_len == h->extra_len;
}

/**
 * A put with signal (MM_TP_AM_SIGNAL): this header, then len bytes for region at off; once
 * they are in place, @c op (MESHMEM_SIGNAL_SET or _ADD) with @c value on the 64-bit word at
 * sig_off of sig_region.
 */
typedef struct {
    uint64_t off;
    uint64_t len;
    uint64_t sig_off;
    uint64_t value;
    uint32_t region; /* MM_TP_SEG or MM_TP_DATA */
    uint32_t sig_region;
    uint32_t op; /* 0: set, 1: add (MESHMEM_SIGNAL_SET, _ADD) */
    uint32_t pad;
} mm_tp_signal_t;

/**
 * @return true when put with signal @p h, which arrived with @p length data bytes, carries
 * exactly its len bytes into its region, and its signal is an 8-aligned word inside its region
 * with an op of the two.
 */
static inline bool mm_tp_signal_valid(const mm_tp_signal_t *h, size_t length, size_t seg_bytes,
                                      size_t data_size)
{
    if (length != h->len || h->op > 1 ||
        !mm_tp_wire_within(h->region, h->off, h->len, seg_bytes, data_size))
        return false;
    return h->sig_off % 8 == 0 &&
           mm_tp_wire_within(h->sig_region, h->sig_off, 8, seg_bytes, data_size);
}

#endif /* MM_TP_WIRE_H */
