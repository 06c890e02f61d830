/**
 * @file sort_engine.h
 * @brief The distributed counting sort on meshmem at each stage of OPTWEB-sort's sequence, its
 * 5-step GHC form, and the LSD radix sort built on the single-pass stage.
 *
 * The stages, as they run on a CPU (a "pass" is one read->write sweep over the records in main
 * memory, OPTWEB-sort's unit A; m counts the all-to-all passes, each moving the data once):
 *
 *  A=11  key+value, every step a pass of its own (OPTWEB-sort Fig. 2, OPTWEB Fig. 5):
 *        1 key histogram (-> counts per destination); 2 destination table from the key's upper
 *        part (one uint16 per record: the CPU's table covers the whole array, so that each step
 *        really sweeps memory; the FPGA kept 512-record tables in block RAM); 3 keys scattered
 *        by the table into per-destination regions of the symmetric heap; 4 table again; 5 the
 *        values scattered; 6 all-to-all-v of the keys, 7 of the values (meshmem_coll_alltoallv
 *        straight from the symmetric heap); 8 region table from the key's lower part; 9 keys
 *        placed into per-key regions; 10 table again; 11 values placed.       m = 2
 *  A=6   keys only: steps 1, 2, 3, 6, 8, 9 (OPTWEB-sort Fig. 4).                  m = 1
 *  A=3   one pass classifies (histogram, table and switch fused: each record is appended to
 *        its destination's region as it is read), one all-to-all-v, one placement pass
 *        (OPTWEB-sort Fig. 5). Keys only or key+value (both columns in the same sweep).  m = 1
 *  A=2   end-of-data marks replace the histogram: the classifying pass writes every record
 *        straight into the destination's symmetric receive region (a per-source area) and ends
 *        with one put_signal per destination carrying the count; receivers then place the
 *        records by the key's lower part (OPTWEB-sort Fig. 6).                     m = 1
 *  A=1   single pass (OPTWEB-sort Fig. 7): each record is read once and written once, straight
 *        into its key's region in the destination's symmetric heap (the region chosen by the
 *        key's lower part: the receiver-side write distribution, done by the sender's store
 *        into the receiver's memory, as the full mesh lets it). Regions grow by blocks taken
 *        with one remote fetch-add per 2048 records; each source ends with its regions'
 *        descriptors and an end-of-data put_signal per destination; no histogram. Stable
 *        (a region per key and source).                                            m = 1
 *  GHC   5 steps (OPTWEB §3.B): classify by destination column, all-to-all-v along x,
 *        classify by row, all-to-all-v along y, place: A = 5, m = 2.
 *  radix LSD radix sort of 32/64-bit keys: one A=1 pass per digit of log2(ranks x channels)
 *        bits; A = m = number of digits.
 *
 * Per-key regions: the A=11/6/3 and GHC forms know every key's count (the histogram, summed
 * over ranks) and write one contiguous array; A=2/1 learn counts only from end-of-data marks, so
 * each key region grows in blocks (OPTWEB: each memory channel has its own write pointer).
 */
#ifndef SORT_ENGINE_H
#define SORT_ENGINE_H

#include "sort_data.h"

#include <meshmem.h>

/** The variants of `sort -v`. */
typedef enum {
    SORT_A11,
    SORT_A6,
    SORT_A3,
    SORT_A2,
    SORT_A1,
    SORT_GHC,
    SORT_RADIX,
    SORT_SERIAL,
    SORT_VARIANT_COUNT
} sort_variant_t;

/** @return the variant named @p name ("a11", ..., "single" = a1, "3step" = a3), or -1. */
int sort_variant_parse(const char *name);
/** @return the canonical name of @p v. */
const char *sort_variant_name(sort_variant_t v);

/** Everything one rank needs to run a variant repeatedly. */
typedef struct sort_job {
    sort_variant_t variant;
    int me, nranks;
    int keybytes; /**< 4 or 8 */
    int has_vals;
    uint64_t total;   /**< records in the job */
    size_t nlocal;    /**< this rank's input records */
    size_t nmax;      /**< the largest share */
    uint64_t ndigits; /**< key types (counting) or 2^digit_bits (radix) */
    int digit_bits, ndigit_passes, keybits;
    int ghc_x, ghc_y;       /**< GHC grid (x varies fastest in the rank number) */
    int passes_A, passes_m; /**< OPTWEB-sort eq. 1 */
    sort_map_t map;
    void *in_keys; /**< input, in the symmetric heap */
    uint32_t *in_vals;
    sort_seq_t out;      /**< the result after sort_job_run */
    struct sort_work *w; /**< variant-specific buffers */
} sort_job_t;

/** Parameters of sort_job_setup. */
typedef struct {
    sort_variant_t variant;
    uint64_t total, K;
    int keybits; /**< 0: K key types; 32/64: radix */
    int has_vals;
    int channels; /**< memory channels (key regions) per rank: K <= ranks x channels */
    int ghc_x;    /**< GHC columns (0: from MESHMEM_TOPOLOGY=ghc:XxY or a near square) */
} sort_params_t;

/**
 * @brief Symmetric heap bytes per rank that @p p needs on @p nranks ranks (computed before
 * meshmem_init, so that the launcher can be given the heap).
 */
size_t sort_heap_bytes(const sort_params_t *p, int nranks);

/**
 * @brief Check @p p against @p nranks; writes the problem to @p why.
 * @return 0 when valid.
 */
int sort_params_check(const sort_params_t *p, int nranks, char *why, size_t whylen);

/** @brief Allocate everything (collective); the input is left for the caller to fill. */
void sort_job_setup(sort_job_t *j, const sort_params_t *p);

/** @brief Untimed preparation before each run (the serial radix sorts a fresh copy). */
void sort_job_prepare(sort_job_t *j);

/** @brief Sort the input into j->out (collective). The input is left unchanged. */
void sort_job_run(sort_job_t *j);

/** @brief Free what setup allocated (collective). */
void sort_job_free(sort_job_t *j);

/* the flows, one file each */
void sort_run_separate(sort_job_t *j); /**< A=11 and A=6 (sort_separate.c) */
void sort_run_fused(sort_job_t *j);    /**< A=3 (sort_fused.c) */
void sort_run_ghc(sort_job_t *j);      /**< GHC 5-step (sort_fused.c) */
void sort_run_stream(sort_job_t *j);   /**< A=2 and A=1, radix (sort_stream.c) */
void sort_run_serial(sort_job_t *j);   /**< serial baseline on one rank (sort_job.c) */

#endif /* SORT_ENGINE_H */
