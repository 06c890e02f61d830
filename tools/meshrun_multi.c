/*
 * meshrun across hosts (--hosts, --hostfile, --vhosts): the job runs under OpenMPI's mpirun.
 *
 * mpirun starts a daemon (orted) per host, over ssh or, for virtual hosts, the rsh agent of
 * tools/meshrun-vhosts; the daemons run the PMIx servers the ranks bootstrap from, and stop
 * every rank of the job when one fails. meshrun stays the user's single command: it places the
 * ranks, sets what meshmem's ranks need, passes mpirun's output through, and reads mpirun's
 * standard error for the reports it knows (help texts of OpenMPI 4.1, help-orterun.txt and
 * help-errmgr-base.txt) to name the failing rank and its host in one line of its own, with the
 * exit status the single-machine path would give.
 */
#include "meshrun_multi.h"
#include "meshrun_hosts.h"
#include "meshrun_retag.h"
#include "meshrun_vhosts.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/*
 * mpirun settings that make a failure end the job on every host within 2 s; each is left to the
 * user when the environment sets it (OMPI_MCA_<name>):
 *  - odls_base_sigkill_timeout 0: a daemon stopping its ranks sends SIGTERM, then sleeps this
 *    many seconds before SIGKILL even when they have ended already, so mpirun's default (1 s)
 *    holds every failure's end back by a second or more; with 0 the ranks of every host end
 *    within milliseconds of the failure. Ranks get no grace on SIGTERM: files a rank keeps in
 *    /dev/shm are its runtime's to remove early (a virtual host's /dev/shm goes with the host).
 *  - oob_tcp_keepalive_{time,intvl,probes} 1, 1, 1: a host that vanishes without closing its
 *    connections (link down, power lost) is noticed after 1 s of silence and one unanswered
 *    probe; mpirun's default (300 s, 20 s, 9) would take minutes. Probes are answered by the
 *    peer's kernel: a busy or stopped daemon is not taken for a lost host. (A connection with
 *    data in flight is not probed: it waits for TCP's retransmissions to give up, minutes by
 *    default; the virtual cluster shortens them, see tools/meshrun-vhosts.)
 */
static const char *const multi_defaults[][2] = {
    {"odls_base_sigkill_timeout", "0"},
    {"oob_tcp_keepalive_time", "1"},
    {"oob_tcp_keepalive_intvl", "1"},
    {"oob_tcp_keepalive_probes", "1"},
};

/* variables of meshrun's single-machine launch, meaningless to ranks started by mpirun */
static const char *const fork_path_vars[] = {"MESHMEM_CTL_FD", "MESHMEM_RANK", "MESHMEM_NRANKS",
                                             "MESHMEM_JOB", "MESHMEM_JOB_CPUS"};

#define BACKSTOP_S 10.0 /* after --timeout, mpirun's own timer should have ended the job */
#define KILL_GRACE_S 3.0 /* from SIGTERM to mpirun until SIGKILL */
#define MULTI_MAX_RANKS 4096

static volatile sig_atomic_t multi_signal;

