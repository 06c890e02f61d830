/* Input generation, the digit map and the verifier of the distributed sorts (sort_data.h). */
#include "sort_data.h"

#include "../common/app_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dist_names[SORT_DIST_COUNT] = {"uniform", "skew",    "equal",
                                                        "sorted",  "reverse", "top"};

int sort_dist_parse(const char *name)
{
    for (int d = 0; d < SORT_DIST_COUNT; d++)
        if (!strcmp(name, dist_names[d]))
            return d;
    return -1;
}

const char *sort_dist_name(sort_dist_t d)
{
    return (unsigned)d < SORT_DIST_COUNT ? dist_names[d] : "?";
}

uint64_t sort_share_lo(uint64_t total, int nranks, int r)
{
    /* 128-bit product: total * r may not fit 64 bits for huge totals */
    return (uint64_t)((unsigned __int128)total * (unsigned)r / (unsigned)nranks);
}

/* a key in [0, space) (space == 0: the full 64 bits) from a uniform 64-bit draw */
static uint64_t scale(uint64_t r, uint64_t space)
{
    return space ? (uint64_t)(((unsigned __int128)r * space) >> 64) : r;
}

uint64_t sort_gen_key(const sort_input_t *in, uint64_t gidx)
{
    /* key space: K types, or 2^keybits (0 stands for 2^64) */
    uint64_t space = in->keybits == 0 ? in->K : in->keybits == 64 ? 0 : UINT64_C(1) << in->keybits;
    uint64_t top = space ? space - 1 : UINT64_MAX;
    uint64_t r = app_rand_at(in->seed, gidx);
    uint64_t t = in->total ? in->total : 1;
    switch (in->dist) {
    case SORT_DIST_SKEW: {
        double u = app_unit(r);
        double f = u * u * u;
        uint64_t k = space ? (uint64_t)(f * (double)space) : (uint64_t)(f * 18446744073709549568.0);
        return k > top ? top : k;
    }
    case SORT_DIST_EQUAL: return space ? space / 2 : UINT64_C(1) << 63;
    case SORT_DIST_SORTED:
        return space ? (uint64_t)((unsigned __int128)gidx * space / t)
                     : (uint64_t)(((unsigned __int128)gidx << 64) / t);
    case SORT_DIST_REVERSE: {
        uint64_t k = space ? (uint64_t)((unsigned __int128)gidx * space / t)
                           : (uint64_t)(((unsigned __int128)gidx << 64) / t);
        return top - k;
    }
    case SORT_DIST_TOP: {
        /* the key range of the last rank (counting sort), or the top 1/nranks of the space */
        uint64_t n = (uint64_t)(in->nranks > 0 ? in->nranks : 1);
        uint64_t lo = space ? (uint64_t)((unsigned __int128)space * (n - 1) / n)
                            : (uint64_t)(((unsigned __int128)1 << 64) * (n - 1) / n);
        return lo + scale(r, (space ? space : 0) - lo);
    }
    case SORT_DIST_UNIFORM:
    default: return scale(r, space);
    }
}

void sort_gen32(const sort_input_t *in, uint64_t lo, uint64_t hi, uint32_t *keys, uint32_t *vals)
{
    for (uint64_t g = lo; g < hi; g++) {
        keys[g - lo] = (uint32_t)sort_gen_key(in, g);
        if (vals)
            vals[g - lo] = (uint32_t)g;
    }
}

void sort_gen64(const sort_input_t *in, uint64_t lo, uint64_t hi, uint64_t *keys, uint32_t *vals)
{
    for (uint64_t g = lo; g < hi; g++) {
        keys[g - lo] = sort_gen_key(in, g);
        if (vals)
            vals[g - lo] = (uint32_t)g;
    }
}

void sort_map_init(sort_map_t *m, uint64_t ndigits, int nranks)
{
    memset(m, 0, sizeof(*m));
    m->nranks = nranks;
    m->ndigits = ndigits;
    uint64_t mask = 0;
    while (mask + 1 < ndigits)
        mask = mask * 2 + 1;
    m->mask = mask;
    m->dest = calloc(mask + 1, sizeof(uint32_t));
    m->local = calloc(mask + 1, sizeof(uint32_t));
    m->lo = calloc((size_t)nranks + 1, sizeof(uint64_t));
    if (!m->dest || !m->local || !m->lo) {
        fprintf(stderr, "sort: out of memory for a map of %" PRIu64 " digits\n", ndigits);
        exit(1);
    }
    for (int r = 0; r <= nranks; r++)
        m->lo[r] = sort_share_lo(ndigits, nranks, r);
    for (int r = 0; r < nranks; r++) {
        if (m->lo[r + 1] - m->lo[r] > m->max_local)
            m->max_local = (uint32_t)(m->lo[r + 1] - m->lo[r]);
        for (uint64_t d = m->lo[r]; d < m->lo[r + 1]; d++) {
            m->dest[d] = (uint32_t)r;
            m->local[d] = (uint32_t)(d - m->lo[r]);
        }
    }
    /* digit values past ndigits never occur; map them to the last rank for safety */
    for (uint64_t d = ndigits; d <= mask; d++) {
        m->dest[d] = (uint32_t)(nranks - 1);
        m->local[d] = 0;
    }
}

