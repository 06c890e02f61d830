/* Init and finalize: the control block, every rank's segments mapped by every peer. */
#include "mm_am.h"
#include "mm_core.h"
#include "mm_dataseg.h"
#include "mm_heap.h"
#include "mm_msg.h"
#include "mm_shm.h"
#include "mm_team.h"
#include "mm_trace.h"
#include "mm_wait.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MM_SEG_MAGIC 0x6d6d7365676d6e74ULL

mm_state_t mm_g = {.rank = 0, .nranks = 1};

static char mm_job[MM_CTL_JOBLEN];
static void **mm_data_map; /* [nranks] peers' data segments as mapped here */

static int mm_env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return (v && *v) ? atoi(v) : def;
}

/* Counter barrier on the control block, for init and finalize only. */
static void mm_ctl_barrier(void)
{
    mm_ctl_t *c = mm_g.ctl;
    if (mm_g.nranks == 1)
        return;
    unsigned gen = atomic_load(&c->barrier_gen);
    if (atomic_fetch_add(&c->barrier_count, 1) == (unsigned)mm_g.nranks - 1) {
        atomic_store(&c->barrier_count, 0);
        atomic_fetch_add(&c->barrier_gen, 1);
        syscall(SYS_futex, (uint32_t *)&c->barrier_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
        return;
    }
    mm_wait_t w;
    mm_wait_init(&w);
    while (atomic_load(&c->barrier_gen) == gen) {
        if (w.polls < 1000) {
            mm_wait_step(&w); /* spin and yield phases (segments may not exist yet) */
            continue;
        }
        struct timespec ts = {0, 2000000};
        syscall(SYS_futex, (uint32_t *)&c->barrier_gen, FUTEX_WAIT, gen, &ts, NULL, 0);
        if (atomic_load(&c->global_exit))
            _exit(atomic_load(&c->global_exit) - 1);
    }
    /* a step may have registered this rank as a sleeper (before mm_wait_setup the spin and
     * yield budgets are 0): left counted, every later put, AMO and signal to this rank would
     * ring its doorbell with a FUTEX_WAKE */
    mm_wait_done(&w);
}

/*
 * CPUs the job's ranks share, to decide whether waits may spin (mm_wait_setup). meshrun passes
 * its own CPU count: a rank bound to one core (--bind-to core) sees a one-CPU affinity mask and
 * would otherwise believe every job of 2 or more ranks oversubscribed, and sleep in every wait.
 */
static int mm_count_cpus(void)
{
    const char *job_cpus = getenv("MESHMEM_JOB_CPUS");
    if (job_cpus) {
        char *end;
        long n = strtol(job_cpus, &end, 10);
        if (*end == 0 && n > 0 && n <= CPU_SETSIZE)
            return (int)n;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* attach to the launcher's control block, or make a private one (singleton run) */
static int mm_ctl_attach(void)
{
    const char *fd_text = getenv("MESHMEM_CTL_FD");
    if (fd_text == NULL) {
        mm_g.singleton = true;
        mm_g.rank = 0;
        mm_g.nranks = 1;
        mm_g.ctl_bytes = mm_ctl_bytes(1);
        mm_g.ctl = calloc(1, mm_g.ctl_bytes);
        if (mm_g.ctl == NULL)
            return -1;
        mm_g.ctl->nranks = 1;
        snprintf(mm_job, sizeof(mm_job), "meshmem.%d.solo", (int)getpid());
        return 0;
    }
    mm_g.rank = mm_env_int("MESHMEM_RANK", -1);
    mm_g.nranks = mm_env_int("MESHMEM_NRANKS", -1);
    int fd = atoi(fd_text);
    if (mm_g.nranks < 1 || mm_g.rank < 0 || mm_g.rank >= mm_g.nranks) {
        mm_error("meshmem_init: MESHMEM_RANK=%d / MESHMEM_NRANKS=%d are inconsistent (start "
                 "programs with meshrun)",
                 mm_g.rank, mm_g.nranks);
        return -1;
    }
    mm_g.ctl_bytes = mm_ctl_bytes((uint32_t)mm_g.nranks);
    void *p = mmap(NULL, mm_g.ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        mm_error("meshmem_init: cannot map the job control block (fd %d): %s", fd,
                 strerror(errno));
        return -1;
    }
    mm_g.ctl = p;
    if (mm_g.ctl->magic != MM_CTL_MAGIC || mm_g.ctl->nranks != (uint32_t)mm_g.nranks) {
        mm_error("meshmem_init: the job control block does not match this job");
        return -1;
    }
    memcpy(mm_job, mm_g.ctl->job, sizeof(mm_job));
    mm_job[sizeof(mm_job) - 1] = '\0';
    return 0;
}

/*
 * At exit without shmem_finalize: a clean exit (status 0) finalizes implicitly, as programs that
 * return from main expect. A failing exit (exit(3) mid-job) must not: finalize is a barrier,
 * and the peers, waiting for something this rank will never do, would never reach it, so the
 * job would hang instead of ending with the status. on_exit (not atexit) is what sees it.
 */
static void mm_on_exit(int status, void *arg)
{
    (void)arg;
    if (mm_g.initialized && !mm_g.finalizing && status == 0)
        meshmem_finalize();
}

static size_t mm_round_page(size_t v)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (v + page - 1) & ~(page - 1);
}

/*
 * A heap too large for the machine must be refused before it is created: the segments are
 * pre-faulted, so an oversized one would first fill /dev/shm (memory every process on the
 * machine shares) and then die of SIGBUS on the first page past the end. Each rank checks its
 * own segment against the free space, and the job's total against the size of /dev/shm and of
 * memory (free space alone would race with the peers creating theirs at the same moment).
 */
static int mm_heap_fits(size_t seg_bytes, int nranks)
{
    unsigned long long need = (unsigned long long)seg_bytes * (unsigned long long)nranks;
    unsigned long long phys = (unsigned long long)sysconf(_SC_PHYS_PAGES) *
                              (unsigned long long)sysconf(_SC_PAGESIZE);
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) != 0)
        return 0; /* no /dev/shm to measure: shm_open decides */
    unsigned long long total = (unsigned long long)sv.f_blocks * sv.f_frsize;
    unsigned long long avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
    if (need / (unsigned long long)nranks != seg_bytes || need > total || need > phys ||
        seg_bytes > avail) {
        mm_error("meshmem_init: symmetric heap of %zu bytes per PE (SHMEM_SYMMETRIC_SIZE or "
                 "meshrun --heap) x %d PEs does not fit in /dev/shm (%llu bytes, %llu free; "
                 "memory %llu bytes): choose a smaller size",
                 seg_bytes, nranks, total, avail, phys);
        return -1;
    }
    return 0;
}

