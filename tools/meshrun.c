/*
 * meshrun: start N ranks of a meshmem (or OpenSHMEM) program on this machine.
 *
 *   meshrun -n N [--heap SIZE] [--bind-to core|none] [--timeout SEC] [--tag-output]
 *           [--fabric FILE [--compute-scale X] [--fabric-json FILE]] [--] prog [args...]
 *   meshrun --hosts a:4,b:4 | --hostfile F | --vhosts H [-n N] [--map-by slot|node] [...] prog
 *
 * With --hosts, --hostfile or --vhosts the job runs across hosts under OpenMPI's mpirun
 * (meshrun_multi.h); without them, on this machine as follows.
 *
 * Every option takes its value as the next argument or after '=' (--heap=64M). Each rank
 * finds its rank in MESHMEM_RANK and the job's size in MESHMEM_NRANKS.
 *
 * The launcher creates the job control block (a memfd every rank inherits, see mm_ctl.h),
 * forks the ranks, passes their output through and returns the first non-zero exit status.
 * When a rank fails (non-zero exit, a signal, or an exit after init without finalize), on
 * global_exit, on a timeout or on SIGINT/SIGTERM/SIGHUP, it stops the other ranks (SIGTERM, then
 * SIGKILL after a grace period, well within 2 s) and removes every shared-memory object of the
 * job from /dev/shm.
 *
 * The ranks share one process group of their own (the job's), so that stopping the job also
 * stops whatever a rank forked, and a rank dies with meshrun (PR_SET_PDEATHSIG) even when
 * meshrun is killed outright. When meshrun runs in the foreground of a terminal, the job's group
 * becomes the foreground group while it runs: Ctrl-C then reaches the ranks as it would a
 * program run without meshrun, and a rank can read the terminal.
 */
#include "mm_ctl.h"
#include "mm_size.h"
#include "meshrun_fabric.h"
#include "meshrun_output.h"
#include "meshrun_multi.h"
#include "meshrun_rtl.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MESHRUN_GRACE_S 0.7 /* SIGTERM to SIGKILL */
/* A peer's fatal error is often the echo of a rank that died (a transport saw the connection
 * drop before meshrun reaped the dead rank): meshrun waits this long for such a rank before it
 * names the peer as the cause */
#define MESHRUN_CAUSE_WAIT_S 0.5
#define MESHRUN_MAX_RANKS    4096

static volatile sig_atomic_t meshrun_signal;

static void meshrun_on_signal(int sig)
{
    meshrun_signal = sig;
}

static void meshrun_on_child(int sig)
{
    (void)sig;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: meshrun -n N [options] [--] program [args...]\n"
        "       meshrun --hosts LIST|--hostfile FILE|--vhosts H [-n N] [options] program\n"
        "Starts N ranks (PEs) of a meshmem or OpenSHMEM program on this machine (or across\n"
        "hosts through OpenMPI's mpirun), passes their output through line by line and\n"
        "returns the first non-zero exit status; if a rank fails, the others are stopped and\n"
        "nothing of the job is left in /dev/shm.\n"
        "\n"
        "  -n, --np, --ranks N  number of ranks to start\n"
        "  --hosts a:4,b:4      run across these hosts through OpenMPI's mpirun (HOST[:SLOTS]);\n"
        "                       -n then defaults to one rank per slot\n"
        "  --hostfile FILE      the same from a hostfile (lines: HOST [slots=N])\n"
        "  --vhosts H           H virtual hosts on this machine (needs root): network, IPC,\n"
        "                       UTS and mount namespaces; UCX between them over TCP;\n"
        "                       -n then defaults to one rank per virtual host\n"
        "  --map-by slot|node   across hosts: fill each host in turn (default), or round-robin\n"
        "  --heap SIZE          symmetric heap per rank (e.g. 64M, 1G); sets SHMEM_SYMMETRIC_SIZE\n"
        "  --bind-to core|none  pin rank r to the r-th allowed CPU (default none)\n"
        "  --timeout SEC        stop the job after SEC seconds (exit status 124)\n"
        "  --rtl CONFIG         every peer through the simulated OPTWEB engine (rtl/): a file\n"
        "                       or a name of rtl/configs (e.g. optweb-fc8-45g); meshmem_wtime\n"
        "                       reads simulated time (docs/rtl-transport.md)\n"
        "  --tag-output         prefix every line a rank writes with \"[RANK] \"\n"
        "  --fabric FILE        also predict the run's time on a modelled fabric (a file or a\n"
        "                       name in fabrics/): every call is traced and replayed\n"
        "                       (on this machine or with --vhosts)\n"
        "  --compute-scale X    factor on measured compute time (default: the fabric's)\n"
        "  --fabric-json FILE   also write the prediction as JSON\n"
        "  --fabric-set S.K=V   replace one value of the fabric for this prediction\n"
        "                       (repeatable, e.g. link.bandwidth_gbps=90)\n"
        "  --version            meshrun's version\n"
        "  -h, --help           this text\n"
        "An option's value follows it or comes after '=' (--heap=64M).\n"
        "\n"
        "Each rank finds its rank in MESHMEM_RANK and the number of ranks in MESHMEM_NRANKS\n"
        "(shmem_my_pe and shmem_n_pes after shmem_init); MESHMEM_JOB names the job.\n");
}

