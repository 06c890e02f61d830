/*
 * Choosing every peer's transport (mm_tp.h) and opening the networks.
 *
 * At init every rank publishes its card (host, boot id, namespaces, pid, segment sizes:
 * mm_boot.h). A peer is then reached by
 *   1. the node's shared memory when it shares memory with this rank (mm_shm_node.c: same
 *      machine and namespaces, unless MESHMEM_SHM=0 or MESHMEM_HOST_RANKS split them), by load
 *      and store; this rank reaches itself so;
 *   2. else the first network of MESHMEM_NET that can connect the pair (its reaches()).
 * The cards and the configuration are the job's, so every rank decides every pair alike: a
 * network is opened on every rank as soon as one pair of the job needs it (its init is
 * collective: it exchanges addresses through the bootstrap), and a network that no pair needs
 * is never loaded (a job on one host loads no UCX: mm_plugin.h says why that matters).
 */
#include "mm_shm.h"
#include "mm_tp.h"
#include "mm_wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the networks built with this library, a comma list (CMake: src/CMakeLists.txt) */
#ifndef MESHMEM_NETS_BUILT
#define MESHMEM_NETS_BUILT ""
#endif

const mm_tp_ops_t *mm_tp_nets[MM_TP_NETS_MAX];
int mm_tp_nnets;

static const char *const mm_tp_net_names[] = {MM_NET_NAMES};

/* is network @p name built into this library? */
static bool mm_tp_net_built(const char *name)
{
    const char *list = MESHMEM_NETS_BUILT;
    size_t len = strlen(name);
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != '\0'))
        if (strcspn(p, ",") == len && strncmp(p, name, len) == 0)
            return true;
    return false;
}

/* a network MESHMEM_NET names explicitly must be built: one line naming it otherwise */
static int mm_tp_nets_check(void)
{
    const char *set = getenv("MESHMEM_NET");
    if (set == NULL || *set == '\0')
        return 0; /* the default names UCX, needed only once a job spans hosts */
    for (int i = 0, code; (code = mm_config_net_at(mm_config.net, i)) != 0; i++) {
        const char *name = mm_tp_net_names[code - 1];
        if (!mm_tp_net_built(name)) {
            mm_error("MESHMEM_NET=%s: network %s is not built into this meshmem (built: %s)", set,
                     name, *MESHMEM_NETS_BUILT ? MESHMEM_NETS_BUILT : "none");
            return -1;
        }
    }
    return 0;
}

/* @return the first operation a network must have that @p ops lacks, or NULL */
static const char *mm_tp_net_missing(const mm_tp_ops_t *ops)
{
    /* clang-format off */
#define MM_TP_NEEDS(op)                                                                            \
    if (ops->op == NULL)                                                                           \
        return #op;
    MM_TP_NEEDS(reaches) MM_TP_NEEDS(init) MM_TP_NEEDS(fini) MM_TP_NEEDS(put)
    MM_TP_NEEDS(put_nbi) MM_TP_NEEDS(get) MM_TP_NEEDS(get_nbi) MM_TP_NEEDS(amo)
    MM_TP_NEEDS(fence) MM_TP_NEEDS(quiet) MM_TP_NEEDS(am_send) MM_TP_NEEDS(am_recv)
    MM_TP_NEEDS(am_keep) MM_TP_NEEDS(am_drop) MM_TP_NEEDS(progress)
#undef MM_TP_NEEDS
            /* clang-format on */
            return ops->am_eager_max == 0
        ? "am_eager_max"
        : NULL;
}

