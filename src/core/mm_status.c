/* Status strings and the logging / fatal-error path. */
#include "mm_core.h"
#include "mm_tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *meshmem_status_string(meshmem_status_t status)
{
    switch (status) {
    case MESHMEM_OK: return "success";
    case MESHMEM_INPROGRESS: return "operation in progress";
    case MESHMEM_ERR_ARG: return "invalid argument";
    case MESHMEM_ERR_NOMEM: return "out of memory";
    case MESHMEM_ERR_SYSTEM: return "system call failed";
    case MESHMEM_ERR_STATE: return "not allowed in this state";
    case MESHMEM_ERR_NOT_SYMMETRIC: return "address is not symmetric";
    case MESHMEM_ERR_RANK: return "rank out of range";
    case MESHMEM_ERR_TEAM: return "invalid team";
    case MESHMEM_ERR_UNSUPPORTED: return "unsupported";
    case MESHMEM_ERR_ABORTED: return "job aborted";
    }
    return "unknown status";
}

void mm_log(int level, const char *fmt, ...)
{
    if (level > mm_config.debug && level > MM_LOG_ERROR)
        return;
    static const char *names[] = {"error", "warning", "info", "debug"};
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "meshmem[%d] %s: %s\n", mm_g.rank, names[level & 3], line);
}

void mm_fatal(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "meshmem[%d] error: %s\n", mm_g.rank, line);
    fflush(NULL);
    if (mm_boot) {
        /* stop the peers waiting for us: the job ends with status 1 */
        mm_set_state(MM_RANK_FAILED);
        mm_boot->abort(1, line);
    }
    _exit(1);
}

void *mm_xlate_checked(const char *call, const char *what, const void *addr, size_t len,
                       int rank)
{
    MM_CHECK_INIT(call);
    MM_CHECK_RANK(call, rank);
    if (MM_UNLIKELY(!mm_is_symmetric(addr, len)))
        mm_fatal("%s: %s argument (%p, %zu bytes) is not in symmetric memory (heap or "
                 "global/static data)",
                 call, what, addr, len);
    return mm_xlate(addr, rank);
}
