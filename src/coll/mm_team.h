/**
 * @file mm_team.h
 * @brief Teams and the per-pair flag lines that synchronise their collectives.
 *
 * Flag protocol (the full mesh of dedicated channels, OPTWEB's one-cycle block signal):
 *   Every team occupies one sync slot, at the same index on every member. In member j's slot,
 *   line flags[parity][kind][i] is written only by member i (one writer per line: no contention,
 *   no atomics) and read only by j. A collective numbered s (team->seq, identical on every
 *   member, growing forever) posts by writing its payload, then seq = s (release; same cache
 *   line, so a small payload travels with its flag as in NCCL's LL protocols), into the line of
 *   each peer it must reach. Readers wait until the line's seq reaches s (wrap-safe compare).
 *
 *   Why two parities, and the room check: a member may finish collective s and post s+1
 *   before a slower peer has read its s payload, so lines (and eager channels) of parity s&1
 *   must not be rewritten before their s payload has been read. A writer about to post
 *   collective s to member j therefore needs j to have completed s-2. It knows that for free
 *   when it heard from j in s-1 (j entered s-1, so it completed s-2): team->heard[j] records
 *   the last collective a flag of j was seen in. Otherwise it reads j's "completed" line (one
 *   line per member and slot, written by the member at the end of every collective). Symmetric
 *   collectives (everyone hears from everyone) never take that path; rooted eager ones (a
 *   broadcast root hears from nobody) do, which is their flow control.
 *
 *   Slot reuse: destroying a team ends with a barrier; after it no peer writes into the slot,
 *   so each member zeroes its own copy and the slot is free for a new team.
 */
#ifndef MM_TEAM_H
#define MM_TEAM_H

#include "mm_core.h"
#include "mm_tp.h"
#include "mm_tp_coll.h"

#include <assert.h>

#define MM_FLAG_PAYLOAD 7 /* 64-bit words that travel in a flag's cache line */

typedef struct {
    MM_ALIGNED _Atomic uint64_t seq;
    uint64_t payload[MM_FLAG_PAYLOAD];
} mm_flag_t;
static_assert(sizeof(mm_flag_t) == MM_CACHELINE, "a flag is one cache line");
static_assert(offsetof(mm_flag_t, payload) == 8, "payload shares the flag's cache line");

/* ARRIVE: entered / ready (may carry a buffer descriptor); DONE: finished with a peer's data;
 * DATA: a message (eager payload, or a descriptor of a buffer to copy from) */
enum { MM_FLAG_ARRIVE = 0, MM_FLAG_DONE = 1, MM_FLAG_DATA = 2, MM_FLAG_KINDS = 3 };

struct meshmem_team {
    int start, stride, size;         /* members are world ranks start + i*stride, i < size */
    int my_rank;                     /* this rank's number in the team */
    int slot;                        /* sync slot index, the same on every member */
    uint64_t seq;                    /* number of the last collective started */
    uint64_t *heard;                 /* [size] last collective each member was heard from */
    const mm_tp_coll_ops_t *offload; /* the collectives of the transport that reaches every
                                      * member, when it has its own (mm_tp_coll.h); NULL: the
                                      * runtime's (every call tests it: beside seq and heard) */
    int num_contexts;                /* from the team config */
    bool predefined;                 /* world / shared: never destroyed by the user */
    int ghc_kx, ghc_ky;              /* GHC grid, kx * ky == size; 0 x 0: full mesh (mm_topo.c) */
    int ghc_hosts;                   /* the grid is the hosts' (topology auto): MM_HOSTS_* */
    struct meshmem_team *ghc_x, *ghc_y; /* this member's row and column teams (built on use) */
    _Atomic uint64_t pushes; /* messages pushed to other hosts, not yet sent (mm_msg.h) */
    void *rx_spare;          /* a buffer a message from another host came in, kept for */
    size_t rx_spare_bytes;   /*   the next (mm_msg.c), and its size */
    mm_tp_group_t group;     /* the team as the offloaded collectives see it */
    /* the call in progress on this team, as the user named it, and its tag (MM_CALL_TAG: which
     * collective, with which arguments that members must pass equal); the calls of the last
     * two collectives ended, by parity (read when a peer's "completed" line tells a tag that
     * differs from ours: mm_coll_sync.c) */
    const char *call;
    uint64_t tag;
    const char *ended_call[2];
};

