/**
 * @file mm_shm.h
 * @brief The shared-memory transport: the node-local full mesh. This rank's segments (created
 * here, mapped by the node's peers), which ranks form the node, the mapping of their segments
 * into their entries (mm_tp.h), committing memory, and faults in it.
 *
 * A rank's segments (its heap segment and its static data) are memfds: they have no name in
 * /dev/shm, so nothing of a job can be left behind there, and they vanish with the last
 * process that maps them. The ranks of a node hand each other the file descriptors over Unix
 * sockets (SCM_RIGHTS): rank r listens on the abstract socket "<job>.<r>" (abstract names live
 * in the network namespace, so every virtual host has its own), each rank connects to each of
 * its node's peers and sends its descriptors. Each end checks the other's credentials
 * (SO_PEERCRED): the same user, and the pid that rank published through the bootstrap. The
 * receiver so takes no other process's memory, and the sender gives its memory to no other
 * process, even one that took a socket's name first (abstract names have no owner). The
 * descriptors themselves are reachable only through the ranks' own processes (/proc/PID/fd
 * needs the right to trace them): no other user's process can obtain a job's memory.
 */
#ifndef MM_SHM_H
#define MM_SHM_H

#include "mm_boot.h"

#include <stdbool.h>
#include <stddef.h>

/**
 * @brief Create an anonymous shared segment of @p bytes and map it read-write.
 * @param name      a name for /proc/PID/maps (not a file)
 * @param hugepages ask for transparent huge pages (where shmem THP is enabled)
 * @param populate  bytes at the start to fault in now (allocated and zeroed)
 * @param align     when > 1 (a power of two), map so that addr + @p align_offset is a multiple
 *                  of it (the symmetric heap's alignment)
 * @param fd        out: the segment's file descriptor (close-on-exec), to share with peers
 * @return the mapping, or NULL after logging why.
 */
void *mm_shm_create(const char *name, size_t bytes, bool hugepages, size_t populate, size_t align,
                    size_t align_offset, int *fd);

/**
 * @brief Map segment @p fd (exactly @p bytes) shared, read-write; at @p fixed_addr when not
 * NULL (MAP_FIXED, replacing what is mapped there); the first @p populate bytes get their
 * page-table entries now.
 * @return the mapping, or NULL after logging why.
 */
void *mm_shm_map(int fd, size_t bytes, void *fixed_addr, size_t populate);

/**
 * @brief Commit [@p p, @p p + @p bytes) of a segment mapping now: allocate (and zero) its pages
 * when @p own, else only fill this rank's page tables for pages the owner has committed.
 * @return 0, or -1 with errno set (ENOMEM: the machine, or the job's memory limit, has no
 * room), having touched nothing that could raise SIGBUS.
 */
int mm_shm_commit(void *p, size_t bytes, bool own);

/** @return the bytes this process can still be given: the machine's (MemAvailable of
 * /proc/meminfo) or, when lower, what its memory cgroup's limit leaves; SIZE_MAX when unknown. */
size_t mm_shm_available(void);

/**
 * @brief Listen for this rank's node peers (before the bootstrap exchange that tells them to
 * connect). @return the listening socket, or -1 after logging why.
 */
int mm_shm_listen(const char *job, int rank);

/**
 * @brief Hand this rank's segment descriptors @p fds[0] (heap segment) and @p fds[1] (static
 * data, or -1) to each rank in @p peers, and receive theirs into @p peer_fds[i][0..1] (-1 when a
 * peer shares no static data). @p cards are every rank's published cards (for the credential
 * check). Closes @p listener.
 * @return 0, or -1 after logging why (a peer that never comes is waited for at most 60 s, and
 * not at all once the job is ending).
 */
int mm_shm_exchange(int listener, const char *job, const int *peers, int npeers, const int fds[2],
                    const mm_boot_card_t *cards, int (*peer_fds)[2]);

/* ---- the node (mm_shm_node.c) ---- */

