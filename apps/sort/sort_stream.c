/*
 * The streaming stages of OPTWEB-sort (sort_engine.h): A=2 (classify straight into the
 * destination's receive region, end-of-data marks, then place) and A=1 (the single pass:
 * classify straight into the destination's key regions), and the LSD radix sort, one A=1 pass
 * per digit. The regions are chains of blocks in each rank's symmetric pool (sort_stream.h).
 */
#include "sort_stream.h"

#include <meshmem_coll.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* key slots of a flush's header: the start of the previous flush, then a count per region */
static size_t flush_header_slots(uint32_t regions, int keybytes)
{
    return ((size_t)(1 + regions) * 4 + (size_t)keybytes - 1) / (size_t)keybytes;
}

/* records a source's slice must hold for up to @p n records of it: the records, and a header
 * and alignment per flush (each carries a full staging block, SORT_BLOCK records, but the
 * last) */
static uint64_t slice_records(uint64_t n, uint32_t regions, int keybytes)
{
    uint64_t flushes = n / SORT_BLOCK + 1;
    return n + flushes * (flush_header_slots(regions, keybytes) + SORT_FLUSH_ALIGN);
}

/* blocks that @p total records can need at one rank: all of them, plus a partly filled block
 * per (region, source), plus the slices' headers and alignment */
static size_t pool_blocks(uint64_t total, int nranks, uint32_t regions, int keybytes)
{
    size_t flushes = (size_t)(total / SORT_BLOCK) + (size_t)nranks;
    size_t extra = flushes * (flush_header_slots(regions, keybytes) + SORT_FLUSH_ALIGN);
    return (size_t)(total / SORT_BLOCK) + (size_t)regions * (size_t)nranks + 2 +
           (extra + SORT_BLOCK - 1) / SORT_BLOCK;
}

size_t sort_pool_bytes(uint64_t total, int nranks, uint32_t regions, int keybytes, int has_vals)
{
    size_t nb = pool_blocks(total, nranks, regions, keybytes);
    size_t rec = (size_t)keybytes + (has_vals ? 4 : 0);
    return nb * SORT_BLOCK * rec + nb * 4 + (size_t)regions * (size_t)nranks * sizeof(sort_desc_t) +
           6 * 4096;
}

size_t sort_stream_heap_bytes(const sort_params_t *p, int nranks, uint64_t ndigits, int keybytes)
{
    uint32_t regions = (uint32_t)((ndigits + (uint64_t)nranks - 1) / (uint64_t)nranks);
    size_t eod = (size_t)nranks * SORT_LINE * sizeof(uint64_t) + 4096;
    if (p->variant == SORT_A1 || p->variant == SORT_A2)
        return eod + sort_pool_bytes(p->total, nranks, regions, keybytes, p->has_vals);
    if (p->variant == SORT_RADIX)
        return eod + 2 * sort_pool_bytes(p->total, nranks, regions, keybytes, p->has_vals);
    return eod;
}

static void pool_init(sort_pool_t *p, const sort_job_t *j, uint32_t regions)
{
    p->nblocks = pool_blocks(j->total, j->nranks, regions, j->keybytes);
    if ((uint64_t)p->nblocks * SORT_BLOCK > UINT32_MAX) { /* record indices are uint32 */
        fprintf(stderr, "sort: %llu records are too many for the region pool (%zu blocks)\n",
                (unsigned long long)j->total, p->nblocks);
        meshmem_global_exit(1);
    }
    p->keys = sort_symalloc(p->nblocks * SORT_BLOCK * (size_t)j->keybytes);
    p->vals = j->has_vals ? sort_symalloc(p->nblocks * SORT_BLOCK * 4) : NULL;
    p->next = sort_symalloc(p->nblocks * sizeof(uint32_t));
    p->desc = sort_symalloc((size_t)regions * (size_t)j->nranks * sizeof(sort_desc_t));
    p->used = sort_symalloc(SORT_LINE * sizeof(uint64_t));
    *p->used = 0;
}

static void pool_free(sort_pool_t *p)
{
    if (p->keys == NULL)
        return;
    meshmem_free(p->used);
    meshmem_free(p->desc);
    meshmem_free(p->next);
    meshmem_free(p->vals);
    meshmem_free(p->keys);
    memset(p, 0, sizeof(*p));
}

