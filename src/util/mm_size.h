/**
 * @file mm_size.h
 * @brief Sizes and counts as users write them ("64", "4K", "1.5M", "2GiB", "2^24"): the one
 * parser of the library's variables (MESHMEM_HEAP_SIZE ...), meshrun's --heap and the
 * applications' counts, and the one formatter that writes them back.
 *
 * src/util holds helpers that need only libc and no runtime state, header-only, so that the
 * library, meshrun and the case-study applications (their mpicc-built OpenMPI twins too)
 * include the very same code.
 */
#ifndef MM_SIZE_H
#define MM_SIZE_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * @brief Parse a size or count: a number (decimal, exact as an integer; a fraction such as 1.5
 * or a C floating constant, rounded down once scaled), or 2^N; then, optionally after spaces,
 * a binary unit K, M, G or T (any case) with an optional i and an optional B ("64KiB", "2MB",
 * "8B"); spaces around. A negative, NaN or infinite value, a stray character, or a result past
 * INT64_MAX is not a size. python/meshmem/cli/options.py's parse_size reads the same syntax.
 * @return 0 and *out, or -1 (*out untouched) when @p text is not a size.
 */
static inline int mm_parse_size(const char *text, int64_t *out)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return -1;
    char *end;
    errno = 0;
    uint64_t whole = 0; /* the exact value when the number is an integer or 2^N */
    double frac = -1;   /* else the number, as strtod reads it */
    if (p[0] == '2' && p[1] == '^') {
        if (!isdigit((unsigned char)p[2]))
            return -1;
        unsigned long e = strtoul(p + 2, &end, 10);
        if (errno || e > 62)
            return -1;
        whole = UINT64_C(1) << e;
    } else {
        whole = strtoull(p, &end, 10); /* (it would wrap a minus sign: strtod takes those) */
        if (*p == '-' || end == p || errno || (*end && strchr(".eExXpP", *end))) {
            errno = 0;
            frac = strtod(p, &end);
            if (end == p || errno || !(frac >= 0)) /* NaN too: converting it is undefined */
                return -1;
        }
    }
    while (isspace((unsigned char)*end))
        end++;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        end++;
        if (toupper((unsigned char)*end) == 'I') /* KiB, MiB */
            end++;
    }
    if (toupper((unsigned char)*end) == 'B')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return -1;
    if (frac >= 0) {
        double v = frac * (double)(UINT64_C(1) << shift);
        if (v >= 0x1p63) /* past INT64_MAX: the conversion below would be undefined */
            return -1;
        *out = (int64_t)v;
        return 0;
    }
    if (whole > (uint64_t)INT64_MAX >> shift)
        return -1;
    *out = (int64_t)(whole << shift);
    return 0;
}

/**
 * @brief Write @p bytes as a size mm_parse_size reads back (the project's spelling: 8, 1K, 64K,
 * 1M, 40G; one decimal where it is not a whole number of the unit: 21.4G) into @p buf.
 * @return @p buf.
 */
static inline char *mm_format_size(char *buf, size_t len, uint64_t bytes)
{
    static const char units[] = "KMGT";
    int u = -1;
    double v = (double)bytes;
    while (u < 3 && v >= 1024.0) {
        v /= 1024.0;
        u++;
    }
    if (u < 0 || v >= 8388607.95) /* 8388608.0T would be 2^63: past what it parses back to */
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else if (v == (double)(uint64_t)v)
        snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
    else
        snprintf(buf, len, "%.1f%c", v, units[u]);
    return buf;
}

#endif /* MM_SIZE_H */