void sort_map_free(sort_map_t *m)
{
    free(m->dest);
    free(m->local);
    free(m->lo);
    memset(m, 0, sizeof(*m));
}

void sort_seq_push(sort_seq_t *q, const void *keys, const uint32_t *vals, size_t n)
{
    if (n == 0)
        return;
    if (q->nseg == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        sort_seg_t *s = realloc(q->seg, cap * sizeof(*s));
        if (s == NULL) {
            fprintf(stderr, "sort: out of memory for %zu segments\n", cap);
            exit(1);
        }
        q->seg = s;
        q->cap = cap;
    }
    q->seg[q->nseg++] = (sort_seg_t){keys, vals, n};
}

static inline uint64_t key_at(const sort_seg_t *s, size_t i, int keybytes)
{
    return keybytes == 8 ? ((const uint64_t *)s->keys)[i] : ((const uint32_t *)s->keys)[i];
}

void sort_check_local(sort_check_t *c, const sort_seq_t *q, int keybytes, uint64_t lo, uint64_t hi)
{
    memset(&c->out, 0, sizeof(c->out));
    c->first = c->last = 0;
    c->bad_order = c->bad_stable = c->bad_range = 0;
    int have_prev = 0;
    uint64_t pk = 0;
    uint32_t pv = 0;
    for (size_t s = 0; s < q->nseg; s++) {
        const sort_seg_t *g = &q->seg[s];
        for (size_t i = 0; i < g->n; i++) {
            uint64_t k = key_at(g, i, keybytes);
            uint32_t v = g->vals ? g->vals[i] : 0;
            sort_sum_add(&c->out, k, v, g->vals != NULL);
            if (lo < hi && (k < lo || k >= hi))
                c->bad_range++;
            if (!have_prev) {
                c->first = k;
                have_prev = 1;
            } else if (k < pk) {
                c->bad_order++;
            } else if (k == pk && g->vals && v <= pv) {
                c->bad_stable++;
            }
            pk = k;
            pv = v;
        }
    }
    c->last = pk;
}

int sort_check_global(const sort_check_t *all, int nranks, uint64_t total, int need_stable,
                      char *why, size_t whylen)
{
    sort_sum_t in = {0, 0, 0}, out = {0, 0, 0};
    int prev = -1;
    for (int r = 0; r < nranks; r++) {
        const sort_check_t *c = &all[r];
        in.count += c->in.count;
        in.sum += c->in.sum;
        in.xsum += c->in.xsum;
        out.count += c->out.count;
        out.sum += c->out.sum;
        out.xsum += c->out.xsum;
        if (c->bad_order) {
            snprintf(why, whylen, "rank %d: %" PRIu64 " adjacent keys out of order", r,
                     c->bad_order);
            return 0;
        }
        if (c->bad_range) {
            snprintf(why, whylen, "rank %d: %" PRIu64 " keys outside its key types", r,
                     c->bad_range);
            return 0;
        }
        if (need_stable && c->bad_stable) {
            snprintf(why, whylen, "rank %d: %" PRIu64 " equal keys out of input order (unstable)",
                     r, c->bad_stable);
            return 0;
        }
        if (c->out.count) {
            if (prev >= 0 && all[prev].last > c->first) {
                snprintf(why, whylen,
                         "rank %d ends with key %" PRIu64 " above rank %d's first %" PRIu64, prev,
                         all[prev].last, r, c->first);
                return 0;
            }
            prev = r;
        }
    }
    if (in.count != total || out.count != total) {
        snprintf(why, whylen, "%" PRIu64 " records in, %" PRIu64 " out, %" PRIu64 " expected",
                 in.count, out.count, total);
        return 0;
    }
    if (in.sum != out.sum || in.xsum != out.xsum) {
        snprintf(why, whylen, "the output is not a permutation of the input (checksums differ)");
        return 0;
    }
    snprintf(why, whylen, "ok");
    return 1;
}

void sort_corrupt(sort_seq_t *q, int keybytes)
{
    /* the last record's key becomes one more than the first's: breaks the checksum, and the
     * order too unless every key is equal */
    for (size_t s = 0; s < q->nseg; s++) {
        sort_seg_t *g = &q->seg[s];
        if (g->n == 0)
            continue;
        if (keybytes == 8)
            ((uint64_t *)g->keys)[0] += 1;
        else
            ((uint32_t *)g->keys)[0] += 1;
        return;
    }
}
