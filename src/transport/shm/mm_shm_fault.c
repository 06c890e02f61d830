/*
 * SIGBUS in the job's shared memory (mm_shm.h, mm_shm_fault_init). A segment's pages are
 * allocated when they are first written; when the machine (or a tmpfs or memory-cgroup limit)
 * cannot give a page, the kernel raises SIGBUS (or, short of memory, its OOM killer's SIGKILL,
 * which nothing can turn into a message). The symmetric allocation commits its blocks up front
 * (MESHMEM_PREFAULT=1, mm_symalloc.c), so this is the path of the memory committed lazily:
 * MESHMEM_PREFAULT=0, the staging area, or a segment cut short under the job. The handler only
 * explains: the rank cannot go on from a page that does not exist, so it ends the job as
 * mm_fatal does.
 */
#include "mm_shm.h"
#include "mm_tp.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct sigaction mm_shm_fault_prev;

/* is @p a in the heap segment or static data of some rank, as mapped here? */
static bool mm_shm_fault_locate(uintptr_t a, int *owner, const char **what, size_t *off)
{
    for (int q = 0; mm_tp_peers && q < mm_g.nranks; q++) {
        if (mm_tp_peers[q].kind != MM_TP_SHM)
            continue;
        const mm_shm_peer_t *p = &mm_tp_peers[q].shm;
        if (p->seg && a - (uintptr_t)p->seg < mm_g.seg_bytes) {
            size_t o = (size_t)(a - (uintptr_t)p->seg);
            *owner = q;
            *what = o < mm_g.heap_offset    ? "runtime area"
                    : o < mm_g.stage_offset ? "symmetric heap"
                                            : "staging area";
            *off = o >= mm_g.heap_offset && o < mm_g.stage_offset ? o - mm_g.heap_offset : o;
            return true;
        }
        uintptr_t data = mm_g.data_base + (uintptr_t)p->data_delta;
        if (p->seg && mm_g.data_size && a - data < mm_g.data_size) {
            *owner = q;
            *what = "static data";
            *off = (size_t)(a - data);
            return true;
        }
    }
    return false;
}

static void mm_shm_fault_on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    int owner;
    const char *what;
    size_t off;
    if (!mm_shm_fault_locate((uintptr_t)si->si_addr, &owner, &what, &off)) {
        /* not the job's memory: the previous disposition takes the fault when it recurs */
        sigaction(sig, &mm_shm_fault_prev, NULL);
        return;
    }
    char line[400];
    int n = snprintf(line, sizeof(line),
                     "meshmem[%d] error: out of memory: page %zu of PE %d's %s could not be "
                     "allocated (SIGBUS at %p): the machine, or the job's memory limit, has no "
                     "room left for it (MESHMEM_PREFAULT=1 allocates a symmetric block's pages "
                     "at shmem_malloc, which then returns NULL instead)\n",
                     mm_g.rank, off / (size_t)sysconf(_SC_PAGESIZE), owner, what, si->si_addr);
    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    if (mm_boot) { /* (not mm_set_state: the segment header may be the page that failed) */
        mm_boot->set_state(MM_RANK_FAILED);
        mm_boot->abort(1, "out of memory");
    }
    _exit(1);
}

void mm_shm_fault_init(void)
{
    static bool installed;
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = mm_shm_fault_on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &mm_shm_fault_prev) == 0)
        installed = true;
}
