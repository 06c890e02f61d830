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

/** @return @p s as a comma-separated list of byte sizes into @p out (at most @p max). */
static inline int avg_parse_sizes(const char *s, size_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char buf[32];
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof(buf))
            return -1;
        memcpy(buf, s, len);
        buf[len] = 0;
        long long v = app_parse_count(buf);
        if (v < 4)
            return -1;
        out[n++] = (size_t)v;
        s += len;
        if (*s == ',')
            s++;
    }
    return n;
}

#endif /* AVERAGE_DATA_H */
