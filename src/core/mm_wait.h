/**
 * @file mm_wait.h
 * @brief Waiting that stays fast on dedicated cores and polite on oversubscribed ones.
 *
 * A wait polls its condition; between polls mm_wait_step() escalates by time: spin with a pause
 * instruction (MESHMEM_SPIN_US), then sched_yield (MESHMEM_YIELD_US), then sleep on
 * this rank's futex doorbell. Peers that store into this rank check its sleeper count and ring
 * the doorbell (mm_wake), so a sleeper wakes as soon as data arrives; the futex timeout
 * (mm_config.sleep_us) is only a safety net for plain stores and collective flag posts, which
 * carry no fence (mm_coll_sync.c says why that is cheap enough).
 *
 * Sleep protocol (Dekker-style, both sides sequentially consistent):
 *   waiter: db = doorbell; sleepers++; [caller re-checks condition]; futex_wait(doorbell, db)
 *   waker:  store data; (atomic RMW or seq_cst store); if (sleepers) { doorbell++; wake }
 * Either the waker sees sleepers != 0, or the waiter's re-check sees the data.
 *
 * Usage:
 *   mm_wait_t w; mm_wait_init(&w);
 *   while (!cond) mm_wait_step(&w);
 *   mm_wait_done(&w);
 * or MM_WAIT_UNTIL(cond) / MM_WAIT_RUNTIME_UNTIL(cond), which first poll inline (no call on
 * one host; in a job across hosts each poll progresses the network, or a remote peer's put
 * would wait for the progress thread) for up to mm_wait_inline_polls polls, the first part of
 * the spin budget, and only then step: a condition that comes true within a few microseconds
 * (a ping-pong, a barrier of ranks on their own cores) is seen by a tight loop of load,
 * compare, pause. The progress hook (active messages) runs every MM_WAIT_HOOK_POLLS inline
 * polls and at every step: a peer's requests to a rank that waits in a barrier are handled
 * within a microsecond, not after the whole inline phase (tens of microseconds of pauses;
 * 64 requests each way and a barrier took 16 us instead of 5 when they waited for it).
 */
#ifndef MM_WAIT_H
#define MM_WAIT_H

#include "mm_core.h"
#include "mm_trace.h"

#include <stdbool.h>
#include <stdint.h>

/* the phases of a wait: by time, since a poll's cost varies with load and machine */
enum { MM_WAIT_SPIN = 0, MM_WAIT_YIELD = 1, MM_WAIT_SLEEP = 2 };

typedef struct {
    uint32_t polls;
    uint32_t doorbell; /* doorbell value seen when we registered as a sleeper */
    uint8_t cls;       /* MM_WAIT_USER or MM_WAIT_RUNTIME (mm_core.h) */
    uint8_t phase;     /* MM_WAIT_SPIN, _YIELD or _SLEEP */
    bool registered;   /* counted in our sleepers */
    uint64_t t0;       /* when the stepped wait began (ns, monotonic); 0: not yet */
} mm_wait_t;

/** Hook run on every wait step (active-message progress); NULL when none. */
extern void (*mm_progress_hook)(void);

/**
 * Progress of the networks (the transport sets it at init when some peer is reached through
 * one, mm_tp.c; NULL when every peer is in reach of load/store): every poll of a wait calls
 * it, since over TCP the peers' puts, gets and AMOs on this rank's memory are carried out by
 * this rank's progress. A poll loop reads it once before the loop: a global read after each
 * poll's acquire load cannot be hoisted by the compiler, and on one host the loop would pay a
 * load and a branch per poll for nothing.
 */
extern void (*mm_wait_net_poll)(void);

/** Set when a network's progress paces the waits (mm_tp_ops_t's paced: the rtl transport's
 * simulator advances only while every rank waits on it): a wait then polls it step after step
 * and never spins, yields or sleeps by wall time. */
extern bool mm_wait_net_paced;

/** Called before a wait sleeps, when set (a network that serves its peers from a thread wakes
 * it: this rank stops polling). */
extern void (*mm_wait_net_idle)(void);

/** Inline polls between two runs of the progress hook (a power of two): a wait that ends
 * within them, as a ping-pong's, never calls it. */
#define MM_WAIT_HOOK_POLLS 64u

