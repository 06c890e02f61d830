/*
 * The shallow-water scheme of SHALLOW (sw_scheme.h): constants, initial state, row kernels,
 * the step and the serial run. Built with -ffp-contract=off (see the header).
 */
#include "sw_scheme.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sw_consts(sw_consts_t *c, int M, int N)
{
    *c = (sw_consts_t){
        .M = M, .N = N, .dt = 90.0, .dx = 1.0e5, .dy = 1.0e5, .a = 1.0e6, .alpha = 0.001};
    c->fsdx = 4.0 / c->dx;
    c->fsdy = 4.0 / c->dy;
}

void sw_block(sw_block_t *b, int i0, int nx, int j0, int ny)
{
    *b = (sw_block_t){.i0 = i0, .nx = nx, .j0 = j0, .ny = ny, .stride = nx + 2 * SW_HALO};
    b->cells = (size_t)b->stride * (size_t)(ny + 2 * SW_HALO);
}

static int wrap(int k, int n)
{
    k %= n;
    return k < 0 ? k + n : k;
}

/* SHALLOW's stream function at global cell (gi, gj): psi(i, j) of the Fortran, i = gi + 1 */
static double psi(const sw_consts_t *c, double di, double dj, int gi, int gj)
{
    return c->a * sin((wrap(gi, c->M) + 0.5) * di) * sin((wrap(gj, c->N) + 0.5) * dj);
}

void sw_initial(const sw_consts_t *c, const sw_block_t *b, sw_level_t lv, int halo)
{
    const double pi = 4.0 * atan(1.0), tpi = pi + pi;
    const double di = tpi / c->M, dj = tpi / c->N;
    const double el = c->N * c->dx, pcf = pi * pi * c->a * c->a / (el * el);
    int h = halo ? SW_HALO : 0;
    for (int j = -h; j < b->ny + h; j++)
        for (int i = -h; i < b->nx + h; i++) {
            int gi = wrap(b->i0 + i, c->M), gj = wrap(b->j0 + j, c->N);
            size_t k = sw_at(b, i, j);
            /* u(i+1, j) = -(psi(i+1, j+1) - psi(i+1, j)) / dy; v(i, j+1) = (psi(i+1, j+1) -
               psi(i, j+1)) / dx; p(i, j) = pcf (cos 2(i-1)di + cos 2(j-1)dj) + 50000 */
            lv.u[k] = -(psi(c, di, dj, gi, gj + 1) - psi(c, di, dj, gi, gj)) / c->dy;
            lv.v[k] = (psi(c, di, dj, gi + 1, gj) - psi(c, di, dj, gi, gj)) / c->dx;
            lv.p[k] = pcf * (cos(2.0 * gi * di) + cos(2.0 * gj * dj)) + 50000.0;
        }
}

void sw_stage1_row(const sw_consts_t *c, const sw_block_t *b, sw_level_t cur, sw_work_t w, int j)
{
    const ptrdiff_t s = b->stride;
    const double *restrict u = cur.u, *restrict v = cur.v, *restrict p = cur.p;
    double *restrict cu = w.cu, *restrict cv = w.cv, *restrict z = w.z, *restrict h = w.h;
    const double fsdx = c->fsdx, fsdy = c->fsdy;
    size_t k0 = sw_at(b, -1, j);
    for (size_t k = k0; k < k0 + (size_t)b->nx + 2; k++) {
        cu[k] = 0.5 * (p[k] + p[k - 1]) * u[k];
        cv[k] = 0.5 * (p[k] + p[k - s]) * v[k];
        z[k] = (fsdx * (v[k] - v[k - 1]) - fsdy * (u[k] - u[k - s])) /
               (p[k - 1 - s] + p[k - s] + p[k] + p[k - 1]);
        h[k] =
            p[k] + 0.25 * (u[k + 1] * u[k + 1] + u[k] * u[k] + v[k + s] * v[k + s] + v[k] * v[k]);
    }
}