/* a mistake on the command line: one line with a hint, status 2 */
static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "meshrun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see meshrun --help)\n");
    return 2;
}

/* "0-3, 5, 7-8": the ranks whose @p mask is set, as ranges, into @p out */
static void rank_ranges(const bool *mask, int n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int r = 0; r < n; r++) {
        if (!mask[r])
            continue;
        int last = r;
        while (last + 1 < n && mask[last + 1])
            last++;
        int w = last == r ? snprintf(out + len, cap - len, "%s%d", len ? ", " : "", r)
                          : snprintf(out + len, cap - len, "%s%d-%d", len ? ", " : "", r, last);
        if (w < 0 || (size_t)w >= cap - len)
            return; /* truncated: enough to say which */
        len += (size_t)w;
        r = last;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Find @p prog as execvp would, so that a missing or non-executable program is one clear
 * message and the shell's status (127 not found, 126 not executable) rather than N failures.
 * @return 0, or the status to exit with after printing why.
 */
static int check_program(const char *prog)
{
    if (strchr(prog, '/')) {
        if (access(prog, X_OK) == 0)
            return 0;
        int err = errno;
        fprintf(stderr, "meshrun: cannot run \"%s\": %s\n", prog, strerror(err));
        return err == ENOENT || err == ENOTDIR ? 127 : 126;
    }
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    bool found_not_exec = false;
    char full[4096];
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(full, sizeof(full), "%.*s%s%s", (int)len, len ? p : ".", "/", prog);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(full, X_OK) == 0)
                return 0;
            found_not_exec = true;
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    fprintf(stderr, "meshrun: cannot run \"%s\": %s\n", prog,
            found_not_exec ? strerror(EACCES) : "command not found in PATH");
    return found_not_exec ? 126 : 127;
}

static void remove_job_objects(const char *job)
{
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return;
    size_t len = strlen(job);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, job, len) == 0 && e->d_name[len] == '.') {
            char name[300];
            snprintf(name, sizeof(name), "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    closedir(d);
}

/*
 * Remove what earlier jobs left because their launcher itself was killed (SIGKILL leaves it no
 * chance to clean up, and ranks killed during init had not unlinked their segments yet). Job
 * objects are named meshmem.<launcher pid>.<tag>.*: when no process has that pid any more the
 * job is over. A reused pid keeps the objects (the sweep errs on the side of keeping).
 */
static void remove_stale_jobs(void)
{
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = 0, used = 0;
        if (sscanf(e->d_name, "meshmem.%d.%*x.%n", &pid, &used) < 1 || used == 0 || pid <= 0)
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        char name[300];
        snprintf(name, sizeof(name), "/%s", e->d_name);
        if (shm_unlink(name) == 0)
            fprintf(stderr, "meshrun: removed %s, left by an ended job\n", name);
    }
    closedir(d);
}

/* the names a rank's state is told with: the program's own API's (a Python program starts the
 * runtime with meshmem.init, through `import meshmem`, and never calls shmem_init) */
static const char *init_name = "shmem_init", *fini_name = "shmem_finalize",
                  *gexit_name = "shmem_global_exit";

static void name_states_for(const char *prog)
{
    const char *base = strrchr(prog, '/');
    if (strncmp(base ? base + 1 : prog, "python", 6) == 0) {
        init_name = "meshmem.init";
        fini_name = "meshmem.finalize";
        gexit_name = "meshmem.global_exit";
    }
}

/* what a rank in state @p s was doing, into @p out */
static const char *rank_state_name(int s, char *out, size_t cap)
{
    switch (s) {
    case MM_RANK_STARTED: snprintf(out, cap, "before %s", init_name); break;
    case MM_RANK_RUNNING: snprintf(out, cap, "after %s, without %s", init_name, fini_name); break;
    case MM_RANK_FINALIZED: snprintf(out, cap, "after %s", fini_name); break;
    case MM_RANK_GLOBAL_EXIT: snprintf(out, cap, "in %s", gexit_name); break;
    case MM_RANK_FAILED: snprintf(out, cap, "after a fatal error"); break;
    case MM_RANK_FINALIZING: snprintf(out, cap, "inside %s", fini_name); break;
    default: snprintf(out, cap, "?");
    }
    return out;
}

/* true when a rank called shmem_global_exit (rather than ending on a fatal error) */
static bool global_exit_called(const mm_ctl_t *ctl, int nranks)
{
    for (int r = 0; r < nranks; r++)
        if (atomic_load(&ctl->ranks[r].state) == MM_RANK_GLOBAL_EXIT)
            return true;
    return false;
}

