/* The symmetric heap allocator: first fit over a sorted block list kept in private memory. */
#include "mm_heap.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t off;  /* from heap base */
    size_t size;
    bool   used;
} mm_block_t;

static struct {
    char           *base;
    size_t          size;
    mm_block_t     *blocks; /* sorted by off, covering [0, size) without gaps */
    size_t          nblocks;
    size_t          cap;
    pthread_mutex_t lock;
} mm_heap = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define MM_HEAP_MIN_ALIGN 64 /* cache line: distinct allocations never share a line */

/* room for @p more blocks, so that a split never fails half way */
static int mm_heap_reserve(size_t more)
{
    if (mm_heap.nblocks + more <= mm_heap.cap)
        return 0;
    size_t cap = mm_heap.cap ? mm_heap.cap * 2 : 64;
    while (cap < mm_heap.nblocks + more)
        cap *= 2;
    mm_block_t *nb = realloc(mm_heap.blocks, cap * sizeof(*nb));
    if (nb == NULL)
        return -1;
    mm_heap.blocks = nb;
    mm_heap.cap = cap;
    return 0;
}

static void mm_heap_insert(size_t at, mm_block_t b)
{
    memmove(&mm_heap.blocks[at + 1], &mm_heap.blocks[at],
            (mm_heap.nblocks - at) * sizeof(mm_block_t));
    mm_heap.blocks[at] = b;
    mm_heap.nblocks++;
}

static void mm_heap_remove(size_t at)
{
    memmove(&mm_heap.blocks[at], &mm_heap.blocks[at + 1],
            (mm_heap.nblocks - at - 1) * sizeof(mm_block_t));
    mm_heap.nblocks--;
}

int mm_heap_init(void *base, size_t size)
{
    mm_heap.base = base;
    mm_heap.size = size;
    mm_heap.nblocks = 0;
    if (mm_heap_reserve(1) != 0)
        return -1;
    mm_heap_insert(0, (mm_block_t){0, size, false});
    return 0;
}

void mm_heap_fini(void)
{
    free(mm_heap.blocks);
    mm_heap.blocks = NULL;
    mm_heap.nblocks = mm_heap.cap = 0;
    mm_heap.base = NULL;
    mm_heap.size = 0;
}

static size_t mm_round_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

void *mm_heap_alloc(size_t size, size_t align)
{
    if (size == 0 || align == 0 || (align & (align - 1)) != 0)
        return NULL;
    if (align < MM_HEAP_MIN_ALIGN)
        align = MM_HEAP_MIN_ALIGN;
    if (size > SIZE_MAX - 2 * align)
        return NULL;
    size = mm_round_up(size, MM_HEAP_MIN_ALIGN);
    void *result = NULL;
    pthread_mutex_lock(&mm_heap.lock);
    for (size_t i = 0; mm_heap_reserve(2) == 0 && i < mm_heap.nblocks; i++) {
        mm_block_t b = mm_heap.blocks[i];
        if (b.used)
            continue;
        size_t start = mm_round_up(b.off, align);
        if (start - b.off > b.size || b.size - (start - b.off) < size)
            continue;
        /* carve: [b.off, start) free, [start, start+size) used, rest free */
        size_t pad = start - b.off, rest = b.size - pad - size;
        size_t at = i;
        if (pad) {
            mm_heap.blocks[at].size = pad;
            mm_heap_insert(++at, (mm_block_t){start, size, true});
        } else {
            mm_heap.blocks[at] = (mm_block_t){start, size, true};
        }
        if (rest)
            mm_heap_insert(at + 1, (mm_block_t){start + size, rest, false});
        result = mm_heap.base + start;
        break;
    }
    pthread_mutex_unlock(&mm_heap.lock);
    return result;
}

static ptrdiff_t mm_heap_find(const void *ptr)
{
    if ((const char *)ptr < mm_heap.base || (const char *)ptr >= mm_heap.base + mm_heap.size)
        return -1;
    size_t off = (size_t)((const char *)ptr - mm_heap.base);
    size_t lo = 0, hi = mm_heap.nblocks;
    while (lo < hi) { /* binary search: the list is sorted by offset */
        size_t mid = (lo + hi) / 2;
        if (mm_heap.blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < mm_heap.nblocks && mm_heap.blocks[lo].off == off && mm_heap.blocks[lo].used)
        return (ptrdiff_t)lo;
    return -1;
}

int mm_heap_free(void *ptr)
{
    pthread_mutex_lock(&mm_heap.lock);
    ptrdiff_t i = mm_heap_find(ptr);
    if (i < 0) {
        pthread_mutex_unlock(&mm_heap.lock);
        return -1;
    }
    mm_heap.blocks[i].used = false;
    /* coalesce with the next, then the previous free block */
    if ((size_t)i + 1 < mm_heap.nblocks && !mm_heap.blocks[i + 1].used) {
        mm_heap.blocks[i].size += mm_heap.blocks[i + 1].size;
        mm_heap_remove((size_t)i + 1);
    }
    if (i > 0 && !mm_heap.blocks[i - 1].used) {
        mm_heap.blocks[i - 1].size += mm_heap.blocks[i].size;
        mm_heap_remove((size_t)i);
    }
    pthread_mutex_unlock(&mm_heap.lock);
    return 0;
}

int mm_heap_resize(void *ptr, size_t size)
{
    int rc = -1;
    size = mm_round_up(size ? size : 1, MM_HEAP_MIN_ALIGN);
    pthread_mutex_lock(&mm_heap.lock);
    ptrdiff_t i = mm_heap_find(ptr);
    if (i >= 0) {
        mm_block_t *b = &mm_heap.blocks[i];
        bool next_free = (size_t)i + 1 < mm_heap.nblocks && !mm_heap.blocks[i + 1].used;
        size_t avail = b->size + (next_free ? mm_heap.blocks[i + 1].size : 0);
        if (size <= avail && mm_heap_reserve(1) == 0) {
            b = &mm_heap.blocks[i];
            size_t rest = avail - size;
            b->size = size;
            if (next_free)
                mm_heap_remove((size_t)i + 1);
            if (rest)
                mm_heap_insert((size_t)i + 1, (mm_block_t){b->off + size, rest, false});
            rc = 0;
        }
    }
    pthread_mutex_unlock(&mm_heap.lock);
    return rc;
}

size_t mm_heap_block_size(const void *ptr)
{
    pthread_mutex_lock(&mm_heap.lock);
    ptrdiff_t i = mm_heap_find(ptr);
    size_t s = i >= 0 ? mm_heap.blocks[i].size : 0;
    pthread_mutex_unlock(&mm_heap.lock);
    return s;
}

size_t mm_heap_free_bytes(void)
{
    size_t total = 0;
    pthread_mutex_lock(&mm_heap.lock);
    for (size_t i = 0; i < mm_heap.nblocks; i++)
        if (!mm_heap.blocks[i].used)
            total += mm_heap.blocks[i].size;
    pthread_mutex_unlock(&mm_heap.lock);
    return total;
}
