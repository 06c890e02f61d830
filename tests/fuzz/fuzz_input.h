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

#endif /* FUZZ_INPUT_H */