/*
 * A global_exit or a fatal error was raised (ctl->global_exit): the peers that noticed it exit
 * with its status too, in any order, so name the rank that raised it rather than the first
 * rank reaped. A fatal error after a rank finalized and exited while its peers still ran (they
 * waited for it in a collective) is that rank's doing: @p leaver names it (-1: none).
 */
static void report_global_exit(const mm_ctl_t *ctl, int nranks, int status, int leaver,
                               int leaver_pid)
{
    for (int r = 0; r < nranks; r++) {
        int s = atomic_load(&ctl->ranks[r].state);
        if (s == MM_RANK_GLOBAL_EXIT) {
            fprintf(stderr, "meshrun: rank %d called %s(%d): stopping the job\n", r, gexit_name,
                    status);
            return;
        }
    }
    if (leaver >= 0) {
        fprintf(stderr,
                "meshrun: rank %d (pid %d) finalized and exited while its peers still "
                "needed it: stopping the job\n",
                leaver, leaver_pid);
        return;
    }
    for (int r = 0; r < nranks; r++) {
        if (atomic_load(&ctl->ranks[r].state) == MM_RANK_FAILED) {
            fprintf(stderr, "meshrun: rank %d reported a fatal error: stopping the job\n", r);
            return;
        }
    }
    fprintf(stderr, "meshrun: the job was ended with status %d: stopping it\n", status);
}

typedef struct {
    int nranks;
    pid_t pgid; /* the job's process group (rank 0's pid) */
    pid_t *pids;
    bool *alive;
    int running;
    bool stopping;
    double stop_at;  /* when stopping began */
    bool killed;     /* SIGKILL sent */
    double fatal_at; /* when a peer's fatal error was seen (0: none), see MESHRUN_CAUSE_WAIT_S */
    int fatal_status;
    int leaver; /* a rank that finalized and exited while others ran on, or -1 */
    int leaver_pid;
} job_t;

static void job_stop(job_t *j)
{
    if (j->stopping)
        return;
    j->stopping = true;
    j->stop_at = now_s();
    if (j->pgid > 0)
        kill(-j->pgid, SIGTERM);
    /* a rank that left the group (setsid/setpgid of its own) is still signalled by pid */
    for (int r = 0; r < j->nranks; r++)
        if (j->alive[r])
            kill(j->pids[r], SIGTERM);
}

static void job_kill(job_t *j)
{
    j->killed = true;
    if (j->pgid > 0)
        kill(-j->pgid, SIGKILL);
    for (int r = 0; r < j->nranks; r++)
        if (j->alive[r])
            kill(j->pids[r], SIGKILL);
}

/* the ranks still running, grouped by what they were doing: "ranks 0-2 (after shmem_init,
 * without shmem_finalize), rank 3 (before shmem_init)" */
