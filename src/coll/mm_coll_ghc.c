/*
 * Collectives on a 2-D generalized hypercube (GHC, r = 2; OPTWEB §2.D, §4.B.2).
 *
 * A GHC team of n = kx * ky members labels member r as (x, y) = (r % kx, r / kx); it is linked
 * only to its row (the kx members with its y) and its column (the ky members with its x). Each
 * collective runs in phases, a phase being the one-step algorithm of the full mesh on a row or
 * on a column (mm_topo.c builds those teams once and caches them); a phase over a dimension of
 * size 2 is a plain exchange (sendrecv), one of size 1 a local copy. Who sends what:
 *
 * all-to-all (uniform blocks of L bytes; OPTWEB's GHC all-to-all)
 *   phase 1, along x: (x, y) sends to (x', y) the ky blocks bound for column x', i.e. for
 *     (x', 0), (x', 1), ... (x', ky-1). Small: packed into one eager message. Large: no packing,
 *     the message is a descriptor of the span of the sender's buffer that holds them (block
 *     (x', y') is at y' * stride, the receiver learns the stride from the span's length), so
 *     the receiver copies each block straight out of the sender's memory. The receiver stores
 *     block (from x'', for (x, y')) at row y' of an intermediate buffer in its segment
 *     (the column team's staging memory), so that row y' is contiguous.
 *   phase 2, along y: (x, y) sends row y' of the intermediate (kx blocks, from (0..kx-1, y), for
 *     (x, y')) to (x, y'), which copies them to their places in its receive buffer.
 *   Every block crosses one row link and one column link: 2 copies, as the model assumes.
 * all-to-all-v: as all-to-all, each message carrying the sizes of its blocks in front of them
 *   (so receivers learn counts they do not know: the end-of-data form), packed in staging.
 * all-gather(v): along x every member sends its block to its row; along y every member sends
 *   its row's kx blocks (one message) to its column.
 * broadcast from (xr, yr): the root's row first (bcast along x from xr, row yr only), then every
 *   column (bcast along y from yr).
 * scatter from (xr, yr): along y, column xr only: the root sends (xr, y') the kx blocks of row
 *   y'; along x: every (xr, y') sends (x', y') its block.
 * gather to (xr, yr): along x every row gathers at (xr, y); along y column xr gathers the row
 *   bundles at the root. Blocks of row y are adjacent in the result, so no repacking.
 * reduce-scatter (slice r of the result on member r): the all-to-all-v above, with block r =
 *   slice r of the sender's vector (the slices of mm_slice_lo, as the full mesh); member r then
 *   holds slice r of all n vectors, unreduced, in member order, and folds them itself.
 * all-reduce: above the eager size, reduce-scatter as above then all-gather(v) of the slices;
 *   small (or ONESTEP): all-gather of the whole vectors, then every member folds all n.
 * reduce to a root: reduce-scatter, then a gather of the (padded) slices to the root.
 * barrier: a barrier along x, then along y (after both, every member of every row has arrived).
 *
 * Why the results are the full mesh's, bit for bit: data movement phases only copy bytes; the
 * reductions never combine partial results along a dimension. Every element is reduced by one
 * member, from the n raw inputs, member 0 first and then 1, 2, ..., n-1 (acc = v0; acc = acc op
 * vr), which is exactly the order of the full mesh's one-step, aggressive and naive forms
 * (mm_coll_allreduce.c); the reduced bits are then copied, not recomputed, so every member of
 * a GHC team holds the same bits as it would on the full mesh, floats and half floats included.
 * (A per-dimension reduction, rows then columns, would combine (v0 op v1) op (v2 op v3), which
 * rounds differently; carrying the raw slices costs the same link traffic as a
 * reduce-scatter that forwards partial sums along y, as every slice crosses each dimension once.)
 */
#include "mm_coll.h"
#include "mm_config.h"

#include <stdlib.h>
#include <string.h>

/* a GHC team seen from one member */
typedef struct {
    struct meshmem_team *row, *col; /* along x (kx members), along y (ky members) */
    int kx, ky, x, y, n;
} mm_ghc_t;

static mm_ghc_t mm_ghc_of(struct meshmem_team *t)
{
    mm_ghc_t g = {.kx = t->ghc_kx, .ky = t->ghc_ky, .n = t->size};
    mm_topo_axes(t, &g.row, &g.col);
    g.x = t->my_rank % g.kx;
    g.y = t->my_rank / g.kx;
    return g;
}

static void *mm_ghc_alloc(const mm_coll_args_t *a, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        mm_fatal("%s: out of memory (%zu bytes)", a->call, bytes);
    return p;
}

/* @p n zeroed size_t (offset and size tables) */
static size_t *mm_ghc_sizes(const mm_coll_args_t *a, size_t n)
{
    size_t *p = calloc(n ? n : 1, sizeof(size_t));
    if (p == NULL)
        mm_fatal("%s: out of memory (%zu sizes)", a->call, n);
    return p;
}

/* a staging buffer of @p s in its owner's segment (readable by descriptor) */
static char *mm_ghc_stage(const mm_coll_args_t *a, struct meshmem_team *s, size_t bytes)
{
    char *p = mm_msg_stage(s, bytes ? bytes : 1);
    if (p == NULL)
        mm_fatal("%s: the GHC phases need %zu bytes of staging memory, more than "
                 "MESHMEM_STAGE_SIZE gives a team (%zu)",
                 a->call, bytes, mm_msg_stage_capacity());
    return p;
}

/* the same call on a row or column team, with the one-step algorithm */
static mm_coll_args_t mm_ghc_sub(const mm_coll_args_t *a, struct meshmem_team *s)
{
    mm_coll_args_t b = *a;
    b.t = s;
    b.algo = MESHMEM_ALGO_ONESTEP;
    return b;
}

/* ---- one step over a row or a column ---- */

/* what a member sends to one peer: @p bytes at @p buf, or described by @p desc when larger
 * than the eager size (then @p buf is the same memory, as this rank sees it) */
