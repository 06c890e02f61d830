/**
 * @file shallow_main.c
 * @brief `shallow`: the shallow-water simulation of ACCL (SHALLOW's scheme, sw_scheme.h) on
 * meshmem, its halo exchanged two ways (-v):
 *
 * - buffered: per step and peer, pack every strip bound for that peer into one message, put it
 *   with a signal into the peer's receive slot, then wait for each peer's message and unpack
 *   it (ACCL's buffered mode: no collective, one put-with-signal per peer).
 * - streaming: each boundary row of the next level goes to the peers' halos with a
 *   put-with-signal as soon as the row is computed (ACCL's streaming mode), while the inner
 *   rows are still being computed; the side strips (columns, in 2-D blocks) follow in one
 *   message per peer after the step. The next step waits only for the signal count.
 *
 * Every transfer is a meshmem put, put-with-signal or get: peers on another host are reached
 * the same way as peers of the node.
 *
 * Symmetric memory of every rank (sizes from the grid only, so that all ranks agree):
 *   levels   3 time levels x (u, v, p), each array the largest block's cells (halo included);
 *            a level's owned cells are written by this rank, its halo by the peers (streaming)
 *            or by the unpacking here (buffered)
 *   slots    per sender (its slot here, sw_halo_t) and parity, one message: written by that
 *            sender only
 *   sig      per sender: its signal (buffered: SET to the exchange number; streaming: ADD 1
 *            per message), written by that sender only
 *
 * Why two parities are enough: a sender reuses the slot of exchange e at e + 2, and it can
 * start exchange e + 2 only after it received the receiver's exchange e + 1, which the
 * receiver sends after it unpacked exchange e. Why three levels are enough for streaming: a
 * row of level s + 1 lands in the halo of the peer's level (s + 1) % 3 = (s - 2) % 3, which the
 * peer read last at step s - 2; the peer is at least in step s - 1 (this rank has its level s
 * rows, sent during its step s - 1). Signals and expected counts grow over the whole job
 * (never reset between runs).
 */
#include "sw_app.h"

#include <meshmem.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const sw_opts_t *o;
    sw_state_t *s;
    const sw_halo_t *plan;
    double *levels, *slots, *pack;
    uint64_t *sig;
    uint64_t exchanges;            /* buffered: exchanges started in this job */
    uint64_t sent, received;       /* streaming: levels sent, levels completed */
    uint64_t expect[SW_MAX_PEERS]; /* streaming: messages expected so far per sender */
} mm_exch_t;

static double *field_of(sw_level_t lv, int q)
{
    return q == 0 ? lv.u : q == 1 ? lv.v : lv.p;
}

/* sender @p slot's receive slot of parity @p par (here, or the same address at a peer) */
static double *slot_at(const mm_exch_t *x, int slot, uint64_t par)
{
    return x->slots + ((size_t)slot * 2 + (size_t)par) * x->plan->slot_doubles;
}

/* --- buffered ------------------------------------------------------------------------------ */

static void buffered_halo(void *ctx)
{
    mm_exch_t *x = ctx;
    const sw_halo_t *h = x->plan;
    sw_level_t cur = sw_cur(x->s);
    uint64_t e = ++x->exchanges, par = e & 1;
    for (int k = 0; k < h->npeers; k++) {
        const sw_link_t *l = &h->send[k];
        size_t n = sw_pack(l, SW_ALL_PIECES, cur, x->pack);
        meshmem_put_signal(slot_at(x, l->slot, par), x->pack, n * sizeof(double), &x->sig[l->slot],
                           e, MESHMEM_SIGNAL_SET, l->peer);
    }
    sw_copy_self(h, cur);
    for (int k = 0; k < h->npeers; k++) {
        meshmem_wait_until(&x->sig[k], MESHMEM_UINT64, MESHMEM_CMP_GE, &e);
        sw_unpack(&h->recv[k], SW_ALL_PIECES, cur, slot_at(x, k, par));
    }
}

/* --- streaming ----------------------------------------------------------------------------- */

