/**
 * @file meshrun_reports.h
 * @brief meshrun across hosts: what mpirun and the ranks report about a failure, read, and
 * kept out of the user's way where meshrun's own line says it.
 *
 * A job that fails on one machine ends with one line of meshrun's, naming the rank, its signal
 * or status; across hosts mpirun prints a block of text for each failure (help texts of
 * OpenMPI 4.1: help-orterun.txt, help-errmgr-base.txt), its job's state after --timeout, and the
 * ranks' peers report the connections they lost (the runtime's "lost the connection to rank
 * R" and UCX's own "UCX ERROR" lines, or its failed assertion and backtrace). meshrun reads them all to name the rank, its host and
 * what ended it in one line of its own (meshrun_multi.c); the blocks it recognises, the peers'
 * lost connections, the runtime's shmem_global_exit notice and UCX's error lines and
 * backtraces are kept back
 * unless MESHMEM_DEBUG is 1 or more (UCX's lines also when UCX_LOG_LEVEL is set). Everything
 * else passes through as it arrives.
 */
#ifndef MESHRUN_REPORTS_H
#define MESHRUN_REPORTS_H

#include "meshrun_hosts.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    MESHRUN_EV_NONE,
    MESHRUN_EV_SIGNAL,   /* a rank was killed by a signal */
    MESHRUN_EV_EXIT,     /* a rank exited with a non-zero status */
    MESHRUN_EV_IMPROPER, /* a rank exited with status 0 after init without finalize */
    MESHRUN_EV_LOST,     /* mpirun lost the daemon of a host */
} meshrun_event_t;

/** What mpirun's and the ranks' reports said, and the state of reading them. */
typedef struct {
    int nranks;
    bool show_all;        /* MESHMEM_DEBUG >= 1: nothing is kept back */
    bool show_ucx;        /* UCX_LOG_LEVEL set: UCX's lines pass */
    meshrun_event_t kind; /* mpirun's first report of a rank's or host's end */
    int rank;
    long pid;
    int code; /* signal or exit status */
    char host[MESHRUN_HOST_NAME_MAX + 1];
    int fatal_rank;       /* the first rank that reported a fatal error, or -1 */
    char fatal_text[256]; /* what it said, after "meshmem[R] error:" */
    int exit_call_rank;   /* the rank that called shmem_global_exit, or -1 */
    int exit_call_status;
    bool *lost;         /* [nranks]: a peer lost its connection to the rank */
    bool *losing;       /* [nranks]: the rank lost a connection (it was alive then) */
    bool *ucx_crash;    /* [nranks]: the rank failed an assertion inside UCX */
    bool *in_backtrace; /* [nranks]: the rank is printing UCX's backtrace */
    int first_lost;     /* the first rank a peer lost, or -1 */
    char lost_why[128]; /* what UCX said of the first connection lost */
    bool timed_out;     /* mpirun's --timeout fired */
    char running[2048]; /* "rank R on H, ..." of the ranks still running then */
    /* parsing state */
    int pending_rank; /* "process rank R with PID P on" waits for "node H ..." */
    long pending_pid;
    int exit_rank;    /* "Process name: [[J,1],R]" waits for "Exit code: C" */
    bool in_app_job;  /* inside the report of the application's processes */
    bool in_block;    /* inside one of mpirun's blocks (between lines of dashes) */
    bool block_known; /* that block is a report meshrun's line replaces */
    char *block;      /* its lines so far */
    size_t block_len, block_cap;
} meshrun_reports_t;

/**
 * @brief Start reading the reports of a job of @p nranks ranks, from the environment's
 * MESHMEM_DEBUG and UCX_LOG_LEVEL. @return 0, or -1 when memory is short.
 */
int meshrun_reports_init(meshrun_reports_t *r, int nranks);

/** @brief Release what meshrun_reports_init took (what is held back is dropped). */
void meshrun_reports_fini(meshrun_reports_t *r);

/**
 * @brief A line of mpirun's own (@p len bytes, no newline): read, then written to stderr now,
 * held with the rest of its block, or kept back.
 */
void meshrun_reports_mpirun_line(meshrun_reports_t *r, const char *line, size_t len);

/** @brief The end of mpirun's output: a block still held (cut off) is written out. */
void meshrun_reports_end(meshrun_reports_t *r);

/**
 * @brief A line rank @p rank wrote to stderr (@p len bytes, no newline), read for what it
 * reports. A meshrun_line_filter_t (meshrun_output.h). @return false to keep it back.
 */
bool meshrun_reports_rank_line(void *r, int rank, const char *line, size_t len);

/**
 * @brief The rank whose end the peers' lost connections point to: one a peer lost that lost
 * none itself (a rank killed by the job's end loses its peers too), else the first lost; -1.
 */
int meshrun_reports_lost_rank(const meshrun_reports_t *r);

/**
 * @brief The rank that ended the job, when mpirun named a rank killed by a signal that UCX
 * raised itself (an assertion failed in UCX 1.13 while it handled a connection to a rank that
 * had died, and mpirun heard of that abort first): the rank the peers lost; else mpirun's.
 */
int meshrun_reports_cause(const meshrun_reports_t *r);

#endif /* MESHRUN_REPORTS_H */