typedef struct {
    const char *buf;
    size_t bytes;
    mm_desc_t desc;
} mm_ghc_out_t;

/* sees every member's message of the step (its own included, by_desc set the same way as a
 * peer would see it) before any is released */
typedef void (*mm_ghc_in_fn)(void *ctx, const mm_msg_t *msgs);

/* one step over sub-team @p s: out[j] to member j, then @p in on all n messages */
static void mm_ghc_step(const mm_coll_args_t *a, struct meshmem_team *s, const mm_ghc_out_t *out,
                        mm_ghc_in_fn in, void *ctx)
{
    int n = s->size, me = s->my_rank;
    uint64_t seq = mm_coll_begin(s);
    uint8_t *sent = mm_ghc_alloc(a, (size_t)n);
    mm_msg_t *m = mm_ghc_alloc(a, sizeof(mm_msg_t) * (size_t)n);
    memset(sent, 0, (size_t)n);
    for (int k = 1; k < n; k++) {
        int j = (me + k) % n;
        sent[j] = mm_msg_send(s, seq, j, out[j].buf, out[j].bytes, &out[j].desc);
    }
    mm_coll_wake_all(s);
    m[me] = (mm_msg_t){out[me].buf, out[me].bytes, out[me].bytes > mm_g.eager_bytes, NULL, 0};
    for (int k = 1; k < n; k++) {
        int j = (me + n - k) % n;
        m[j] = mm_msg_peek(s, seq, j);
    }
    in(ctx, m);
    for (int k = 1; k < n; k++) {
        int j = (me + n - k) % n;
        mm_msg_release(s, seq, j, &m[j]);
    }
    mm_msg_send_complete(s, seq, sent);
    mm_coll_end(s, seq);
    free(m);
    free(sent);
}

/* ---- all-to-all, uniform blocks ---- */

typedef struct {
    const mm_coll_args_t *a;
    const mm_ghc_t *g;
    size_t L;   /* bytes per block in this round */
    char *mid;  /* intermediate: [y'][x''] blocks of L */
    char *rbuf; /* receive buffer: block j at j * S + at */
    size_t S, at;
} mm_ghc_a2a_t;

/* phase 1 in: from (x'', y), the blocks for (x, 0..ky-1), packed or at a stride */
static void mm_ghc_a2a_in1(void *vc, const mm_msg_t *m)
{
    mm_ghc_a2a_t *c = vc;
    int kx = c->g->kx, ky = c->g->ky;
    /* the senders' choice (mm_ghc_alltoall): packed when it fits the eager channel, else the
     * span of the sender's buffer, whichever way the span travelled */
    bool span = ky > 1 && (size_t)ky * c->L > mm_g.eager_bytes;
    for (int xs = 0; xs < kx; xs++) {
        size_t stride = c->L;
        bool ok = m[xs].bytes == (size_t)ky * c->L;
        if (span) { /* (ky - 1) strides and one block */
            stride = (m[xs].bytes - c->L) / (size_t)(ky - 1);
            ok = m[xs].bytes >= c->L && stride >= c->L &&
                 (m[xs].bytes - c->L) % (size_t)(ky - 1) == 0;
        }
        if (!ok)
            mm_fatal_collective(
                "%s: row peer %d sent %zu bytes for %d blocks of %zu (counts differ "
                "between ranks)",
                c->a->call, xs, m[xs].bytes, ky, c->L);
        for (int ys = 0; ys < ky; ys++)
            memcpy(c->mid + ((size_t)ys * (size_t)kx + (size_t)xs) * c->L,
                   (const char *)m[xs].data + (size_t)ys * stride, c->L);
    }
}

/* phase 2 in: from (x, y''), the blocks of (0..kx-1, y'') for me */
static void mm_ghc_a2a_in2(void *vc, const mm_msg_t *m)
{
    mm_ghc_a2a_t *c = vc;
    int kx = c->g->kx, ky = c->g->ky;
    for (int ys = 0; ys < ky; ys++) {
        if (m[ys].bytes != (size_t)kx * c->L)
            mm_fatal_collective(
                "%s: column peer %d sent %zu bytes, %zu expected (counts differ between "
                "ranks)",
                c->a->call, ys, m[ys].bytes, (size_t)kx * c->L);
        for (int xs = 0; xs < kx; xs++)
            memcpy(c->rbuf + (size_t)(ys * kx + xs) * c->S + c->at,
                   (const char *)m[ys].data + (size_t)xs * c->L, c->L);
    }
}

/*
 * All-to-all across hosts, pipelined, when rows are hosts (shared memory) and columns span
 * them (the network), and the column messages are pushed (larger than the eager size). The
 * two phases above would run one after the other: every row copy, then every network
 * transfer. Here the row phase runs once per column peer y': an all-to-all over the row of the
 * kx blocks bound for (0..kx-1, y') (adjacent in sbuf), whose result, what (x, y') takes from
 * this row, is pushed to (x, y') at once and travels while the row phase for the next column
 * peer runs. This member's own column (y' = y) goes last, straight into rbuf. The receives are
 * posted first, each straight into its final place (the kx blocks from column peer y'' are
 * adjacent in rbuf, at y'' * kx * len), so the data lands while this member copies; in place,
 * they are posted after the last row phase has read sbuf. Whether a call takes this path
 * depends only on what every member has equal (shape, sizes, configuration), never on its
 * buffers: the members must run the same collectives.
 */
/* rows are hosts, columns cross the network and carry pushed messages: the pipelined forms'
 * shape (equal on every member) */
static bool mm_ghc_pushed_columns(const mm_coll_args_t *a, const mm_ghc_t *g)
{
    return a->t->ghc_hosts == MM_HOSTS_ROWS && mm_config.net_push && g->ky > 1;
}

/* ... and the column messages are larger than the eager size, and the ky - 1 of them fit the
 * staging memory (which the row step's kx * len then fits too) */
