/**
 * @file mm_heap.h
 * @brief The heap allocator (the symmetric heap, and private arenas such as staging memory).
 *
 * Deterministic: every rank runs the same sequence of collective allocations, so the same
 * first-fit decisions give the same offsets everywhere, which is what makes an allocation
 * symmetric. The block list lives in private memory, so a stray remote store into the heap can
 * corrupt data but never the allocator.
 */
#ifndef MM_HEAP_H
#define MM_HEAP_H

#include <stddef.h>

/** An allocator over one address range. */
typedef struct mm_heap mm_heap_t;

/** The symmetric heap of this rank. */
extern mm_heap_t *const mm_symheap;

/** @brief A new, empty allocator (for private arenas). @return it, or NULL. */
mm_heap_t *mm_heap_new(void);

/** @brief Release an allocator from mm_heap_new. */
void mm_heap_delete(mm_heap_t *h);

/** @brief Manage [base, base+size) from now on. @return 0 or -1. */
int mm_heap_init(mm_heap_t *h, void *base, size_t size);

/** @brief Forget every block. */
void mm_heap_fini(mm_heap_t *h);

/**
 * @brief Allocate @p size bytes aligned to @p align (a power of two >= 16).
 * @return the block, or NULL when no free range is large enough.
 */
void *mm_heap_alloc(mm_heap_t *h, size_t size, size_t align);

/** @brief Free a block from mm_heap_alloc. @return 0, or -1 if @p ptr is no live block. */
int mm_heap_free(mm_heap_t *h, void *ptr);

/**
 * @brief Resize in place when the block can grow into free space after it, or shrink.
 * @return 0 when done in place, -1 when the caller must allocate, copy and free.
 */
int mm_heap_resize(mm_heap_t *h, void *ptr, size_t size);

/** @return the usable size of live block @p ptr, or 0 if it is none. */
size_t mm_heap_block_size(mm_heap_t *h, const void *ptr);

/** @return the number of bytes not in live blocks. */
size_t mm_heap_free_bytes(mm_heap_t *h);

#endif /* MM_HEAP_H */
