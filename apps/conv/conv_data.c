/*
 * The runtime-independent part of the distributed convolution (conv_data.h).
 */
#include "conv_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the paper's first layer: 256 kernels of 3 x 3 x 256 over 64 x 64 maps */
#define DEFAULT_MAPS    "64"
#define DEFAULT_KERNELS "256x3x3x256"
#define MAX_SIDE        4096

static void parse_shape(app_t *h, conv_opts_t *o)
{
    char tail;
    int n = sscanf(o->maps, "%dx%d%c", &o->H, &o->W, &tail);
    if (n == 1)
        o->W = o->H;
    if ((n != 1 && n != 2) || o->H < 1 || o->W < 1 || o->H > MAX_SIDE || o->W > MAX_SIDE)
        app_bad_option(h, "-m %s: maps n or HxW, each 1 to %d", o->maps, MAX_SIDE);
    if (sscanf(o->kernels, "%dx%dx%dx%d%c", &o->kout, &o->kh, &o->kw, &o->cin, &tail) != 4 ||
        o->kout < 1 || o->kh < 1 || o->kw < 1 || o->cin < 1 || o->kout > 1 << 16 ||
        o->cin > 1 << 16 || o->kh > 64 || o->kw > 64)
        app_bad_option(h, "-k %s: kernels KOUTxKHxKWxCIN (e.g. 256x3x3x256), KH and KW 1 to 64",
                       o->kernels);
    if (o->layers > 1 && o->kout != o->cin)
        app_bad_option(h, "-l %d: chained layers need KOUT = CIN (-k %s)", o->layers, o->kernels);
    if ((double)o->kout * o->H * o->W > (double)(1u << 31) ||
        (double)o->cin * o->kh * o->kw * o->chunk * o->W > (double)(1u << 31))
        app_bad_option(h, "-k %s -m %s: more than 2^31 elements in a layer or a block", o->kernels,
                       o->maps);
}

