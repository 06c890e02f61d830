/*
 * Key-width template of the streaming stages (included by sort_stream.c with KEY_T and SFX):
 * the one loop that reads records and writes each into its key region at its destination.
 */
#define SS_CAT2(a, b) a##b
#define SS_CAT(a, b) SS_CAT2(a, b)
#define SS_FN(name) SS_CAT(name, SFX)

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
    sort_cursor_t *cur = st->cur;
    sort_cursor_t *self = cur + (size_t)j->me * regions;
    for (size_t g = 0; g < in->nseg; g++) {
        const KEY_T *keys = in->seg[g].keys;
        const uint32_t *vals = in->seg[g].vals;
        size_t cnt = in->seg[g].n;
        for (size_t i = 0; i < cnt; i++) {
            KEY_T k = keys[i];
            uint64_t dg = (k >> shift) & mask;
            int d = to_self ? j->me : (int)dest[dg];
            sort_cursor_t *c = (to_self ? self : cur + (size_t)d * regions) + local[dg];
            if (c->left == 0)
                sort_cursor_grow(j, pool, c, d);
            *(KEY_T *)c->k = k;
            c->k += sizeof(KEY_T);
            if (vals)
                *c->v++ = vals[i];
            c->left--;
        }
    }
}

#undef SS_FN
#undef SS_CAT
#undef SS_CAT2
