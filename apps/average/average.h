/**
 * @file average.h
 * @brief Sharing averaged parameters (seed 000 §3.C, §4.D) on meshmem: every rank holds a
 * float32 vector; afterwards every rank holds the element-wise mean over all ranks.
 *
 *  naive       3 steps (Fig. 6a): all-to-all of the slices into a buffer; the averaging pass
 *              reads the buffer and writes this rank's slice of the mean; all-gather.
 *  aggressive  2 steps (Fig. 6b): each rank's slice is averaged as it arrives (a reduce-scatter
 *              that reads the peers' slices straight from their symmetric heaps, no copy
 *              first), scaled in the same step, then all-gathered.
 * On a GHC (r = 2) the flow runs among the ranks of a row (x), then among those of a column
 * (y), on the row's means: twice the steps (seed 000 §3.C).
 * The vector is padded to a multiple of the team size so that every rank owns an equal slice.
 */
#ifndef AVERAGE_H
#define AVERAGE_H

#include <meshmem.h>
#include <stddef.h>

/** The two approaches of seed 000 Fig. 6. */
typedef enum { AVG_NAIVE, AVG_AGGRESSIVE } avg_algo_t;

/** Buffers of one averaging job, in the symmetric heap. */
typedef struct {
    size_t count;          /**< parameters per rank */
    float *x;              /**< the parameters (input, padded) */
    float *res;            /**< the mean (output, padded) */
    float *buf;            /**< naive: the all-to-all buffer */
    float *slice;          /**< this rank's slice of the mean */
    size_t padded;         /**< count rounded up to a multiple of the largest team */
    meshmem_team_t teams[2]; /**< full mesh: {world}; GHC: {x axis, y axis} */
    int nteams;
} avg_job_t;

/**
 * @brief Allocate the buffers for @p count parameters (collective). @p ghc_x > 0 arranges the
 * ranks as a GHC of ghc_x columns (must divide the ranks); 0 is the full mesh.
 * @return 0, or -1 when the grid does not fit the ranks.
 */
int avg_setup(avg_job_t *a, size_t count, int ghc_x);

/** @brief Average a->x over all ranks into a->res with @p algo (collective). */
void avg_run(avg_job_t *a, avg_algo_t algo);

/** @brief Free the buffers and teams (collective). */
void avg_free(avg_job_t *a);

#endif /* AVERAGE_H */
