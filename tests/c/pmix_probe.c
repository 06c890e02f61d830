/*
 * pmix_probe: a rank bootstrapped by PMIx alone (no meshmem), for the tests of meshrun across
 * hosts (--hosts, --vhosts) until the runtime speaks PMIx itself, and for the measurements of
 * how a rank's failure ends a job under mpirun (docs/across-machines.md).
 *
 *   pmix_probe [MODE [args...]]
 *
 * Every rank prints "pmix_probe: rank R of N on HOST pid P local L" (flushed): HOST is
 * PMIX_HOSTNAME, checked against the host name the rank sees (gethostname); the tests use the
 * pids to check that nothing of the job is left. Modes (the faulty rank F prints
 * "pmix_probe: rank F failing at T", T in CLOCK_REALTIME seconds, just before it fails; the
 * others wait in pause() where the job would hang if the failure went unnoticed):
 *   where [slot|node [H]]  (default) check what every rank got from PMIx and from its host
 *                     (below); status 0
 *   hang              all wait forever after a fence ("pmix_probe: ready" from rank 0)
 *   exit F CODE       rank F calls exit(CODE) without PMIx_Finalize
 *   finalize-exit F CODE  rank F calls PMIx_Finalize, then exit(CODE)
 *   abort F CODE      rank F calls PMIx_Abort(CODE)
 *   kill F SIG        rank F raises signal SIG
 *   exit0 F           rank F calls exit(0) without PMIx_Finalize
 *
 * The checks of "where", done by rank 0 from what every rank published (PMIx_Put, Fence, Get):
 *  - PMIX_HOSTNAME is the host name the rank sees (its UTS namespace on a virtual host);
 *  - the ranks of a host have local ranks 0..k-1 and PMIX_LOCAL_SIZE k;
 *  - ranks on one host share the IPC namespace and see the same files in /dev/shm, ranks on
 *    different hosts do not (each rank creates /dev/shm/pmix_probe.<nspace>.<rank> and counts
 *    those of the job it sees: exactly its host's);
 *  - slot (default): the ranks fill the hosts in order, ceil(N/H) per host (meshrun's default
 *    placement); node: rank r is on the (r mod H)-th host; H: the number of hosts expected
 *    (default: as many as the ranks are on).
 * Each failed check prints one line naming the rank; the status is then 1.
 */
#define _GNU_SOURCE
#include <pmix.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "pmix_probe: rank %u: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(2);
}

/* a value of @p proc (or the job's, for PMIX_RANK_WILDCARD) */
static pmix_value_t *get(uint32_t rank, const char *key)
{
    pmix_proc_t p;
    PMIX_PROC_LOAD(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        die(key, rc);
    return v;
}

static uint32_t get_u32(uint32_t rank, const char *key)
{
    pmix_value_t *v = get(rank, key);
    uint32_t x = v->type == PMIX_UINT16 ? v->data.uint16 : v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return x;
}

static void put_string(const char *key, const char *s)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Put", rc);
}

static void fence(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
}

