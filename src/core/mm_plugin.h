/**
 * @file mm_plugin.h
 * @brief The parts of meshmem that are loaded only when a job needs them: the PMIx bootstrap
 * (libmeshmem_pmix.so, for ranks started by a PMIx launcher) and the network transports
 * (libmeshmem_NAME.so, for peers that shared memory does not reach: UCX across hosts;
 * their entry is in mm_tp_ops.h).
 *
 * Why plugins: linking UCX and PMIx into every meshmem program would load them into single-host
 * jobs too, where UCX installs signal handlers (a crash would print its backtrace over meshmem's
 * one-line error) and memory hooks, and both bring libraries (libevent, hwloc, munge) and
 * start-up time, for nothing. A plugin sees the runtime only through mm_plugin_host_t, so
 * libmeshmem needs to export nothing but its API.
 */
#ifndef MM_PLUGIN_H
#define MM_PLUGIN_H

#include "mm_boot.h"
#include "mm_config.h"
#include "mm_core.h"

/** Bumped whenever mm_plugin_host_t, mm_tp_ops_t, mm_boot_ops_t or mm_state_t change: the
 * library and its plugins must come from one build. (mm_config_t too: plugins read it.) */
#define MM_PLUGIN_ABI 9

/** What the runtime lends a plugin. */
typedef struct {
    int abi;       /* MM_PLUGIN_ABI */
    mm_state_t *g; /* the rank's state: a boot plugin fills rank, nranks and
                                      local_size; the others only read it */
    const mm_config_t *config;
    int (*allgather)(const void *mine, void *all, size_t len); /* the bootstrap's */
    void (*set_job)(const char *job);
    void (*log)(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    void (*fatal)(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
    void (*wake_self)(void); /* wake this rank's sleepers after writing its memory */
    /* this rank's heap segment and static data as memfds (-1: none), for a network that
       maps them elsewhere (the rtl transport's simulator process); set for the networks
       only (mm_tp_net.c) */
    void (*seg_fds)(int fds[2]);
    /* the runtime's progress hook (active messages: the rings of src/am), what every wait step
       of the runtime runs: for a network whose own waits (an offloaded collective's) stand
       where the runtime's would, or a peer waiting for a reply from this rank waits for ever */
    void (*progress_hook)(void);
} mm_plugin_host_t;

/** The bootstrap plugin's entry (symbol MM_BOOT_PLUGIN_ENTRY), likewise. */
typedef const mm_boot_ops_t *(*mm_boot_plugin_fn)(const mm_plugin_host_t *host);
#define MM_BOOT_PLUGIN_ENTRY "meshmem_boot_plugin"
#define MM_BOOT_PLUGIN_FILE  "libmeshmem_pmix.so"

/** The host this library lends its plugins (filled at first use). */
const mm_plugin_host_t *mm_plugin_host(void);

/**
 * @brief Open plugin @p file (next to libmeshmem.so, in ../lib of a static executable, in the
 * installed library directory, or as MESHMEM_PLUGIN_DIR/@p file) and find @p entry in it.
 * @param why what the plugin is needed for, for the message when it cannot be loaded
 * @return the entry, or NULL after logging why.
 */
void *mm_plugin_open(const char *file, const char *entry, const char *why);

#endif /* MM_PLUGIN_H */
