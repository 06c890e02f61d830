/* Unit test of the symmetric heap allocator: determinism, alignment, coalescing, resize. */
#include "mm_heap.h"
#include "mm_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mm_test_rank_hint = 0;
static mm_heap_t *H;

#define HEAP (1u << 20)

/* a deterministic pseudo-random sequence of allocations and frees; returns a checksum of the
 * offsets handed out, which must be the same on every run (that is what makes it symmetric) */
static uint64_t run_sequence(char *base)
{
    CHECK(mm_heap_init(H, base, HEAP) == 0);
    void *live[64] = {0};
    uint64_t sum = 0, x = 12345;
    for (int step = 0; step < 5000; step++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int slot = (int)((x >> 33) % 64);
        if (live[slot]) {
            CHECK(mm_heap_free(H, live[slot]) == 0);
            live[slot] = NULL;
        } else {
            size_t size = 1 + (size_t)((x >> 20) % 9000);
            size_t align = (size_t)1 << ((x >> 50) % 13);
            live[slot] = mm_heap_alloc(H, size, align);
            if (live[slot]) {
                uintptr_t off = (uintptr_t)((char *)live[slot] - base);
                CHECK(off % (align < 64 ? 64 : align) == 0);
                CHECK(off + size <= HEAP);
                CHECK(mm_heap_block_size(H, live[slot]) >= size);
                memset(live[slot], slot, size); /* no overlap: checked below */
                sum = sum * 31 + off;
            }
        }
    }
    for (int i = 0; i < 64; i++) {
        if (live[i]) {
            unsigned char *p = live[i];
            CHECK(p[0] == (unsigned char)i);
            CHECK(mm_heap_free(H, live[i]) == 0);
        }
    }
    CHECK(mm_heap_free_bytes(H) == HEAP); /* everything coalesced back */
    mm_heap_fini(H);
    return sum;
}

int main(void)
{
    H = mm_heap_new();
    CHECK(H != NULL);
    char *a = aligned_alloc(4096, HEAP), *b = aligned_alloc(4096, HEAP);
    CHECK(a && b);
    CHECK(run_sequence(a) == run_sequence(b));

    CHECK(mm_heap_init(H, a, HEAP) == 0);
    CHECK(mm_heap_alloc(H, 0, 64) == NULL);
    CHECK(mm_heap_alloc(H, HEAP + 1, 64) == NULL);
    CHECK(mm_heap_alloc(H, 100, 3) == NULL); /* not a power of two */
    void *p = mm_heap_alloc(H, 1000, 64), *q = mm_heap_alloc(H, 1000, 64);
    CHECK(p && q && p != q);
    CHECK(mm_heap_free(H, (char *)p + 8) == -1); /* not a block start */
    CHECK(mm_heap_free(H, p) == 0);
    CHECK(mm_heap_free(H, p) == -1); /* double free is detected */
    /* resize: q can grow in place into the free tail */
    CHECK(mm_heap_resize(H, q, 5000) == 0);
    CHECK(mm_heap_block_size(H, q) >= 5000);
    CHECK(mm_heap_resize(H, q, 100) == 0);
    CHECK(mm_heap_block_size(H, q) < 5000);
    void *big = mm_heap_alloc(H, HEAP - 1024, 64);
    CHECK(big == NULL); /* q sits in the way */
    CHECK(mm_heap_free(H, q) == 0);
    big = mm_heap_alloc(H, HEAP, 64);
    CHECK(big == a);
    CHECK(mm_heap_free_bytes(H) == 0);
    mm_heap_fini(H);
    mm_heap_delete(H);
    free(a);
    free(b);
    return 0;
}
