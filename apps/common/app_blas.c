/*
 * OpenBLAS for the applications (app_blas.h).
 */
#include "app_blas.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void app_blas_one_thread(void)
{
    openblas_set_num_threads(1);
}

void app_blas_gemm(app_blas_prec_t prec, int m, int n, int k, const void *a, int lda, const void *b,
                   int ldb, double beta, void *c, int ldc)
{
    if (m == 0 || n == 0)
        return;
    if (k == 0) { /* an empty sum */
        size_t row = (size_t)n * app_blas_size(prec), ld = (size_t)ldc * app_blas_size(prec);
        for (int i = 0; beta == 0.0 && i < m; i++)
            memset((char *)c + i * ld, 0, row);
        return;
    }
    if (prec == APP_BLAS_SINGLE)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
                    (float)beta, c, ldc);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, beta,
                    c, ldc);
}

double app_blas_rel_error(app_blas_prec_t prec, const void *got, size_t ldg, const void *ref,
                          size_t ldr, size_t rows, size_t cols, double tol, uint64_t *bad)
{
    double big = 0, diff = 0;
    *bad = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            big = fmax(big, fabs(app_blas_at(prec, ref, i * ldr + j)));
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double d =
                fabs(app_blas_at(prec, got, i * ldg + j) - app_blas_at(prec, ref, i * ldr + j));
            if (!(d <= tol * big))
                (*bad)++;
            diff = isnan(d) || d > diff ? d : diff;
        }
    return big > 0 ? diff / big : diff;
}
