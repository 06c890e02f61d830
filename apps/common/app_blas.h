/**
 * @file app_blas.h
 * @brief What the applications that multiply with OpenBLAS (gemm, conv) and their OpenMPI
 * twins share: one BLAS thread per rank, a row-major multiply in single or double precision,
 * and the comparison of a result with the one-rank reference. Runtime-independent: built into
 * mm_app_blas for the meshmem programs and compiled by mpicc into the twins.
 */
#ifndef APP_BLAS_H
#define APP_BLAS_H

#include <stddef.h>
#include <stdint.h>

/** Element types of app_blas_gemm and app_blas_rel_error. */
typedef enum { APP_BLAS_DOUBLE, APP_BLAS_SINGLE } app_blas_prec_t;

/** @return the bytes of one element of @p prec. */
static inline size_t app_blas_size(app_blas_prec_t prec)
{
    return prec == APP_BLAS_SINGLE ? sizeof(float) : sizeof(double);
}

/** @return element @p i of @p p, of @p prec elements, as a double. */
static inline double app_blas_at(app_blas_prec_t prec, const void *p, size_t i)
{
    return prec == APP_BLAS_SINGLE ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/** @brief One thread per rank for OpenBLAS: the ranks are the parallelism. */
void app_blas_one_thread(void);

/**
 * @brief C = A B + @p beta C for row-major blocks of @p prec elements (OpenBLAS sgemm or
 * dgemm): C is @p m x @p n, A @p m x @p k, B @p k x @p n. An empty product (@p m or @p n 0)
 * does nothing; an empty sum (@p k 0, more ranks than K) sets C to 0 when @p beta is 0.
 */
void app_blas_gemm(app_blas_prec_t prec, int m, int n, int k, const void *a, int lda, const void *b,
                   int ldb, double beta, void *c, int ldc);

/**
 * @brief Compare the @p rows x @p cols block @p got (leading dimension @p ldg) with @p ref
 * (leading dimension @p ldr), both of @p prec elements. @p bad counts the elements that differ
 * by more than @p tol times the largest |ref| (a NaN counts).
 * @return max |got - ref| / max |ref| (the absolute difference when ref is all zero; NaN if
 * any element is).
 */
double app_blas_rel_error(app_blas_prec_t prec, const void *got, size_t ldg, const void *ref,
                          size_t ldr, size_t rows, size_t cols, double tol, uint64_t *bad);

#endif /* APP_BLAS_H */