/*
 * The tag of a collective (32 bits): the collective's kind, and the arguments every member must
 * pass equal (a root; an operator and a type; a reduce's root above its operator and type),
 * whole. Members compare tags where they read each other's lines anyway, so that a mismatch
 * ends the job with a line naming it instead of a hang or a wrong result. Bits 0-11 are the
 * arguments' low 12 bits, 12-15 the kind: these 16 bits are what a DATA line's header carries
 * (mm_msg.h, MM_MSG_TAG). The arguments' higher bits are in bits 16-30, so a broadcast's root
 * is whole below 2^27 and a reduce's below 2^20 (a team is at most the world: meshrun's 4096
 * ranks); the "completed" line, the exchanges' tag word and the call records carry the whole
 * tag, and compare it there. Bit 31 (MM_CALL_TAG_PARTIAL) marks a tag read from a header: its
 * low 16 bits alone are known.
 */
enum {
    MM_CALL_NONE = 0,
    MM_CALL_BCAST,
    MM_CALL_SCATTER,
    MM_CALL_GATHER,
    MM_CALL_ALLGATHER,
    MM_CALL_ALLTOALL,
    MM_CALL_ALLREDUCE,
    MM_CALL_REDUCE,
    MM_CALL_BARRIER,
    MM_CALL_SYMALLOC,
    MM_CALL_SPLIT,
    MM_CALL_EXCHANGE
};
#define MM_CALL_TAG(kind, arg)                                                                     \
    (((unsigned)(kind) << 12) | ((unsigned)(arg)&0xfffu) |                                         \
     (((unsigned)(arg) >> 12 & 0x7fffu) << 16))
#define MM_CALL_TAG_PARTIAL (1u << 31)
#define MM_CALL_KIND(tag)   ((unsigned)(tag) >> 12 & 0xfu)
#define MM_CALL_ARG(tag)    (((unsigned)(tag)&0xfffu) | ((unsigned)(tag) >> 16 & 0x7fffu) << 12)
/* the arguments of a reduce: its root above the operator and type (MM_CALL_OP) */
#define MM_CALL_ROOT_OP(root, dtype, op) ((unsigned)(root) << 7 | MM_CALL_OP(dtype, op))
#define MM_CALL_OP(dtype, op)            (((unsigned)(op) << 4) | (unsigned)(dtype))

/** The payload word of an exchange's lines that carries the call's tag (mm_coll_exchange). */
#define MM_XCHG_TAG_WORD (MM_FLAG_PAYLOAD - 1)

/** @brief Enter call @p call (its name as the user knows it) of tag @p tag on @p t. */
static inline void mm_coll_enter(struct meshmem_team *t, const char *call, unsigned tag)
{
    t->call = call;
    t->tag = tag;
}

/**
 * @brief End the job: team member @p src is in a collective of tag @p theirs where this rank is
 * in one of tag @p mine (call @p call): the line names what differs (the collective, with the
 * name the peer published when it did: mm_coll_peer_call; its root, operator or type) and the
 * values on both ranks.
 */
_Noreturn void mm_coll_differs(struct meshmem_team *t, const char *call, int src, unsigned theirs,
                               unsigned mine);

/** @brief The name of the call world rank @p pe is in, as it published it when a wait of its
 * lasted or it found a mismatch; false when it published none. */
bool mm_coll_peer_call(int pe, char *out, size_t cap);

