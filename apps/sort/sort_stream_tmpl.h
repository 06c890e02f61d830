/*
 * Key-width template of the streaming stages (included by sort_stream.c with KEY_T and SFX):
 * the loops that read records and write each into its key region at its destination.
 */
/* not formatted: clang-format takes a function named SS_FN(name) for a call */
/* clang-format off */
#define SS_CAT2(a, b) a##b
#define SS_CAT(a, b) SS_CAT2(a, b)
#define SS_FN(name) SS_CAT(name, SFX)

/* records per write-combining buffer: one cache line of keys */
#define SS_WC ((uint32_t)(64 / sizeof(KEY_T)))

/* the staged records of one cursor (write-combining, below) */
typedef struct {
    KEY_T *k;      /* ncur * SS_WC keys */
    uint32_t *v;   /* ncur * SS_WC values (NULL: keys only) */
    uint8_t *fill; /* staged records per cursor */
} SS_FN(wc_t);

/* write @p n staged records of cursor @p s into its region, taking blocks as they fill */
static __attribute__((noinline)) void
SS_FN(wc_flush_slow)(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *base, int self,
                     uint32_t regions, const SS_FN(wc_t) *wc, uint32_t s, uint32_t n, size_t done)
{
    sort_cursor_t *c = base + s;
    const KEY_T *k = wc->k + (size_t)s * SS_WC;
    const uint32_t *v = wc->v ? wc->v + (size_t)s * SS_WC : NULL;
    while (n > 0) {
        if (c->left == 0)
            sort_cursor_grow(j, pool, c, self >= 0 ? self : (int)(s / regions), done);
        uint32_t m = n < c->left ? n : c->left;
        memcpy(c->k, k, m * sizeof(KEY_T));
        c->k += m * sizeof(KEY_T);
        k += m;
        if (v) {
            memcpy(c->v, v, m * sizeof(uint32_t));
            c->v += m;
            v += m;
        }
        c->left -= m;
        n -= m;
    }
}

/* write @p n staged records of cursor @p s; a full line into a block with room for it (the
 * common case) is two line stores */
static inline __attribute__((always_inline)) void
SS_FN(wc_flush)(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *base, int self, uint32_t regions,
                const SS_FN(wc_t) *wc, uint32_t s, uint32_t n, size_t done)
{
    sort_cursor_t *c = base + s;
    if (n != SS_WC || c->left < SS_WC) {
        SS_FN(wc_flush_slow)(j, pool, base, self, regions, wc, s, n, done);
        return;
    }
    sort_line_store(c->k, wc->k + (size_t)s * SS_WC, SS_WC * sizeof(KEY_T));
    c->k += SS_WC * sizeof(KEY_T);
    if (wc->v) {
        sort_line_store(c->v, wc->v + (size_t)s * SS_WC, SS_WC * sizeof(uint32_t));
        c->v += SS_WC;
    }
    c->left -= SS_WC;
}

/*
 * The loop over one segment, records stored straight into their cursors: for a pass with few
 * enough streams (SORT_DIRECT_STREAMS) that the TLB holds the pages they write.
 */
static inline __attribute__((always_inline)) void
SS_FN(place_seg_direct)(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *base, int self,
                        uint32_t regions, const uint32_t *slot, const KEY_T *keys,
                        const uint32_t *vals, size_t cnt, int shift, uint64_t mask, int has_vals,
                        size_t done)
{
    for (size_t i = 0; i < cnt; i++) {
        KEY_T k = keys[i];
        sort_cursor_t *c = base + slot[(k >> shift) & mask];
        if (c->left == 0)
            sort_cursor_grow(j, pool, c, self >= 0 ? self : (int)((size_t)(c - base) / regions),
                             done + i);
        *(KEY_T *)c->k = k;
        c->k += sizeof(KEY_T);
        if (has_vals)
            *c->v++ = vals[i];
        c->left--;
    }
}

/*
 * The loop over one segment: one read per record, and a write into a small staging line of the
 * record's cursor, which goes to the destination a full cache line at a time. Why: a pass has
 * up to ranks x regions cursors (512 on 4 ranks), each writing its own pages at its
 * destination; stored record by record they miss the TLB on every record (more so with two
 * ranks sharing a core), where the staging lines are a few local pages (software
 * write-combining, as CPU radix partitioners do; the FPGA's burst writes), stored with
 * streaming stores (docs/results-apps.md has the before and after). @p slot maps a
 * digit to its cursor (destination x regions + region, one table per pass). Inlined with
 * @p has_vals constant, so the keys-only loop carries no test for values.
 */
