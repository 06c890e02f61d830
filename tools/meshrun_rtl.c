/* meshrun --rtl: the simulator process of the rtl transport and the block it shares with the
 * ranks (src/transport/rtl/mm_rtl_ctl.h). */
#include "meshrun_rtl.h"
#include "mm_rtl_ctl.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MESHMEM_RTL_CONFIGS
#define MESHMEM_RTL_CONFIGS ""
#endif

static pid_t sim_pid = -1;

bool meshrun_rtl_is_sim(pid_t pid)
{
    return pid > 0 && pid == sim_pid;
}

/* @p config as a file, else as a name of the configurations built in, into @p path */
/* @p config as a file, else as a name of the configurations in @p dir (NAME or NAME.toml). */
static bool config_in(const char *dir, const char *config, char *path, size_t len)
{
    struct stat st;
    snprintf(path, len, "%s/%s%s", dir, config, strstr(config, ".toml") ? "" : ".toml");
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A file, or a name of the source tree's rtl/configs, else of the installed package's copy
 * beside meshrun's directory (meshmem/_runtime/bin -> meshmem/_runtime/rtl-configs). */
static bool find_config(const char *config, const char *bindir, char *path, size_t len)
{
    struct stat st;
    if (stat(config, &st) == 0 && S_ISREG(st.st_mode)) {
        snprintf(path, len, "%s", config);
        return true;
    }
    if (strchr(config, '/') != NULL)
        return false;
    char installed[PATH_MAX + 16];
    snprintf(installed, sizeof(installed), "%s/../rtl-configs", bindir);
    return (*MESHMEM_RTL_CONFIGS && config_in(MESHMEM_RTL_CONFIGS, config, path, len)) ||
           config_in(installed, config, path, len);
}

pid_t meshrun_rtl_start(const char *config, int nranks)
{
    char self[PATH_MAX], sim[PATH_MAX + 32], path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        fprintf(stderr, "meshrun: --rtl: cannot find meshrun's own directory\n");
        return -1;
    }
    self[n] = '\0';
    const char *bindir = dirname(self);
    snprintf(sim, sizeof(sim), "%s/meshmem-rtlsim", bindir);
    if (access(sim, X_OK) != 0) {
        fprintf(stderr,
                "meshrun: --rtl: the simulator is not built (no %s: meshmem was built "
                "without Verilator; scripts/install-deps.sh installs it)\n",
                sim);
        return -1;
    }
    if (!find_config(config, bindir, path, sizeof(path))) {
        fprintf(stderr,
                "meshrun: --rtl argument \"%s\" is neither a file nor a configuration "
                "of %s\n",
                config, *MESHMEM_RTL_CONFIGS ? MESHMEM_RTL_CONFIGS : "rtl/configs");
        return -1;
    }
    size_t bytes = mm_rtl_ctl_bytes((uint32_t)nranks);
    int fd = memfd_create("meshmem-rtl-ctl", 0);
    if (fd < 0 || fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)bytes) != 0) {
        fprintf(stderr, "meshrun: --rtl: cannot create the control block: %s\n", strerror(errno));
        return -1;
    }
    mm_rtl_ctl_t *ctl = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ctl == MAP_FAILED) {
        fprintf(stderr, "meshrun: --rtl: mmap: %s\n", strerror(errno));
        return -1;
    }
    ctl->magic = MM_RTL_CTL_MAGIC;
    ctl->nranks = (uint32_t)nranks;
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < 3; k++)
            ctl->rank[r].fd[k] = -1;
    char buf[32];
    snprintf(buf, sizeof(buf), "%d", fd);
    setenv("MESHMEM_RTL_FD", buf, 1);
    setenv("MESHMEM_NET", "rtl", 1);
    setenv("MESHMEM_SHM", "0", 1);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "meshrun: --rtl: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        execl(sim, sim, path, (char *)NULL);
        fprintf(stderr, "meshrun: cannot run %s: %s\n", sim, strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    sim_pid = pid;
    /* the configuration read (or its one line printed) before any rank starts */
    for (;;) {
        uint32_t st = atomic_load(&ctl->sim_state);
        if (st == MM_RTL_S_RUNNING)
            break;
        int ws;
        if (st == MM_RTL_S_FAILED || waitpid(pid, &ws, WNOHANG) == pid) {
            kill(pid, SIGKILL);
            return -1;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    munmap(ctl, bytes);
    return pid;
}