/* meshrun --fabric: the records placed since the last annotation, one read and one write each
   (the single pass: classification, transfer and placement in one sweep) */
static void model_placed(sort_job_t *j, size_t placed)
{
    struct sort_stream *st = j->w->stream;
    if (placed > st->model_done)
        sort_model_pass(placed - st->model_done, sort_record_bytes(j), 1);
    st->model_done = placed;
}

static inline void sort_stream_fence(void);

static void pool_exhausted(const sort_pool_t *pool, int d)
{
    fprintf(stderr, "sort: rank %d's region pool is exhausted (%zu blocks)\n", d, pool->nblocks);
    meshmem_global_exit(1);
}

/* the staging block of cursor @p c (toward rank @p d), NULL when d's pool is mapped here */
static const sort_stage_t *cursor_stage(const sort_job_t *j, const sort_cursor_t *c)
{
    const struct sort_stream *st = j->w->stream;
    const sort_stage_t *g = &st->stage[c - st->cur];
    return g->k ? g : NULL;
}

/*
 * @p d on another host: send everything staged for d as one flush (sort_stream.h: a header,
 * then each region's records, packed) into this source's slice of d's pool, and restart d's
 * staging blocks. Nothing is sent when nothing is staged.
 */
static void remote_flush(sort_job_t *j, sort_pool_t *pool, int d)
{
    struct sort_stream *st = j->w->stream;
    uint32_t R = st->regions;
    size_t kb = (size_t)j->keybytes, H = flush_header_slots(R, j->keybytes), n = 0;
    sort_cursor_t *c = st->cur + (size_t)d * R;
    const sort_stage_t *g = st->stage + (size_t)d * R;
    sort_flow_t *fw = &st->flow[d];
    uint32_t *hdr = (uint32_t *)(void *)st->pack_k;
    sort_stream_fence(); /* the staged lines may be streaming stores */
    hdr[0] = (uint32_t)fw->word;
    for (uint32_t r = 0; r < R; r++) {
        size_t m = c[r].k ? (size_t)(c[r].k - g[r].k) / kb : 0;
        hdr[1 + r] = (uint32_t)m;
        memcpy(st->pack_k + (H + n) * kb, g[r].k, m * kb);
        if (pool->vals)
            memcpy(st->pack_v + n, g[r].v, m * sizeof(uint32_t));
        n += m;
        if (c[r].k) /* opened: its staging block is empty again */
            c[r] = (sort_cursor_t){g[r].k, g[r].v, SORT_BLOCK, c[r].first, c[r].last};
    }
    if (n == 0)
        return;
    uint64_t start = fw->next;
    fw->next += (H + n + SORT_FLUSH_ALIGN - 1) / SORT_FLUSH_ALIGN * SORT_FLUSH_ALIGN;
    if (fw->next > fw->end) { /* slice_records() says it cannot */
        fprintf(stderr, "sort: rank %d's slice at rank %d is full\n", j->me, d);
        meshmem_global_exit(1);
    }
    meshmem_put(pool->keys + start * kb, st->pack_k, (H + n) * kb, d);
    if (pool->vals)
        meshmem_put(pool->vals + start + H, st->pack_v, n * sizeof(uint32_t), d);
    fw->word = start | (((fw->word >> 32) + 1) << 32);
}

/* blocks of @p pool at @p d that sources of d's host may take in this pass */
static uint64_t st_below(const sort_job_t *j, const sort_pool_t *pool, int d)
{
    const struct sort_stream *st = j->w->stream;
    return st->host ? st->below[d] : pool->nblocks;
}

void sort_cursor_grow(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *c, int d, size_t placed)
{
    model_placed(j, placed); /* the fetch-add below is traced: it ends the interval */
    const sort_stage_t *g = cursor_stage(j, c);
    if (g) { /* another host: the first record opens the staging block, a full one flushes */
        if (c->k)
            remote_flush(j, pool, d);
        else
            *c = (sort_cursor_t){g->k, g->v, SORT_BLOCK, c->first, c->last};
        return;
    }
    if (c->first != SORT_NONE && d != j->me) /* the full block went to d by direct stores */
        meshmem_model_transfer(d, SORT_BLOCK * sort_record_bytes(j) + sizeof(uint32_t), 0);
    uint64_t one = 1, id64 = 0;
    meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_UINT64, pool->used, &one, NULL, &id64, d);
    if (id64 >= st_below(j, pool, d))
        pool_exhausted(pool, d);
    uint32_t id = (uint32_t)id64;
    if (c->first == SORT_NONE) {
        c->first = id;
    } else { /* link the full block to the new one, in d's memory */
        uint32_t *next = meshmem_ptr(pool->next, d);
        next[c->last] = id;
    }
    c->last = id;
    c->k = (char *)meshmem_ptr(pool->keys, d) + (size_t)id * SORT_BLOCK * (size_t)j->keybytes;
    c->v = pool->vals ? (uint32_t *)meshmem_ptr(pool->vals, d) + (size_t)id * SORT_BLOCK : NULL;
    c->left = SORT_BLOCK;
}

