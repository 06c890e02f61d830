/*
 * The reference symmetric collectives of the tests (coll_reference.c): the first
 * implementations of meshmem_broadcast / collect / fcollect / alltoall / alltoalls / allreduce
 * (same arguments and results): an arrive step, then every member writes straight into every
 * peer's dest, then a done step. Kept to test the engine-based ones (src/coll/
 * mm_coll_symmetric.c) against, in coll_ghc.c; they use the library's internals, so a test
 * that links them is INTERNAL.
 */
#ifndef MM_COLL_REFERENCE_H
#define MM_COLL_REFERENCE_H

#include "meshmem_coll.h"

#include <stddef.h>

/** @brief Reference meshmem_broadcast. */
meshmem_status_t mm_ref_broadcast(meshmem_team_t team, void *dest, const void *src, size_t nbytes,
                                  int root);
/** @brief Reference meshmem_collect. */
meshmem_status_t mm_ref_collect(meshmem_team_t team, void *dest, const void *src, size_t nbytes);
/** @brief Reference meshmem_fcollect. */
meshmem_status_t mm_ref_fcollect(meshmem_team_t team, void *dest, const void *src, size_t nbytes);
/** @brief Reference meshmem_alltoall. */
meshmem_status_t mm_ref_alltoall(meshmem_team_t team, void *dest, const void *src, size_t nbytes);
/** @brief Reference meshmem_alltoalls. */
meshmem_status_t mm_ref_alltoalls(meshmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                                  ptrdiff_t sst, size_t esize, size_t nelems);
/** @brief Reference meshmem_allreduce. */
meshmem_status_t mm_ref_allreduce(meshmem_team_t team, void *dest, const void *src, size_t count,
                                  meshmem_dtype_t dtype, meshmem_op_t op);

#endif
