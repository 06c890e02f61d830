/**
 * @file app_harness.h
 * @brief The harness every case-study application and its OpenMPI twin are written on: one
 * command line (a table of options), timed rounds, a verification verdict, one result line and
 * the exit status, the same on every runtime.
 *
 * A program is, in order:
 *
 *     app_t h = APP_INIT("fft", "fft");            name for messages, tag of the result line
 *     h.iters = 3;                                   defaults of the common options, if not these
 *     app_parse(&h, "fft [options]", opts, argc, argv);   exit 2 on a bad option, 0 after -h
 *     app_start(&h, &app_rt_meshmem);                or &app_rt_mpi in the twin
 *     ... checks needing the rank count: app_arg_error(&h, "...") ends every rank with status 2
 *     ... setup ...
 *     app_time_runs(&h, &runs);                      warm-up, timed runs: h.t
 *     app_verdict(&h, bad, err, "what went wrong");  global over ranks: h.verified
 *     app_report(&h, "n=%d ...", ...);               rank 0 prints "@fft n=... seconds=..."
 *     return app_finish(&h);                         0 verified, 1 not
 *
 * Common options (every program takes them; the table adds the program's own):
 *   -i ITERS timed runs, -w WARMUP untimed runs first, -s SEED input seed, -C corrupt the
 *   result before verifying (tests that the verifier fails), -h usage.
 *
 * Exit status: 0 every verdict verified, 1 a verdict failed, 2 bad arguments (the message, one
 * line naming the option and its value, comes from rank 0 only).
 *
 * Result line: `@TAG <the program's fields> runtime=R ranks=N seconds=S best=B iters=I
 * times=t1,t2,... verified=V max_err=E`, read by python/meshmem/cli/apps/programs.py. seconds is the
 * median of the timed runs (APP_TIME_EACH: each run's time is the slowest rank's, from a
 * common barrier) or the slowest rank's mean (APP_TIME_MEAN).
 *
 * Model annotations: app_start enters the phase "setup" (host work that `meshrun --fabric`
 * leaves out of the predicted total, docs/model.md); app_time_runs enters the runs' phase for
 * the timed work and returns to "setup" after it, so only the timed work is predicted.
 *
 * The runtime is a table of a few operations (app_rt_t): app_rt_meshmem.c (public meshmem API)
 * and app_rt_mpi.c (MPI, built by mpicc into the twins). This file and app_harness.c use
 * neither runtime directly.
 */
#ifndef APP_HARNESS_H
#define APP_HARNESS_H

#include "app_common.h"

#include <stddef.h>
#include <stdint.h>

/** Reductions of app_rt_t.allreduce (over doubles). */
typedef enum { APP_SUM, APP_MAX, APP_MIN } app_red_t;

/** The runtime under a program: what the harness needs from meshmem or MPI. */
typedef struct app_rt {
    const char *name;  /**< "meshmem" or "openmpi" */
    int (*init)(void); /**< 0 on success */
    void (*finalize)(void);
    int (*rank)(void);
    int (*nranks)(void);
    void (*barrier)(void);
    void (*allreduce)(double *v, int n, app_red_t op); /**< in place, over every rank */
    void (*phase)(const char *name);                   /**< model phase (no-op without a model) */
    void (*abort)(int status);                         /**< end every rank now (does not return) */
    double (*now)(void); /**< the job's clock in seconds: meshmem_wtime (simulated time on the
                              rtl transport), app_now on MPI */
} app_rt_t;

/** meshmem's runtime table (app_rt_meshmem.c). */
extern const app_rt_t app_rt_meshmem;
/** MPI's runtime table (app_rt_mpi.c, compiled by mpicc into the twins). */
extern const app_rt_t app_rt_mpi;

/** Kinds of option values. */
typedef enum {
    APP_INT,    /**< int, at least .min */
    APP_COUNT,  /**< long long count: 1000, 16M, 2^24 (mm_parse_size), at least .min */
    APP_U64,    /**< uint64_t, any base (0x...) */
    APP_DOUBLE, /**< double, at least .min */
    APP_STR,    /**< const char * */
    APP_FLAG,   /**< int set to 1 */
} app_kind_t;

/** One option of a program's table; the table ends with an entry whose key is 0. */
typedef struct {
    char key; /**< the option letter */
    app_kind_t kind;
    void *value;      /**< where the value goes (int *, long long *, ...) */
    long long min;    /**< smallest value accepted (APP_INT, APP_COUNT, APP_DOUBLE) */
    const char *meta; /**< the value's name in the usage, e.g. "ITERS" */
    const char *help; /**< one line */
} app_opt_t;

/** How app_time_runs times the runs. */
typedef enum {
    APP_TIME_EACH, /**< a barrier before every run; a run's time is its slowest rank's */
    APP_TIME_MEAN, /**< each rank's mean over the runs, the slowest rank's (OSU-style, for runs
                        of microseconds: no collective between them) */
} app_timing_t;