static bool mm_ghc_a2a_pipelines(const mm_coll_args_t *a, const mm_ghc_t *g, size_t len)
{
    size_t rowb = (size_t)g->kx * len;
    return mm_ghc_pushed_columns(a, g) && rowb > mm_g.eager_bytes &&
           rowb <= mm_msg_stage_capacity() / (size_t)(g->ky - 1);
}

static void mm_ghc_a2a_pipelined(const mm_coll_args_t *a, const mm_ghc_t *g, const char *sbuf,
                                 char *rbuf, size_t len)
{
    int kx = g->kx, ky = g->ky;
    size_t rowb = (size_t)kx * len;
    bool in_place = sbuf == rbuf;
    struct meshmem_team *col = g->col;
    _Atomic uint64_t landing = 0;
    uint64_t seq = mm_coll_begin(col);
    for (int ys = 0; ys < ky && !in_place; ys++)
        if (ys != g->y)
            mm_msg_post_pushed(col, seq, ys, rbuf + (size_t)ys * rowb, rowb, &landing);
    char *mid = mm_ghc_stage(a, col, (size_t)(ky - 1) * rowb);
    size_t *v = mm_ghc_sizes(a, 4 * (size_t)kx);
    size_t *soff = v, *slen = v + kx, *roff = v + 2 * kx, *rcap = v + 3 * kx;
    uint8_t *sent = mm_ghc_alloc(a, (size_t)ky);
    memset(sent, 0, (size_t)ky);
    mm_coll_args_t sub = mm_ghc_sub(a, g->row);
    for (int k = 1; k <= ky; k++) {
        int yd = (g->y + k) % ky; /* k == ky: this member's own column, last */
        bool own = yd == g->y;
        char *dst = own ? rbuf + (size_t)yd * rowb : mid + (size_t)(k - 1) * rowb;
        for (int i = 0; i < kx; i++) {
            soff[i] = ((size_t)yd * (size_t)kx + (size_t)i) * len;
            roff[i] = (size_t)i * len;
            slen[i] = rcap[i] = len;
        }
        mm_coll_a2a_step(&sub, sbuf, soff, slen, dst, roff, rcap, NULL, own && in_place);
        if (!own) {
            mm_desc_t d;
            mm_desc_of(dst, rowb, &d);
            sent[yd] = mm_msg_send(col, seq, yd, dst, rowb, &d);
            mm_coll_wake_all(col);
        }
    }
    for (int ys = 0; ys < ky; ys++) {
        if (ys == g->y)
            continue;
        if (in_place)
            mm_msg_post_pushed(col, seq, ys, rbuf + (size_t)ys * rowb, rowb, &landing);
        mm_msg_take_posted(a->call, col, seq, ys, rowb);
    }
    mm_msg_posted_wait(&landing);
    mm_msg_send_complete(col, seq, sent);
    mm_coll_end(col, seq);
    free(sent);
    free(v);
}

void mm_ghc_alltoall(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len)
{
    mm_ghc_t g = mm_ghc_of(a->t);
    size_t n = (size_t)g.n;
    if (len == 0)
        return;
    if (mm_ghc_a2a_pipelines(a, &g, len)) {
        mm_ghc_a2a_pipelined(a, &g, sbuf, rbuf, len);
        return;
    }
    /* rounds over slices of every block when the staging of one round would not fit; the
     * same cut on every member (it depends on sizes only) */
    size_t budget = mm_msg_stage_capacity() / 2, chunk = len;
    if (len > budget / n) {
        chunk = budget / n / a->esize * a->esize;
        if (chunk == 0)
            mm_fatal("%s: no staging memory for the GHC phases (MESHMEM_STAGE_SIZE)", a->call);
    }
    int wide = g.kx > g.ky ? g.kx : g.ky;
    mm_ghc_out_t *out = mm_ghc_alloc(a, sizeof(mm_ghc_out_t) * (size_t)wide);
    char *pack = NULL;
    for (size_t at = 0; at < len; at += chunk) {
        size_t L = len - at < chunk ? len - at : chunk;
        /* phase 1: the ky blocks of column x' to (x', y) */
        if ((size_t)g.ky * L <= mm_g.eager_bytes) {
            if (pack == NULL)
                pack = mm_ghc_alloc(a, n * L);
            for (int xd = 0; xd < g.kx; xd++) {
                char *p = pack + (size_t)xd * (size_t)g.ky * L;
                for (int yd = 0; yd < g.ky; yd++)
                    memcpy(p + (size_t)yd * L, sbuf + (size_t)(xd + yd * g.kx) * len + at, L);
                out[xd] = (mm_ghc_out_t){p, (size_t)g.ky * L, {MM_DESC_NONE, 0}};
            }
        } else {
            const char *base = sbuf + at;
            size_t bs = len; /* bytes from block j to block j+1 */
            mm_desc_t d;
            if (!mm_desc_of(base, (n - 1) * len + L, &d)) {
                char *st = mm_ghc_stage(a, g.row, n * L);
                for (size_t j = 0; j < n; j++)
                    memcpy(st + j * L, sbuf + j * len + at, L);
                base = st;
                bs = L;
                mm_desc_of(st, n * L, &d);
            }
            for (int xd = 0; xd < g.kx; xd++)
                out[xd] = (mm_ghc_out_t){base + (size_t)xd * bs,
                                         (size_t)(g.ky - 1) * (size_t)g.kx * bs + L,
                                         mm_desc_add(d, (size_t)xd * bs)};
        }
        mm_ghc_a2a_t c = {a, &g, L, mm_ghc_stage(a, g.col, n * L), rbuf, len, at};
        mm_ghc_step(a, g.row, out, mm_ghc_a2a_in1, &c);
        /* phase 2: row y' of the intermediate to (x, y') */
        mm_desc_t dm;
        mm_desc_of(c.mid, n * L, &dm);
        size_t rowb = (size_t)g.kx * L;
        for (int yd = 0; yd < g.ky; yd++)
            out[yd] =
                (mm_ghc_out_t){c.mid + (size_t)yd * rowb, rowb, mm_desc_add(dm, (size_t)yd * rowb)};
        mm_ghc_step(a, g.col, out, mm_ghc_a2a_in2, &c);
    }
    free(pack);
    free(out);
}

