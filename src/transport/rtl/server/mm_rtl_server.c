/*
 * meshmem-rtlsim: the simulator process of the rtl transport (mm_rtl_ctl.h says why there is
 * one, docs/rtl-transport.md how it runs). meshrun --rtl CONFIG starts it beside the ranks:
 *
 *     meshmem-rtlsim CONFIG        (MESHMEM_RTL_FD: the control block, inherited)
 *
 * It builds the system of CONFIG with one node per rank, maps every rank's memory as its node's
 * once the rank has joined, and then, in epochs: waits until every rank is blocked on it (or
 * gone), submits the descriptors the ranks queued (in rank order, so runs are deterministic),
 * runs the clock until a completion arrives or nothing moves, hands the completions to their
 * ranks, publishes the cycle and wakes the ranks. It exits when every rank is gone, or with one
 * line when the configuration is bad or the engine stalls (the watchdog's report names what
 * waits); meshrun then stops the job.
 */
#include "mm_rtl_ctl.h"
#include "mm_rtlsim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static mm_rtl_ctl_t *C;

static void futex_wait(_Atomic uint32_t *w, uint32_t v, long ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, v, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* one line, in the block for the ranks and on stderr for the user; the ranks are woken */
static void __attribute__((format(printf, 1, 2), noreturn)) fail(const char *fmt, ...)
{
    char line[sizeof(C->error)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "meshmem-rtlsim: %s\n", line);
    if (C != NULL) {
        memcpy(C->error, line, sizeof(line));
        atomic_store(&C->sim_state, MM_RTL_S_FAILED);
        atomic_fetch_add(&C->epoch, 1);
        futex_wake(&C->epoch);
    }
    exit(1);
}

/* rank @p r's memory, mapped as one range: its segment, static data and region at the node
 * addresses it chose (mm_rtl.c) */
static void attach(mm_rtlsim *s, int r)
{
    mm_rtl_slot_t *k = &C->rank[r];
    uint64_t total = 0;
    for (int i = 0; i < 3; i++)
        if (k->fd[i] >= 0 && k->base[i] + k->bytes[i] > total)
            total = k->base[i] + k->bytes[i];
    char *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        fail("cannot reserve %llu bytes for rank %d's memory: %s", (unsigned long long)total, r,
             strerror(errno));
    for (int i = 0; i < 3; i++) {
        if (k->fd[i] < 0 || k->bytes[i] == 0)
            continue;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)k->pid, (int)k->fd[i]);
        int fd = open(path, O_RDWR);
        if (fd < 0)
            fail("cannot open rank %d's memory (%s): %s", r, path, strerror(errno));
        if (mmap(base + k->base[i], k->bytes[i], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                 0) == MAP_FAILED)
            fail("cannot map rank %d's memory (%s): %s", r, path, strerror(errno));
        close(fd);
    }
    if (mm_rtlsim_attach_memory(s, r, base, total) != 0)
        fail("cannot attach rank %d's memory", r);
}

/* wait until every rank satisfies @p ready; @return false when every rank is gone */
static bool wait_ranks(bool (*ready)(const mm_rtl_slot_t *, uint32_t), uint32_t epoch)
{
    for (;;) {
        uint32_t bell = atomic_load(&C->bell);
        bool all = true, any = false;
        for (uint32_t r = 0; r < C->nranks; r++) {
            const mm_rtl_slot_t *k = &C->rank[r];
            uint32_t st = atomic_load(&k->state);
            any |= st != MM_RTL_R_GONE;
            all &= st == MM_RTL_R_GONE || ready(k, epoch);
        }
        if (!any)
            return false;
        if (all)
            return true;
        futex_wait(&C->bell, bell, 100000000L);
    }
}

static bool joined(const mm_rtl_slot_t *k, uint32_t epoch)
{
    (void)epoch;
    return atomic_load(&k->state) == MM_RTL_R_JOINED;
}

static bool blocked(const mm_rtl_slot_t *k, uint32_t epoch)
{
    return atomic_load(&k->blocked) == epoch + 1;
}

