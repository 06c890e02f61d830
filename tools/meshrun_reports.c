/* meshrun across hosts: mpirun's and the ranks' reports read, and filtered (meshrun_reports.h). */
#include "meshrun_reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int meshrun_reports_init(meshrun_reports_t *r, int nranks)
{
    const char *debug = getenv("MESHMEM_DEBUG"), *ucx = getenv("UCX_LOG_LEVEL");
    *r = (meshrun_reports_t){.nranks = nranks,
                             .fatal_rank = -1,
                             .exit_call_rank = -1,
                             .first_lost = -1,
                             .pending_rank = -1,
                             .exit_rank = -1,
                             .show_all = debug && atoi(debug) >= 1,
                             .show_ucx = ucx && *ucx};
    r->lost = calloc((size_t)nranks, sizeof(bool));
    r->losing = calloc((size_t)nranks, sizeof(bool));
    r->ucx_crash = calloc((size_t)nranks, sizeof(bool));
    r->in_backtrace = calloc((size_t)nranks, sizeof(bool));
    return r->lost && r->losing && r->ucx_crash && r->in_backtrace ? 0 : -1;
}

void meshrun_reports_fini(meshrun_reports_t *r)
{
    free(r->lost);
    free(r->losing);
    free(r->ucx_crash);
    free(r->in_backtrace);
    free(r->block);
    r->lost = r->losing = r->ucx_crash = r->in_backtrace = NULL;
    r->block = NULL;
}

/* the state names of --report-state-on-timeout for processes that have ended */
static bool state_has_ended(const char *state)
{
    return strstr(state, "TERMINATED") || strstr(state, "ABORTED") || strstr(state, "KILLED") ||
           strstr(state, "FAILED") || strstr(state, "EXITED");
}

/* read one line of mpirun's; true when it belongs to a report that meshrun's line replaces */
static bool parse_line(meshrun_reports_t *r, const char *line)
{
    unsigned long rank, pid;
    int sig, job, vpid, code, n = 0;
    char host[MESHRUN_HOST_NAME_MAX + 1];
    if (r->kind == MESHRUN_EV_NONE &&
        sscanf(line,
               "%*s noticed that process rank %lu with PID %lu on node %255s exited on "
               "signal %d",
               &rank, &pid, host, &sig) == 4) {
        r->kind = MESHRUN_EV_SIGNAL;
        r->rank = (int)rank;
        r->pid = (long)pid;
        r->code = sig;
        snprintf(r->host, sizeof(r->host), "%s", host);
    } else if (r->kind == MESHRUN_EV_NONE &&
               sscanf(line, "%*s has exited due to process rank %lu with PID %lu on%n", &rank, &pid,
                      &n) == 2 &&
               n > 0) {
        r->pending_rank = (int)rank;
        r->pending_pid = (long)pid;
    } else if (r->pending_rank >= 0 && sscanf(line, "node %255s exiting improperly", host) == 1) {
        r->kind = MESHRUN_EV_IMPROPER;
        r->rank = r->pending_rank;
        r->pid = r->pending_pid;
        snprintf(r->host, sizeof(r->host), "%s", host);
        r->pending_rank = -1;
    } else if (r->kind == MESHRUN_EV_NONE &&
               sscanf(line, " Process name: [[%d,%*d],%d]", &job, &vpid) == 2) {
        r->exit_rank = vpid;
    } else if (r->exit_rank >= 0 && sscanf(line, " Exit code: %d", &code) == 1) {
        r->kind = MESHRUN_EV_EXIT;
        r->rank = r->exit_rank;
        r->code = code;
        r->exit_rank = -1;
    } else if (r->kind == MESHRUN_EV_NONE &&
               sscanf(line, " Remote daemon: [[%d,%*d],%d] on node %255s", &job, &vpid, host) ==
                   3) {
        r->kind = MESHRUN_EV_LOST;
        snprintf(r->host, sizeof(r->host), "%s", host);
    } else if (strstr(line, "The user-provided time limit for job execution has been reached")) {
        r->timed_out = true;
    } else if (r->timed_out && sscanf(line, "DATA FOR JOB: [%d,%d]", &job, &vpid) == 2) {
        r->in_app_job = vpid != 0; /* job 0 is mpirun's daemons */
    } else if (r->timed_out && r->in_app_job) {
        char state[64] = "";
        if (sscanf(line, " Rank: %lu Node: %255s PID: %lu State: %63[^\t]", &rank, host, &pid,
                   state) == 4 &&
            !state_has_ended(state)) {
            size_t used = strlen(r->running);
            snprintf(r->running + used, sizeof(r->running) - used, "%srank %lu on %s",
                     used ? ", " : "", rank, host);
        }
    } else {
        /* the first block of a failing rank (its peers are being stopped), the note that
         * follows aggregated help messages, and a warning of mpirun's rsh launcher when a
         * daemon's agent has started before mpirun could set its process group (harmless):
         * nothing the user can act on */
        return strstr(line, "terminated normally, but") ||
               strstr(line, "plm:rsh: Warning: setpgid(") ||
               strstr(line, "more process has sent help message") ||
               strstr(line, "more processes have sent help message") ||
               strstr(line, "orte_base_help_aggregate");
    }
    return true;
}

/* a line of dashes: the start or the end of one of mpirun's blocks */
static bool is_rule(const char *line, size_t len)
{
    return len >= 20 && strspn(line, "-") == len;
}

