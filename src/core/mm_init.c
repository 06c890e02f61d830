/*
 * Init and finalize: join the job (mm_boot.h), create this rank's segments, find which ranks
 * share this node and map their segments (mm_shm.h), connect to the others through the network
 * transport (mm_net.h), then start the heap, collectives and active messages.
 */
#include "mm_am.h"
#include "mm_core.h"
#include "mm_dataseg.h"
#include "mm_fault.h"
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
#include <sys/mman.h>
#include <unistd.h>

#define MM_SEG_MAGIC 0x6d6d7365676d6e74ULL

mm_state_t mm_g = {.rank = 0, .nranks = 1};

static int mm_seg_fd = -1, mm_data_fd = -1; /* this rank's segments, shared with node peers */
static void **mm_data_map;                  /* [nranks] node peers' static data mapped here */

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
    mm_g.eager_bytes = ((size_t)(mm_config.eager_size > 64 ? mm_config.eager_size : 64) + 63) &
                       ~(size_t)63;
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

/*
 * The segment reserves the heap (and staging) without committing it: SHMEM_SYMMETRIC_SIZE may
 * exceed the machine's free memory, as long as the program does not use that much. The runtime's
 * own areas (header, sync slots, active-message rings) are committed here, and each symmetric
 * block when it is allocated (mm_symalloc.c; mm_shm_commit says why). Staging pages are touched
 * when a collective needs them.
 */
static int mm_segments_create(void)
{
    mm_segment_layout();
    /* the heap starts on a boundary of the largest alignment it can hold (mm_heap_base_align) */
    char *seg = mm_shm_create("meshmem-heap", mm_g.seg_bytes, mm_config.hugepages,
                              mm_config.prefault ? mm_g.heap_offset : mm_g.sync_offset,
                              mm_heap_base_align(mm_g.heap_size), mm_g.heap_offset,
                              &mm_seg_fd);
    if (seg == NULL) {
        char heap[24];
        mm_error("meshmem_init: cannot reserve a symmetric heap of %s (SHMEM_SYMMETRIC_SIZE or "
                 "meshrun --heap): the address space holds about 128T a process, and each PE "
                 "maps the heaps of its host's PEs",
                 mm_format_size(heap, sizeof(heap), mm_g.heap_size));
        return -1;
    }
    mm_g.seg = seg;
    mm_seg_hdr_t *hdr = (mm_seg_hdr_t *)seg;
    hdr->magic = MM_SEG_MAGIC;
    hdr->seg_bytes = mm_g.seg_bytes;
    mm_g.heap_base = (uintptr_t)(seg + mm_g.heap_offset);

    mm_g.data_base = 0;
    mm_g.data_size = 0;
    void *dstart;
    size_t dsize;
    if (mm_dataseg_find(&dstart, &dsize) == 0) {
        /* a single rank needs no sharing: globals are symmetric with themselves */
        if (mm_g.nranks > 1 && mm_config.data_remap &&
            mm_dataseg_remap(dstart, dsize, &mm_data_fd) != 0)
            return -1;
        mm_g.data_base = (uintptr_t)dstart;
        mm_g.data_size = dsize;
    }
    return 0;
}