static inline __attribute__((always_inline)) void
SS_FN(place_seg_staged)(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *base, int self,
                 uint32_t regions, const uint32_t *slot, const SS_FN(wc_t) *wc,
                 const KEY_T *keys, const uint32_t *vals, size_t cnt, int shift, uint64_t mask,
                 int has_vals, size_t done)
{
    for (size_t i = 0; i < cnt; i++) {
        KEY_T k = keys[i];
        uint32_t s = slot[(k >> shift) & mask];
        uint32_t f = wc->fill[s];
        wc->k[(size_t)s * SS_WC + f] = k;
        if (has_vals)
            wc->v[(size_t)s * SS_WC + f] = vals[i];
        if (++f == SS_WC) {
            SS_FN(wc_flush)(j, pool, base, self, regions, wc, s, SS_WC, done + i);
            f = 0;
        }
        wc->fill[s] = (uint8_t)f;
    }
}

/*
 * Write every record of @p in into region local[digit] of pool @p pool at rank dest[digit]
 * (or at this rank when @p to_self: A=2's placement of what it received). One read and one
 * write per record, the write through a line of staging when the records go to other ranks:
 * the whole classification, transfer and placement.
 */
void SS_FN(sort_place_pass)(sort_job_t *j, const sort_seq_t *in, int shift, sort_pool_t *pool,
                            int to_self)
{
    struct sort_stream *st = j->w->stream;
    uint64_t mask = j->map.mask;
    const uint32_t *dest = j->map.dest, *local = j->map.local;
    uint32_t regions = st->regions;
    sort_cursor_t *base = st->cur + (to_self ? (size_t)j->me * regions : 0);
    uint32_t *slot = sort_xmalloc((size_t)(mask + 1) * sizeof(uint32_t));
    for (uint64_t dg = 0; dg <= mask; dg++)
        slot[dg] = (to_self ? 0 : dest[dg] * regions) + local[dg];
    int has_vals = in->nseg > 0 && in->seg[0].vals != NULL;
    int self = to_self ? j->me : -1;
    uint32_t ncur = to_self ? regions : regions * (uint32_t)j->nranks;
    if (ncur * (has_vals ? 2u : 1u) <= SORT_DIRECT_STREAMS) {
        size_t done = 0; /* records of the earlier segments (the annotations' position) */
        for (size_t g = 0; g < in->nseg; g++) {
            const sort_seg_t *sg = &in->seg[g];
            if (has_vals)
                SS_FN(place_seg_direct)(j, pool, base, self, regions, slot, sg->keys, sg->vals,
                                        sg->n, shift, mask, 1, done);
            else
                SS_FN(place_seg_direct)(j, pool, base, self, regions, slot, sg->keys, NULL,
                                        sg->n, shift, mask, 0, done);
            done += sg->n;
        }
        free(slot);
        return;
    }
    SS_FN(wc_t) wc = {sort_xmalloc((size_t)ncur * SS_WC * sizeof(KEY_T)),
                      has_vals ? sort_xmalloc((size_t)ncur * SS_WC * sizeof(uint32_t)) : NULL,
                      sort_xmalloc(ncur)};
    memset(wc.fill, 0, ncur);
    size_t done = 0;
    for (size_t g = 0; g < in->nseg; g++) {
        const sort_seg_t *sg = &in->seg[g];
        if (has_vals)
            SS_FN(place_seg_staged)(j, pool, base, self, regions, slot, &wc, sg->keys, sg->vals,
                                    sg->n, shift, mask, 1, done);
        else
            SS_FN(place_seg_staged)(j, pool, base, self, regions, slot, &wc, sg->keys, NULL,
                                    sg->n, shift, mask, 0, done);
        done += sg->n;
    }
    for (uint32_t s = 0; s < ncur; s++) /* what is left staged */
        if (wc.fill[s])
            SS_FN(wc_flush)(j, pool, base, self, regions, &wc, s, wc.fill[s], done);
    sort_stream_fence(); /* the streaming stores, before any mark or barrier that follows */
    free(wc.fill);
    free(wc.v);
    free(wc.k);
    free(slot);
}

#undef SS_WC
#undef SS_FN
#undef SS_CAT
#undef SS_CAT2
/* clang-format on */
