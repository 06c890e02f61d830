/**
 * @file sort_local.h
 * @brief The local passes of the distributed counting sort, runtime-independent (shared by the
 * meshmem program and its OpenMPI twin), and the serial baselines.
 *
 * Each function is one pass over memory (OPTWEB-sort's unit: a read->write pipeline over the data).
 * A digit is (key >> shift) & mask; a "field" table maps digit values to a region (destination
 * rank, GHC coordinate, or key region within the rank: sort_map_t's dest/local arrays).
 * Functions with suffix _32 take uint32_t keys, _64 uint64_t keys; values are uint32_t and may be
 * NULL (keys-only form).
 */
#ifndef SORT_LOCAL_H
#define SORT_LOCAL_H

#include <stddef.h>
#include <stdint.h>

/** @brief Stage A=11/6 step 1: add the digit histogram of @p keys to @p hist. */
void sl_hist_32(const uint32_t *keys, size_t n, int shift, uint64_t mask, uint64_t *hist);

/** @brief Stage A=11/6 steps 2, 4, 8, 10: table[i] = field[digit(keys[i])] (a pass of its own). */
void sl_table_32(const uint32_t *keys, size_t n, int shift, uint64_t mask, const uint32_t *field,
                 uint16_t *table);

/** @brief Stage A=11/6 steps 3, 5, 9, 11: dst[cursor[table[i]]++] = src[i] (one column). */
void sl_scatter_by_table(const uint32_t *src, size_t n, const uint16_t *table, size_t *cursor,
                         uint32_t *dst);

/**
 * @brief Fused classification (stage A=3 step 1', the GHC steps): one pass that counts the digit
 * histogram into @p hist and appends each record to region field[digit] of @p dst_keys /
 * @p dst_vals (regions of @p cap records each, filled from @p fill, which it advances).
 */
void sl_classify_32(const uint32_t *keys, const uint32_t *vals, size_t n, int shift, uint64_t mask,
                    const uint32_t *field, uint64_t *hist, uint32_t *dst_keys, uint32_t *dst_vals,
                    size_t cap, size_t *fill);
/** @brief As sl_classify_32 with 64-bit keys. */
void sl_classify_64(const uint64_t *keys, const uint32_t *vals, size_t n, int shift, uint64_t mask,
                    const uint32_t *field, uint64_t *hist, uint64_t *dst_keys, uint32_t *dst_vals,
                    size_t cap, size_t *fill);

/**
 * @brief Counted placement (stage A=3 step 3'): each record goes to out[cursor[field[digit]]++];
 * with cursors at the exclusive prefix sums of the per-region totals the result is a stable
 * counting sort of the received data (which arrives in source-rank order).
 */
void sl_place_32(const uint32_t *keys, const uint32_t *vals, size_t n, int shift, uint64_t mask,
                 const uint32_t *field, size_t *cursor, uint32_t *out_keys, uint32_t *out_vals);
/** @brief As sl_place_32 with 64-bit keys. */
void sl_place_64(const uint64_t *keys, const uint32_t *vals, size_t n, int shift, uint64_t mask,
                 const uint32_t *field, size_t *cursor, uint64_t *out_keys, uint32_t *out_vals);

/**
 * @brief Serial baseline for K key types: a counting sort (histogram pass, then one stable
 * scatter pass) of @p n records into @p out_keys / @p out_vals; keys only (@p vals NULL), the
 * second pass just writes each key's run. The fastest serial sort for K small: two passes, no
 * comparisons.
 */
void sl_serial_counting_32(const uint32_t *keys, const uint32_t *vals, size_t n, uint64_t K,
                           uint32_t *out_keys, uint32_t *out_vals);

/**
 * @brief Serial baseline for full-width keys: LSD radix sort with 11-bit digits (3 passes for
 * 32-bit keys, 6 for 64-bit), every digit's histogram from one counting pass, digits on which
 * all keys agree skipped. Sorts @p keys / @p vals using @p tmp_keys / @p tmp_vals; the result is
 * in whichever pair the last pass wrote: returns 0 for (keys, vals), 1 for the tmp pair.
 */
int sl_serial_radix_32(uint32_t *keys, uint32_t *vals, uint32_t *tmp_keys, uint32_t *tmp_vals,
                       size_t n);
/** @brief As sl_serial_radix_32 with 64-bit keys. */
int sl_serial_radix_64(uint64_t *keys, uint32_t *vals, uint64_t *tmp_keys, uint32_t *tmp_vals,
                       size_t n);

#endif /* SORT_LOCAL_H */
