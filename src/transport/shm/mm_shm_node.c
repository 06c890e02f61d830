/*
 * The node: this rank's segments, which of the job's ranks share memory with it, and the mapping
 * of theirs (mm_shm.h). A peer found here gets the shared-memory transport in its entry
 * (mm_tp.h): kind MM_TP_SHM, and the deltas that translate a symmetric address into its mapping.
 */
#include "mm_shm.h"
#include "mm_tp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MM_SEG_MAGIC 0x6d6d7365676d6e74ULL

/* The shared-memory transport's table: its data path is inline (mm_tp.h) and its setup is this
 * file's, so it names itself and offloads no collective. */
const mm_tp_ops_t mm_shm_tp_ops = {.name = "shm"};

static int mm_seg_fd = -1, mm_data_fd = -1; /* this rank's segments, shared with node peers */
static void **mm_data_map;                  /* [nranks] node peers' static data mapped here */

/*
 * The segment reserves the heap (and staging) without committing it: SHMEM_SYMMETRIC_SIZE may
 * exceed the machine's free memory, as long as the program does not use that much. The runtime's
 * own areas (header, sync slots, active-message rings) are committed here, and each symmetric
 * block when it is allocated (mm_symalloc.c; mm_shm_commit says why). Staging pages are touched
 * when a collective needs them.
 */
int mm_shm_seg_create(void)
{
    /* the heap starts on a boundary of the largest alignment it can hold (mm_heap_base_align) */
    char *seg = mm_shm_create("meshmem-heap", mm_g.seg_bytes, mm_config.hugepages,
                              mm_config.prefault ? mm_g.heap_offset : mm_g.sync_offset,
                              mm_heap_base_align(mm_g.heap_size), mm_g.heap_offset, &mm_seg_fd);
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
    if (mm_shm_data_find(&dstart, &dsize) == 0) {
        /* a single rank needs no sharing: globals are symmetric with themselves */
        if (mm_g.nranks > 1 && mm_config.data_remap &&
            mm_shm_data_remap(dstart, dsize, &mm_data_fd) != 0)
            return -1;
        mm_g.data_base = (uintptr_t)dstart;
        mm_g.data_size = dsize;
    }
    return 0;
}

void mm_shm_seg_fds(int fds[2])
{
    fds[0] = mm_seg_fd;
    fds[1] = mm_data_fd;
}

size_t mm_shm_data_shared(void)
{
    return mm_data_fd >= 0 ? mm_g.data_size : 0;
}

int mm_shm_node_listen(void)
{
    if (mm_g.nranks == 1 || !mm_config.shm)
        return -2; /* no peer to map: no socket */
    return mm_shm_listen(mm_boot_job(), mm_g.rank);
}

/* nodes numbered in the order of their first rank: ranks on one machine and in one set of
 * namespaces (mm_boot_same_node), unless MESHMEM_SHM=0 or MESHMEM_HOST_RANKS splits them */
static void mm_shm_nodes_find(const mm_boot_card_t *cards)
{
    int n = mm_g.nranks, nodes = 0;
    int64_t split = mm_config.host_ranks;
    for (int r = 0; r < n; r++) {
        mm_g.node_of[r] = -1;
        for (int q = 0; q < r && mm_g.node_of[r] < 0; q++)
            if (mm_config.shm && mm_boot_same_node(&cards[q], &cards[r]) &&
                (split == 0 || (split > 0 ? q / split == r / split : q % split == r % split)))
                mm_g.node_of[r] = mm_g.node_of[q];
        if (mm_g.node_of[r] < 0)
            mm_g.node_of[r] = nodes++;
    }
    mm_g.nnodes = nodes;
    mm_g.node = mm_g.node_of[mm_g.rank];
    mm_g.local_rank = mm_g.local_size = 0;
    for (int r = 0; r < n; r++) {
        mm_g.local_rank += r < mm_g.rank && mm_g.node_of[r] == mm_g.node;
        mm_g.local_size += mm_g.node_of[r] == mm_g.node;
    }
    mm_g.all_local = nodes == 1;
    /* ranks that share this machine's CPUs, whatever their namespaces (virtual hosts, or
     * MESHMEM_SHM=0): waits must not spin when they outnumber the CPUs */
    mm_g.machine_size = 0;
    for (int r = 0; r < n; r++)
        mm_g.machine_size += cards[mm_g.rank].boot_id[0]
                                 ? strcmp(cards[r].boot_id, cards[mm_g.rank].boot_id) == 0
                                 : strcmp(cards[r].host, cards[mm_g.rank].host) == 0;
}

