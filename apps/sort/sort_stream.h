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
 *
 * A destination on another host (meshmem_ptr gives no mapping) is written in flushes instead:
 * the source gathers its records for d in a local staging block per region and, when one of
 * them is full and at the end of the pass, sends everything staged for d as one flush, one put
 * of the keys and one of the values, into its own slice at the top of d's pool. A slice holds
 * everything its source can send in the pass (its whole input, and the flushes' headers), so
 * no space is asked for on the way: no round trip. The pass opens with an all-gather of every
 * rank's input count (in place of the barrier), from which every rank lays out every pool
 * alike: the slices of d's remote sources at the top, in source order; blocks for the sources
 * of d's host from the bottom, up to the slices. That fits in the pool: it is sized for every
 * record at one rank, and the bottom only ever holds the records of the host's sources. A
 * flush opens with a header of uint32 words in its key slots: the
 * start of the same source's previous flush, then the record count of each region; the
 * regions' records follow, packed in region order. The end-of-data put_signal carries the start
 * of the source's last flush and the number of flushes (eod word 1): the destination walks
 * them back.
 */
#ifndef SORT_STREAM_H
#define SORT_STREAM_H

#include "sort_work.h"

enum {
    SORT_BLOCK = 2048,     /* records per region block */
    SORT_LINE = 8,         /* uint64 per cache line: one counter per line */
    SORT_FLUSH_ALIGN = 16, /* records: a flush's size is a multiple, its start too */
};

#define SORT_NONE UINT32_MAX

/** Where a source writes one of its regions at a destination (private to the source). */
typedef struct {
    char *k;       /* next key, mapped into the destination's pool (or into the staging
                         block, for a destination on another host) */
    uint32_t *v;   /* next value (NULL: keys only) */
    uint32_t left; /* records left in the current block */
    uint32_t first, last;
} sort_cursor_t;

/** A cursor's staging block, for a destination on another host (meshmem_ptr gives none): the
 * records gather here and go with the destination's next flush. */
typedef struct {
    char *k;
    uint32_t *v;
} sort_stage_t;

/** This source's slice at a destination on another host (private to the source). */
typedef struct {
    uint64_t next; /* where the next flush goes, in records of d's pool */
    uint64_t end;  /* the slice's end */
    uint64_t word; /* eod word 1: the last flush's start | flushes << 32 */
} sort_flow_t;

/** A finished region as its source describes it in the destination's table. */
typedef struct {
    uint32_t first, last, last_count;
} sort_desc_t;

/** One pool of blocks, in the symmetric heap (the radix sort alternates two). */
typedef struct {
    char *keys;        /* nblocks * SORT_BLOCK keys */
    uint32_t *vals;    /* nblocks * SORT_BLOCK values, or NULL */
    uint32_t *next;    /* next block of a region, written by the region's source */
    sort_desc_t *desc; /* [region * nranks + source] */
    uint64_t *used;    /* blocks handed out (fetch-add by the sources of the host), own
                             cache line */
    size_t nblocks;
} sort_pool_t;

struct sort_stream {
    uint32_t regions; /* key regions per rank (the most any rank has) */
    uint64_t *eod;    /* symmetric [source * LINE]: end-of-data marks (the run's epoch) */
    uint64_t epoch;   /* passes so far */
    sort_pool_t pool[2];
    sort_cursor_t *cur;  /* [dest * regions + region] */
    sort_stage_t *stage; /* [dest * regions + region]: staging blocks (NULL k: dest mapped) */
    sort_flow_t *flow;   /* [dest]: this source's slice and flushes (dest on another host) */
    int *host;           /* [rank]: the lowest rank of its host (NULL: one host) */
    uint64_t *input;     /* [rank]: records each rank reads in this pass (with hosts) */
    uint64_t *below;     /* [dest]: blocks of dest's pool below its slices, this pass */
    char *pack_k;        /* a flush's header and keys, packed (NULL: every rank mapped) */
    uint32_t *pack_v;    /* a flush's values, packed */
    sort_seq_t seq_in;   /* radix: the previous pass's output as the next one's input */
    size_t model_done;   /* meshrun --fabric: records of this pass already annotated */
};

/** @return symmetric bytes of one pool for @p total records (flushes' headers included). */
size_t sort_pool_bytes(uint64_t total, int nranks, uint32_t regions, int keybytes, int has_vals);

/** @brief Take a block of @p pool at rank @p d for cursor @p c (remote fetch-add, link), or,
 * when d is on another host, send d's staged records (a flush) and restart the staging;
 * @p placed: the records this place pass has written so far (annotated for meshrun --fabric
 * before the traced fetch-add ends the interval). */
void sort_cursor_grow(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *c, int d, size_t placed);

/* the key-width template's entry points (sort_stream_tmpl.h) */
void sort_place_pass_32(sort_job_t *j, const sort_seq_t *in, int shift, sort_pool_t *pool,
                        int to_self);
void sort_place_pass_64(sort_job_t *j, const sort_seq_t *in, int shift, sort_pool_t *pool,
                        int to_self);

#endif /* SORT_STREAM_H */
