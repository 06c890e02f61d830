/* Bootstrap: the choice of implementation, the job id, where a rank runs (mm_boot.h). */
#include "mm_boot.h"
#include "mm_core.h"
#include "mm_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const mm_boot_ops_t *mm_boot;
static char mm_boot_job_id[64];

void mm_boot_set_job(const char *job)
{
    snprintf(mm_boot_job_id, sizeof(mm_boot_job_id), "%s", job);
}

const char *mm_boot_job(void)
{
    return mm_boot_job_id;
}

/* a PMIx launcher sets these in the environment of every process it starts */
static bool mm_boot_under_pmix(void)
{
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
}

int mm_boot_init(void)
{
    if (getenv("MESHMEM_CTL_FD") != NULL) {
        mm_boot = &mm_boot_meshrun_ops;
    } else if (mm_boot_under_pmix()) {
        mm_boot_plugin_fn entry = (mm_boot_plugin_fn)mm_plugin_open(
            MM_BOOT_PLUGIN_FILE, MM_BOOT_PLUGIN_ENTRY,
            "this program was started by a PMIx launcher (PMIX_NAMESPACE is set)");
        mm_boot = entry ? entry(mm_plugin_host()) : NULL;
        if (mm_boot == NULL) {
            mm_boot = &mm_boot_single_ops; /* a bootstrap for the fatal error path */
            return -1;
        }
    } else {
        mm_boot = &mm_boot_single_ops;
    }
    return mm_boot->init();
}

static uint64_t mm_ns_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

void mm_boot_card_fill(mm_boot_card_t *card)
{
    memset(card, 0, sizeof(*card));
    if (gethostname(card->host, sizeof(card->host) - 1) != 0)
        snprintf(card->host, sizeof(card->host), "?");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(card->boot_id, sizeof(card->boot_id), f) == NULL)
            card->boot_id[0] = '\0';
        card->boot_id[strcspn(card->boot_id, "\n")] = '\0';
        fclose(f);
    }
    card->ipc_ns = mm_ns_inode("/proc/self/ns/ipc");
    card->net_ns = mm_ns_inode("/proc/self/ns/net");
    card->pid = (int32_t)getpid();
    card->uid = (uint32_t)getuid();
}

bool mm_boot_same_node(const mm_boot_card_t *a, const mm_boot_card_t *b)
{
    /* no boot id (a kernel without it): the host name and namespaces decide */
    return strcmp(a->boot_id, b->boot_id) == 0 && a->ipc_ns == b->ipc_ns &&
           a->net_ns == b->net_ns && (a->boot_id[0] || strcmp(a->host, b->host) == 0);
}

/* ---- single: a program started without a launcher is a job of one rank ---- */

static int mm_single_init(void)
{
    mm_g.rank = 0;
    mm_g.nranks = 1;
    char job[64];
    snprintf(job, sizeof(job), "meshmem.%d.solo", (int)getpid());
    mm_boot_set_job(job);
    return 0;
}

static int mm_single_allgather(const void *mine, void *all, size_t len)
{
    memmove(all, mine, len);
    return 0;
}

static int mm_single_barrier(void)
{
    return 0;
}

static void mm_single_set_state(int state)
{
    (void)state;
}

static int mm_single_ending(void)
{
    return 0;
}

static __attribute__((noreturn)) void mm_single_abort(int status, const char *why)
{
    (void)why;
    _exit(status);
}

static void mm_single_fini(void)
{
}

const mm_boot_ops_t mm_boot_single_ops = {
    .name = "single",
    .init = mm_single_init,
    .allgather = mm_single_allgather,
    .barrier = mm_single_barrier,
    .set_state = mm_single_set_state,
    .ending = mm_single_ending,
    .abort = mm_single_abort,
    .fini = mm_single_fini,
};