/* every rank's card; nodes numbered in the order of their first rank */
static int mm_nodes_find(const mm_boot_card_t *cards)
{
    int n = mm_g.nranks, nodes = 0;
    for (int r = 0; r < n; r++) {
        mm_peer_t *p = &mm_g.peer[r];
        p->node = -1;
        p->local_rank = 0;
        int64_t split = mm_config.host_ranks;
        for (int q = 0; q < r && p->node < 0; q++)
            if (mm_config.shm && mm_boot_same_node(&cards[q], &cards[r]) &&
                (split == 0 || (split > 0 ? q / split == r / split : q % split == r % split)))
                p->node = mm_g.peer[q].node;
        if (p->node < 0)
            p->node = nodes++;
        for (int q = 0; q < r; q++)
            p->local_rank += mm_g.peer[q].node == p->node;
    }
    mm_g.nnodes = nodes;
    mm_g.node = mm_g.peer[mm_g.rank].node;
    mm_g.local_rank = mm_g.peer[mm_g.rank].local_rank;
    mm_g.local_size = 0;
    for (int r = 0; r < n; r++)
        mm_g.local_size += mm_g.peer[r].node == mm_g.node;
    mm_g.all_local = nodes == 1;
    /* ranks that share this machine's CPUs, whatever their namespaces (virtual hosts, or
     * MESHMEM_SHM=0): waits must not spin when they outnumber the CPUs */
    mm_g.machine_size = 0;
    for (int r = 0; r < n; r++)
        mm_g.machine_size += cards[mm_g.rank].boot_id[0]
                                 ? strcmp(cards[r].boot_id, cards[mm_g.rank].boot_id) == 0
                                 : strcmp(cards[r].host, cards[mm_g.rank].host) == 0;
    for (int r = 0; r < n; r++) {
        if (cards[r].heap_seg_bytes != mm_g.seg_bytes) {
            mm_error("meshmem_init: PE %d has a symmetric heap of %llu bytes, PE %d of %zu: "
                     "SHMEM_SYMMETRIC_SIZE / MESHMEM_HEAP_SIZE must be the same on every PE",
                     r, (unsigned long long)cards[r].heap_seg_bytes, mm_g.rank, mm_g.seg_bytes);
            return -1;
        }
        if (cards[r].data_seg_bytes != cards[mm_g.rank].data_seg_bytes) {
            mm_error("meshmem_init: PE %d runs a different executable (static data of %llu "
                     "bytes, here %llu)",
                     r, (unsigned long long)cards[r].data_seg_bytes,
                     (unsigned long long)cards[mm_g.rank].data_seg_bytes);
            return -1;
        }
    }
    return 0;
}

/* map the segments of this node's other ranks, received over the node's sockets */
static int mm_node_map(int listener, const mm_boot_card_t *cards)
{
    int n = mm_g.nranks, me = mm_g.rank, npeers = 0;
    int *peers = calloc((size_t)n, sizeof(int));
    int(*fds)[2] = calloc((size_t)n, sizeof(*fds));
    if (!peers || !fds) {
        free(peers);
        free(fds);
        return -1;
    }
    for (int r = 0; r < n; r++)
        if (r != me && mm_g.peer[r].node == mm_g.node)
            peers[npeers++] = r;
    int mine[2] = {mm_seg_fd, mm_data_fd};
    int rc = listener < 0 ? 0
                          : mm_shm_exchange(listener, mm_boot_job(), peers, npeers, mine, cards, fds);
    for (int i = 0; i < npeers && rc == 0; i++) {
        int p = peers[i];
        char *seg = mm_shm_map(fds[i][0], mm_g.seg_bytes, NULL,
                               mm_config.prefault ? mm_g.heap_offset : 0);
        if (seg == NULL) {
            rc = -1;
            break;
        }
        mm_g.peer[p].seg = seg;
        mm_g.peer[p].heap_delta = (intptr_t)(seg - mm_g.seg);
        if (fds[i][1] >= 0 && mm_g.data_size) {
            mm_data_map[p] = mm_shm_map(fds[i][1], mm_g.data_size, NULL, 0);
            if (mm_data_map[p] == NULL) {
                rc = -1;
                break;
            }
            mm_g.peer[p].data_delta = (intptr_t)((uintptr_t)mm_data_map[p] - mm_g.data_base);
        }
    }
    for (int i = 0; i < npeers; i++)
        for (int k = 0; k < 2; k++)
            if (fds[i][k] >= 0)
                close(fds[i][k]);
    free(peers);
    free(fds);
    return rc;
}

