/**
 * @file meshrun_multi.h
 * @brief meshrun across hosts: --hosts, --hostfile and --vhosts start the job through OpenMPI's
 * mpirun (whose PMIx server the ranks bootstrap from), and supervise it.
 *
 * meshrun places the ranks (meshrun_hosts.h), writes one host per rank for mpirun's sequential
 * mapper (on virtual hosts with --bind-to core, a rankfile binding rank r to the r-th CPU of
 * this machine, which they share), forwards meshmem's environment (every MESHMEM_*, SHMEM_* and UCX_* variable), adds
 * the settings that make a failure end the job on every host within 2 s (see
 * meshrun_multi_defaults in meshrun_multi.c), runs mpirun with its output passing through
 * meshrun (the ranks' lines whole), and turns what mpirun and the ranks report into one line
 * naming the rank and its host and the exit status of the single-machine path. With --vhosts it first builds a virtual cluster on
 * this machine (tools/meshrun-vhosts) and removes it afterwards, whatever happened.
 */
#ifndef MESHRUN_MULTI_H
#define MESHRUN_MULTI_H

#include <stdbool.h>

/** What the command line asked of a multi-host launch. */
typedef struct {
    const char *hosts;    /* --hosts LIST, or NULL */
    const char *hostfile; /* --hostfile FILE, or NULL */
    int vhosts;           /* --vhosts H; 0: none */
    bool by_node;         /* --map-by node (default: by slot) */
    int nranks;           /* -n N; -1: one per slot (hosts) or per virtual host */
    bool bind;            /* --bind-to core */
    double timeout;       /* --timeout SEC; 0: none */
    bool tag_output;      /* --tag-output: each rank's lines marked "[RANK] " */
    char **prog;          /* the program and its arguments, NULL-terminated */
} meshrun_multi_t;

/**
 * @brief Run the job described by @p m through mpirun, to its end.
 * @return meshrun's exit status: 0, the first failing rank's status (128 + signal for a rank
 * killed by a signal), 124 after --timeout, 128 + signal when meshrun was interrupted, 1 when a
 * host was lost or mpirun failed by itself, 2 for bad input.
 */
int meshrun_multi_run(const meshrun_multi_t *m);

#endif /* MESHRUN_MULTI_H */
