/* meshrun's helper programs: where they are and how they are run. */
#include "meshrun_tool.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int meshrun_tool_path(const char *name, char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    int w = snprintf(out, size, "%s/%s", dirname(exe), name);
    return w > 0 && (size_t)w < size && access(out, X_OK) == 0 ? 0 : -1;
}

int meshrun_tool_run(const char *const *argv, char *out, size_t size)
{
    int fds[2] = {-1, -1};
    if (out != NULL && pipe(fds) != 0)
        return 127;
    pid_t pid = fork();
    if (pid < 0) {
        if (out != NULL) {
            close(fds[0]);
            close(fds[1]);
        }
        return 127;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (out != NULL) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
        }
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "meshrun: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    size_t used = 0;
    if (out != NULL) {
        close(fds[1]);
        for (;;) {
            char chunk[4096];
            ssize_t n = read(fds[0], chunk, sizeof(chunk));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            size_t keep = (size_t)n < size - 1 - used ? (size_t)n : size - 1 - used;
            memcpy(out + used, chunk, keep);
            used += keep;
        }
        close(fds[0]);
        out[used] = '\0';
        if (used > 0 && out[used - 1] == '\n')
            out[used - 1] = '\0';
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