/* ---- all-to-all-v: messages carry their block sizes ---- */

typedef struct {
    const mm_coll_args_t *a;
    const mm_ghc_t *g;
    char *mid;      /* intermediate: per column peer y', [kx sizes][blocks] */
    size_t *midoff; /* [ky + 1] segment offsets in mid */
    char *rbuf;
    const size_t *roff, *rcap;
    size_t *rlen;
} mm_ghc_a2av_t;

static uint64_t mm_ghc_word(const void *p, size_t i)
{
    uint64_t w;
    memcpy(&w, (const char *)p + i * sizeof(w), sizeof(w));
    return w;
}

/* check a message of @p nb sized blocks; @return the bytes of its blocks */
static size_t mm_ghc_sized(const mm_coll_args_t *a, const char *dim, int peer, const mm_msg_t *m,
                           int nb)
{
    size_t hdr = (size_t)nb * sizeof(uint64_t), sum = 0;
    bool ok = m->bytes >= hdr;
    for (int i = 0; ok && i < nb; i++) {
        uint64_t b = mm_ghc_word(m->data, (size_t)i);
        ok = b <= m->bytes - hdr - sum;
        sum += ok ? b : 0;
    }
    if (!ok || hdr + sum != m->bytes)
        mm_fatal("%s: %s peer %d sent a malformed message of %zu bytes (%d blocks)", a->call, dim,
                 peer, m->bytes, nb);
    return sum;
}

/* phase 1 in: from every (x'', y), [ky sizes][blocks for (x, 0..ky-1)]; regroup by y' */
static void mm_ghc_a2av_in1(void *vc, const mm_msg_t *m)
{
    mm_ghc_a2av_t *c = vc;
    int kx = c->g->kx, ky = c->g->ky;
    size_t hdr1 = (size_t)ky * sizeof(uint64_t), hdr2 = (size_t)kx * sizeof(uint64_t);
    for (int xs = 0; xs < kx; xs++)
        mm_ghc_sized(c->a, "row", xs, &m[xs], ky);
    /* segment y' = [kx sizes][the blocks of (0..kx-1, y) for (x, y')] */
    c->midoff[0] = 0;
    for (int yd = 0; yd < ky; yd++) {
        size_t seg = hdr2;
        for (int xs = 0; xs < kx; xs++)
            seg += mm_ghc_word(m[xs].data, (size_t)yd);
        c->midoff[yd + 1] = c->midoff[yd] + seg;
    }
    c->mid = mm_ghc_stage(c->a, c->g->col, c->midoff[ky]);
    size_t *from = mm_ghc_sizes(c->a, (size_t)kx); /* read position per x'' */
    for (int xs = 0; xs < kx; xs++)
        from[xs] = hdr1;
    for (int yd = 0; yd < ky; yd++) {
        char *seg = c->mid + c->midoff[yd], *p = seg + hdr2;
        for (int xs = 0; xs < kx; xs++) {
            uint64_t b = mm_ghc_word(m[xs].data, (size_t)yd);
            memcpy(seg + (size_t)xs * sizeof(uint64_t), &b, sizeof(b));
            memcpy(p, (const char *)m[xs].data + from[xs], b);
            from[xs] += b;
            p += b;
        }
    }
    free(from);
}

/* phase 2 in: from (x, y''), [kx sizes][the blocks of (0..kx-1, y'') for me] */
static void mm_ghc_a2av_in2(void *vc, const mm_msg_t *m)
{
    mm_ghc_a2av_t *c = vc;
    int kx = c->g->kx, ky = c->g->ky;
    for (int ys = 0; ys < ky; ys++) {
        mm_ghc_sized(c->a, "column", ys, &m[ys], kx);
        const char *p = (const char *)m[ys].data + (size_t)kx * sizeof(uint64_t);
        for (int xs = 0; xs < kx; xs++) {
            int src = ys * kx + xs;
            size_t b = mm_ghc_word(m[ys].data, (size_t)xs);
            if (b > c->rcap[src])
                mm_fatal_collective(
                    "%s: team rank %d sent %zu bytes where %zu were expected (counts "
                    "differ between ranks)",
                    c->a->call, src, b, c->rcap[src]);
            if (b)
                memcpy(c->rbuf + c->roff[src], p, b);
            if (c->rlen)
                c->rlen[src] = b;
            p += b;
        }
    }
}

void mm_ghc_alltoallv(const mm_coll_args_t *a, const char *sbuf, const size_t *soff,
                      const size_t *slen, char *rbuf, const size_t *roff, const size_t *rcap,
                      size_t *rlen)
{
    mm_ghc_t g = mm_ghc_of(a->t);
    int wide = g.kx > g.ky ? g.kx : g.ky;
    mm_ghc_out_t *out = mm_ghc_alloc(a, sizeof(mm_ghc_out_t) * (size_t)wide);
    size_t *off = mm_ghc_sizes(a, (size_t)wide + 1);
    /* phase 1: to (x', y), [ky sizes][its blocks for (x', 0..ky-1)], packed in staging */
    size_t hdr1 = (size_t)g.ky * sizeof(uint64_t);
    off[0] = 0;
    for (int xd = 0; xd < g.kx; xd++) {
        size_t sz = hdr1;
        for (int yd = 0; yd < g.ky; yd++)
            sz += slen[xd + yd * g.kx];
        off[xd + 1] = off[xd] + sz;
    }
    char *pk = mm_ghc_stage(a, g.row, off[g.kx]);
    mm_desc_t d;
    mm_desc_of(pk, off[g.kx], &d);
    for (int xd = 0; xd < g.kx; xd++) {
        char *p = pk + off[xd], *q = p + hdr1;
        for (int yd = 0; yd < g.ky; yd++) {
            int j = xd + yd * g.kx;
            uint64_t b = slen[j];
            memcpy(p + (size_t)yd * sizeof(b), &b, sizeof(b));
            if (b)
                memcpy(q, sbuf + soff[j], b);
            q += b;
        }
        out[xd] = (mm_ghc_out_t){p, off[xd + 1] - off[xd], mm_desc_add(d, off[xd])};
    }
    size_t *midoff = mm_ghc_sizes(a, (size_t)g.ky + 1);
    mm_ghc_a2av_t c = {a, &g, NULL, midoff, rbuf, roff, rcap, rlen};
    mm_ghc_step(a, g.row, out, mm_ghc_a2av_in1, &c);
    /* phase 2: segment y' of the intermediate to (x, y') */
    mm_desc_of(c.mid, midoff[g.ky], &d);
    for (int yd = 0; yd < g.ky; yd++)
        out[yd] = (mm_ghc_out_t){c.mid + midoff[yd], midoff[yd + 1] - midoff[yd],
                                 mm_desc_add(d, midoff[yd])};
    mm_ghc_step(a, g.col, out, mm_ghc_a2av_in2, &c);
    free(midoff);
    free(off);
    free(out);
}