/* find the node's ranks and map their memory; connect to the others */
static int mm_peers_join(void)
{
    int n = mm_g.nranks;
    mm_g.peer = calloc((size_t)n, sizeof(mm_peer_t));
    mm_data_map = calloc((size_t)n, sizeof(void *));
    mm_boot_card_t *cards = calloc((size_t)n, sizeof(mm_boot_card_t));
    if (!mm_g.peer || !mm_data_map || !cards) {
        free(cards);
        return -1;
    }
    mm_g.peer[mm_g.rank].seg = mm_g.seg;
    mm_boot_card_t mine;
    mm_boot_card_fill(&mine);
    mine.heap_seg_bytes = mm_g.seg_bytes;
    mine.data_seg_bytes = mm_data_fd >= 0 ? mm_g.data_size : 0;
    /* listen before the exchange: once it returns, peers may connect */
    int listener = n > 1 && mm_config.shm ? mm_shm_listen(mm_boot_job(), mm_g.rank) : -1;
    int rc = n > 1 && mm_config.shm && listener < 0 ? -1 : 0;
    if (rc == 0)
        rc = mm_boot->allgather(&mine, cards, sizeof(mine));
    if (rc == 0)
        rc = mm_nodes_find(cards);
    if (rc == 0)
        rc = mm_node_map(mm_g.local_size > 1 ? listener : -1, cards);
    else if (listener >= 0)
        close(listener);
    if (rc == 0 && mm_g.local_size == 1 && listener >= 0)
        close(listener);
    if (rc == 0 && n > 1 && mm_data_fd < 0)
        mm_g.data_size = 0; /* static data not shared: not remotely accessible */
    if (rc == 0 && !mm_g.all_local) {
        bool *remote = calloc((size_t)n, sizeof(bool));
        for (int r = 0; remote && r < n; r++)
            remote[r] = mm_g.peer[r].seg == NULL;
        rc = remote ? mm_net_open(cards, remote) : -1;
        free(remote);
    }
    free(cards);
    return rc;
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
    if (mm_segments_create() != 0)
        goto fail;
    mm_set_state(MM_RANK_RUNNING);
    if (mm_peers_join() != 0)
        goto fail;
    mm_fault_init(); /* every segment of the host is mapped: a SIGBUS in one is explained */
    mm_g.ncpus = mm_count_cpus();
    mm_g.oversubscribed = mm_g.machine_size > mm_g.ncpus;
    mm_wait_setup();
    if (mm_heap_init(mm_symheap, (void *)mm_g.heap_base, mm_g.heap_size) != 0 ||
        mm_msg_init(mm_g.seg + mm_g.stage_offset, mm_g.stage_size) != 0 ||
        mm_team_init() != 0 || mm_am_init() != 0)
        goto fail;
    if (mm_boot->barrier() != 0) /* every rank can now be reached by every other */
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
    char heap[24], data[24];
    mm_info("meshmem_init: rank %d of %d on %d host%s (%d rank%s here), heap %s, static data "
            "%s, bootstrap %s, network %s",
            mm_g.rank, mm_g.nranks, mm_g.nnodes, mm_g.nnodes > 1 ? "s" : "", mm_g.local_size,
            mm_g.local_size > 1 ? "s" : "", mm_format_size(heap, sizeof(heap), mm_g.heap_size),
            mm_format_size(data, sizeof(data), mm_g.data_size), mm_boot->name,
            mm_net ? mm_net->name : "none");
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
    if (mm_net) {
        mm_net->fini(); /* collective: the remote peers are done with this rank's memory */
        mm_net = NULL;
    }
    /* peers stay mapped until everyone is through the barrier above; then unmap */
    for (int p = 0; p < mm_g.nranks; p++) {
        if (p != mm_g.rank && mm_g.peer[p].seg)
            munmap(mm_g.peer[p].seg, mm_g.seg_bytes);
        if (p != mm_g.rank && mm_data_map[p])
            munmap(mm_data_map[p], mm_g.data_size);
    }
    /* our own segment stays mapped until exit: a slow peer may still be waking us */
    mm_boot->fini();
    free(mm_g.peer);
    free(mm_data_map);
    mm_g.peer = NULL;
    mm_data_map = NULL;
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

int meshmem_query_thread(void)
{
    return mm_g.thread_level;
}

void meshmem_config_print(void *stream)
{
    mm_config_print(stream ? (FILE *)stream : stdout);
}
