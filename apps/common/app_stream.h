/**
 * @file app_stream.h
 * @brief Blocks streamed to their destination as soon as each is computed, each followed by a
 * counted signal (FSHMEM's automatic result transfer): what the meshmem programs of gemm and
 * conv share. meshmem programs only (the twins stream with MPI_Isend/Irecv).
 *
 * Protocol. sig[s] (symmetric, one per sender) is written by sender s only, with
 * meshmem_put_signal's ADD of 1 after each of its blocks' data, and never reset: it counts the
 * blocks s has delivered to this rank over the whole job. A receiver counts phases instead of
 * resetting: every sender delivers the same number of blocks to it in a phase (a layer, a
 * product), so the phase's n-th block of s has arrived when sig[s] >= base + n, base being the
 * blocks of the phases before. Each signal follows its own block's data, so a count of n means
 * the phase's first n blocks have all arrived, whatever order the network delivered them in.
 * Overwriting: the program must know that a destination is no longer read when it streams
 * into it (gemm: a barrier between products; conv: the argument in conv_main.c).
 */
#ifndef APP_STREAM_H
#define APP_STREAM_H

#include "app_harness.h"

#include <stddef.h>
#include <stdint.h>

/** One rank's end of the streams from and to every rank. */
typedef struct {
    int nranks, me;
    uint64_t *sig; /**< symmetric [nranks]: sig[s] written by sender s only */
    uint64_t base; /**< blocks every sender delivered here in the phases before this one */
} app_stream_t;

/** @brief Allocate the signals (collective: meshmem_calloc); app_fatal when out of memory. */
void app_stream_init(app_t *h, app_stream_t *s);

/** @brief Put @p bytes from @p src to symmetric @p dest on @p rank, then signal it one block. */
void app_stream_put(app_stream_t *s, void *dest, const void *src, size_t bytes, int rank);

/** @brief The same, started: to another host it returns before @p src is read, so the block
 * travels while the caller computes the next one; @p src must stay unchanged until a quiet or
 * a barrier, or until the program knows the block arrived (conv: its peers' next layer). */
void app_stream_put_nbi(app_stream_t *s, void *dest, const void *src, size_t bytes, int rank);

/** @brief The block was stored into @p rank's memory directly (through meshmem_ptr): order
 * those stores before the signal (meshmem_fence), then signal it one block. */
void app_stream_stored(app_stream_t *s, int rank);

/** @brief Wait until @p sender has delivered @p n blocks of this phase. */
void app_stream_wait(app_stream_t *s, int sender, uint64_t n);

/** @brief End this phase, in which every sender delivered @p n blocks here. */
void app_stream_next(app_stream_t *s, uint64_t n);

#endif /* APP_STREAM_H */
