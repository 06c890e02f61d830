/*
 * The decomposition and the halo exchange plan of the shallow-water app (sw_halo.h).
 */
#include "sw_halo.h"
#include "mm_grid.h"

#include <stdlib.h>
#include <string.h>

static int dx_of(int d)
{
    return d % 3 - 1;
}
static int dy_of(int d)
{
    return d / 3 - 1;
}

static int lo(int n, int parts, int k)
{
    return (int)((long long)n * k / parts);
}

void sw_grid(sw_grid_t *g, int M, int N, int P, int px, int twod)
{
    int c = 1, rows;
    if (px > 0)
        c = px;
    else if (twod)
        mm_grid_most_square(P, &rows, &c);
    *g = (sw_grid_t){.M = M, .N = N, .P = P, .px = c, .py = P / c};
}

void sw_grid_block(const sw_grid_t *g, int r, sw_block_t *b)
{
    int cx = r % g->px, cy = r / g->px;
    int i0 = lo(g->M, g->px, cx), j0 = lo(g->N, g->py, cy);
    sw_block(b, i0, lo(g->M, g->px, cx + 1) - i0, j0, lo(g->N, g->py, cy + 1) - j0);
}

void sw_grid_min_block(const sw_grid_t *g, int *nx, int *ny)
{
    *nx = g->M / g->px; /* floor: the smallest of the near-equal blocks */
    *ny = g->N / g->py;
}

static int neighbor(const sw_grid_t *g, int r, int d)
{
    int cx = (r % g->px + dx_of(d) + g->px) % g->px;
    int cy = (r / g->px + dy_of(d) + g->py) % g->py;
    return cy * g->px + cx;
}

/* the strip of block b toward direction d, along one axis: [*s, *s + *n) */
static void strip(int n, int dir, int *s, int *len)
{
    *s = dir < 0 ? 0 : dir > 0 ? n - SW_HALO : 0;
    *len = dir == 0 ? n : SW_HALO;
}

/* the halo of block b on side e along one axis: where a strip from that side lands */
static int halo_start(int n, int dir)
{
    return dir < 0 ? -SW_HALO : dir > 0 ? n : 0;
}

/* the piece a sender with block sb sends toward d, landing in receiver block rb */
static sw_piece_t piece(const sw_block_t *sb, const sw_block_t *rb, int d)
{
    sw_piece_t p = {.d = d};
    strip(sb->nx, dx_of(d), &p.xs, &p.w);
    strip(sb->ny, dy_of(d), &p.ys, &p.h);
    int e = SW_DIRS - 1 - d; /* the receiver sees the sender on the opposite side */
    p.xr = halo_start(rb->nx, dx_of(e));
    p.yr = halo_start(rb->ny, dy_of(e));
    return p;
}

/* the pieces sender s sends receiver r (directions ascending), their size and rows */
static void link_of(sw_link_t *l, const sw_grid_t *g, int s, int r)
{
    memset(l, 0, sizeof(*l));
    sw_grid_block(g, s, &l->sender);
    sw_grid_block(g, r, &l->receiver);
    int low = 0, high = 0, side = 0;
    for (int d = 0; d < SW_DIRS; d++) {
        if (d == SW_SELF_DIR || neighbor(g, s, d) != r)
            continue;
        sw_piece_t p = piece(&l->sender, &l->receiver, d);
        l->piece[l->npieces++] = p;
        l->count += 3 * (size_t)p.w * (size_t)p.h;
        low |= dy_of(d)<0, high |= dy_of(d)> 0, side |= dy_of(d) == 0;
    }
    /* streaming: one message per boundary row holding a corner or a top/bottom piece (the low
       and high strips overlap when ny < 2 SW_HALO), and one for the side strips */
    int rows[2 * SW_HALO], n = sw_boundary_rows(&l->sender, rows);
    for (int k = 0; k < n; k++)
        l->rows += (low && rows[k] < SW_HALO) || (high && rows[k] >= l->sender.ny - SW_HALO);
    l->rows += side;
}

/* the distinct peers (not r) of rank r, in order of first appearance over the directions */
static int peers_of(const sw_grid_t *g, int r, int *out)
{
    int n = 0;
    for (int d = 0; d < SW_DIRS; d++) {
        int q = neighbor(g, r, d);
        int seen = d == SW_SELF_DIR || q == r;
        for (int k = 0; k < n && !seen; k++)
            seen = out[k] == q;
        if (!seen)
            out[n++] = q;
    }
    return n;
}

