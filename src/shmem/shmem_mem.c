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
SHMEMI_PROFILED(shmem_malloc)

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* every symmetric byte already serves remote atomics and signals at full speed: the
     * hints (SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE, or others) change nothing */
    (void)hints;
    return meshmem_malloc(size);
}
SHMEMI_PROFILED(shmem_malloc_with_hints)

void *shmem_calloc(size_t count, size_t size)
{
    return meshmem_calloc(count, size);
}
SHMEMI_PROFILED(shmem_calloc)

void *shmem_align(size_t alignment, size_t size)
{
    return meshmem_align(alignment, size);
}
SHMEMI_PROFILED(shmem_align)

void *shmem_realloc(void *ptr, size_t size)
{
    return meshmem_realloc(ptr, size);
}
SHMEMI_PROFILED(shmem_realloc)

void shmem_free(void *ptr)
{
    meshmem_free(ptr);
}
SHMEMI_PROFILED(shmem_free)

void *shmalloc(size_t size)
{
    return meshmem_malloc(size);
}
SHMEMI_PROFILED(shmalloc)

void shfree(void *ptr)
{
    meshmem_free(ptr);
}
SHMEMI_PROFILED(shfree)

void *shrealloc(void *ptr, size_t size)
{
    return meshmem_realloc(ptr, size);
}
SHMEMI_PROFILED(shrealloc)

void *shmemalign(size_t alignment, size_t size)
{
    return meshmem_align(alignment, size);
}
SHMEMI_PROFILED(shmemalign)
