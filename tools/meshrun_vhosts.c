/* meshrun --vhosts: the calls to tools/meshrun-vhosts. */
#include "meshrun_vhosts.h"
#include "meshrun_tool.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCRIPT "meshrun-vhosts"

static int script_path(char *out, size_t size, char *why, size_t why_size)
{
    if (meshrun_tool_path(SCRIPT, out, size) == 0)
        return 0;
    snprintf(why, why_size, "%s is missing next to meshrun (build with make)", SCRIPT);
    return -1;
}

int meshrun_vhosts_check(char *why, size_t size)
{
    char script[PATH_MAX];
    if (script_path(script, sizeof(script), why, size) != 0)
        return -1;
    const char *argv[] = {script, "check", NULL};
    int rc = meshrun_tool_run(argv, why, size);
    if (rc == 0)
        return 0;
    if (why[0] == '\0')
        snprintf(why, size, "%s check failed (status %d)", SCRIPT, rc);
    return -1;
}

int meshrun_vhosts_up(int nhosts, int slots, char *dir, size_t size)
{
    char script[PATH_MAX], why[256], hosts[16], owner[16], nslots[16];
    if (script_path(script, sizeof(script), why, sizeof(why)) != 0) {
        fprintf(stderr, "meshrun: --vhosts: %s\n", why);
        return -1;
    }
    snprintf(hosts, sizeof(hosts), "%d", nhosts);
    snprintf(owner, sizeof(owner), "%d", (int)getpid());
    snprintf(nslots, sizeof(nslots), "%d", slots);
    const char *argv[] = {script, "up", hosts, owner, nslots, NULL};
    if (meshrun_tool_run(argv, dir, size) != 0 || dir[0] != '/') {
        fprintf(stderr,
                "meshrun: --vhosts %d: the virtual cluster could not be built (see "
                "above)\n",
                nhosts);
        return -1;
    }
    return 0;
}

int meshrun_vhosts_apply_env(const char *dir)
{
    char script[PATH_MAX], why[256], env[4096];
    if (script_path(script, sizeof(script), why, sizeof(why)) != 0) {
        fprintf(stderr, "meshrun: --vhosts: %s\n", why);
        return -1;
    }
    const char *argv[] = {script, "env", dir, NULL};
    if (meshrun_tool_run(argv, env, sizeof(env)) != 0) {
        fprintf(stderr, "meshrun: --vhosts: the cluster's environment is unknown (see above)\n");
        return -1;
    }
    char *save = NULL;
    for (char *line = strtok_r(env, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        /* the user's own choice of UCX transports and devices wins */
        setenv(line, eq + 1, strncmp(line, "UCX_", 4) != 0);
    }
    return 0;
}

int meshrun_vhosts_on_head(const char *dir, char *script, size_t size, const char *argv[4])
{
    char why[256];
    if (script_path(script, size, why, sizeof(why)) != 0) {
        fprintf(stderr, "meshrun: --vhosts: %s\n", why);
        return -1;
    }
    argv[0] = script;
    argv[1] = "exec";
    argv[2] = dir;
    argv[3] = "head";
    return 0;
}

void meshrun_vhosts_down(const char *dir)
{
    char script[PATH_MAX], why[256];
    if (script_path(script, sizeof(script), why, sizeof(why)) != 0) {
        fprintf(stderr, "meshrun: --vhosts: %s: the cluster in %s stays until the next run\n", why,
                dir);
        return;
    }
    const char *argv[] = {script, "down", dir, NULL};
    if (meshrun_tool_run(argv, NULL, 0) != 0)
        fprintf(stderr,
                "meshrun: --vhosts: removing the cluster in %s failed (see above); the "
                "next meshrun --vhosts removes it\n",
                dir);
}
