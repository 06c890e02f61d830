/**
 * @file meshrun_fabric.h
 * @brief meshrun --fabric: run the job with tracing on, then predict its time on a modelled
 * fabric with `meshmem model replay` (the model stays in Python: python/meshmem/model/).
 */
#ifndef MESHRUN_FABRIC_H
#define MESHRUN_FABRIC_H

#include <limits.h>

#define MESHRUN_FABRIC_SETS 8 /* --fabric-set options at most */

/** What --fabric, --compute-scale, --fabric-json and --fabric-set asked for. */
typedef struct {
    const char *fabric;                    /* fabric file or name; NULL: no modelling */
    const char *sets[MESHRUN_FABRIC_SETS]; /* SECTION.KEY=VALUE overrides, for the replay */
    int nsets;
    const char *compute_scale; /* as given, checked by the replay; NULL: the fabric's */
    const char *json;          /* also write the prediction as JSON here; NULL: no */
    char trace_dir[PATH_MAX];  /* the job's trace directory, once made */
} meshrun_fabric_t;

/**
 * @brief Before launching: check that the fabric loads and holds @p nranks ranks (the replay's
 * --check), make the trace directory and set MESHMEM_TRACE_DIR for the ranks.
 * @return 0, or the status to exit with after a line naming --fabric and the file.
 */
int meshrun_fabric_prepare(meshrun_fabric_t *f, int nranks);

/**
 * @brief After the job: when it succeeded (@p status 0), replay the traces and print the
 * prediction; always remove the trace directory.
 * @return @p status, or the replay's non-zero status.
 */
int meshrun_fabric_finish(meshrun_fabric_t *f, int status);

#endif /* MESHRUN_FABRIC_H */