/*
 * Slot layout, in the owner's segment:
 *   mm_flag_t lines[2 parities][MM_FLAG_KINDS][nranks]   written by member src (last index)
 *   mm_flag_t completed                                  written by the owner
 *   char      eager[2 parities][nranks][eager_bytes]     written by member src
 */
/** @return bytes of one sync slot for a job of @p nranks ranks, @p eager_bytes per channel. */
static inline size_t mm_team_slot_bytes(int nranks, size_t eager_bytes)
{
    return ((size_t)2 * MM_FLAG_KINDS * (size_t)nranks + 1) * sizeof(mm_flag_t) +
           (size_t)2 * (size_t)nranks * eager_bytes;
}

/** @return the start of team @p t's slot in this rank's own segment: also the slot's symmetric
 * address, by which a member's copy is reached (every segment has the slot at the same place;
 * mm_tp_line, mm_tp_post). */
static inline char *mm_team_slot(const struct meshmem_team *t)
{
    return mm_g.seg + mm_g.sync_offset + (size_t)t->slot * mm_g.slot_bytes;
}

/** @return team @p t's "completed" line, this rank's own (its copy at a member: mm_tp_line). */
static inline mm_flag_t *mm_team_completed(const struct meshmem_team *t)
{
    return (mm_flag_t *)mm_team_slot(t) + (size_t)2 * MM_FLAG_KINDS * (size_t)mm_g.nranks;
}

/** @return the eager channel written by member @p src for collective @p seq, this rank's own
 * copy (the one a member writes into at the receiver: mm_tp_line). */
static inline char *mm_team_eager(const struct meshmem_team *t, uint64_t seq, int src)
{
    return (char *)(mm_team_completed(t) + 1) +
           ((size_t)(seq & 1) * (size_t)mm_g.nranks + (size_t)src) * mm_g.eager_bytes;
}

/** @return the world rank of team member @p r. */
static inline int mm_team_world(const struct meshmem_team *t, int r)
{
    return t->start + r * t->stride;
}

/** @return true when a member of @p t is on another host (out of reach of load/store). */
static inline bool mm_team_spans_hosts(const struct meshmem_team *t)
{
    if (mm_g.all_local)
        return false;
    for (int r = 0; r < t->size; r++)
        if (!mm_tp_load_store(mm_team_world(t, r)))
            return true;
    return false;
}

/** @return the flag line written by team member @p src for collective @p seq of kind @p kind,
 * in this rank's own copy of the team's slot (a member's copy: mm_tp_line). */
static inline mm_flag_t *mm_team_flag(const struct meshmem_team *t, uint64_t seq, int kind, int src)
{
    return (mm_flag_t *)mm_team_slot(t) +
           ((size_t)((seq & 1) * MM_FLAG_KINDS + (uint64_t)kind) * (size_t)mm_g.nranks +
            (size_t)src);
}

/** @brief Create world and shared teams (init). @return 0 or -1. */
int mm_team_init(void);

/** @brief Release the predefined teams and every split team still live (finalize). */
void mm_team_fini(void);

/** @brief Free @p t's memory and forget it (not collective: destroy or finalize first). */
void mm_team_free(struct meshmem_team *t);

/** @return this rank's mask of free sync slots (bit s set: slot s is free). */
uint64_t mm_team_slots_free(void);

/**
 * @brief Create the team of world ranks start + i*stride (i < size) on sync @p slot, which the
 * members have agreed on (free on each of them). Non-members get a team with my_rank -1.
 * @return the team, or NULL when @p slot is no longer free on this rank.
 */
struct meshmem_team *mm_team_create(int start, int stride, int size, int slot);

/** @brief meshmem_team_split_2d on behalf of @p call (its messages and the call record name it:
 * the row and column teams a collective builds on first use are split inside the user's call).
 */
meshmem_status_t mm_team_split_2d_as(const char *call, meshmem_team_t parent, int xrange,
                                     meshmem_team_t *xaxis, meshmem_team_t *yaxis);

