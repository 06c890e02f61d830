/*
 * Init and finalize: the one place that assembles the layers, bottom up. Join the job
 * (src/core: mm_boot.h), lay out and create this rank's segments (src/transport/shm), give
 * every peer its transport (src/transport: mm_tp.h: the node's shared memory, the networks),
 * then start the heap, collectives and active messages on them. Nothing below calls up here:
 * core depends on no other layer, the transports on core alone.
 */
#include "mm_am.h"
#include "mm_core.h"
#include "mm_heap.h"
#include "mm_msg.h"
#include "mm_shm.h"
#include "mm_team.h"
#include "mm_tp.h"
#include "mm_trace.h"
#include "mm_wait.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

mm_state_t mm_g = {.rank = 0, .nranks = 1};

/*
 * CPUs the node's ranks share, to decide whether waits may spin (mm_wait_setup). A launcher
 * that binds each rank to one core (meshrun --bind-to core, mpirun's default for few ranks)
 * leaves a one-CPU affinity mask: a rank would then believe every node of 2 or more ranks
 * oversubscribed and sleep in every wait. meshrun passes the job's CPU count
 * (MESHMEM_JOB_CPUS); under another launcher the machine's online CPUs count.
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
    int mask = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (mm_boot != &mm_boot_meshrun_ops && online > mask)
        return (int)online;
    return mask > 0 ? mask : online > 0 ? (int)online : 1;
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

/* the layout of a heap segment, identical on every rank (mm_core.h) */
static void mm_segment_layout(void)
{
    int n = mm_g.nranks;
    mm_g.heap_size = mm_round_page((size_t)(mm_config.heap_size > 0 ? mm_config.heap_size : 1));
    /* eager channels: a multiple of the cache line, at least one line */
    mm_g.eager_bytes =
        ((size_t)(mm_config.eager_size > 64 ? mm_config.eager_size : 64) + 63) & ~(size_t)63;
    mm_g.slot_bytes = mm_team_slot_bytes(n, mm_g.eager_bytes);
    mm_g.sync_offset = mm_round_page(sizeof(mm_seg_hdr_t));
    /* active-message rings (src/am/mm_am.h) between the sync slots and the heap, so that
     * they are committed with the sync slots; their size follows MESHMEM_AM_SLOTS /
     * _AM_MEDIUM_SIZE */
    mm_g.am_offset = mm_round_page(mm_g.sync_offset + MM_TEAM_SLOTS * mm_g.slot_bytes);
    mm_g.am_bytes = mm_am_region_bytes(n);
    mm_g.heap_offset = mm_round_page(mm_g.am_offset + mm_g.am_bytes);
    mm_g.stage_offset = mm_g.heap_offset + mm_g.heap_size;
    mm_g.stage_size = mm_round_page((size_t)(mm_config.stage_size > 0 ? mm_config.stage_size : 0));
    mm_g.seg_bytes = mm_g.stage_offset + mm_g.stage_size;
}

meshmem_status_t meshmem_init(int requested, int *provided)
{
    (void)requested;
    if (mm_g.initialized) {
        if (provided)
            *provided = mm_g.thread_level;
        return MESHMEM_OK;
    }
    /* join first: a configuration error then names the right rank */
    mm_g.local_size = 1;
    if (mm_boot_init() != 0)
        goto fail;
    char why[256];
    if (mm_config_load(why, sizeof(why)) != 0) /* every rank reads the same: one line */
        mm_fatal_collective("meshmem_init: %s", why);
    if (mm_g.rank == 0)
        mm_config_check_names();
    mm_g.singleton = mm_boot == &mm_boot_single_ops;
    mm_g.thread_level = MESHMEM_THREAD_MULTIPLE;
    mm_trace_init(); /* before the first barrier: every rank maps the event counters first */
    mm_segment_layout();
    if (mm_shm_seg_create() != 0)
        goto fail;
    mm_set_state(MM_RANK_RUNNING);
    if (mm_tp_init() != 0)
        goto fail;
    mm_shm_fault_init(); /* every segment of the host is mapped: a SIGBUS in one is explained */
    mm_g.ncpus = mm_count_cpus();
    mm_g.oversubscribed = mm_g.machine_size > mm_g.ncpus;
    mm_wait_setup();
    if (mm_heap_init(mm_symheap, (void *)mm_g.heap_base, mm_g.heap_size) != 0 ||
        mm_msg_init(mm_g.seg + mm_g.stage_offset, mm_g.stage_size) != 0 || mm_team_init() != 0 ||
        mm_am_init() != 0)
        goto fail;
    if (mm_boot->barrier() != 0) /* every rank can now be reached by every other */
        goto fail;
    mm_report_claim = mm_tp_claim_report;
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
    char heap[24], data[24], nets[64] = "none";
    for (int i = 0, n = 0; i < mm_tp_nnets && n >= 0 && (size_t)n < sizeof(nets); i++)
        n +=
            snprintf(nets + n, sizeof(nets) - (size_t)n, "%s%s", i ? "," : "", mm_tp_nets[i]->name);
    mm_info("meshmem_init: rank %d of %d on %d host%s (%d rank%s here), heap %s, static data "
            "%s, bootstrap %s, network%s %s",
            mm_g.rank, mm_g.nranks, mm_g.nnodes, mm_g.nnodes > 1 ? "s" : "", mm_g.local_size,
            mm_g.local_size > 1 ? "s" : "", mm_format_size(heap, sizeof(heap), mm_g.heap_size),
            mm_format_size(data, sizeof(data), mm_g.data_size), mm_boot->name,
            mm_tp_nnets > 1 ? "s" : "", nets);
    return MESHMEM_OK;
fail:
    mm_fatal("meshmem_init failed (see above)");
}

void meshmem_finalize(void)
{
    if (!mm_g.initialized || mm_g.finalizing)
        return;
    mm_g.finalizing = true;
    mm_set_state(MM_RANK_FINALIZING);
    mm_am_quiesce(); /* every active message this rank sent is handled before the barrier */
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    mm_trace_fini();
    mm_am_fini();
    mm_set_state(MM_RANK_FINALIZED);
    mm_g.initialized = false;
    mm_team_fini();
    mm_heap_fini(mm_symheap);
    mm_msg_fini();
    mm_report_claim = NULL; /* rank 0's word goes with the networks */
    mm_tp_fini();           /* collective: the networks close; the node's segments are unmapped */
    mm_boot->fini();
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
    if (mm_boot) {
        mm_set_state(MM_RANK_GLOBAL_EXIT);
        char why[64];
        snprintf(why, sizeof(why), "shmem_global_exit(%d) on rank %d", status, mm_g.rank);
        mm_boot->abort(status & 0xff, why);
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

double meshmem_wtime(void)
{
    return mm_tp_wtime();
}

int meshmem_query_thread(void)
{
    return mm_g.thread_level;
}

void meshmem_config_print(void *stream)
{
    mm_config_print(stream ? (FILE *)stream : stdout);
}
