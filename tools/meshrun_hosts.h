/**
 * @file meshrun_hosts.h
 * @brief The hosts of a multi-host job (--hosts, --hostfile, --vhosts) and where each rank
 * runs on them.
 *
 * meshrun places the ranks itself and hands mpirun one host per rank (OpenMPI's sequential
 * mapper, rmaps seq), so that it knows which host each rank is on when it reports a failure,
 * whatever the version of mpirun's own mapping policies.
 */
#ifndef MESHRUN_HOSTS_H
#define MESHRUN_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#define MESHRUN_HOST_NAME_MAX 255 /* a DNS name */

/** One host and the ranks it may hold. */
typedef struct {
    char name[MESHRUN_HOST_NAME_MAX + 1];
    int slots;
} meshrun_host_t;

/** The hosts of a job, in the order given. */
typedef struct {
    meshrun_host_t *hosts;
    int nhosts;
    int total_slots;
} meshrun_hostlist_t;

/**
 * @brief Parse a --hosts list: `a:4,b:4` (a host without a count has one slot, as with mpirun's
 * --host). A host named twice adds its slots.
 * @param err receives a one-line reason naming the offending entry when the list is malformed.
 * @return 0, or -1 with @p err set.
 */
int meshrun_hosts_parse_list(const char *text, meshrun_hostlist_t *out, char *err, size_t errlen);

/**
 * @brief Read a hostfile in mpirun's syntax: one host per line, optional `slots=N` (default 1:
 * meshrun cannot count a remote host's cores before starting it), `max_slots=N` accepted and
 * ignored, `#` comments and blank lines skipped. A host named on several lines adds its slots.
 * @return 0, or -1 with @p err set (naming the file and the line).
 */
int meshrun_hosts_parse_file(const char *path, meshrun_hostlist_t *out, char *err, size_t errlen);

/**
 * @brief @p nhosts virtual hosts vhost0.. with @p slots slots each.
 * @return 0, or -1 when out of memory.
 */
int meshrun_hosts_virtual(int nhosts, int slots, meshrun_hostlist_t *out);

/**
 * @brief Place @p nranks ranks on @p list: by slot (fill each host in order before the next)
 * or by node (one rank per host in turn, skipping hosts whose slots are full).
 * @param rank_host receives, for each rank, the index of its host in @p list.
 * @return 0, or -1 when the ranks outnumber the slots.
 */
int meshrun_hosts_place(const meshrun_hostlist_t *list, int nranks, bool by_node, int *rank_host);

/**
 * @brief Write the sequential hostfile of a placement (line r: the host of rank r), the file
 * mpirun's rmaps seq reads.
 * @return 0, or -1 with errno set.
 */
int meshrun_hosts_write_seq(const char *path, const meshrun_hostlist_t *list, const int *rank_host,
                            int nranks);

/**
 * @brief Write a rankfile for mpirun that places rank r on its host and binds it to
 * @p cpus[r mod @p ncpus] (OS cpu numbers; mpirun reads them with rmaps_rank_file_physical): the
 * binding of virtual hosts, which share this machine's cores, so that rank r gets the r-th CPU
 * as on the single-machine path (mpirun's own binding would give the first rank of every
 * virtual host the same core).
 * @return 0, or -1 with errno set.
 */
int meshrun_hosts_write_rankfile(const char *path, const meshrun_hostlist_t *list,
                                 const int *rank_host, int nranks, const int *cpus, int ncpus);

/**
 * @brief The ranks on host @p host as a short list for messages ("2, 3" or "4-7"), into @p out.
 */
void meshrun_hosts_ranks_on(const int *rank_host, int nranks, int host, char *out, size_t size);

/** @brief Free what a parse or meshrun_hosts_virtual allocated. */
void meshrun_hosts_free(meshrun_hostlist_t *list);

#endif /* MESHRUN_HOSTS_H */