/* ---- all-gather(v), broadcast, scatter, gather, barrier ---- */

/*
 * All-gather(v) across hosts, pipelined, when rows are hosts and columns span them: the
 * column step (the network) comes first and overlaps the row steps (shared memory). Every
 * member pushes its block to its column at once, each receive posted straight into the
 * block's final place; then the row shares its own blocks, and then, one column peer y'' at a
 * time as its block lands, the blocks of row y'' (each member of this row received the one of
 * its own column), while the blocks of the next column peers are still on the way. Only the
 * shape and the configuration, equal on every member, choose this path; a block up to the
 * eager size goes eagerly, a larger one pushed, as its size (known to all) says.
 */
static meshmem_status_t mm_ghc_allgatherv_pipelined(const mm_coll_args_t *a, const mm_ghc_t *g,
                                                    const char *blk, size_t mylen, char *rb,
                                                    const size_t *roff, const size_t *rcap)
{
    int kx = g->kx, ky = g->ky;
    struct meshmem_team *col = g->col;
    _Atomic uint64_t *landing = mm_ghc_alloc(a, sizeof(*landing) * (size_t)ky);
    uint8_t *sent = mm_ghc_alloc(a, (size_t)ky);
    size_t *v = mm_ghc_sizes(a, 2 * (size_t)kx), *w = v + kx;
    memset(sent, 0, (size_t)ky);
    uint64_t seq = mm_coll_begin(col);
    /* a block larger than the eager size is pushed (its size is known to all): its receive
     * is posted now */
    for (int ys = 0; ys < ky; ys++) {
        int r = ys * kx + g->x;
        atomic_init(&landing[ys], 0);
        if (ys != g->y && rcap[r] > mm_g.eager_bytes)
            mm_msg_post_pushed(col, seq, ys, rb + roff[r], rcap[r], &landing[ys]);
    }
    mm_desc_t d;
    mm_desc_of(blk, mylen, &d);
    for (int k = 1; k < ky; k++)
        sent[(g->y + k) % ky] = mm_msg_send(col, seq, (g->y + k) % ky, blk, mylen, &d);
    mm_coll_wake_all(col);
    meshmem_status_t st = MESHMEM_OK;
    mm_coll_args_t sub = mm_ghc_sub(a, g->row);
    for (int k = 0; k < ky; k++) {
        int ys = (g->y + k) % ky, r = ys * kx + g->x;   /* row ys; this member holds block r */
        if (ys != g->y && rcap[r] > mm_g.eager_bytes) { /* posted above */
            mm_msg_take_posted(a->call, col, seq, ys, rcap[r]);
            mm_msg_posted_wait(&landing[ys]);
        } else if (ys != g->y) {
            mm_msg_recv_exact(a->call, col, seq, ys, rb + roff[r], rcap[r]);
        }
        for (int xs = 0; xs < kx; xs++) {
            v[xs] = roff[ys * kx + xs];
            w[xs] = rcap[ys * kx + xs];
        }
        meshmem_status_t s =
            mm_coll_allgather_run(&sub, ys == g->y ? blk : rb + roff[r], rcap[r], rb, v, w);
        st = st == MESHMEM_OK ? s : st;
    }
    mm_msg_send_complete(col, seq, sent);
    mm_coll_end(col, seq);
    free(v);
    free(sent);
    free(landing);
    return st;
}

