/*
 * Collective symmetric allocation (meshmem_malloc and friends). The allocator is deterministic
 * (mm_heap.c); here every call also checks that all ranks asked for the same thing, since an
 * asymmetric request would silently break symmetry, and ends with the barrier the standard
 * requires. The check rides on the barrier itself (the request travels in the flag line).
 */
#include "mm_heap.h"
#include "mm_shm.h"
#include "mm_team.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MM_ALLOC_MALLOC = 1, MM_ALLOC_FREE, MM_ALLOC_REALLOC };

/* what a PE asked for, in the user's terms: "asked for 100 bytes (align 64)" */
static void mm_symalloc_describe(char *out, size_t cap, const uint64_t *req)
{
    switch (req[0]) {
    case MM_ALLOC_MALLOC:
        snprintf(out, cap, "asked for %llu bytes (align %llu)", (unsigned long long)req[1],
                 (unsigned long long)req[2]);
        break;
    case MM_ALLOC_FREE:
        if ((int64_t)req[3] < 0)
            snprintf(out, cap, "freed NULL");
        else
            snprintf(out, cap, "freed the allocation at heap offset %llu",
                     (unsigned long long)req[3]);
        break;
    default:
        snprintf(out, cap, "resized the allocation at heap offset %llu to %llu bytes",
                 (unsigned long long)req[3], (unsigned long long)req[1]);
    }
}

/* barrier over the world carrying (kind, size, align, offset); ends the job on a mismatch */
static void mm_symalloc_agree(const char *call, uint64_t kind, uint64_t size, uint64_t align,
                              uint64_t offset)
{
    struct meshmem_team *w = MESHMEM_TEAM_WORLD;
    call = mm_call_name(call);
    uint64_t mine[4] = {kind, size, align, offset};
    uint64_t *all = malloc(sizeof(mine) * (size_t)w->size);
    if (all == NULL)
        mm_fatal("%s: out of memory", call);
    meshmem_quiet();
    mm_coll_enter(w, call, MM_CALL_TAG(MM_CALL_SYMALLOC, 0));
    mm_coll_exchange(w, MM_FLAG_ARRIVE, w->tag, mine, 4, all);
    for (int r = 0; r < w->size; r++) {
        uint64_t *o = all + 4 * (size_t)r;
        if (memcmp(o, mine, sizeof(mine)) != 0) {
            char here[96], there[96];
            mm_symalloc_describe(here, sizeof(here), mine);
            mm_symalloc_describe(there, sizeof(there), o);
            mm_fatal_collective("%s: arguments differ between PEs: PE %d %s, PE %d %s "
                                "(symmetric allocation is collective: every PE makes the same "
                                "calls with the same arguments)",
                                call, mm_g.rank, here, r, there);
        }
    }
    free(all);
}

/*
 * Commit a new block on every rank (collective, after the allocation every rank made at the same
 * offset): each rank allocates its own copy's pages (mm_shm_commit: the heap is only reserved
 * until then) and the ranks agree on the outcome, so that the block exists everywhere or
 * nowhere. When memory runs out the lowest failing rank says so, once for the job, and the call
 * returns NULL, as when the heap itself has no room. Then each rank fills its page tables for
 * the copies of its host's peers, so that first accesses are not measured as faults. With
 * MESHMEM_PREFAULT=0 pages come at first touch instead (mm_shm_fault.c explains a failure then).
 */
static bool mm_symalloc_commit(const char *call, char *p, size_t bytes)
{
    if (!mm_config.prefault || bytes == 0)
        return true;
    size_t avail;
    int err = mm_shm_commit_block(p, bytes, &avail);
    struct meshmem_team *w = MESHMEM_TEAM_WORLD;
    uint64_t mine[2] = {(uint64_t)err, (uint64_t)avail};
    uint64_t *all = malloc(sizeof(mine) * (size_t)w->size);
    if (all == NULL)
        mm_fatal("%s: out of memory", call);
    mm_coll_exchange(w, MM_FLAG_ARRIVE, MM_CALL_TAG(MM_CALL_SYMALLOC, 0), mine, 2, all);
    int failed = -1;
    for (int r = 0; r < w->size && failed < 0; r++)
        if (all[2 * r] != 0)
            failed = r;
    free(all);
    if (failed == mm_g.rank) {
        char want[24], have[24] = "?";
        mm_format_size(want, sizeof(want), bytes);
        if (avail != SIZE_MAX)
            mm_format_size(have, sizeof(have), avail);
        mm_error("%s: no memory for %s more of symmetric heap on PE %d's host (%s available "
                 "for its %d PEs: %s): the call returns NULL",
                 call, want, mm_g.rank, have, mm_g.local_size, strerror(err));
    }
    if (failed >= 0)
        return false;
    mm_shm_map_ahead(p, bytes);
    return true;
}