/* row @p j of level @p lv into every peer's halo: u, v, then p with the row's signal (a fence
 * first: the signal must follow every put of the row, not only its own) */
static void stream_row_of(mm_exch_t *x, sw_level_t lv, int j)
{
    const sw_halo_t *h = x->plan;
    for (int k = 0; k < h->npeers; k++) {
        const sw_link_t *l = &h->send[k];
        size_t from[3], to[3];
        int w[3], n = sw_row_segments(l, j, from, to, w);
        for (int i = 0; i < n; i++)
            for (int q = 0; q < 3; q++) {
                double *dst = field_of(lv, q) + to[i], *src = field_of(lv, q) + from[i];
                size_t bytes = (size_t)w[i] * sizeof(double);
                if (i < n - 1 || q < 2) {
                    meshmem_put(dst, src, bytes, l->peer);
                } else {
                    meshmem_fence();
                    meshmem_put_signal(dst, src, bytes, &x->sig[l->slot], 1, MESHMEM_SIGNAL_ADD,
                                       l->peer);
                }
            }
    }
}

/* the side strips of level @p lv (the level numbered x->sent): one message per peer */
static void stream_sides_of(mm_exch_t *x, sw_level_t lv)
{
    const sw_halo_t *h = x->plan;
    uint64_t par = x->sent & 1;
    for (int k = 0; k < h->npeers; k++) {
        const sw_link_t *l = &h->send[k];
        size_t n = sw_pack(l, SW_SIDE_PIECES, lv, x->pack);
        if (n > 0)
            meshmem_put_signal(slot_at(x, l->slot, par), x->pack, n * sizeof(double),
                               &x->sig[l->slot], 1, MESHMEM_SIGNAL_ADD, l->peer);
    }
    x->sent++;
}

/* wait for every message of the level numbered x->received, unpack its side strips */
static void stream_receive(mm_exch_t *x, sw_level_t lv)
{
    const sw_halo_t *h = x->plan;
    uint64_t par = x->received & 1;
    for (int k = 0; k < h->npeers; k++) {
        const sw_link_t *l = &h->recv[k];
        x->expect[k] += (uint64_t)l->rows;
        meshmem_wait_until(&x->sig[k], MESHMEM_UINT64, MESHMEM_CMP_GE, &x->expect[k]);
        sw_unpack(l, SW_SIDE_PIECES, lv, slot_at(x, k, par));
    }
    sw_copy_self(h, lv);
    x->received++;
}

static void stream_row(void *ctx, int j)
{
    mm_exch_t *x = ctx;
    stream_row_of(x, sw_next(x->s), j);
}

static void stream_halo(void *ctx)
{
    mm_exch_t *x = ctx;
    sw_level_t cur = sw_cur(x->s);
    if (x->s->step == 0) { /* the initial level: every boundary row, then the sides */
        int rows[2 * SW_HALO], n = sw_boundary_rows(&x->s->b, rows);
        for (int k = 0; k < n; k++)
            stream_row_of(x, cur, rows[k]);
        stream_sides_of(x, cur);
    }
    stream_receive(x, cur);
}

static void stream_stepped(void *ctx)
{
    mm_exch_t *x = ctx;
    stream_sides_of(x, sw_cur(x->s)); /* the level the step just computed */
}

static void stream_finish(void *ctx)
{
    mm_exch_t *x = ctx;
    stream_receive(x, sw_cur(x->s));
}

/* --- both ---------------------------------------------------------------------------------- */

/* the compute of a step, for `meshrun --fabric` (the exchange's puts are traced calls) */
static void annotate_step(void *ctx)
{
    mm_exch_t *x = ctx;
    if (x->o->exchange_only)
        return;
    uint64_t cells = (uint64_t)x->s->b.nx * (uint64_t)x->s->b.ny;
    meshmem_model_compute(cells * SW_READS_PER_CELL * sizeof(double),
                          cells * SW_WRITES_PER_CELL * sizeof(double), cells * SW_FLOPS_PER_CELL);
}