static int mm_segments_create(void)
{
    char name[128];
    int n = mm_g.nranks, me = mm_g.rank;
    mm_g.heap_size = mm_round_page((size_t)(mm_config.heap_size > 0 ? mm_config.heap_size : 1));
    /* eager channels: a multiple of the cache line, at least one line */
    mm_g.eager_bytes = ((size_t)(mm_config.eager_size > 64 ? mm_config.eager_size : 64) + 63) &
                       ~(size_t)63;
    mm_g.slot_bytes = mm_team_slot_bytes(n, mm_g.eager_bytes);
    mm_g.sync_offset = mm_round_page(sizeof(mm_seg_hdr_t));
    /* active-message rings (src/am/mm_am.h) between the sync slots and the heap, so that
     * they are pre-faulted with it; their size follows MESHMEM_AM_SLOTS / _AM_MEDIUM_SIZE */
    mm_g.am_offset = mm_round_page(mm_g.sync_offset + MM_TEAM_SLOTS * mm_g.slot_bytes);
    mm_g.am_bytes = mm_am_region_bytes(n);
    mm_g.heap_offset = mm_round_page(mm_g.am_offset + mm_g.am_bytes);
    mm_g.stage_offset = mm_g.heap_offset + mm_g.heap_size;
    mm_g.stage_size = mm_round_page((size_t)(mm_config.stage_size > 0 ? mm_config.stage_size : 0));
    mm_g.seg_bytes = mm_g.stage_offset + mm_g.stage_size;

    mm_g.seg_base = calloc((size_t)n, sizeof(char *));
    mm_g.heap_delta = calloc((size_t)n, sizeof(intptr_t));
    mm_g.data_delta = calloc((size_t)n, sizeof(intptr_t));
    mm_data_map = calloc((size_t)n, sizeof(void *));
    if (!mm_g.seg_base || !mm_g.heap_delta || !mm_g.data_delta || !mm_data_map)
        return -1;

    if (mm_heap_fits(mm_g.stage_offset, n) != 0) /* staging is touched only when used */
        return -1;
    mm_shm_name(name, sizeof(name), mm_job, me, "heap");
    /* the heap starts on an MM_HEAP_ALIGN boundary, so shmem_align can honour up to that */
    char *seg = mm_shm_create(name, mm_g.seg_bytes, mm_config.hugepages,
                              mm_config.prefault ? mm_g.stage_offset : mm_g.sync_offset,
                              MM_HEAP_ALIGN, mm_g.heap_offset);
    if (seg == NULL) {
        mm_error("meshmem_init: cannot create the symmetric heap (%zu bytes; set "
                 "SHMEM_SYMMETRIC_SIZE lower?)",
                 mm_g.seg_bytes);
        return -1;
    }
    mm_g.seg_base[me] = seg;
    mm_seg_hdr_t *hdr = (mm_seg_hdr_t *)seg;
    hdr->magic = MM_SEG_MAGIC;
    hdr->seg_bytes = mm_g.seg_bytes;
    mm_g.heap_base = (uintptr_t)(seg + mm_g.heap_offset);
    if (mm_g.singleton)
        mm_shm_unlink(name);

    mm_g.data_base = 0;
    mm_g.data_size = 0;
    void *dstart;
    size_t dsize;
    if (mm_dataseg_find(&dstart, &dsize) == 0) {
        /* a single rank needs no sharing: globals are symmetric with themselves */
        if (n > 1 && mm_config.data_remap) {
            mm_shm_name(name, sizeof(name), mm_job, me, "data");
            if (mm_dataseg_remap(name, dstart, dsize) != 0)
                return -1;
        }
        mm_g.data_base = (uintptr_t)dstart;
        mm_g.data_size = dsize;
    }
    mm_ctl_rank_t *cr = &mm_g.ctl->ranks[me];
    cr->pid = (int32_t)getpid();
    cr->heap_seg_size = mm_g.seg_bytes;
    cr->data_seg_size = (n > 1 && mm_config.data_remap) ? mm_g.data_size : 0;
    return 0;
}

