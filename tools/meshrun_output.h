/**
 * @file meshrun_output.h
 * @brief meshrun --tag-output: every line a rank writes, prefixed with "[RANK] ", whole.
 *
 * Each rank's stdout and stderr are pipes that meshrun reads; it passes each complete line on
 * to its own stdout or stderr with one write() of prefix and line, so lines of different ranks
 * never mix within a line (as with mpirun --tag-output). A line still unfinished when its rank
 * ends is passed on with a newline added; a line longer than MESHRUN_LINE_MAX is passed on in
 * pieces of that size, each prefixed.
 */
#ifndef MESHRUN_OUTPUT_H
#define MESHRUN_OUTPUT_H

#include <stddef.h>

#define MESHRUN_LINE_MAX (64 * 1024)

/** One rank's stdout or stderr as meshrun reads it. */
typedef struct {
    int    fd;        /* read end; -1 once closed */
    int    wfd;       /* write end, for the rank (closed in meshrun after the fork) */
    int    rank;
    int    out_fd;    /* where its lines go: 1 or 2 */
    char  *buf;       /* the line read so far */
    size_t len;
} meshrun_stream_t;

typedef struct {
    int               n;        /* 2 per rank */
    meshrun_stream_t *streams;
} meshrun_output_t;

/** @brief Make the pipes of @p nranks ranks (close-on-exec). @return 0, or -1 with errno set. */
int meshrun_output_open(meshrun_output_t *o, int nranks);

/** @brief In rank @p rank after fork: its stdout and stderr become its pipes. */
void meshrun_output_child(meshrun_output_t *o, int rank);

/** @brief In meshrun after rank @p rank is forked: close its write ends. */
void meshrun_output_forked(meshrun_output_t *o, int rank);

/**
 * @brief Pass on the complete lines that have arrived, waiting up to @p timeout_ms for some.
 * @return the streams still open.
 */
int meshrun_output_pump(meshrun_output_t *o, int timeout_ms);

/**
 * @brief After the job: pass on what is left, reading until every stream ends or
 * @p timeout_ms have passed (a process that left the job may hold a pipe), then close all.
 */
void meshrun_output_close(meshrun_output_t *o, int timeout_ms);

#endif /* MESHRUN_OUTPUT_H */
