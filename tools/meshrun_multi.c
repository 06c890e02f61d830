/*
 * meshrun across hosts (--hosts, --hostfile, --vhosts): the job runs under OpenMPI's mpirun.
 *
 * mpirun starts a daemon (orted) per host, over ssh or, for virtual hosts, the rsh agent of
 * tools/meshrun-vhosts; the daemons run the PMIx servers the ranks bootstrap from, and stop
 * every rank of the job when one fails. meshrun stays the user's single command: it places the
 * ranks, sets what meshmem's ranks need, passes the ranks' output on whole line by line
 * (mpirun's marks tell whose it is: meshrun_demux.h, meshrun_output.h), and reads mpirun's
 * and the ranks' reports (meshrun_reports.h) to name the failing rank and its host in one line
 * of its own, with the exit status the single-machine path would give.
 */
#include "meshrun_multi.h"
#include "meshrun_hosts.h"
#include "meshrun_demux.h"
#include "meshrun_output.h"
#include "meshrun_reports.h"
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

#define BACKSTOP_S      10.0 /* after --timeout, mpirun's own timer should have ended the job */
#define KILL_GRACE_S    3.0  /* from SIGTERM to mpirun until SIGKILL */
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

/* ------------------------------------------------------------------------------------------ */
/* the mpirun command line */

typedef struct {
    char **argv;
    int argc, cap;
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

static void build_command(const meshrun_multi_t *m, const char *const *prefix, const char *seqfile,
                          const char *rankfile, int nranks, args_t *a)
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
    /* always: every piece of a rank's output is marked with its rank, so that meshrun tells
     * it from mpirun's own messages and assembles each rank's lines whole (meshrun_demux.h);
     * meshrun marks lines "[RANK] " only where the user asked for --tag-output */
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
        sigaction(SIGPIPE, &dfl, NULL); /* an ignored signal stays ignored across exec */
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

/* what mpirun writes, taken apart: the ranks' lines (assembled whole) and mpirun's own */
typedef struct {
    meshrun_output_t out; /* the ranks' streams (meshrun_output.h) */
    meshrun_reports_t rep;
    char own[1024]; /* mpirun's own line on stderr being assembled */
    size_t own_len;
} job_output_t;

/* one of mpirun's output streams as meshrun reads it */
typedef struct {
    int fd; /* read end; -1 once closed */
    bool is_err;
    meshrun_demux_t demux;
} channel_t;

/* a piece of what mpirun wrote (meshrun_demux_fn): a rank's goes to its stream, mpirun's own
 * on stderr is read line by line, on stdout passed on as it is */
static void route(void *ctx, int rank, int kind, const char *p, size_t n)
{
    job_output_t *jo = ((void **)ctx)[0];
    const channel_t *c = ((void **)ctx)[1];
    if (rank >= 0 && rank < jo->rep.nranks) {
        meshrun_output_feed(&jo->out, rank, kind, p, n);
        return;
    }
    if (!c->is_err) {
        write_all(STDOUT_FILENO, p, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            meshrun_reports_mpirun_line(&jo->rep, jo->own, jo->own_len);
            jo->own_len = 0;
        } else if (jo->own_len < sizeof(jo->own)) {
            jo->own[jo->own_len++] = p[i];
        }
    }
}

/* pass @p n bytes of @p c on (@p n 0: its end) */
static void channel_pass(channel_t *c, job_output_t *jo, const char *buf, size_t n)
{
    void *ctx[2] = {jo, c};
    meshrun_demux(&c->demux, buf, n, route, ctx);
}

/* read what @p c has (waiting up to @p timeout_ms); false once it has ended */
static bool channel_read(channel_t *c, job_output_t *jo, int timeout_ms)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
        return true;
    char buf[MESHRUN_DEMUX_CHUNK];
    ssize_t n = read(c->fd, buf, sizeof(buf));
    if (n > 0) {
        channel_pass(c, jo, buf, (size_t)n);
        return true;
    }
    if (n < 0 && errno == EINTR)
        return true;
    channel_pass(c, jo, "", 0);
    close(c->fd);
    c->fd = -1;
    return false;
}

