/**
 * @file am_test.h
 * @brief What the active-message tests share: deterministic argument and payload patterns, and
 * a wait on a local counter that handlers advance (meshmem's waits run the handlers).
 */
#ifndef AM_TEST_H
#define AM_TEST_H

#include "meshmem.h"
#include "meshmem_am.h"
#include "mm_test.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/** @return argument @p i of a message with @p nargs arguments from @p src to @p dst. */
static inline uint64_t am_arg(int src, int dst, int nargs, int i)
{
    return ((uint64_t)(src + 1) << 48) ^ ((uint64_t)(dst + 1) << 32) ^
           (uint64_t)(nargs * 131 + i * 7919 + 1);
}

/** @return byte @p j of a payload of @p n bytes from @p src. */
static inline unsigned char am_byte(int src, size_t n, size_t j)
{
    return (unsigned char)(src * 31 + n * 7 + j * 13 + 1);
}

static inline void am_fill(unsigned char *p, int src, size_t n)
{
    for (size_t j = 0; j < n; j++)
        p[j] = am_byte(src, n, j);
}

static inline int am_check_payload(const unsigned char *p, int src, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (p[j] != am_byte(src, n, j))
            return 0;
    return 1;
}

/** @brief Wait (running handlers) until the local counter @p c reaches @p want. */
static inline void am_wait_ge(_Atomic int64_t *c, int64_t want)
{
    int64_t w = want;
    CHECK(meshmem_wait_until((void *)c, MESHMEM_INT64, MESHMEM_CMP_GE, &w) == MESHMEM_OK);
}

#endif /* AM_TEST_H */
