/**
 * @file fft_data.h
 * @brief What the distributed 3-D FFTs transform and how they are checked, independent of the
 * runtime (compiled into the meshmem program and into its FFTW-MPI twin alike).
 *
 * The array is n0 x n1 x n2 complex numbers (x, y, z; z contiguous), double or float. Element
 * (x, y, z) is a deterministic complex number in [-1, 1)^2 from (seed, x, y, z), so every rank
 * generates its own part and rank 0 the whole array for the reference.
 *
 * Verification: rank 0 transforms the whole input with serial FFTW (in double, FFTW_ESTIMATE)
 * and compares every rank's part of the distributed result with it: the relative error is
 * ||y - ref||_2 / ||ref||_2 over the whole array; the round trip (forward, then inverse, divided
 * by N) is compared with the input the same way. Tolerances: FFT_TOL_DOUBLE, FFT_TOL_FLOAT.
 *
 * Flops: 5 N log2 N for N = n0 n1 n2 (the convention of FFTW's benchFFT and heFFTe's speed3d).
 */
#ifndef FFT_DATA_H
#define FFT_DATA_H

#include <fftw3.h>
#include <stddef.h>
#include <stdint.h>

/** Relative L2 error accepted in double and in float. */
#define FFT_TOL_DOUBLE 1e-10
#define FFT_TOL_FLOAT  1e-5

/** @return the first index of part @p r of @p n split into @p p nearly equal blocks. */
static inline int fft_blk_lo(int n, int p, int r)
{
    return (int)((long long)n * r / p);
}

/** @return the length of part @p r of @p n split into @p p blocks. */
static inline int fft_blk_len(int n, int p, int r)
{
    return fft_blk_lo(n, p, r + 1) - fft_blk_lo(n, p, r);
}

/** @brief Parse "n" (a cube) or "n0xn1xn2" into @p n. @return 0, or -1 when malformed or a
 * dimension is below 1 or above 2^20. */
int fft_parse_size(const char *s, int n[3]);

/** @return 5 N log2 N for the array @p n. */
double fft_flops(const int n[3]);

/** @brief Element (x, y, z) of the input of @p seed for array @p n: @p re, @p im. */
void fft_input_at(uint64_t seed, const int n[3], int x, int y, int z, double *re, double *im);

/**
 * @brief Fill a block of the input: the elements (x0 + i, y0 + j, z0 + k) for i < nx, j < ny,
 * k < nz, stored [i][j][k] at @p out (float or double complex by @p single).
 */
void fft_fill(void *out, int single, uint64_t seed, const int n[3], int x0, int nx, int y0, int ny,
              int z0, int nz);

/**
 * @brief The reference: the forward transform of the whole input by serial FFTW in double
 * (FFTW_ESTIMATE), natural layout [x][y][z]. The input is rounded to float first when
 * @p single, so that the reference transforms exactly what the float runs transform.
 * @return fftw_malloc'ed memory (fftw_free it), or NULL when out of memory.
 */
fftw_complex *fft_reference(uint64_t seed, const int n[3], int single);

/** Error sums of a comparison: add pieces, then fft_rel_error. */
typedef struct {
    double diff2;  /**< sum of |y - ref|^2 */
    double ref2;   /**< sum of |ref|^2 */
    double maxabs; /**< largest |y - ref| (NaN counts as infinity) */
} fft_err_t;

/**
 * @brief Compare a piece stored [y - y0][x - x0][z - z0] (the transposed layout of the
 * forward output: @p ny x @p nx x @p nz) with the reference @p ref (natural layout of @p n).
 */
void fft_compare_yxz(fft_err_t *e, const void *piece, int single, const fftw_complex *ref,
                     const int n[3], int y0, int ny, int x0, int nx, int z0, int nz);

/**
 * @brief Compare a piece stored [x - x0][y - y0][z - z0] with the input times @p scale (the
 * round trip: inverse of forward, not divided by N).
 */
void fft_compare_input(fft_err_t *e, const void *piece, int single, double scale, uint64_t seed,
                       const int n[3], int x0, int nx, int y0, int ny, int z0, int nz);

/** @return sqrt(diff2 / ref2), infinity when the sums hold a NaN, 0 for an empty array. */
double fft_rel_error(const fft_err_t *e);

/** @brief The planner flags named @p name (estimate, measure, patient) into @p flags.
 * @return 0, or -1 for another name. */
int fft_planner_flags(const char *name, unsigned *flags);

/**
 * @brief The verdict of a run: the larger of the forward error @p err_fwd and the round trip's
 * @p err_rt into @p worst, and a sentence for a failure into @p what.
 * @return 1 when both are within the tolerance of the precision.
 */
int fft_judge(int single, double err_fwd, double err_rt, double *worst, char *what, size_t len);

/** @brief Damage one element of a non-empty piece of @p count elements (the verifier test). */
void fft_corrupt(void *piece, int single, size_t count);

#endif /* FFT_DATA_H */
