/*
 * Stage A=3 of OPTWEB-sort (Fig. 5: histogram, table and switch fused into one classifying pass;
 * all-to-all-v; one placement pass) and the 5-step GHC form of OPTWEB §3.B (classify and
 * exchange along x, then along y, then place), both with counts from the histogram.
 */
#include "sort_work.h"

#include "sort_local.h"

#include <meshmem_coll.h>
#include <string.h>

void sort_region_cursors(const sort_job_t *j, size_t *cursor);
void sort_recv_displs(const sort_job_t *j, size_t *rdispls);

/* keys at element offset @p i of a column of j->keybytes-wide keys */
static void *kat(const sort_job_t *j, void *base, size_t i)
{
    return (char *)base + i * (size_t)j->keybytes;
}

static uint32_t *vat(uint32_t *base, size_t i)
{
    return base ? base + i : NULL;
}

static meshmem_dtype_t key_dtype(const sort_job_t *j)
{
    return j->keybytes == 8 ? MESHMEM_UINT64 : MESHMEM_UINT32;
}

/* 1': histogram + classification into per-region areas of @p cap records (one pass) */
static void classify(sort_job_t *j, void *keys, uint32_t *vals, size_t n, const uint32_t *field,
                     void *dk, uint32_t *dv, size_t cap, size_t *fill)
{
    if (j->keybytes == 8)
        sl_classify_64(keys, vals, n, 0, j->map.mask, field, j->w->hist, dk, dv, cap, fill);
    else
        sl_classify_32(keys, vals, n, 0, j->map.mask, field, j->w->hist, dk, dv, cap, fill);
}

/* 3': counted placement of received blocks into the contiguous per-key regions */
static size_t place(sort_job_t *j, void *rk, uint32_t *rv, const size_t *displs,
                    const size_t *counts, int nsrc)
{
    struct sort_work *w = j->w;
    sort_region_cursors(j, w->cursor);
    size_t got = 0;
    for (int s = 0; s < nsrc; s++) {
        void *k = kat(j, rk, displs[s]);
        uint32_t *v = vat(rv, displs[s]);
        if (j->keybytes == 8)
            sl_place_64(k, v, counts[s], 0, j->map.mask, j->map.local, w->cursor, w->out_keys,
                        w->out_vals);
        else
            sl_place_32(k, v, counts[s], 0, j->map.mask, j->map.local, w->cursor, w->out_keys,
                        w->out_vals);
        got += counts[s];
    }
    j->out.nseg = 0;
    sort_seq_push(&j->out, w->out_keys, w->out_vals, got);
    return got;
}

/* one all-to-all-v over @p team of keys and (when present) values, counts learned at arrival */
static void exchange(sort_job_t *j, meshmem_team_t team, void *sk, uint32_t *sv, void *rk,
                     uint32_t *rv, const size_t *sendcounts, const size_t *sdispls,
                     const size_t *rdispls, size_t *recvcounts)
{
    meshmem_coll_alltoallv(team, sk, sendcounts, sdispls, rk, NULL, rdispls, (size_t)j->total,
                           recvcounts, key_dtype(j), MESHMEM_ALGO_ONESTEP);
    if (j->has_vals)
        meshmem_coll_alltoallv(team, sv, sendcounts, sdispls, rv, NULL, rdispls, (size_t)j->total,
                               recvcounts, MESHMEM_UINT32, MESHMEM_ALGO_ONESTEP);
}

static void sum_histograms(sort_job_t *j)
{
    meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, j->w->hist, j->w->hist_all, (size_t)j->map.mask + 1,
                           MESHMEM_UINT64, MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
}

