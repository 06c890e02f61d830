/*
 * Bootstrap of ranks started by a PMIx launcher (mm_boot.h): OpenMPI's mpirun or prterun,
 * Slurm's srun --mpi=pmix. The launcher's PMIx server gives rank and size, exchanges data
 * (Put, Commit, a Fence that collects, Get) and ends the job on Abort. Nothing is read from
 * the launcher about nodes (see mm_boot.h). Built as the plugin libmeshmem_pmix.so
 * (mm_plugin.h): it sees the runtime through the host it is given.
 */
#include "mm_plugin.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const mm_plugin_host_t *H;
static pmix_proc_t mm_pmix_me;

#undef mm_error /* the plugin logs through its host */
#define mm_error(...)         H->log(MM_LOG_ERROR, __VA_ARGS__)
#define MM_PMIX_ABORT_GRACE_S 2 /* after PMIx_Abort: time for the launcher to stop the job */
/* a fatal error waits this long before it ends the job (see mm_pmix_abort) */
#define MM_PMIX_CAUSE_WAIT_NS 500000000L
static unsigned mm_pmix_round; /* allgathers so far: each uses keys of its own */

static int mm_pmix_check(pmix_status_t rc, const char *what)
{
    if (rc == PMIX_SUCCESS)
        return 0;
    mm_error("meshmem_init: %s: %s", what, PMIx_Error_string(rc));
    return -1;
}

static int mm_pmix_init(void)
{
    if (mm_pmix_check(PMIx_Init(&mm_pmix_me, NULL, 0), "PMIx_Init (started by a PMIx launcher)"))
        return -1;
    H->g->rank = (int)mm_pmix_me.rank;
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, mm_pmix_me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (mm_pmix_check(PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v), "PMIx_Get(PMIX_JOB_SIZE)"))
        return -1;
    H->g->nranks = (int)v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    /* a first count of this host's ranks, for the memory check before the hosts are known */
    if (PMIx_Get(&job, PMIX_LOCAL_SIZE, NULL, 0, &v) == PMIX_SUCCESS) {
        H->g->local_size = (int)v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    /* the namespace can be long ("prterun-host-1234@1"): a hash of it names the job's sockets */
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *c = mm_pmix_me.nspace; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    char id[64];
    snprintf(id, sizeof(id), "meshmem.px%016llx", (unsigned long long)h);
    H->set_job(id);
    return 0;
}

static int mm_pmix_fence(bool collect)
{
    pmix_info_t info;
    bool flag = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    return mm_pmix_check(rc, "PMIx_Fence");
}

static int mm_pmix_barrier(void)
{
    return mm_pmix_fence(false);
}

static int mm_pmix_allgather(const void *mine, void *all, size_t len)
{
    char key[32];
    snprintf(key, sizeof(key), "meshmem.ag.%u", mm_pmix_round++);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)mine;
    v.data.bo.size = len;
    if (mm_pmix_check(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put") ||
        mm_pmix_check(PMIx_Commit(), "PMIx_Commit") || mm_pmix_fence(true))
        return -1;
    for (int r = 0; r < H->g->nranks; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, mm_pmix_me.nspace, (pmix_rank_t)r);
        pmix_value_t *got = NULL;
        if (mm_pmix_check(PMIx_Get(&p, key, NULL, 0, &got), "PMIx_Get"))
            return -1;
        if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
            mm_error("meshmem_init: rank %d published %zu bytes where %zu were expected (a "
                     "different meshmem on that rank?)",
                     r, got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : 0, len);
            PMIX_VALUE_RELEASE(got);
            return -1;
        }
        memcpy((char *)all + (size_t)r * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    return 0;
}

static int mm_pmix_state; /* MM_RANK_*: the last state this rank recorded */

static void mm_pmix_set_state(int state)
{
    /* the launcher learns a rank's end from PMIx (finalized or not) and its exit; the state is
     * kept for abort's line */
    mm_pmix_state = state;
}

static int mm_pmix_ending(void)
{
    return 0; /* the launcher ends the ranks itself */
}

static __attribute__((noreturn)) void mm_pmix_abort(int status, const char *why)
{
    /* OpenMPI's mpirun prints nothing for PMIx_Abort, so a shmem_global_exit would end the job
     * in silence: say which rank ended it (a fatal error has said so already, as an error).
     * meshrun across hosts reads this line to name the rank and its host. */
    if (mm_pmix_state == MM_RANK_GLOBAL_EXIT && why)
        fprintf(stderr, "meshmem[%d] info: %s: ending the job with status %d\n", H->g->rank, why,
                status);
    fflush(NULL);
    /* A fatal error is often the echo of a rank that died (its peers saw the connection drop):
     * the launcher names the dead rank, its signal or status, only if it learns of that end
     * before this abort, which it would otherwise report as the job's cause. Its daemon sees
     * the death at once; this gives it time to stop the job first (meshrun waits as long on
     * one host, MESHRUN_CAUSE_WAIT_S). A fatal error of its own ends the job as surely, later. */
    if (mm_pmix_state == MM_RANK_FAILED) {
        struct timespec wait = {0, MM_PMIX_CAUSE_WAIT_NS};
        nanosleep(&wait, NULL);
    }
    /* the launcher kills every rank of the job, on every host, and exits with status */
    PMIx_Abort(status, why ? why : "meshmem: the job was ended", NULL, 0);
    /* wait for it with this rank's connections open: exiting at once, peers on other hosts
     * would see them drop and end the job first, with their own status 1 */
    struct timespec grace = {MM_PMIX_ABORT_GRACE_S, 0};
    nanosleep(&grace, NULL);
    _exit(status);
}

static void mm_pmix_fini(void)
{
    PMIx_Finalize(NULL, 0);
}

static const mm_boot_ops_t mm_boot_pmix_ops = {
    .name = "pmix",
    .init = mm_pmix_init,
    .allgather = mm_pmix_allgather,
    .barrier = mm_pmix_barrier,
    .set_state = mm_pmix_set_state,
    .ending = mm_pmix_ending,
    .abort = mm_pmix_abort,
    .fini = mm_pmix_fini,
};

__attribute__((visibility("default"))) const mm_boot_ops_t *meshmem_boot_plugin(
    const mm_plugin_host_t *host)
{
    if (host->abi != MM_PLUGIN_ABI) {
        host->log(MM_LOG_ERROR,
                  "meshmem_init: %s is from another build than libmeshmem "
                  "(interface %d, expected %d)",
                  MM_BOOT_PLUGIN_FILE, MM_PLUGIN_ABI, host->abi);
        return NULL;
    }
    H = host;
    return &mm_boot_pmix_ops;
}
