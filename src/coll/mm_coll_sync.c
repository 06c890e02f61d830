/* Flag primitives of the one-step collectives (protocol in mm_team.h). */
#include "mm_boot.h"
#include "mm_reduce.h"
#include "mm_team.h"
#include "mm_tp.h"
#include "mm_wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the call in progress, as peers and the launcher see it (mm_seg_hdr_t's call) ---- */

typedef struct {
    uint64_t seq;
    int32_t slot;
    uint32_t tag;
    char call[48];
} mm_call_rec_t;
static_assert(sizeof(mm_call_rec_t) == sizeof(((mm_seg_hdr_t *)0)->call), "the record's copy");

/* publish that this rank is in collective @p seq of @p t's slot, call @p call of tag @p tag
 * (seq 0: in none); the launcher is told the name too (its --timeout line) */
static void mm_coll_publish(int slot, uint64_t seq, unsigned tag, const char *call)
{
    /* one record per rank: a thread that finds another publishing leaves it (a diagnostic) */
    static atomic_flag busy = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return;
    mm_seg_hdr_t *h = mm_own_hdr();
    atomic_store_explicit(&h->call.seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    h->call.slot = slot;
    h->call.tag = tag;
    snprintf(h->call.call, sizeof(h->call.call), "%s", call ? call : "");
    atomic_store_explicit(&h->call.seq, seq, memory_order_release);
    if (mm_boot && mm_boot->set_call)
        mm_boot->set_call(seq == 0 ? "" : call ? call : "a collective");
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

/* world rank @p pe's record; false when it publishes none (or was rewriting it). A peer on
 * another host is read by a network get (a round trip: the wait that asks checks such a peer
 * every MM_COLL_REMOTE_CHECK_S), and only while it runs: a rank that finalized may have closed
 * its endpoint (a get then fails the job: "Endpoint timeout"), and one running cannot close it
 * while this rank waits for it. */
static bool mm_coll_peer_rec(int pe, mm_call_rec_t *r)
{
    const void *sym = &mm_own_hdr()->call;
    const mm_call_rec_t *l = mm_tp_line(pe, sym);
    uint64_t again;
    if (l != NULL) {
        memcpy(r, l, sizeof(*r));
        atomic_thread_fence(memory_order_acquire);
        again = atomic_load_explicit((_Atomic uint64_t *)&l->seq, memory_order_relaxed);
    } else {
        if (mm_tp_peer_state(pe) != MM_RANK_RUNNING)
            return false;
        mm_tp_get_line(pe, r, sym, sizeof(*r));
        atomic_thread_fence(memory_order_acquire);
        mm_tp_get_line(pe, &again, sym, sizeof(again));
    }
    r->call[sizeof(r->call) - 1] = '\0';
    return r->seq != 0 && again == r->seq;
}

bool mm_coll_peer_call(int pe, char *out, size_t cap)
{
    mm_call_rec_t r;
    if (!mm_coll_peer_rec(pe, &r) || r.call[0] == '\0')
        return false;
    snprintf(out, cap, "%s", r.call);
    return true;
}

/* the generic name of a collective of kind @p kind, for a rank whose own name is out of reach */
static const char *mm_coll_kind_name(unsigned kind)
{
    static const char *names[] = {"another collective",
                                  "a broadcast",
                                  "a scatter",
                                  "a gather",
                                  "an all-gather (collect)",
                                  "an all-to-all",
                                  "a reduction",
                                  "a reduce",
                                  "a barrier",
                                  "a symmetric allocation",
                                  "a team split",
                                  "another collective"};
    return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : names[0];
}

/* @p call with its operator @p mine replaced by @p theirs ("shmem_int_sum_reduce" ->
 * "shmem_int_max_reduce"), or the operator's name when the call does not name it */
static void mm_coll_op_call(char *out, size_t cap, const char *call, meshmem_op_t mine,
                            meshmem_op_t theirs)
{
    char pat[16];
    snprintf(pat, sizeof(pat), "_%s_", mm_op_name(mine));
    const char *at = strstr(call, pat);
    if (at == NULL)
        snprintf(out, cap, "%s", mm_op_name(theirs));
    else
        snprintf(out, cap, "%.*s_%s_%s", (int)(at - call), call, mm_op_name(theirs),
                 at + strlen(pat));
}

void mm_coll_differs(struct meshmem_team *t, const char *call, int src, unsigned theirs,
                     unsigned mine)
{
    if (call == NULL)
        call = "a collective";
    int me = mm_g.rank, peer = mm_team_world(t, src);
    /* a rank in finalize meets its peers' collective with finalize's barrier: it left main (by
     * exit(), or returning) while they still needed it; that rank is the one to name */
    int st = mm_tp_peer_state(peer);
    if (mm_g.finalizing || st == MM_RANK_FINALIZING || st == MM_RANK_FINALIZED) {
        int gone = mm_g.finalizing ? me : peer, waits = mm_g.finalizing ? peer : me;
        mm_fatal_collective("rank %d waits for rank %d in a collective, but rank %d is in "
                            "shmem_finalize (did it leave main or call exit() while its peers "
                            "still needed it?)",
                            waits, gone, gone);
    }
    bool shmem = strncmp(call, "shmem_", 6) == 0;
    const char *pe = shmem ? "PE" : "rank";
    unsigned gk = MM_CALL_KIND(theirs), wk = MM_CALL_KIND(mine);
    unsigned ga = MM_CALL_ARG(theirs), wa = MM_CALL_ARG(mine);
    /* a peer's tag read from a line's header: its arguments' low 12 bits alone */
    bool partial = (theirs & MM_CALL_TAG_PARTIAL) != 0;
    char my[64], their[64], what[32];
    if (gk != wk) {
        /* the peer finds the mismatch too, and publishes its call's name: wait for it a while
         * (100 ms at most), else name its collective by kind */
        mm_coll_publish(t->slot, t->seq, mine, call);
        bool named = false;
        for (int i = 0; i < 100 && !(named = mm_coll_peer_call(peer, their, sizeof(their))); i++)
            usleep(1000);
        /* a peer on another host that failed meanwhile has said it (its record is out of
         * reach: a get needs its progress); where no bootstrap claims the report (PMIx),
         * this rank's line would say it again, with the peer's call unnamed */
        if (!named && mm_tp_peer_state(peer) == MM_RANK_FAILED)
            mm_fatal_reported();
        if (!named)
            snprintf(their, sizeof(their), "%s", mm_coll_kind_name(gk));
        if (peer < me)
            mm_fatal_collective("%ss are in different collectives: %s %d is in %s, %s %d in %s", pe,
                                pe, peer, their, pe, me, call);
        mm_fatal_collective("%ss are in different collectives: %s %d is in %s, %s %d in %s", pe, pe,
                            me, call, pe, peer, their);
    }
    if (wk == MM_CALL_ALLREDUCE || wk == MM_CALL_REDUCE) { /* MM_CALL_ROOT_OP */
        meshmem_op_t gop = (meshmem_op_t)(ga >> 4 & 7), wop = (meshmem_op_t)(wa >> 4 & 7);
        meshmem_dtype_t gty = (meshmem_dtype_t)(ga & 15), wty = (meshmem_dtype_t)(wa & 15);
        if (gop != wop) {
            snprintf(my, sizeof(my), "%s", shmem ? call : mm_op_name(wop));
            if (shmem)
                mm_coll_op_call(their, sizeof(their), call, wop, gop);
            else
                snprintf(their, sizeof(their), "%s", mm_op_name(gop));
            snprintf(what, sizeof(what), "the operation");
        } else if (gty != wty) {
            snprintf(my, sizeof(my), "%s", mm_dtype_name(wty));
            snprintf(their, sizeof(their), "%s", mm_dtype_name(gty));
            snprintf(what, sizeof(what), "the datatype");
        } else { /* a reduce's root (its low 5 bits from a header) */
            snprintf(my, sizeof(my), "%u", wa >> 7);
            snprintf(their, sizeof(their), "%u%s", ga >> 7,
                     partial && t->size > 32 ? " (mod 32)" : "");
            snprintf(what, sizeof(what), "root");
        }
    } else { /* the root of a broadcast, scatter or gather */
        snprintf(my, sizeof(my), "%u", wa);
        snprintf(their, sizeof(their), "%u%s", ga, partial && t->size > 0xfff ? " (mod 4096)" : "");
        snprintf(what, sizeof(what), "%s", shmem ? "PE_root" : "root");
    }
    if (peer < me)
        mm_fatal_collective("%s: %s differs between %ss (%s %d: %s, %s %d: %s)", call, what, pe, pe,
                            peer, their, pe, me, my);
    mm_fatal_collective("%s: %s differs between %ss (%s %d: %s, %s %d: %s)", call, what, pe, pe, me,
                        my, pe, peer, their);
}

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
                               uint64_t seq, uint64_t coll, double *since)
{
    int w = mm_team_world(t, src);
    int st = mm_tp_peer_state(w);
    if (st != MM_RANK_FINALIZED && (st != MM_RANK_FINALIZING || mm_g.finalizing)) {
        /* src waits in collective coll of this team too, in another call or with other
         * arguments (e.g. shmem_malloc on some PEs, an all-to-all on the others): both would
         * wait for ever */
        mm_call_rec_t r;
        if (t->tag != 0 && mm_coll_peer_rec(w, &r) && r.slot == t->slot && r.seq == coll &&
            r.tag != 0 && r.tag != t->tag)
            mm_coll_differs(t, t->call, src, r.tag, (unsigned)t->tag);
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
    /* every peer of w finds it: one of them says so (the job ends) */
    mm_fatal_collective("rank %d waits for rank %d in a collective, but rank %d %s (did it leave "
                        "main or call exit() while its peers still needed it?)",
                        mm_g.rank, w, w,
                        st == MM_RANK_FINALIZED ? "has finalized" : "is in shmem_finalize");
}

/* a peer on another host is checked by a network round trip that the peer must serve (UCX over
 * TCP: its progress), and that this rank waits for without sleeping: checked every 256 polls,
 * two node leaders sharing a core spent their waits serving each other's checks instead of
 * posting (2 x 2 virtual hosts bound to 2 cores, under load). A wait that lasts checks such a
 * peer every MM_COLL_REMOTE_CHECK_S, from that long after it began */
#define MM_COLL_REMOTE_CHECK_S 0.25

static bool mm_coll_check_due(struct meshmem_team *t, int src, double *next)
{
    if (mm_tp_peers[mm_team_world(t, src)].kind != MM_TP_NET)
        return true;
    double now = mm_now();
    if (*next == 0)
        *next = now + MM_COLL_REMOTE_CHECK_S;
    if (now < *next)
        return false;
    *next = now + MM_COLL_REMOTE_CHECK_S;
    return true;
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
static void mm_coll_wait_seq(struct meshmem_team *t, int src, _Atomic uint64_t *word, uint64_t seq,
                             bool may_sleep)
{
    /* the collective the wait is in: a room check waits for seq - 2 of the one it posts in */
    uint64_t coll = may_sleep ? seq : seq + 2;
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
        mm_wait_inline_hook(polls);
    }
    if (polls <= mm_wait_inline_polls)
        return;
    mm_wait_t w;
    double since = 0, next_check = 0;
    bool published = false;
    mm_wait_init_runtime(&w);
    w.polls = polls;
    while (!mm_seq_reached(atomic_load_explicit(word, memory_order_acquire), seq)) {
        mm_wait_step(&w);
        if (!may_sleep && w.registered) /* registered: it would sleep next; yield on */
            mm_wait_rewind(&w);
        if ((w.polls & 255) == 0) {
            if (!published) { /* a wait that lasts: say which call it is (never on a fast path) */
                mm_coll_publish(t->slot, coll, (unsigned)t->tag, t->call);
                published = true;
            }
            if (mm_coll_check_due(t, src, &next_check))
                mm_coll_check_peer(t, src, word, seq, coll, &since);
        }
    }
    if (published)
        mm_coll_publish(t->slot, 0, 0, NULL);
    mm_wait_done(&w);
}

/*
 * The tags of the last collective member dst completed (its "completed" line, read for the room
 * check: collective @p c, tag @p theirs) and of the same collective here: a root hears from
 * nobody, so this is where it learns that a member took another rank for the root (each "root"
 * of a broadcast then kept its own data). Tags are 0 where a path tells none (mm_coll_end).
 * @return true when they differ: the caller checks that dst's line did not move meanwhile
 * (the tag of c + 2 takes the place of c's), then names the mismatch (mm_coll_room_differs).
 */
static inline bool mm_coll_room_tags(struct meshmem_team *t, uint64_t c, uint64_t theirs,
                                     uint64_t seq)
{
    if (c != seq - 1 && c != seq - 2)
        return false;
    uint64_t mine = mm_team_completed(t)->payload[c & 1];
    return MM_UNLIKELY(theirs != mine && theirs != 0 && mine != 0);
}

static _Noreturn void mm_coll_room_differs(struct meshmem_team *t, int dst, uint64_t c,
                                           uint64_t theirs)
{
    mm_coll_differs(t, t->ended_call[c & 1], dst, (unsigned)theirs,
                    (unsigned)mm_team_completed(t)->payload[c & 1]);
}

/* the room check's wait on a member on another host: its "completed" line is read by get, a
 * network round trip a poll (rooted eager collectives only; others know the room for free);
 * the whole line, so that its tags are compared as a peer's of this host are (out of line: its
 * line, 64-byte aligned, would cost the wait on a peer of the node an aligned stack frame) */
static __attribute__((noinline)) void mm_coll_wait_room_remote(struct meshmem_team *t, int dst,
                                                               uint64_t seq)
{
    int w = mm_team_world(t, dst);
    const mm_flag_t *sym = mm_team_completed(t);
    mm_flag_t done;
    mm_wait_t wt;
    double since = 0;
    mm_wait_init_runtime(&wt);
    for (;;) {
        mm_tp_get_line(w, &done, (const void *)sym, sizeof(done));
        if (mm_seq_reached(done.seq, seq - 2))
            break;
        mm_wait_step(&wt);
        if (wt.registered) /* a get is no wake-up: poll on */
            mm_wait_rewind(&wt);
        if ((wt.polls & 255) == 0)
            mm_coll_check_peer(t, dst, NULL, seq - 2, seq, &since);
    }
    mm_wait_done(&wt);
    uint64_t c = done.seq, theirs = done.payload[c & 1], again;
    if (mm_coll_room_tags(t, c, theirs, seq)) {
        mm_tp_get_line(w, &again, (const void *)&sym->seq, sizeof(again));
        if (again == c)
            mm_coll_room_differs(t, dst, c, theirs);
    }
}

/* the room check of mm_team.h: member dst has completed seq-2 */
void mm_coll_wait_room(struct meshmem_team *t, int dst, uint64_t seq)
{
    int w = mm_team_world(t, dst);
    mm_flag_t *done = mm_tp_line(w, mm_team_completed(t));
    if (done == NULL) {
        mm_coll_wait_room_remote(t, dst, seq);
        return;
    }
    mm_coll_wait_seq(t, dst, &done->seq, seq - 2, false);
    uint64_t c = atomic_load_explicit(&done->seq, memory_order_acquire);
    uint64_t theirs = done->payload[c & 1];
    atomic_thread_fence(memory_order_acquire);
    if (mm_coll_room_tags(t, c, theirs, seq) &&
        atomic_load_explicit(&done->seq, memory_order_relaxed) == c)
        mm_coll_room_differs(t, dst, c, theirs);
}

void mm_coll_post_remote(struct meshmem_team *t, int w, int kind, uint64_t seq,
                         const uint64_t *payload, int nwords, void *extra_dest, const void *extra,
                         size_t extra_len)
{
    mm_flag_t *sym = mm_team_flag(t, seq, kind, t->my_rank);
    mm_tp_post(w, sym, payload, (size_t)nwords * sizeof(uint64_t), seq, extra_dest, extra,
               extra_len);
}

void mm_coll_post(struct meshmem_team *t, int dst, int kind, uint64_t seq, const uint64_t *payload,
                  int n)
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

/* mm_coll_post with the call's tag in the line's last payload word (MM_XCHG_TAG_WORD) */
static inline void mm_coll_post_tagged(struct meshmem_team *t, int dst, int kind, uint64_t seq,
                                       const uint64_t *payload, int n, unsigned tag)
{
    mm_coll_room(t, dst, seq);
    int w = mm_team_world(t, dst);
    mm_flag_t *f = mm_tp_line(w, mm_team_flag(t, seq, kind, t->my_rank));
    if (MM_UNLIKELY(f == NULL)) {
        uint64_t line[MM_FLAG_PAYLOAD] = {0};
        memcpy(line, payload, (size_t)n * sizeof(uint64_t));
        line[MM_XCHG_TAG_WORD] = tag;
        mm_coll_post_remote(t, w, kind, seq, line, MM_FLAG_PAYLOAD, NULL, NULL, 0);
        return;
    }
    for (int i = 0; i < n; i++)
        f->payload[i] = payload[i];
    f->payload[MM_XCHG_TAG_WORD] = tag;
    atomic_store_explicit(&f->seq, seq, memory_order_release);
}

uint64_t mm_coll_exchange_open(struct meshmem_team *t, int kind, unsigned tag, const uint64_t *in,
                               int n, uint64_t *out)
{
    assert(n <= MM_XCHG_TAG_WORD);
    uint64_t seq = mm_coll_begin(t);
    int me = t->my_rank;
    /* post to peers starting after me, so that members do not all hit member 0 first */
    for (int k = 1; k < t->size; k++)
        mm_coll_post_tagged(t, (me + k) % t->size, kind, seq, in, n, tag);
    mm_coll_wake_all(t);
    if (out)
        memcpy(out + (size_t)me * (size_t)n, in, (size_t)n * sizeof(uint64_t));
    for (int k = 1; k < t->size; k++) {
        int src = (me + t->size - k) % t->size;
        const mm_flag_t *f = mm_coll_wait(t, src, kind, seq);
        if (MM_UNLIKELY(f->payload[MM_XCHG_TAG_WORD] != tag))
            mm_coll_differs(t, t->call, src, (unsigned)f->payload[MM_XCHG_TAG_WORD], tag);
        if (out)
            memcpy(out + (size_t)src * (size_t)n, f->payload, (size_t)n * sizeof(uint64_t));
    }
    return seq;
}

uint64_t mm_coll_exchange(struct meshmem_team *t, int kind, unsigned tag, const uint64_t *in, int n,
                          uint64_t *out)
{
    uint64_t seq = mm_coll_exchange_open(t, kind, tag, in, n, out);
    mm_coll_end(t, seq);
    return seq;
}

void mm_fullmesh_barrier(struct meshmem_team *t)
{
    mm_coll_exchange(t, MM_FLAG_ARRIVE, MM_CALL_TAG(MM_CALL_BARRIER, 0), NULL, 0, NULL);
}