meshmem_status_t mm_ghc_allgatherv(const mm_coll_args_t *a, const void *sendbuf, size_t mylen,
                                   void *recvbuf, const size_t *roff, const size_t *rcap)
{
    mm_ghc_t g = mm_ghc_of(a->t);
    char *rb = recvbuf;
    int me = a->t->my_rank, wide = g.kx > g.ky ? g.kx : g.ky;
    /* my block where it already is in recvbuf is sent from there (read by descriptor while
     * this member writes the other blocks: disjoint bytes) */
    const char *blk = sendbuf == MESHMEM_IN_PLACE ? rb + roff[me] : sendbuf;
    if (mm_ghc_pushed_columns(a, &g))
        return mm_ghc_allgatherv_pipelined(a, &g, blk, mylen, rb, roff, rcap);
    size_t *v = mm_ghc_sizes(a, 2 * (size_t)wide);
    /* phase 1, along x: my block to my row */
    for (int xs = 0; xs < g.kx; xs++) {
        v[xs] = roff[g.y * g.kx + xs];
        v[g.kx + xs] = rcap[g.y * g.kx + xs];
    }
    mm_coll_args_t sub = mm_ghc_sub(a, g.row);
    meshmem_status_t st = mm_coll_allgather_run(&sub, blk, mylen, rb, v, v + g.kx);
    /* phase 2, along y: my row's blocks (one message) to my column */
    bool adjacent = true;
    for (int r = 0; r < g.n && adjacent; r++)
        adjacent = r % g.kx == g.kx - 1 || roff[r + 1] == roff[r] + rcap[r];
    sub = mm_ghc_sub(a, g.col);
    size_t *w = v + g.ky;
    for (int ys = 0; ys < g.ky; ys++) {
        w[ys] = 0;
        for (int xs = 0; xs < g.kx; xs++)
            w[ys] += rcap[ys * g.kx + xs];
    }
    if (st == MESHMEM_OK && adjacent) {
        for (int ys = 0; ys < g.ky; ys++)
            v[ys] = roff[ys * g.kx];
        st = mm_coll_allgather_run(&sub, rb + v[g.y], w[g.y], rb, v, w);
    } else if (st == MESHMEM_OK) {
        /* rows scattered over recvbuf: gather each row's blocks side by side first */
        size_t total = 0;
        for (int ys = 0; ys < g.ky; ys++) {
            v[ys] = total;
            total += w[ys];
        }
        char *tmp = mm_ghc_alloc(a, total);
        for (int ys = 0; ys < g.ky; ys++) {
            if (ys != g.y)
                continue;
            size_t p = v[ys];
            for (int xs = 0; xs < g.kx; xs++) {
                int r = ys * g.kx + xs;
                memcpy(tmp + p, rb + roff[r], rcap[r]);
                p += rcap[r];
            }
        }
        st = mm_coll_allgather_run(&sub, tmp + v[g.y], w[g.y], tmp, v, w);
        for (int ys = 0; ys < g.ky && st == MESHMEM_OK; ys++) {
            size_t p = v[ys];
            for (int xs = 0; xs < g.kx; xs++) {
                int r = ys * g.kx + xs;
                if (ys != g.y)
                    memcpy(rb + roff[r], tmp + p, rcap[r]);
                p += rcap[r];
            }
        }
        free(tmp);
    }
    free(v);
    return st;
}

/* above this many bytes the broadcast across hosts goes in pieces: below, its extra row step
 * costs more than the network bytes it saves (the crossover measured: docs/results-across.md,
 * "Broadcast in pieces") */
#define MM_GHC_BCAST_PIECES_FROM (128 * 1024)

/* member yr of column @p col sends the @p n bytes at @p p to every other member */
static void mm_ghc_push_down(struct meshmem_team *col, uint64_t seq, int yr, const char *p,
                             size_t n, uint8_t *sent)
{
    mm_desc_t d; /* a pushed message needs none; an eager one (a last round's) is copied */
    mm_desc_of(p, n, &d);
    for (int j = 1; j < col->size; j++)
        sent[(yr + j) % col->size] = mm_msg_send(col, seq, (yr + j) % col->size, p, n, &d);
    mm_coll_wake_all(col);
}

/*
 * Broadcast across hosts, large (rows are hosts, columns pushed): the buffer crosses the
 * network once per host, every rank of the host carrying a share of it (OPTWEB's multi-link
 * injection), instead of once per rank. The buffer is cut into kx pieces of whole cache lines;
 * piece x travels down column x. The root pushes its own piece first, then exposes the buffer
 * to its row (one row step); member x of that row copies piece x first, pushes it down its
 * column, and copies the rest while it travels. Every other row has posted the receive of its
 * piece straight into buf, and then shares the pieces along the row (an all-gather). In rounds
 * of at most one staging buffer, so that a private buffer fits staging (a round cut by every
 * member alike: sizes only).
 */
static meshmem_status_t mm_ghc_bcast_pieces(const mm_coll_args_t *a, const mm_ghc_t *g, char *buf,
                                            size_t len, int xr, int yr)
{
    int kx = g->kx, ky = g->ky;
    size_t *v = mm_ghc_sizes(a, 2 * (size_t)kx), *off = v, *pl = v + kx;
    size_t lines = (len + 63) / 64;
    for (int p = 0; p < kx; p++) {
        size_t lo = mm_slice_lo(lines, kx, p) * 64, hi = mm_slice_lo(lines, kx, p + 1) * 64;
        off[p] = lo < len ? lo : len;
        pl[p] = (hi < len ? hi : len) - off[p];
    }
    char *mine = buf + off[g->x];
    size_t ml = pl[g->x];
    struct meshmem_team *col = g->col, *row = g->row;
    mm_coll_args_t sub = mm_ghc_sub(a, row);
    uint64_t seq = mm_coll_begin(col);
    meshmem_status_t st = MESHMEM_OK;
    if (g->y != yr) {
        if (ml > mm_g.eager_bytes) { /* pushed: every column peer is on another host */
            _Atomic uint64_t landing = 0;
            mm_msg_post_pushed(col, seq, yr, mine, ml, &landing);
            mm_msg_take_posted(a->call, col, seq, yr, ml);
            mm_msg_posted_wait(&landing);
        } else {
            mm_msg_recv_exact(a->call, col, seq, yr, mine, ml);
        }
        st = mm_coll_allgather_run(&sub, mine, ml, buf, off, pl);
        mm_coll_end(col, seq);
        free(v);
        return st;
    }
    uint8_t *sent = mm_ghc_alloc(a, (size_t)ky);
    memset(sent, 0, (size_t)ky);
    if (g->x == xr) /* my piece down my column, then the buffer to my row */
        mm_ghc_push_down(col, seq, yr, mine, ml, sent);
    uint64_t rs = mm_coll_begin(row);
    if (g->x == xr) {
        mm_root_send(&sub, rs, buf, 0, len, NULL);
    } else { /* the root's buffer, on this host: my piece first */
        mm_msg_t m = mm_msg_peek(row, rs, xr);
        if (m.bytes != len)
            mm_msg_counts_differ(a->call, xr, m.bytes, len);
        const char *src = m.data;
        memcpy(mine, src + off[g->x], ml);
        mm_ghc_push_down(col, seq, yr, mine, ml, sent);
        memcpy(buf, src, off[g->x]);
        memcpy(mine + ml, src + off[g->x] + ml, len - off[g->x] - ml);
        mm_msg_release(row, rs, xr, &m);
    }
    mm_coll_end(row, rs);
    mm_msg_send_complete(col, seq, sent);
    mm_coll_end(col, seq);
    free(sent);
    free(v);
    return st;
}