/* files of this job now in /dev/shm */
static int count_shm_files(void)
{
    char prefix[PMIX_MAX_NSLEN + 32];
    snprintf(prefix, sizeof(prefix), "pmix_probe.%s.", me.nspace);
    DIR *d = opendir("/dev/shm");
    int n = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

typedef struct {
    char host[256];
    char ipc[64];
    uint32_t local_rank, local_size;
    int shm_seen;
} rank_info_t;

static int check_where(uint32_t nranks, int by, int nhosts)
{
    char uts[256], ipc[64] = "?", path[PMIX_MAX_NSLEN + 64];
    gethostname(uts, sizeof(uts));
    ssize_t n = readlink("/proc/self/ns/ipc", ipc, sizeof(ipc) - 1);
    ipc[n > 0 ? n : 0] = '\0';
    snprintf(path, sizeof(path), "/dev/shm/pmix_probe.%s.%u", me.nspace, me.rank);
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    if (fd >= 0)
        close(fd);
    fence();
    char seen[32], lsize[32];
    snprintf(seen, sizeof(seen), "%d", count_shm_files());
    /* the local size is a key of the rank's own node: published for rank 0 to read */
    snprintf(lsize, sizeof(lsize), "%u", get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE));
    put_string("probe.uts", uts);
    put_string("probe.lsize", lsize);
    put_string("probe.ipc", ipc);
    put_string("probe.shm", seen);
    if (PMIx_Commit() != PMIX_SUCCESS)
        die("PMIx_Commit", PMIX_ERROR);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &collect, 1);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Fence (collect)", rc);
    unlink(path);
    if (me.rank != 0)
        return 0;

    rank_info_t *info = calloc(nranks, sizeof(*info));
    int bad = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        pmix_value_t *v = get(r, PMIX_HOSTNAME);
        snprintf(info[r].host, sizeof(info[r].host), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
        info[r].local_rank = get_u32(r, PMIX_LOCAL_RANK);
        v = get(r, "probe.uts");
        if (strcmp(v->data.string, info[r].host)) {
            printf("pmix_probe: rank %u: PMIX_HOSTNAME %s but host name %s\n", r, info[r].host,
                   v->data.string);
            bad++;
        }
        PMIX_VALUE_RELEASE(v);
        v = get(r, "probe.ipc");
        snprintf(info[r].ipc, sizeof(info[r].ipc), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
        v = get(r, "probe.shm");
        info[r].shm_seen = atoi(v->data.string);
        PMIX_VALUE_RELEASE(v);
        v = get(r, "probe.lsize");
        info[r].local_size = (uint32_t)atoi(v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    /* hosts in order of their first rank */
    char hosts[nranks][256];
    int nseen = 0, host_of[nranks], on_host[nranks];
    memset(on_host, 0, sizeof(on_host));
    for (uint32_t r = 0; r < nranks; r++) {
        int h = 0;
        while (h < nseen && strcmp(hosts[h], info[r].host))
            h++;
        if (h == nseen)
            snprintf(hosts[nseen++], sizeof(hosts[0]), "%s", info[r].host);
        host_of[r] = h;
        if (info[r].local_rank != (uint32_t)on_host[h]++) {
            printf("pmix_probe: rank %u on %s has local rank %u, expected %d\n", r, info[r].host,
                   info[r].local_rank, on_host[h] - 1);
            bad++;
        }
    }
    for (uint32_t r = 0; r < nranks; r++) {
        uint32_t host_size = info[r].local_size;
        if (host_size != (uint32_t)on_host[host_of[r]] || info[r].shm_seen != on_host[host_of[r]]) {
            printf("pmix_probe: rank %u on %s: local size %u, sees %d files of the job in "
                   "/dev/shm, but the host has %d ranks\n",
                   r, info[r].host, host_size, info[r].shm_seen, on_host[host_of[r]]);
            bad++;
        }
        for (uint32_t q = 0; q < r; q++) {
            if ((host_of[q] == host_of[r]) != !strcmp(info[q].ipc, info[r].ipc)) {
                printf("pmix_probe: ranks %u (%s) and %u (%s) %s the IPC namespace\n", q,
                       info[q].host, r, info[r].host,
                       host_of[q] == host_of[r] ? "do not share" : "share");
                bad++;
            }
        }
        int want = -1;
        uint32_t h_all = nhosts > 0 ? (uint32_t)nhosts : (uint32_t)nseen;
        uint32_t per = (nranks + h_all - 1) / h_all;
        if (by == 's')
            want = (int)(r / per);
        else if (by == 'n')
            want = (int)(r % h_all);
        if (want >= 0 && host_of[r] != want) {
            printf("pmix_probe: rank %u is on %s, the %d-th host, expected the %d-th (%s)\n", r,
                   info[r].host, host_of[r], want, by == 's' ? "by slot" : "by node");
            bad++;
        }
    }
    if (nhosts > 0 && nseen != (nhosts < (int)nranks ? nhosts : (int)nranks)) {
        printf("pmix_probe: the ranks are on %d hosts, expected %d\n", nseen, nhosts);
        bad++;
    }
    printf("pmix_probe: %u ranks on %d hosts: %s\n", nranks, nseen, bad ? "FAILED" : "ok");
    free(info);
    return bad ? 1 : 0;
}

static void fail_now(const char *mode, int code)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("pmix_probe: rank %u failing at %.6f\n", me.rank, ts.tv_sec + ts.tv_nsec * 1e-9);
    fflush(stdout);
    if (!strcmp(mode, "exit") || !strcmp(mode, "exit0"))
        exit(code);
    if (!strcmp(mode, "finalize-exit")) {
        PMIx_Finalize(NULL, 0);
        exit(code);
    }
    if (!strcmp(mode, "abort"))
        PMIx_Abort(code, "pmix_probe: abort", NULL, 0);
    if (!strcmp(mode, "kill"))
        raise(code);
    exit(code);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pmix_probe: PMIx_Init failed: %s (not started by a PMIx launcher?)\n",
                PMIx_Error_string(rc));
        return 2;
    }
    uint32_t nranks = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    uint32_t local = get_u32(me.rank, PMIX_LOCAL_RANK);
    pmix_value_t *v = get(me.rank, PMIX_HOSTNAME);
    printf("pmix_probe: rank %u of %u on %s pid %d local %u\n", me.rank, nranks, v->data.string,
           (int)getpid(), local);
    PMIX_VALUE_RELEASE(v);

    const char *mode = argc > 1 ? argv[1] : "where";
    int status = 0;
    if (!strcmp(mode, "where")) {
        const char *by = argc > 2 ? argv[2] : "slot";
        if (strcmp(by, "slot") && strcmp(by, "node")) {
            fprintf(stderr, "pmix_probe: where %s: expected slot or node\n", by);
            return 2;
        }
        status = check_where(nranks, by[0], argc > 3 ? atoi(argv[3]) : 0);
    } else if (!strcmp(mode, "hang")) {
        fence();
        if (me.rank == 0)
            printf("pmix_probe: ready\n");
        for (;;)
            pause();
    } else if (!strcmp(mode, "exit") || !strcmp(mode, "finalize-exit") || !strcmp(mode, "abort") ||
               !strcmp(mode, "kill") || !strcmp(mode, "exit0")) {
        if (argc < (strcmp(mode, "exit0") ? 4 : 3)) {
            fprintf(stderr, "pmix_probe: %s needs a rank%s\n", mode,
                    strcmp(mode, "exit0") ? " and a code" : "");
            return 2;
        }
        uint32_t faulty = (uint32_t)atoi(argv[2]);
        int code = argc > 3 ? atoi(argv[3]) : 0;
        fence();
        if (me.rank == 0)
            printf("pmix_probe: ready\n");
        if (me.rank == faulty) {
            usleep(300000); /* the others wait in pause() by then */
            fail_now(mode, code);
        }
        for (;;)
            pause();
    } else {
        fprintf(stderr, "pmix_probe: unknown mode \"%s\"\n", mode);
        status = 2;
    }
    PMIx_Finalize(NULL, 0);
    return status;
}