static void describe_running(const job_t *j, const mm_ctl_t *ctl, char *out, size_t cap)
{
    static const int states[] = {MM_RANK_STARTED,   MM_RANK_RUNNING,     MM_RANK_FINALIZING,
                                 MM_RANK_FINALIZED, MM_RANK_GLOBAL_EXIT, MM_RANK_FAILED};
    bool *mask = calloc((size_t)j->nranks, sizeof(bool));
    size_t len = 0;
    out[0] = '\0';
    for (size_t k = 0; mask && k < sizeof(states) / sizeof(states[0]); k++) {
        int count = 0;
        for (int r = 0; r < j->nranks; r++) {
            mask[r] = j->alive[r] && atomic_load(&ctl->ranks[r].state) == states[k];
            count += mask[r];
        }
        if (count == 0)
            continue;
        char ranks[256], state[64];
        rank_ranges(mask, j->nranks, ranks, sizeof(ranks));
        int w = snprintf(out + len, cap - len, "%s%s %s (%s)", len ? ", " : "",
                         count > 1 ? "ranks" : "rank", ranks,
                         rank_state_name(states[k], state, sizeof(state)));
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
    /* the calls the ranks wait in, as they published them (a wait that lasted: mm_ctl.h) */
    for (int r = 0, n = 0; r < j->nranks && len < cap; r++) {
        char call[sizeof(ctl->ranks[0].call)];
        memcpy(call, ctl->ranks[r].call, sizeof(call));
        call[sizeof(call) - 1] = '\0';
        if (!j->alive[r] || call[0] == '\0')
            continue;
        bool first = n++ == 0;
        int w = snprintf(out + len, cap - len, "%s rank %d %s %s", first ? ";" : ",", r,
                         first ? "waits in" : "in", call);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
    free(mask);
}

/* the command line: its options, then the program to run and its arguments */
typedef struct {
    int nranks; /* -1: not given */
    const char *heap;
    bool bind, tag_output;
    double timeout; /* 0: none */
    meshrun_fabric_t fabric;
    meshrun_multi_t multi;
    const char *map_by;
    const char *rtl; /* --rtl: the engine's configuration */
    char **prog;
} options_t;

/*
 * Read the command line into @p o.
 * @return -1 to run the job, else meshrun's exit status (2 after a usage error, 0 after --help
 * and --version).
 */
static int parse_options(int argc, char **argv, options_t *o)
{
    *o = (options_t){.nranks = -1, .multi = {.nranks = -1}};
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        /* --option=value: the value after '=', else the next argument */
        char name[64];
        const char *inline_value = NULL, *eq = strchr(a, '=');
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof(name)) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            inline_value = eq + 1;
        }
#define NEXT_VALUE() (inline_value ? inline_value : i + 1 < argc ? argv[++i] : NULL)
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np") ||
                   !strcmp(a, "--ranks")) {
            const char *v = NEXT_VALUE();
            if (v == NULL)
                return usage_error("option %s needs a rank count", a);
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (end == v || *end || errno || n < 1 || n > MESHRUN_MAX_RANKS)
                return usage_error("-n argument \"%s\" is not a rank count in 1..4096", v);
            o->nranks = (int)n;
        } else if (!strcmp(a, "--heap")) {
            o->heap = NEXT_VALUE();
            if (o->heap == NULL)
                return usage_error("option %s needs a size", a);
            int64_t heap_bytes; /* the ranks' parser: a typo is one usage error, not N */
            if (mm_parse_size(o->heap, &heap_bytes) != 0)
                return usage_error("--heap argument \"%s\" is not a size (such as 64M or 1G)",
                                   o->heap);
        } else if (!strcmp(a, "--bind-to")) {
            const char *b = NEXT_VALUE();
            if (b == NULL)
                return usage_error("option %s needs core or none", a);
            if (!strcmp(b, "core"))
                o->bind = true;
            else if (strcmp(b, "none"))
                return usage_error("--bind-to argument \"%s\" is not core or none", b);
        } else if (!strcmp(a, "--timeout")) {
            const char *v = NEXT_VALUE();
            if (v == NULL)
                return usage_error("option %s needs a number of seconds", a);
            char *end;
            o->timeout = strtod(v, &end);
            if (end == v || *end || !(o->timeout > 0) || o->timeout > 1e7)
                return usage_error("--timeout argument \"%s\" is not a number of seconds > 0", v);
        } else if (!strcmp(a, "--hosts") || !strcmp(a, "--hostfile")) {
            const char *v = NEXT_VALUE();
            if (v == NULL)
                return usage_error("option %s needs a value", a);
            if (o->multi.hosts || o->multi.hostfile || o->multi.vhosts)
                return usage_error("%s", "give one of --hosts, --hostfile and --vhosts");
            *(!strcmp(a, "--hosts") ? &o->multi.hosts : &o->multi.hostfile) = v;
        } else if (!strcmp(a, "--vhosts")) {
            const char *v = NEXT_VALUE();
            if (v == NULL)
                return usage_error("option %s needs a host count", a);
            if (o->multi.hosts || o->multi.hostfile || o->multi.vhosts)
                return usage_error("%s", "give one of --hosts, --hostfile and --vhosts");
            char *end;
            errno = 0;
            long h = strtol(v, &end, 10);
            if (end == v || *end || errno || h < 1 || h > 64)
                return usage_error("--vhosts argument \"%s\" is not a host count in 1..64", v);
            o->multi.vhosts = (int)h;
        } else if (!strcmp(a, "--map-by")) {
            o->map_by = NEXT_VALUE();
            if (o->map_by == NULL)
                return usage_error("option %s needs slot or node", a);
            if (strcmp(o->map_by, "slot") && strcmp(o->map_by, "node"))
                return usage_error("--map-by argument \"%s\" is not slot or node", o->map_by);
        } else if (!strcmp(a, "--fabric") || !strcmp(a, "--compute-scale") ||
                   !strcmp(a, "--fabric-json") || !strcmp(a, "--fabric-set")) {
            const char *v = NEXT_VALUE();
            /* "--" ends the options: never a value (the model's argparse would drop it) */
            if (v == NULL || !*v || !strcmp(v, "--"))
                return usage_error("option %s needs a value", a);
            if (!strcmp(a, "--fabric"))
                o->fabric.fabric = v;
            else if (!strcmp(a, "--fabric-json"))
                o->fabric.json = v;
            else if (!strcmp(a, "--fabric-set")) {
                if (o->fabric.nsets == MESHRUN_FABRIC_SETS)
                    return usage_error("%s",
                                       "at most 8 --fabric-set options (MESHRUN_FABRIC_SETS)");
                o->fabric.sets[o->fabric.nsets++] = v;
            } else {
                char *end;
                double x = strtod(v, &end);
                /* decimal only: the model reads it with Python's float(), which takes no hex */
                if (end == v || *end || !(x >= 0) || x > 1e9 ||
                    v[strspn(v, "0123456789.eE+-")] != '\0')
                    return usage_error("--compute-scale argument \"%s\" is not a factor >= 0", v);
                o->fabric.compute_scale = v;
            }
        } else if (!strcmp(a, "--rtl")) {
            o->rtl = NEXT_VALUE();
            if (o->rtl == NULL || !*o->rtl)
                return usage_error("%s", "--rtl needs a configuration (a file, or a name such as "
                                         "optweb-fc8-45g)");
        } else if (inline_value) {
            return usage_error("option %s takes no value", a);
        } else if (!strcmp(a, "--tag-output")) {
            o->tag_output = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("meshrun (meshmem) %s\n", MESHMEM_VERSION);
            return 0;
        } else if (a[0] == '-') {
            return usage_error("unknown option \"%s\"", a);
        } else {
            break;
        }
