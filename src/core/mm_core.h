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
    uint64_t    magic;
    uint64_t    seg_bytes;
    MM_ALIGNED mm_waiter_t waiter;
    /* this rank's lifecycle (MM_RANK_*, mm_ctl.h), written by the owner only, read by peers that
     * wait for it (a peer that finalized will post nothing more: mm_coll_sync.c) */
    MM_ALIGNED _Atomic int32_t state;
} mm_seg_hdr_t;

/**
 * How this rank reaches a peer. For a peer of the node (load/store) @c seg is its segment as
 * mapped here and the deltas translate a symmetric address by one add; for a peer on another
 * host @c seg is NULL and every access goes through the network transport (mm_net.h). The
 * hot paths read one entry: the deltas and @c seg share a cache line.
 */
typedef struct {
    intptr_t    heap_delta; /* peer heap address - own heap address */
    intptr_t    data_delta; /* peer static data address - own */
    char       *seg;        /* peer's heap segment as mapped here; NULL: not load/store */
    int32_t     node;       /* index of the peer's node (ranks sharing memory) */
    int32_t     local_rank; /* its number among the ranks of its node */
} mm_peer_t;

/** What every piece of the runtime reads; written only during init/finalize. */
typedef struct {
    int         rank;
    int         nranks;
    int         thread_level;
    bool        initialized;
    bool        finalizing;
    bool        singleton;      /* started without a launcher */

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
    char       *seg;            /* this rank's heap segment */
    uintptr_t   heap_base;      /* this rank's heap */
    mm_peer_t  *peer;           /* [nranks] */

    /* static data */
    uintptr_t   data_base;
    size_t      data_size;

    /* nodes: ranks that share memory */
    int         nnodes;
    int         node;           /* this rank's node */
    int         local_rank, local_size; /* among the ranks of this node */
    bool        all_local;      /* every rank is in reach of load/store */
    int         machine_size;   /* ranks on this machine (its CPUs), virtual hosts included */

    int         ncpus;
    bool        oversubscribed;
    bool        trace;          /* MESHMEM_TRACE_DIR set: calls are traced (mm_trace.h) */
} mm_state_t;

extern mm_state_t mm_g;

/** @return @p p, telling the compiler it is not NULL (a translation into a mapped segment). */
MM_INLINE_HOT void *mm_nonnull(void *p)
{
    if (p == NULL)
        __builtin_unreachable();
    return p;
}

/** @return @p rank's segment as mapped here (this rank's own included), NULL for a peer on
 * another host. The own one by mm_g.seg, which the compiler knows at a caller that passes
 * mm_g.rank (the polls of this rank's own lines). */
static inline char *mm_seg_of(int rank)
{
    return rank == mm_g.rank ? mm_g.seg : mm_g.peer[rank].seg;
}

/** @return the segment header of @p rank as mapped here, NULL for a peer on another host. */
static inline mm_seg_hdr_t *mm_seg_hdr(int rank)
{
    return (mm_seg_hdr_t *)mm_g.peer[rank].seg;
}

/**
 * @brief Translate symmetric @p addr to its copy on @p rank, for load and store.
 * @return the mapped address, or NULL when @p addr is not symmetric or @p rank is not in reach
 * of load/store (another host).
 */
static inline void *mm_xlate(const void *addr, int rank)
{
    uintptr_t a = (uintptr_t)addr;
    const mm_peer_t *p = &mm_g.peer[rank];
    if (MM_UNLIKELY(p->seg == NULL))
        return NULL;
    if (MM_LIKELY(a - mm_g.heap_base < mm_g.heap_size))
        return mm_nonnull((void *)(a + p->heap_delta));
    if (a - mm_g.data_base < mm_g.data_size)
        return mm_nonnull((void *)(a + p->data_delta));
    return NULL;
}

/** @return the place in @p rank's segment of @p addr, an address in this rank's own segment
 * (runtime structures: flag lines, channels, rings), or NULL for a peer on another host. */
static inline void *mm_seg_xlate(const void *addr, int rank)
{
    char *seg = mm_g.peer[rank].seg;
    return seg ? seg + ((const char *)addr - mm_g.seg) : NULL;
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
 * @brief Check a symmetric argument of an API call: end the job with a clear message when
 * @p rank is invalid or @p addr (of @p len bytes, named @p what) is not symmetric.
 * @return its load/store translation on @p rank, NULL for a peer on another host.
 */
void *mm_xlate_checked(const char *call, const char *what, const void *addr, size_t len,
                       int rank);

/* wake a peer that may sleep waiting for our stores (see mm_waiter_t) */
void mm_wake_slow(mm_waiter_t *w);

/** @brief After storing into @p rank's memory (put, AMO, signal): wake it if it sleeps in a
 * wait on user memory. Cheap when it does not; nothing for a peer on another host, whose
 * transport wakes it.
 * The load is seq_cst so that after a seq_cst store or RMW (signals, AMOs) it completes the
 * Dekker pair with the waiter's registration (argument in mm_rma.h, mm_signal_post); on x86 a
 * seq_cst load is a plain mov, as a relaxed one. */
static inline void mm_wake(int rank)
{
    mm_seg_hdr_t *h = mm_seg_hdr(rank);
    if (MM_UNLIKELY(h != NULL &&
                    atomic_load_explicit(&h->waiter.sleepers[MM_WAIT_USER],
                                         memory_order_seq_cst) != 0))
        mm_wake_slow(&h->waiter);
}

/** @brief mm_wake for a @p rank known to be of this node (its segment mapped here). */
static inline void mm_wake_local(int rank)
{
    mm_seg_hdr_t *h = mm_seg_hdr(rank);
    if (MM_UNLIKELY(atomic_load_explicit(&h->waiter.sleepers[MM_WAIT_USER],
                                         memory_order_seq_cst) != 0))
        mm_wake_slow(&h->waiter);
}

/** @brief After posting a runtime flag to @p rank: wake it if it sleeps in a runtime wait. */
static inline void mm_wake_runtime(int rank)
{
    mm_seg_hdr_t *h = mm_seg_hdr(rank);
    if (MM_UNLIKELY(h != NULL &&
                    atomic_load_explicit(&h->waiter.sleepers[MM_WAIT_RUNTIME],
                                         memory_order_relaxed) != 0))
        mm_wake_slow(&h->waiter);
}

/** @brief Wake this rank's own sleepers of both classes (after a network transport wrote into
 * this rank's memory on behalf of a peer). */
void mm_wake_self(void);

/** @brief Record this rank's lifecycle state (MM_RANK_*) for its peers and its launcher. */
void mm_set_state(int state);

/** @return the lifecycle state (MM_RANK_*) of world rank @p rank, as it published it. */
int mm_peer_state(int rank);

/** Wrap-safe sequence comparison: a is at or after b (sequence numbers never reset). */
static inline bool mm_seq_reached(uint64_t a, uint64_t b)
{
    return (int64_t)(a - b) >= 0;
}

#endif /* MM_CORE_H */
