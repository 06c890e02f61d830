/*
 * heap_prog: the symmetric heap as reserved, not committed memory (tests/py/test_heap.py).
 *
 *   heap_prog malloc SIZE    a ring put in a small block, then shmem_malloc(SIZE) (a size such
 *                            as 40G): prints "malloc SIZE: NULL" or "malloc SIZE: ok", frees,
 *                            finalizes; status 0 either way (NULL is the specified failure)
 *   heap_prog cut            rank 0 cuts its own heap segment short under the job, inside a
 *                            block (as a tmpfs or memory limit leaves a page without memory),
 *                            and writes there: the job must end with meshmem's one-line error
 */
#define _GNU_SOURCE
#include "meshmem.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the file offset of @p addr in the memfd mapped there (from /proc/self/maps), or -1 */
static long long file_offset(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    long long found = -1;
    while (f && found < 0 && fgets(line, sizeof(line), f)) {
        unsigned long long lo, hi, off;
        if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 && (uintptr_t)addr >= lo &&
            (uintptr_t)addr < hi && strstr(line, "meshmem-heap"))
            found = (long long)(off + ((uintptr_t)addr - lo));
    }
    if (f)
        fclose(f);
    return found;
}

/* the file descriptor of this process's own heap segment (a memfd named meshmem-heap) */
static int heap_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = -1;
    while (d && (e = readdir(d)) != NULL && found < 0) {
        char path[300], target[300];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n > 0) {
            target[n] = '\0';
            if (strstr(target, "memfd:meshmem-heap"))
                found = atoi(e->d_name);
        }
    }
    if (d)
        closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (meshmem_init(MESHMEM_THREAD_SINGLE, NULL) != MESHMEM_OK)
        return 1;
    int me = meshmem_rank(), n = meshmem_nranks();
    long *ring = meshmem_malloc(sizeof(long));
    long v = me;
    meshmem_put(ring, &v, sizeof v, (me + 1) % n);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    if (*ring != (me + n - 1) % n) {
        fprintf(stderr, "heap_prog: ring put lost\n");
        return 1;
    }
    if (!strcmp(argv[1], "malloc") && argc > 2) {
        char *end;
        double d = strtod(argv[2], &end); /* a number of bytes, or of M or G */
        size_t size = (size_t)(d * (*end == 'G' ? 1 << 30 : *end == 'M' ? 1 << 20 : 1));
        void *p = meshmem_malloc(size);
        if (me == 0)
            printf("malloc %s: %s\n", argv[2], p ? "ok" : "NULL");
        meshmem_free(p);
        meshmem_finalize();
        return 0;
    }
    if (!strcmp(argv[1], "cut")) {
        char *block = meshmem_malloc(1 << 20);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        if (me == 0) {
            /* cut the segment at the block's second page: the runtime's areas before it stay */
            int fd = heap_fd();
            long long off = file_offset(block + 4096);
            if (fd < 0 || off < 0 || ftruncate(fd, (off_t)(off & ~4095LL)) != 0) {
                fprintf(stderr, "heap_prog: cannot find this rank's heap segment\n");
                return 1;
            }
            block[4096] = 1; /* a page that no longer exists */
            fprintf(stderr, "heap_prog: a write into a cut segment went through\n");
            return 99;
        }
        meshmem_barrier(MESHMEM_TEAM_WORLD); /* rank 0 never comes */
        return 99;
    }
    return 2;
}
