/* The local passes and the serial baselines of the distributed sorts (sort_local.h). */
#include "sort_local.h"

#include <stdlib.h>
#include <string.h>

void sl_hist_32(const uint32_t *keys, size_t n, int shift, uint64_t mask, uint64_t *hist)
{
    for (size_t i = 0; i < n; i++)
        hist[(keys[i] >> shift) & mask]++;
}

void sl_table_32(const uint32_t *keys, size_t n, int shift, uint64_t mask, const uint32_t *field,
                 uint16_t *table)
{
    for (size_t i = 0; i < n; i++)
        table[i] = (uint16_t)field[(keys[i] >> shift) & mask];
}

void sl_scatter_by_table(const uint32_t *src, size_t n, const uint16_t *table, size_t *cursor,
                         uint32_t *dst)
{
    for (size_t i = 0; i < n; i++)
        dst[cursor[table[i]]++] = src[i];
}

void sl_serial_counting_32(const uint32_t *keys, const uint32_t *vals, size_t n, uint64_t K,
                           uint32_t *out_keys, uint32_t *out_vals)
{
    size_t small[4096];
    size_t *cur = K <= 4096 ? small : calloc(K, sizeof(size_t));
    if (cur == NULL)
        abort();
    memset(cur, 0, K * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        cur[keys[i]]++;
    if (vals == NULL) {
        /* keys only: the counts are the whole answer; write each key's run (one write pass) */
        size_t at = 0;
        for (uint64_t k = 0; k < K; k++)
            for (size_t c = cur[k]; c; c--)
                out_keys[at++] = (uint32_t)k;
        if (cur != small)
            free(cur);
        return;
    }
    size_t sum = 0;
    for (uint64_t k = 0; k < K; k++) {
        size_t t = cur[k];
        cur[k] = sum;
        sum += t;
    }
    {
        for (size_t i = 0; i < n; i++) {
            size_t at = cur[keys[i]]++;
            out_keys[at] = keys[i];
            out_vals[at] = vals[i];
        }
    }
    if (cur != small)
        free(cur);
}

#define KEY_T uint32_t
#define SFX   _32
#include "sort_local_tmpl.h"
#undef KEY_T
#undef SFX

#define KEY_T uint64_t
#define SFX   _64
#include "sort_local_tmpl.h"
#undef KEY_T
#undef SFX
