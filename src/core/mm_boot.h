/**
 * @file mm_boot.h
 * @brief Bootstrap: who is in the job, where each rank runs, and the few collective steps that
 * init and finalize need before (and after) the transports exist.
 *
 * One interface, three implementations, chosen at init from the environment:
 *   meshrun  ranks forked by meshrun on one machine: the job control block is an inherited
 *            memfd (MESHMEM_CTL_FD, mm_ctl.h); exchanges go through it (mm_boot_meshrun.c);
 *   pmix     ranks started by a PMIx launcher (OpenMPI's mpirun/prterun, Slurm's srun
 *            --mpi=pmix): PMIx_Put/Commit/Fence/Get (pmix/mm_boot_pmix.c, loaded as a
 *            plugin only then: mm_plugin.h);
 *   single   no launcher: one rank.
 *
 * Where each rank runs is decided here from what every rank publishes about itself (its host
 * name, the kernel's boot id and the inodes of its IPC and network namespaces), never from a
 * launcher's node id: PMIX_NODEID is not defined for remote peers under OpenMPI 4.1, and two
 * virtual hosts on one machine share a boot id but not their namespaces. Ranks with the same
 * boot id and namespaces can map each other's memory: they form a node (mm_g.node_of).
 */
#ifndef MM_BOOT_H
#define MM_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Operations of a bootstrap implementation. Collective ones are called by every rank, in the
 * same order. Each returns 0, or -1 after logging why. */
typedef struct {
    const char *name;
    /** Join the job: set mm_g.rank and mm_g.nranks and the job's id (mm_boot_job). */
    int (*init)(void);
    /** Collective: every rank's @p len bytes at @p mine into @p all (nranks * len, rank order). */
    int (*allgather)(const void *mine, void *all, size_t len);
    /** Collective: return when every rank has called it. */
    int (*barrier)(void);
    /** Record this rank's lifecycle state (MM_RANK_*, mm_ctl.h) where the launcher reads it. */
    void (*set_state)(int state);
    /** @return the status + 1 with which the job is being ended, or 0 while it runs. */
    int (*ending)(void);
    /** End the whole job with @p status (global_exit, fatal errors); does not return. */
    void (*abort)(int status, const char *why) __attribute__((noreturn));
    /** Claim the report of an error that every rank may detect at once: true for the first
     * rank that asks (it prints the line, then aborts), false for the others. NULL where the
     * bootstrap cannot tell: every rank then reports (mm_fatal_collective). */
    bool (*claim_report)(void);
    /** Tell the launcher the call this rank waits in ("" when none), for its --timeout line;
     * NULL where the launcher cannot be told. Called when a wait has lasted, never on a fast
     * path. */
    void (*set_call)(const char *call);
    /** Leave the job (after finalize's last barrier). */
    void (*fini)(void);
} mm_boot_ops_t;

/** What a rank publishes about where it runs (fixed size: exchanged with allgather). */
typedef struct {
    char host[64];    /* gethostname() */
    char boot_id[40]; /* /proc/sys/kernel/random/boot_id */
    uint64_t ipc_ns;  /* inode of /proc/self/ns/ipc */
    uint64_t net_ns;  /* inode of /proc/self/ns/net (abstract sockets live there) */
    int32_t pid;
    uint32_t uid;
    uint64_t heap_seg_bytes; /* the rank's segment and static data sizes, checked by peers */
    uint64_t data_seg_bytes;
} mm_boot_card_t;

/** The implementation in use (set by mm_boot_init). */
extern const mm_boot_ops_t *mm_boot;

/**
 * @brief Choose the implementation from the environment and join the job.
 * @return 0, or -1 after logging why.
 */
int mm_boot_init(void);

/** @return the job's id: a short string unique on the machine while the job runs, usable in
 * socket and object names. */
const char *mm_boot_job(void);

/** @brief Fill @p card with where this rank runs (host, boot id, namespaces, pid, uid). */
void mm_boot_card_fill(mm_boot_card_t *card);

/** @return true when two cards describe the same node (memory can be shared between them). */
bool mm_boot_same_node(const mm_boot_card_t *a, const mm_boot_card_t *b);

/* the implementations built into the library (PMIx's is a plugin: mm_plugin.h) */
extern const mm_boot_ops_t mm_boot_meshrun_ops;
extern const mm_boot_ops_t mm_boot_single_ops;

/** @brief Set the job id (for the implementations). */
void mm_boot_set_job(const char *job);

#endif /* MM_BOOT_H */
