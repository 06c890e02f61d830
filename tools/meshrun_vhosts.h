/**
 * @file meshrun_vhosts.h
 * @brief meshrun --vhosts: the virtual cluster a job runs on, built and removed by the script
 * tools/meshrun-vhosts (installed next to meshrun; its head describes the cluster).
 */
#ifndef MESHRUN_VHOSTS_H
#define MESHRUN_VHOSTS_H

#include <stddef.h>

/**
 * @brief Whether a virtual cluster can be built here (root, ip, unshare, nsenter, mpirun).
 * @return 0, or -1 with a one-line reason in @p why.
 */
int meshrun_vhosts_check(char *why, size_t size);

/**
 * @brief Build @p nhosts virtual hosts of @p slots slots for this process (removing first the
 * clusters of ended jobs); the cluster's directory goes to @p dir.
 * @return 0, or -1 after the script said why.
 */
int meshrun_vhosts_up(int nhosts, int slots, char *dir, size_t size);

/**
 * @brief Set the environment that makes mpirun launch on the cluster in @p dir: its rsh agent
 * and network (OMPI_MCA_*), and UCX over TCP on each host's veth (UCX_TLS, UCX_NET_DEVICES)
 * unless the caller chose them already.
 * @return 0, or -1 after a line saying why.
 */
int meshrun_vhosts_apply_env(const char *dir);

/**
 * @brief The command that runs a program on the head of the cluster in @p dir (the network
 * namespace holding the cluster's bridge, where mpirun must run): @p argv receives the 4 words
 * to put before the program; @p script holds the script's path they point into.
 * @return 0, or -1 after a line saying why.
 */
int meshrun_vhosts_on_head(const char *dir, char *script, size_t size, const char *argv[4]);

/** @brief Stop whatever still runs on the cluster in @p dir and remove the cluster. */
void meshrun_vhosts_down(const char *dir);

#endif /* MESHRUN_VHOSTS_H */
