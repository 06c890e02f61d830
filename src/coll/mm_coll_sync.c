/* Flag primitives of the one-step collectives (protocol in mm_team.h). */
#include "mm_team.h"
#include "mm_tp.h"
#include "mm_wait.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void mm_team_heard_alloc(struct meshmem_team *t)
{
    t->heard = calloc((size_t)t->size, sizeof(uint64_t));
    if (t->heard == NULL)
        mm_fatal("collective on a team of %d: out of memory", t->size);
}

static double mm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A wait on member src that can never end: src has finalized (it posts nothing more), or sits
 * in finalize while this rank, not finalizing, waits for it in something else (a rank that
 * left main early, e.g. by exit(0), enters finalize from its exit handler). A peer in finalize
 * can match only a barrier, which completes at once; so a wait that stays unsatisfied for a
 * second is the deadlock, and the job ends with a message instead of hanging.
 */
static void mm_coll_check_peer(struct meshmem_team *t, int src, _Atomic uint64_t *word,
                               uint64_t seq, double *since)
{
    int w = mm_team_world(t, src);
    int st = mm_tp_peer_state(w);
    if (st != MM_RANK_FINALIZED && (st != MM_RANK_FINALIZING || mm_g.finalizing)) {
        *since = 0;
        return;
    }
    /* src stores its state after its last post: re-check the word after reading the state */
    if (word && mm_seq_reached(atomic_load_explicit(word, memory_order_acquire), seq))
        return;
    if (st == MM_RANK_FINALIZING) {
        double now = mm_now();
        if (*since == 0)
            *since = now;
        if (now - *since < 1.0)
            return;
    }
    mm_fatal("rank %d waits for rank %d in a collective, but rank %d %s (did it leave main or "
             "call exit() while its peers still needed it?)",
             mm_g.rank, w, w, st == MM_RANK_FINALIZED ? "has finalized" : "is in shmem_finalize");
}

/* polls without a pause first: a pause costs tens of nanoseconds on recent x86 cores (a sizeable
 * part of a 2-rank collective; docs/results-core.md), and the post is usually a line transfer
 * away; then pause, which spares an SMT sibling */
#define MM_WAIT_TIGHT_POLLS 16u

/*
 * Wait until *word reaches seq, the word being written by member src. With @p may_sleep the
 * wait ends in a futex sleep, for words whose writer wakes sleepers after storing them (flag
 * posts: mm_coll_wake). Without, it spins and yields but never sleeps: for the "completed"
 * word, which mm_coll_end stores without a wake (a wake there would put a fence on every
 * collective's path), so a sleeper would only wake at its futex timeout (MESHMEM_SLEEP_US).
 */
static void mm_coll_wait_seq(struct meshmem_team *t, int src, _Atomic uint64_t *word,
                             uint64_t seq, bool may_sleep)
{
    /* a tight poll first: a post from a peer on its own core lands within a line transfer,
     * and the stepped wait's first step reads the clock (as long as the transfer itself) */
    if (mm_seq_reached(atomic_load_explicit(word, memory_order_acquire), seq))
        return; /* posted already: the common case of a peer that came first */
    uint32_t polls = 0;
    void (*const net_poll)(void) = mm_wait_net_poll;
    while (!mm_seq_reached(atomic_load_explicit(word, memory_order_acquire), seq)) {
        if (++polls > mm_wait_inline_polls)
            break;
        if (polls > MM_WAIT_TIGHT_POLLS)
            mm_cpu_relax();
        if (MM_UNLIKELY(net_poll != NULL))
            net_poll();
    }
    if (polls <= mm_wait_inline_polls)
        return;
    mm_wait_t w;
    double since = 0;
    mm_wait_init_runtime(&w);
    w.polls = polls;
    while (!mm_seq_reached(atomic_load_explicit(word, memory_order_acquire), seq)) {
        mm_wait_step(&w);
        if (!may_sleep && w.registered) /* registered: it would sleep next; yield on */
            mm_wait_rewind(&w);
        if ((w.polls & 255) == 0)
            mm_coll_check_peer(t, src, word, seq, &since);
    }
    mm_wait_done(&w);
}

