/*
 * Active-set collectives (OpenSHMEM 1.4 names, deprecated in 1.5) over internal teams.
 *
 * An active set is the strided subset of the world A = {PE_start + i*2^logPE_stride, i <
 * PE_size}; only its members call. Each rank keeps a cache of internal teams keyed by
 * (start, stride, size): every collective on A runs on A's team. A team needs a sync slot
 * (mm_team.h) that is free on every member, and the members must agree on it without the
 * non-members, who never call. The set equal to the world uses SHMEM_TEAM_WORLD directly.
 *
 * First use of A: agreement through the user's pSync (symmetric, every element SHMEM_SYNC_VALUE
 * = 0 on entry, not used by any other collective meanwhile: the standard's requirements).
 * Member 0 of A (PE_start, the "root") owns the agreement; the words of pSync used:
 *
 *   root's pSync[USED]   every member ORs in its mask of used slots       (atomic fetch-or)
 *   root's pSync[COUNT]  every member adds 1 after its OR                 (atomic add)
 *   member's pSync[PICK] the root writes 1 + the chosen slot              (atomic set)
 *
 *   1. each member:  OR(root.USED, ~free mask); then ADD(root.COUNT, 1). The two are sequentially
 *      consistent atomics, so a root that sees COUNT == PE_size also sees every OR.
 *   2. root:         wait until COUNT == PE_size; slot = lowest bit clear in USED; reset its
 *      USED and COUNT to 0 (every member has finished writing them); SET(member.PICK, slot+1)
 *      for every other member (the atomic wakes a sleeping member).
 *   3. other member: wait until PICK != 0; read it; reset PICK to 0.
 *   4. every member: create the team on that slot (claimed under the team lock; a slot free at
 *      step 1 is still free here, since the member did nothing else in between).
 *
 * On return every pSync word this rank owns is SHMEM_SYNC_VALUE again: the root's USED and
 * COUNT are reset before its SETs, and a member resets its own PICK. The root's own PICK is
 * never written. Later uses of A find the team in the cache and do not touch pSync at all, so
 * back-to-back collectives on one pSync need no barrier between them. Since every member of A
 * takes part in every collective on A, the caches of A's members always agree on whether A is
 * known. Cached teams live until the end of the job (the standard has no call that would end
 * an active set); each takes one of the MM_TEAM_SLOTS slots on its members.
 *
 * Team creation from several threads of one rank at once (an active set's first use racing a
 * split) could pick a slot that another thread claims between steps 1 and 4; step 4 detects it
 * and ends the job with a message instead of corrupting a team.
 */
#include "shmem_coll_impl.h"

#include <stdlib.h>
#include <string.h>

enum { SHMEMI_ASET_USED = 0, SHMEMI_ASET_COUNT = 1, SHMEMI_ASET_PICK = 2 };

static_assert(SHMEM_SYNC_VALUE == 0, "the active-set protocol accumulates into pSync from 0");
static_assert(sizeof(long) == 8, "pSync words carry 64-bit slot masks");
static_assert(SHMEMI_ASET_PICK < SHMEM_ASET_PSYNC_WORDS, "pSync words of the protocol");
static_assert(SHMEM_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS &&
                  SHMEM_BARRIER_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS &&
                  SHMEM_BCAST_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS &&
                  SHMEM_COLLECT_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS &&
                  SHMEM_REDUCE_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS &&
                  SHMEM_ALLTOALL_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS &&
                  SHMEM_ALLTOALLS_SYNC_SIZE >= SHMEM_ASET_PSYNC_WORDS,
              "every pSync holds the words of the active-set protocol");

typedef struct {
    int start, stride, size;
    shmem_team_t team;
} shmemi_aset_entry_t;

static shmemi_aset_entry_t *shmemi_aset_cache;
static int shmemi_aset_count, shmemi_aset_cap;
static pthread_mutex_t shmemi_aset_lock = PTHREAD_MUTEX_INITIALIZER;

static shmem_team_t shmemi_aset_find(int start, int stride, int size)
{
    shmem_team_t team = SHMEM_TEAM_INVALID;
    pthread_mutex_lock(&shmemi_aset_lock);
    for (int i = 0; i < shmemi_aset_count && team == SHMEM_TEAM_INVALID; i++)
        if (shmemi_aset_cache[i].start == start && shmemi_aset_cache[i].stride == stride &&
            shmemi_aset_cache[i].size == size)
            team = shmemi_aset_cache[i].team;
    pthread_mutex_unlock(&shmemi_aset_lock);
    return team;
}

static void shmemi_aset_insert(int start, int stride, int size, shmem_team_t team)
{
    pthread_mutex_lock(&shmemi_aset_lock);
    if (shmemi_aset_count == shmemi_aset_cap) {
        int cap = shmemi_aset_cap ? 2 * shmemi_aset_cap : 8;
        shmemi_aset_entry_t *c = realloc(shmemi_aset_cache, sizeof(*c) * (size_t)cap);
        if (c == NULL)
            mm_fatal("active-set collective: out of memory for the team cache");
        shmemi_aset_cache = c;
        shmemi_aset_cap = cap;
    }
    shmemi_aset_cache[shmemi_aset_count++] = (shmemi_aset_entry_t){start, stride, size, team};
    pthread_mutex_unlock(&shmemi_aset_lock);
}