static void *mm_symalloc(const char *call, size_t size, size_t align)
{
    call = mm_call_name(call); /* a binding's name for it (meshmem_name_calls), if any */
    MM_CHECK_INIT(call);
    if (align == 0 || (align & (align - 1)) != 0)
        mm_fatal("%s: alignment argument (%zu) is not a power of two", call, align);
    mm_symalloc_agree(call, MM_ALLOC_MALLOC, size, align, 0);
    if (size == 0)
        return NULL;
    if (align > mm_heap_base_align(mm_g.heap_size)) { /* larger than the heap: no such block */
        mm_warn("%s: alignment argument (%zu) is larger than the symmetric heap (%zu bytes; "
                "raise SHMEM_SYMMETRIC_SIZE)",
                call, align, mm_g.heap_size);
        return NULL;
    }
    void *p = mm_heap_alloc(mm_symheap, size, align);
    static bool told; /* once per job: every PE fails alike, the heap being symmetric */
    if (p == NULL) {
        if (!told && mm_g.rank == 0) {
            told = true;
            mm_log(MM_LOG_WARN | MM_LOG_ALWAYS,
                   "%s: %zu bytes do not fit in the symmetric heap (%zu free of %zu); raise "
                   "SHMEM_SYMMETRIC_SIZE (meshrun --heap)",
                   call, size, mm_heap_free_bytes(mm_symheap), mm_g.heap_size);
        }
        return NULL;
    }
    if (!mm_symalloc_commit(call, p, size)) {
        mm_heap_free(mm_symheap, p);
        return NULL;
    }
    return p;
}

void *meshmem_malloc(size_t size)
{
    return mm_symalloc("shmem_malloc", size, 64);
}

void *meshmem_align(size_t alignment, size_t size)
{
    return mm_symalloc("shmem_align", size, alignment < 64 ? 64 : alignment);
}

void *meshmem_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        mm_fatal("shmem_calloc: count (%zu) x size (%zu) overflows", count, size);
    void *p = mm_symalloc("shmem_calloc", count * size, 64);
    if (p) {
        memset(p, 0, count * size);
        mm_fullmesh_barrier(MESHMEM_TEAM_WORLD); /* no peer may write into it before it is zeroed */
    }
    return p;
}

void meshmem_free(void *ptr)
{
    MM_CHECK_INIT("shmem_free");
    /* before the agreement: a private pointer's offset differs on every PE */
    if (ptr && mm_heap_block_size(mm_symheap, ptr) == 0)
        mm_fatal_collective("shmem_free: ptr argument (%p) is not a live symmetric allocation",
                            ptr);
    int64_t off = ptr ? (int64_t)((uintptr_t)ptr - mm_g.heap_base) : -1;
    mm_symalloc_agree("shmem_free", MM_ALLOC_FREE, 0, 0, (uint64_t)off);
    if (ptr && mm_heap_free(mm_symheap, ptr) != 0)
        mm_fatal("shmem_free: ptr argument (%p) is not a live symmetric allocation", ptr);
}

void *meshmem_realloc(void *ptr, size_t size)
{
    MM_CHECK_INIT("shmem_realloc");
    if (ptr == NULL)
        return meshmem_malloc(size);
    if (size == 0) {
        meshmem_free(ptr);
        return NULL;
    }
    size_t old = mm_heap_block_size(mm_symheap, ptr);
    if (old == 0)
        mm_fatal("shmem_realloc: ptr argument (%p) is not a live symmetric allocation", ptr);
    mm_symalloc_agree("shmem_realloc", MM_ALLOC_REALLOC, size, 0,
                      (uint64_t)((uintptr_t)ptr - mm_g.heap_base));
    void *p = ptr;
    if (mm_heap_resize(mm_symheap, ptr, size) == 0) {
        /* grown in place: commit the new tail; on failure the block shrinks back, as it was */
        if (size > old && !mm_symalloc_commit("shmem_realloc", (char *)ptr + old, size - old)) {
            mm_heap_resize(mm_symheap, ptr, old);
            p = NULL;
        }
    } else {
        p = mm_heap_alloc(mm_symheap, size, 64);
        if (p != NULL && !mm_symalloc_commit("shmem_realloc", p, size)) {
            mm_heap_free(mm_symheap, p);
            p = NULL;
        }
        if (p != NULL) { /* else the old block stays valid, as realloc */
            memcpy(p, ptr, old < size ? old : size);
            mm_heap_free(mm_symheap, ptr);
        }
    }
    /* no peer may write into the new block before the copy */
    mm_fullmesh_barrier(MESHMEM_TEAM_WORLD);
    return p;
}

void meshmem_heap_info(size_t *total, size_t *free_bytes)
{
    if (total)
        *total = mm_g.heap_size;
    if (free_bytes)
        *free_bytes = mm_g.initialized ? mm_heap_free_bytes(mm_symheap) : 0;
}
