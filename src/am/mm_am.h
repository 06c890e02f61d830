/**
 * @file mm_am.h
 * @brief Active-message channels: the region of the segment they live in, and the runtime's
 * entry points (init, quiesce, fini) called by mm_init.c.
 *
 * Region (at mm_g.am_offset in every rank's segment, mm_am_region_bytes(nranks) bytes):
 *   mm_am_reg_t   reg                       written by the owner (registration check)
 *   mm_am_ctrl_t  ctrl[nranks]              ctrl[p] written by rank p only
 *   slot          req[nranks][slots]        req[p]: requests from rank p (written by p)
 *   slot          rep[nranks][slots]        rep[p]: replies from rank p (written by p)
 * See mm_am.c for the protocol on these fields.
 */
#ifndef MM_AM_H
#define MM_AM_H

#include "mm_am_wire.h"
#include "mm_core.h"

/** The owner's published registration, compared by every peer in meshmem_am_register. */
typedef struct {
    uint8_t kinds[MM_AM_USER_HANDLERS];
    uint8_t flags[MM_AM_USER_HANDLERS];
    int8_t nargs[MM_AM_USER_HANDLERS];
    int32_t ok;        /* the owner's own entries were valid */
    int32_t bad_index; /* the first invalid entry's index when not ok */
} mm_am_reg_t;

/** Credits written by rank p into the owner's ctrl[p]: a line of its own. */
typedef struct {
    MM_ALIGNED _Atomic uint64_t req_done; /* owner's requests that p has finished handling */
} mm_am_ctrl_t;
static_assert(sizeof(mm_am_ctrl_t) == MM_CACHELINE, "one line per writer");

/** @return bytes of one ring slot (header, 16 arguments, the medium payload; 64-multiple). */
size_t mm_am_slot_bytes(void);

/** @return bytes of the AM region of one segment for a job of @p nranks ranks (config). */
size_t mm_am_region_bytes(int nranks);

/** @brief Set up channels, internal handlers, the progress hook and thread (init). */
int mm_am_init(void);

/** @brief Before finalize's barrier: wait until every request of this rank was handled. */
void mm_am_quiesce(void);

/** @brief After finalize's barrier: stop the progress thread and the hook. */
void mm_am_fini(void);

#endif /* MM_AM_H */
