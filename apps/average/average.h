/**
 * @file average.h
 * @brief Sharing averaged parameters (seed 000 §3.C, §4.D) on meshmem: every rank holds a
 * float32 vector; afterwards every rank holds the element-wise mean over all ranks.
 *
 *  naive       3 steps (Fig. 6a): all-to-all (each rank copies its slice of every peer's
 *              vector out of the peer's symmetric heap into a buffer); the averaging pass reads
 *              the buffer and writes the rank's slice of the mean; all-gather (each rank copies
 *              every peer's averaged slice out of the peer's heap).
 *  aggressive  2 steps (Fig. 6b): each rank averages its slice as it reads it from the peers'
 *              heaps (no buffer: the data goes straight into the averaging), then all-gather.
 * Steps are separated by OPTWEB's one-cycle block signal: put_signal of the run's sequence
 * number into a per-peer flag (own cache line), waited for with a short spin, then yields.
 * On a GHC (r = 2) the flow runs among the ranks of a row (x), then among those of a column
 * (y), on the row's means: twice the steps (seed 000 §3.C).
 * The vector is padded to a multiple of the ranks so that every rank owns an equal slice.
 */
#ifndef AVERAGE_H
#define AVERAGE_H

#include <meshmem.h>
#include <stddef.h>
#include <stdint.h>

/** The two approaches of seed 000 Fig. 6. */
typedef enum { AVG_NAIVE, AVG_AGGRESSIVE } avg_algo_t;

/** Buffers of one averaging job, in the symmetric heap. */
typedef struct {
    size_t count;          /**< parameters per rank */
    float *x;              /**< the parameters (input, padded) */
    float *res;            /**< the mean (output, padded) */
    float *buf;            /**< naive: the all-to-all buffer */
    float *mid;            /**< GHC: the row means (phase 1's result) */
    size_t padded;         /**< count rounded up to a multiple of the ranks */
    meshmem_team_t teams[2]; /**< full mesh: {world}; GHC: {x axis, y axis} */
    int nteams;
    uint64_t *flags;       /**< symmetric [kind][world rank][8]: block signals (sequence numbers) */
    uint64_t seq;          /**< runs so far: the value of this run's signals */
    unsigned spin;         /**< polls before a wait starts yielding the core */
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
