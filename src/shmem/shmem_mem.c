/*
 * OpenSHMEM memory management (1.5 section 9.3): the collective symmetric allocator of the
 * native API (symmetric by construction, argument agreement checked, ends with a barrier), and
 * the deprecated shmalloc family.
 */
#include "shmem_internal.h"

void *shmem_malloc(size_t size)
{
    return meshmem_malloc(size);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* every symmetric byte already serves remote atomics and signals at full speed: the
     * hints (SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE, or others) change nothing */
    (void)hints;
    return meshmem_malloc(size);
}

void *shmem_calloc(size_t count, size_t size)
{
    return meshmem_calloc(count, size);
}

void *shmem_align(size_t alignment, size_t size)
{
    return meshmem_align(alignment, size);
}

void *shmem_realloc(void *ptr, size_t size)
{
    return meshmem_realloc(ptr, size);
}

void shmem_free(void *ptr)
{
    meshmem_free(ptr);
}

void *shmalloc(size_t size)
{
    return meshmem_malloc(size);
}

void shfree(void *ptr)
{
    meshmem_free(ptr);
}

void *shrealloc(void *ptr, size_t size)
{
    return meshmem_realloc(ptr, size);
}

void *shmemalign(size_t alignment, size_t size)
{
    return meshmem_align(alignment, size);
}