static void block_add(meshrun_reports_t *r, const char *line, size_t len)
{
    if (r->block_len + len + 1 > r->block_cap) {
        size_t cap = r->block_cap ? 2 * r->block_cap : 4096;
        while (cap < r->block_len + len + 1)
            cap *= 2;
        char *p = realloc(r->block, cap);
        if (p == NULL)
            return;
        r->block = p;
        r->block_cap = cap;
    }
    memcpy(r->block + r->block_len, line, len);
    r->block_len += len;
    r->block[r->block_len++] = '\n';
}

static void block_out(meshrun_reports_t *r)
{
    if (r->block_len && (!r->block_known || r->show_all))
        fwrite(r->block, 1, r->block_len, stderr);
    fflush(stderr);
    r->block_len = 0;
    r->in_block = r->block_known = false;
}

void meshrun_reports_mpirun_line(meshrun_reports_t *r, const char *line, size_t len)
{
    char text[1024];
    snprintf(text, sizeof(text), "%.*s", (int)len, line);
    if (is_rule(line, len)) {
        block_add(r, line, len);
        if (r->in_block)
            block_out(r);
        else
            r->in_block = true;
        return;
    }
    bool known = parse_line(r, text);
    if (r->in_block) {
        r->block_known |= known;
        block_add(r, line, len);
        return;
    }
    /* the job's state after --timeout: its lines, tab-indented, and the blank lines between */
    bool dump = r->timed_out && (known || len == 0 || line[0] == '\t');
    if (r->show_all || !(known || dump)) {
        fprintf(stderr, "%.*s\n", (int)len, line);
        fflush(stderr);
    }
}

void meshrun_reports_end(meshrun_reports_t *r)
{
    r->block_known = false; /* unfinished: whatever it was, it is all there is */
    block_out(r);
}

/* UCX's log line: "[SECONDS.MICROS] [HOST:PID:THREAD] FILE:LINE UCX  LEVEL text" */
static bool is_ucx_error(const char *line)
{
    unsigned long s, us;
    int n = 0;
    return sscanf(line, "[%lu.%lu] [%*[^]]]%n", &s, &us, &n) == 2 && n > 0 &&
           strstr(line + n, " UCX  ERROR ") != NULL;
}

/* UCX's fatal error: "[HOST:PID:THREAD:TID]  FILE:LINE  Assertion `...' failed", then its
 * backtrace between "==== backtrace (tid: N) ====" and a line of '=' */
static bool ucx_fatal_line(meshrun_reports_t *r, int rank, const char *line)
{
    int pid, n = 0;
    if (r->in_backtrace[rank]) {
        r->in_backtrace[rank] = !(line[0] == '=' && strspn(line, "=") == strlen(line));
        return true;
    }
    if (!strncmp(line, "==== backtrace (tid:", 20)) {
        r->in_backtrace[rank] = true;
        return true;
    }
    if (sscanf(line, "[%*[^:]:%d:%*d:%*d]%n", &pid, &n) == 1 && n > 0 &&
        strstr(line + n, " Assertion `") != NULL) {
        r->ucx_crash[rank] = r->losing[rank] = true; /* it was alive when a peer failed */
        return true;
    }
    return false;
}

bool meshrun_reports_rank_line(void *ctx, int rank, const char *line, size_t len)
{
    meshrun_reports_t *r = ctx;
    char text[1024], why[128];
    int vpid, code, lost, n = 0;
    snprintf(text, sizeof(text), "%.*s", (int)len, line);
    if (rank >= 0 && rank < r->nranks && ucx_fatal_line(r, rank, text))
        return r->show_all || r->show_ucx;
    /* the runtime says which rank called shmem_global_exit (mpirun does not): meshrun's line
     * says it with the host */
    if (sscanf(text, "meshmem[%d] info: shmem_global_exit(%d)", &vpid, &code) == 2) {
        if (r->exit_call_rank < 0) {
            r->exit_call_rank = vpid;
            r->exit_call_status = code;
        }
        return r->show_all;
    }
    if (sscanf(text, "meshmem[%d] error:%n", &vpid, &n) == 1 && n > 0) {
        /* a peer's lost connection is the consequence of another rank's end */
        if (sscanf(text + n, " lost the connection to rank %d (host %*[^)]): %127[^;]", &lost,
                   why) == 2) {
            if (lost >= 0 && lost < r->nranks && !r->lost[lost]) {
                r->lost[lost] = true;
                if (r->first_lost < 0) {
                    r->first_lost = lost;
                    snprintf(r->lost_why, sizeof(r->lost_why), "%s", why);
                }
            }
            if (vpid >= 0 && vpid < r->nranks)
                r->losing[vpid] = true;
            return r->show_all;
        }
        /* an error every rank detects (differing arguments, a bad environment value) is
         * printed by each rank under a PMIx launcher: the job says it once, as on one host */
        if (r->fatal_rank >= 0 && !strcmp(r->fatal_text, text + n))
            return r->show_all;
        if (r->fatal_rank < 0) {
            r->fatal_rank = vpid;
            snprintf(r->fatal_text, sizeof(r->fatal_text), "%s", text + n);
        }
        return true;
    }
    (void)rank;
    return r->show_all || r->show_ucx || !is_ucx_error(text);
}

int meshrun_reports_cause(const meshrun_reports_t *r)
{
    int lost = meshrun_reports_lost_rank(r);
    if (r->kind == MESHRUN_EV_SIGNAL && r->rank >= 0 && r->rank < r->nranks &&
        r->ucx_crash[r->rank] && lost >= 0 && lost != r->rank)
        return lost;
    return r->rank;
}

int meshrun_reports_lost_rank(const meshrun_reports_t *r)
{
    for (int q = 0; q < r->nranks; q++)
        if (r->lost[q] && !r->losing[q])
            return q;
    return r->first_lost;
}