static int mm_segments_map_peers(void)
{
    char name[128];
    int n = mm_g.nranks, me = mm_g.rank;
    for (int k = 1; k < n; k++) {
        int p = (me + k) % n;
        mm_ctl_rank_t *cr = &mm_g.ctl->ranks[p];
        if (cr->heap_seg_size != mm_g.seg_bytes) {
            mm_error("meshmem_init: PE %d has a symmetric heap of %llu bytes, PE %d of %zu: "
                     "SHMEM_SYMMETRIC_SIZE / MESHMEM_HEAP_SIZE must be the same on every PE",
                     p, (unsigned long long)cr->heap_seg_size, me, mm_g.seg_bytes);
            return -1;
        }
        mm_shm_name(name, sizeof(name), mm_job, p, "heap");
        mm_g.seg_base[p] =
            mm_shm_map(name, mm_g.seg_bytes, NULL, mm_config.prefault ? mm_g.stage_offset : 0);
        if (mm_g.seg_base[p] == NULL)
            return -1;
        mm_g.heap_delta[p] = (intptr_t)(mm_g.seg_base[p] - mm_g.seg_base[me]);
        if (cr->data_seg_size) {
            if (cr->data_seg_size != mm_g.data_size) {
                mm_error("meshmem_init: PE %d runs a different executable (static data of "
                         "%llu bytes, here %zu)",
                         p, (unsigned long long)cr->data_seg_size, mm_g.data_size);
                return -1;
            }
            mm_shm_name(name, sizeof(name), mm_job, p, "data");
            mm_data_map[p] = mm_shm_map(name, mm_g.data_size, NULL, 0);
            if (mm_data_map[p] == NULL)
                return -1;
            mm_g.data_delta[p] = (intptr_t)((uintptr_t)mm_data_map[p] - mm_g.data_base);
        }
    }
    if (n > 1 && !mm_g.ctl->ranks[me].data_seg_size) {
        mm_g.data_size = 0; /* static data not shared: not remotely accessible */
    }
    return 0;
}

