/**
 * @file meshrun_demux.h
 * @brief meshrun across hosts: mpirun's stream split by rank.
 *
 * meshrun always asks mpirun for --tag-output: every piece of a rank's output then starts with
 * "[JOB,RANK]<stdout>:" (or "<stderr>:"), and mpirun's own messages carry no mark. The stream
 * from mpirun is cut at the marks into pieces, each handed on with its rank and stream (-1 for
 * mpirun's own bytes), so that meshrun can assemble each rank's lines whole
 * (meshrun_output.h) and read mpirun's reports apart from what the ranks write.
 *
 * mpirun marks pieces, and marks again after every newline within a piece: a piece runs to its
 * newline or to the next mark. Bytes after a newline that no mark follows are mpirun's own.
 */
#ifndef MESHRUN_DEMUX_H
#define MESHRUN_DEMUX_H

#include <stddef.h>

/** The longest mark mpirun writes ("[J,R]<stddiag>:" with two 10-digit numbers), with room. */
#define MESHRUN_DEMUX_HELD 48
/** The most bytes one call takes. */
#define MESHRUN_DEMUX_CHUNK 4096

/** A piece of @p n bytes of rank @p rank's stream @p kind (0 stdout, 1 stderr); rank -1:
 * mpirun's own bytes. */
typedef void (*meshrun_demux_fn)(void *ctx, int rank, int kind, const char *p, size_t n);

/** One stream's state: whose piece runs on, and the start of a mark cut off by a read. */
typedef struct {
    int rank; /* the rank whose piece runs on, -1: mpirun's own */
    int kind;
    char held[MESHRUN_DEMUX_HELD];
    size_t nheld;
} meshrun_demux_t;

/** @brief A stream's state before its first byte. */
void meshrun_demux_init(meshrun_demux_t *d);

/**
 * @brief Split the @p n bytes at @p in (at most MESHRUN_DEMUX_CHUNK) into pieces, each handed
 * to @p fn; what may be the start of a mark at the end is held back for the next call. @p n 0
 * marks the end of the stream: what was held back goes on as it is.
 */
void meshrun_demux(meshrun_demux_t *d, const char *in, size_t n, meshrun_demux_fn fn, void *ctx);

#endif /* MESHRUN_DEMUX_H */
