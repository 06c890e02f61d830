/*
 * The streaming stages of seed 004 (sort_engine.h): A=2 (classify straight into the
 * destination's receive region, end-of-data marks, then place) and A=1 (the single pass:
 * classify straight into the destination's key regions), and the LSD radix sort, one A=1 pass
 * per digit. The regions are chains of blocks in each rank's symmetric pool (sort_stream.h).
 */
#include "sort_stream.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* blocks that @p total records can need at one rank: all of them, plus a partly filled block
 * per (region, source) */
static size_t pool_blocks(uint64_t total, int nranks, uint32_t regions)
{
    return (size_t)(total / SORT_BLOCK) + (size_t)regions * (size_t)nranks + 2;
}

size_t sort_pool_bytes(uint64_t total, int nranks, uint32_t regions, int keybytes, int has_vals)
{
    size_t nb = pool_blocks(total, nranks, regions);
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
    p->nblocks = pool_blocks(j->total, j->nranks, regions);
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

/* the staging block of cursor @p c (toward rank @p d), NULL when d's pool is mapped here */
static const sort_stage_t *cursor_stage(const sort_job_t *j, const sort_cursor_t *c)
{
    const struct sort_stream *st = j->w->stream;
    const sort_stage_t *g = &st->stage[c - st->cur];
    return g->k ? g : NULL;
}

/* a destination on another host: the first @p count records staged for cursor @p c go by put
 * into block c->last of @p d's pool */
static void cursor_ship(const sort_job_t *j, const sort_pool_t *pool, const sort_cursor_t *c,
                        int d, uint32_t count)
{
    const sort_stage_t *g = cursor_stage(j, c);
    size_t kb = (size_t)j->keybytes;
    sort_stream_fence(); /* the staged lines may be streaming stores */
    meshmem_put(pool->keys + (size_t)c->last * SORT_BLOCK * kb, g->k, count * kb, d);
    if (pool->vals)
        meshmem_put(pool->vals + (size_t)c->last * SORT_BLOCK, g->v, count * sizeof(uint32_t),
                    d);
}

void sort_cursor_grow(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *c, int d, size_t placed)
{
    model_placed(j, placed); /* the fetch-add below is traced: it ends the interval */
    const sort_stage_t *g = cursor_stage(j, c);
    if (c->first != SORT_NONE && d != j->me) { /* the full block went to d */
        if (g)
            cursor_ship(j, pool, c, d, SORT_BLOCK);
        else /* by direct stores */
            meshmem_model_transfer(d, SORT_BLOCK * sort_record_bytes(j) + sizeof(uint32_t), 0);
    }
    uint64_t one = 1, id64 = 0;
    meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_UINT64, pool->used, &one, NULL, &id64, d);
    if (id64 >= pool->nblocks) {
        fprintf(stderr, "sort: rank %d's region pool is exhausted (%zu blocks)\n", d,
                pool->nblocks);
        meshmem_global_exit(1);
    }
    uint32_t id = (uint32_t)id64;
    if (c->first == SORT_NONE) {
        c->first = id;
    } else if (g) { /* link the full block to the new one, in d's memory */
        meshmem_put(pool->next + c->last, &id, sizeof(id), d);
    } else {
        uint32_t *next = meshmem_ptr(pool->next, d);
        next[c->last] = id;
    }
    c->last = id;
    if (g) {
        c->k = g->k;
        c->v = g->v;
    } else {
        c->k = (char *)meshmem_ptr(pool->keys, d) + (size_t)id * SORT_BLOCK * (size_t)j->keybytes;
        c->v = pool->vals ? (uint32_t *)meshmem_ptr(pool->vals, d) + (size_t)id * SORT_BLOCK
                          : NULL;
    }
    c->left = SORT_BLOCK;
}

/*
 * Streams (cursors, times two with values) up to which a pass stores every record straight at
 * its destination; beyond, it stages a line per cursor. Measured on the 2-vCPU EPYC guest, key +
 * value records: 2 ranks x 128 regions, keys only (256 streams), direct 18 % faster; 512 streams
 * (the same with values, or keys only on 4 ranks), staged 7-60 % faster; 1024 streams (4 ranks
 * with values), staged 3 x faster.
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
#define SFX _32
#include "sort_stream_tmpl.h"
#undef KEY_T
#undef SFX
#define KEY_T uint64_t
#define SFX _64
#include "sort_stream_tmpl.h"
#undef KEY_T
#undef SFX

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
    /* destinations on another host: a staging block per cursor */
    st->stage = calloc((size_t)n * st->regions, sizeof(sort_stage_t));
    if (st->stage == NULL)
        meshmem_global_exit(1);
    for (int d = 0; d < n; d++) {
        if (meshmem_ptr(st->eod, d) != NULL)
            continue;
        for (uint32_t r = 0; r < st->regions; r++) {
            sort_stage_t *g = &st->stage[(size_t)d * st->regions + r];
            g->k = sort_xmalloc(SORT_BLOCK * (size_t)j->keybytes);
            g->v = j->has_vals ? sort_xmalloc(SORT_BLOCK * sizeof(uint32_t)) : NULL;
        }
    }
    pool_init(&st->pool[0], j, st->regions);
    if (j->variant == SORT_RADIX)
        pool_init(&st->pool[1], j, st->regions);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