static void stream_stepped_annotated(void *ctx)
{
    annotate_step(ctx);
    stream_stepped(ctx);
}

static void fetch(void *ctx, int r, sw_level_t dst)
{
    mm_exch_t *x = ctx;
    if (meshmem_rank() != 0)
        return;
    sw_block_t b;
    sw_grid_block(&x->plan->g, r, &b);
    sw_level_t cur = sw_cur(x->s); /* symmetric: rank r's current level at the same address */
    for (int q = 0; q < 3; q++)
        meshmem_get(field_of(dst, q), field_of(cur, q), b.cells * sizeof(double), r);
}

/* symmetric bytes of the levels, slots and signals of @p plan's grid, and the runtime's */
static size_t heap_bytes(const sw_halo_t *plan)
{
    return 9 * plan->max_cells * sizeof(double) +
           (size_t)SW_MAX_PEERS * 2 * plan->slot_doubles * sizeof(double) +
           SW_MAX_PEERS * sizeof(uint64_t) + (4u << 20); /* the runtime's own */
}

int main(int argc, char **argv)
{
    app_t h = APP_INIT("shallow", "shallow");
    h.iters = 3;
    sw_opts_t o;
    int heap_ranks = 0;
    const app_opt_t extra[] = {
        {'H', APP_INT, &heap_ranks, 1, "RANKS",
         "print the symmetric heap bytes a run on RANKS ranks needs, and exit"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    sw_app_parse(&h, &o, "shallow [options]   (start with meshrun -n RANKS --heap SIZE)",
                 "buffered,streaming", extra, argc, argv);
    sw_halo_t plan;
    if (heap_ranks > 0) {
        sw_grid_t g;
        char why[256];
        if (sw_app_grid(&o, heap_ranks, &g, why, sizeof(why)) != 0)
            app_bad_option(&h, "%s", why);
        sw_halo_plan(&plan, &g, 0);
        printf("%zu\n", heap_bytes(&plan));
        return 0;
    }
    app_start(&h, &app_rt_meshmem);
    sw_app_plan(&h, &o, &plan);

    mm_exch_t x = {.o = &o, .plan = &plan};
    x.levels = meshmem_malloc(9 * plan.max_cells * sizeof(double));
    x.slots = meshmem_malloc((size_t)SW_MAX_PEERS * 2 * plan.slot_doubles * sizeof(double));
    x.sig = meshmem_calloc(SW_MAX_PEERS, sizeof(uint64_t));
    x.pack = app_alloc(&h, plan.slot_doubles * sizeof(double), "the pack buffer");
    if (!x.levels || !x.slots || !x.sig)
        app_fatal(&h, "out of symmetric memory (shallow -N %s -H %d prints what it needs)", o.size,
                  h.nranks);
    sw_level_t lv[3];
    for (int k = 0; k < 3; k++)
        lv[k] = (sw_level_t){x.levels + (3 * k) * plan.max_cells,
                             x.levels + (3 * k + 1) * plan.max_cells,
                             x.levels + (3 * k + 2) * plan.max_cells};
    sw_state_t s;
    if (sw_state_init(&s, o.M, o.N, &plan.b, lv) != 0)
        app_fatal(&h, "out of memory for a %dx%d block", plan.b.nx, plan.b.ny);
    x.s = &s;

    int streaming = !strcmp(o.variant, "streaming");
    sw_exch_t ex = {.fetch = fetch, .ctx = &x};
    if (streaming) {
        ex.halo = stream_halo;
        ex.row = stream_row;
        ex.stepped = stream_stepped_annotated;
        ex.finish = stream_finish;
    } else {
        ex.halo = buffered_halo;
        ex.stepped = annotate_step;
    }
    sw_app_run(&h, &o, &s, &plan, &ex);

    sw_state_free(&s);
    free(x.pack);
    meshmem_free(x.sig);
    meshmem_free(x.slots);
    meshmem_free(x.levels);
    return app_finish(&h);
}
