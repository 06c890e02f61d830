/**
 * @file app_common.h
 * @brief Small helpers shared by the case-study applications and their OpenMPI twins: a
 * monotonic clock, a deterministic counter-based generator (the same input on every runtime and
 * rank count), median of a few timings, and fatal errors; src/util's count parser and most
 * square grid come with it. Header-only and runtime-independent, so that the meshmem programs
 * and the mpicc-built twins include the very same code.
 */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm_grid.h" /* mm_grid_most_square: the process grids */
#include "mm_size.h" /* mm_parse_size: counts such as 16M or 2^24 */

/** @return seconds on a monotonic clock. */
static inline double app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/** @brief splitmix64: a 64-bit mix of @p x; input i of a stream is app_mix(seed ^ i * golden). */
static inline uint64_t app_mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/** @return the @p i-th value of the random stream @p seed: independent of who computes it. */
static inline uint64_t app_rand_at(uint64_t seed, uint64_t i)
{
    return app_mix(app_mix(seed) ^ (i * UINT64_C(0xd1b54a32d192ed03)));
}

/** @return a double in [0, 1) from the top 53 bits of @p r. */
static inline double app_unit(uint64_t r)
{
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

static int app_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** @return the median of @p n values (sorts them in place); 0 for n == 0. */
static inline double app_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof(double), app_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/** @return the smallest of @p n > 0 values. */
static inline double app_min(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/** @brief Write the @p n timings, comma-separated with 6 decimals, into @p buf (as many as fit
 * in @p len bytes, which must be more than 32). */
static inline void app_times_list(const double *t, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n && strlen(buf) < len - 32; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%.6f", i ? "," : "", t[i]);
}

/** @return the start of part @p k when @p n things are split in @p parts near-equal parts. */
static inline int app_part_lo(int n, int parts, int k)
{
    return (int)((long long)n * k / parts);
}

/** @return the length of part @p k of app_part_lo's split. */
static inline int app_part_len(int n, int parts, int k)
{
    return app_part_lo(n, parts, k + 1) - app_part_lo(n, parts, k);
}

/** @brief Print "PROG: message" on stderr and exit(2): bad arguments, before any rank work. */
#define APP_DIE(prog, ...)                                                                         \
    do {                                                                                           \
        fprintf(stderr, "%s: ", prog);                                                             \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(2);                                                                                   \
    } while (0)

#endif /* APP_COMMON_H */
