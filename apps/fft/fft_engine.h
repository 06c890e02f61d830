/**
 * @file fft_engine.h
 * @brief The distributed 3-D complex FFT on meshmem (DataVortex §5): 1-D FFTs by FFTW, global
 * transposes as one-step all-to-alls written by the senders, pipelined by chunks of planes.
 *
 * Ranks form a grid pr x pc (rank = row * pc + col); the slab decomposition is pr = ranks,
 * pc = 1. Layouts (z contiguous; X(r) = block r of n0 over pr, Y(c) of n1 over pc, Z(c) of n2
 * over pc, Y'(r) of n1 over pr):
 *   L0  input       [X(row)][Y(col)][n2]
 *   L1  pencil only [X(row)][n1][Z(col)]
 *   L2  output      [Y'(row)][n0][Z(col)]   (FFTW-MPI's FFTW_MPI_TRANSPOSED_OUT for pc = 1)
 * Forward, slab:   per x-plane a 2-D FFT (y, z), rows sent to their y owner -> L2; x-FFTs.
 * Forward, pencil: per x-plane z-FFTs, rows split by z among the row's ranks -> L1; per x-plane
 *                  y-FFTs, rows sent to their y owner among the column's ranks -> L2; x-FFTs.
 * Inverse: the same stages backwards, L2 -> (L1 ->) L0.
 *
 * A stage transforms CHUNK planes at a time into a private chunk buffer (it stays in cache)
 * and at once writes each destination's rows of those planes straight into the destination's
 * symmetric buffer: through meshmem_ptr where the peer is mapped, else meshmem_put. One
 * meshmem_put_signal per destination and chunk (SIGNAL_ADD 1, after a meshmem_fence) tells it
 * that chunk arrived: the one-step all-to-all (every rank writes every destination directly,
 * one flag per peer), cut into chunks so that the transpose of a chunk overlaps the FFTs of
 * the next where puts are asynchronous, and no rank waits for a chunk it does not need yet.
 * A stage whose planes are its predecessor's (the pencil's y-FFTs after the z split: the
 * row's ranks share the x-planes) waits chunk by chunk; after a transpose to the other axis it
 * waits for every chunk, since each of its planes holds rows of every source plane.
 *
 * Signals are counters that only grow (chunks received per stage and source since setup);
 * each rank knows how many to expect. Destination buffers alternate by run parity: a rank
 * that finished run k has received run k's rows from every peer of its teams, so every peer
 * had finished run k-1 and the buffers of parity k+1 are free: back-to-back runs need no
 * handshake.
 */
#ifndef FFT_ENGINE_H
#define FFT_ENGINE_H

#include "fft_data.h"

#include <stddef.h>
#include <stdint.h>

struct fft_stage;

/** Parameters of fft_setup. */
typedef struct {
    int n[3];       /**< n0 (x), n1 (y), n2 (z) */
    int single;     /**< float instead of double */
    int pr, pc;     /**< rank grid (pr * pc = ranks; pc = 1 is the slab) */
    int chunk;      /**< planes per chunk (0: all of a rank's planes at once) */
    unsigned flags; /**< FFTW planner flags (FFTW_MEASURE, ...) */
} fft_params_t;

/** One rank's distributed FFT. */
typedef struct {
    fft_params_t p;
    int me, row, col;            /**< world rank, grid coordinates */
    size_t es;                   /**< bytes per element */
    int x0, nx, y0, ny;          /**< L0: this rank's x and y blocks */
    int z0, nz;                  /**< L1, L2: this rank's z block */
    int yt0, nyt;                /**< L2: this rank's y block (over pr) */
    void *in;                    /**< L0 input (symmetric: the inverse writes here) */
    void *mid[2];                /**< L1 by run parity (pencil) */
    void *out[2];                /**< L2 by run parity */
    uint64_t *sig;               /**< symmetric [stage][world rank] chunk counters */
    uint64_t *expect;            /**< [stage][world rank]: counter values awaited */
    void *chunkbuf;              /**< private: the transformed planes of one chunk */
    struct fft_stage *fwd, *inv; /**< stage lists, FFT_STAGES each */
    int nfwd, ninv;
    uint64_t runs; /**< forward runs so far: the parity of the next */
} fft_job_t;

/** @return the symmetric heap bytes per rank fft_setup needs for @p p on @p nranks ranks. */
size_t fft_heap_bytes(const fft_params_t *p, int nranks);

/** @brief The grid for @p nranks: @p want_pc columns when > 0, else the most square pr >= pc. */
void fft_grid(int nranks, int want_pc, int *pr, int *pc);

/** @brief Allocate the buffers and plan every stage (collective). The planner (FFTW_MEASURE)
 * writes into the buffers: fill job->in afterwards. @return 0, or -1 when out of memory. */
int fft_setup(fft_job_t *job, const fft_params_t *p);

/** @brief Forward transform of job->in (collective); @return the result, L2 layout, valid
 * until the run after next. job->in is left unchanged. */
void *fft_forward(fft_job_t *job);

/** @brief Inverse transform (not divided by N) of @p src (L2, e.g. fft_forward's result) into
 * job->in (collective, from a barrier: no forward run may be in flight). */
void fft_inverse(fft_job_t *job, const void *src);

/** @brief Free everything (collective). */
void fft_free(fft_job_t *job);

#endif /* FFT_ENGINE_H */