/** @brief End the job for @p call's invalid team handle @p team (mm_team_checked's message). */
_Noreturn void mm_team_bad(const char *call, meshmem_team_t team);

/** @return true when @p team is world, shared or a team a split made and no destroy ended:
 * compared with the live teams, never dereferenced (a destroyed or made-up handle is caught
 * before it is read). */
bool mm_team_known(meshmem_team_t team);

/** @brief End the job when @p team is neither SHMEM_TEAM_INVALID nor a live team (for the
 * calls that take SHMEM_TEAM_INVALID and return an error for it). */
static inline void mm_team_check_handle(const char *call, meshmem_team_t team)
{
    if (MM_UNLIKELY(team != MESHMEM_TEAM_INVALID && team != MESHMEM_TEAM_WORLD &&
                    !mm_team_known(team)))
        mm_team_bad(call, team);
}

/** @brief Validate a team handle for @p call; ends the job on an invalid one. (Inline: every
 * collective asks; on the world team the answer is a few loads, on another a look among the
 * live teams.) */
static inline struct meshmem_team *mm_team_checked(const char *call, meshmem_team_t team)
{
    if (MM_UNLIKELY(team == MESHMEM_TEAM_INVALID ||
                    (team != MESHMEM_TEAM_WORLD && !mm_team_known(team)) || team->my_rank < 0 ||
                    team->size <= 0 || team->slot < 0 || team->slot >= MM_TEAM_SLOTS))
        mm_team_bad(call, team);
    return team;
}

/* ---- flag primitives (mm_coll_sync.c) ---- */

void mm_team_heard_alloc(struct meshmem_team *t);

/** @brief Start a collective on @p t: @return its sequence number. */
static inline uint64_t mm_coll_begin(struct meshmem_team *t)
{
    if (MM_UNLIKELY(t->heard == NULL))
        mm_team_heard_alloc(t);
    return ++t->seq;
}

/** @brief End collective @p seq on @p t: this member has read everything peers sent in it. */
static inline void mm_coll_end(struct meshmem_team *t, uint64_t seq)
{
    mm_flag_t *done = mm_team_completed(t);
    done->payload[seq & 1] = 0; /* no tag told (mm_coll_end_tag) */
    atomic_store_explicit(&done->seq, seq, memory_order_release);
}

/** @brief mm_coll_end, telling the collective's tag in the "completed" line (payload[seq & 1]):
 * a root that hears from nobody compares it at its next room check (mm_coll_wait_room), which
 * is how two ranks that each took themselves for the root are caught. */
static inline void mm_coll_end_tag(struct meshmem_team *t, uint64_t seq, uint64_t tag)
{
    mm_flag_t *done = mm_team_completed(t);
    done->payload[seq & 1] = tag;
    t->ended_call[seq & 1] = t->call;
    atomic_store_explicit(&done->seq, seq, memory_order_release);
}

/** @brief The room check's slow path: wait until member @p dst has completed @p seq - 2. */
void mm_coll_wait_room(struct meshmem_team *t, int dst, uint64_t seq);

/** @brief Wait until member @p dst can take posts of collective @p seq (the room check);
 * free when @p dst was heard from in seq - 1 (inline: it is on every post's path). */
static inline void mm_coll_room(struct meshmem_team *t, int dst, uint64_t seq)
{
    if (MM_UNLIKELY(!mm_seq_reached(t->heard[dst] + 1, seq)))
        mm_coll_wait_room(t, dst, seq);
}

/**
 * @brief Post flag @p kind of collective @p seq, with @p n payload words, to team member @p dst.
 * Does not wake the peer: call mm_coll_wake() once after a batch of posts.
 */
void mm_coll_post(struct meshmem_team *t, int dst, int kind, uint64_t seq, const uint64_t *payload,
                  int n);