int main(int argc, char **argv)
{
    const char *fds = getenv("MESHMEM_RTL_FD");
    if (argc != 2 || fds == NULL) {
        fprintf(stderr, "usage: MESHMEM_RTL_FD=FD meshmem-rtlsim CONFIG (meshrun --rtl starts "
                        "it)\n");
        return 2;
    }
    int cfd = atoi(fds);
    mm_rtl_ctl_t head;
    if (pread(cfd, &head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
        head.magic != MM_RTL_CTL_MAGIC)
        fail("MESHMEM_RTL_FD=%s is not the job's control block", fds);
    C = mmap(NULL, mm_rtl_ctl_bytes(head.nranks), PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
    if (C == MAP_FAILED) {
        C = NULL;
        fail("cannot map the control block: %s", strerror(errno));
    }
    int n = (int)C->nranks;
    char over[64], err[512];
    snprintf(over, sizeof(over), "topology.nodes=%d", n);
    mm_rtlsim *s = mm_rtlsim_create(argv[1], over, err, sizeof(err));
    if (s == NULL)
        fail("%s", err);
    C->clock_mhz = mm_rtlsim_clock_mhz(s);
    atomic_store(&C->sim_state, MM_RTL_S_RUNNING);
    futex_wake(&C->epoch);
    if (!wait_ranks(joined, 0))
        return 0;
    for (int r = 0; r < n; r++)
        attach(s, r);

    uint64_t *work = calloc((size_t)n, sizeof(uint64_t));
    int quiet_epochs = 0, stalled = 0;
    for (uint32_t epoch = atomic_load(&C->epoch);; epoch++) {
        if (!wait_ranks(blocked, epoch))
            break;
        /* the descriptors queued since the last epoch, rank by rank */
        uint64_t submitted = 0, worked = 0;
        for (int r = 0; r < n; r++) {
            mm_rtl_slot_t *k = &C->rank[r];
            uint64_t head_ = atomic_load(&k->sq_head), tail = atomic_load(&k->sq_tail);
            for (; tail != head_; tail++, submitted++)
                mm_rtlsim_submit(s, r, &k->sq[tail % MM_RTL_SQ]);
            atomic_store(&k->sq_tail, tail);
            uint64_t w = atomic_load(&k->work);
            worked += w != work[r];
            work[r] = w;
        }
        uint64_t before = mm_rtlsim_cycle(s);
        int rc = mm_rtlsim_run(s, UINT64_MAX, 1);
        /* nothing can move while a descriptor waits: a collective some member has not
         * submitted yet, which it will once its wait is served (a message to handle). A
         * stall only when the ranks too do nothing for a while */
        stalled = rc == MM_RTLSIM_STALLED && submitted == 0 && worked == 0 ? stalled + 1 : 0;
        if (stalled > 5000)
            fail("the engine stalled: %s", mm_rtlsim_report(s));
        for (int r = 0; r < n; r++) {
            mm_rtl_slot_t *k = &C->rank[r];
            uint64_t h = atomic_load(&k->cq_head);
            mm_rtl_cqe e;
            while (h - atomic_load(&k->cq_tail) < MM_RTL_CQ && mm_rtlsim_poll(s, r, &e)) {
                k->cq[h % MM_RTL_CQ] = e;
                atomic_store(&k->cq_head, ++h);
            }
        }
        atomic_store(&C->cycle, mm_rtlsim_cycle(s));
        /* every rank waits and nothing moved: a wait on something the engine does not carry
         * (the rank's own memory), or a deadlock. Let the ranks look again now and then, not
         * in a tight loop */
        quiet_epochs =
            submitted == 0 && worked == 0 && mm_rtlsim_cycle(s) == before ? quiet_epochs + 1 : 0;
        if (quiet_epochs > 2)
            usleep(1000);
        atomic_store(&C->epoch, epoch + 1);
        futex_wake(&C->epoch);
    }
    free(work);
    mm_rtlsim_destroy(s);
    return 0;
}
