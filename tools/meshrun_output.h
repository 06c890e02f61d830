/**
 * @file meshrun_output.h
 * @brief The ranks' output, passed on line by line: lines of different ranks never mix within
 * a line (as under mpirun --tag-output), with or without the "[RANK] " mark of --tag-output.
 *
 * On this machine each rank's stdout and stderr are pipes that meshrun reads (stdout a pseudo
 * terminal when meshrun's own stdout is a terminal, so that the rank's stdio stays line-buffered
 * as it would be without meshrun); across hosts the ranks' pieces of output come from mpirun,
 * demultiplexed by rank (meshrun_demux.h), and are fed in with meshrun_output_feed. Either way
 * every rank's stream is assembled into lines, and its complete lines go on to meshrun's stdout
 * or stderr in one write() per batch, so that no line is cut by another rank's output.
 *
 * What is not a whole line: a line longer than MESHRUN_LINE_MAX goes on in pieces of that size;
 * without --tag-output an unfinished line (a prompt) goes on as it is once its rank has written
 * nothing more for MESHRUN_PARTIAL_MS, and a last line without a newline goes on as it is when
 * its rank ends (bytes are never added: output redirected to a file stays the rank's own).
 * With --tag-output lines are held until their newline, and a last unfinished line goes on with
 * a newline added.
 */
#ifndef MESHRUN_OUTPUT_H
#define MESHRUN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#define MESHRUN_LINE_MAX (64 * 1024)
/** Without --tag-output, an unfinished line waits this long for its newline (a prompt). */
#define MESHRUN_PARTIAL_MS 500

/**
 * A rank's stderr line about to go on: return false to keep it back (across hosts, meshrun
 * reads the ranks' reports there and keeps back what its own line replaces).
 */
typedef bool (*meshrun_line_filter_t)(void *ctx, int rank, const char *line, size_t len);

/** One rank's stdout or stderr as meshrun reads it. */
typedef struct {
    int fd;   /* read end; -1 once closed (or when fed by meshrun_output_feed) */
    int wfd;  /* write end, for the rank (closed in meshrun after the fork) */
    bool tty; /* fd is a pseudo terminal's master: EIO is its end */
    int rank;
    int out_fd; /* where its lines go: 1 or 2 */
    char *buf;  /* the line read so far */
    size_t len;
    bool midline;    /* an unfinished line went on already: its rest follows without a mark */
    double since_ms; /* when the line held in buf began to arrive */
} meshrun_stream_t;

typedef struct {
    int n;                        /* 2 per rank: stdout, stderr */
    bool tag;                     /* mark every line "[RANK] " */
    meshrun_line_filter_t filter; /* applied to stderr lines, or NULL */
    void *filter_ctx;
    meshrun_stream_t *streams;
    char *scratch; /* a batch of marked or filtered lines */
    size_t scratch_cap;
} meshrun_output_t;

/**
 * @brief Prepare the streams of @p nranks ranks (no pipes yet); @p tag marks lines "[RANK] ".
 * @return 0, or -1 with errno set.
 */
int meshrun_output_open(meshrun_output_t *o, int nranks, bool tag);

/**
 * @brief Make rank @p rank's pipes (close-on-exec), its stdout a pseudo terminal when @p tty
 * (a pipe where none can be had). @return 0, or -1 with errno set: the rank then writes to
 * meshrun's own stdout and stderr.
 */
int meshrun_output_make(meshrun_output_t *o, int rank, bool tty);

/** @brief In rank @p rank after fork: its stdout and stderr become its pipes. */
void meshrun_output_child(meshrun_output_t *o, int rank);

/** @brief In meshrun after rank @p rank is forked: close its write ends. */
void meshrun_output_forked(meshrun_output_t *o, int rank);

/** @brief Feed @p n bytes of rank @p rank's stream @p kind (0 stdout, 1 stderr) in. */
void meshrun_output_feed(meshrun_output_t *o, int rank, int kind, const char *data, size_t n);

/**
 * @brief Pass on the complete lines that have arrived, waiting up to @p timeout_ms for some,
 * and unfinished lines that waited MESHRUN_PARTIAL_MS. @return the streams still open.
 */
int meshrun_output_pump(meshrun_output_t *o, int timeout_ms);

/** @brief Pass on everything that has arrived by now (before a line of meshrun's own). */
void meshrun_output_drain(meshrun_output_t *o);

/**
 * @brief True once the reader of meshrun's stdout or stderr has gone away (EPIPE; meshrun
 * ignores SIGPIPE): on this machine the ranks' streams to it are closed, so that a rank gets
 * SIGPIPE as if it wrote there itself; across hosts meshrun stops the job.
 */
bool meshrun_output_closed(void);

/**
 * @brief After the job: pass on what is left, reading until every stream ends or
 * @p timeout_ms have passed (a process that left the job may hold a pipe), then close all.
 */
void meshrun_output_close(meshrun_output_t *o, int timeout_ms);

#endif /* MESHRUN_OUTPUT_H */
