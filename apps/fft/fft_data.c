/*
 * Input, reference and comparisons of the 3-D FFT (fft_data.h), runtime-independent.
 */
#include "fft_data.h"

#include "../common/app_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int fft_parse_size(const char *s, int n[3])
{
    long v[3];
    char *end;
    int k = 0;
    const char *p = s;
    while (k < 3) {
        v[k] = strtol(p, &end, 10);
        if (end == p || v[k] < 1 || v[k] > (1L << 20))
            return -1;
        k++;
        if (*end != 'x')
            break;
        p = end + 1;
    }
    if (*end || (k != 1 && k != 3))
        return -1;
    for (int i = 0; i < 3; i++)
        n[i] = (int)(k == 1 ? v[0] : v[i]);
    return 0;
}

double fft_flops(const int n[3])
{
    double N = (double)n[0] * n[1] * n[2];
    return N > 1 ? 5.0 * N * log2(N) : 0.0;
}

void fft_input_at(uint64_t seed, const int n[3], int x, int y, int z, double *re, double *im)
{
    uint64_t i = ((uint64_t)x * (uint64_t)n[1] + (uint64_t)y) * (uint64_t)n[2] + (uint64_t)z;
    *re = 2.0 * app_unit(app_rand_at(seed, 2 * i)) - 1.0;
    *im = 2.0 * app_unit(app_rand_at(seed, 2 * i + 1)) - 1.0;
}

void fft_fill(void *out, int single, uint64_t seed, const int n[3], int x0, int nx, int y0, int ny,
              int z0, int nz)
{
    size_t k = 0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int l = 0; l < nz; l++, k++) {
                double re, im;
                fft_input_at(seed, n, x0 + i, y0 + j, z0 + l, &re, &im);
                if (single) {
                    ((float *)out)[2 * k] = (float)re;
                    ((float *)out)[2 * k + 1] = (float)im;
                } else {
                    ((double *)out)[2 * k] = re;
                    ((double *)out)[2 * k + 1] = im;
                }
            }
}

fftw_complex *fft_reference(uint64_t seed, const int n[3], int single)
{
    size_t N = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    fftw_complex *in = fftw_malloc(N * sizeof(fftw_complex));
    fftw_complex *out = fftw_malloc(N * sizeof(fftw_complex));
    if (!in || !out) {
        fftw_free(in);
        fftw_free(out);
        return NULL;
    }
    fft_fill(in, 0, seed, n, 0, n[0], 0, n[1], 0, n[2]);
    if (single)
        for (size_t i = 0; i < 2 * N; i++)
            ((double *)in)[i] = (double)(float)((double *)in)[i];
    fftw_plan p = fftw_plan_dft_3d(n[0], n[1], n[2], in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    fftw_free(in);
    return out;
}

static inline void load(const void *p, int single, size_t k, double *re, double *im)
{
    if (single) {
        *re = ((const float *)p)[2 * k];
        *im = ((const float *)p)[2 * k + 1];
    } else {
        *re = ((const double *)p)[2 * k];
        *im = ((const double *)p)[2 * k + 1];
    }
}

static inline void add_err(fft_err_t *e, double re, double im, double rre, double rim)
{
    double d2 = (re - rre) * (re - rre) + (im - rim) * (im - rim);
    e->diff2 += d2;
    e->ref2 += rre * rre + rim * rim;
    double d = sqrt(d2);
    if (!(d <= e->maxabs)) /* NaN: infinity */
        e->maxabs = d == d ? d : INFINITY;
}

void fft_compare_yxz(fft_err_t *e, const void *piece, int single, const fftw_complex *ref,
                     const int n[3], int y0, int ny, int x0, int nx, int z0, int nz)
{
    size_t k = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int l = 0; l < nz; l++, k++) {
                size_t r = ((size_t)(x0 + i) * (size_t)n[1] + (size_t)(y0 + j)) * (size_t)n[2] +
                           (size_t)(z0 + l);
                double re, im;
                load(piece, single, k, &re, &im);
                add_err(e, re, im, ref[r][0], ref[r][1]);
            }
}

void fft_compare_input(fft_err_t *e, const void *piece, int single, double scale, uint64_t seed,
                       const int n[3], int x0, int nx, int y0, int ny, int z0, int nz)
{
    size_t k = 0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int l = 0; l < nz; l++, k++) {
                double re, im, rre, rim;
                load(piece, single, k, &re, &im);
                fft_input_at(seed, n, x0 + i, y0 + j, z0 + l, &rre, &rim);
                if (single) { /* the float run transformed the rounded input */
                    rre = (float)rre;
                    rim = (float)rim;
                }
                add_err(e, re, im, rre * scale, rim * scale);
            }
}

double fft_rel_error(const fft_err_t *e)
{
    if (isnan(e->diff2) || isnan(e->ref2) || isinf(e->maxabs))
        return INFINITY;
    return e->ref2 > 0 ? sqrt(e->diff2 / e->ref2) : sqrt(e->diff2);
}

int fft_planner_flags(const char *name, unsigned *flags)
{
    static const struct {
        const char *name;
        unsigned flags;
    } table[] = {{"estimate", FFTW_ESTIMATE}, {"measure", FFTW_MEASURE}, {"patient", FFTW_PATIENT}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (!strcmp(name, table[i].name)) {
            *flags = table[i].flags;
            return 0;
        }
    return -1;
}

int fft_judge(int single, double err_fwd, double err_rt, double *worst, char *what, size_t len)
{
    double tol = single ? FFT_TOL_FLOAT : FFT_TOL_DOUBLE;
    *worst = err_fwd > err_rt || err_fwd != err_fwd ? err_fwd : err_rt;
    snprintf(what, len,
             "relative error %.3g against serial FFTW, %.3g after the round trip "
             "(tolerance %g)",
             err_fwd, err_rt, tol);
    return *worst <= tol;
}

void fft_corrupt(void *piece, int single, size_t count)
{
    if (count == 0)
        return;
    size_t k = count / 2;
    if (single)
        ((float *)piece)[2 * k] += 1.0f;
    else
        ((double *)piece)[2 * k] += 1.0;
}
