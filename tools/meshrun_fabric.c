/* meshrun --fabric: the trace directory and the two calls of `meshmem model replay`. */
#include "meshrun_fabric.h"
#include "meshrun_tool.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* "NAME=VALUE", allocated; NULL when memory is short */
static char *option_value(const char *name, const char *value)
{
    char *out;
    return asprintf(&out, "%s=%s", name, value) < 0 ? NULL : out;
}

/* run `meshmem model replay --fabric F` with @p extra arguments; the exit status */
static int run_replay(const meshrun_fabric_t *f, const char **extra)
{
    char tool[PATH_MAX];
    if (meshrun_tool_path("meshmem", tool, sizeof(tool)) != 0) {
        fprintf(stderr, "meshrun: --fabric needs the meshmem command next to meshrun: not found\n");
        return 2;
    }
    /* 4 fixed, the scale, one per override, the caller's (at most 5), the NULL. A value the
       user gave travels as --option=VALUE, so that one beginning with '-' stays a value. */
    const char *argv[4 + 1 + MESHRUN_FABRIC_SETS + 5 + 1] = {tool, "model", "replay"};
    char *owned[1 + 1 + MESHRUN_FABRIC_SETS + 5] = {0};
    int a = 3, o = 0;
    argv[a++] = owned[o++] = option_value("--fabric", f->fabric);
    if (f->compute_scale)
        argv[a++] = owned[o++] = option_value("--compute-scale", f->compute_scale);
    for (int i = 0; i < f->nsets; i++)
        argv[a++] = owned[o++] = option_value("--fabric-set", f->sets[i]);
    for (int i = 0; extra[i] && a < (int)(sizeof(argv) / sizeof(argv[0])) - 1; i++)
        argv[a++] = extra[i];
    argv[a] = NULL;
    for (int i = 0; i < o; i++)
        if (owned[i] == NULL) {
            fprintf(stderr, "meshrun: --fabric: out of memory\n");
            return 2;
        }
    pid_t pid;
    int err = posix_spawn(&pid, tool, NULL, NULL, (char *const *)argv, environ);
    for (int i = 0; i < o; i++)
        free(owned[i]);
    if (err != 0) {
        fprintf(stderr, "meshrun: cannot run %s: %s\n", tool, strerror(err));
        return 2;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

int meshrun_fabric_prepare(meshrun_fabric_t *f, int nranks)
{
    if (f->fabric == NULL)
        return 0;
    char ranks[16];
    snprintf(ranks, sizeof(ranks), "%d", nranks);
    const char *check[] = {"--check", "--ranks", ranks, NULL};
    if (run_replay(f, check) != 0) {
        fprintf(stderr,
                "meshrun: --fabric %s: the fabric cannot be used (see above); nothing "
                "was started\n",
                f->fabric);
        return 2;
    }
    /* a mkdtemp template under $TMPDIR (the ranks' trace files, removed after the replay) */
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(f->trace_dir, sizeof(f->trace_dir), "%s/meshmem-trace.XXXXXX",
                     tmp && *tmp ? tmp : "/tmp");
    if (n < 0 || (size_t)n >= sizeof(f->trace_dir)) {
        fprintf(stderr, "meshrun: --fabric: TMPDIR is too long for a trace directory\n");
        f->trace_dir[0] = 0;
        return 1;
    }
    if (mkdtemp(f->trace_dir) == NULL) {
        fprintf(stderr, "meshrun: --fabric: cannot make a trace directory: %s\n", strerror(errno));
        f->trace_dir[0] = 0;
        return 1;
    }
    setenv("MESHMEM_TRACE_DIR", f->trace_dir, 1);
    return 0;
}

/* remove the trace directory and the files the ranks wrote into it */
static void remove_trace_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int meshrun_fabric_finish(meshrun_fabric_t *f, int status)
{
    if (f->fabric == NULL || f->trace_dir[0] == 0)
        return status;
    if (status == 0) {
        fflush(stdout);
        char *json = f->json ? option_value("--json", f->json) : NULL;
        const char *replay[] = {"--trace", f->trace_dir, json, NULL};
        int rs = run_replay(f, replay);
        free(json);
        if (rs != 0) {
            fprintf(stderr,
                    "meshrun: --fabric %s: the replay of the job's trace failed (see "
                    "above)\n",
                    f->fabric);
            status = rs;
        }
    }
    remove_trace_dir(f->trace_dir);
    return status;
}
