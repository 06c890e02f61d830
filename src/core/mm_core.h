/**
 * @file mm_core.h
 * @brief Internal state of a meshmem rank and the inline helpers of the hot paths.
 *
 * Memory of a job on one node (the full mesh of direct access):
 *   - rank r owns one heap segment: [mm_seg_hdr_t | team sync slots | active-message
 *     channels | symmetric heap | staging];
 *     every rank maps every peer's heap segment at some address of its own;
 *   - rank r owns one data segment: a shared copy of its executable's data+bss, remapped in
 *     place at init (so globals are symmetric), also mapped by every peer.
 * A symmetric address is translated for peer p by adding a per-peer delta: one compare and one
 * add, no table walk.
 */
#ifndef MM_CORE_H
#define MM_CORE_H

#include "meshmem.h"
#include "mm_config.h"
#include "mm_ctl.h"
#include "mm_log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MM_CACHELINE 64
#define MM_ALIGNED   _Alignas(MM_CACHELINE)

#define MM_LIKELY(x)   __builtin_expect(!!(x), 1)
#define MM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/** Alignment of every rank's symmetric heap base: the largest shmem_align alignment. */
#define MM_HEAP_ALIGN ((size_t)2 << 20)

/** Team sync slots per rank: the most teams that can exist at once (world and shared included). */
#define MM_TEAM_SLOTS 64

/** Classes of waits: on user memory (woken by puts, AMOs, signals), or inside the runtime
 * (woken by flag posts). Separate counts spare a put the futex wake of a rank that sleeps in a
 * barrier, where nothing the put writes can end its wait. */
enum { MM_WAIT_USER = 0, MM_WAIT_RUNTIME = 1 };

/**
 * The waiting word of a rank, on its own cache line in the rank's heap segment.
 * Writers: the owner increments/decrements @c sleepers[class] around a futex sleep; a peer that
 * stores into this rank's memory reads the count of the class its store can wake and, when
 * non-zero, bumps @c doorbell and wakes it. The owner writes the counts only when it is about
 * to sleep, so in the fast path the line stays shared-clean in every peer's cache and the check
 * costs a cache hit.
 */
typedef struct {
    MM_ALIGNED atomic_uint sleepers[2];
    atomic_uint doorbell;
} mm_waiter_t;

/** Header at the start of every rank's heap segment. */
typedef struct {
    uint64_t    magic;
    uint64_t    seg_bytes;
    MM_ALIGNED mm_waiter_t waiter;
} mm_seg_hdr_t;

/** What every piece of the runtime reads; written only during init/finalize. */
typedef struct {
    int         rank;
    int         nranks;
    int         thread_level;
    bool        initialized;
    bool        finalizing;
    bool        singleton;      /* started without meshrun */
    mm_ctl_t   *ctl;            /* job control block */
    uint64_t    ctl_bytes;

    /* heap segments */
    size_t      seg_bytes;      /* bytes of one rank's heap segment */
    size_t      sync_offset;    /* team sync slots start */
    size_t      slot_bytes;     /* bytes of one team sync slot */
    size_t      eager_bytes;    /* bytes of one eager channel (per slot, peer and parity) */
    size_t      am_offset;      /* active-message channels (src/am/mm_am.h) */
    size_t      am_bytes;
    size_t      heap_offset;    /* symmetric heap start within the segment */
    size_t      heap_size;
    size_t      stage_offset;   /* staging arena (private to the rank, addressable by peers) */
    size_t      stage_size;
    char      **seg_base;       /* [nranks] each rank's heap segment as mapped here */
    uintptr_t   heap_base;      /* this rank's heap */
    intptr_t   *heap_delta;     /* [nranks] peer heap address - own heap address */

    /* static data */
    uintptr_t   data_base;
    size_t      data_size;
    intptr_t   *data_delta;     /* [nranks] */

    int         ncpus;
    bool        oversubscribed;
    bool        trace;          /* MESHMEM_TRACE_DIR set: calls are traced (mm_trace.h) */
} mm_state_t;