/* peer @p p's segments, received as @p fds, mapped here: its entry becomes shared memory */
static int mm_shm_peer_map(int p, const int fds[2])
{
    char *seg = mm_shm_map(fds[0], mm_g.seg_bytes, NULL, mm_config.prefault ? mm_g.heap_offset : 0);
    if (seg == NULL)
        return -1;
    mm_tp_peer_t *e = &mm_tp_peers[p];
    e->shm.seg = seg;
    e->shm.seg_delta = (intptr_t)(seg - mm_g.seg);
    if (fds[1] >= 0 && mm_g.data_size) {
        mm_data_map[p] = mm_shm_map(fds[1], mm_g.data_size, NULL, 0);
        if (mm_data_map[p] == NULL)
            return -1;
        e->shm.data_delta = (intptr_t)((uintptr_t)mm_data_map[p] - mm_g.data_base);
    }
    e->kind = MM_TP_SHM;
    e->ops = &mm_shm_tp_ops;
    return 0;
}

/* map the segments of this node's other ranks, received over the node's sockets */
static int mm_shm_node_map(int listener, const mm_boot_card_t *cards)
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
        if (r != me && mm_g.node_of[r] == mm_g.node)
            peers[npeers++] = r;
    int mine[2] = {mm_seg_fd, mm_data_fd};
    int rc = listener < 0
                 ? 0
                 : mm_shm_exchange(listener, mm_boot_job(), peers, npeers, mine, cards, fds);
    for (int i = 0; i < npeers && rc == 0; i++)
        rc = mm_shm_peer_map(peers[i], fds[i]);
    for (int i = 0; i < npeers; i++)
        for (int k = 0; k < 2; k++)
            if (fds[i][k] >= 0)
                close(fds[i][k]);
    free(peers);
    free(fds);
    return rc;
}

int mm_shm_node_join(const mm_boot_card_t *cards, int listener)
{
    mm_data_map = calloc((size_t)mm_g.nranks, sizeof(void *));
    if (mm_data_map == NULL) {
        if (listener >= 0)
            close(listener);
        return -1;
    }
    /* this rank reaches itself by load and store, whatever else reaches its peers */
    mm_tp_peer_t *self = &mm_tp_peers[mm_g.rank];
    self->shm = (mm_shm_peer_t){.seg = mm_g.seg, .seg_delta = 0, .data_delta = 0};
    self->kind = MM_TP_SHM;
    self->ops = &mm_shm_tp_ops;
    mm_shm_nodes_find(cards);
    if (mm_g.local_size == 1 && listener >= 0) {
        close(listener);
        listener = -1;
    }
    int rc = mm_shm_node_map(listener, cards);
    if (rc == 0 && mm_g.nranks > 1 && mm_data_fd < 0)
        mm_g.data_size = 0; /* static data not shared: not remotely accessible */
    return rc;
}

void mm_shm_node_leave(void)
{
    /* peers stay mapped until everyone is through finalize's barrier; then unmap. This rank's
     * own segment stays mapped until exit: a slow peer may still be waking it */
    for (int p = 0; p < mm_g.nranks && mm_tp_peers; p++) {
        if (p != mm_g.rank && mm_tp_peers[p].kind == MM_TP_SHM && mm_tp_peers[p].shm.seg)
            munmap(mm_tp_peers[p].shm.seg, mm_g.seg_bytes);
        if (p != mm_g.rank && mm_data_map && mm_data_map[p])
            munmap(mm_data_map[p], mm_g.data_size);
    }
    free(mm_data_map);
    mm_data_map = NULL;
}

int mm_shm_commit_block(void *p, size_t bytes, size_t *avail_out)
{
    /* the ranks of this node commit their copies at the same time */
    size_t avail = mm_shm_available();
    if (avail_out)
        *avail_out = avail;
    if (avail != SIZE_MAX && bytes > avail / (size_t)mm_g.local_size)
        return ENOMEM;
    if (mm_shm_commit(p, bytes, true) != 0)
        return errno ? errno : ENOMEM;
    return 0;
}

void mm_shm_map_ahead(void *p, size_t bytes)
{
    for (int q = 0; q < mm_g.nranks; q++) {
        void *copy = q == mm_g.rank ? NULL : mm_tp_ptr(p, q);
        if (copy)
            (void)mm_shm_commit(copy, bytes, false); /* page tables only: best effort */
    }
}