#undef NEXT_VALUE
    }
    bool across = o->multi.hosts || o->multi.hostfile || o->multi.vhosts;
    if (o->nranks < 0 && !across)
        return usage_error("%s", "-n N is required");
    if (i >= argc)
        return usage_error("%s", "no program given");
    o->prog = &argv[i];
    if (o->map_by && !across)
        return usage_error("%s", "--map-by needs --hosts, --hostfile or --vhosts");
    if (o->fabric.fabric == NULL && (o->fabric.compute_scale || o->fabric.json || o->fabric.nsets))
        return usage_error("%s", "--compute-scale, --fabric-json and --fabric-set need --fabric");
    if (o->rtl && across)
        return usage_error("%s", "--rtl runs the job on this machine's simulated engine: not with "
                                 "--hosts, --hostfile or --vhosts");
    return -1;
}

/* the heap size the ranks read (SHMEM_SYMMETRIC_SIZE, or MESHMEM_HEAP_SIZE), when given */
static void export_heap(const char *heap)
{
    if (heap) {
        setenv("SHMEM_SYMMETRIC_SIZE", heap, 1);
        setenv("MESHMEM_HEAP_SIZE", heap, 1);
    }
}

/* the job across hosts, under OpenMPI's mpirun (meshrun_multi.h): @return meshrun's status */
static int run_across(options_t *o)
{
    /* the ranks' traces and their shared store counters (mm_trace.h) are files of one
     * directory that every rank maps: virtual hosts share this machine's /tmp, real hosts
     * do not */
    if (o->fabric.fabric && !o->multi.vhosts)
        return usage_error("%s", "--fabric across machines needs --vhosts (the ranks map one "
                                 "trace directory of this machine; --hosts and --hostfile "
                                 "run them elsewhere)");
    /* virtual hosts are this machine: the program must be here; a real host may have a
     * program this one lacks, and mpirun says so then */
    int missing = o->multi.vhosts ? check_program(o->prog[0]) : 0;
    if (missing)
        return missing;
    export_heap(o->heap);
    o->multi.nranks = o->nranks;
    o->multi.by_node = o->map_by && !strcmp(o->map_by, "node");
    o->multi.bind = o->bind;
    o->multi.timeout = o->timeout;
    o->multi.tag_output = o->tag_output;
    o->multi.prog = o->prog;
    int fab = meshrun_fabric_prepare(&o->fabric, o->nranks > 0 ? o->nranks : o->multi.vhosts);
    if (fab)
        return fab;
    return meshrun_fabric_finish(&o->fabric, meshrun_multi_run(&o->multi));
}

/*
 * The job control block (a memfd every rank inherits, mm_ctl.h) with the job's name, and the
 * environment that tells the ranks of the job.
 * @return the block, or NULL after saying why not.
 */
static mm_ctl_t *make_job(int nranks, const char *heap)
{
    /* the job control block: a memfd, inherited, never in /dev/shm */
    uint64_t ctl_bytes = mm_ctl_bytes((uint32_t)nranks);
    int fd = memfd_create("meshmem-ctl", 0);
    /* the job's user only (a memfd is created 0777), as the ranks' segments (mm_shm.c) */
    if (fd < 0 || fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)ctl_bytes) != 0) {
        fprintf(stderr, "meshrun: cannot create the job control block: %s\n", strerror(errno));
        return NULL;
    }
    mm_ctl_t *ctl = mmap(NULL, ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ctl == MAP_FAILED) {
        fprintf(stderr, "meshrun: mmap: %s\n", strerror(errno));
        return NULL;
    }
    ctl->magic = MM_CTL_MAGIC;
    ctl->nranks = (uint32_t)nranks;
    ctl->header_bytes = (uint32_t)sizeof(mm_ctl_t);
    /* the job's name prefixes its sockets: unguessable, so that no other process can take
       them first (mm_shm.c checks who it reaches anyway) */
    uint64_t tag = 0;
    if (getrandom(&tag, sizeof(tag), 0) != (ssize_t)sizeof(tag))
        tag = (uint64_t)getpid() ^ (uint64_t)time(NULL) << 20 ^ (uint64_t)(uintptr_t)&tag;
    snprintf(ctl->job, sizeof(ctl->job), "meshmem.%d.%016llx", (int)getpid(),
             (unsigned long long)tag);
    remove_stale_jobs();

    char buf[64];
    snprintf(buf, sizeof(buf), "%d", fd);
    setenv("MESHMEM_CTL_FD", buf, 1);
    snprintf(buf, sizeof(buf), "%d", nranks);
    setenv("MESHMEM_NRANKS", buf, 1);
    setenv("MESHMEM_JOB", ctl->job, 1);
    export_heap(heap);
    return ctl;
}

