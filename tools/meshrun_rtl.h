/* meshrun --rtl CONFIG: the simulated OPTWEB engine as the job's network (docs/rtl-transport.md). */
#ifndef MESHRUN_RTL_H
#define MESHRUN_RTL_H

#include <stdbool.h>
#include <sys/types.h>

/**
 * @brief Before the ranks: find the simulator (meshmem-rtlsim beside meshrun) and @p config (a
 * file, or a name of rtl/configs), create the control block the ranks and the simulator share
 * (MESHMEM_RTL_FD), set the ranks' MESHMEM_NET=rtl and MESHMEM_SHM=0, start the simulator in a
 * process group of its own (the job's: the ranks join it) and wait until it has read the
 * configuration.
 * @return the simulator's pid (the job's process group), or -1 after one line on stderr.
 */
pid_t meshrun_rtl_start(const char *config, int nranks);

/** @return true when @p pid is the simulator's (a job's waitpid found it). */
bool meshrun_rtl_is_sim(pid_t pid);

#endif
