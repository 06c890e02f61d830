/**
 * @file gemm_data.h
 * @brief What the distributed GEMM of FSHMEM §V (`gemm`) and its OpenMPI twin (`gemm_mpi`)
 * share: the command line, the blocks, the input (a function of the global indices: the same
 * on every rank count and runtime), the local multiply (OpenBLAS, one thread per rank) and
 * the verification of a block of C against the one-rank product of the same rows and columns.
 *
 * C = A B, A is M x K, B is K x N, row-major doubles. Variants:
 *   stream  FSHMEM Fig. 6 generalised to P ranks: K split in P parts; rank p holds A[:, Kp]
 *           and B[Kp, :] and computes the partial products of every row block of C, chunk by
 *           chunk (-b rows), each chunk sent to the block's owner while the next is computed
 *           (the paper's automatic result transfer); the owner sums the P partials in rank order
 *   summa   SUMMA on a pr x pc grid: C, A and B in 2-D blocks; per panel of K, the A panel
 *           broadcast along the grid row, the B panel along the grid column, a local multiply
 *   serial  one rank, one dgemm (the one-rank baseline)
 * Verification: every rank compares its block of C with A[its rows, :] B[:, its columns]
 * computed by one dgemm here (relative error max |C - ref| / max |ref| <= 1e-12; the partial
 * sums add in another order, so not bitwise).
 */
#ifndef GEMM_DATA_H
#define GEMM_DATA_H

#include "../common/app_blas.h"
#include "../common/app_harness.h"

#include <stddef.h>

/** The command line of both programs. */
typedef struct {
    const char *size;    /**< -N M or MxNxK */
    const char *variant; /**< -v */
    int chunk;           /**< -b rows per streamed chunk */
    int panel;           /**< -k SUMMA panel width (0: K split in P panels) */
    int heap_ranks;      /**< -H RANKS: print the symmetric heap a run needs (meshmem only) */
    int M, N, K;
} gemm_opts_t;

/** @brief Parse the command line (variants in @p variants, comma-separated, the first the
 * default); exits 2 on a bad option. */
void gemm_parse(app_t *h, gemm_opts_t *o, const char *synopsis, const char *variants, int argc,
                char **argv);

/** @brief A[r0 .. r0+nr, c0 .. c0+nc) into @p out (leading dimension @p ld). */
void gemm_fill_a(uint64_t seed, const gemm_opts_t *o, int r0, int nr, int c0, int nc, double *out,
                 int ld);

/** @brief B[r0 .. r0+nr, c0 .. c0+nc) into @p out (leading dimension @p ld). */
void gemm_fill_b(uint64_t seed, const gemm_opts_t *o, int r0, int nr, int c0, int nc, double *out,
                 int ld);

/** @brief C (+)= A B for row-major blocks of doubles (app_blas_gemm): @p beta 0 or 1. */
static inline void gemm_multiply(int m, int n, int k, const double *a, int lda, const double *b,
                                 int ldb, double beta, double *c, int ldc)
{
    app_blas_gemm(APP_BLAS_DOUBLE, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

/**
 * @brief The relative error of block C[r0 .. r0+nr, c0 .. c0+nc) (@p c, leading dimension
 * @p ldc) against one dgemm of the same rows and columns over the whole K. @p bad counts the
 * elements off by more than 1e-12 of the largest. @return the relative error, or -1 when out
 * of memory.
 */
double gemm_block_error(uint64_t seed, const gemm_opts_t *o, int r0, int nr, int c0, int nc,
                        const double *c, int ldc, uint64_t *bad);

/** SUMMA's grid, this rank's block of C and the K panels it owns. */
typedef struct {
    int pr, pc, x, y;      /**< grid pr x pc (pc <= pr, most square); this rank (x, y) */
    int r0, nr, c0, nc;    /**< this rank's rows and columns of C */
    int T, maxkt;          /**< panels of K, the widest */
    double **apan, **bpan; /**< [T]: A[rows, panel t] when t % pc == x, B[panel t, cols] when
                                  t % pr == y; NULL otherwise */
} gemm_summa_t;

/** @brief SUMMA's grid and panels on @p P ranks (pr, pc, T, maxkt; the rest zero). */
void gemm_summa_grid(const gemm_opts_t *o, int P, gemm_summa_t *s);

/** @brief SUMMA's layout for rank @p me of @p P, its own panels filled from the input: one
 * after the other from @p a_store and @p b_store when given (room for the panels of
 * gemm_summa_grid's counts), else each in memory of its own. */
void gemm_summa_setup(app_t *h, const gemm_opts_t *o, int P, int me, gemm_summa_t *s,
                      double *a_store, double *b_store);

/** @brief The stream variant's input of rank @p me of @p P: K part [*k0, *k0 + *kp), A[:, part]
 * in *@p a (M x kp), B[part, :] in *@p b (kp x N). */
void gemm_stream_inputs(app_t *h, const gemm_opts_t *o, int P, int me, int *kp, double **a,
                        double **b);

/** @brief c = the sum of the @p P partials (@p n doubles each, @p stride apart in @p slots), in
 * rank order: the same result whatever order they arrived in. */
void gemm_sum_partials(double *c, const double *slots, int P, size_t stride, size_t n);

/** @brief After the timed runs (collective): -C damages this block on the last rank, the
 * verdict of block C[r0 .. r0+nr, c0 .. c0+nc) (@p c, nc wide) against the one-rank product,
 * and the result line with GOPS. */
void gemm_verify_report(app_t *h, const gemm_opts_t *o, int r0, int nr, int c0, int nc, double *c);

/** @return the operations of the product: 2 M N K. */
double gemm_ops(const gemm_opts_t *o);

#endif /* GEMM_DATA_H */