void conv_parse(app_t *h, conv_opts_t *o, const char *synopsis, const char *variants, int argc,
                char **argv)
{
    static char vhelp[128], vdefault[32];
    snprintf(vdefault, sizeof(vdefault), "%.*s", (int)strcspn(variants, ","), variants);
    snprintf(vhelp, sizeof(vhelp), "%s (default %s)", variants, vdefault);
    *o = (conv_opts_t){.maps = DEFAULT_MAPS,
                       .kernels = DEFAULT_KERNELS,
                       .variant = vdefault,
                       .precision = "single",
                       .chunk = 8,
                       .layers = 1};
    const app_opt_t opts[] = {
        {'m', APP_STR, &o->maps, 0, "MAPS",
         "input maps n (square) or HxW (default " DEFAULT_MAPS ")"},
        {'k', APP_STR, &o->kernels, 0, "KERNELS",
         "KOUTxKHxKWxCIN: KOUT kernels of KH x KW x CIN (default " DEFAULT_KERNELS ")"},
        {'l', APP_INT, &o->layers, 1, "LAYERS",
         "chained layers of that shape, each one's maps the next one's input (default 1)"},
        {'b', APP_INT, &o->chunk, 1, "ROWS",
         "rows of the maps per block, computed and sent as one piece (default 8)"},
        {'p', APP_STR, &o->precision, 0, "PREC",
         "single (sgemm) or double (dgemm) (default single)"},
        {'v', APP_STR, &o->variant, 0, "VARIANT", vhelp},
        {'H', APP_INT, &o->heap_ranks, 1, "RANKS",
         "print the symmetric heap bytes a run on RANKS ranks needs, and exit"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(h, synopsis, opts, argc, argv);
    app_check_choice(h, 'v', o->variant, variants);
    app_check_choice(h, 'p', o->precision, "single,double");
    o->prec = !strcmp(o->precision, "single") ? APP_BLAS_SINGLE : APP_BLAS_DOUBLE;
    o->esz = app_blas_size(o->prec);
    parse_shape(h, o);
    o->blocks = (o->H + o->chunk - 1) / o->chunk;
    o->kdim = o->cin * o->kh * o->kw;
}

int conv_need(const conv_opts_t *o, int b)
{
    int after = o->kh - 1 - (o->kh - 1) / 2; /* padding rows after the map */
    int last = conv_row0(o, b) + conv_rows(o, b) - 1 + after;
    return (last < o->H ? last : o->H - 1) / o->chunk;
}

/* element i of @p p as @p prec */
static void put_value(const conv_opts_t *o, void *p, size_t i, double v)
{
    if (o->prec == APP_BLAS_SINGLE)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* weight (kh, kw, ci) of kernel co of layer @p layer: uniform in [-scale, scale], variance
 * 1 / kdim, drawn from its global index, so the same whatever the ranks and the storage */
static double weight_at(const conv_opts_t *o, uint64_t seed, int layer, int co, int ci, int kh,
                        int kw)
{
    uint64_t at = ((uint64_t)co * o->cin + ci) * o->kh * o->kw + (uint64_t)kh * o->kw + kw;
    uint64_t r = app_rand_at(seed ^ app_mix(UINT64_C(0x77) + (uint64_t)layer), at);
    return (2 * app_unit(r) - 1) * sqrt(3.0 / o->kdim);
}

void conv_group_setup(app_t *h, const conv_opts_t *o, int P, int me, conv_group_t *g)
{
    g->c0 = app_part_lo(o->kout, P, me), g->nc = app_part_len(o->kout, P, me);
    g->w = app_alloc(h, (size_t)o->layers * sizeof(void *), "the weight list");
    for (int l = 0; l < o->layers; l++) {
        g->w[l] = app_alloc(h, (size_t)g->nc * o->kdim * o->esz, "the weights");
        size_t i = 0; /* stored kernel row by kernel row: [kh][kernel][ci][kw] (conv_block) */
        for (int kh = 0; kh < o->kh; kh++)
            for (int co = g->c0; co < g->c0 + g->nc; co++)
                for (int ci = 0; ci < o->cin; ci++)
                    for (int kw = 0; kw < o->kw; kw++, i++)
                        put_value(o, g->w[l], i, weight_at(o, h->seed, l, co, ci, kh, kw));
    }
    g->col = app_alloc(h, conv_shift_elems(o, 0, conv_panel(o)) * o->esz, "the shifted rows");
}

void *conv_input(app_t *h, const conv_opts_t *o)
{
    void *in = app_alloc(h, conv_elems(o, o->cin) * o->esz, "the input maps");
    for (int b = 0; b < o->blocks; b++)
        for (int c = 0; c < o->cin; c++)
            for (int y = conv_row0(o, b); y < conv_row0(o, b) + conv_rows(o, b); y++) {
                size_t at = conv_piece(o, o->cin, b, c) + (size_t)(y - conv_row0(o, b)) * o->W;
                for (int x = 0; x < o->W; x++) {
                    uint64_t i = ((uint64_t)c * o->H + y) * o->W + x; /* the global index */
                    put_value(o, in, at + x, app_unit(app_rand_at(h->seed, i)) - 0.5);
                }
            }
    return in;
}

/* Rows (ci, kw), ci in [c0, c1), of the shifted copies of block b's input: row (ci, kw) holds
 * channel ci's input rows y0 - ph .. y0 + rows - 1 + (KH - 1 - ph), each shifted by kw - pw,
 * with zeros where the shift leaves the map and zero rows above and below it. Tap (kh, kw) of
 * output pixel (y, x) is then element (y + kh) W + x of row (ci, kw): the taps of one kernel
 * row kh are these rows read from offset kh W on, so one copy per kw serves all KH kernel
 * rows, where the im2col matrix copies the input once per tap (KH KW times). */
static void shift_rows(const conv_opts_t *o, const char *in, char *q, int b, int c0, int c1)
{
    const int ph = (o->kh - 1) / 2, pw = (o->kw - 1) / 2, y0 = conv_row0(o, b);
    const int span = conv_rows(o, b) + o->kh - 1, W = o->W;
    const size_t esz = o->esz, rowbytes = (size_t)W * esz;
    for (int ci = c0; ci < c1; ci++)
        for (int kw = 0; kw < o->kw; kw++) {
            int dx = kw - pw, x0 = dx < 0 ? (-dx < W ? -dx : W) : 0;
            int x1 = dx > 0 ? W - dx : W; /* the input row covers output x in [x0, x1) */
            x1 = x1 < x0 ? x0 : x1;
            for (int r = 0; r < span; r++, q += rowbytes) {
                int iy = y0 - ph + r;
                if (iy < 0 || iy >= o->H) {
                    memset(q, 0, rowbytes);
                    continue;
                }
                int ib = iy / o->chunk;
                const char *src =
                    in +
                    (conv_piece(o, o->cin, ib, ci) + (size_t)(iy - conv_row0(o, ib)) * W) * esz;
                memset(q, 0, (size_t)x0 * esz);
                memcpy(q + (size_t)x0 * esz, src + (size_t)(x0 + dx) * esz,
                       (size_t)(x1 - x0) * esz);
                memset(q + (size_t)x1 * esz, 0, (size_t)(W - x1) * esz);
            }
        }
}

/* The gemms run over panels of input channels, each of about PANEL_ROWS rows (ci, kw), each
 * panel's shifted copies just before its KH gemms: the panel is still in cache when the gemms
 * pack it, where the copies of a whole block would go to memory and back. */
#define PANEL_ROWS 384

int conv_panel(const conv_opts_t *o)
{
    int c = PANEL_ROWS / o->kw;
    return c < 1 ? 1 : c > o->cin ? o->cin : c;
}

size_t conv_shift_elems(const conv_opts_t *o, int b, int channels)
{
    return (size_t)channels * o->kw * (conv_rows(o, b) + o->kh - 1) * o->W;
}

void conv_block(const conv_opts_t *o, const conv_group_t *g, int layer, const void *in, void *out,
                int b)
{
    const int n = conv_rows(o, b) * o->W, step = conv_panel(o), lda = o->cin * o->kw;
    const int ldb = (conv_rows(o, b) + o->kh - 1) * o->W;
    if (g->nc == 0) /* more ranks than kernels */
        return;
    char *c = (char *)out + conv_piece(o, o->kout, b, g->c0) * o->esz;
    for (int c0 = 0; c0 < o->cin; c0 += step) {
        int c1 = c0 + step < o->cin ? c0 + step : o->cin;
        shift_rows(o, in, g->col, b, c0, c1);
        for (int kh = 0; kh < o->kh; kh++) {
            /* weights of kernel row kh: nc x (CIN KW), columns (c0, 0) .. (c1 - 1, KW - 1) */
            const char *a = (const char *)g->w[layer] +
                            ((size_t)kh * g->nc * lda + (size_t)c0 * o->kw) * o->esz;
            app_blas_gemm(o->prec, g->nc, n, (c1 - c0) * o->kw, a, lda,
                          g->col + (size_t)kh * o->W * o->esz, ldb, c0 || kh ? 1.0 : 0.0, c, n);
        }
    }
}

/* A layer's output at sampled points against the convolution summed tap by tap in double, the
 * weights drawn from their seeds: a check that shares nothing with conv_block but the layout.
 * Small layers are checked whole; larger ones at DIRECT_POINTS hashed points and every map's
 * four corners (where the padding is). Adds to @p bad the points off by more than @p tol
 * relative to the largest |output| checked, and returns that relative error. */
#define DIRECT_POINTS 2048
static double direct_error(const conv_opts_t *o, app_t *h, int layer, const void *in,
                           const void *out, double tol, uint64_t *bad)
{
    const int ph = (o->kh - 1) / 2, pw = (o->kw - 1) / 2;
    const uint64_t map = (uint64_t)o->H * o->W, all = (uint64_t)o->kout * map;
    const uint64_t points = all <= 4 * DIRECT_POINTS ? all : DIRECT_POINTS + 4 * (uint64_t)o->kout;
    double *got = app_alloc(h, points * sizeof(double), "the direct check");
    double *want = app_alloc(h, points * sizeof(double), "the direct check");
    double top = 0, err = 0;
    for (uint64_t p = 0; p < points; p++) {
        int co, y, x;
        if (points == all || p < DIRECT_POINTS) { /* every point, or a hashed one */
            uint64_t r = points == all ? p : app_rand_at(h->seed ^ UINT64_C(0xd1ec7), p) % all;
            co = (int)(r / map), y = (int)(r % map / (uint64_t)o->W), x = (int)(r % o->W);
        } else {
            uint64_t q = p - DIRECT_POINTS;
            co = (int)(q / 4), y = q & 1 ? o->H - 1 : 0, x = q & 2 ? o->W - 1 : 0;
        }
        double sum = 0;
        for (int ci = 0; ci < o->cin; ci++)
            for (int kh = 0; kh < o->kh; kh++) {
                int iy = y + kh - ph, ib = iy / o->chunk;
                if (iy < 0 || iy >= o->H)
                    continue;
                size_t row = conv_piece(o, o->cin, ib, ci) + (size_t)(iy - conv_row0(o, ib)) * o->W;
                for (int kw = 0; kw < o->kw; kw++) {
                    int ix = x + kw - pw;
                    if (ix < 0 || ix >= o->W)
                        continue;
                    double w = weight_at(o, h->seed, layer, co, ci, kh, kw);
                    if (o->prec == APP_BLAS_SINGLE) /* the weight as the gemm has it */
                        w = (float)w;
                    sum += w * app_blas_at(o->prec, in, row + (size_t)ix);
                }
            }
        int yb = y / o->chunk;
        want[p] = sum;
        got[p] = app_blas_at(o->prec, out,
                             conv_piece(o, o->kout, yb, co) +
                                 (size_t)(y - conv_row0(o, yb)) * o->W + (size_t)x);
        top = fmax(top, fabs(sum));
    }
    for (uint64_t p = 0; p < points; p++) {
        double e = fabs(got[p] - want[p]) / (top > 0 ? top : 1);
        if (!(e <= tol)) /* NaN counts */
            (*bad)++, e = isnan(e) ? INFINITY : e;
        err = fmax(err, e);
    }
    free(got), free(want);
    return err;
}

void conv_forward_local(const conv_opts_t *o, const conv_group_t *g, const void *in, void *out,
                        void *tmp, const conv_check_t *check)
{
    for (int l = 0; l < o->layers; l++) {
        /* the last layer writes out, the ones before alternate so that it does */
        void *dst = (o->layers - 1 - l) % 2 ? tmp : out;
        const void *src = l == 0 ? in : dst == out ? tmp : out;
        for (int b = 0; b < o->blocks; b++)
            conv_block(o, g, l, src, dst, b);
        if (check) {
            double e = direct_error(o, check->h, l, src, dst, check->tol, check->bad);
            *check->err = fmax(*check->err, e);
        }
    }
}

double conv_ops(const conv_opts_t *o)
{
    return 2.0 * o->kh * o->kw * o->cin * o->kout * o->H * o->W * o->layers;
}

void conv_verify_report(app_t *h, const conv_opts_t *o, void *out)
{
    if (h->corrupt && h->me == h->nranks - 1)
        put_value(o, out, conv_elems(o, o->kout) / 2, 1.0);
    conv_group_t all;
    conv_group_setup(h, o, 1, 0, &all);
    void *in = conv_input(h, o);
    void *ref = app_alloc(h, conv_out_bytes(o), "the reference maps");
    void *tmp = app_alloc(h, conv_out_bytes(o), "the reference maps");
    uint64_t bad, direct_bad = 0;
    double tol = o->prec == APP_BLAS_SINGLE ? 1e-5 : 1e-12, direct_err = 0;
    conv_check_t check = {h, tol, &direct_bad, &direct_err};
    conv_forward_local(o, &all, in, ref, tmp, &check);
    double err = app_blas_rel_error(o->prec, out, 0, ref, 0, 1, conv_elems(o, o->kout), tol, &bad);
    bad += direct_bad, err = fmax(err, direct_err);
    char what[160];
    snprintf(what, sizeof(what),
             "the maps differ from the one-rank forward pass, or it from the convolution summed "
             "tap by tap, by more than %g",
             tol);
    app_verdict(h, bad, err, what);
    double gops = h->t.median > 0 ? conv_ops(o) / h->t.median * 1e-9 : 0;
    app_report(h, "variant=%s maps=%dx%d kernels=%s layers=%d chunk=%d prec=%s GOPS=%.4f",
               o->variant, o->H, o->W, o->kernels, o->layers, o->chunk, o->precision, gops);
    for (int l = 0; l < o->layers; l++)
        free(all.w[l]);
    free(all.w), free(all.col), free(in), free(ref), free(tmp);
}
