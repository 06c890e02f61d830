/* Heap allocator (symmetric heap, staging arena): first fit over a sorted block list kept in
 * private memory. */
#include "mm_heap.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t off; /* from heap base */
    size_t size;
    bool used;
} mm_block_t;

struct mm_heap {
    char *base;
    size_t size;
    mm_block_t *blocks; /* sorted by off, covering [0, size) without gaps */
    size_t nblocks;
    size_t cap;
    pthread_mutex_t lock;
};

static mm_heap_t mm_symheap_obj = {.lock = PTHREAD_MUTEX_INITIALIZER};
mm_heap_t *const mm_symheap = &mm_symheap_obj;

#define MM_HEAP_MIN_ALIGN 64 /* cache line: distinct allocations never share a line */

/* room for @p more blocks, so that a split never fails half way */
static int mm_heap_reserve(mm_heap_t *h, size_t more)
{
    if (h->nblocks + more <= h->cap)
        return 0;
    size_t cap = h->cap ? h->cap * 2 : 64;
    while (cap < h->nblocks + more)
        cap *= 2;
    mm_block_t *nb = realloc(h->blocks, cap * sizeof(*nb));
    if (nb == NULL)
        return -1;
    h->blocks = nb;
    h->cap = cap;
    return 0;
}

static void mm_heap_insert(mm_heap_t *h, size_t at, mm_block_t b)
{
    memmove(&h->blocks[at + 1], &h->blocks[at], (h->nblocks - at) * sizeof(mm_block_t));
    h->blocks[at] = b;
    h->nblocks++;
}

static void mm_heap_remove(mm_heap_t *h, size_t at)
{
    memmove(&h->blocks[at], &h->blocks[at + 1], (h->nblocks - at - 1) * sizeof(mm_block_t));
    h->nblocks--;
}

mm_heap_t *mm_heap_new(void)
{
    mm_heap_t *h = calloc(1, sizeof(*h));
    if (h)
        pthread_mutex_init(&h->lock, NULL);
    return h;
}

void mm_heap_delete(mm_heap_t *h)
{
    if (h == NULL)
        return;
    mm_heap_fini(h);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

int mm_heap_init(mm_heap_t *h, void *base, size_t size)
{
    h->base = base;
    h->size = size;
    h->nblocks = 0;
    if (mm_heap_reserve(h, 1) != 0)
        return -1;
    mm_heap_insert(h, 0, (mm_block_t){0, size, false});
    return 0;
}

void mm_heap_fini(mm_heap_t *h)
{
    free(h->blocks);
    h->blocks = NULL;
    h->nblocks = h->cap = 0;
    h->base = NULL;
    h->size = 0;
}

static size_t mm_round_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

void *mm_heap_alloc(mm_heap_t *h, size_t size, size_t align)
{
    if (size == 0 || align == 0 || (align & (align - 1)) != 0)
        return NULL;
    if (align < MM_HEAP_MIN_ALIGN)
        align = MM_HEAP_MIN_ALIGN;
    if (size > SIZE_MAX - 2 * align)
        return NULL;
    size = mm_round_up(size, MM_HEAP_MIN_ALIGN);
    void *result = NULL;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; mm_heap_reserve(h, 2) == 0 && i < h->nblocks; i++) {
        mm_block_t b = h->blocks[i];
        if (b.used)
            continue;
        size_t start = mm_round_up(b.off, align);
        if (start - b.off > b.size || b.size - (start - b.off) < size)
            continue;
        /* carve: [b.off, start) free, [start, start+size) used, rest free */
        size_t pad = start - b.off, rest = b.size - pad - size;
        size_t at = i;
        if (pad) {
            h->blocks[at].size = pad;
            mm_heap_insert(h, ++at, (mm_block_t){start, size, true});
        } else {
            h->blocks[at] = (mm_block_t){start, size, true};
        }
        if (rest)
            mm_heap_insert(h, at + 1, (mm_block_t){start + size, rest, false});
        result = h->base + start;
        break;
    }
    pthread_mutex_unlock(&h->lock);
    return result;
}

static ptrdiff_t mm_heap_find(mm_heap_t *h, const void *ptr)
{
    if ((const char *)ptr < h->base || (const char *)ptr >= h->base + h->size)
        return -1;
    size_t off = (size_t)((const char *)ptr - h->base);
    size_t lo = 0, hi = h->nblocks;
    while (lo < hi) { /* binary search: the list is sorted by offset */
        size_t mid = (lo + hi) / 2;
        if (h->blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < h->nblocks && h->blocks[lo].off == off && h->blocks[lo].used)
        return (ptrdiff_t)lo;
    return -1;
}

int mm_heap_free(mm_heap_t *h, void *ptr)
{
    pthread_mutex_lock(&h->lock);
    ptrdiff_t i = mm_heap_find(h, ptr);
    if (i < 0) {
        pthread_mutex_unlock(&h->lock);
        return -1;
    }
    h->blocks[i].used = false;
    /* coalesce with the next, then the previous free block */
    if ((size_t)i + 1 < h->nblocks && !h->blocks[i + 1].used) {
        h->blocks[i].size += h->blocks[i + 1].size;
        mm_heap_remove(h, (size_t)i + 1);
    }
    if (i > 0 && !h->blocks[i - 1].used) {
        h->blocks[i - 1].size += h->blocks[i].size;
        mm_heap_remove(h, (size_t)i);
    }
    pthread_mutex_unlock(&h->lock);
    return 0;
}

int mm_heap_resize(mm_heap_t *h, void *ptr, size_t size)
{
    int rc = -1;
    size = mm_round_up(size ? size : 1, MM_HEAP_MIN_ALIGN);
    pthread_mutex_lock(&h->lock);
    ptrdiff_t i = mm_heap_find(h, ptr);
    if (i >= 0) {
        mm_block_t *b = &h->blocks[i];
        bool next_free = (size_t)i + 1 < h->nblocks && !h->blocks[i + 1].used;
        size_t avail = b->size + (next_free ? h->blocks[i + 1].size : 0);
        if (size <= avail && mm_heap_reserve(h, 1) == 0) {
            b = &h->blocks[i];
            size_t rest = avail - size;
            b->size = size;
            if (next_free)
                mm_heap_remove(h, (size_t)i + 1);
            if (rest)
                mm_heap_insert(h, (size_t)i + 1, (mm_block_t){b->off + size, rest, false});
            rc = 0;
        }
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

size_t mm_heap_block_size(mm_heap_t *h, const void *ptr)
{
    pthread_mutex_lock(&h->lock);
    ptrdiff_t i = mm_heap_find(h, ptr);
    size_t s = i >= 0 ? h->blocks[i].size : 0;
    pthread_mutex_unlock(&h->lock);
    return s;
}

size_t mm_heap_free_bytes(mm_heap_t *h)
{
    size_t total = 0;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->nblocks; i++)
        if (!h->blocks[i].used)
            total += h->blocks[i].size;
    pthread_mutex_unlock(&h->lock);
    return total;
}