/** The timings of the last app_time_runs. */
typedef struct {
    double *times; /**< per timed run (APP_TIME_EACH), or the one mean (APP_TIME_MEAN) */
    int n;         /**< entries in times */
    int runs;      /**< timed runs (the result line's iters) */
    double median; /**< median of times */
    double best;   /**< smallest of times */
} app_times_t;

/** One program's harness state. */
typedef struct app {
    const char *prog;   /**< name in messages */
    const char *tag;    /**< tag of the result line (@TAG) */
    const app_rt_t *rt; /**< set by app_start */
    int me, nranks;
    int iters, warmup; /**< -i, -w (a program may default warmup to -1: "its own choice") */
    uint64_t seed;     /**< -s */
    int corrupt;       /**< -C */
    app_times_t t;     /**< the last app_time_runs */
    int verified;      /**< the last verdict */
    double max_err;    /**< the last verdict's largest error (over ranks) */
    uint64_t bad;      /**< the last verdict's failures (over ranks) */
    int failed;        /**< some verdict failed: app_finish returns 1 */
} app_t;

/** A harness for program @p prog whose results are tagged @p tag: 5 runs, 1 warm-up, seed 1. */
#define APP_INIT(prog_, tag_)                                                                      \
    ((app_t){.prog = (prog_), .tag = (tag_), .iters = 5, .warmup = 1, .seed = 1})

/**
 * @brief Parse the command line: @p opts (the program's table) and the common options. Runs
 * before the runtime starts. A bad option or value prints "PROG: -X VALUE: why" (rank 0 of the
 * job only, by the launcher's environment) and exits with status 2; -h prints the usage
 * (@p synopsis, then every option) and exits with 0.
 */
void app_parse(app_t *h, const char *synopsis, const app_opt_t *opts, int argc, char **argv);

/** @brief A bad argument found before the runtime starts (after app_parse): "PROG: message"
 * from rank 0 of the job only, exit status 2. */
void app_bad_option(const app_t *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/** @brief A bad argument unless @p value is one of the comma-separated @p choices: "PROG: -KEY
 * VALUE: one of CHOICES" (app_bad_option). */
void app_check_choice(const app_t *h, char key, const char *value, const char *choices);

/** @brief Start runtime @p rt (exit 1 if it does not start), note rank and size, enter the
 * model phase "setup". */
void app_start(app_t *h, const app_rt_t *rt);

/**
 * @brief A bad argument found once the job runs (e.g. against the rank count): rank 0 prints
 * "PROG: message", every rank stops the runtime and exits with status 2. Collective: every
 * rank must come here.
 */
void app_arg_error(app_t *h, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/** @brief Fatal error on one rank (out of memory, a failed call): "PROG: message" from that
 * rank, then the whole job ends with status 1. */
void app_fatal(app_t *h, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/** @return malloc(@p bytes) (at least 1), or app_fatal naming @p what. */
void *app_alloc(app_t *h, size_t bytes, const char *what);

/** What app_time_runs runs. */
typedef struct {
    void (*prepare)(void *ctx, int run); /**< untimed, before the run's barrier (may be NULL) */
    void (*run)(void *ctx, int run);     /**< the timed work */
    void (*check)(void *ctx, int run);   /**< untimed, after each run (may be NULL) */
    void *ctx;
    const char *phase; /**< model phase of the timed work; NULL: run() names its own */
    app_timing_t timing;
    int barrier; /**< APP_TIME_MEAN: a barrier before every run too */
    int iters;   /**< timed runs (0: h->iters) */
    int warmup;  /**< untimed runs first (-1: h->warmup) */
} app_runs_t;

/** @brief Run warm-up and timed runs of @p r (collective); the timings go to h->t. */
void app_time_runs(app_t *h, const app_runs_t *r);

/**
 * @brief The verification verdict (collective): @p bad failures and largest error @p err of this
 * rank are summed and maxed over the ranks into h->bad, h->max_err, h->verified (bad == 0 and
 * err not NaN). On failure rank 0 prints "PROG: verification FAILED: @p what (N failures,
 * largest error E)" and app_finish will return 1.
 * @return h->verified.
 */
int app_verdict(app_t *h, uint64_t bad, double err, const char *what);

/**
 * @brief Rank 0 prints the result line: "@TAG", the fields of @p fmt, then runtime, ranks and
 * the timing and verdict fields (see the file comment). Other ranks print nothing.
 */
void app_report(app_t *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** @brief Stop the runtime. @return the exit status: 0 when every verdict was verified, else 1. */
int app_finish(app_t *h);

/** @brief Parse a comma-separated list of counts (mm_parse_size) into @p out (at most @p max).
 * @return how many, or -1 for a bad entry. */
int app_parse_counts(const char *s, long long *out, int max);

#endif /* APP_HARNESS_H */
