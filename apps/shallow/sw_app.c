/*
 * The shared driver of `shallow` and `shallow_mpi` (sw_app.h): command line, checks, timed
 * runs, verification against the serial run, result line.
 */
#include "sw_app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sw_app_parse(app_t *h, sw_opts_t *o, const char *synopsis, const char *variants,
                  const app_opt_t *extra, int argc, char **argv)
{
    static char vhelp[160], vdefault[32];
    size_t first = strcspn(variants, ",");
    snprintf(vdefault, sizeof(vdefault), "%.*s", (int)first, variants);
    snprintf(vhelp, sizeof(vhelp), "%s (default %s)", variants, vdefault);
    *o = (sw_opts_t){.size = "64x64", .variant = vdefault, .steps = 100};
    int decomp = 1;
    app_opt_t opts[] = {
        {'N', APP_STR, &o->size, 0, "MxN", "grid: M cells in x, N in y (default 64x64)"},
        {'v', APP_STR, &o->variant, 0, "VARIANT", vhelp},
        {'t', APP_INT, &o->steps, 1, "STEPS", "time steps per timed run (default 100)"},
        {'d', APP_INT, &decomp, 1, "1|2", "decomposition: 1 (blocks of rows) or 2 (2-D blocks)"},
        {'g', APP_INT, &o->px, 1, "PX", "2-D: ranks per grid row, in x (default: most square)"},
        {'E', APP_FLAG, &o->exchange_only, 0, NULL, "the halo exchange alone, no computation"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    /* the program's own options after the shared ones (at most 3) */
    app_opt_t *end = opts + 6;
    for (int k = 0; extra && extra[k].key && k < 3; k++)
        end[k] = extra[k];
    app_parse(h, synopsis, opts, argc, argv);
    char tail;
    if (sscanf(o->size, "%dx%d%c", &o->M, &o->N, &tail) != 2 || o->M < 1 || o->N < 1 ||
        o->M > 1 << 16 || o->N > 1 << 16)
        app_bad_option(h, "-N %s: a grid MxN, each 1 to 65536 (e.g. 64x64)", o->size);
    if (decomp != 1 && decomp != 2)
        app_bad_option(h, "-d %d: the decomposition is 1 (rows) or 2 (2-D blocks)", decomp);
    if (o->px && decomp != 2)
        app_bad_option(h, "-g %d: a grid of ranks is for -d 2", o->px);
    o->twod = decomp == 2;
    app_check_choice(h, 'v', o->variant, variants);
}

int sw_app_grid(const sw_opts_t *o, int P, sw_grid_t *g, char *why, size_t len)
{
    if (o->px && P % o->px) {
        snprintf(why, len, "-g %d: ranks per grid row must divide the %d ranks", o->px, P);
        return -1;
    }
    sw_grid(g, o->M, o->N, P, o->px, o->twod);
    int nx, ny;
    sw_grid_min_block(g, &nx, &ny);
    if (nx < SW_HALO || ny < SW_HALO) {
        snprintf(why, len,
                 "-N %s: on a %dx%d grid of ranks the smallest block is %dx%d cells; "
                 "every block needs at least %dx%d (the halo's width)",
                 o->size, g->px, g->py, nx, ny, SW_HALO, SW_HALO);
        return -1;
    }
    return 0;
}

void sw_app_plan(app_t *h, const sw_opts_t *o, sw_halo_t *plan)
{
    sw_grid_t g;
    char why[256];
    if (sw_app_grid(o, h->nranks, &g, why, sizeof(why)) != 0)
        app_arg_error(h, "%s", why);
    sw_halo_plan(plan, &g, h->me);
}

typedef struct {
    app_t *h;
    const sw_opts_t *o;
    sw_state_t *s;
    const sw_exch_t *x;
    int warmup;
    int timed;         /* the current run is timed: its exchange time counts */
    double t_exchange; /* seconds in the exchange calls over the timed runs */
    long completed;    /* the step whose level's halo the last exchange completed */
} sw_run_t;

static void prepare(void *ctx, int run)
{
    sw_run_t *r = ctx;
    /* halos poisoned: a cell the exchange does not fill shows up in the verification */
    for (int k = 0; k < 3; k++) {
        double *f[3] = {r->s->lv[k].u, r->s->lv[k].v, r->s->lv[k].p};
        for (int q = 0; q < 3; q++)
            for (size_t i = 0; i < r->s->b.cells; i++)
                f[q][i] = NAN;
    }
    sw_state_reset(r->s, 0);
    r->timed = run >= r->warmup;
}

/* the program's row hook, timed */
static void timed_row(void *ctx, int j)
{
    sw_run_t *r = ctx;
    double t0 = app_now();
    r->x->row(r->x->ctx, j);
    r->t_exchange += app_now() - t0;
}

static void timed(sw_run_t *r, void (*fn)(void *))
{
    if (fn == NULL)
        return;
    double t0 = app_now();
    fn(r->x->ctx);
    r->t_exchange += app_now() - t0;
}

static void run_steps(void *ctx, int run)
{
    sw_run_t *r = ctx;
    sw_state_t *s = r->s;
    double t_before = r->t_exchange;
    int rows[2 * SW_HALO], nrows = sw_boundary_rows(&s->b, rows);
    for (int t = 0; t < r->o->steps; t++) {
        timed(r, r->x->halo);
        r->completed = s->step;
        if (r->o->exchange_only) {
            /* the exchange's own work of a step: the boundary rows and the sides it sends */
            for (int k = 0; r->x->row && k < nrows; k++)
                timed_row(r, rows[k]);
            s->step++;
        } else {
            sw_step(s, r->x->row ? timed_row : NULL, r);
        }
        timed(r, r->x->stepped);
    }
    if (r->x->finish) {
        timed(r, r->x->finish);
        r->completed = s->step;
    }
    if (!r->timed)
        r->t_exchange = t_before;
    (void)run;
}

/* rank 0: compare every rank's block with the serial run; @return cells that differ */
static uint64_t compare_serial(app_t *h, const sw_opts_t *o, const sw_halo_t *plan,
                               const sw_exch_t *x)
{
    sw_block_t whole, b;
    sw_block(&whole, 0, o->M, 0, o->N);
    double *mem = NULL, *ref = NULL;
    if (h->me == 0) {
        mem = app_alloc(h, 3 * plan->max_cells * sizeof(double), "a rank's block");
        ref = app_alloc(h, 3 * whole.cells * sizeof(double), "the serial run");
        if (sw_serial(o->M, o->N, o->steps,
                      (sw_level_t){ref, ref + whole.cells, ref + 2 * whole.cells}) != 0)
            app_fatal(h, "out of memory for the serial run of %dx%d", o->M, o->N);
    }
    uint64_t bad = 0;
    for (int r = 0; r < h->nranks; r++) {
        sw_level_t got = {mem, mem ? mem + plan->max_cells : NULL,
                          mem ? mem + 2 * plan->max_cells : NULL};
        x->fetch(x->ctx, r, got);
        if (h->me != 0)
            continue;
        sw_grid_block(&plan->g, r, &b);
        const double *mine[3] = {got.u, got.v, got.p};
        for (int q = 0; q < 3; q++)
            for (int j = 0; j < b.ny; j++)
                for (int i = 0; i < b.nx; i++)
                    bad += memcmp(&mine[q][sw_at(&b, i, j)],
                                  &ref[q * whole.cells + sw_at(&whole, b.i0 + i, b.j0 + j)],
                                  sizeof(double)) != 0;
    }
    free(mem);
    free(ref);
    return bad;
}

void sw_app_run(app_t *h, const sw_opts_t *o, sw_state_t *s, const sw_halo_t *plan,
                const sw_exch_t *x)
{
    sw_state_reset(s, 0);
    double mass0 = sw_mass(&s->b, sw_cur(s).p);
    h->rt->allreduce(&mass0, 1, APP_SUM);
    sw_run_t r = {.h = h, .o = o, .s = s, .x = x, .warmup = h->warmup};
    app_runs_t runs = {.prepare = prepare,
                       .run = run_steps,
                       .ctx = &r,
                       .phase = "step",
                       .timing = APP_TIME_EACH,
                       .warmup = h->warmup};
    app_time_runs(h, &runs);

    /* what is verified: the final level, or with -E the last level an exchange completed */
    sw_level_t final = o->exchange_only ? s->lv[r.completed % 3] : sw_cur(s);
    /* -C: one bit of one value this rank verifies, on the last rank */
    if (h->corrupt && h->me == h->nranks - 1) {
        size_t k = o->exchange_only ? sw_at(&s->b, -1, -1) : sw_at(&s->b, 0, 0);
        uint64_t bits;
        memcpy(&bits, &final.p[k], sizeof(bits));
        bits ^= 1;
        memcpy(&final.p[k], &bits, sizeof(bits));
    }
    uint64_t bad;
    double mass_err = 0;
    const char *what;
    if (o->exchange_only) {
        bad = sw_check_halo_initial(plan, &s->c, final);
        what = "a halo cell differs from its neighbour's value";
    } else {
        double mass = sw_mass(&s->b, final.p);
        h->rt->allreduce(&mass, 1, APP_SUM);
        mass_err = fabs(mass - mass0) / fabs(mass0);
        bad = compare_serial(h, o, plan, x);
        if (h->me == 0 && !(mass_err <= 1e-12))
            bad++;
        what = "not bitwise identical to the serial run, or mass not conserved to 1e-12";
    }
    double mism = (double)bad;
    h->rt->allreduce(&mism, 1, APP_SUM);
    app_verdict(h, bad, mass_err, what);
    double t_ex = r.t_exchange;
    h->rt->allreduce(&t_ex, 1, APP_SUM);
    double per_step = (double)h->t.runs * o->steps;
    double us_step = h->t.median / o->steps * 1e6;
    double us_ex = t_ex / h->nranks / per_step * 1e6;
    app_report(h,
               "variant=%s n=%dx%d grid=%dx%d steps=%d exchange_only=%d us_step=%.4f "
               "us_exchange=%.4f exchange_share=%.4f mass_err=%.3g mismatches=%.0f",
               o->variant, o->M, o->N, plan->g.px, plan->g.py, o->steps, o->exchange_only, us_step,
               us_ex, us_step > 0 ? us_ex / us_step : 0, mass_err, mism);
}
