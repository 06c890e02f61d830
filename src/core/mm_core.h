/**
 * @file mm_core.h
 * @brief Internal state of a meshmem rank: who it is, the layout of its memory, and the few
 * inline helpers every layer uses.
 *
 * A rank's memory, the same layout on every rank:
 *   - one heap segment: [mm_seg_hdr_t | team sync slots | active-message channels | symmetric
 *     heap | staging];
 *   - its static data: the executable's data+bss (remapped into shared memory at init where
 *     peers map it, so that globals are symmetric).
 * An address inside this rank's own segment or static data is *symmetric*: it names the same
 * place in every rank's. How a peer's copy is reached (mapped here, one add away, or through a
 * network) is the transport's business (src/transport/mm_tp.h); core knows only its own.
 */
#ifndef MM_CORE_H
#define MM_CORE_H

/* Hot-path helpers are inlined by force, except under TSan: GCC rejects an atomic_thread_fence
 * that is inlined by force there (-Wtsan), and a sanitizer build is not timed. */
#if defined(__SANITIZE_THREAD__)
#define MM_INLINE_HOT static inline
#else
#define MM_INLINE_HOT static inline __attribute__((always_inline))
#endif

#include "meshmem.h"
#include "mm_boot.h"
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

/**
 * @return the alignment of every rank's symmetric heap base for a heap of @p heap_size bytes:
 * the largest power of two the heap can hold (at least 2 MiB, a huge page). A block aligned to
 * A in offset from the base is then aligned to A in every rank's address space, for any A up
 * to this, so shmem_align honours every alignment the heap can hold with the same offset on
 * every rank (what makes the block symmetric). It costs address space only: the mapping is
 * placed inside a reserved range of heap + this many bytes (mm_shm_create).
 */
static inline size_t mm_heap_base_align(size_t heap_size)
{
    size_t a = (size_t)2 << 20;
    while (a <= heap_size / 2)
        a *= 2;
    return a;
}

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
    uint64_t magic;
    uint64_t seg_bytes;
    MM_ALIGNED mm_waiter_t waiter;
    /* this rank's lifecycle (MM_RANK_*, mm_ctl.h), written by the owner only, read by peers that
     * wait for it (a peer that finalized will post nothing more: mm_coll_sync.c) */
    MM_ALIGNED _Atomic int32_t state;
    /* the collective this rank waits in, published once a wait has lasted or when it found
     * that its peers are in another (mm_coll_sync.c): seq 0 while it publishes none; written
     * by the owner only (seq last, with release), read by peers for their error lines */
    MM_ALIGNED struct {
        _Atomic uint64_t seq;
        int32_t slot;
        uint32_t tag;
        char call[48];
    } call;
    /* rank 0's: 1 once a rank claimed the report of an error that several ranks detect at
     * once, where the bootstrap cannot tell who reports (across hosts: mm_tp_claim_report); a
     * rank's atomic on rank 0's copy */
    MM_ALIGNED _Atomic uint64_t report;
} mm_seg_hdr_t;

/** What every piece of the runtime reads; written only during init/finalize. */
typedef struct {
    int rank;
    int nranks;
    int thread_level;
    bool initialized;
    bool finalizing;
    bool singleton; /* started without a launcher */

    /* heap segments */
    size_t seg_bytes;   /* bytes of one rank's heap segment */
    size_t sync_offset; /* team sync slots start */
    size_t slot_bytes;  /* bytes of one team sync slot */
    size_t eager_bytes; /* bytes of one eager channel (per slot, peer and parity) */
    size_t am_offset;   /* active-message channels (src/am/mm_am.h) */
    size_t am_bytes;
    size_t heap_offset; /* symmetric heap start within the segment */
    size_t heap_size;
    size_t stage_offset; /* staging arena (private to the rank, addressable by peers) */
    size_t stage_size;
    char *seg;           /* this rank's heap segment */
    uintptr_t heap_base; /* this rank's heap */

    /* static data */
    uintptr_t data_base;
    size_t data_size;

    /* nodes: ranks that share memory (found by the shared-memory transport, mm_shm_node.c) */
    int nnodes;
    int node;                   /* this rank's node */
    int *node_of;               /* [nranks] every rank's node */
    int local_rank, local_size; /* among the ranks of this node */
    bool all_local;             /* every rank is in reach of load/store */
    int machine_size;           /* ranks on this machine (its CPUs), virtual hosts included */

    int ncpus;
    bool oversubscribed;
    bool trace; /* MESHMEM_TRACE_DIR set: calls are traced (mm_trace.h) */
} mm_state_t;

extern mm_state_t mm_g;

/** @return @p p, telling the compiler it is not NULL (a translation into a mapped segment). */
MM_INLINE_HOT void *mm_nonnull(void *p)
{
    if (p == NULL)
        __builtin_unreachable();
    return p;
}

/** @return this rank's own segment header (its waiting word and lifecycle state). */
static inline mm_seg_hdr_t *mm_own_hdr(void)
{
    return (mm_seg_hdr_t *)mm_g.seg;
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

/** @brief Record this rank's lifecycle state (MM_RANK_*) for its peers and its launcher. */
void mm_set_state(int state);

/** Wrap-safe sequence comparison: a is at or after b (sequence numbers never reset). */
static inline bool mm_seq_reached(uint64_t a, uint64_t b)
{
    return (int64_t)(a - b) >= 0;
}

#endif /* MM_CORE_H */