/** @brief Run the progress hook on every MM_WAIT_HOOK_POLLS-th inline poll @p n. */
MM_INLINE_HOT void mm_wait_inline_hook(uint32_t n)
{
    if (MM_UNLIKELY((n & (MM_WAIT_HOOK_POLLS - 1)) == MM_WAIT_HOOK_POLLS - 1) && mm_progress_hook)
        mm_progress_hook();
}

/** Polls a wait makes inline before its first mm_wait_step (set by mm_wait_setup: at most the
 * spin budget, so oversubscribed ranks still yield as early as before). */
extern uint32_t mm_wait_inline_polls;

/** @brief Start a wait on user memory (woken by peers' puts, AMOs and signals). */
static inline void mm_wait_init(mm_wait_t *w)
{
    w->polls = 0;
    w->cls = 0;
    w->phase = MM_WAIT_SPIN;
    w->registered = false;
    w->t0 = 0;
}

/** @brief Start a wait inside the runtime (woken by peers' flag posts). */
static inline void mm_wait_init_runtime(mm_wait_t *w)
{
    w->polls = 0;
    w->cls = 1;
    w->phase = MM_WAIT_SPIN;
    w->registered = false;
    w->t0 = 0;
}

/** @brief One step of a wait loop: spin, yield or sleep, as the wait has aged. */
void mm_wait_step(mm_wait_t *w);

/** @brief End a wait (unregisters a sleeper). */
void mm_wait_done(mm_wait_t *w);

/** @brief Go back to the start of the yield phase, unregistered: for waits whose writer never
 * wakes sleepers (they yield on, they must not sleep). */
void mm_wait_rewind(mm_wait_t *w);

/** @brief Pick the spin and yield budgets for this machine (at init, once the transports are
 * up: a rank with peers on other hosts yields for longer). */
void mm_wait_setup(void);

/** @brief Wake every sleeper of waiting word @p w (a peer's, or this rank's own). */
void mm_wake_slow(mm_waiter_t *w);

/** @brief Wake this rank's own sleepers of both classes, if any (after a network transport
 * wrote into this rank's memory on behalf of a peer; lent to plugins, mm_plugin.h). */
void mm_wake_self(void);

/** @brief Pause instruction for spin loops. */
static inline void mm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#else
    __asm__ volatile("" ::: "memory");
#endif
}

/**
 * Wait until the expression @p cond is true, with a wait started by @p init: an inline poll
 * loop, then (when the condition is still false after mm_wait_inline_polls polls) the stepped
 * wait, which counts the inline polls as spent spin budget. @p cond may be evaluated more than
 * once after it became true; it must be idempotent (every caller's is).
 */
#define MM_WAIT_WITH(init, cond)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            uint32_t mm_n_ = 0;                                                                    \
            const uint32_t mm_lim_ = mm_wait_inline_polls;                                         \
            void (*const mm_poll_)(void) = mm_wait_net_poll;                                       \
            do {                                                                                   \
                mm_cpu_relax();                                                                    \
                if (MM_UNLIKELY(mm_poll_ != NULL))                                                 \
                    mm_poll_();                                                                    \
                mm_wait_inline_hook(mm_n_);                                                        \
            } while (!(cond) && ++mm_n_ < mm_lim_);                                                \
            if (mm_n_ >= mm_lim_) {                                                                \
                mm_wait_t mm_w_;                                                                   \
                init(&mm_w_);                                                                      \
                mm_w_.polls = mm_n_;                                                               \
                while (!(cond))                                                                    \
                    mm_wait_step(&mm_w_);                                                          \
                mm_wait_done(&mm_w_);                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/** Wait until @p cond, a condition on user memory, is true (traced as a wait: mm_trace.h). */
#define MM_WAIT_UNTIL(cond)                                                                        \
    do {                                                                                           \
        MM_TRACE_SCOPE(mm_trace_wait());                                                           \
        MM_WAIT_WITH(mm_wait_init, cond);                                                          \
    } while (0)

/** Wait until @p cond, a condition on runtime flags, is true. */
#define MM_WAIT_RUNTIME_UNTIL(cond) MM_WAIT_WITH(mm_wait_init_runtime, cond)

#endif /* MM_WAIT_H */