typedef struct {
    int status;      /* mpirun's, as a shell would give it */
    int stop_signal; /* the signal that stopped meshrun, or 0 */
    bool backstop;   /* meshrun stopped mpirun after its --timeout should have */
} outcome_t;

/* pass mpirun's output through until it ends; stop it on a signal or past time */
static outcome_t supervise(pid_t pid, channel_t *ch, int nch, job_output_t *jo, double timeout)
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
        if (meshrun_output_closed() && !out.stop_signal)
            out.stop_signal = SIGPIPE; /* nobody reads the job's output any more */
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
                    channel_read(&ch[c], jo, 0);
        meshrun_output_pump(&jo->out, 0); /* unfinished lines that waited: a prompt */
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
            channel_read(&ch[c], jo, 0);
        }
        if (ch[c].fd >= 0) {
            channel_pass(&ch[c], jo, "", 0);
            close(ch[c].fd);
            ch[c].fd = -1;
        }
    }
    if (jo->own_len > 0)
        meshrun_reports_mpirun_line(&jo->rep, jo->own, jo->own_len);
    jo->own_len = 0;
    meshrun_reports_end(&jo->rep);
    meshrun_output_close(&jo->out, 0); /* the ranks' last lines, before meshrun's own */
    return out;
}

/* the line that says how the job ended, and meshrun's exit status */
static int conclude(const meshrun_multi_t *m, const outcome_t *o, const meshrun_reports_t *r,
                    const meshrun_hostlist_t *hosts, const int *rank_host, int nranks)
{
    const char *stopped = "the job was stopped on every host";
#define HOST_OF(rank) ((rank) >= 0 && (rank) < nranks ? hosts->hosts[rank_host[rank]].name : "?")
    if (o->stop_signal)
        return 128 + o->stop_signal;
    if (r->timed_out || o->backstop) {
        fprintf(stderr, "meshrun: the job ran past --timeout %g s: stopped it%s%s\n", m->timeout,
                r->running[0] ? "; still running then: " : "", r->running);
        return 124;
    }
    int cause = meshrun_reports_cause(r);
    if (r->kind == MESHRUN_EV_SIGNAL && cause != r->rank) {
        fprintf(stderr,
                "meshrun: rank %d on %s ended unexpectedly (its peers lost their "
                "connection to it: %s; rank %d then failed inside UCX): %s\n",
                cause, HOST_OF(cause), r->lost_why, r->rank, stopped);
        return 1;
    }
    switch (r->kind) {
    case MESHRUN_EV_SIGNAL:
        fprintf(stderr, "meshrun: rank %d on %s (pid %ld) was killed by signal %d (%s): %s\n",
                r->rank, r->host, r->pid, r->code, strsignal(r->code), stopped);
        return 128 + r->code;
    case MESHRUN_EV_EXIT:
        fprintf(stderr, "meshrun: rank %d on %s exited with status %d: %s\n", r->rank,
                HOST_OF(r->rank), r->code, stopped);
        return r->code != 0 ? r->code : 1;
    case MESHRUN_EV_IMPROPER:
        fprintf(stderr,
                "meshrun: rank %d on %s (pid %ld) exited with status 0 after init "
                "without finalize: %s\n",
                r->rank, r->host, r->pid, stopped);
        return 1;
    case MESHRUN_EV_LOST: {
        char ranks[512] = "";
        for (int h = 0; h < hosts->nhosts; h++)
            if (!strcmp(hosts->hosts[h].name, r->host))
                meshrun_hosts_ranks_on(rank_host, nranks, h, ranks, sizeof(ranks));
        fprintf(stderr, "meshrun: lost contact with host %s (rank%s %s): %s\n", r->host,
                strpbrk(ranks, ",-") ? "s" : "", ranks[0] ? ranks : "?", stopped);
        return 1;
    }
    case MESHRUN_EV_NONE: break;
    }
    if (o->status != 0 && r->exit_call_rank >= 0 && r->exit_call_rank < nranks) {
        fprintf(stderr, "meshrun: rank %d on %s called shmem_global_exit(%d): %s\n",
                r->exit_call_rank, HOST_OF(r->exit_call_rank), r->exit_call_status, stopped);
        /* the status the rank asked for, even where a peer that lost its connection to it
         * reached mpirun first with status 1 */
        return r->exit_call_status;
    }
    if (o->status != 0 && r->fatal_rank >= 0 && r->fatal_rank < nranks) {
        fprintf(stderr, "meshrun: rank %d on %s reported a fatal error: %s\n", r->fatal_rank,
                HOST_OF(r->fatal_rank), stopped);
        return o->status;
    }
    /* the runtime ends the job with status 1 when it loses a peer; another status came from a
     * rank's own PMIx_Abort (shmem_global_exit), which mpirun does not report */
    int lost = meshrun_reports_lost_rank(r);
    if (o->status == 1 && lost >= 0) {
        fprintf(stderr,
                "meshrun: rank %d on %s ended unexpectedly (its peers lost their "
                "connection to it: %s): %s\n",
                lost, HOST_OF(lost), r->lost_why, stopped);
        return o->status;
    }
    if (o->status != 0 && lost >= 0) {
        fprintf(stderr,
                "meshrun: a rank ended the job with status %d (shmem_global_exit or "
                "PMIx_Abort): %s\n",
                o->status, stopped);
        return o->status;
    }
    if (o->status != 0)
        fprintf(stderr, "meshrun: mpirun ended with status %d: %s\n", o->status, stopped);
    return o->status;
#undef HOST_OF
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
        fprintf(stderr,
                "meshrun: -n %d is more ranks than the %d slots of %s %s (give hosts "
                "more slots, e.g. HOST:4)\n",
                *nranks, hosts->total_slots, m->hosts ? "--hosts" : "--hostfile",
                m->hosts ? m->hosts : m->hostfile);
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
        fprintf(stderr,
                "meshrun: %s needs OpenMPI's mpirun, which is not installed "
                "(scripts/install-deps.sh installs it)\n",
                m->vhosts  ? "--vhosts"
                : m->hosts ? "--hosts"
                           : "--hostfile");
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
    /* the ranks' output whole line by line, their reports read: see job_output_t */
    job_output_t jo = {0};
    if (meshrun_output_open(&jo.out, nranks, m->tag_output) != 0 ||
        meshrun_reports_init(&jo.rep, nranks) != 0) {
        fprintf(stderr, "meshrun: out of memory\n");
        args_free(&cmd);
        goto out;
    }
    jo.out.filter = meshrun_reports_rank_line;
    jo.out.filter_ctx = &jo.rep;
    channel_t ch[2] = {{.fd = -1, .is_err = true}, {.fd = -1}};
    meshrun_demux_init(&ch[0].demux);
    meshrun_demux_init(&ch[1].demux);
    signal(SIGPIPE, SIG_IGN); /* a reader gone is seen as EPIPE: see meshrun_output_closed */
    pid_t pid = spawn_mpirun(cmd.argv, &ch[0].fd, &ch[1].fd);
    args_free(&cmd);
    if (pid > 0) {
        outcome_t o = supervise(pid, ch, 2, &jo, m->timeout);
        status = conclude(m, &o, &jo.rep, &hosts, rank_host, nranks);
        signal(SIGPIPE, SIG_DFL);
    } else {
        meshrun_output_close(&jo.out, 0);
    }
    meshrun_reports_fini(&jo.rep);
out:
    if (dir[0])
        meshrun_vhosts_down(dir);
    else if (seqfile[0] && m->vhosts == 0)
        unlink(seqfile);
    free(rank_host);
    meshrun_hosts_free(&hosts);
    return status;
}