/** The shared-memory transport's table (mm_tp_ops.h), the ops of every MM_TP_SHM entry. */
extern const struct mm_tp_ops mm_shm_tp_ops;

/**
 * @brief Create this rank's heap segment (mm_g's layout, which init has set) and share its
 * static data (mm_shm_data_remap), filling mm_g.seg, heap_base, data_base and data_size.
 * @return 0, or -1 after logging why.
 */
int mm_shm_seg_create(void);

/** @brief This rank's heap segment and static data memfds into @p fds (-1: none); lent to the
 * networks (mm_plugin_host_t's seg_fds). */
void mm_shm_seg_fds(int fds[2]);

/** @return the bytes of static data this rank shares with its node's peers (0: none). */
size_t mm_shm_data_shared(void);

/** @brief Listen for this node's peers, before the bootstrap exchange that tells them to
 * connect. @return the socket, -2 when there is nothing to listen for (one rank, or
 * MESHMEM_SHM=0), or -1 after logging why. */
int mm_shm_node_listen(void);

/**
 * @brief Find the node's ranks from every rank's card (mm_g.node_of, nnodes, node, local_rank,
 * local_size, all_local, machine_size), receive their segments over @p listener (closed here)
 * and map them: their entries and this rank's own become MM_TP_SHM. Collective over the node.
 * @return 0, or -1 after logging why.
 */
int mm_shm_node_join(const mm_boot_card_t *cards, int listener);

/** @brief Unmap the node's segments (after finalize's last barrier). */
void mm_shm_node_leave(void);

/**
 * @brief Commit this rank's pages of [@p p, @p p + @p bytes) of its own segment (a symmetric
 * block: mm_symalloc.c), sharing the machine's room fairly with the node's ranks, which commit
 * their copies at the same time. @return 0, or an errno (ENOMEM: no room), having touched
 * nothing that could fault; *@p avail (when not NULL): the bytes the machine had for it
 * (SIZE_MAX: unknown).
 */
int mm_shm_commit_block(void *p, size_t bytes, size_t *avail);

/** @brief Fill this rank's page tables for its node peers' copies of symmetric block @p p,
 * which every rank has committed (best effort: first accesses then cost no fault). */
void mm_shm_map_ahead(void *p, size_t bytes);

/* ---- static data (mm_shm_data.c) ---- */

/*
 * Making the executable's global and static variables symmetric. OpenSHMEM requires that a put
 * to &x of a global or static x lands in the peer's x. Ranks are separate processes whose
 * (position-independent) executables load at different addresses, and reading another
 * process's memory through ptrace or process_vm_readv may be refused. So at init each rank
 * copies the writable part of its executable's data and bss into a shared-memory segment and
 * maps that segment over the original range (MAP_FIXED): the variables keep their addresses
 * and values, and peers can now map them too. A symmetric address in that range is translated
 * for a peer by the offset from the range's start, the same in every rank.
 *
 * Limitation: after init the range is a shared mapping, so a child made by fork() shares (does
 * not copy) the parent's globals.
 */

/**
 * @brief Find the executable's writable data+bss range, page-aligned, excluding RELRO.
 * @return 0 and the range, or -1 when none can be found.
 */
int mm_shm_data_find(void **start, size_t *size);

/**
 * @brief Replace [start, start+size) by a shared-memory segment holding the same bytes.
 * @param fd out: the segment's file descriptor, for the node's peers to map
 * @return 0, or -1 after logging why (the original mapping is then untouched).
 */
int mm_shm_data_remap(void *start, size_t size, int *fd);

/* ---- faults (mm_shm_fault.c) ---- */

/**
 * @brief A fault in the job's shared memory becomes a one-line error, not a bare SIGBUS: catch
 * SIGBUS on the pages of the job's segments (this rank's and its node peers' heaps and static
 * data), say which page of which PE could not be provided and end the job. A SIGBUS elsewhere
 * goes to the disposition there was before. Call once the segments are mapped (init).
 */
void mm_shm_fault_init(void);

#endif /* MM_SHM_H */
