/*
 * Private to the sort engine: the buffers each flow works in. Symmetric ones are allocated with
 * meshmem_malloc (every rank the same size; peers read or write them directly), private ones
 * with malloc or, for the growing key regions, a reserved mapping (sort_stream.c).
 */
#ifndef SORT_WORK_H
#define SORT_WORK_H

#include "sort_engine.h"

struct sort_stream;

struct sort_work {
    /* symmetric */
    void *send_keys; /* per-destination regions (A=11/6: exact; A=3/GHC x: cap each) */
    uint32_t *send_vals;
    size_t send_cap; /* records per region */
    void *recv_keys; /* receive area: source s's block at share_lo(s) (room for its all) */
    uint32_t *recv_vals;
    void *send2_keys; /* GHC y phase: per-row regions of recv_cap2 records */
    uint32_t *send2_vals;
    size_t send2_cap;
    void *recv2_keys; /* GHC y phase receive area */
    uint32_t *recv2_vals;
    /* private */
    void *out_keys; /* counted forms: the sorted output, contiguous */
    uint32_t *out_vals;
    uint16_t *table;                                     /* A=11/6 destination table (steps 2, 4) */
    uint16_t *table2;                                    /* A=11/6 region table (steps 8, 10) */
    uint64_t *hist;                                      /* digit histogram of this rank's input */
    uint64_t *hist_all;                                  /* summed over ranks */
    size_t *cursor;                                      /* per-region write positions */
    size_t *sendcounts, *sdispls, *rdispls, *recvcounts; /* per peer, elements */
    void *serial_keys; /* serial radix: the working copy and its partner */
    uint32_t *serial_vals;
    void *serial_tmp_keys;
    uint32_t *serial_tmp_vals;
    meshmem_team_t xteam, yteam;
    uint32_t *ghc_fx, *ghc_fy;  /* GHC: digit -> destination column / row */
    struct sort_stream *stream; /* A=2/1 and radix (sort_stream.c) */
};

/** @brief malloc that ends the job on failure. */
void *sort_xmalloc(size_t bytes);
/** @brief sort_xmalloc whose pages are touched now, for the job's work buffers at setup: a run
 * without warm-up (the traced one of --fabric) would otherwise time their first-touch page
 * faults in its first pass (the symmetric heap is prefaulted already). */
void *sort_xmalloc_touched(size_t bytes);
/** @brief meshmem_malloc that ends the job with the heap it would need on failure. */
void *sort_symalloc(size_t bytes);
/** @brief Allocate / free the stream state of A=2, A=1 and radix (sort_stream.c). */
void sort_stream_setup(sort_job_t *j);
void sort_stream_free(sort_job_t *j);
/**
 * @brief meshrun --fabric: annotate one memory pass over @p records records of @p bytes each
 * (OPTWEB-sort eq. 1's unit of A): it reads them and, when @p writes, writes them once. Passes
 * that only read (histogram, destination table: OPTWEB keeps its tables in block RAM) write
 * nothing to memory. Without --fabric one branch (sort_job.c).
 */
void sort_model_pass(uint64_t records, size_t bytes, int writes);
/** @return the bytes of one record of @p j (key, plus the value when there are values). */
size_t sort_record_bytes(const sort_job_t *j);
/** @return symmetric bytes the stream state of @p p needs (sort_stream.c). */
size_t sort_stream_heap_bytes(const sort_params_t *p, int nranks, uint64_t ndigits, int keybytes);

#endif /* SORT_WORK_H */