static void multi_on_signal(int sig)
{
    multi_signal = sig;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------------------------ */
/* mpirun's reports */

typedef enum {
    EV_NONE,
    EV_SIGNAL,   /* a rank was killed by a signal */
    EV_EXIT,     /* a rank exited with a non-zero status */
    EV_IMPROPER, /* a rank exited with status 0 after init without finalize */
    EV_LOST,     /* mpirun lost the daemon of a host */
} event_kind_t;

typedef struct {
    event_kind_t kind;
    int          rank;
    long         pid;
    int          code;   /* signal or exit status */
    char         host[MESHRUN_HOST_NAME_MAX + 1];
    /* parsing state */
    int          pending_rank;  /* "process rank R with PID P on" waits for "node H ..." */
    long         pending_pid;
    int          exit_rank;     /* "Process name: [[J,1],R]" waits for "Exit code: C" */
    int          fatal_rank;    /* the first rank that printed "meshmem[R] error: ...", or -1 */
    int          exit_call_rank; /* the rank that called shmem_global_exit, or -1 */
    int          exit_call_status; /* the status it passed */
    int          lost_rank;     /* the first rank a peer reported lost ("lost the connection
                                   to rank R"): the consequence of its end, or -1 */
    bool         tagged;        /* lines may start with a rank's mark "[R] " (--tag-output) */
    bool         timed_out;     /* mpirun's --timeout fired */
    bool         in_app_job;    /* inside the report of the application's processes */
    char         running[2048]; /* "rank R on H, ..." of the ranks still running then */
    char         line[1024];    /* the line being assembled */
    size_t       len;
} reports_t;

/* the state names of --report-state-on-timeout for processes that have ended */
static bool state_has_ended(const char *state)
{
    return strstr(state, "TERMINATED") || strstr(state, "ABORTED") || strstr(state, "KILLED") ||
           strstr(state, "FAILED") || strstr(state, "EXITED");
}

static void parse_line(reports_t *r, const char *line)
{
    unsigned long rank, pid;
    int sig, job, vpid, code, n = 0;
    char host[MESHRUN_HOST_NAME_MAX + 1];
    if (r->tagged && sscanf(line, "[%*d] %n", &n) == 0 && n > 0) {
        line += n;
        n = 0;
    }
    /* the runtime's fatal errors (mm_fatal): it ends the job through PMIx_Abort, for which
     * mpirun reports nothing. A peer's lost connection is the consequence of another rank's
     * end, which mpirun may not get to report first: kept apart. */
    if (r->exit_call_rank < 0 &&
        sscanf(line, "meshmem[%d] info: shmem_global_exit(%d)", &vpid, &code) == 2) {
        r->exit_call_rank = vpid;
        r->exit_call_status = code;
        return;
    }
    if (sscanf(line, "meshmem[%d] error:%n", &vpid, &n) == 1 && n > 0) {
        int lost;
        if (sscanf(line + n, " lost the connection to rank %d", &lost) == 1) {
            if (r->lost_rank < 0)
                r->lost_rank = lost;
        } else if (r->fatal_rank < 0) {
            r->fatal_rank = vpid;
        }
        return;
    }
    if (r->kind == EV_NONE &&
        sscanf(line, "%*s noticed that process rank %lu with PID %lu on node %255s exited on "
                     "signal %d", &rank, &pid, host, &sig) == 4) {
        r->kind = EV_SIGNAL;
        r->rank = (int)rank;
        r->pid = (long)pid;
        r->code = sig;
        snprintf(r->host, sizeof(r->host), "%s", host);
    } else if (r->kind == EV_NONE &&
               sscanf(line, "%*s has exited due to process rank %lu with PID %lu on%n", &rank,
                      &pid, &n) == 2 && n > 0) {
        r->pending_rank = (int)rank;
        r->pending_pid = (long)pid;
    } else if (r->pending_rank >= 0 && sscanf(line, "node %255s exiting improperly", host) == 1) {
        r->kind = EV_IMPROPER;
        r->rank = r->pending_rank;
        r->pid = r->pending_pid;
        snprintf(r->host, sizeof(r->host), "%s", host);
        r->pending_rank = -1;
    } else if (r->kind == EV_NONE &&
               sscanf(line, " Process name: [[%d,%*d],%d]", &job, &vpid) == 2) {
        r->exit_rank = vpid;
    } else if (r->exit_rank >= 0 && sscanf(line, " Exit code: %d", &code) == 1) {
        r->kind = EV_EXIT;
        r->rank = r->exit_rank;
        r->code = code;
        r->exit_rank = -1;
    } else if (r->kind == EV_NONE &&
               sscanf(line, " Remote daemon: [[%d,%*d],%d] on node %255s", &job, &vpid,
                      host) == 3) {
        r->kind = EV_LOST;
        snprintf(r->host, sizeof(r->host), "%s", host);
    } else if (strstr(line, "The user-provided time limit for job execution has been reached")) {
        r->timed_out = true;
    } else if (r->timed_out && sscanf(line, "DATA FOR JOB: [%d,%d]", &job, &vpid) == 2) {
        r->in_app_job = vpid != 0; /* job 0 is mpirun's daemons */
    } else if (r->timed_out && r->in_app_job) {
        char state[64] = "";
        if (sscanf(line, " Rank: %lu Node: %255s PID: %lu State: %63[^\t]", &rank, host, &pid,
                   state) == 4 && !state_has_ended(state)) {
            size_t used = strlen(r->running);
            snprintf(r->running + used, sizeof(r->running) - used, "%srank %lu on %s",
                     used ? ", " : "", rank, host);
        }
    }
}

static void write_all(int fd, const char *buf, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            return;
        }
        off += (size_t)w;
    }
}