/* one atomic on the 64-bit pSync word @p word of world rank @p rank */
static void shmemi_aset_atomic(meshmem_amo_op_t op, long *pSync, int word, uint64_t value, int rank)
{
    meshmem_status_t st =
        meshmem_atomic(op, MESHMEM_UINT64, &pSync[word], &value, NULL, NULL, rank);
    if (st != MESHMEM_OK)
        mm_fatal("active-set collective: atomic on pSync of PE %d failed: %s", rank,
                 meshmem_status_string(st));
}

/* steps 1-4 of the protocol above; @return the slot agreed on */
static int shmemi_aset_agree(const char *call, int start, int stride, int size, long *pSync)
{
    shmemi_aset_atomic(MESHMEM_AMO_OR, pSync, SHMEMI_ASET_USED, ~mm_team_slots_free(), start);
    shmemi_aset_atomic(MESHMEM_AMO_ADD, pSync, SHMEMI_ASET_COUNT, 1, start);
    uint64_t pick;
    if (mm_g.rank == start) {
        uint64_t all = (uint64_t)size;
        meshmem_wait_until(&pSync[SHMEMI_ASET_COUNT], MESHMEM_UINT64, MESHMEM_CMP_EQ, &all);
        uint64_t used = __atomic_load_n((uint64_t *)&pSync[SHMEMI_ASET_USED], __ATOMIC_ACQUIRE);
        shmemi_aset_atomic(MESHMEM_AMO_SET, pSync, SHMEMI_ASET_USED, SHMEM_SYNC_VALUE, start);
        shmemi_aset_atomic(MESHMEM_AMO_SET, pSync, SHMEMI_ASET_COUNT, SHMEM_SYNC_VALUE, start);
        if (used == ~UINT64_C(0))
            mm_fatal("%s: no team slot is free on every PE of the active set (start %d, stride "
                     "%d, size %d): all %d are taken by teams and earlier active sets",
                     call, start, stride, size, MM_TEAM_SLOTS);
        pick = (uint64_t)__builtin_ctzll(~used) + 1;
        for (int i = 1; i < size; i++)
            shmemi_aset_atomic(MESHMEM_AMO_SET, pSync, SHMEMI_ASET_PICK, pick, start + i * stride);
    } else {
        uint64_t none = SHMEM_SYNC_VALUE;
        meshmem_wait_until(&pSync[SHMEMI_ASET_PICK], MESHMEM_UINT64, MESHMEM_CMP_NE, &none);
        pick = __atomic_load_n((uint64_t *)&pSync[SHMEMI_ASET_PICK], __ATOMIC_ACQUIRE);
        shmemi_aset_atomic(MESHMEM_AMO_SET, pSync, SHMEMI_ASET_PICK, SHMEM_SYNC_VALUE, mm_g.rank);
    }
    return (int)pick - 1;
}

shmem_team_t shmemi_aset_team(const char *call, int PE_start, int logPE_stride, int PE_size,
                              long *pSync)
{
    MM_CHECK_INIT(call);
    int n = mm_g.nranks;
    if (MM_UNLIKELY(PE_start < 0 || PE_start >= n))
        mm_fatal("%s: PE_start argument (%d) is not a PE (0..%d)", call, PE_start, n - 1);
    if (MM_UNLIKELY(logPE_stride < 0 || logPE_stride > 30))
        mm_fatal("%s: logPE_stride argument (%d) must be in 0..30", call, logPE_stride);
    int stride = 1 << logPE_stride;
    if (MM_UNLIKELY(PE_size < 1 || (int64_t)PE_start + (int64_t)(PE_size - 1) * stride >= n))
        mm_fatal("%s: PE_size argument (%d) with PE_start %d and stride %d leaves the PEs 0..%d",
                 call, PE_size, PE_start, stride, n - 1);
    int d = mm_g.rank - PE_start;
    if (MM_UNLIKELY(d < 0 || d % stride != 0 || d / stride >= PE_size))
        mm_fatal("%s: the calling PE %d is not in the active set (PE_start %d, stride %d, "
                 "PE_size %d)",
                 call, mm_g.rank, PE_start, stride, PE_size);
    if (PE_size == 1)
        stride = 1; /* one key per single-PE set, whatever its stride */
    if (PE_start == 0 && stride == 1 && PE_size == n)
        return SHMEM_TEAM_WORLD;
    shmem_team_t team = shmemi_aset_find(PE_start, stride, PE_size);
    if (team != SHMEM_TEAM_INVALID)
        return team;
    mm_tp_xlate(call, "pSync", pSync, SHMEM_ASET_PSYNC_WORDS * sizeof(long), mm_g.rank);
    int slot = shmemi_aset_agree(call, PE_start, stride, PE_size, pSync);
    team = mm_team_create(PE_start, stride, PE_size, slot);
    if (team == SHMEM_TEAM_INVALID)
        mm_fatal("%s: team slot %d agreed on for the active set was taken meanwhile by a team "
                 "created concurrently by another thread",
                 call, slot);
    shmemi_aset_insert(PE_start, stride, PE_size, team);
    return team;
}