/**
 * @brief Post to a member on another host, @p w its world rank: @p nwords payload words of flag
 * @p kind of collective @p seq, after @p extra_len bytes of @p extra at symmetric @p extra_dest
 * (an eager channel), as one network message (mm_tp_post). The room check is the caller's.
 */
void mm_coll_post_remote(struct meshmem_team *t, int w, int kind, uint64_t seq,
                         const uint64_t *payload, int nwords, void *extra_dest, const void *extra,
                         size_t extra_len);

/** @brief Wake team member @p dst if it sleeps (no fence: see mm_coll_sync.c). */
void mm_coll_wake(struct meshmem_team *t, int dst);

/** @brief Wake every other member that sleeps. */
void mm_coll_wake_all(struct meshmem_team *t);

/** @brief Wait for member @p src's flag @p kind of collective @p seq; @return the line. */
const mm_flag_t *mm_coll_wait(struct meshmem_team *t, int src, int kind, uint64_t seq);

/**
 * @brief One-step exchange of @p n (<= MM_XCHG_TAG_WORD) words among all members: every member
 * posts its words to every other, then waits for all. out[r*n .. r*n+n) receives member r's
 * words (out may be NULL). The lines carry the call's @p tag (MM_CALL_TAG) besides: a member
 * whose tag differs ends the job with a line naming both calls (mm_coll_differs). A whole
 * collective (it ends it); doubles as the barrier.
 * @return the collective's sequence number.
 */
uint64_t mm_coll_exchange(struct meshmem_team *t, int kind, unsigned tag, const uint64_t *in, int n,
                          uint64_t *out);

/** @brief The first step of a longer collective: like mm_coll_exchange, without ending it. */
uint64_t mm_coll_exchange_open(struct meshmem_team *t, int kind, unsigned tag, const uint64_t *in,
                               int n, uint64_t *out);

/** @brief Barrier over @p t on the full mesh, whatever its topology, without completing RMA
 * (an exchange with no payload). mm_coll_barrier (mm_coll.h) picks the team's own. */
void mm_fullmesh_barrier(struct meshmem_team *t);

/* ---- topology (mm_topo.c) ---- */

/** @brief Set the world team's topology from MESHMEM_TOPOLOGY (init). @return 0 or -1. */
int mm_topo_world_init(struct meshmem_team *world);

/** Which axis of a GHC from the hosts is a host (struct meshmem_team's ghc_hosts). */
enum { MM_HOSTS_NONE = 0, MM_HOSTS_ROWS = 1, MM_HOSTS_COLS = 2 };

/** @brief The two-level GHC shape of @p t from the hosts its members run on (mm_topo.c):
 * *kx x *ky, or 0 x 0 (the full mesh) when the placement is not an even one.
 * @return MM_HOSTS_ROWS (by slot: each row is a host), MM_HOSTS_COLS (round-robin: each column
 * is a host) or MM_HOSTS_NONE. */
int mm_topo_hosts(const struct meshmem_team *t, int *kx, int *ky);

/** @brief Give a new team the topology MESHMEM_TOPOLOGY asks for (auto: from its hosts). */
void mm_topo_team_init(struct meshmem_team *t);

/** @brief Destroy @p t's row and column teams, if built (collective over @p t). */
void mm_topo_release(struct meshmem_team *t);

/** @brief Forget the world's row and column teams without communicating (finalize). */
void mm_topo_fini(struct meshmem_team *world);

/** @return true when @p t runs its collectives per dimension (GHC). */
static inline bool mm_topo_ghc(const struct meshmem_team *t)
{
    return t->ghc_kx > 0;
}

/**
 * @brief This member's row (x-axis, kx members) and column (y-axis, ky members) teams of a GHC
 * team, built by a 2-D split at the first call (collective over @p t).
 */
void mm_topo_axes(struct meshmem_team *t, struct meshmem_team **row, struct meshmem_team **col);

#endif /* MM_TEAM_H */