void sw_halo_plan(sw_halo_t *h, const sw_grid_t *g, int me)
{
    memset(h, 0, sizeof(*h));
    h->g = *g;
    h->me = me;
    sw_grid_block(g, me, &h->b);
    int peers[SW_MAX_PEERS];
    h->npeers = peers_of(g, me, peers);
    for (int k = 0; k < h->npeers; k++) {
        int q = peers[k], theirs[SW_MAX_PEERS], n = peers_of(g, q, theirs);
        link_of(&h->send[k], g, me, q);
        link_of(&h->recv[k], g, q, me);
        h->send[k].peer = h->recv[k].peer = q;
        h->recv[k].slot = k;
        for (int i = 0; i < n; i++)
            if (theirs[i] == me)
                h->send[k].slot = i;
    }
    link_of(&h->self, g, me, me);
    h->self.peer = me;
    /* every rank sizes its slots and arrays for the largest block, so that the symmetric
       allocations agree: a message carries at most the whole halo of the sender's block */
    int nx = (g->M + g->px - 1) / g->px, ny = (g->N + g->py - 1) / g->py;
    sw_block_t big;
    sw_block(&big, 0, nx, 0, ny);
    h->max_cells = big.cells;
    h->slot_doubles = 3 * (big.cells - (size_t)nx * (size_t)ny);
}

static double *field(sw_level_t lv, int q)
{
    return q == 0 ? lv.u : q == 1 ? lv.v : lv.p;
}

/* @p h rows of @p w doubles, the rows @p dstride and @p sstride apart. A side strip is
 * SW_HALO doubles wide: a memcpy call of 16 bytes per row costs more than the data (a 32 x 32
 * block's exchange with itself has 192 such rows), so those rows are moved inline. */
static void copy_strip(double *dst, size_t dstride, const double *src, size_t sstride, int w, int h)
{
    if (w == SW_HALO) {
        for (int y = 0; y < h; y++, dst += dstride, src += sstride)
            for (int i = 0; i < SW_HALO; i++)
                dst[i] = src[i];
        return;
    }
    for (int y = 0; y < h; y++, dst += dstride, src += sstride)
        memcpy(dst, src, (size_t)w * sizeof(double));
}

static int wanted(const sw_piece_t *p, sw_pieces_t which)
{
    return which == SW_ALL_PIECES || sw_piece_is_side(p);
}

/* every wanted piece of @p l between level @p lv and the message @p buf, in the message's
 * order (pieces, then u, v, p, then rows): into @p buf when @p pack, out of it otherwise */
static size_t move_pieces(const sw_link_t *l, sw_pieces_t which, sw_level_t lv, double *buf,
                          int pack)
{
    const double *start = buf;
    for (int k = 0; k < l->npieces; k++) {
        const sw_piece_t *p = &l->piece[k];
        if (!wanted(p, which))
            continue;
        for (int q = 0; q < 3; q++, buf += (size_t)p->w * p->h) {
            if (pack)
                copy_strip(buf, (size_t)p->w, field(lv, q) + sw_at(&l->sender, p->xs, p->ys),
                           (size_t)l->sender.stride, p->w, p->h);
            else
                copy_strip(field(lv, q) + sw_at(&l->receiver, p->xr, p->yr),
                           (size_t)l->receiver.stride, buf, (size_t)p->w, p->w, p->h);
        }
    }
    return (size_t)(buf - start);
}

size_t sw_pack(const sw_link_t *l, sw_pieces_t which, sw_level_t lv, double *buf)
{
    return move_pieces(l, which, lv, buf, 1);
}

void sw_unpack(const sw_link_t *l, sw_pieces_t which, sw_level_t lv, const double *buf)
{
    move_pieces(l, which, lv, (double *)buf, 0);
}

void sw_copy_self(const sw_halo_t *h, sw_level_t lv)
{
    const sw_link_t *l = &h->self;
    for (int k = 0; k < l->npieces; k++) {
        const sw_piece_t *p = &l->piece[k];
        for (int q = 0; q < 3; q++)
            copy_strip(field(lv, q) + sw_at(&l->receiver, p->xr, p->yr), (size_t)l->receiver.stride,
                       field(lv, q) + sw_at(&l->sender, p->xs, p->ys), (size_t)l->sender.stride,
                       p->w, p->h);
    }
}

int sw_row_segments(const sw_link_t *l, int j, size_t *from, size_t *to, int *w)
{
    int n = 0;
    for (int k = 0; k < l->npieces; k++) {
        const sw_piece_t *p = &l->piece[k];
        if (sw_piece_is_side(p) || j < p->ys || j >= p->ys + p->h)
            continue;
        from[n] = sw_at(&l->sender, p->xs, j);
        to[n] = sw_at(&l->receiver, p->xr, p->yr + (j - p->ys));
        w[n++] = p->w;
    }
    return n;
}

size_t sw_check_halo_initial(const sw_halo_t *h, const sw_consts_t *c, sw_level_t lv)
{
    const sw_block_t *b = &h->b;
    double *mem = malloc(3 * b->cells * sizeof(double));
    if (mem == NULL)
        return b->cells;
    sw_level_t ref = {mem, mem + b->cells, mem + 2 * b->cells};
    sw_initial(c, b, ref, 1);
    size_t bad = 0;
    for (int j = -SW_HALO; j < b->ny + SW_HALO; j++)
        for (int i = -SW_HALO; i < b->nx + SW_HALO; i++) {
            if (i >= 0 && i < b->nx && j >= 0 && j < b->ny)
                continue;
            size_t k = sw_at(b, i, j);
            for (int q = 0; q < 3; q++)
                bad += memcmp(field(lv, q) + k, field(ref, q) + k, sizeof(double)) != 0;
        }
    free(mem);
    return bad;
}