/* ---- the deprecated collectives: one active-set team, then the team routine ---- */

/* broadcast of 1.4: the root's dest is left as it was (1.5's team broadcast writes it) */
static void shmemi_aset_broadcast(const char *call, void *dest, const void *source, size_t nelems,
                                  size_t esize, int PE_root, int PE_start, int logPE_stride,
                                  int PE_size, long *pSync)
{
    shmem_team_t team = shmemi_aset_team(call, PE_start, logPE_stride, PE_size, pSync);
    size_t bytes = nelems * esize;
    void *saved = NULL;
    if (team->my_rank == PE_root && bytes && nelems < PTRDIFF_MAX / esize) {
        mm_tp_xlate(call, "dest", dest, bytes, mm_g.rank);
        saved = malloc(bytes);
        if (saved == NULL)
            mm_fatal("%s: out of memory saving the root's dest (%zu bytes)", call, bytes);
        memcpy(saved, dest, bytes);
    }
    shmemi_coll_broadcast(call, team, dest, source, nelems, esize, PE_root);
    if (saved) {
        memcpy(dest, saved, bytes);
        free(saved);
    }
}

#define SHMEMI_DEF_ASET_GATHER(BITS, BYTES, NAME, KIND)                                            \
    void shmem_##NAME##BITS(void *dest, const void *source, size_t nelems, int PE_start,           \
                            int logPE_stride, int PE_size, long *pSync)                            \
    {                                                                                              \
        const char *call = "shmem_" #NAME #BITS;                                                   \
        shmemi_coll_gather(call, KIND,                                                             \
                           shmemi_aset_team(call, PE_start, logPE_stride, PE_size, pSync), dest,   \
                           source, nelems, BYTES);                                                 \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##NAME##BITS)
#define SHMEMI_DEF_ASET(BITS, BYTES)                                                               \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,         \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)           \
    {                                                                                              \
        shmemi_aset_broadcast("shmem_broadcast" #BITS, dest, source, nelems, BYTES, PE_root,       \
                              PE_start, logPE_stride, PE_size, pSync);                             \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_broadcast##BITS)                                                         \
    SHMEMI_DEF_ASET_GATHER(BITS, BYTES, collect, SHMEMI_COLL_COLLECT)                              \
    SHMEMI_DEF_ASET_GATHER(BITS, BYTES, fcollect, SHMEMI_COLL_FCOLLECT)                            \
    SHMEMI_DEF_ASET_GATHER(BITS, BYTES, alltoall, SHMEMI_COLL_ALLTOALL)                            \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,         \
                               long *pSync)                                                        \
    {                                                                                              \
        const char *call = "shmem_alltoalls" #BITS;                                                \
        shmemi_coll_alltoalls(call,                                                                \
                              shmemi_aset_team(call, PE_start, logPE_stride, PE_size, pSync),      \
                              dest, source, dst, sst, nelems, BYTES);                              \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_alltoalls##BITS)
SHMEM_ASET_SIZES(SHMEMI_DEF_ASET)

#define SHMEMI_DEF_TO_ALL(CTYPE, TYPENAME, OP)                                                     \
    void shmem_##TYPENAME##_##OP##_to_all(CTYPE *dest, const CTYPE *source, int nreduce,           \
                                          int PE_start, int logPE_stride, int PE_size,             \
                                          CTYPE *pWrk, long *pSync)                                \
    {                                                                                              \
        const char *call = "shmem_" #TYPENAME "_" #OP "_to_all";                                   \
        if (MM_UNLIKELY(nreduce < 0))                                                              \
            mm_fatal("%s: nreduce argument (%d) is negative", call, nreduce);                      \
        shmemi_coll_reduce(call, shmemi_aset_team(call, PE_start, logPE_stride, PE_size, pSync),   \
                           dest, source, (size_t)nreduce, SHMEMI_DTYPE(CTYPE), SHMEMI_MOP_##OP);   \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##TYPENAME##_##OP##_to_all)
#define SHMEMI_DEF_TO_ALL_BITWISE(CTYPE, TYPENAME)                                                 \
    SHMEM_REDUCE_OPS_BITWISE(SHMEMI_DEF_TO_ALL, CTYPE, TYPENAME)
#define SHMEMI_DEF_TO_ALL_MINMAX(CTYPE, TYPENAME)                                                  \
    SHMEM_REDUCE_OPS_MINMAX(SHMEMI_DEF_TO_ALL, CTYPE, TYPENAME)
#define SHMEMI_DEF_TO_ALL_ARITH(CTYPE, TYPENAME)                                                   \
    SHMEM_REDUCE_OPS_ARITH(SHMEMI_DEF_TO_ALL, CTYPE, TYPENAME)
SHMEM_TO_ALL_BITWISE_TYPES(SHMEMI_DEF_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(SHMEMI_DEF_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(SHMEMI_DEF_TO_ALL_ARITH)