void sort_stream_free(sort_job_t *j)
{
    struct sort_stream *st = j->w->stream;
    pool_free(&st->pool[1]);
    pool_free(&st->pool[0]);
    meshmem_free(st->eod);
    for (size_t i = 0; i < (size_t)j->nranks * st->regions; i++) {
        free(st->stage[i].k);
        free(st->stage[i].v);
    }
    free(st->stage);
    free(st->cur);
    free(st->seq_in.seg);
    free(st);
    j->w->stream = NULL;
}

/*
 * Open a pass that writes into @p pool: this rank's pool is emptied (its previous contents were
 * the input of the pass that just ended everywhere before it), then a barrier, so that no source
 * takes a block before its owner has emptied the pool.
 */
static void pass_open(sort_job_t *j, sort_pool_t *pool)
{
    struct sort_stream *st = j->w->stream;
    size_t nd = (size_t)st->regions * (size_t)j->nranks;
    *pool->used = 0;
    for (size_t i = 0; i < nd; i++)
        pool->desc[i] = (sort_desc_t){SORT_NONE, SORT_NONE, 0};
    for (size_t i = 0; i < nd; i++)
        st->cur[i] = (sort_cursor_t){NULL, NULL, 0, SORT_NONE, SORT_NONE};
    st->epoch++;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

/* end of data: each destination gets this source's region descriptors, then its mark */
static void pass_close(sort_job_t *j, sort_pool_t *pool, int to_self)
{
    struct sort_stream *st = j->w->stream;
    int n = j->nranks, me = j->me;
    for (int d = 0; d < n; d++) {
        if (to_self && d != me)
            continue;
        sort_desc_t *desc = meshmem_ptr(pool->desc, d);
        const sort_cursor_t *c = st->cur + (size_t)d * st->regions;
        if (d != me && desc != NULL) { /* the partial blocks and descriptors, by stores */
            uint64_t bytes = 0;
            for (uint32_t r = 0; r < st->regions; r++)
                if (c[r].first != SORT_NONE)
                    bytes += (SORT_BLOCK - c[r].left) * sort_record_bytes(j) + sizeof(*desc);
            if (bytes)
                meshmem_model_transfer(d, bytes, 0);
        }
        for (uint32_t r = 0; r < st->regions; r++) {
            if (c[r].first == SORT_NONE)
                continue;
            sort_desc_t v = {c[r].first, c[r].last, SORT_BLOCK - c[r].left};
            size_t at = (size_t)r * (size_t)n + (size_t)me;
            if (desc) {
                desc[at] = v;
            } else { /* another host: the partly filled block, then the descriptor, by put */
                cursor_ship(j, pool, &c[r], d, v.last_count);
                meshmem_put(pool->desc + at, &v, sizeof(v), d);
            }
        }
    }
    meshmem_fence(); /* the blocks and descriptors put to other hosts before the marks */
    if (to_self) /* A=2: the marks were sent with the data */
        return;
    uint64_t mark = st->epoch;
    for (int d = 0; d < n; d++)
        meshmem_put_signal(&st->eod[(size_t)me * SORT_LINE], &mark, 0,
                           &st->eod[(size_t)me * SORT_LINE], mark, MESHMEM_SIGNAL_SET, d);
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

/* this rank's regions in order: region-major, then source (stable) */
static void pool_output(const sort_job_t *j, const sort_pool_t *p, sort_seq_t *q)
{
    const struct sort_stream *st = j->w->stream;
    size_t kb = (size_t)j->keybytes, nd = (size_t)st->regions * (size_t)j->nranks;
    q->nseg = 0;
    for (size_t i = 0; i < nd; i++) {
        sort_desc_t d = p->desc[i];
        for (uint32_t id = d.first; id != SORT_NONE; id = id == d.last ? SORT_NONE : p->next[id])
            sort_seq_push(q, p->keys + (size_t)id * SORT_BLOCK * kb,
                          p->vals ? p->vals + (size_t)id * SORT_BLOCK : NULL,
                          id == d.last ? d.last_count : SORT_BLOCK);
    }
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
    pass_open(j, pool);
    stream_to_receive_areas(j);
    meshmem_model_phase("place");
    /* pass 2: as each source's mark arrives, place its records by the key's lower part */
    sort_seq_t *q = &st->seq_in;
    uint64_t first = st->epoch << 40; /* marks of earlier passes are below it */
    for (int s = 0; s < n; s++) {
        meshmem_wait_until(&st->eod[(size_t)s * SORT_LINE], MESHMEM_UINT64, MESHMEM_CMP_GE,
                           &first);
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
        pass_open(j, out);
        place_pass(j, &st->seq_in, p * j->digit_bits, out, 0);
        pass_close(j, out, 0);
        wait_marks(j);
        pool_output(j, out, p + 1 < j->ndigit_passes ? &st->seq_in : &j->out);
    }
}