/* load network @p name's plugin. @return its operations, or NULL after logging why */
static const mm_tp_ops_t *mm_tp_net_load(const char *name)
{
    /* meshmem reports failures in one line of its own: UCX's handlers for SIGSEGV and its kin
     * (installed when its libraries load, with the ucx plugin) would print a backtrace over
     * it, unless the user asked for them */
    setenv("UCX_ERROR_SIGNALS", "", 0);
    char file[64], why[96];
    snprintf(file, sizeof(file), "libmeshmem_%s.so", name);
    snprintf(why, sizeof(why), "the job spans %d hosts", mm_g.nnodes);
    mm_net_plugin_fn entry = (mm_net_plugin_fn)mm_plugin_open(file, MM_NET_PLUGIN_ENTRY, why);
    /* a network may map this rank's memfds elsewhere (rtl: in its simulator process) */
    static mm_plugin_host_t net_host;
    net_host = *mm_plugin_host();
    net_host.seg_fds = mm_shm_seg_fds;
    const mm_tp_ops_t *ops = entry ? entry(&net_host) : NULL;
    const char *missing = ops == NULL ? NULL : mm_tp_net_missing(ops);
    if (missing) {
        mm_error("meshmem_init: %s is not a complete network transport (no %s)", file, missing);
        ops = NULL;
    }
    return ops;
}

/* is the pair of ranks @p a, @p b reached by no transport opened so far? */
static bool mm_tp_pair_left(const mm_boot_card_t *cards, int a, int b)
{
    if (mm_g.node_of[a] == mm_g.node_of[b])
        return false;
    for (int k = 0; k < mm_tp_nnets; k++)
        if (mm_tp_nets[k]->reaches(cards, a, b))
            return false;
    return true;
}

/* does network @p net (not opened yet) reach a pair that nothing reaches so far (@p any: does
 * any such pair exist at all)? Every rank computes the same answers */
static bool mm_tp_net_needed(const mm_boot_card_t *cards, const mm_tp_ops_t *net, bool *any)
{
    int n = mm_g.nranks;
    *any = false;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (mm_tp_pair_left(cards, a, b)) {
                *any = true;
                if (net == NULL || net->reaches(cards, a, b))
                    return true;
            }
    return false;
}

/* open network @p net for this rank's peers it is the first to reach (collective) */
static int mm_tp_net_open(const mm_boot_card_t *cards, const mm_tp_ops_t *net)
{
    int n = mm_g.nranks, me = mm_g.rank;
    bool *mine = calloc((size_t)n, sizeof(bool));
    if (mine == NULL || mm_tp_nnets == MM_TP_NETS_MAX) {
        free(mine);
        return -1;
    }
    for (int p = 0; p < n; p++)
        mine[p] = p != me && mm_tp_pair_left(cards, me, p) && net->reaches(cards, me, p);
    int rc = net->init(cards, mine, mm_tp_am_arrived);
    mm_tp_nets[mm_tp_nnets++] = net; /* (its fini is due even after a failed init) */
    for (int p = 0; p < n && rc == 0; p++)
        if (mine[p]) {
            mm_tp_peers[p].kind = MM_TP_NET;
            mm_tp_peers[p].ops = net;
        }
    free(mine);
    return rc;
}

static void mm_tp_nets_progress(void)
{
    for (int k = 0; k < mm_tp_nnets; k++)
        mm_tp_nets[k]->progress();
}

static void mm_tp_nets_idle(void)
{
    for (int k = 0; k < mm_tp_nnets; k++)
        if (mm_tp_nets[k]->idle)
            mm_tp_nets[k]->idle();
}

/* open, in MESHMEM_NET's order, every network that a pair of the job needs */
static int mm_tp_nets_open(const mm_boot_card_t *cards)
{
    bool any;
    mm_tp_net_needed(cards, NULL, &any);
    for (int i = 0, code; any && (code = mm_config_net_at(mm_config.net, i)) != 0; i++) {
        const mm_tp_ops_t *net = mm_tp_net_load(mm_tp_net_names[code - 1]);
        if (net == NULL)
            return -1;
        if (mm_tp_net_needed(cards, net, &any) && mm_tp_net_open(cards, net) != 0)
            return -1;
        mm_tp_net_needed(cards, NULL, &any);
    }
    for (int p = 0; p < mm_g.nranks; p++)
        if (mm_tp_peers[p].ops == NULL) {
            mm_error("meshmem_init: rank %d (host %s) shares no memory with rank %d (host %s), "
                     "and no network of MESHMEM_NET reaches it",
                     p, cards[p].host, mm_g.rank, cards[mm_g.rank].host);
            return -1;
        }
    if (mm_tp_nnets > 0) { /* every wait progresses them (mm_wait.h) */
        mm_wait_net_poll = mm_tp_nets_progress;
        mm_wait_net_idle = mm_tp_nets_idle;
    }
    for (int k = 0; k < mm_tp_nnets; k++)
        mm_wait_net_paced |= mm_tp_nets[k]->paced;
    return 0;
}

