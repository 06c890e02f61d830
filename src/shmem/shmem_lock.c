/*
 * OpenSHMEM distributed locks (1.5 section 9.12): an MCS queue lock on the symmetric long.
 *
 * The long is two 32-bit words on every PE (the user zeroes it before first use):
 *   tail  - used on PE 0 only: 0 when the lock is free, else 1 + the PE last in the queue;
 *   node  - used on each PE for itself: 1 + its successor in the queue (0: none yet), and
 *           MCS_GRANTED while this PE holds the lock.
 * set_lock: clear own node; swap self into PE 0's tail; if there was a predecessor, write self
 *   into the predecessor's node and wait for MCS_GRANTED in own node; else set it there itself.
 * clear_lock: take MCS_GRANTED off own node (a PE without it does not hold the lock: an error,
 *   which would otherwise wait forever for a successor); quiet; if no successor has linked in,
 *   try to swing tail from self back to 0 (compare-and-swap); if that fails a successor is
 *   between its swap and its link: wait for the link. Then set MCS_GRANTED in the successor's
 *   node.
 * Every waiter waits on its own memory, which the PE that ends its wait writes (with a wake),
 * so waiting PEs sleep instead of polling PE 0; the queue grants the lock in request order.
 * Every access to another PE's words is a 32-bit AMO of the transport (mm_tp_amo), so the
 * lock works the same between hosts.
 * Only the owner clears its node, and only while it is not queued, so no write of an earlier
 * round can land on a node of a later one.
 */
#include "mm_tp.h"
#include "shmem_internal.h"

#define MCS_GRANTED   (UINT32_C(1) << 31)
#define MCS_NEXT_MASK (MCS_GRANTED - 1)

typedef struct {
    uint32_t tail;
    uint32_t node;
} shmemi_lock_t;
_Static_assert(sizeof(shmemi_lock_t) == sizeof(long), "an MCS lock fits a symmetric long");

/* check the lock argument of @p call; @return this PE's copy */
static shmemi_lock_t *shmemi_lock_mine(const char *call, long *lock)
{
    shmemi_lock_t *l = mm_tp_xlate(call, "lock", lock, sizeof(long), mm_g.rank);
    if (MM_UNLIKELY(((uintptr_t)lock & (sizeof(long) - 1)) != 0))
        mm_fatal("%s: lock argument (%p) is not aligned to a long", call, (void *)lock);
    return l;
}

/* AMO @p op on the tail (PE 0) or node word of @p lock at @p pe; @return the old value */
static uint32_t shmemi_lock_amo(uint32_t *word, meshmem_amo_op_t op, uint32_t value, uint32_t cond,
                                int pe)
{
    uint64_t old = 0;
    mm_tp_amo(pe, word, op, sizeof(uint32_t), value, cond, &old);
    return (uint32_t)old;
}

#define SHMEMI_LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)

void shmem_set_lock(long *lock)
{
    int me = mm_g.rank;
    shmemi_lock_t *mine = shmemi_lock_mine("shmem_set_lock", lock), *sym = (shmemi_lock_t *)lock;
    __atomic_store_n(&mine->node, 0, __ATOMIC_SEQ_CST);
    uint32_t prev = shmemi_lock_amo(&sym->tail, MESHMEM_AMO_SWAP, (uint32_t)me + 1, 0, 0);
    if (prev == 0) {
        shmemi_lock_amo(&sym->node, MESHMEM_AMO_OR, MCS_GRANTED, 0, me);
        return;
    }
    shmemi_lock_amo(&sym->node, MESHMEM_AMO_OR, (uint32_t)me + 1, 0, (int)prev - 1);
    MM_WAIT_UNTIL((SHMEMI_LOAD(&mine->node) & MCS_GRANTED) != 0);
}
SHMEMI_PROFILED(shmem_set_lock)

int shmem_test_lock(long *lock)
{
    int me = mm_g.rank;
    shmemi_lock_t *mine = shmemi_lock_mine("shmem_test_lock", lock), *sym = (shmemi_lock_t *)lock;
    if (shmemi_lock_amo(&sym->tail, MESHMEM_AMO_FETCH, 0, 0, 0) != 0)
        return 1; /* held: do not disturb our node, which the holder does not know of */
    __atomic_store_n(&mine->node, 0, __ATOMIC_SEQ_CST);
    if (shmemi_lock_amo(&sym->tail, MESHMEM_AMO_CSWAP, (uint32_t)me + 1, 0, 0) != 0)
        return 1;
    shmemi_lock_amo(&sym->node, MESHMEM_AMO_OR, MCS_GRANTED, 0, me);
    return 0;
}
SHMEMI_PROFILED(shmem_test_lock)

void shmem_clear_lock(long *lock)
{
    int me = mm_g.rank;
    shmemi_lock_t *mine = shmemi_lock_mine("shmem_clear_lock", lock), *sym = (shmemi_lock_t *)lock;
    /* only this PE writes the bit: a successor linking in meanwhile keeps its link */
    uint32_t held = shmemi_lock_amo(&sym->node, MESHMEM_AMO_AND, ~MCS_GRANTED, 0, me);
    if (MM_UNLIKELY(!(held & MCS_GRANTED)))
        mm_fatal("shmem_clear_lock: lock argument (%p) is not held by this PE", (void *)lock);
    meshmem_quiet(); /* the critical section's stores are complete before the next holder */
    uint32_t next = SHMEMI_LOAD(&mine->node) & MCS_NEXT_MASK;
    if (next == 0) {
        uint32_t self = (uint32_t)me + 1;
        if (shmemi_lock_amo(&sym->tail, MESHMEM_AMO_CSWAP, 0, self, 0) == self)
            return;
        MM_WAIT_UNTIL((next = SHMEMI_LOAD(&mine->node) & MCS_NEXT_MASK) != 0);
    }
    shmemi_lock_amo(&sym->node, MESHMEM_AMO_OR, MCS_GRANTED, 0, (int)next - 1);
}
SHMEMI_PROFILED(shmem_clear_lock)
