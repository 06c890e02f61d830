/**
 * @file mm_grid.h
 * @brief The most square 2-D grid of n ranks: the one factorisation behind the GHC topology's
 * default (meshmem_topology_square) and the applications' process grids (gemm's SUMMA, fft's
 * pencils, shallow's 2-D blocks, sort's GHC variant). Header-only, libc only (mm_size.h says
 * why src/util is so).
 */
#ifndef MM_GRID_H
#define MM_GRID_H

/**
 * @brief The most square @p long_side x @p short_side = @p n: @p short_side the largest
 * divisor of @p n at most sqrt(n), @p long_side = n / short_side (so long_side >= short_side;
 * a prime n gives n x 1). For n < 1 both are 1.
 */
static inline void mm_grid_most_square(int n, int *long_side, int *short_side)
{
    int best = 1;
    for (int d = 1; (long long)d * d <= n; d++)
        if (n % d == 0)
            best = d;
    *short_side = best;
    *long_side = n < 1 ? 1 : n / best;
}

#endif /* MM_GRID_H */
