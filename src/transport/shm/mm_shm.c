/* Shared-memory segments: POSIX shm objects, created by their owner, mapped by every peer. */
#include "mm_shm.h"
#include "mm_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void mm_shm_name(char *buf, size_t len, const char *job, int rank, const char *what)
{
    snprintf(buf, len, "/%s.%d.%s", job, rank, what);
}

/*
 * Fault the first @p bytes of a mapping in: write faults allocate (and zero) the pages.
 * @return 0, or -1 when the memory is not there (a full /dev/shm): touching pages by hand
 * would then end in SIGBUS, so the loop is only the fallback for kernels without the madvise.
 */
static int mm_shm_populate(void *p, size_t bytes, bool write)
{
    if (bytes == 0)
        return 0;
#if defined(MADV_POPULATE_WRITE) && defined(MADV_POPULATE_READ)
    if (madvise(p, bytes, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) == 0)
        return 0;
    if (errno != EINVAL)
        return -1;
#endif
    long page = sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < bytes; off += (size_t)page) {
        if (write)
            ((volatile char *)p)[off] = 0;
        else
            (void)((volatile char *)p)[off];
    }
    return 0;
}

/* map at an address such that addr + @p offset is a multiple of @p align (a power of two):
 * reserve a larger range, map inside it, give back the rest */
static void *mm_shm_map_fd_aligned(int fd, size_t bytes, size_t align, size_t offset)
{
    size_t span = bytes + align;
    char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    uintptr_t want = ((uintptr_t)r + offset + align - 1) / align * align - offset;
    char *p = mmap((void *)want, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(r, span);
        return NULL;
    }
    if (p > r)
        munmap(r, (size_t)(p - r));
    if (p + bytes < r + span)
        munmap(p + bytes, (size_t)(r + span - (p + bytes)));
    return p;
}

static void *mm_shm_map_fd(int fd, size_t bytes, void *fixed_addr)
{
    int flags = MAP_SHARED;
    if (fixed_addr)
        flags |= MAP_FIXED;
    void *p = mmap(fixed_addr, bytes, PROT_READ | PROT_WRITE, flags, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *mm_shm_create(const char *name, size_t bytes, bool hugepages, size_t populate,
                    size_t align, size_t align_offset)
{
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        mm_error("shm_open(%s): %s", name, strerror(errno));
        return NULL;
    }
    if (ftruncate(fd, (off_t)bytes) != 0) {
        mm_error("ftruncate(%s, %zu): %s", name, bytes, strerror(errno));
        close(fd);
        shm_unlink(name);
        return NULL;
    }
    void *p = align > 1 ? mm_shm_map_fd_aligned(fd, bytes, align, align_offset)
                        : mm_shm_map_fd(fd, bytes, NULL);
    if (p == NULL) {
        mm_error("mmap(%s, %zu bytes): %s", name, bytes, strerror(errno));
        close(fd);
        shm_unlink(name);
        return NULL;
    }
    close(fd);
#ifdef MADV_HUGEPAGE
    /* transparent huge pages for shmem, where the system allows them (shmem_enabled=advise) */
    if (hugepages)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    /* /dev/shm pages are allocated (and zeroed) on first touch: do it now, not when measured */
    if (mm_shm_populate(p, populate < bytes ? populate : bytes, true) != 0) {
        mm_error("cannot allocate %zu bytes of shared memory for %s (/dev/shm full?): %s",
                 populate, name, strerror(errno));
        munmap(p, bytes);
        shm_unlink(name);
        return NULL;
    }
    return p;
}

void *mm_shm_map(const char *name, size_t bytes, void *fixed_addr, size_t populate)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) {
        mm_error("shm_open(%s) of a peer's segment: %s", name, strerror(errno));
        return NULL;
    }
    void *p = mm_shm_map_fd(fd, bytes, fixed_addr);
    if (p == NULL)
        mm_error("mmap(%s, %zu bytes): %s", name, bytes, strerror(errno));
    else if (mm_shm_populate(p, populate < bytes ? populate : bytes, false) != 0)
        mm_warn("mapping %s: page tables not pre-filled: %s", name, strerror(errno));
    close(fd);
    return p;
}

void mm_shm_unlink(const char *name)
{
    shm_unlink(name);
}