extern mm_state_t mm_g;

/** @return the segment header of @p rank (as mapped here). */
static inline mm_seg_hdr_t *mm_seg_hdr(int rank)
{
    return (mm_seg_hdr_t *)mm_g.seg_base[rank];
}

/**
 * @brief Translate symmetric @p addr to its copy on @p rank.
 * @return the mapped address, or NULL when @p addr is not symmetric.
 */
static inline void *mm_xlate(const void *addr, int rank)
{
    uintptr_t a = (uintptr_t)addr;
    if (MM_LIKELY(a - mm_g.heap_base < mm_g.heap_size))
        return (void *)(a + mm_g.heap_delta[rank]);
    if (a - mm_g.data_base < mm_g.data_size)
        return (void *)(a + mm_g.data_delta[rank]);
    return NULL;
}

/** @return true when [addr, addr+len) lies inside one symmetric region. */
static inline bool mm_is_symmetric(const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    if (a - mm_g.heap_base < mm_g.heap_size)
        return len <= mm_g.heap_size - (a - mm_g.heap_base);
    if (a - mm_g.data_base < mm_g.data_size)
        return len <= mm_g.data_size - (a - mm_g.data_base);
    return false;
}

/** @brief End the job when the library is not initialised; @p call names the API call. */
#define MM_CHECK_INIT(call)                                                                        \
    do {                                                                                           \
        if (MM_UNLIKELY(!mm_g.initialized))                                                        \
            mm_fatal("%s: called before meshmem_init/shmem_init (or after finalize)", call);       \
    } while (0)

/** @brief End the job when @p rank is not a valid world rank. */
#define MM_CHECK_RANK(call, rank)                                                                  \
    do {                                                                                           \
        if (MM_UNLIKELY((unsigned)(rank) >= (unsigned)mm_g.nranks))                                \
            mm_fatal("%s: PE argument (%d) is invalid: the job has PEs 0..%d", call, (int)(rank),  \
                     mm_g.nranks - 1);                                                             \
    } while (0)

/**
 * @brief Translate for an API call, ending the job with a clear message when @p addr (of
 * @p len bytes, named @p what) is not symmetric.
 */
void *mm_xlate_checked(const char *call, const char *what, const void *addr, size_t len,
                       int rank);

/* wake a peer that may sleep waiting for our stores (see mm_waiter_t) */
void mm_wake_slow(mm_waiter_t *w);

/** @brief After storing into @p rank's memory (put, AMO, signal): wake it if it sleeps in a
 * wait on user memory. Cheap when it does not.
 * The load is seq_cst so that after a seq_cst store or RMW (signals, AMOs) it completes the
 * Dekker pair with the waiter's registration (argument in mm_rma.h, mm_signal_post); on x86 a
 * seq_cst load is a plain mov, as a relaxed one. */
static inline void mm_wake(int rank)
{
    mm_waiter_t *w = &mm_seg_hdr(rank)->waiter;
    if (MM_UNLIKELY(atomic_load_explicit(&w->sleepers[MM_WAIT_USER], memory_order_seq_cst) != 0))
        mm_wake_slow(w);
}

/** @brief After posting a runtime flag to @p rank: wake it if it sleeps in a runtime wait. */
static inline void mm_wake_runtime(int rank)
{
    mm_waiter_t *w = &mm_seg_hdr(rank)->waiter;
    if (MM_UNLIKELY(atomic_load_explicit(&w->sleepers[MM_WAIT_RUNTIME], memory_order_relaxed) !=
                    0))
        mm_wake_slow(w);
}

/** Wrap-safe sequence comparison: a is at or after b (sequence numbers never reset). */
static inline bool mm_seq_reached(uint64_t a, uint64_t b)
{
    return (int64_t)(a - b) >= 0;
}

#endif /* MM_CORE_H */
