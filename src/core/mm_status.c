/* Status strings and the logging / fatal-error path. */
#include "mm_core.h"

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

_Thread_local const char *mm_user_call __attribute__((tls_model("initial-exec")));

void meshmem_name_calls(const char *name)
{
    mm_user_call = name;
}

/* the rank of this process: before init (or in a failed init) the one meshrun gave it */
static int mm_log_rank(void)
{
    const char *env = getenv("MESHMEM_RANK");
    return mm_boot == NULL && env != NULL ? atoi(env) : mm_g.rank;
}

void mm_log(int level, const char *fmt, ...)
{
    int lv = level & 3;
    if (!(level & MM_LOG_ALWAYS) && lv > mm_config.debug && lv > MM_LOG_ERROR)
        return;
    static const char *names[] = {"error", "warning", "info", "debug"};
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "meshmem[%d] %s: %s\n", mm_log_rank(), names[lv], line);
}

/* print the error line, then end the job with status 1 */
static __attribute__((noreturn)) void mm_fatal_va(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof(line), fmt, ap);
    fprintf(stderr, "meshmem[%d] error: %s\n", mm_log_rank(), line);
    fflush(NULL);
    if (mm_boot) {
        /* stop the peers waiting for us: the job ends with status 1 */
        mm_set_state(MM_RANK_FAILED);
        mm_boot->abort(1, line);
    }
    _exit(1);
}

void mm_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mm_fatal_va(fmt, ap);
}

void mm_fatal_reported(void)
{
    /* leave once the reporting rank's line is out (the job is ending), so that meshrun, which
     * stops the whole job when the first rank ends, does not stop it before (2 s at most) */
    for (int i = 0; i < 2000 && mm_boot && !mm_boot->ending(); i++)
        usleep(1000);
    _exit(1);
}

bool (*mm_report_claim)(void);

void mm_fatal_collective(const char *fmt, ...)
{
    if (mm_boot && mm_boot->claim_report ? !mm_boot->claim_report()
                                         : mm_report_claim && !mm_report_claim())
        mm_fatal_reported(); /* another rank reports */
    va_list ap;
    va_start(ap, fmt);
    mm_fatal_va(fmt, ap);
}

void mm_set_state(int state)
{
    if (mm_g.seg)
        atomic_store(&mm_own_hdr()->state, state);
    if (mm_boot)
        mm_boot->set_state(state);
}