/* meshrun's handlers of the signals that stop the job, of SIGCHLD, SIGTTOU and SIGPIPE */
static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = meshrun_on_signal; /* no SA_RESTART: waitpid returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = meshrun_on_child; /* a rank's end interrupts the wait for its output */
    sigaction(SIGCHLD, &sa, NULL);
    /* handing the terminal to the job's group and back must not stop meshrun itself */
    signal(SIGTTOU, SIG_IGN);
    /* a reader of the output that went away is the ranks' SIGPIPE, not meshrun's (see
     * meshrun_output_closed) */
    signal(SIGPIPE, SIG_IGN);
}

/* the CPUs the job may run on, into @p cpus (CPU_SETSIZE of them at most): @return how many */
static int job_cpus(int *cpus)
{
    cpu_set_t allowed;
    int ncpu = 0;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed))
                cpus[ncpu++] = c;
    /* the ranks' own affinity masks shrink to one CPU under --bind-to core, so they cannot
     * tell from them whether they share cores: pass the job's CPU count (mm_count_cpus);
     * without it every bound rank of a job of 2 or more believes it is oversubscribed and
     * yields in every wait */
    if (ncpu > 0) {
        char ncpu_s[16];
        snprintf(ncpu_s, sizeof(ncpu_s), "%d", ncpu);
        setenv("MESHMEM_JOB_CPUS", ncpu_s, 1);
    }
    return ncpu;
}

/*
 * Raise meshrun's limit of open files to its hard limit, the limit it had into @p files.
 * @return whether there was one (to give back to the ranks).
 */
static bool raise_file_limit(struct rlimit *files)
{
    /* the ranks' output comes through meshrun, line by line (meshrun_output.h): two pipes
     * per rank stay open here, so thousands of ranks need more than the usual 1024 files (the
     * ranks get the limit they had) */
    struct rlimit raised;
    bool have_limit = getrlimit(RLIMIT_NOFILE, files) == 0;
    if (have_limit) {
        raised = (struct rlimit){files->rlim_max, files->rlim_max};
        setrlimit(RLIMIT_NOFILE, &raised);
    }
    return have_limit;
}

/* what every rank of the job is started with */
typedef struct {
    mm_ctl_t *ctl;
    meshrun_output_t *out;
    char **prog;
    bool bind, tag_output;
    const int *cpus; /* the job's CPUs (job_cpus) */
    int ncpu;
    bool have_limit;
    struct rlimit files; /* the ranks' limit of open files (raise_file_limit) */
} launch_t;

/* in the child forked for rank @p r of the job whose group is @p pgid: becomes the rank */
static _Noreturn void exec_rank(const launch_t *l, int r, pid_t pgid, pid_t parent)
{
    /* both sides set the group, so it is in place whichever runs first */
    setpgid(0, pgid);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* meshrun died before the line above */
        _exit(1);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGHUP, &dfl, NULL);
    sigaction(SIGTTOU, &dfl, NULL);
    sigaction(SIGPIPE, &dfl, NULL); /* an ignored signal stays ignored across exec */
    char buf[64];
    snprintf(buf, sizeof(buf), "%d", r);
    setenv("MESHMEM_RANK", buf, 1);
    meshrun_output_child(l->out, r);
    if (l->have_limit)
        setrlimit(RLIMIT_NOFILE, &l->files);
    if (l->bind && l->ncpu > 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(l->cpus[r % l->ncpu], &one);
        sched_setaffinity(0, sizeof(one), &one);
    }
    l->ctl->ranks[r].pid = (int32_t)getpid();
    execvp(l->prog[0], l->prog);
    fprintf(stderr, "meshrun: cannot run \"%s\": %s\n", l->prog[0], strerror(errno));
    _exit(127);
}

/*
 * Fork the ranks of @p job into its process group (rank 0's pid).
 * @return 0, or 1 after saying why a rank could not be started (the ranks started run on: the
 * wait stops them).
 */
static int launch_ranks(job_t *job, const launch_t *l)
{
    bool tty_out = isatty(STDOUT_FILENO);
    pid_t parent = getpid();
    int status = 0;
    for (int r = 0; r < job->nranks; r++) {
        /* without the pipes the rank writes to meshrun's own stdout and stderr: its lines may
         * then mix with others', which --tag-output promises they do not */
        if (meshrun_output_make(l->out, r, tty_out) != 0 && l->tag_output) {
            fprintf(stderr,
                    "meshrun: --tag-output: cannot make the output pipes of rank %d: "
                    "%s\n",
                    r, strerror(errno));
            status = 1;
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "meshrun: fork of rank %d: %s\n", r, strerror(errno));
            status = 1;
            break;
        }
        if (pid == 0)
            exec_rank(l, r, job->pgid, parent);
        if (job->pgid == 0)
            job->pgid = pid;
        setpgid(pid, job->pgid);
        meshrun_output_forked(l->out, r);
        job->pids[r] = pid;
        job->alive[r] = true;
        job->running++;
    }
    return status;
}

