/**
 * @file sw_app.h
 * @brief What the meshmem program `shallow` and its OpenMPI twin `shallow_mpi` share beyond
 * the scheme and the plan: the command line, the checks against the rank count, the timed
 * runs, the verification and the result line. Each program supplies its exchange (sw_exch_t).
 *
 * A run is STEPS steps from the initial state (reset untimed before it, each run from a common
 * barrier); a step is the exchange that completes the current level's halo, then the scheme's
 * step (sw_step). With -E a step is the exchange alone (the levels keep the initial state),
 * which times the halo exchange on its own. The time in the exchange calls (waits included)
 * is measured on every rank during the timed runs.
 *
 * Verification, after the timed runs: rank 0 runs the serial program (sw_serial) and reads
 * every rank's block; every owned u, v, p must equal the serial values bitwise. The mass (sum
 * of p) must equal the initial mass to round-off (relative 1e-12). With -E: every halo cell
 * must equal the initial state bitwise (sw_check_halo_initial), on every rank.
 *
 * Result line:
 *   @shallow variant=V n=MxN grid=PXxPY steps=S exchange_only=0|1 us_step=.. us_exchange=..
 *   exchange_share=.. mass_err=.. mismatches=.. runtime=.. ranks=.. seconds=.. verified=..
 * us_step: median run time / S; us_exchange: the exchange calls' time per step, the mean over
 * ranks; exchange_share = us_exchange / us_step.
 */
#ifndef SW_APP_H
#define SW_APP_H

#include "sw_halo.h"

#include "../common/app_harness.h"

#include <stddef.h>

/** The command line. */
typedef struct {
    const char *size;    /**< -N MxN */
    const char *variant; /**< -v */
    int steps;           /**< -t */
    int twod;            /**< -d 2 */
    int px;              /**< -g */
    int exchange_only;   /**< -E */
    int M, N;
} sw_opts_t;

/** A program's halo exchange. */
typedef struct {
    /** complete the current level's halo (the step's exchange; with -E the whole step's) */
    void (*halo)(void *ctx);
    /** streaming: called by sw_step as each boundary row of the next level is final; NULL */
    sw_row_fn row;
    /** after the scheme's step (or, with -E, in its place): e.g. send the side strips; NULL */
    void (*stepped)(void *ctx);
    /** after the last step of a run (streaming: wait for the last level's halo); NULL */
    void (*finish)(void *ctx);
    /** rank 0 reads rank @p r's current level (u, v, p, each of its block's cells) */
    void (*fetch)(void *ctx, int r, sw_level_t dst);
    void *ctx;
} sw_exch_t;

/** @brief Parse the command line: the shared options, then the program's own @p extra (at
 * most 3, ended by a 0 key; may be NULL). Variant names in @p variants, comma-separated, the
 * first the default. Exits 2 on a bad option. */
void sw_app_parse(app_t *h, sw_opts_t *o, const char *synopsis, const char *variants,
                  const app_opt_t *extra, int argc, char **argv);

/** @brief The grid of @p P ranks for the options, checked: the ranks per row (-g) divide
 * @p P, every block is at least SW_HALO cells wide and high. @return 0, or -1 with the one-line
 * reason (naming the option) in @p why. */
int sw_app_grid(const sw_opts_t *o, int P, sw_grid_t *g, char *why, size_t len);

/** @brief After app_start: the grid for the rank count, checked (every block at least
 * SW_HALO cells wide and high: app_arg_error otherwise), and this rank's plan. */
void sw_app_plan(app_t *h, const sw_opts_t *o, sw_halo_t *plan);

/** @brief Timed runs of @p s with exchange @p x, the verification and the result line.
 * Collective. @return app_finish's status is the caller's; this returns nothing. */
void sw_app_run(app_t *h, const sw_opts_t *o, sw_state_t *s, const sw_halo_t *plan,
                const sw_exch_t *x);

#endif /* SW_APP_H */
