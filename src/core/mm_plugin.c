/* Loading meshmem's plugins (mm_plugin.h). */
#include "mm_plugin.h"
#include "mm_wait.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mm_plugin_host_t mm_host;

static void mm_plugin_progress_hook(void)
{
    if (mm_progress_hook)
        mm_progress_hook();
}

const mm_plugin_host_t *mm_plugin_host(void)
{
    mm_host = (mm_plugin_host_t){.abi = MM_PLUGIN_ABI,
                                 .g = &mm_g,
                                 .config = &mm_config,
                                 .allgather = mm_boot ? mm_boot->allgather : NULL,
                                 .set_job = mm_boot_set_job,
                                 .log = mm_log,
                                 .fatal = mm_fatal,
                                 .wake_self = mm_wake_self,
                                 .progress_hook = mm_plugin_progress_hook};
    return &mm_host;
}

void *mm_plugin_open(const char *file, const char *entry, const char *why)
{
    char dirs[4][PATH_MAX] = {{0}};
    const char *env = getenv("MESHMEM_PLUGIN_DIR");
    if (env && *env)
        snprintf(dirs[0], sizeof(dirs[0]), "%s", env);
    Dl_info info;
    if (dladdr((void *)mm_plugin_open, &info) && info.dli_fname) {
        char self[PATH_MAX];
        snprintf(self, sizeof(self), "%s", info.dli_fname);
        snprintf(dirs[1], sizeof(dirs[1]), "%s", dirname(self));
        if (snprintf(dirs[2], sizeof(dirs[2]), "%s/../lib", dirs[1]) >= (int)sizeof(dirs[2]))
            dirs[2][0] = '\0';
    }
#ifdef MESHMEM_LIBDIR
    snprintf(dirs[3], sizeof(dirs[3]), "%s", MESHMEM_LIBDIR);
#endif
    char tried[4 * PATH_MAX + 64] = "";
    void *h = NULL;
    for (int i = 0; i < 4 && h == NULL; i++) {
        if (!dirs[i][0])
            continue;
        char path[PATH_MAX + 64];
        if (snprintf(path, sizeof(path), "%s/%s", dirs[i], file) >= (int)sizeof(path))
            continue;
        size_t used = strlen(tried);
        if (snprintf(tried + used, sizeof(tried) - used, "%s%s", used ? ", " : "", path) < 0)
            tried[used] = '\0';
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (h == NULL)
        h = dlopen(file, RTLD_NOW | RTLD_LOCAL); /* LD_LIBRARY_PATH */
    if (h == NULL) {
        mm_error("meshmem_init: %s, but %s cannot be loaded (%s; tried %s)", why, file, dlerror(),
                 tried);
        return NULL;
    }
    void *fn = dlsym(h, entry);
    if (fn == NULL)
        mm_error("meshmem_init: %s is not a meshmem plugin (no %s)", file, entry);
    return fn;
}
