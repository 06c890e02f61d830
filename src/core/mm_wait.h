/**
 * @file mm_wait.h
 * @brief Waiting that stays fast on dedicated cores and polite on oversubscribed ones.
 *
 * A wait polls its condition; between polls mm_wait_step() escalates: spin with a pause
 * instruction (mm_config.spin polls), then sched_yield (mm_config.yield times), then sleep on
 * this rank's futex doorbell. Peers that store into this rank check its sleeper count and ring
 * the doorbell (mm_wake), so a sleeper wakes as soon as data arrives; the futex timeout
 * (mm_config.sleep_us) is only a safety net for plain stores, which carry no fence.
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
 */
#ifndef MM_WAIT_H
#define MM_WAIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t polls;
    uint32_t doorbell;   /* doorbell value seen when we registered as a sleeper */
    uint8_t  cls;        /* MM_WAIT_USER or MM_WAIT_RUNTIME (mm_core.h) */
    bool     registered; /* counted in our sleepers */
} mm_wait_t;

/** Hook run on every wait step (active-message progress); NULL when none. */
extern void (*mm_progress_hook)(void);

/** @brief Start a wait on user memory (woken by peers' puts, AMOs and signals). */
static inline void mm_wait_init(mm_wait_t *w)
{
    w->polls = 0;
    w->cls = 0;
    w->registered = false;
}

/** @brief Start a wait inside the runtime (woken by peers' flag posts). */
static inline void mm_wait_init_runtime(mm_wait_t *w)
{
    w->polls = 0;
    w->cls = 1;
    w->registered = false;
}

/** @brief One step of a wait loop: spin, yield or sleep, as the wait has aged. */
void mm_wait_step(mm_wait_t *w);

/** @brief End a wait (unregisters a sleeper). */
void mm_wait_done(mm_wait_t *w);

/** @brief Pick the spin and yield budgets for this machine (at init). */
void mm_wait_setup(void);

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

/** Wait until the expression @p cond is true, with a wait started by @p init. */
#define MM_WAIT_WITH(init, cond)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            mm_wait_t mm_w_;                                                                       \
            init(&mm_w_);                                                                          \
            while (!(cond))                                                                        \
                mm_wait_step(&mm_w_);                                                              \
            mm_wait_done(&mm_w_);                                                                  \
        }                                                                                          \
    } while (0)

/** Wait until @p cond, a condition on user memory, is true. */
#define MM_WAIT_UNTIL(cond) MM_WAIT_WITH(mm_wait_init, cond)

/** Wait until @p cond, a condition on runtime flags, is true. */
#define MM_WAIT_RUNTIME_UNTIL(cond) MM_WAIT_WITH(mm_wait_init_runtime, cond)

#endif /* MM_WAIT_H */
