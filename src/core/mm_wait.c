/* Waiting: spin, yield, then sleep on the rank's futex doorbell (see mm_wait.h). */
#include "mm_wait.h"
#include "mm_core.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void (*mm_progress_hook)(void);
void (*mm_wait_net_poll)(void);
void (*mm_wait_net_idle)(void);
bool mm_wait_net_paced;
uint32_t mm_wait_inline_polls;

/* inline polls at most: keeps the progress hook's first call within a few microseconds */
#define MM_WAIT_INLINE_MAX 1024u

static uint64_t mm_spin_ns;  /* pause-polling time */
static uint64_t mm_yield_ns; /* sched_yield time after it */

static uint64_t mm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long mm_futex(atomic_uint *addr, int op, uint32_t val, const struct timespec *ts)
{
    /* not FUTEX_PRIVATE: the doorbell lives in memory shared between processes */
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

/*
 * Budgets. A rank with a core of its own polls for milliseconds (a peer descheduled for a
 * time slice is still seen at once when it comes back; sleeping costs a futex wake of several
 * microseconds on both sides), yields for longer, and sleeps only when nothing has come for
 * tens of milliseconds. A rank sharing its core polls a few times and then yields at once,
 * which hands the core to the peers it waits for, as OpenMPI does when oversubscribed (every
 * microsecond spent polling is one the peer that would post cannot run); it sleeps only after
 * yielding for a long time (a peer computing, not communicating).
 */
void mm_wait_setup(void)
{
    bool over = mm_g.oversubscribed;
    int64_t spin_us = mm_config.spin_us >= 0 ? mm_config.spin_us : (over ? 0 : 2000);
    /* a rank with peers on other hosts serves their puts, gets and AMOs in its own progress
     * (UCX over TCP has no hardware RMA): asleep, it serves them through the progress thread,
     * a wake-up of that thread and one of its own per message. So it yields on for a second,
     * as MPI and OSHMEM poll for good (docs/results-across.md, "Waits that stay awake"). */
    int64_t yield_default = over ? 10000 : mm_wait_net_poll != NULL ? 1000000 : 20000;
    int64_t yield_us = mm_config.yield_us >= 0 ? mm_config.yield_us : yield_default;
    mm_spin_ns = (uint64_t)spin_us * 1000u;
    mm_yield_ns = (uint64_t)yield_us * 1000u;
    /* oversubscribed, a few polls: a peer on this core cannot post while we poll */
    mm_wait_inline_polls = over || spin_us == 0 ? 4u : MM_WAIT_INLINE_MAX;
    /* a paced network: each poll is the simulator's next step, and the progress hook (a
     * request to this rank, its own included, waits for it) runs from the first stepped poll */
    if (mm_wait_net_paced)
        mm_wait_inline_polls = 1u;
}

static void mm_check_job_alive(void)
{
    /* a global_exit elsewhere: stop waiting for peers that will never come */
    int ending = mm_boot ? mm_boot->ending() : 0;
    if (ending)
        _exit(ending - 1);
}

void mm_wait_step(mm_wait_t *w)
{
    if (mm_wait_net_poll)
        mm_wait_net_poll();
    if (mm_progress_hook)
        mm_progress_hook();
    uint32_t n = w->polls++;
    if (mm_wait_net_paced) { /* the poll above waited for the simulator's next step */
        if ((n & 63) == 0)
            mm_check_job_alive();
        return;
    }
    if (w->phase == MM_WAIT_SPIN) {
        if (mm_spin_ns == 0) { /* no spin budget (oversubscribed): yield from the first step */
            w->phase = MM_WAIT_YIELD;
            return;
        }
        mm_cpu_relax();
        if ((n & 63) == 0) { /* the clock every 64 polls: a couple of microseconds */
            uint64_t now = mm_now_ns();
            if (w->t0 == 0)
                w->t0 = now;
            if (now - w->t0 >= mm_spin_ns)
                w->phase = MM_WAIT_YIELD;
        }
        return;
    }
    if (w->phase == MM_WAIT_YIELD) {
        sched_yield();
        if ((n & 7) == 0) {
            mm_check_job_alive();
            uint64_t now = mm_now_ns();
            if (w->t0 == 0)
                w->t0 = now;
            /* no segment yet (the init barrier): nothing to sleep on, yield on */
            if (now - w->t0 >= mm_spin_ns + mm_yield_ns && mm_g.seg != NULL)
                w->phase = MM_WAIT_SLEEP;
        }
        return;
    }
    mm_waiter_t *me = &mm_own_hdr()->waiter;
    if (!w->registered) {
        /* register, then let the caller re-check its condition before we sleep */
        w->doorbell = atomic_load(&me->doorbell);
        atomic_fetch_add(&me->sleepers[w->cls], 1);
        /* the waiter's half of the Dekker pair (mm_rma.h, mm_signal_post): the caller's
         * re-check, an acquire load, must not be satisfied before our count is visible */
        atomic_thread_fence(memory_order_seq_cst);
        w->registered = true;
        return;
    }
    struct timespec ts = {.tv_sec = mm_config.sleep_us / 1000000,
                          .tv_nsec = (mm_config.sleep_us % 1000000) * 1000};
    /* peers on other hosts reach this memory only through the network's progress: hand it
     * over before each sleep (every safety-net wake-up progressed here, too) */
    if (mm_wait_net_idle != NULL)
        mm_wait_net_idle();
    mm_futex(&me->doorbell, FUTEX_WAIT, w->doorbell, &ts);
    w->doorbell = atomic_load(&me->doorbell);
    mm_check_job_alive();
}

void mm_wait_rewind(mm_wait_t *w)
{
    mm_wait_done(w);
    w->phase = MM_WAIT_YIELD;
    w->t0 = mm_now_ns() - mm_spin_ns; /* a whole yield phase again */
}

void mm_wait_done(mm_wait_t *w)
{
    if (w->registered) {
        atomic_fetch_sub(&mm_own_hdr()->waiter.sleepers[w->cls], 1);
        w->registered = false;
    }
}

void mm_wake_slow(mm_waiter_t *w)
{
    atomic_fetch_add(&w->doorbell, 1);
    mm_futex(&w->doorbell, FUTEX_WAKE, INT32_MAX, NULL);
}

void mm_wake_self(void)
{
    mm_waiter_t *w = &mm_own_hdr()->waiter;
    if ((atomic_load(&w->sleepers[MM_WAIT_USER]) | atomic_load(&w->sleepers[MM_WAIT_RUNTIME])) != 0)
        mm_wake_slow(w);
}
