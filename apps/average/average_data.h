/**
 * @file average_data.h
 * @brief Input and verifier of the parameter averaging, shared by the meshmem program and its
 * OpenMPI twin (header-only, runtime-independent).
 *
 * Rank r's parameter e is a deterministic float in [-1, 1) from (seed, r, e). The reference of
 * element e is the float64 mean over ranks; a float32 result passes when it is within
 * AVG_TOL of it (a few float32 roundings of sums of numbers below 1 in magnitude).
 */
#ifndef AVERAGE_DATA_H
#define AVERAGE_DATA_H

#include "../common/app_common.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/** Absolute tolerance against the float64 reference. */
#define AVG_TOL 1e-5

/** @return rank @p r's parameter @p e. */
static inline float avg_param(uint64_t seed, int r, size_t e)
{
    return (float)(2.0 * app_unit(app_rand_at(seed + (uint64_t)r * UINT64_C(0x1000003), e)) - 1.0);
}

/** @brief Fill rank @p r's @p count parameters. */
static inline void avg_fill(float *x, size_t count, uint64_t seed, int r)
{
    for (size_t e = 0; e < count; e++)
        x[e] = avg_param(seed, r, e);
}

/**
 * @brief Compare @p res with the float64 mean over @p nranks ranks.
 * @return the number of elements out of tolerance; *worst gets the largest error.
 */
static inline size_t avg_check(const float *res, size_t count, uint64_t seed, int nranks,
                               double *worst)
{
    size_t bad = 0;
    *worst = 0;
    for (size_t e = 0; e < count; e++) {
        double ref = 0;
        for (int r = 0; r < nranks; r++)
            ref += (double)avg_param(seed, r, e);
        ref /= nranks;
        double err = fabs((double)res[e] - ref);
        if (!(err <= AVG_TOL)) /* NaN counts as bad */
            bad++;
        if (err > *worst || err != err)
            *worst = err;
    }
    return bad;
}

/* 4 floats: GCC vector extensions, so the kernels below are vectorised at -O2 (GCC 12's
 * "very cheap" model leaves loops of unknown length scalar) with the same code in both twins */
typedef float avg_v4 __attribute__((vector_size(16)));

static inline avg_v4 avg_ld(const float *p)
{
    avg_v4 v;
    memcpy(&v, p, sizeof(v)); /* unaligned load */
    return v;
}

static inline void avg_st(float *p, avg_v4 v)
{
    memcpy(p, &v, sizeof(v));
}

/**
 * @brief The averaging pass: out[i] = (src[0][i] + src[1][i] + ... + src[n-1][i]) * scale for
 * i < count, summed in source order (equal inputs give equal bits on every rank), reading each
 * source once and writing out once: the reduction and the division by N are one memory pass.
 * @p out must not overlap a source.
 */
static inline void avg_mean_into(float *out, const float *const *src, int nsrc, size_t count,
                                 float scale)
{
    size_t i = 0;
    const avg_v4 s = {scale, scale, scale, scale};
    for (; i + 8 <= count; i += 8) {
        avg_v4 a = avg_ld(src[0] + i), b = avg_ld(src[0] + i + 4);
        for (int k = 1; k < nsrc; k++) {
            a += avg_ld(src[k] + i);
            b += avg_ld(src[k] + i + 4);
        }
        avg_st(out + i, a * s);
        avg_st(out + i + 4, b * s);
    }
    for (; i < count; i++) {
        float a = src[0][i];
        for (int k = 1; k < nsrc; k++)
            a += src[k][i];
        out[i] = a * scale;
    }
}

/** @brief x[i] *= scale for i < count (the MPI twin's division after MPI_Allreduce). */
static inline void avg_scale(float *x, size_t count, float scale)
{
    const float *src[1] = {x};
    avg_mean_into(x, src, 1, count, scale); /* element-wise in place: no overlap hazard */
}

#endif /* AVERAGE_DATA_H */
