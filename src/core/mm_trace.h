/**
 * @file mm_trace.h
 * @brief Tracing of communication calls for the virtual-clock replay (meshrun --fabric).
 *
 * When MESHMEM_TRACE_DIR is set at init, each rank appends one text line per communication
 * call to DIR/rank-R.trace; `meshmem model replay` (python/meshmem/model/replay.py) reads the
 * lines and advances per-rank virtual clocks with the fabric model's costs. The runtime knows
 * no cost: it records what was called, how big, with whom, and the wall time spent outside
 * communication calls (the compute charged when nothing is annotated).
 *
 * Line format (times in ns, sizes in bytes; "gap" is the wall time from the end of the
 * previous traced call or phase marker to the start of this call):
 *   meshmem-trace 1 rank R nranks N            header
 *   p2p OP gap bytes peer event                OP: put, get, signal, amo, famo, am;
 *                                              event: this rank's n-th store into peer (1, 2, ...),
 *                                              0 for an operation that stores nothing (get)
 *   coll OP gap bytes start stride size         team as world ranks start + i*stride, i < size;
 *                                              bytes: the op's size per rank as docs/model.md
 *                                              defines it (all-to-all: all a rank sends, ...)
 *   wait gap dur [src:event ...]               a wait or successful test, which ended after
 *                                              every listed store from src arrived
 *   compute read written flops                 a meshmem_model_compute annotation
 *   xfer to from peer event                    a meshmem_model_transfer annotation: bytes
 *                                              written into / read from peer by direct
 *                                              loads and stores; event as for p2p (0 when
 *                                              nothing is written). Like compute, not the
 *                                              end of an interval
 *   phase gap NAME                             meshmem_model_phase
 *
 * Causality of point-to-point synchronisation: every store into a peer (put, signal, AMO,
 * active message, an annotated direct write) bumps a per-(source, destination) counter in DIR/events, a shared mapping of
 * nranks x nranks counters, before its data is written; a rank whose wait ends reads its row
 * and records the counters that moved since its last wait. Any data a waiter can see was
 * counted first, so the replay never lets a wait end before the stores it saw.
 *
 * Hot paths pay one predictable branch on mm_g.trace when tracing is off (MM_TRACE_SCOPE).
 * Calls made inside a traced call (a shmem collective over puts, a wait inside a collective)
 * are not traced: the outermost call is the operation the model costs.
 */
#ifndef MM_TRACE_H
#define MM_TRACE_H

#include "mm_core.h"

#include <stdint.h>

/** One traced call in progress (thread-local storage inside mm_trace.c). */
typedef struct mm_trace_scope mm_trace_scope_t;

/** Flags of mm_trace_p2p. */
enum { MM_TRACE_STORE = 1 }; /**< the operation writes into the peer: bump its event counter */

/** @brief Start tracing when MESHMEM_TRACE_DIR is set (called by meshmem_init once the rank
 * and the rank count are known). A directory that cannot be used ends the job with a message
 * naming it. */
void mm_trace_init(void);

/** @brief The wall time up to now is not the program's compute (init, a polling test). */
void mm_trace_mark(void);

/** @brief Flush and close this rank's trace (meshmem_finalize, after its barrier). */
void mm_trace_fini(void);

/** @brief Begin a point-to-point call @p op of @p nbytes with world rank @p peer. */
mm_trace_scope_t *mm_trace_p2p(const char *op, uint64_t nbytes, int peer, unsigned flags);

/** @brief Begin collective @p op on @p team, @p nbytes per rank (docs/model.md's L). An
 * invalid team (the call then fails its own checks) is not traced. */
mm_trace_scope_t *mm_trace_coll(const char *op, meshmem_team_t team, uint64_t nbytes);

/** @return @p block bytes times the size of @p team (0 for an invalid team): an op's L from
 * a per-member block (all-to-all, all-gather, scatter, gather). */
uint64_t mm_trace_team_bytes(meshmem_team_t team, uint64_t block);

/** @return the sum of the team-size @p counts times @p esize (0 for NULL or an invalid team). */
uint64_t mm_trace_sum_bytes(meshmem_team_t team, const size_t *counts, size_t esize);

/** @brief Begin a wait on user memory (its end records the stores it saw). */
mm_trace_scope_t *mm_trace_wait(void);

/** @brief End a traced call: write its line (outermost call only). */
void mm_trace_end(mm_trace_scope_t *s);

/** @brief A test that returned @p hit: a hit is a wait of no duration; a miss ends the
 * interval (polling is not compute). @return @p hit. */
int mm_trace_test_slow(int hit);

/** @brief Record a test's outcome when tracing. @return @p hit, unchanged. */
static inline int mm_trace_test(int hit)
{
    if (MM_UNLIKELY(mm_g.trace))
        return mm_trace_test_slow(hit);
    return hit;
}

/* the cleanup of MM_TRACE_SCOPE's variable */
static inline void mm_trace_close(mm_trace_scope_t **s)
{
    if (MM_UNLIKELY(*s != NULL))
        mm_trace_end(*s);
}

/**
 * @brief Trace the enclosing block as one call: @p begin (one of the mm_trace_* begin calls,
 * evaluated only when tracing) runs here, mm_trace_end at every exit of the block.
 * One per block.
 */
#define MM_TRACE_SCOPE(begin)                                                                      \
    mm_trace_scope_t *mm_trace_scope_ __attribute__((cleanup(mm_trace_close), unused)) =           \
        MM_UNLIKELY(mm_g.trace) ? (begin) : NULL

#endif /* MM_TRACE_H */
