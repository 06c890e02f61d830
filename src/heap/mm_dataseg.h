/**
 * @file mm_dataseg.h
 * @brief Making the executable's global and static variables symmetric.
 *
 * OpenSHMEM requires that a put to &x of a global or static x lands in the peer's x. Ranks are
 * separate processes whose (position-independent) executables load at different addresses, and
 * reading another process's memory through ptrace or process_vm_readv may be refused. So at init
 * each rank copies the writable part of its executable's data and bss into a shared-memory
 * segment and maps that segment over the original range (MAP_FIXED): the variables keep their
 * addresses and values, and peers can now map them too. A symmetric address in that range is
 * translated for a peer by the offset from the range's start, the same in every rank.
 *
 * Limitation: after init the range is a shared mapping, so a child made by fork() shares (does
 * not copy) the parent's globals.
 */
#ifndef MM_DATASEG_H
#define MM_DATASEG_H

#include <stddef.h>

/**
 * @brief Find the executable's writable data+bss range, page-aligned, excluding RELRO.
 * @return 0 and the range, or -1 when none can be found.
 */
int mm_dataseg_find(void **start, size_t *size);

/**
 * @brief Replace [start, start+size) by a shared-memory segment holding the same bytes.
 * @param fd out: the segment's file descriptor, for the node's peers to map (mm_shm.h)
 * @return 0, or -1 after logging why (the original mapping is then untouched).
 */
int mm_dataseg_remap(void *start, size_t size, int *fd);

#endif /* MM_DATASEG_H */
