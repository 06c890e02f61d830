/**
 * @file average.h
 * @brief Sharing averaged parameters (OPTWEB §3.C, §4.D) on meshmem: every rank holds a
 * float32 vector; afterwards every rank holds the element-wise mean over all ranks.
 *
 *  naive       3 steps (Fig. 6a): all-to-all (each rank copies its slice of every peer's
 *              vector out of the peer's symmetric heap into a buffer); the averaging pass reads
 *              the buffer and writes the rank's slice of the mean; all-gather (each rank copies
 *              every peer's averaged slice out of the peer's heap).
 *  aggressive  2 steps (Fig. 6b): each rank averages its slice as it reads it from the peers'
 *              heaps (no buffer: the data goes straight into the averaging), then all-gather.
 *              Vectors up to AVG_ONESTEP_BYTES x ranks / 2 take OPTWEB's small-data form: every
 *              rank publishes its whole vector in its communication slot with one block signal,
 *              every rank reads all N vectors and averages them itself (one step). Below that
 *              size the two synchronisations of the sliced form cost more than moving and
 *              summing N whole vectors. The slots alternate by run parity, so a rank never
 *              waits for its readers before returning.
 * The division by N is fused into the averaging pass (one read of each input, one write).
 * Steps are separated by OPTWEB's one-cycle block signal: a store of the run's sequence
 * number into a per-peer flag (own cache line) in the peer's heap, waited for with a short
 * spin, then yields.
 * Where some member is not load/store-reachable (another host; every peer on the simulated
 * engine, meshrun --rtl), no rank reads another's heap (a read across a network is a round
 * trip, one per peer and step, one after another): each step that moves data is one of
 * the runtime's collectives, as OPTWEB runs it (one engine command each): the sliced form is
 * an all-to-all of the slices into the buffer, the averaging pass, an all-gather of the
 * averaged slices (naive and aggressive alike: the data lands in the buffer either way), and
 * the one-step form an all-gather of the whole vectors, then the mean of the N. The
 * collectives order the runs themselves: no block signal is needed.
 * On a GHC (r = 2) the flow runs among the ranks of a row (x), then among those of a column
 * (y), on the row's means: twice the steps (OPTWEB §3.C).
 * The vector is padded to a multiple of the ranks so that every rank owns an equal slice.
 */
#ifndef AVERAGE_H
#define AVERAGE_H

#include <meshmem.h>
#include <stddef.h>
#include <stdint.h>

/** The two approaches of OPTWEB Fig. 6. */
typedef enum { AVG_NAIVE, AVG_AGGRESSIVE } avg_algo_t;

/** Default largest vector (bytes per rank, per 2 ranks) of the aggressive one-step form. */
#define AVG_ONESTEP_BYTES 2048

/** One team of the flow (the full mesh, or a GHC axis). */
typedef struct {
    meshmem_team_t team;
    int size, rank; /**< team size, this rank's team rank */
    int *world;     /**< world rank of each member */
} avg_team_t;

/** Buffers of one averaging job, in the symmetric heap. */
typedef struct {
    size_t count;        /**< parameters per rank */
    float *x;            /**< the parameters (input, padded) */
    float *res;          /**< the mean (output, padded) */
    float *buf;          /**< naive: the all-to-all buffer */
    float *scratch;      /**< coll: the one-step form's gathered vectors (NULL otherwise) */
    float *mid;          /**< GHC: the row means (phase 1's result) */
    size_t padded;       /**< count rounded up to a multiple of the ranks */
    avg_team_t teams[2]; /**< full mesh: {world}; GHC: {x axis, y axis} */
    int nteams;
    uint64_t *flags;      /**< symmetric [kind][world rank][8]: block signals (sequence numbers) */
    char *area;           /**< symmetric one-step slots [team][run parity]: this rank's vector */
    size_t slot_bytes;    /**< one slot: the vector, then its flag line */
    size_t onestep_bytes; /**< one-step form up to this many bytes per rank (setup's x ranks/2) */
    int onestep;          /**< this vector takes the one-step form (aggressive) */
    int coll;             /**< some member of the job is not mapped: collectives (the same on
                               every rank) */
    uint64_t seq;         /**< runs so far: the value of this run's signals */
    unsigned spin;        /**< polls before a wait starts yielding the core */
} avg_job_t;

/**
 * @brief Allocate the buffers for @p count parameters (collective). @p ghc_x > 0 arranges the
 * ranks as a GHC of ghc_x columns (must divide the ranks); 0 is the full mesh.
 * @p onestep_bytes: the aggressive approach's one-step form up to this vector size (bytes per
 * rank) times ranks / 2 (at least 1); 0 never. The same on every rank.
 * @return 0, or -1 when the grid does not fit the ranks.
 */
int avg_setup(avg_job_t *a, size_t count, int ghc_x, size_t onestep_bytes);

/** @brief Average a->x over all ranks into a->res with @p algo (collective). a->x may be
 * changed as soon as this returns; a->res is read by peers until the next run or avg_free. */
void avg_run(avg_job_t *a, avg_algo_t algo);

/** @return the steps of one run with @p algo: 3 (naive), 2 (aggressive) or 1 (aggressive,
 * one-step form), twice that on a GHC. */
int avg_steps(const avg_job_t *a, avg_algo_t algo);

/** @brief Free the buffers and teams (collective). */
void avg_free(avg_job_t *a);

#endif /* AVERAGE_H */
