/* Shared-memory segments: POSIX shm objects, created by their owner, mapped by every peer. */
#include "mm_shm.h"
#include "mm_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void mm_shm_name(char *buf, size_t len, const char *job, int rank, const char *what)
{
    snprintf(buf, len, "/%s.%d.%s", job, rank, what);
}

static void *mm_shm_map_fd(int fd, size_t bytes, void *fixed_addr, bool populate, bool huge)
{
    int flags = MAP_SHARED;
    if (fixed_addr)
        flags |= MAP_FIXED;
    if (populate)
        flags |= MAP_POPULATE;
    (void)huge;
    void *p = mmap(fixed_addr, bytes, PROT_READ | PROT_WRITE, flags, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *mm_shm_create(const char *name, size_t bytes, bool hugepages, bool populate)
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
    void *p = mm_shm_map_fd(fd, bytes, NULL, false, hugepages);
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
    if (populate) {
        /* write-fault every page now: /dev/shm pages are allocated (and zeroed) on first touch */
        long page = sysconf(_SC_PAGESIZE);
#ifdef MADV_POPULATE_WRITE
        if (madvise(p, bytes, MADV_POPULATE_WRITE) != 0)
#endif
            for (size_t off = 0; off < bytes; off += (size_t)page)
                ((volatile char *)p)[off] = 0;
    }
    return p;
}

void *mm_shm_map(const char *name, size_t bytes, void *fixed_addr, bool populate)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) {
        mm_error("shm_open(%s) of a peer's segment: %s", name, strerror(errno));
        return NULL;
    }
    void *p = mm_shm_map_fd(fd, bytes, fixed_addr, populate, false);
    if (p == NULL)
        mm_error("mmap(%s, %zu bytes): %s", name, bytes, strerror(errno));
    close(fd);
    return p;
}

void mm_shm_unlink(const char *name)
{
    shm_unlink(name);
}