meshmem_status_t mm_ghc_bcast(const mm_coll_args_t *a, void *buf, size_t len, int root)
{
    mm_ghc_t g = mm_ghc_of(a->t);
    int xr = root % g.kx, yr = root / g.kx;
    meshmem_status_t st = MESHMEM_OK;
    if (g.kx > 1 && mm_ghc_pushed_columns(a, &g) && len > MM_GHC_BCAST_PIECES_FROM &&
        len / (size_t)g.kx > mm_g.eager_bytes) {
        /* rounds that fit staging, of whole cache lines (no staging: one round) */
        size_t chunk = mm_msg_round_bytes(len, 64, 1), done = 0;
        do {
            size_t c = len - done < chunk ? len - done : chunk;
            st = mm_ghc_bcast_pieces(a, &g, (char *)buf + done, c, xr, yr);
            done += c;
        } while (done < len && st == MESHMEM_OK);
        return st;
    }
    if (g.y == yr) /* the root's row */
        st = meshmem_coll_bcast(g.row, buf, len, MESHMEM_BYTE, xr, MESHMEM_ALGO_ONESTEP);
    if (st == MESHMEM_OK) /* then every column, from its member in the root's row */
        st = meshmem_coll_bcast(g.col, buf, len, MESHMEM_BYTE, yr, MESHMEM_ALGO_ONESTEP);
    return st;
}

/* where the root column's member of row y keeps its row's kx blocks of @p len (scatter,
 * gather): at the root, their place in the root's own buffer @p rootbuf; at another member of
 * the root's column, a temporary (freed by the caller); elsewhere none */
static char *mm_ghc_bundle(const mm_coll_args_t *a, const mm_ghc_t *g, int root,
                           const void *rootbuf, size_t len)
{
    if (g->x != root % g->kx)
        return NULL;
    size_t rowb = (size_t)g->kx * len;
    if (a->t->my_rank == root)
        return rootbuf ? (char *)rootbuf + (size_t)(root / g->kx) * rowb : NULL;
    return mm_ghc_alloc(a, rowb);
}

meshmem_status_t mm_ghc_scatter(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                size_t len, int root)
{
    mm_ghc_t g = mm_ghc_of(a->t);
    int xr = root % g.kx, yr = root / g.kx;
    size_t rowb = (size_t)g.kx * len;
    bool is_root = a->t->my_rank == root;
    char *bundle = mm_ghc_bundle(a, &g, root, sendbuf, len);
    meshmem_status_t st = MESHMEM_OK;
    if (g.x == xr) { /* column xr: the root sends each row its kx blocks */
        st = meshmem_coll_scatter(g.col, sendbuf, bundle, rowb, MESHMEM_BYTE, yr,
                                  MESHMEM_ALGO_ONESTEP);
    }
    if (st == MESHMEM_OK) /* every row: (xr, y) sends each member its block */
        st = meshmem_coll_scatter(g.row, bundle, recvbuf, len, MESHMEM_BYTE, xr,
                                  MESHMEM_ALGO_ONESTEP);
    if (!is_root)
        free(bundle);
    return st;
}

meshmem_status_t mm_ghc_gather(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                               size_t len, int root)
{
    mm_ghc_t g = mm_ghc_of(a->t);
    int xr = root % g.kx, yr = root / g.kx;
    size_t rowb = (size_t)g.kx * len;
    bool is_root = a->t->my_rank == root;
    /* the row's blocks gather at (xr, y); at the root, straight into its place in recvbuf */
    char *bundle = mm_ghc_bundle(a, &g, root, recvbuf, len);
    meshmem_status_t st =
        meshmem_coll_gather(g.row, sendbuf, bundle, len, MESHMEM_BYTE, xr, MESHMEM_ALGO_ONESTEP);
    if (st == MESHMEM_OK && g.x == xr) /* column xr: the rows' bundles to the root */
        st = meshmem_coll_gather(g.col, bundle, is_root ? recvbuf : NULL, rowb, MESHMEM_BYTE, yr,
                                 MESHMEM_ALGO_ONESTEP);
    if (!is_root)
        free(bundle);
    return st;
}

void mm_ghc_barrier(struct meshmem_team *t)
{
    mm_ghc_t g = mm_ghc_of(t);
    mm_fullmesh_barrier(g.row);
    mm_fullmesh_barrier(g.col);
}

/* ---- reductions ---- */

/* slice me (mm_slice_lo) of the reduction of every member's @p count elements, into @p out */
static void mm_ghc_reduce_slices(const mm_coll_args_t *a, const void *sendbuf, void *out,
                                 size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    int n = a->t->size, me = a->t->my_rank;
    size_t es = a->esize, lo = mm_slice_lo(count, n, me);
    size_t cnt = mm_slice_lo(count, n, me + 1) - lo, sl = cnt * es;
    size_t *v = mm_ghc_sizes(a, 5 * (size_t)n);
    size_t *soff = v, *slen = v + n, *roff = v + 2 * n, *rcap = v + 3 * n, *rlen = v + 4 * n;
    for (int r = 0; r < n; r++) {
        soff[r] = mm_slice_lo(count, n, r) * es;
        slen[r] = mm_slice_lo(count, n, r + 1) * es - soff[r];
        roff[r] = (size_t)r * sl;
        rcap[r] = sl;
    }
    /* slice me of every vector, raw, in member order */
    mm_ghc_t g = mm_ghc_of(a->t);
    size_t big = slen[0]; /* slices differ by one element at most: the first is the largest */
    char *all;
    size_t stride = sl; /* of vector r's slice in all */
    if (big && mm_ghc_a2a_pipelines(a, &g, big)) {
        /* across hosts, the pipelined all-to-all of the slices padded to the largest (its
         * levels overlap); a member that passed another count sends blocks of another size,
         * which the all-to-all's receives refuse */
        const char *sb = sendbuf;
        char *packed = NULL;
        if (slen[n - 1] != big) { /* uneven: every slice to its padded block */
            packed = mm_ghc_alloc(a, big * (size_t)n);
            for (int r = 0; r < n; r++)
                memcpy(packed + (size_t)r * big, sb + soff[r], slen[r]);
            sb = packed;
        }
        all = mm_ghc_alloc(a, big * (size_t)n);
        mm_ghc_alltoall(a, sb, all, big);
        free(packed);
        stride = big;
    } else {
        all = mm_ghc_alloc(a, sl * (size_t)n);
        mm_ghc_alltoallv(a, sendbuf, soff, slen, all, roff, rcap, rlen);
        for (int r = 0; r < n; r++)
            if (rlen[r] != sl)
                mm_fatal_collective("%s: rank %d sent %zu bytes of slice %d, %zu expected "
                                    "(counts differ)",
                                    a->call, r, rlen[r], me, sl);
    }
    /* member 0 first, then 1, 2, ...: the full mesh's order */
    if (sl)
        memcpy(out, all, sl);
    for (int r = 1; r < n; r++)
        mm_reduce_apply(dtype, op, out, all + (size_t)r * stride, cnt);
    free(all);
    free(v);
}