/* the room check's wait on a member on another host: its "completed" line is read by get, a
 * network round trip a poll (rooted eager collectives only; others know the room for free) */
static void mm_coll_wait_room_remote(struct meshmem_team *t, int dst, uint64_t seq)
{
    int w = mm_team_world(t, dst);
    _Atomic uint64_t *sym = &mm_team_completed(t)->seq;
    uint64_t done;
    mm_wait_t wt;
    double since = 0;
    mm_wait_init_runtime(&wt);
    for (;;) {
        mm_tp_get_line(w, &done, (const void *)sym, sizeof(done));
        if (mm_seq_reached(done, seq))
            break;
        mm_wait_step(&wt);
        if (wt.registered) /* a get is no wake-up: poll on */
            mm_wait_rewind(&wt);
        if ((wt.polls & 255) == 0)
            mm_coll_check_peer(t, dst, NULL, seq, &since);
    }
    mm_wait_done(&wt);
}

/* the room check of mm_team.h: member dst has completed seq-2 */
void mm_coll_wait_room(struct meshmem_team *t, int dst, uint64_t seq)
{
    int w = mm_team_world(t, dst);
    mm_flag_t *done = mm_tp_line(w, mm_team_completed(t));
    if (done == NULL) {
        mm_coll_wait_room_remote(t, dst, seq - 2);
        return;
    }
    mm_coll_wait_seq(t, dst, &done->seq, seq - 2, false);
}

void mm_coll_post_remote(struct meshmem_team *t, int w, int kind, uint64_t seq,
                         const uint64_t *payload, int nwords, void *extra_dest,
                         const void *extra, size_t extra_len)
{
    mm_flag_t *sym = mm_team_flag(t, seq, kind, t->my_rank);
    mm_tp_post(w, sym, payload, (size_t)nwords * sizeof(uint64_t), seq, extra_dest, extra,
               extra_len);
}

void mm_coll_post(struct meshmem_team *t, int dst, int kind, uint64_t seq,
                  const uint64_t *payload, int n)
{
    mm_coll_room(t, dst, seq);
    int w = mm_team_world(t, dst);
    mm_flag_t *f = mm_tp_line(w, mm_team_flag(t, seq, kind, t->my_rank));
    if (MM_UNLIKELY(f == NULL)) {
        mm_coll_post_remote(t, w, kind, seq, payload, n, NULL, NULL, 0);
        return;
    }
    for (int i = 0; i < n; i++)
        f->payload[i] = payload[i];
    /* release: the payload (same line) and every earlier store become visible with the seq */
    atomic_store_explicit(&f->seq, seq, memory_order_release);
}

/*
 * No fence between the posts and the sleeper check: a fence there makes the poster wait until
 * its posts own their lines at the peers (a cache-line round trip; on a machine whose cores are
 * far apart the root of a broadcast paid more for it than the whole OpenMPI broadcast). The
 * price is Dekker's race: a peer that registers as a sleeper while our post is still in our
 * store buffer may miss this wake and sleep until its futex timeout (MESHMEM_SLEEP_US, 1 ms).
 * Runtime waits sleep only after their spin and yield budgets (>= 10 ms), so at worst a wait
 * that was already that long gets 1 ms longer, and only within a window of nanoseconds.
 */
void mm_coll_wake(struct meshmem_team *t, int dst)
{
    mm_tp_wake_runtime(mm_team_world(t, dst));
}

void mm_coll_wake_all(struct meshmem_team *t)
{
    for (int r = 0; r < t->size; r++)
        if (r != t->my_rank)
            mm_tp_wake_runtime(mm_team_world(t, r));
}

const mm_flag_t *mm_coll_wait(struct meshmem_team *t, int src, int kind, uint64_t seq)
{
    mm_flag_t *f = mm_team_flag(t, seq, kind, src);
    mm_coll_wait_seq(t, src, &f->seq, seq, true);
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

void mm_fullmesh_barrier(struct meshmem_team *t)
{
    mm_coll_exchange(t, MM_FLAG_ARRIVE, NULL, 0, NULL);
}