/* pass @p n bytes of mpirun's standard error through, and parse its complete lines */
static void reports_feed(reports_t *r, const char *buf, size_t n)
{
    write_all(STDERR_FILENO, buf, n);
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            r->line[r->len] = '\0';
            parse_line(r, r->line);
            r->len = 0;
        } else if (r->len < sizeof(r->line) - 1) {
            r->line[r->len++] = buf[i];
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* the mpirun command line */

typedef struct {
    char **argv;
    int    argc, cap;
} args_t;

static void args_add(args_t *a, const char *s)
{
    if (a->argc + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->argv = realloc(a->argv, (size_t)a->cap * sizeof(char *));
        if (a->argv == NULL) {
            fprintf(stderr, "meshrun: out of memory\n");
            exit(1);
        }
    }
    a->argv[a->argc] = strdup(s);
    if (a->argv[a->argc] == NULL) {
        fprintf(stderr, "meshrun: out of memory\n");
        exit(1);
    }
    a->argv[++a->argc] = NULL;
}

static void args_free(args_t *a)
{
    for (int i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
}

static bool forwarded(const char *var)
{
    return !strncmp(var, "MESHMEM_", 8) || !strncmp(var, "SHMEM_", 6) || !strncmp(var, "UCX_", 4);
}

static void build_command(const meshrun_multi_t *m, const char *const *prefix,
                          const char *seqfile, const char *rankfile, int nranks, args_t *a)
{
    char num[32];
    for (int i = 0; prefix[i]; i++)
        args_add(a, prefix[i]);
    args_add(a, "mpirun");
    args_add(a, "-n");
    snprintf(num, sizeof(num), "%d", nranks);
    args_add(a, num);
    /* the hosts (as many lines as ranks; mpirun's allocation) and the placement, meshrun's:
     * the sequential mapper, or a rankfile that also binds */
    args_add(a, "--hostfile");
    args_add(a, seqfile);
    if (rankfile) {
        args_add(a, "--rankfile");
        args_add(a, rankfile);
        args_add(a, "-mca");
        args_add(a, "rmaps_rank_file_physical");
        args_add(a, "1");
    } else {
        args_add(a, "-mca");
        args_add(a, "rmaps");
        args_add(a, "seq");
        args_add(a, "--bind-to");
        args_add(a, m->bind ? "core" : "none");
    }
    /* the slots declared are not mpirun's to second-guess */
    args_add(a, "--oversubscribe");
    if (geteuid() == 0)
        args_add(a, "--allow-run-as-root");
    if (m->tag_output)
        args_add(a, "--tag-output");
    if (m->timeout > 0) {
        snprintf(num, sizeof(num), "%d", (int)ceil(m->timeout));
        args_add(a, "--timeout");
        args_add(a, num);
        args_add(a, "--report-state-on-timeout");
    }
    for (size_t i = 0; i < sizeof(multi_defaults) / sizeof(multi_defaults[0]); i++) {
        char env[128];
        snprintf(env, sizeof(env), "OMPI_MCA_%s", multi_defaults[i][0]);
        if (getenv(env) != NULL)
            continue;
        args_add(a, "-mca");
        args_add(a, multi_defaults[i][0]);
        args_add(a, multi_defaults[i][1]);
    }
    for (char **e = environ; *e; e++) {
        if (!forwarded(*e))
            continue;
        char name[256];
        size_t len = strcspn(*e, "=");
        if (len >= sizeof(name))
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        args_add(a, "-x");
        args_add(a, name);
    }
    for (char **p = m->prog; *p; p++)
        args_add(a, *p);
}

/* ------------------------------------------------------------------------------------------ */
/* running mpirun */

/* start mpirun with its standard error into a pipe, and its standard output too where @p out_fd
 * is not NULL; its pid, or -1 */
static pid_t spawn_mpirun(char **argv, int *err_fd, int *out_fd)
{
    int fds[2], ofds[2] = {-1, -1};
    if (pipe(fds) != 0 || (out_fd && pipe(ofds) != 0)) {
        fprintf(stderr, "meshrun: pipe: %s\n", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "meshrun: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* a group of its own: meshrun alone receives the terminal's and the caller's signals,
         * and passes one SIGTERM on (a second one would make mpirun quit without its cleanup) */
        setpgid(0, 0);
        /* meshrun killed outright: mpirun still stops the job on every host */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (out_fd) {
            dup2(ofds[1], STDOUT_FILENO);
            close(ofds[0]);
            close(ofds[1]);
        }
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigaction(SIGINT, &dfl, NULL);
        sigaction(SIGTERM, &dfl, NULL);
        sigaction(SIGHUP, &dfl, NULL);
        execvp(argv[0], argv);
        fprintf(stderr, "meshrun: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    *err_fd = fds[0];
    if (out_fd) {
        close(ofds[1]);
        *out_fd = ofds[0];
    }
    return pid;
}

/* one of mpirun's output streams as meshrun reads it */
typedef struct {
    int             fd;     /* read end; -1 once closed */
    bool            is_err; /* standard error: parsed for reports (reports_feed) */
    bool            tagged; /* marks rewritten (meshrun_retag.h) */
    meshrun_retag_t retag;
} channel_t;

/* pass @p n bytes of @p c on (@p n 0: its end) */
static void channel_pass(channel_t *c, reports_t *rep, const char *buf, size_t n)
{
    char rewritten[MESHRUN_RETAG_CHUNK + MESHRUN_RETAG_HELD];
    if (c->tagged) {
        n = meshrun_retag(&c->retag, buf, n, rewritten);
        buf = rewritten;
    }
    if (c->is_err)
        reports_feed(rep, buf, n);
    else
        write_all(STDOUT_FILENO, buf, n);
}

/* read what @p c has (waiting up to @p timeout_ms); false once it has ended */
static bool channel_read(channel_t *c, reports_t *rep, int timeout_ms)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
        return true;
    char buf[MESHRUN_RETAG_CHUNK];
    ssize_t n = read(c->fd, buf, sizeof(buf));
    if (n > 0) {
        channel_pass(c, rep, buf, (size_t)n);
        return true;
    }
    if (n < 0 && errno == EINTR)
        return true;
    channel_pass(c, rep, "", 0);
    close(c->fd);
    c->fd = -1;
    return false;
}

typedef struct {
    int    status;      /* mpirun's, as a shell would give it */
    int    stop_signal; /* the signal that stopped meshrun, or 0 */
    bool   backstop;    /* meshrun stopped mpirun after its --timeout should have */
} outcome_t;

/* pass mpirun's standard error (and with --tag-output its standard output) through until it
 * ends; stop it on a signal or past time */
static outcome_t supervise(pid_t pid, channel_t *ch, int nch, reports_t *rep, double timeout)
{
    outcome_t out = {0};
    double deadline = timeout > 0 ? now_s() + ceil(timeout) + BACKSTOP_S : 0;
    double term_at = 0;
    bool exited = false;
    while (!exited) {
        if (multi_signal && !out.stop_signal) {
            out.stop_signal = multi_signal;
            fprintf(stderr, "meshrun: %s: stopping the job\n", strsignal(multi_signal));
        }
        bool overdue = deadline > 0 && now_s() > deadline;
        if ((out.stop_signal || overdue) && term_at == 0) {
            out.backstop = overdue && !out.stop_signal;
            kill(pid, SIGTERM);
            term_at = now_s();
        }
        if (term_at > 0 && now_s() > term_at + KILL_GRACE_S)
            kill(pid, SIGKILL);
        struct pollfd p[2];
        int np = 0;
        for (int c = 0; c < nch; c++)
            if (ch[c].fd >= 0)
                p[np++] = (struct pollfd){.fd = ch[c].fd, .events = POLLIN};
        if (np == 0)
            usleep(50000);
        else if (poll(p, (nfds_t)np, 100) > 0)
            for (int c = 0; c < nch; c++)
                if (ch[c].fd >= 0)
                    channel_read(&ch[c], rep, 0);
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            exited = true;
            out.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
    }
    /* what mpirun wrote last; its daemons may hold the pipes open, so read what is there only */
    for (int c = 0; c < nch; c++) {
        while (ch[c].fd >= 0) {
            struct pollfd p = {.fd = ch[c].fd, .events = POLLIN};
            if (poll(&p, 1, 50) <= 0)
                break;
            channel_read(&ch[c], rep, 0);
        }
        if (ch[c].fd >= 0) {
            channel_pass(&ch[c], rep, "", 0);
            close(ch[c].fd);
            ch[c].fd = -1;
        }
    }
    if (rep->len > 0)
        reports_feed(rep, "\n", 1);
    return out;
}

/* the line that says how the job ended, and meshrun's exit status */
static int conclude(const meshrun_multi_t *m, const outcome_t *o, const reports_t *r,
                    const meshrun_hostlist_t *hosts, const int *rank_host, int nranks)
{
    const char *stopped = "the job was stopped on every host";
    if (o->stop_signal)
        return 128 + o->stop_signal;
    if (r->timed_out || o->backstop) {
        fprintf(stderr, "meshrun: the job ran past --timeout %g s: stopped it%s%s\n", m->timeout,
                r->running[0] ? "; still running then: " : "", r->running);
        return 124;
    }
    switch (r->kind) {
    case EV_SIGNAL:
        fprintf(stderr, "meshrun: rank %d on %s (pid %ld) was killed by signal %d (%s): %s\n",
                r->rank, r->host, r->pid, r->code, strsignal(r->code), stopped);
        return 128 + r->code;
    case EV_EXIT: {
        const char *host = r->rank >= 0 && r->rank < nranks
                               ? hosts->hosts[rank_host[r->rank]].name : "?";
        fprintf(stderr, "meshrun: rank %d on %s exited with status %d: %s\n", r->rank, host,
                r->code, stopped);
        return r->code != 0 ? r->code : 1;
    }
    case EV_IMPROPER:
        fprintf(stderr, "meshrun: rank %d on %s (pid %ld) exited with status 0 after init "
                        "without finalize: %s\n", r->rank, r->host, r->pid, stopped);
        return 1;
    case EV_LOST: {
        char ranks[512] = "";
        for (int h = 0; h < hosts->nhosts; h++)
            if (!strcmp(hosts->hosts[h].name, r->host))
                meshrun_hosts_ranks_on(rank_host, nranks, h, ranks, sizeof(ranks));
        fprintf(stderr, "meshrun: lost contact with host %s (rank%s %s): %s\n", r->host,
                strpbrk(ranks, ",-") ? "s" : "", ranks[0] ? ranks : "?", stopped);
        return 1;
    }
    case EV_NONE:
        break;
    }
    if (o->status != 0 && r->exit_call_rank >= 0 && r->exit_call_rank < nranks) {
        fprintf(stderr, "meshrun: rank %d on %s called shmem_global_exit(%d): %s\n",
                r->exit_call_rank, hosts->hosts[rank_host[r->exit_call_rank]].name,
                r->exit_call_status, stopped);
        /* the status the rank asked for, even where a peer that lost its connection to it
         * reached mpirun first with status 1 */
        return r->exit_call_status;
    }
    if (o->status != 0 && r->fatal_rank >= 0 && r->fatal_rank < nranks) {
        fprintf(stderr, "meshrun: rank %d on %s reported a fatal error: %s\n", r->fatal_rank,
                hosts->hosts[rank_host[r->fatal_rank]].name, stopped);
        return o->status;
    }
    /* the runtime ends the job with status 1 when it loses a peer; another status came from a
     * rank's own PMIx_Abort (shmem_global_exit), which mpirun does not report */
    if (o->status == 1 && r->lost_rank >= 0 && r->lost_rank < nranks) {
        fprintf(stderr, "meshrun: rank %d on %s ended unexpectedly (its peers lost their "
                        "connection to it): %s\n", r->lost_rank,
                hosts->hosts[rank_host[r->lost_rank]].name, stopped);
        return o->status;
    }
    if (o->status != 0 && r->lost_rank >= 0) {
        fprintf(stderr, "meshrun: a rank ended the job with status %d (shmem_global_exit or "
                        "PMIx_Abort): %s\n", o->status, stopped);
        return o->status;
    }
    if (o->status != 0)
        fprintf(stderr, "meshrun: mpirun ended with status %d: %s\n", o->status, stopped);
    return o->status;
}

/* ------------------------------------------------------------------------------------------ */

static int make_hosts(const meshrun_multi_t *m, int *nranks, meshrun_hostlist_t *hosts)
{
    char err[600];
    if (m->vhosts > 0) {
        if (*nranks < 0)
            *nranks = m->vhosts;
        int slots = (*nranks + m->vhosts - 1) / m->vhosts;
        if (meshrun_hosts_virtual(m->vhosts, slots, hosts) != 0) {
            fprintf(stderr, "meshrun: out of memory\n");
            return 1;
        }
        return 0;
    }
    int rc = m->hosts ? meshrun_hosts_parse_list(m->hosts, hosts, err, sizeof(err))
                      : meshrun_hosts_parse_file(m->hostfile, hosts, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "meshrun: %s\n", err);
        return 2;
    }
    if (*nranks < 0)
        *nranks = hosts->total_slots;
    if (*nranks > MULTI_MAX_RANKS) {
        fprintf(stderr, "meshrun: %d slots: more than the %d ranks meshrun starts\n", *nranks,
                MULTI_MAX_RANKS);
        return 2;
    }
    if (*nranks > hosts->total_slots) {
        fprintf(stderr, "meshrun: -n %d is more ranks than the %d slots of %s %s (give hosts "
                        "more slots, e.g. HOST:4)\n", *nranks, hosts->total_slots,
                m->hosts ? "--hosts" : "--hostfile", m->hosts ? m->hosts : m->hostfile);
        return 2;
    }
    return 0;
}

/* the CPUs this process may run on, in order; their count */
static int allowed_cpus(int *cpus)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpus[n++] = c;
    return n;
}

static bool have_program(const char *name)
{
    const char *path = getenv("PATH");
    char full[PATH_MAX];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(full, sizeof(full), "%.*s/%s", (int)len, len ? p : ".", name);
        if (access(full, X_OK) == 0)
            return true;
        p += len + (p[len] == ':');
    }
    return false;
}

int meshrun_multi_run(const meshrun_multi_t *m)
{
    int nranks = m->nranks;
    meshrun_hostlist_t hosts;
    int rc = make_hosts(m, &nranks, &hosts);
    if (rc != 0)
        return rc;
    int *rank_host = calloc((size_t)nranks, sizeof(int));
    if (rank_host == NULL || meshrun_hosts_place(&hosts, nranks, m->by_node, rank_host) != 0) {
        fprintf(stderr, "meshrun: cannot place %d ranks\n", nranks);
        return 1;
    }
    char why[512];
    if (m->vhosts > 0 && meshrun_vhosts_check(why, sizeof(why)) != 0) {
        fprintf(stderr, "meshrun: --vhosts cannot run here: %s\n", why);
        return 1;
    }
    if (!have_program("mpirun")) {
        fprintf(stderr, "meshrun: %s needs OpenMPI's mpirun, which is not installed "
                        "(scripts/install-deps.sh installs it)\n",
                m->vhosts ? "--vhosts" : m->hosts ? "--hosts" : "--hostfile");
        return 1;
    }

    struct sigaction sa = {.sa_handler = multi_on_signal}; /* no SA_RESTART */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    /* room for the cluster's directory and a file name in it (the compiler proves no truncation) */
    char dir[PATH_MAX] = "", seqfile[PATH_MAX + 32] = "", rankfile[PATH_MAX + 32] = "";
    int status = 1;
    if (m->vhosts > 0) {
        if (meshrun_vhosts_up(m->vhosts, hosts.hosts[0].slots, dir, sizeof(dir)) != 0) {
            dir[0] = '\0';
            goto out;
        }
        if (multi_signal) { /* the cluster was being built: nothing started yet */
            status = 128 + multi_signal;
            goto out;
        }
        if (meshrun_vhosts_apply_env(dir) != 0)
            goto out;
        snprintf(seqfile, sizeof(seqfile), "%s/ranks", dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(seqfile, sizeof(seqfile), "%s/meshrun-ranks.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        int fd = mkstemp(seqfile);
        if (fd < 0) {
            fprintf(stderr, "meshrun: cannot make a hostfile for mpirun: %s\n", strerror(errno));
            seqfile[0] = '\0';
            goto out;
        }
        close(fd);
    }
    if (meshrun_hosts_write_seq(seqfile, &hosts, rank_host, nranks) != 0) {
        fprintf(stderr, "meshrun: cannot write %s: %s\n", seqfile, strerror(errno));
        goto out;
    }
    if (m->vhosts > 0 && m->bind) {
        int cpus[CPU_SETSIZE], ncpus = allowed_cpus(cpus);
        snprintf(rankfile, sizeof(rankfile), "%s/rankfile", dir);
        if (ncpus == 0 ||
            meshrun_hosts_write_rankfile(rankfile, &hosts, rank_host, nranks, cpus, ncpus) != 0) {
            fprintf(stderr, "meshrun: cannot write %s: %s\n", rankfile,
                    ncpus ? strerror(errno) : "no CPU allowed");
            goto out;
        }
    }
    for (size_t i = 0; i < sizeof(fork_path_vars) / sizeof(fork_path_vars[0]); i++)
        unsetenv(fork_path_vars[i]);

    /* on a virtual cluster, mpirun runs on its head, the namespace holding its bridge */
    char script[PATH_MAX];
    const char *prefix[5] = {NULL};
    if (m->vhosts > 0 && meshrun_vhosts_on_head(dir, script, sizeof(script), prefix) != 0)
        goto out;
    args_t cmd = {0};
    build_command(m, prefix, seqfile, rankfile[0] ? rankfile : NULL, nranks, &cmd);
    channel_t ch[2] = {{.fd = -1, .is_err = true, .tagged = m->tag_output},
                       {.fd = -1, .tagged = true}};
    pid_t pid = spawn_mpirun(cmd.argv, &ch[0].fd, m->tag_output ? &ch[1].fd : NULL);
    args_free(&cmd);
    if (pid > 0) {
        reports_t rep = {.exit_rank = -1, .pending_rank = -1, .fatal_rank = -1,
                         .lost_rank = -1, .exit_call_rank = -1, .tagged = m->tag_output};
        outcome_t o = supervise(pid, ch, m->tag_output ? 2 : 1, &rep, m->timeout);
        status = conclude(m, &o, &rep, &hosts, rank_host, nranks);
    }
out:
    if (dir[0])
        meshrun_vhosts_down(dir);
    else if (seqfile[0] && m->vhosts == 0)
        unlink(seqfile);
    free(rank_host);
    meshrun_hosts_free(&hosts);
    return status;
}