void sw_stage2_row(const sw_consts_t *c, const sw_block_t *b, sw_level_t cur, sw_level_t old,
                   sw_level_t nw, sw_work_t w, int j, double tdt, int first)
{
    const ptrdiff_t s = b->stride;
    const double *restrict cu = w.cu, *restrict cv = w.cv, *restrict z = w.z, *restrict h = w.h;
    const double tdts8 = tdt / 8.0, tdtsdx = tdt / c->dx, tdtsdy = tdt / c->dy;
    const double alpha = c->alpha;
    double *restrict un = nw.u, *restrict vn = nw.v, *restrict pn = nw.p;
    double *restrict uo = old.u, *restrict vo = old.v, *restrict po = old.p;
    const double *restrict u = cur.u, *restrict v = cur.v, *restrict p = cur.p;
    size_t k0 = sw_at(b, 0, j);
    for (size_t k = k0; k < k0 + (size_t)b->nx; k++) {
        un[k] = uo[k] +
                tdts8 * (z[k + s] + z[k]) * (cv[k + s] + cv[k - 1 + s] + cv[k - 1] + cv[k]) -
                tdtsdx * (h[k] - h[k - 1]);
        vn[k] = vo[k] -
                tdts8 * (z[k + 1] + z[k]) * (cu[k + 1] + cu[k] + cu[k - s] + cu[k + 1 - s]) -
                tdtsdy * (h[k] - h[k - s]);
        pn[k] = po[k] - tdtsdx * (cu[k + 1] - cu[k]) - tdtsdy * (cv[k + s] - cv[k]);
    }
    if (first) {
        size_t bytes = (size_t)b->nx * sizeof(double);
        memcpy(uo + k0, u + k0, bytes);
        memcpy(vo + k0, v + k0, bytes);
        memcpy(po + k0, p + k0, bytes);
        return;
    }
    for (size_t k = k0; k < k0 + (size_t)b->nx; k++) {
        uo[k] = u[k] + alpha * (un[k] - 2.0 * u[k] + uo[k]);
        vo[k] = v[k] + alpha * (vn[k] - 2.0 * v[k] + vo[k]);
        po[k] = p[k] + alpha * (pn[k] - 2.0 * p[k] + po[k]);
    }
}

void sw_wrap(const sw_block_t *b, sw_level_t lv)
{
    double *f[3] = {lv.u, lv.v, lv.p};
    for (int q = 0; q < 3; q++) {
        /* x first on the owned rows, then whole rows (their x halo included) in y */
        for (int j = 0; j < b->ny; j++)
            for (int i = -SW_HALO; i < b->nx + SW_HALO; i += i == -1 ? b->nx + 1 : 1)
                f[q][sw_at(b, i, j)] = f[q][sw_at(b, wrap(i, b->nx), j)];
        for (int j = -SW_HALO; j < b->ny + SW_HALO; j += j == -1 ? b->ny + 1 : 1)
            memcpy(&f[q][sw_at(b, -SW_HALO, j)], &f[q][sw_at(b, -SW_HALO, wrap(j, b->ny))],
                   (size_t)b->stride * sizeof(double));
    }
}

double sw_mass(const sw_block_t *b, const double *p)
{
    double sum = 0;
    for (int j = 0; j < b->ny; j++) {
        double row = 0;
        for (int i = 0; i < b->nx; i++)
            row += p[sw_at(b, i, j)];
        sum += row;
    }
    return sum;
}

int sw_state_init(sw_state_t *s, int M, int N, const sw_block_t *b, const sw_level_t lv[3])
{
    memset(s, 0, sizeof(*s));
    sw_consts(&s->c, M, N);
    s->b = *b;
    memcpy(s->lv, lv, sizeof(s->lv));
    double **priv[7] = {&s->old.u, &s->old.v, &s->old.p, &s->w.cu, &s->w.cv, &s->w.z, &s->w.h};
    for (int k = 0; k < 7; k++)
        if ((*priv[k] = calloc(b->cells, sizeof(double))) == NULL)
            return -1;
    s->s1done = calloc((size_t)b->ny + 2, 1);
    return s->s1done ? 0 : -1;
}