/*
 * The rank @p r of @p job ended (pid @p pid, wait status @p st): say why when it is a cause of
 * the job's end, and stop the job then.
 * @return the job's status: @p status, or the rank's when it ends the job.
 */
static int reap_rank(job_t *job, const mm_ctl_t *ctl, meshrun_output_t *out, int r, pid_t pid,
                     int st, int status)
{
    int nranks = job->nranks;
    job->alive[r] = false;
    job->running--;
    int rstate = atomic_load(&ctl->ranks[r].state);
    int gexit = atomic_load(&ctl->global_exit);
    int code = 0;
    char why[200] = "", state[64];
    rank_state_name(rstate, state, sizeof(state));
    if (WIFSIGNALED(st)) {
        code = 128 + WTERMSIG(st);
        snprintf(why, sizeof(why), "was killed by signal %d (%s) (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)), state);
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        code = WEXITSTATUS(st);
        snprintf(why, sizeof(why), "exited with status %d (%s)", code, state);
    } else if (rstate == MM_RANK_RUNNING || rstate == MM_RANK_FINALIZING) {
        code = 1;
        snprintf(why, sizeof(why), "exited with status 0 after %s without %s", init_name,
                 fini_name);
    } else if (rstate == MM_RANK_FINALIZED && job->leaver < 0) {
        /* finalize is a barrier of every rank: a rank through it while another has not
         * entered it (still running, or failing already) had its barrier met by some
         * other collective of the others, which then wait for it in vain */
        for (int q = 0; q < nranks; q++) {
            int qs = atomic_load(&ctl->ranks[q].state);
            if (qs == MM_RANK_RUNNING || qs == MM_RANK_FAILED) {
                job->leaver = r;
                job->leaver_pid = (int)pid;
                break;
            }
        }
    }
    /* a rank that ends because the job is ending (it raised the fatal error or the
       global_exit, or saw it and exited with its status) echoes the cause; a rank that
       ends otherwise is a cause of its own, even after a peer noticed it first */
    bool echo = gexit != 0 && !WIFSIGNALED(st) &&
                (rstate == MM_RANK_FAILED || rstate == MM_RANK_GLOBAL_EXIT ||
                 (WIFEXITED(st) && WEXITSTATUS(st) == gexit - 1));
    meshrun_output_drain(out);
    /* once the job is stopping, the reason it stops (set below) is its status: the
       ranks killed by the stop itself do not change it */
    if (job->stopping) {
        return status;
    } else if (echo && rstate == MM_RANK_FAILED && job->running > 0 &&
               !global_exit_called(ctl, nranks)) {
        if (job->fatal_at == 0) { /* a fatal error: a dead rank may be its cause */
            job->fatal_at = now_s();
            job->fatal_status = gexit - 1;
        }
    } else if (echo) {
        status = gexit - 1;
        if (job->running > 0 || job->fatal_at > 0 || job->leaver >= 0)
            report_global_exit(ctl, nranks, status, job->leaver, job->leaver_pid);
        job_stop(job);
    } else if (code != 0) {
        fprintf(stderr, "meshrun: rank %d (pid %d) %s%s\n", r, (int)pid, why,
                job->running > 0 ? ": stopping the job" : "");
        status = code;
        job_stop(job);
    }
    return status;
}

/*
 * Run the job to its end: pass the ranks' output through, stop the job on a signal, past
 * --timeout or when a rank fails, reap the ranks.
 * @return the job's status (@p status: 1 when not every rank could be started, else 0).
 */
static int wait_job(job_t *job, const mm_ctl_t *ctl, meshrun_output_t *out, double timeout,
                    int status)
{
    int nranks = job->nranks;
    if (job->running != nranks)
        job_stop(job);
    double deadline = timeout > 0 ? now_s() + timeout : 0;

    while (job->running > 0) {
        /* the ranks' lines first: meshrun's own below come after them */
        meshrun_output_drain(out);
        if (!job->stopping && meshrun_signal) {
            fprintf(stderr, "meshrun: %s: stopping the job\n", strsignal(meshrun_signal));
            status = 128 + meshrun_signal;
            job_stop(job);
        }
        if (!job->stopping && deadline > 0 && now_s() >= deadline) {
            char running[1024];
            describe_running(job, ctl, running, sizeof(running));
            fprintf(stderr,
                    "meshrun: the job ran past --timeout %g s: stopping it; still "
                    "running: %s\n",
                    timeout, running);
            status = 124;
            job_stop(job);
        }
        if (!job->stopping && job->fatal_at > 0 &&
            now_s() >= job->fatal_at + MESHRUN_CAUSE_WAIT_S) {
            status = job->fatal_status;
            /* a rank through finalize while a peer failed has left main (finalize's barrier
             * was met by the others' collective), even when it has not exited yet: it is the
             * cause, not the peer that found it (a loaded machine reaps it late) */
            for (int q = 0; q < nranks && job->leaver < 0; q++)
                if (atomic_load(&ctl->ranks[q].state) == MM_RANK_FINALIZED) {
                    job->leaver = q;
                    job->leaver_pid = (int)job->pids[q];
                }
            if (job->running > 0)
                report_global_exit(ctl, nranks, status, job->leaver, job->leaver_pid);
            job_stop(job);
        }
        if (job->stopping && !job->killed && now_s() >= job->stop_at + MESHRUN_GRACE_S)
            job_kill(job);
        /* the wait is the pipes' poll (a rank's end interrupts it: SIGCHLD): output flows
         * while ranks run */
        meshrun_output_pump(out, job->stopping ? 10 : 50);
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid == 0)
            continue;
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (meshrun_rtl_is_sim(pid)) {
            if (!job->stopping && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
                fprintf(stderr, "meshrun: the simulator (pid %d) ended: stopping the job\n",
                        (int)pid);
                status = 1;
                job_stop(job);
            }
            continue;
        }
        int r = 0;
        while (r < nranks && job->pids[r] != pid)
            r++;
        if (r == nranks)
            continue;
        status = reap_rank(job, ctl, out, r, pid, st, status);
    }
    if (job->fatal_at > 0 && !job->stopping) { /* the ranks all ended within the wait */
        status = job->fatal_status;
        meshrun_output_drain(out);
        report_global_exit(ctl, nranks, status, job->leaver, job->leaver_pid);
    }
    return status;
}