meshmem_status_t meshmem_init(int requested, int *provided)
{
    (void)requested;
    if (mm_g.initialized) {
        if (provided)
            *provided = mm_g.thread_level;
        return MESHMEM_OK;
    }
    /* attach first: a configuration error then names the right rank */
    if (mm_ctl_attach() != 0 || mm_config_load() != 0)
        goto fail;
    mm_g.thread_level = MESHMEM_THREAD_MULTIPLE;
    mm_g.ncpus = mm_count_cpus();
    mm_g.oversubscribed = mm_g.nranks > mm_g.ncpus;
    mm_wait_setup();
    mm_trace_init(); /* before the first barrier: every rank maps the event counters first */
    if (mm_segments_create() != 0)
        goto fail;
    atomic_store(&mm_g.ctl->ranks[mm_g.rank].state, MM_RANK_RUNNING);
    mm_ctl_barrier(); /* every segment exists */
    if (mm_segments_map_peers() != 0)
        goto fail;
    mm_ctl_barrier(); /* every segment is mapped by every peer: the names can go */
    if (!mm_g.singleton) {
        char name[128];
        mm_shm_name(name, sizeof(name), mm_job, mm_g.rank, "heap");
        mm_shm_unlink(name);
        mm_shm_name(name, sizeof(name), mm_job, mm_g.rank, "data");
        mm_shm_unlink(name);
    }
    if (mm_heap_init(mm_symheap, (void *)mm_g.heap_base, mm_g.heap_size) != 0 ||
        mm_msg_init(mm_g.seg_base[mm_g.rank] + mm_g.stage_offset, mm_g.stage_size) != 0 ||
        mm_team_init() != 0 || mm_am_init() != 0)
        goto fail;
    static bool atexit_done;
    if (!atexit_done) {
        on_exit(mm_on_exit, NULL);
        atexit_done = true;
    }
    mm_g.initialized = true;
    mm_g.finalizing = false;
    mm_trace_mark(); /* the program's first interval starts here, not at mm_trace_init */
    if (provided)
        *provided = mm_g.thread_level;
    mm_debug("initialised: %d ranks, heap %zu bytes, static data %zu bytes", mm_g.nranks,
             mm_g.heap_size, mm_g.data_size);
    return MESHMEM_OK;
fail:
    mm_fatal("meshmem_init failed (see above)");
}

void meshmem_finalize(void)
{
    if (!mm_g.initialized || mm_g.finalizing)
        return;
    mm_g.finalizing = true;
    atomic_store(&mm_g.ctl->ranks[mm_g.rank].state, MM_RANK_FINALIZING);
    mm_am_quiesce(); /* every active message this rank sent is handled before the barrier */
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    mm_trace_fini();
    mm_am_fini();
    atomic_store(&mm_g.ctl->ranks[mm_g.rank].state, MM_RANK_FINALIZED);
    mm_g.initialized = false;
    mm_team_fini();
    mm_heap_fini(mm_symheap);
    mm_msg_fini();
    /* peers stay mapped until everyone is through the barrier above; then unmap */
    for (int p = 0; p < mm_g.nranks; p++) {
        if (p != mm_g.rank && mm_g.seg_base[p])
            munmap(mm_g.seg_base[p], mm_g.seg_bytes);
        if (p != mm_g.rank && mm_data_map[p])
            munmap(mm_data_map[p], mm_g.data_size);
    }
    /* our own segment stays mapped until exit: a slow peer may still be waking us */
    free(mm_g.seg_base);
    free(mm_g.heap_delta);
    free(mm_g.data_delta);
    free(mm_data_map);
    mm_g.seg_base = NULL;
    mm_data_map = NULL;
    mm_g.heap_delta = mm_g.data_delta = NULL;
    mm_g.heap_base = mm_g.data_base = 0;
    mm_g.heap_size = mm_g.data_size = 0;
}

int meshmem_initialized(void)
{
    return mm_g.initialized;
}

void meshmem_global_exit(int status)
{
    fflush(NULL);
    if (mm_g.ctl) {
        int expected = 0;
        atomic_compare_exchange_strong(&mm_g.ctl->global_exit, &expected, (status & 0xff) + 1);
        atomic_store(&mm_g.ctl->ranks[mm_g.rank].state, MM_RANK_GLOBAL_EXIT);
    }
    _exit(status);
}

int meshmem_rank(void)
{
    return mm_g.rank;
}

int meshmem_nranks(void)
{
    return mm_g.nranks;
}

int meshmem_query_thread(void)
{
    return mm_g.thread_level;
}

void meshmem_config_print(void *stream)
{
    mm_config_print(stream ? (FILE *)stream : stdout);
}
