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
uint32_t mm_wait_inline_polls;

/* inline polls at most: keeps the progress hook's first call within a few microseconds */
#define MM_WAIT_INLINE_MAX 1024u

static uint32_t mm_spin_polls;
static uint32_t mm_yield_polls;

static long mm_futex(atomic_uint *addr, int op, uint32_t val, const struct timespec *ts)
{
    /* not FUTEX_PRIVATE: the doorbell lives in memory shared between processes */
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

void mm_wait_setup(void)
{
    bool over = mm_g.oversubscribed;
    mm_spin_polls = mm_config.spin >= 0 ? (uint32_t)mm_config.spin : (over ? 64u : 20000u);
    mm_yield_polls = mm_config.yield >= 0 ? (uint32_t)mm_config.yield : (over ? 4u : 200u);
    mm_wait_inline_polls = mm_spin_polls < MM_WAIT_INLINE_MAX ? mm_spin_polls : MM_WAIT_INLINE_MAX;
}

static void mm_check_job_alive(void)
{
    /* a global_exit elsewhere: stop waiting for peers that will never come */
    if (mm_g.ctl && atomic_load_explicit(&mm_g.ctl->global_exit, memory_order_relaxed) != 0)
        _exit(atomic_load(&mm_g.ctl->global_exit) - 1);
}

void mm_wait_step(mm_wait_t *w)
{
    if (mm_progress_hook)
        mm_progress_hook();
    uint32_t n = w->polls++;
    if (n < mm_spin_polls) {
        mm_cpu_relax();
        return;
    }
    if (n < mm_spin_polls + mm_yield_polls || mm_g.seg_base == NULL) {
        sched_yield();
        if ((n & 63) == 0)
            mm_check_job_alive();
        return;
    }
    mm_waiter_t *me = &mm_seg_hdr(mm_g.rank)->waiter;
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
    mm_futex(&me->doorbell, FUTEX_WAIT, w->doorbell, &ts);
    w->doorbell = atomic_load(&me->doorbell);
    mm_check_job_alive();
}

void mm_wait_done(mm_wait_t *w)
{
    if (w->registered) {
        atomic_fetch_sub(&mm_seg_hdr(mm_g.rank)->waiter.sleepers[w->cls], 1);
        w->registered = false;
    }
}

void mm_wake_slow(mm_waiter_t *w)
{
    atomic_fetch_add(&w->doorbell, 1);
    mm_futex(&w->doorbell, FUTEX_WAKE, INT32_MAX, NULL);
}
