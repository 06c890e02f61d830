/**
 * @file mm_shm.h
 * @brief The node-local full mesh: segments that peers on the node map, and how they get them.
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
void *mm_shm_create(const char *name, size_t bytes, bool hugepages, size_t populate,
                    size_t align, size_t align_offset, int *fd);

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
int mm_shm_exchange(int listener, const char *job, const int *peers, int npeers,
                    const int fds[2], const mm_boot_card_t *cards, int (*peer_fds)[2]);

#endif /* MM_SHM_H */
