/**
 * @file mm_shm.h
 * @brief Shared-memory segments of the node-local full mesh.
 *
 * Every shared object of a job is named "/<job>.<rank>.<what>" (job = "meshmem.<id>"), so that
 * meshrun can remove whatever a crashed job left with one prefix match. Ranks unlink their
 * objects as soon as every peer has mapped them: a job that runs past init leaves nothing.
 */
#ifndef MM_SHM_H
#define MM_SHM_H

#include <stdbool.h>
#include <stddef.h>

/**
 * @brief Create object @p name of @p bytes and map it shared, read-write.
 * @param hugepages ask for transparent huge pages (where shmem THP is enabled)
 * @param populate  bytes at the start to fault in now (allocated and zeroed)
 * @param align     when > 1 (a power of two), map so that addr + @p align_offset is a multiple
 *                  of it (the symmetric heap's alignment)
 * @return the mapping, or NULL after logging why.
 */
void *mm_shm_create(const char *name, size_t bytes, bool hugepages, size_t populate,
                    size_t align, size_t align_offset);

/**
 * @brief Map existing object @p name (exactly @p bytes) shared, read-write; at @p fixed_addr
 * when not NULL (MAP_FIXED, replacing what is mapped there); the first @p populate bytes get
 * their page-table entries now.
 * @return the mapping, or NULL after logging why.
 */
void *mm_shm_map(const char *name, size_t bytes, void *fixed_addr, size_t populate);

/** @brief Remove object @p name (no error when already gone). */
void mm_shm_unlink(const char *name);

/** @brief Format the name of @p rank's object @p what into @p buf. */
void mm_shm_name(char *buf, size_t len, const char *job, int rank, const char *what);

#endif /* MM_SHM_H */
