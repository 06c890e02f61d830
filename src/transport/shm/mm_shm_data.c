/* Remapping the executable's data and bss into shared memory (mm_shm.h, "static data"). */
#include "mm_log.h"
#include "mm_shm.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    uintptr_t start, end; /* writable PT_LOAD of the executable */
    uintptr_t relro_end;
    int found;
} mm_shm_data_scan_t;

static int mm_shm_data_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    mm_shm_data_scan_t *s = arg;
    /* the first object reported is the executable itself */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz > 0) {
            if (!s->found || lo < s->start)
                s->start = lo;
            if (!s->found || hi > s->end)
                s->end = hi;
            s->found = 1;
        } else if (ph->p_type == PT_GNU_RELRO) {
            s->relro_end = hi;
        }
    }
    return 1; /* stop after the executable */
}

int mm_shm_data_find(void **start, size_t *size)
{
    mm_shm_data_scan_t s = {0};
    dl_iterate_phdr(mm_shm_data_phdr_cb, &s);
    if (!s.found)
        return -1;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    /* glibc makes RELRO read-only by whole pages, rounding its end down: start there */
    uintptr_t lo = s.start;
    if (s.relro_end > lo && s.relro_end <= s.end)
        lo = s.relro_end;
    lo &= ~(page - 1);
    uintptr_t hi = (s.end + page - 1) & ~(page - 1);
    if (hi <= lo)
        return -1;
    *start = (void *)lo;
    *size = hi - lo;
    return 0;
}

/* Copy the whole range, redzones between globals included: a plain word loop, because a
 * sanitizer's memcpy would (rightly, for ordinary code) refuse to read across them. */
__attribute__((no_sanitize("address", "thread", "undefined"),
               optimize("no-tree-loop-distribute-patterns"))) static void
mm_shm_data_copy(uint64_t *dst, const uint64_t *src, size_t size)
{
    for (size_t i = 0; i < size / sizeof(uint64_t); i++)
        dst[i] = src[i];
}

int mm_shm_data_remap(void *start, size_t size, int *fd)
{
    void *copy = mm_shm_create("meshmem-data", size, false, 0, 0, 0, fd);
    if (copy == NULL)
        return -1;
    mm_shm_data_copy(copy, start, size); /* size is a multiple of the page size */
    munmap(copy, size);
    /* from here until the mapping is replaced, no global may be written: only locals */
    void *p = mm_shm_map(*fd, size, start, 0);
    if (p != start) {
        mm_error("remapping static data at %p (%zu bytes): %s", start, size, strerror(errno));
        close(*fd);
        *fd = -1;
        return -1;
    }
    return 0;
}
