/* Reading a fuzz input: little-endian fields, as the targets' input formats say. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/** @return the 2-byte little-endian value at @p p (a small size: data, segment, region). */
static inline size_t take16(const uint8_t *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8;
}

/** What the UCX transfer targets' inputs give after their header: the data length, the segment
 * and static data sizes (2 bytes each) and the number of ranks (1 byte). */
typedef struct {
    size_t length, seg_bytes, data_size;
    int nranks;
} fuzz_regions_t;

#define FUZZ_REGIONS_BYTES 7

/** @return the sizes at @p p, the length cut to the @p avail data bytes the input has (the
 * message carries what the input has). */
static inline fuzz_regions_t take_regions(const uint8_t *p, size_t avail)
{
    fuzz_regions_t r = {take16(p), take16(p + 2), take16(p + 4), p[6]};
    if (r.length > avail)
        r.length = avail;
    return r;
}

#endif /* FUZZ_INPUT_H */