void sort_run_fused(sort_job_t *j)
{
    struct sort_work *w = j->w;
    int n = j->nranks;
    size_t rec = sort_record_bytes(j);
    /* meshrun --fabric: one annotated pass per stage over whole records (both columns move in
       the same sweep), the exchange is the traced all-to-all */
    meshmem_model_phase("classify");
    memset(w->hist, 0, ((size_t)j->map.mask + 1) * sizeof(uint64_t));
    memset(w->sendcounts, 0, (size_t)n * sizeof(size_t));
    classify(j, j->in_keys, j->in_vals, j->nlocal, j->map.dest, w->send_keys, w->send_vals,
             w->send_cap, w->sendcounts);
    sort_model_pass(j->nlocal, rec, 1);
    sum_histograms(j);
    meshmem_model_phase("exchange");
    for (int d = 0; d < n; d++)
        w->sdispls[d] = (size_t)d * w->send_cap;
    sort_recv_displs(j, w->rdispls);
    exchange(j, MESHMEM_TEAM_WORLD, w->send_keys, w->send_vals, w->recv_keys, w->recv_vals,
             w->sendcounts, w->sdispls, w->rdispls, w->recvcounts);
    meshmem_model_phase("place");
    sort_model_pass(place(j, w->recv_keys, w->recv_vals, w->rdispls, w->recvcounts, n), rec, 1);
}

void sort_run_ghc(sort_job_t *j)
{
    struct sort_work *w = j->w;
    int X = j->ghc_x, Y = j->ghc_y, y = j->me / X;
    const uint32_t *fx = w->ghc_fx, *fy = w->ghc_fy;
    size_t *cnt = w->sendcounts, *sd = w->sdispls, *rd = w->rdispls, *rc = w->recvcounts;
    size_t rec = sort_record_bytes(j), got = 0;
    /* step 1: classify by destination column (with the histogram for the final placement) */
    meshmem_model_phase("classify-x");
    memset(w->hist, 0, ((size_t)j->map.mask + 1) * sizeof(uint64_t));
    memset(cnt, 0, (size_t)X * sizeof(size_t));
    classify(j, j->in_keys, j->in_vals, j->nlocal, fx, w->send_keys, w->send_vals, w->send_cap,
             cnt);
    sort_model_pass(j->nlocal, rec, 1);
    sum_histograms(j);
    meshmem_model_phase("exchange-x");
    /* step 2: all-to-all-v along x (the row: ranks y*X .. y*X+X-1, in column order) */
    uint64_t row0 = sort_share_lo(j->total, j->nranks, y * X);
    for (int c = 0; c < X; c++) {
        sd[c] = (size_t)c * w->send_cap;
        rd[c] = (size_t)(sort_share_lo(j->total, j->nranks, y * X + c) - row0);
    }
    exchange(j, w->xteam, w->send_keys, w->send_vals, w->recv_keys, w->recv_vals, cnt, sd, rd, rc);
    /* step 3: classify what arrived by destination row (column order kept: stable) */
    meshmem_model_phase("classify-y");
    size_t fill2[Y], sd2[Y], rd2[Y], rc2[Y];
    memset(fill2, 0, sizeof(fill2));
    for (int c = 0; c < X; c++) {
        classify(j, kat(j, w->recv_keys, rd[c]), vat(w->recv_vals, rd[c]), rc[c], fy, w->send2_keys,
                 w->send2_vals, w->send2_cap, fill2);
        got += rc[c];
    }
    sort_model_pass(got, rec, 1);
    meshmem_model_phase("exchange-y");
    /* step 4: all-to-all-v along y (a source row's records fit in that row's share) */
    for (int r = 0; r < Y; r++) {
        sd2[r] = (size_t)r * w->send2_cap;
        rd2[r] = (size_t)sort_share_lo(j->total, j->nranks, r * X);
    }
    exchange(j, w->yteam, w->send2_keys, w->send2_vals, w->recv2_keys, w->recv2_vals, fill2, sd2,
             rd2, rc2);
    /* step 5: place; sources in row order, each row in column order: rank order, stable */
    meshmem_model_phase("place");
    sort_model_pass(place(j, w->recv2_keys, w->recv2_vals, rd2, rc2, Y), rec, 1);
}
