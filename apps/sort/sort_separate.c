/*
 * Stages A=11 (key+value) and A=6 (keys only) of OPTWEB-sort: the baseline flow of Fig. 2 / Fig. 4,
 * every step a pass of its own over memory (see sort_engine.h for the step list).
 */
#include "sort_work.h"

#include "sort_local.h"

#include <meshmem_coll.h>
#include <string.h>

/* exclusive prefix sums of @p counts into @p out (n entries) */
static void prefix(const uint64_t *counts, size_t n, size_t *out)
{
    size_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = sum;
        sum += counts[i];
    }
}

/* per-destination counts from the digit histogram: rank d owns digits [lo[d], lo[d+1]) */
void sort_dest_counts(const sort_job_t *j, const uint64_t *hist, size_t *counts)
{
    for (int d = 0; d < j->nranks; d++) {
        size_t c = 0;
        for (uint64_t k = j->map.lo[d]; k < j->map.lo[d + 1]; k++)
            c += hist[k];
        counts[d] = c;
    }
}

/* the write position of each of this rank's key regions: every rank's records of key k, in
 * source-rank order, starting after all smaller keys */
void sort_region_cursors(const sort_job_t *j, size_t *cursor)
{
    uint64_t lo = j->map.lo[j->me], hi = j->map.lo[j->me + 1];
    prefix(j->w->hist_all + lo, (size_t)(hi - lo), cursor);
}

/* receive displacements: source s's block at its share's start (room for all it holds) */
void sort_recv_displs(const sort_job_t *j, size_t *rdispls)
{
    for (int s = 0; s < j->nranks; s++)
        rdispls[s] = (size_t)sort_share_lo(j->total, j->nranks, s);
}

void sort_run_separate(sort_job_t *j)
{
    struct sort_work *w = j->w;
    int n = j->nranks;
    size_t nd = (size_t)j->map.mask + 1, nl = j->nlocal;
    const uint32_t *keys = j->in_keys;
    uint64_t mask = j->map.mask;
    /* meshrun --fabric: every pass is annotated where it runs, over the column it sweeps
       (keys and values are 4 bytes each); the exchanges are the traced all-to-alls */
    meshmem_model_phase("classify");
    memset(w->hist, 0, nd * sizeof(uint64_t));

    /* 1: histogram; its sum over ranks gives every key region's size */
    sl_hist_32(keys, nl, 0, mask, w->hist);
    sort_model_pass(nl, 4, 0);
    meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, w->hist, w->hist_all, nd, MESHMEM_UINT64,
                           MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
    sort_dest_counts(j, w->hist, w->sendcounts);
    size_t sum = 0;
    for (int d = 0; d < n; d++) {
        w->sdispls[d] = sum;
        sum += w->sendcounts[d];
    }
    /* 2, 3: destination table, then the keys switched by it */
    sl_table_32(keys, nl, 0, mask, j->map.dest, w->table);
    sort_model_pass(nl, 4, 0);
    memcpy(w->cursor, w->sdispls, (size_t)n * sizeof(size_t));
    sl_scatter_by_table(keys, nl, w->table, w->cursor, w->send_keys);
    sort_model_pass(nl, 4, 1);
    if (j->has_vals) { /* 4, 5: the same for the values */
        sl_table_32(keys, nl, 0, mask, j->map.dest, w->table);
        sort_model_pass(nl, 4, 0);
        memcpy(w->cursor, w->sdispls, (size_t)n * sizeof(size_t));
        sl_scatter_by_table(j->in_vals, nl, w->table, w->cursor, w->send_vals);
        sort_model_pass(nl, 4, 1);
    }
    meshmem_model_phase("exchange");
    /* 6, 7: all-to-all-v of the keys, then of the values, from the symmetric heap */
    sort_recv_displs(j, w->rdispls);
    meshmem_coll_alltoallv(MESHMEM_TEAM_WORLD, w->send_keys, w->sendcounts, w->sdispls,
                           w->recv_keys, NULL, w->rdispls, (size_t)j->total, w->recvcounts,
                           MESHMEM_UINT32, MESHMEM_ALGO_ONESTEP);
    if (j->has_vals)
        meshmem_coll_alltoallv(MESHMEM_TEAM_WORLD, w->send_vals, w->sendcounts, w->sdispls,
                               w->recv_vals, NULL, w->rdispls, (size_t)j->total, w->recvcounts,
                               MESHMEM_UINT32, MESHMEM_ALGO_ONESTEP);
    meshmem_model_phase("place");
    /* 8, 9: region table from the key, keys placed by it (source order: stable) */
    const uint32_t *rk = w->recv_keys;
    size_t got = 0;
    for (int s = 0; s < n; s++) {
        sl_table_32(rk + w->rdispls[s], w->recvcounts[s], 0, mask, j->map.local,
                    w->table2 + w->rdispls[s]);
        got += w->recvcounts[s];
    }
    sort_region_cursors(j, w->cursor);
    for (int s = 0; s < n; s++)
        sl_scatter_by_table(rk + w->rdispls[s], w->recvcounts[s], w->table2 + w->rdispls[s],
                            w->cursor, w->out_keys);
    sort_model_pass(got, 4, 0);
    sort_model_pass(got, 4, 1);
    if (j->has_vals) { /* 10, 11 */
        for (int s = 0; s < n; s++)
            sl_table_32(rk + w->rdispls[s], w->recvcounts[s], 0, mask, j->map.local,
                        w->table2 + w->rdispls[s]);
        sort_region_cursors(j, w->cursor);
        for (int s = 0; s < n; s++)
            sl_scatter_by_table(w->recv_vals + w->rdispls[s], w->recvcounts[s],
                                w->table2 + w->rdispls[s], w->cursor, w->out_vals);
        sort_model_pass(got, 4, 0);
        sort_model_pass(got, 4, 1);
    }
    j->out.nseg = 0;
    sort_seq_push(&j->out, w->out_keys, w->out_vals, got);
}