/*
 * Streams (cursors, times two with values) up to which a pass stores every record straight at
 * its destination; beyond, it stages a line per cursor. Few streams keep their destination pages
 * in the TLB, and staging's extra copy is pure cost; many miss it on every record, which the
 * staging lines avoid (the figures behind the threshold: docs/results-apps.md, "The streaming
 * passes stage a line per cursor").
 */
#define SORT_DIRECT_STREAMS 256u

/*
 * Store @p bytes (32 or 64) staged at @p src to @p dst: streaming stores when @p dst is 16-byte
 * aligned (a whole line written skips the read for ownership the cache would make, and does
 * not evict the reader's data), plain copies otherwise. Streaming stores are weakly ordered:
 * a pass that used them ends with sort_stream_fence().
 */
static inline void sort_line_store(void *dst, const void *src, size_t bytes)
{
#ifdef __SSE2__
    if (((uintptr_t)dst & 15) == 0) {
        for (size_t o = 0; o < bytes; o += 16)
            _mm_stream_si128((__m128i *)((char *)dst + o),
                             _mm_loadu_si128((const __m128i *)((const char *)src + o)));
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

/* the streaming stores before it are visible before any store after it (a mark, a barrier) */
static inline void sort_stream_fence(void)
{
#ifdef __SSE2__
    _mm_sfence();
#endif
}

#define KEY_T uint32_t
#define SFX   _32
#include "sort_stream_tmpl.h"
#undef KEY_T
#undef SFX
#define KEY_T uint64_t
#define SFX   _64
#include "sort_stream_tmpl.h"
#undef KEY_T
#undef SFX

/* with other hosts: each rank's host, named by its lowest rank (collective) */
static void hosts_init(sort_job_t *j)
{
    struct sort_stream *st = j->w->stream;
    int n = j->nranks, lowest = j->me, any = 0;
    for (int r = n - 1; r >= 0; r--) {
        if (meshmem_ptr(st->eod, r) != NULL)
            lowest = r;
        else
            any = 1;
    }
    /* a rank on another host exists for every rank, or for none */
    if (!any || j->variant == SORT_A2) /* A=2 places everything locally: no slices */
        return;
    st->host = sort_xmalloc((size_t)n * sizeof(int));
    st->input = sort_xmalloc((size_t)n * sizeof(uint64_t));
    st->below = sort_xmalloc((size_t)n * sizeof(uint64_t));
    meshmem_coll_allgather(MESHMEM_TEAM_WORLD, &lowest, st->host, 1, MESHMEM_INT32,
                           MESHMEM_ALGO_AUTO);
}

/*
 * Lay out every rank's pool for this pass's inputs (st->input), as every rank does alike: at
 * each destination d, the slices of d's remote sources from the top in source order, and the
 * blocks below them. Keeps d's bottom limit, and this rank's slice at each remote d.
 */
static void slices_layout(sort_job_t *j)
{
    struct sort_stream *st = j->w->stream;
    int n = j->nranks, me = j->me;
    for (int d = 0; d < n; d++) {
        uint64_t top = (uint64_t)st->pool[0].nblocks * SORT_BLOCK;
        sort_flow_t *fw = &st->flow[d];
        for (int s = 0; s < n; s++) {
            if (st->host[s] == st->host[d])
                continue;
            uint64_t want = slice_records(st->input[s], st->regions, j->keybytes);
            top = (top - want) / SORT_FLUSH_ALIGN * SORT_FLUSH_ALIGN;
            if (s == me) {
                fw->next = top;
                fw->end = top + want;
            }
        }
        st->below[d] = top / SORT_BLOCK;
    }
}

void sort_stream_setup(sort_job_t *j)
{
    struct sort_stream *st = calloc(1, sizeof(*st));
    if (st == NULL)
        meshmem_global_exit(1);
    j->w->stream = st;
    int n = j->nranks;
    st->regions = j->map.max_local ? j->map.max_local : 1;
    st->eod = sort_symalloc((size_t)n * SORT_LINE * sizeof(uint64_t));
    memset(st->eod, 0, (size_t)n * SORT_LINE * sizeof(uint64_t));
    st->cur = sort_xmalloc((size_t)n * st->regions * sizeof(sort_cursor_t));
    /* destinations on another host: a staging block per cursor, and one flush packed */
    st->stage = calloc((size_t)n * st->regions, sizeof(sort_stage_t));
    if (st->stage == NULL)
        meshmem_global_exit(1);
    st->flow = sort_xmalloc((size_t)n * sizeof(sort_flow_t));
    for (int d = 0; d < n; d++) {
        if (meshmem_ptr(st->eod, d) != NULL)
            continue;
        for (uint32_t r = 0; r < st->regions; r++) {
            sort_stage_t *g = &st->stage[(size_t)d * st->regions + r];
            g->k = sort_xmalloc(SORT_BLOCK * (size_t)j->keybytes);
            g->v = j->has_vals ? sort_xmalloc(SORT_BLOCK * sizeof(uint32_t)) : NULL;
        }
        if (st->pack_k == NULL) {
            size_t most = (size_t)st->regions * SORT_BLOCK;
            st->pack_k = sort_xmalloc((flush_header_slots(st->regions, j->keybytes) + most) *
                                      (size_t)j->keybytes);
            st->pack_v = j->has_vals ? sort_xmalloc(most * sizeof(uint32_t)) : NULL;
        }
    }
    pool_init(&st->pool[0], j, st->regions);
    if (j->variant == SORT_RADIX)
        pool_init(&st->pool[1], j, st->regions);
    hosts_init(j);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

void sort_stream_free(sort_job_t *j)
{
    struct sort_stream *st = j->w->stream;
    free(st->below);
    free(st->input);
    free(st->host);
    pool_free(&st->pool[1]);
    pool_free(&st->pool[0]);
    meshmem_free(st->eod);
    for (size_t i = 0; i < (size_t)j->nranks * st->regions; i++) {
        free(st->stage[i].k);
        free(st->stage[i].v);
    }
    free(st->stage);
    free(st->pack_v);
    free(st->pack_k);
    free(st->flow);
    free(st->cur);
    free(st->seq_in.seg);
    free(st);
    j->w->stream = NULL;
}

/*
 * Open a pass that writes into @p pool and reads @p in: this rank's pool is emptied (its
 * previous contents were the input of the pass that just ended everywhere before it), then a
 * barrier, so that no source takes a block before its owner has emptied the pool. With other
 * hosts, an all-gather of the inputs' counts is that barrier, and lays out the slices.
 */
static void pass_open(sort_job_t *j, sort_pool_t *pool, const sort_seq_t *in)
{
    struct sort_stream *st = j->w->stream;
    size_t nd = (size_t)st->regions * (size_t)j->nranks;
    *pool->used = 0;
    for (size_t i = 0; i < nd; i++)
        pool->desc[i] = (sort_desc_t){SORT_NONE, SORT_NONE, 0};
    for (size_t i = 0; i < nd; i++)
        st->cur[i] = (sort_cursor_t){NULL, NULL, 0, SORT_NONE, SORT_NONE};
    for (int d = 0; d < j->nranks; d++) /* no flush yet: no last start, none sent */
        st->flow[d].word = SORT_NONE;
    st->epoch++;
    if (st->host == NULL) {
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        return;
    }
    uint64_t count = 0;
    for (size_t g = 0; g < in->nseg; g++)
        count += in->seg[g].n;
    meshmem_coll_allgather(MESHMEM_TEAM_WORLD, &count, st->input, 1, MESHMEM_UINT64,
                           MESHMEM_ALGO_AUTO);
    slices_layout(j);
}

/* end of data: each destination gets this source's region descriptors (or, on another host,
 * its last flush), then its mark. Destinations in turn from the next rank on (this rank's
 * last), as the collectives do: in the same order on every source, all the flushes of a pass
 * went to rank 0 first, then all to rank 1, ..., each receiver taking them one after another
 * while the others idled (on the simulated engine, whose one-sided engine takes one packet at a
 * time: 345.7 µs for 256K records at 8 nodes, 119 µs in turn; docs/rtl-transport.md) */
static void pass_close(sort_job_t *j, sort_pool_t *pool, int to_self)
{
    struct sort_stream *st = j->w->stream;
    int n = j->nranks, me = j->me;
    for (int i = 1; i <= n; i++) {
        int d = (me + i) % n;
        if (to_self && d != me)
            continue;
        sort_desc_t *desc = meshmem_ptr(pool->desc, d);
        if (desc == NULL) { /* another host: what is staged, by put */
            remote_flush(j, pool, d);
            continue;
        }
        const sort_cursor_t *c = st->cur + (size_t)d * st->regions;
        if (d != me) { /* the partial blocks and descriptors, by stores */
            uint64_t bytes = 0;
            for (uint32_t r = 0; r < st->regions; r++)
                if (c[r].first != SORT_NONE)
                    bytes += (SORT_BLOCK - c[r].left) * sort_record_bytes(j) + sizeof(*desc);
            if (bytes)
                meshmem_model_transfer(d, bytes, 0);
        }
        for (uint32_t r = 0; r < st->regions; r++)
            if (c[r].first != SORT_NONE)
                desc[(size_t)r * (size_t)n + (size_t)me] =
                    (sort_desc_t){c[r].first, c[r].last, SORT_BLOCK - c[r].left};
    }
    meshmem_fence(); /* the flushes put to other hosts before the marks */
    if (to_self)     /* A=2: the marks were sent with the data */
        return;
    uint64_t mark = st->epoch, *line = &st->eod[(size_t)me * SORT_LINE];
    for (int i = 1; i <= n; i++) { /* to another host, the mark carries the flushes (word 1) */
        int d = (me + i) % n;
        meshmem_put_signal(line + 1, &st->flow[d].word, meshmem_ptr(line, d) ? 0 : sizeof(uint64_t),
                           line, mark, MESHMEM_SIGNAL_SET, d);
    }
}

/* wait for every source's end-of-data mark of this pass (meshmem_wait_until: spins, yields,
   then sleeps; and meshrun --fabric sees a wait on the marks, not compute) */
static void wait_marks(sort_job_t *j)
{
    struct sort_stream *st = j->w->stream;
    for (int s = 0; s < j->nranks; s++)
        meshmem_wait_until(&st->eod[(size_t)s * SORT_LINE], MESHMEM_UINT64, MESHMEM_CMP_EQ,
                           &st->epoch);
}

/*
 * This rank's regions in order: region-major, then source (stable). A source on another host
 * sent flushes: they are found back from its last (eod word 1, through each header's link to
 * the previous one) and read region by region, oldest first.
 */
static void pool_output(const sort_job_t *j, const sort_pool_t *p, sort_seq_t *q)
{
    const struct sort_stream *st = j->w->stream;
    int n = j->nranks;
    size_t kb = (size_t)j->keybytes, H = flush_header_slots(st->regions, j->keybytes);
    size_t fl[n + 1]; /* source s's flushes: [fl[s], fl[s + 1]) of at[] and off[] */
    fl[0] = 0;
    for (int s = 0; s < n; s++)
        fl[s + 1] = fl[s] + (size_t)(st->eod[(size_t)s * SORT_LINE + 1] >> 32);
    size_t *at = sort_xmalloc((fl[n] + 1) * sizeof(size_t));  /* a flush's start, in records */
    size_t *off = sort_xmalloc((fl[n] + 1) * sizeof(size_t)); /* its next region's records */
    for (int s = 0; s < n; s++) {
        uint32_t last = (uint32_t)st->eod[(size_t)s * SORT_LINE + 1];
        for (size_t f = fl[s + 1]; f-- > fl[s];) {
            at[f] = last;
            off[f] = at[f] + H;
            last = *(const uint32_t *)(const void *)(p->keys + at[f] * kb);
        }
    }
    q->nseg = 0;
    for (uint32_t r = 0; r < st->regions; r++) {
        for (int s = 0; s < n; s++) {
            for (size_t f = fl[s]; f < fl[s + 1]; f++) {
                const uint32_t *hdr = (const uint32_t *)(const void *)(p->keys + at[f] * kb);
                sort_seq_push(q, p->keys + off[f] * kb, p->vals ? p->vals + off[f] : NULL,
                              hdr[1 + r]);
                off[f] += hdr[1 + r];
            }
            sort_desc_t d = p->desc[(size_t)r * (size_t)n + (size_t)s];
            for (uint32_t id = d.first; id != SORT_NONE;
                 id = id == d.last ? SORT_NONE : p->next[id])
                sort_seq_push(q, p->keys + (size_t)id * SORT_BLOCK * kb,
                              p->vals ? p->vals + (size_t)id * SORT_BLOCK : NULL,
                              id == d.last ? d.last_count : SORT_BLOCK);
        }
    }
    free(off);
    free(at);
}

static void place_pass(sort_job_t *j, const sort_seq_t *in, int shift, sort_pool_t *pool,
                       int to_self)
{
    j->w->stream->model_done = 0;
    if (j->keybytes == 8)
        sort_place_pass_64(j, in, shift, pool, to_self);
    else
        sort_place_pass_32(j, in, shift, pool, to_self);
    size_t n = 0;
    for (size_t g = 0; g < in->nseg; g++)
        n += in->seg[g].n;
    model_placed(j, n); /* the records after the last block taken */
}

/* records staged per destination on another host before a put */
#define SORT_STAGE_RECORDS 4096u

/* put the records staged for @p d, [*flushed, fill), where they belong in d's receive area */
static void stage_flush(struct sort_work *w, uint64_t base, int d, const uint32_t *sk,
                        const uint32_t *sv, size_t *flushed, size_t fill)
{
    size_t m = fill - *flushed;
    meshmem_put((uint32_t *)w->recv_keys + base + *flushed, sk + (size_t)d * SORT_STAGE_RECORDS,
                m * 4, d);
    if (sv)
        meshmem_put(w->recv_vals + base + *flushed, sv + (size_t)d * SORT_STAGE_RECORDS, m * 4, d);
    *flushed = fill;
}

/*
 * A=2's pass 1 when some destination is on another host: records for a mapped destination are
 * stored into its receive area as in the plain loop, those for another host's gather in a
 * staging chunk that goes by put when full (and at the end). @p fill: records per destination.
 */
static void stream_to_receive_areas_staged(sort_job_t *j, uint64_t base, size_t *fill)
{
    struct sort_work *w = j->w;
    int n = j->nranks;
    uint64_t mask = j->map.mask;
    const uint32_t *dest = j->map.dest, *keys = j->in_keys, *vals = j->in_vals;
    uint32_t *rk[n], *rv[n], *sk = sort_xmalloc((size_t)n * SORT_STAGE_RECORDS * 4),
                             *sv = vals ? sort_xmalloc((size_t)n * SORT_STAGE_RECORDS * 4) : NULL;
    size_t flushed[n];
    for (int d = 0; d < n; d++) {
        rk[d] = meshmem_ptr((uint32_t *)w->recv_keys + base, d);
        rv[d] = vals ? meshmem_ptr(w->recv_vals + base, d) : NULL;
        flushed[d] = rk[d] ? SIZE_MAX : 0; /* SIZE_MAX: mapped, stored directly */
    }
    for (size_t i = 0; i < j->nlocal; i++) {
        uint32_t k = keys[i], d = dest[k & mask];
        if (flushed[d] == SIZE_MAX) {
            rk[d][fill[d]] = k;
            if (vals)
                rv[d][fill[d]] = vals[i];
            fill[d]++;
            continue;
        }
        size_t at = (size_t)d * SORT_STAGE_RECORDS + (fill[d] - flushed[d]);
        sk[at] = k;
        if (vals)
            sv[at] = vals[i];
        if (++fill[d] - flushed[d] == SORT_STAGE_RECORDS)
            stage_flush(w, base, (int)d, sk, sv, &flushed[d], fill[d]);
    }
    for (int d = 0; d < n; d++)
        if (flushed[d] != SIZE_MAX && fill[d] > flushed[d])
            stage_flush(w, base, d, sk, sv, &flushed[d], fill[d]);
    meshmem_fence(); /* the records before the marks that follow */
    free(sk);
    free(sv);
}

/* A=2: pass 1 writes each record into the destination's receive area for this source */
static void stream_to_receive_areas(sort_job_t *j)
{
    struct sort_work *w = j->w;
    struct sort_stream *st = w->stream;
    int n = j->nranks, me = j->me;
    uint64_t mask = j->map.mask, base = sort_share_lo(j->total, n, me);
    const uint32_t *dest = j->map.dest;
    uint32_t *rk[n], *rv[n];
    size_t fill[n];
    bool all_mapped = true;
    for (int d = 0; d < n; d++) {
        rk[d] = meshmem_ptr((uint32_t *)w->recv_keys + base, d);
        rv[d] = j->has_vals ? meshmem_ptr(w->recv_vals + base, d) : NULL;
        fill[d] = 0;
        all_mapped = all_mapped && rk[d] != NULL;
    }
    const uint32_t *keys = j->in_keys, *vals = j->in_vals;
    if (!all_mapped) {
        stream_to_receive_areas_staged(j, base, fill);
    } else if (vals) {
        for (size_t i = 0; i < j->nlocal; i++) {
            uint32_t k = keys[i], d = dest[k & mask];
            rk[d][fill[d]] = k;
            rv[d][fill[d]++] = vals[i];
        }
    } else {
        for (size_t i = 0; i < j->nlocal; i++) {
            uint32_t k = keys[i], d = dest[k & mask];
            rk[d][fill[d]++] = k;
        }
    }
    sort_model_pass(j->nlocal, sort_record_bytes(j), 1); /* the stores are not traced calls */
    for (int d = 0; d < n; d++) /* they moved fill[d] records to d: charged before the marks */
        if (d != me && fill[d])
            meshmem_model_transfer(d, fill[d] * sort_record_bytes(j), 0);
    /* end of data: the count, tagged with the pass, after the data (put_signal orders them) */
    for (int d = 0; d < n; d++) {
        uint64_t mark = (st->epoch << 40) | (uint64_t)fill[d];
        meshmem_put_signal(&st->eod[(size_t)me * SORT_LINE], &mark, 0,
                           &st->eod[(size_t)me * SORT_LINE], mark, MESHMEM_SIGNAL_SET, d);
    }
}

static void run_a2(sort_job_t *j)
{
    struct sort_work *w = j->w;
    struct sort_stream *st = w->stream;
    sort_pool_t *pool = &st->pool[0];
    int n = j->nranks;
    meshmem_model_phase("classify");
    pass_open(j, pool, NULL); /* A=2 writes no slices */
    stream_to_receive_areas(j);
    meshmem_model_phase("place");
    /* pass 2: as each source's mark arrives, place its records by the key's lower part */
    sort_seq_t *q = &st->seq_in;
    uint64_t first = st->epoch << 40; /* marks of earlier passes are below it */
    for (int s = 0; s < n; s++) {
        meshmem_wait_until(&st->eod[(size_t)s * SORT_LINE], MESHMEM_UINT64, MESHMEM_CMP_GE, &first);
        uint64_t mark = __atomic_load_n(&st->eod[(size_t)s * SORT_LINE], __ATOMIC_ACQUIRE);
        size_t at = (size_t)sort_share_lo(j->total, n, s);
        q->nseg = 0;
        sort_seq_push(q, (uint32_t *)w->recv_keys + at, w->recv_vals ? w->recv_vals + at : NULL,
                      (size_t)(mark & ((UINT64_C(1) << 40) - 1)));
        place_pass(j, q, 0, pool, 1);
    }
    pass_close(j, pool, 1);
    pool_output(j, pool, &j->out);
}

void sort_run_stream(sort_job_t *j)
{
    struct sort_stream *st = j->w->stream;
    if (j->variant == SORT_A2) {
        run_a2(j);
        return;
    }
    /* A=1, and the radix sort: one A=1 pass per digit, least significant first */
    st->seq_in.nseg = 0;
    sort_seq_push(&st->seq_in, j->in_keys, j->in_vals, j->nlocal);
    sort_pool_t *out = &st->pool[0];
    for (int p = 0; p < j->ndigit_passes; p++) {
        char phase[32];
        if (j->variant == SORT_RADIX)
            snprintf(phase, sizeof(phase), "digit-%d", p + 1);
        meshmem_model_phase(j->variant == SORT_RADIX ? phase : "single-pass");
        out = &st->pool[p % 2];
        pass_open(j, out, &st->seq_in);
        place_pass(j, &st->seq_in, p * j->digit_bits, out, 0);
        pass_close(j, out, 0);
        wait_marks(j);
        pool_output(j, out, p + 1 < j->ndigit_passes ? &st->seq_in : &j->out);
    }
}
