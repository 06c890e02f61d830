/*
 * meshrun: start N ranks of a meshmem (or OpenSHMEM) program on this machine.
 *
 *   meshrun -n N [--heap SIZE] [--bind-to core|none] [--timeout SEC] [--] prog [args...]
 *
 * The launcher creates the job control block (a memfd every rank inherits, see mm_ctl.h),
 * forks the ranks, passes their output through and returns the first non-zero exit status.
 * When a rank fails (non-zero exit, a signal, or an exit after init without finalize), on
 * global_exit, on a timeout or on SIGINT/SIGTERM, it stops the other ranks (SIGTERM, then
 * SIGKILL after a grace period, well within 2 s) and removes every shared-memory object of the
 * job from /dev/shm.
 */
#include "mm_ctl.h"

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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MESHRUN_GRACE_MS 700 /* SIGTERM to SIGKILL */

static volatile sig_atomic_t meshrun_signal;

static void meshrun_on_signal(int sig)
{
    meshrun_signal = sig;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: meshrun -n N [options] [--] program [args...]\n"
            "  -n, --np N           number of ranks (PEs) to start on this machine\n"
            "  --heap SIZE          symmetric heap per rank (e.g. 64M, 1G); sets SHMEM_SYMMETRIC_SIZE\n"
            "  --bind-to core|none  pin rank r to the r-th allowed CPU (default none)\n"
            "  --timeout SEC        stop the job after SEC seconds (exit status 124)\n"
            "  -h, --help           this text\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

static const char *rank_state_name(int s)
{
    switch (s) {
    case MM_RANK_STARTED: return "before shmem_init";
    case MM_RANK_RUNNING: return "after shmem_init, without shmem_finalize";
    case MM_RANK_FINALIZED: return "after shmem_finalize";
    case MM_RANK_GLOBAL_EXIT: return "in shmem_global_exit";
    case MM_RANK_FAILED: return "after a fatal error";
    }
    return "?";
}

int main(int argc, char **argv)
{
    int nranks = -1;
    const char *heap = NULL;
    bool bind = false;
    double timeout = 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if ((!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np")) && i + 1 < argc) {
            char *end;
            nranks = (int)strtol(argv[++i], &end, 10);
            if (*end || nranks < 1 || nranks > 4096) {
                fprintf(stderr, "meshrun: -n argument \"%s\" is not a rank count in 1..4096\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--heap") && i + 1 < argc) {
            heap = argv[++i];
        } else if (!strcmp(a, "--bind-to") && i + 1 < argc) {
            const char *b = argv[++i];
            if (!strcmp(b, "core"))
                bind = true;
            else if (strcmp(b, "none")) {
                fprintf(stderr, "meshrun: --bind-to argument \"%s\" is not core or none\n", b);
                return 2;
            }
        } else if (!strcmp(a, "--timeout") && i + 1 < argc) {
            timeout = atof(argv[++i]);
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-') {
            fprintf(stderr, "meshrun: unknown option \"%s\"\n", a);
            usage(stderr);
            return 2;
        } else {
            break;
        }
    }
    if (nranks < 0 || i >= argc) {
        fprintf(stderr, "meshrun: %s\n", nranks < 0 ? "-n N is required" : "no program given");
        usage(stderr);
        return 2;
    }
    char **prog = &argv[i];

    /* the job control block: a memfd, inherited, never in /dev/shm */
    uint64_t ctl_bytes = mm_ctl_bytes((uint32_t)nranks);
    int fd = memfd_create("meshmem-ctl", 0);
    if (fd < 0 || ftruncate(fd, (off_t)ctl_bytes) != 0) {
        fprintf(stderr, "meshrun: cannot create the job control block: %s\n", strerror(errno));
        return 1;
    }
    mm_ctl_t *ctl = mmap(NULL, ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ctl == MAP_FAILED) {
        fprintf(stderr, "meshrun: mmap: %s\n", strerror(errno));
        return 1;
    }
    ctl->magic = MM_CTL_MAGIC;
    ctl->nranks = (uint32_t)nranks;
    ctl->header_bytes = (uint32_t)sizeof(mm_ctl_t);
    srand((unsigned)(getpid() ^ (unsigned)time(NULL)));
    snprintf(ctl->job, sizeof(ctl->job), "meshmem.%d.%04x", (int)getpid(), rand() & 0xffff);

    char buf[64];
    snprintf(buf, sizeof(buf), "%d", fd);
    setenv("MESHMEM_CTL_FD", buf, 1);
    snprintf(buf, sizeof(buf), "%d", nranks);
    setenv("MESHMEM_NRANKS", buf, 1);
    setenv("MESHMEM_JOB", ctl->job, 1);
    if (heap) {
        setenv("SHMEM_SYMMETRIC_SIZE", heap, 1);
        setenv("MESHMEM_HEAP_SIZE", heap, 1);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = meshrun_on_signal; /* no SA_RESTART: waitpid returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);

    cpu_set_t allowed;
    int ncpu = 0, cpus[CPU_SETSIZE];
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed))
                cpus[ncpu++] = c;
    /* the ranks' own affinity masks shrink to one CPU under --bind-to core, so they cannot
     * tell from them whether they share cores: pass the job's CPU count (mm_count_cpus) */
    if (ncpu > 0) {
        snprintf(buf, sizeof(buf), "%d", ncpu);
        setenv("MESHMEM_JOB_CPUS", buf, 1);
    }

    pid_t *pids = calloc((size_t)nranks, sizeof(pid_t));
    bool *alive = calloc((size_t)nranks, sizeof(bool));
    if (!pids || !alive)
        return 1;
    int running = 0;
    for (int r = 0; r < nranks; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "meshrun: fork: %s\n", strerror(errno));
            break;
        }
        if (pid == 0) {
            struct sigaction dfl;
            memset(&dfl, 0, sizeof(dfl));
            dfl.sa_handler = SIG_DFL;
            sigaction(SIGINT, &dfl, NULL);
            sigaction(SIGTERM, &dfl, NULL);
            sigaction(SIGHUP, &dfl, NULL);
            sigaction(SIGALRM, &dfl, NULL);
            snprintf(buf, sizeof(buf), "%d", r);
            setenv("MESHMEM_RANK", buf, 1);
            if (bind && ncpu > 0) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(cpus[r % ncpu], &one);
                sched_setaffinity(0, sizeof(one), &one);
            }
            ctl->ranks[r].pid = (int32_t)getpid();
            execvp(prog[0], prog);
            fprintf(stderr, "meshrun: cannot run \"%s\": %s\n", prog[0], strerror(errno));
            _exit(127);
        }
        pids[r] = pid;
        alive[r] = true;
        running++;
    }

    int status = running == nranks ? 0 : 1;
    bool stopping = running != nranks;
    double deadline = timeout > 0 ? now_s() + timeout : 0, kill_at = 0;
    if (timeout > 0)
        alarm((unsigned)timeout + 1);
    if (stopping)
        kill_at = now_s();

    while (running > 0) {
        if (!stopping && meshrun_signal && meshrun_signal != SIGALRM) {
            fprintf(stderr, "meshrun: %s: stopping the job\n", strsignal(meshrun_signal));
            status = 128 + meshrun_signal;
            stopping = true;
            kill_at = now_s();
        }
        if (!stopping && deadline > 0 && now_s() >= deadline) {
            fprintf(stderr, "meshrun: the job ran past --timeout %.0f s: stopping it\n", timeout);
            status = 124;
            stopping = true;
            kill_at = now_s();
        }
        if (stopping) {
            /* SIGTERM at once, SIGKILL after the grace period */
            int sig = now_s() >= kill_at + MESHRUN_GRACE_MS / 1000.0 ? SIGKILL : SIGTERM;
            for (int r = 0; r < nranks; r++)
                if (alive[r])
                    kill(pids[r], sig);
        }
        int st;
        pid_t pid = stopping ? waitpid(-1, &st, WNOHANG) : waitpid(-1, &st, 0);
        if (pid == 0) {
            usleep(20000);
            continue;
        }
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int r = 0;
        while (r < nranks && pids[r] != pid)
            r++;
        if (r == nranks)
            continue;
        alive[r] = false;
        running--;
        int rstate = atomic_load(&ctl->ranks[r].state);
        int code = 0;
        char why[200] = "";
        if (WIFSIGNALED(st)) {
            code = 128 + WTERMSIG(st);
            snprintf(why, sizeof(why), "was killed by signal %d (%s)", WTERMSIG(st),
                     strsignal(WTERMSIG(st)));
        } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
            code = WEXITSTATUS(st);
            snprintf(why, sizeof(why), "exited with status %d", code);
        } else if (rstate == MM_RANK_RUNNING) {
            code = 1;
            snprintf(why, sizeof(why), "exited after shmem_init without shmem_finalize");
        }
        if (rstate == MM_RANK_GLOBAL_EXIT && !stopping) {
            status = atomic_load(&ctl->global_exit) - 1;
            if (running > 0)
                fprintf(stderr, "meshrun: rank %d called shmem_global_exit(%d): stopping the job\n",
                        r, status);
            stopping = true;
            kill_at = now_s();
        } else if (code != 0 && !stopping) {
            fprintf(stderr, "meshrun: rank %d (pid %d) %s (%s)%s\n", r, (int)pid, why,
                    rank_state_name(rstate), running > 0 ? ": stopping the job" : "");
            status = code;
            stopping = true;
            kill_at = now_s();
        } else if (code != 0 && status == 0) {
            status = code;
        }
    }
    remove_job_objects(ctl->job);
    free(pids);
    free(alive);
    return status;
}
