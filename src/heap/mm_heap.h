/**
 * @file mm_heap.h
 * @brief The symmetric heap allocator.
 *
 * Deterministic: every rank runs the same sequence of collective allocations, so the same
 * first-fit decisions give the same offsets everywhere, which is what makes an allocation
 * symmetric. The block list lives in private memory, so a stray remote store into the heap can
 * corrupt data but never the allocator.
 */
#ifndef MM_HEAP_H
#define MM_HEAP_H

#include <stddef.h>

/** @brief Manage [base, base+size) from now on (called once at init). @return 0 or -1. */
int mm_heap_init(void *base, size_t size);

/** @brief Forget every block (finalize). */
void mm_heap_fini(void);

/**
 * @brief Allocate @p size bytes aligned to @p align (a power of two >= 16).
 * @return the block, or NULL when no free range is large enough.
 */
void *mm_heap_alloc(size_t size, size_t align);

/** @brief Free a block from mm_heap_alloc. @return 0, or -1 if @p ptr is no live block. */
int mm_heap_free(void *ptr);

/**
 * @brief Resize in place when the block can grow into free space after it, or shrink.
 * @return 0 when done in place, -1 when the caller must allocate, copy and free.
 */
int mm_heap_resize(void *ptr, size_t size);

/** @return the usable size of live block @p ptr, or 0 if it is none. */
size_t mm_heap_block_size(const void *ptr);

/** @return the number of bytes not in live blocks. */
size_t mm_heap_free_bytes(void);

#endif /* MM_HEAP_H */
