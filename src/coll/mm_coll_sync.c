/* Flag primitives of the one-step collectives (protocol in mm_team.h). */
#include "mm_team.h"
#include "mm_wait.h"

#include <stdlib.h>
#include <string.h>

void mm_team_heard_alloc(struct meshmem_team *t)
{
    t->heard = calloc((size_t)t->size, sizeof(uint64_t));
    if (t->heard == NULL)
        mm_fatal("collective on a team of %d: out of memory", t->size);
}

/* the room check of mm_team.h: member dst has completed seq-2 */
static void mm_coll_wait_room(struct meshmem_team *t, int dst, uint64_t seq)
{
    mm_flag_t *c = mm_team_completed(t, mm_team_world(t, dst));
    MM_WAIT_RUNTIME_UNTIL(mm_seq_reached(atomic_load_explicit(&c->seq, memory_order_acquire), seq - 2));
}

void mm_coll_room(struct meshmem_team *t, int dst, uint64_t seq)
{
    if (MM_UNLIKELY(!mm_seq_reached(t->heard[dst] + 1, seq)))
        mm_coll_wait_room(t, dst, seq);
}

void mm_coll_post(struct meshmem_team *t, int dst, int kind, uint64_t seq,
                  const uint64_t *payload, int n)
{
    mm_coll_room(t, dst, seq);
    mm_flag_t *f = mm_team_flag(t, mm_team_world(t, dst), seq, kind, t->my_rank);
    for (int i = 0; i < n; i++)
        f->payload[i] = payload[i];
    /* release: the payload (same line) and every earlier store become visible with the seq */
    atomic_store_explicit(&f->seq, seq, memory_order_release);
}

void mm_coll_wake(struct meshmem_team *t, int dst)
{
    atomic_thread_fence(memory_order_seq_cst); /* posts before the sleeper check (mm_wait.h) */
    mm_wake_runtime(mm_team_world(t, dst));
}

void mm_coll_wake_all(struct meshmem_team *t)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int r = 0; r < t->size; r++)
        if (r != t->my_rank)
            mm_wake_runtime(mm_team_world(t, r));
}

const mm_flag_t *mm_coll_wait(struct meshmem_team *t, int src, int kind, uint64_t seq)
{
    mm_flag_t *f = mm_team_flag(t, mm_g.rank, seq, kind, src);
    MM_WAIT_RUNTIME_UNTIL(mm_seq_reached(atomic_load_explicit(&f->seq, memory_order_acquire), seq));
    if (mm_seq_reached(seq, t->heard[src]))
        t->heard[src] = seq;
    return f;
}

uint64_t mm_coll_exchange_open(struct meshmem_team *t, int kind, const uint64_t *in, int n,
                               uint64_t *out)
{
    uint64_t seq = mm_coll_begin(t);
    int me = t->my_rank;
    /* post to peers starting after me, so that members do not all hit member 0 first */
    for (int k = 1; k < t->size; k++)
        mm_coll_post(t, (me + k) % t->size, kind, seq, in, n);
    mm_coll_wake_all(t);
    if (out)
        memcpy(out + (size_t)me * (size_t)n, in, (size_t)n * sizeof(uint64_t));
    for (int k = 1; k < t->size; k++) {
        int src = (me + t->size - k) % t->size;
        const mm_flag_t *f = mm_coll_wait(t, src, kind, seq);
        if (out)
            memcpy(out + (size_t)src * (size_t)n, f->payload, (size_t)n * sizeof(uint64_t));
    }
    return seq;
}

uint64_t mm_coll_exchange(struct meshmem_team *t, int kind, const uint64_t *in, int n,
                          uint64_t *out)
{
    uint64_t seq = mm_coll_exchange_open(t, kind, in, n, out);
    mm_coll_end(t, seq);
    return seq;
}

void mm_coll_sync(struct meshmem_team *t)
{
    mm_coll_exchange(t, MM_FLAG_ARRIVE, NULL, 0, NULL);
}
