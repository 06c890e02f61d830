/*
 * Key-width template of the streaming stages (included by sort_stream.c with KEY_T and SFX):
 * the one loop that reads records and writes each into its key region at its destination.
 */
#define SS_CAT2(a, b) a##b
#define SS_CAT(a, b) SS_CAT2(a, b)
#define SS_FN(name) SS_CAT(name, SFX)

/*
 * The loop over one segment: one read and one write per record. @p slot maps a digit to its
 * cursor (destination x regions + region, folded into one table per pass: one load per record
 * instead of two and a multiply); the destination is recomputed only when a block fills. Inlined
 * with @p has_vals constant, so the keys-only loop carries no test for values.
 */
static inline __attribute__((always_inline)) void
SS_FN(place_seg)(sort_job_t *j, sort_pool_t *pool, sort_cursor_t *base, int self,
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
 * Write every record of @p in into region local[digit] of pool @p pool at rank dest[digit]
 * (or at this rank when @p to_self: A=2's placement of what it received). One read and one
 * write per record: the whole classification, transfer and placement.
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
    int self = to_self ? j->me : -1;
    size_t done = 0; /* records of the earlier segments (the annotations' position) */
    for (size_t g = 0; g < in->nseg; g++) {
        const KEY_T *keys = in->seg[g].keys;
        const uint32_t *vals = in->seg[g].vals;
        if (vals)
            SS_FN(place_seg)(j, pool, base, self, regions, slot, keys, vals, in->seg[g].n, shift,
                             mask, 1, done);
        else
            SS_FN(place_seg)(j, pool, base, self, regions, slot, keys, NULL, in->seg[g].n, shift,
                             mask, 0, done);
        done += in->seg[g].n;
    }
    free(slot);
}

#undef SS_FN
#undef SS_CAT
#undef SS_CAT2
