/**
 * @file sort_data.h
 * @brief Input, key map and verification of the distributed sorts, independent of the runtime
 * (compiled into the meshmem program and into its OpenMPI twin alike).
 *
 * Records are columns (OPTWEB's layout: keys and values each in their own contiguous area):
 * keys of 32 or 64 bits, values of 32 bits. The value of a record is its global input index, so
 * that stability is visible in the output (equal keys must keep increasing values).
 *
 * Key spaces: keybits == 0 means K key types 0..K-1 (the counting sort: K up to the total number
 * of channels, every key type gets a region of its own); keybits 32 or 64 means full-width keys
 * (the LSD radix sort, one stable counting sort per digit).
 */
#ifndef SORT_DATA_H
#define SORT_DATA_H

#include <stddef.h>
#include <stdint.h>

/** Input key distributions. */
typedef enum {
    SORT_DIST_UNIFORM, /**< every key type equally likely */
    SORT_DIST_SKEW,    /**< power law: key = K * u^3 (small keys dominate) */
    SORT_DIST_EQUAL,   /**< all keys equal (K/2): everything goes to one rank */
    SORT_DIST_SORTED,  /**< already sorted over the global index */
    SORT_DIST_REVERSE, /**< reverse sorted */
    SORT_DIST_TOP,     /**< uniform within the last rank's key range: all to one rank */
    SORT_DIST_COUNT
} sort_dist_t;

/** @return the distribution named @p name, or -1. */
int sort_dist_parse(const char *name);
/** @return the name of @p d. */
const char *sort_dist_name(sort_dist_t d);

/** What is sorted: the same description gives the same records on every runtime. */
typedef struct {
    uint64_t total; /**< records in the whole job */
    int nranks;     /**< ranks sharing them (rank r holds [lo(r), lo(r+1))) */
    uint64_t K;     /**< key types for keybits == 0 */
    int keybits;    /**< 0 (K types), 32 or 64 */
    sort_dist_t dist;
    uint64_t seed;
} sort_input_t;

/** @return the first global index of rank @p r's share (r == nranks gives the total). */
uint64_t sort_share_lo(uint64_t total, int nranks, int r);

/** @return the key of global record @p gidx. */
uint64_t sort_gen_key(const sort_input_t *in, uint64_t gidx);

/**
 * @brief Fill the records of global indices [lo, hi): 32-bit keys; @p vals (may be NULL) gets
 * the global indices. A rank passes its share; the serial baseline passes [0, total).
 */
void sort_gen32(const sort_input_t *in, uint64_t lo, uint64_t hi, uint32_t *keys, uint32_t *vals);
/** @brief As sort_gen32 with 64-bit keys. */
void sort_gen64(const sort_input_t *in, uint64_t lo, uint64_t hi, uint64_t *keys, uint32_t *vals);

/** Order-independent checksum of a multiset of (key, value) records. */
typedef struct {
    uint64_t count, sum, xsum;
} sort_sum_t;

/** @brief Add one record to @p s (@p val ignored when !has_val). */
static inline void sort_sum_add(sort_sum_t *s, uint64_t key, uint32_t val, int has_val)
{
    uint64_t h = key * UINT64_C(0x9e3779b97f4a7c15) ^ (has_val ? (uint64_t)val << 17 : 0);
    h ^= h >> 29;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    s->count++;
    s->sum += h;
    s->xsum += h ^ (h >> 31) ^ key;
}

/**
 * Where each digit goes: digit value -> (destination rank, region within the rank).
 * Rank r owns digits [lo[r], lo[r+1]) with lo[r] = floor(r * ndigits / nranks): the top of the
 * key picks the node, the rest the memory channel there (OPTWEB: upper 3 bits -> FPGA, lower 3
 * bits -> memory channel, for 64 keys on 8 nodes).
 */
typedef struct {
    int nranks;
    uint64_t ndigits;   /**< key types (counting) or 2^digit bits (radix) */
    uint64_t mask;      /**< digit = (key >> shift) & mask; mask + 1 >= ndigits */
    uint32_t *dest;     /**< [mask + 1] destination rank of each digit value */
    uint32_t *local;    /**< [mask + 1] region (digit - lo[dest]) within the destination */
    uint64_t *lo;       /**< [nranks + 1] first digit of each rank */
    uint32_t max_local; /**< most regions any rank has */
} sort_map_t;

/** @brief Build the map of @p ndigits digits over @p nranks ranks; exits on allocation failure. */
void sort_map_init(sort_map_t *m, uint64_t ndigits, int nranks);
/** @brief Release the map's tables. */
void sort_map_free(sort_map_t *m);

/** One rank's output as it is laid out: a sequence of segments, in sorted order. */
typedef struct {
    const void *keys;     /**< uint32_t or uint64_t keys */
    const uint32_t *vals; /**< values, or NULL (keys only) */
    size_t n;
} sort_seg_t;

/** A growable list of segments (its array is reused between runs). */
typedef struct {
    sort_seg_t *seg;
    size_t nseg, cap;
} sort_seq_t;

/** @brief Append a segment (empty ones are skipped). */
void sort_seq_push(sort_seq_t *q, const void *keys, const uint32_t *vals, size_t n);

/** What one rank's output looks like, for the global check (plain data: gathered as bytes). */
typedef struct {
    sort_sum_t in, out;   /**< checksums of the rank's input and output */
    uint64_t first, last; /**< first and last key of the output (when count > 0) */
    uint64_t bad_order;   /**< adjacent pairs out of order */
    uint64_t bad_stable;  /**< equal keys whose values (input indices) decrease */
    uint64_t bad_range;   /**< keys outside the rank's digit range (counting sort) */
} sort_check_t;

/**
 * @brief Check one rank's output @p q (keys of @p keybytes bytes) locally: order, stability
 * (when values are present), range [lo, hi) of its key types when @p lo < @p hi (keybits == 0),
 * and the output checksum. @p c->in must already hold the input's checksum.
 */
void sort_check_local(sort_check_t *c, const sort_seq_t *q, int keybytes, uint64_t lo, uint64_t hi);

/**
 * @brief The global verdict from every rank's check (in rank order): totals and checksums equal,
 * boundaries between ranks in order, no local fault. Writes the reason for a failure to @p why.
 * @return 1 when the output is a sorted (and, when @p need_stable, stable) permutation.
 */
int sort_check_global(const sort_check_t *all, int nranks, uint64_t total, int need_stable,
                      char *why, size_t whylen);

/** @brief Deliberately damage the output for the verifier tests: swap two keys or drop one. */
void sort_corrupt(sort_seq_t *q, int keybytes);

#endif /* SORT_DATA_H */