meshmem_status_t mm_ghc_reduce_scatter(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                       size_t count, meshmem_dtype_t dtype, meshmem_op_t op)
{
    int n = a->t->size, me = a->t->my_rank;
    size_t sl = (mm_slice_lo(count, n, me + 1) - mm_slice_lo(count, n, me)) * a->esize;
    char *tmp = mm_ghc_alloc(a, sl); /* sendbuf may be recvbuf: its slices are read first */
    mm_ghc_reduce_slices(a, sendbuf, tmp, count, dtype, op);
    if (sl)
        memcpy(recvbuf, tmp, sl);
    free(tmp);
    return MESHMEM_OK;
}

/* the cut does not change a single bit: every element is still folded over members 0..n-1 */
size_t mm_ghc_round(const mm_coll_args_t *a)
{
    size_t hdr = 16 * (size_t)a->t->size * sizeof(uint64_t);
    size_t cap = mm_msg_stage_capacity() / 2;
    if (cap <= hdr + a->esize)
        mm_fatal("%s: no staging memory for the GHC phases (MESHMEM_STAGE_SIZE)", a->call);
    return (cap - hdr) / a->esize;
}

meshmem_status_t mm_ghc_allreduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                  size_t count, meshmem_dtype_t dtype, meshmem_op_t op,
                                  meshmem_algo_t algo)
{
    int n = a->t->size, me = a->t->my_rank;
    size_t es = a->esize, len = count * es;
    size_t *v = mm_ghc_sizes(a, 2 * (size_t)n);
    meshmem_status_t st = MESHMEM_OK;
    if (algo == MESHMEM_ALGO_ONESTEP || (algo == MESHMEM_ALGO_AUTO && len <= mm_g.eager_bytes)) {
        /* every whole vector to every member (all-gather), each folds all n in member order */
        for (int r = 0; r < n; r++) {
            v[r] = (size_t)r * len;
            v[n + r] = len;
        }
        char *all = mm_ghc_alloc(a, len * (size_t)n);
        st = mm_ghc_allgatherv(a, sendbuf, len, all, v, v + n);
        if (len)
            memcpy(recvbuf, all, len);
        for (int r = 1; r < n; r++)
            mm_reduce_apply(dtype, op, recvbuf, all + (size_t)r * len, count);
        free(all);
        free(v);
        return st;
    }
    /* reduce-scatter of the slices, then all-gather of the reduced slices; in rounds over
     * pieces of the vector when it does not fit in staging (in place: a round reads its
     * piece before it writes it) */
    size_t round = mm_ghc_round(a), at = 0;
    do {
        size_t pc = count - at < round ? count - at : round;
        const char *src = (const char *)sendbuf + at * es;
        char *dst = (char *)recvbuf + at * es;
        for (int r = 0; r < n; r++) {
            v[r] = mm_slice_lo(pc, n, r) * es;
            v[n + r] = mm_slice_lo(pc, n, r + 1) * es - v[r];
        }
        st = mm_ghc_reduce_scatter(a, src, dst + v[me], pc, dtype, op);
        if (st == MESHMEM_OK)
            st = mm_ghc_allgatherv(a, dst + v[me], v[n + me], dst, v, v + n);
        at += pc;
    } while (at < count && st == MESHMEM_OK);
    free(v);
    return st;
}

meshmem_status_t mm_ghc_reduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                               size_t count, meshmem_dtype_t dtype, meshmem_op_t op, int root)
{
    int n = a->t->size, me = a->t->my_rank;
    size_t es = a->esize, round = mm_ghc_round(a), at = 0;
    meshmem_status_t st = MESHMEM_OK;
    do { /* rounds over pieces, as the all-reduce */
        size_t pc = count - at < round ? count - at : round;
        /* slices differ by at most one element: gather them padded to the first (largest) */
        size_t big = mm_slice_lo(pc, n, 1) * es;
        char *mine = mm_ghc_alloc(a, big);
        memset(mine, 0, big);
        mm_ghc_reduce_slices(a, (const char *)sendbuf + at * es, mine, pc, dtype, op);
        char *all = me == root ? mm_ghc_alloc(a, big * (size_t)n) : NULL;
        st = mm_ghc_gather(a, mine, all, big, root);
        if (me == root && st == MESHMEM_OK)
            for (int r = 0; r < n; r++) {
                size_t lo = mm_slice_lo(pc, n, r), hi = mm_slice_lo(pc, n, r + 1);
                memcpy((char *)recvbuf + (at + lo) * es, all + (size_t)r * big, (hi - lo) * es);
            }
        free(all);
        free(mine);
        at += pc;
    } while (at < count && st == MESHMEM_OK);
    return st;
}