void sw_state_reset(sw_state_t *s, int halos)
{
    for (int k = 0; k < 3; k++)
        sw_initial(&s->c, &s->b, s->lv[k], halos);
    sw_initial(&s->c, &s->b, s->old, 0);
    s->step = 0;
}

void sw_state_free(sw_state_t *s)
{
    double *priv[7] = {s->old.u, s->old.v, s->old.p, s->w.cu, s->w.cv, s->w.z, s->w.h};
    for (int k = 0; k < 7; k++)
        free(priv[k]);
    free(s->s1done);
    memset(s, 0, sizeof(*s));
}

/* stage 1 on rows j - 1 .. j + 1 (those not done this step), then stage 2 on row j */
static void step_row(sw_state_t *s, sw_level_t cur, sw_level_t nw, int j, double tdt)
{
    for (int r = j - 1; r <= j + 1; r++)
        if (!s->s1done[r + 1]) {
            sw_stage1_row(&s->c, &s->b, cur, s->w, r);
            s->s1done[r + 1] = 1;
        }
    sw_stage2_row(&s->c, &s->b, cur, s->old, nw, s->w, j, tdt, s->step == 0);
}

int sw_boundary_rows(const sw_block_t *b, int *rows)
{
    int n = 0;
    for (int j = 0; j < b->ny && j < SW_HALO; j++)
        rows[n++] = j;
    for (int j = b->ny - SW_HALO > SW_HALO ? b->ny - SW_HALO : SW_HALO; j < b->ny; j++)
        rows[n++] = j;
    return n;
}

void sw_step(sw_state_t *s, sw_row_fn row, void *ctx)
{
    const sw_block_t *b = &s->b;
    sw_level_t cur = sw_cur(s), nw = sw_next(s);
    double tdt = s->step == 0 ? s->c.dt : 2.0 * s->c.dt;
    memset(s->s1done, 0, (size_t)b->ny + 2);
    if (row == NULL) {
        for (int j = 0; j < b->ny; j++)
            step_row(s, cur, nw, j, tdt);
    } else {
        /* the boundary rows first, each sent as soon as it is final, then the inner rows */
        int rows[2 * SW_HALO], n = sw_boundary_rows(b, rows);
        for (int k = 0; k < n; k++) {
            step_row(s, cur, nw, rows[k], tdt);
            row(ctx, rows[k]);
        }
        for (int j = SW_HALO; j < b->ny - SW_HALO; j++)
            step_row(s, cur, nw, j, tdt);
    }
    s->step++;
}

int sw_serial(int M, int N, long steps, sw_level_t out)
{
    sw_block_t b;
    sw_block(&b, 0, M, 0, N);
    sw_level_t lv[3];
    double *mem = calloc(9 * b.cells, sizeof(double));
    if (mem == NULL)
        return -1;
    for (int k = 0; k < 3; k++)
        lv[k] = (sw_level_t){mem + (3 * k) * b.cells, mem + (3 * k + 1) * b.cells,
                             mem + (3 * k + 2) * b.cells};
    sw_state_t s;
    if (sw_state_init(&s, M, N, &b, lv) != 0) {
        sw_state_free(&s);
        free(mem);
        return -1;
    }
    sw_state_reset(&s, 0);
    for (long t = 0; t < steps; t++) {
        sw_wrap(&b, sw_cur(&s));
        sw_step(&s, NULL, NULL);
    }
    sw_level_t cur = sw_cur(&s);
    memcpy(out.u, cur.u, b.cells * sizeof(double));
    memcpy(out.v, cur.v, b.cells * sizeof(double));
    memcpy(out.p, cur.p, b.cells * sizeof(double));
    sw_state_free(&s);
    free(mem);
    return 0;
}