/*
 * After the job: stop what its ranks left behind, pass the last of their output, give the
 * terminal back (@p own_tty) and remove the job's objects.
 */
static void end_job(job_t *job, const mm_ctl_t *ctl, meshrun_output_t *out, bool own_tty)
{
    /* what the ranks forked and left behind belongs to the job too */
    if (job->pgid > 0)
        kill(-job->pgid, SIGKILL);
    meshrun_output_close(out, 1000);
    /* meshrun is their subreaper: once it has reaped them all, no process of the job is left */
    for (double end = now_s() + 1.0; now_s() < end;) {
        pid_t gone = waitpid(-1, NULL, WNOHANG);
        if (gone < 0 && errno != EINTR)
            break;
        if (gone == 0)
            usleep(1000);
    }
    signal(SIGCHLD, SIG_DFL); /* the model's run below waits for its own child undisturbed */
    if (own_tty)
        tcsetpgrp(STDIN_FILENO, getpgrp());
    remove_job_objects(ctl->job);
    free(job->pids);
    free(job->alive);
}

/*
 * meshrun: the options, then the job across hosts (run_across) or here: the job's setup
 * (make_job), the launch of its ranks, the wait for them, then the report on the modelled
 * fabric, if one was asked for (meshrun_fabric.h).
 */
int main(int argc, char **argv)
{
    options_t o;
    int done = parse_options(argc, argv, &o);
    if (done >= 0)
        return done;
    if (o.multi.hosts || o.multi.hostfile || o.multi.vhosts)
        return run_across(&o);
    name_states_for(o.prog[0]);
    int bad = check_program(o.prog[0]);
    if (bad)
        return bad;
    bad = meshrun_fabric_prepare(&o.fabric, o.nranks);
    if (bad)
        return bad;

    /* what a rank forks and leaves behind is reparented to meshrun, which can then wait for
     * the last process of the job (a grandchild holding no pipe of the job's output would
     * otherwise outlive meshrun's return) */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    mm_ctl_t *ctl = make_job(o.nranks, o.heap);
    if (ctl == NULL)
        return 1;
    catch_signals();
    bool own_tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
    int cpus[CPU_SETSIZE];
    launch_t l = {.ctl = ctl,
                  .prog = o.prog,
                  .bind = o.bind,
                  .tag_output = o.tag_output,
                  .cpus = cpus,
                  .ncpu = job_cpus(cpus)};

    job_t job = {.nranks = o.nranks, .leaver = -1};
    if (o.rtl) { /* the simulator first: its process group is the job's */
        job.pgid = meshrun_rtl_start(o.rtl, o.nranks);
        if (job.pgid < 0)
            return 1;
    }
    job.pids = calloc((size_t)o.nranks, sizeof(pid_t));
    job.alive = calloc((size_t)o.nranks, sizeof(bool));
    if (!job.pids || !job.alive)
        return 1;
    l.have_limit = raise_file_limit(&l.files);
    meshrun_output_t out;
    if (meshrun_output_open(&out, o.nranks, o.tag_output) != 0) {
        fprintf(stderr, "meshrun: out of memory\n");
        return 1;
    }
    l.out = &out;
    int status = launch_ranks(&job, &l);
    if (own_tty && job.pgid > 0)
        tcsetpgrp(STDIN_FILENO, job.pgid);
    status = wait_job(&job, ctl, &out, o.timeout, status);
    end_job(&job, ctl, &out, own_tty);
    return meshrun_fabric_finish(&o.fabric, status);
}