/* every rank's segments must have one layout: the same heap and executable everywhere */
static int mm_tp_cards_check(const mm_boot_card_t *cards)
{
    const mm_boot_card_t *mine = &cards[mm_g.rank];
    for (int r = 0; r < mm_g.nranks; r++) {
        if (cards[r].heap_seg_bytes != mine->heap_seg_bytes) {
            mm_error("meshmem_init: PE %d has a symmetric heap of %llu bytes, PE %d of %zu: "
                     "SHMEM_SYMMETRIC_SIZE / MESHMEM_HEAP_SIZE must be the same on every PE",
                     r, (unsigned long long)cards[r].heap_seg_bytes, mm_g.rank, mm_g.seg_bytes);
            return -1;
        }
        if (cards[r].data_seg_bytes != mine->data_seg_bytes) {
            mm_error("meshmem_init: PE %d runs a different executable (static data of %llu "
                     "bytes, here %llu)",
                     r, (unsigned long long)cards[r].data_seg_bytes,
                     (unsigned long long)mine->data_seg_bytes);
            return -1;
        }
    }
    return 0;
}

int mm_tp_init(void)
{
    int n = mm_g.nranks;
    if (mm_tp_nets_check() != 0)
        return -1;
    /* one line per peer: the hot paths read one entry (mm_tp_peer_t) */
    mm_tp_peers = aligned_alloc(MM_CACHELINE, (size_t)n * sizeof(mm_tp_peer_t));
    mm_g.node_of = calloc((size_t)n, sizeof(int));
    mm_boot_card_t *cards = calloc((size_t)n, sizeof(mm_boot_card_t));
    if (!mm_tp_peers || !mm_g.node_of || !cards) {
        free(cards);
        return -1;
    }
    memset(mm_tp_peers, 0, (size_t)n * sizeof(mm_tp_peer_t));
    for (int p = 0; p < n; p++)
        mm_tp_peers[p].kind = MM_TP_NET; /* ops NULL: not reached yet */
    mm_boot_card_fill(&cards[mm_g.rank]);
    cards[mm_g.rank].heap_seg_bytes = mm_g.seg_bytes;
    cards[mm_g.rank].data_seg_bytes = mm_shm_data_shared();
    /* listen before the exchange: once it returns, the node's peers may connect */
    int listener = mm_shm_node_listen();
    int rc = listener == -1 ? -1 : 0;
    if (rc == 0) {
        mm_boot_card_t mine = cards[mm_g.rank];
        rc = mm_boot->allgather(&mine, cards, sizeof(mine));
    }
    if (rc == 0)
        rc = mm_tp_cards_check(cards);
    if (rc == 0) {
        rc = mm_shm_node_join(cards, listener); /* closes the listener */
        listener = -1;
    }
    if (listener >= 0)
        close(listener);
    if (rc == 0)
        rc = mm_tp_nets_open(cards);
    free(cards);
    return rc;
}

void mm_tp_fini(void)
{
    mm_wait_net_poll = NULL;
    mm_wait_net_idle = NULL;
    mm_wait_net_paced = false;
    /* collective: the remote peers are done with this rank's memory */
    for (int k = mm_tp_nnets - 1; k >= 0; k--)
        if (mm_tp_nets[k]->fini)
            mm_tp_nets[k]->fini();
    mm_tp_nnets = 0;
    mm_shm_node_leave();
    free(mm_tp_peers);
    free(mm_g.node_of);
    mm_tp_peers = NULL;
    mm_g.node_of = NULL;
}

double mm_tp_wtime(void)
{
    /* a network that simulates its hardware keeps the job's clock (rtl: simulated time) */
    for (int k = 0; k < mm_tp_nnets; k++)
        if (mm_tp_nets[k]->wtime != NULL)
            return mm_tp_nets[k]->wtime();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
