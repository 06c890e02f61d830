/*
 * Bootstrap of ranks forked by meshrun (mm_boot.h): the job control block is a memfd that
 * meshrun created and every rank inherited (MESHMEM_CTL_FD); rank and size come in
 * MESHMEM_RANK / MESHMEM_NRANKS. The launcher reads each rank's state from the block to tell a
 * crash from a clean exit, and stops the job when one sets global_exit.
 */
#include "mm_boot.h"
#include "mm_core.h"
#include "mm_wait.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static mm_ctl_t *mm_ctl;

static int mm_env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return (v && *v) ? atoi(v) : def;
}

static int mm_meshrun_init(void)
{
    mm_g.rank = mm_env_int("MESHMEM_RANK", -1);
    mm_g.nranks = mm_env_int("MESHMEM_NRANKS", -1);
    int fd = mm_env_int("MESHMEM_CTL_FD", -1);
    if (mm_g.nranks < 1 || mm_g.rank < 0 || mm_g.rank >= mm_g.nranks) {
        int r = mm_g.rank;
        mm_g.rank = r < 0 ? 0 : r; /* a valid label for the message */
        mm_error("meshmem_init: MESHMEM_RANK=%d / MESHMEM_NRANKS=%d are inconsistent (start "
                 "programs with meshrun)",
                 r, mm_g.nranks);
        mm_g.nranks = 1;
        return -1;
    }
    uint64_t bytes = mm_ctl_bytes((uint32_t)mm_g.nranks);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        mm_error("meshmem_init: cannot map the job control block (fd %d): %s", fd, strerror(errno));
        return -1;
    }
    mm_ctl = p;
    if (mm_ctl->magic != MM_CTL_MAGIC || mm_ctl->nranks != (uint32_t)mm_g.nranks) {
        mm_error("meshmem_init: the job control block does not match this job");
        return -1;
    }
    char job[MM_CTL_JOBLEN];
    memcpy(job, mm_ctl->job, sizeof(job));
    job[sizeof(job) - 1] = '\0';
    mm_boot_set_job(job);
    mm_ctl->ranks[mm_g.rank].pid = (int32_t)getpid();
    mm_g.local_size = mm_g.nranks; /* meshrun starts every rank on its own machine */
    return 0;
}

/* Counter barrier on the control block, used a handful of times per job. It may run before this
 * rank has a segment (nothing to sleep on then), so it sleeps on the block's own futex word. */
static int mm_meshrun_barrier(void)
{
    mm_ctl_t *c = mm_ctl;
    if (mm_g.nranks == 1)
        return 0;
    unsigned gen = atomic_load(&c->barrier_gen);
    if (atomic_fetch_add(&c->barrier_count, 1) == (unsigned)mm_g.nranks - 1) {
        atomic_store(&c->barrier_count, 0);
        atomic_fetch_add(&c->barrier_gen, 1);
        syscall(SYS_futex, (uint32_t *)&c->barrier_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
        return 0;
    }
    mm_wait_t w;
    mm_wait_init(&w);
    while (atomic_load(&c->barrier_gen) == gen) {
        /* not on a paced network (the rtl simulator): each step there blocks this rank until
         * the simulator's next epoch, and the rank that arrives last (by wall time) steps none,
         * so the ranks would leave one epoch apart, whichever came first: the simulated times
         * after meshmem_init differed from run to run. Nothing before this barrier waits on the
         * simulator once the transport's own barrier is done, so sleeping here keeps it still
         * and every rank leaves at the same epoch (docs/rtl-transport.md) */
        if (w.polls < 1000 && !mm_wait_net_paced) {
            mm_wait_step(&w); /* spin and yield phases only: the budgets are small here */
            continue;
        }
        struct timespec ts = {0, 2000000};
        syscall(SYS_futex, (uint32_t *)&c->barrier_gen, FUTEX_WAIT, gen, &ts, NULL, 0);
        if (atomic_load(&c->global_exit))
            _exit(atomic_load(&c->global_exit) - 1);
    }
    /* a step may have registered this rank as a sleeper: left counted, every later put to this
     * rank would ring its doorbell */
    mm_wait_done(&w);
    return 0;
}

/* through the ranks' exchange slots, a slot's worth at a time, two barriers a round: after the
 * first every slot holds its rank's part, after the second every rank has read them all */
static int mm_meshrun_allgather(const void *mine, void *all, size_t len)
{
    size_t off = 0;
    do {
        size_t n = len - off < MM_CTL_SLOT_BYTES ? len - off : MM_CTL_SLOT_BYTES;
        memcpy(mm_ctl_slot(mm_ctl, (uint32_t)mm_g.rank), (const char *)mine + off, n);
        mm_meshrun_barrier();
        for (int r = 0; r < mm_g.nranks; r++)
            memcpy((char *)all + (size_t)r * len + off, mm_ctl_slot(mm_ctl, (uint32_t)r), n);
        mm_meshrun_barrier();
        off += MM_CTL_SLOT_BYTES;
    } while (off < len);
    return 0;
}

static void mm_meshrun_set_state(int state)
{
    atomic_store(&mm_ctl->ranks[mm_g.rank].state, state);
}

static int mm_meshrun_ending(void)
{
    return atomic_load_explicit(&mm_ctl->global_exit, memory_order_relaxed);
}

static __attribute__((noreturn)) void mm_meshrun_abort(int status, const char *why)
{
    (void)why; /* already printed; meshrun names the rank */
    int expected = 0;
    atomic_compare_exchange_strong(&mm_ctl->global_exit, &expected, (status & 0xff) + 1);
    _exit(status);
}

static void mm_meshrun_set_call(const char *call)
{
    char *out = mm_ctl->ranks[mm_g.rank].call;
    size_t cap = sizeof(mm_ctl->ranks[0].call);
    out[0] = '\0'; /* meshrun may read it meanwhile: never a name cut by a longer one */
    snprintf(out + 1, cap - 1, "%s", call + (call[0] != '\0'));
    out[0] = call[0];
}

static bool mm_meshrun_claim_report(void)
{
    int expected = 0;
    return atomic_compare_exchange_strong(&mm_ctl->report_claimed, &expected, 1);
}

static void mm_meshrun_fini(void)
{
    /* the block stays mapped: the launcher reads the final state after exit */
}

const mm_boot_ops_t mm_boot_meshrun_ops = {
    .name = "meshrun",
    .init = mm_meshrun_init,
    .allgather = mm_meshrun_allgather,
    .barrier = mm_meshrun_barrier,
    .set_state = mm_meshrun_set_state,
    .ending = mm_meshrun_ending,
    .abort = mm_meshrun_abort,
    .claim_report = mm_meshrun_claim_report,
    .set_call = mm_meshrun_set_call,
    .fini = mm_meshrun_fini,
};
