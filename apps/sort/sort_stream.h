/*
 * Private to sort_stream.c and its key-width template: the state of the streaming stages (A=2,
 * A=1) and of the radix sort built on A=1.
 *
 * Key regions without a histogram: every rank's symmetric heap holds a pool of blocks; the
 * region of (key k, source s) at rank d is a chain of blocks of d's pool that only s writes.
 * A source takes a block with one atomic fetch-add on d's block counter (one per SORT_BLOCK
 * records), links it, and stores records into it directly: OPTWEB's memory channels, each
 * with its own write pointer. At the end of its data the source writes its chains' descriptors
 * into d's table and raises its end-of-data mark (put_signal). Regions per source keep each
 * source's order, so the pass is a stable counting sort.
 */
#ifndef SORT_STREAM_H
#define SORT_STREAM_H

#include "sort_work.h"

enum {
    SORT_BLOCK = 2048,        /* records per region block */
    SORT_LINE = 8,            /* uint64 per cache line: one counter per line */
};

#define SORT_NONE UINT32_MAX

/** Where a source writes one of its regions at a destination (private to the source). */
typedef struct {
    char *k;          /* next key, mapped into the destination's pool (or into the staging
                         block, for a destination on another host) */
    uint32_t *v;      /* next value (NULL: keys only) */
    uint32_t left;    /* records left in the current block */
    uint32_t first, last;
} sort_cursor_t;

/** A cursor's staging block, for a destination on another host (meshmem_ptr gives none): the
 * records gather here and go by put when the block is full or the pass ends. */
typedef struct {
    char *k;
    uint32_t *v;
} sort_stage_t;

/** A finished region as its source describes it in the destination's table. */
typedef struct {
    uint32_t first, last, last_count;
} sort_desc_t;

/** One pool of blocks, in the symmetric heap (the radix sort alternates two). */
typedef struct {
    char *keys;           /* nblocks * SORT_BLOCK keys */
    uint32_t *vals;       /* nblocks * SORT_BLOCK values, or NULL */
    uint32_t *next;       /* next block of a region, written by the region's source */
    sort_desc_t *desc;    /* [region * nranks + source] */
    uint64_t *used;       /* blocks handed out (fetch-add by the sources), own cache line */
    size_t nblocks;
} sort_pool_t;

struct sort_stream {
    uint32_t regions;     /* key regions per rank (the most any rank has) */
    uint64_t *eod;        /* symmetric [source * LINE]: end-of-data marks (the run's epoch) */
    uint64_t epoch;       /* passes so far */
    sort_pool_t pool[2];
    sort_cursor_t *cur;   /* [dest * regions + region] */
    sort_stage_t *stage;  /* [dest * regions + region]: staging blocks (NULL k: dest mapped) */
    sort_seq_t seq_in;    /* radix: the previous pass's output as the next one's input */
    size_t model_done;    /* meshrun --fabric: records of this pass already annotated */
};

/** @return symmetric bytes of one pool for @p total records. */
size_t sort_pool_bytes(uint64_t total, int nranks, uint32_t regions, int keybytes, int has_vals);

/** @brief Take a block of @p pool at rank @p d for cursor @p c (remote fetch-add, link);
 * @p placed: the records this place pass has written so far (annotated for meshrun --fabric
 * before the traced fetch-add ends the interval). */
void sort_cursor_grow(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *c, int d, size_t placed);


/* the key-width template's entry points (sort_stream_tmpl.h) */
void sort_place_pass_32(sort_job_t *j, const sort_seq_t *in, int shift, sort_pool_t *pool,
                        int to_self);
void sort_place_pass_64(sort_job_t *j, const sort_seq_t *in, int shift, sort_pool_t *pool,
                        int to_self);

#endif /* SORT_STREAM_H */
