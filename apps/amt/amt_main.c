/**
 * @file amt_main.c
 * @brief `amt`: the asynchronous many-task traffic of DataVortex §4 on meshmem (amt_data.h).
 *
 *  put     Fig. 2's all-to-all of 8-byte messages: every message its own meshmem_put of 8 bytes
 *          into its slot at the receiver (no aggregation), then meshmem_quiet and a barrier
 *  am      the same messages as active messages: one SHORT request of one 8-byte argument each,
 *          whose handler stores it in its slot; then meshmem_am_quiet and a barrier
 *  kernel  the message-driven kernel: tasks of 8 bytes sent as SHORT requests to the ranks they
 *          pick, each counted and maybe spawning more where it runs; ended by a distributed
 *          termination detection (below)
 *
 * Termination: a rank runs its queue dry, then meshmem_am_quiet (every request it sent has been
 * handled, i.e. queued, at its target), then takes its counters (messages sent, messages
 * received by its handler, tasks queued) and sums them over the ranks. No rank sends between
 * taking its counters and the end of the sum, so the sum of sent counts every message of the
 * round; a message received after its receiver took its counters is missing from the received
 * sum. Sent = received and no task queued anywhere therefore means no task exists: done;
 * otherwise every rank runs its queue again and the next round sums again.
 *
 * One line per size (put, am) or per run set (kernel), e.g.
 *   @amt variant=put messages=1024 Mmsgs=... MBps=... seconds=... verified=1
 * Mmsgs: messages of all ranks per second / 1e6. Exit 0 verified, 1 not, 2 bad arguments.
 */
#include "amt_data.h"

#include "../common/app_harness.h"

#include <meshmem.h>
#include <meshmem_am.h>
#include <meshmem_coll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H_STORE = 20, H_TASK = 21 };

typedef struct {
    app_t *h;
    int am; /* 0: put, 1: am */
    uint64_t M, slots;
    uint64_t *recv; /* symmetric [P][slots] */
    uint64_t *got;  /* am: messages stored per source this run */
    uint64_t run;
} a2a_t;

typedef amt_kernel_t kern_t;

static a2a_t *a2a_now; /* the handlers' state: one job at a time */
static kern_t *kern_now;

static void h_store(meshmem_am_token_t tok, void *buf, size_t n, const meshmem_am_arg_t *args,
                    int nargs)
{
    (void)buf, (void)n, (void)nargs;
    a2a_t *a = a2a_now;
    int src = meshmem_am_token_rank(tok);
    uint64_t k = a->got[src]++;
    if (k < a->slots)
        a->recv[(size_t)src * a->slots + k] = args[0];
}

static void h_task(meshmem_am_token_t tok, void *buf, size_t n, const meshmem_am_arg_t *args,
                   int nargs)
{
    (void)tok, (void)buf, (void)n, (void)nargs;
    kern_now->recvd++;
    amt_push(kern_now->h, &kern_now->q, args[0]);
}

static void prepare_a2a(void *ctx, int run)
{
    a2a_t *a = ctx;
    a->run = (uint64_t)run;
    memset(a->got, 0, (size_t)a->h->nranks * sizeof(uint64_t));
}

static void run_a2a(void *ctx, int run)
{
    a2a_t *a = ctx;
    int me = a->h->me, P = a->h->nranks;
    for (uint64_t i = 0; i < a->M; i++) {
        int d = amt_dest(me, i, P);
        uint64_t v = amt_value(a->h->seed, (uint64_t)run, me, i);
        if (a->am) {
            meshmem_am_request_short(d, H_STORE, 1, &v);
        } else {
            uint64_t k = P == 1 ? i : i / (uint64_t)(P - 1);
            meshmem_put(&a->recv[(size_t)me * a->slots + k], &v, sizeof(v), d);
        }
    }
    if (a->am)
        meshmem_am_quiet();
    else
        meshmem_quiet();
    meshmem_barrier(MESHMEM_TEAM_WORLD); /* every message to this rank has arrived */
}

/* the slots of the last run hold exactly its messages */
static uint64_t check_a2a(const a2a_t *a)
{
    int me = a->h->me, P = a->h->nranks;
    uint64_t bad = 0;
    for (int s = 0; s < P; s++) {
        uint64_t want = amt_count(s, me, a->M, P);
        if (a->am && a->got[s] != want)
            bad++;
        for (uint64_t k = 0; k < want; k++) {
            uint64_t i = amt_index(s, me, k, P);
            bad += a->recv[(size_t)s * a->slots + k] != amt_value(a->h->seed, a->run, s, i);
        }
    }
    return bad;
}

static void send_task(void *ctx, int rank, uint64_t task)
{
    (void)ctx;
    meshmem_am_request_short(rank, H_TASK, 1, &task);
}

static void poll_tasks(void *ctx)
{
    (void)ctx;
    meshmem_am_poll(); /* keep the peers' tasks moving */
}

static void run_kernel(void *ctx, int run)
{
    (void)run;
    kern_t *k = ctx;
    amt_kernel_start(k);
    for (;;) {
        amt_kernel_drain(k, send_task, poll_tasks, NULL);
        meshmem_am_quiet();
        uint64_t mine[3] = {k->sent, k->recvd, k->q.n}, all[3];
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, mine, all, 3, MESHMEM_UINT64, MESHMEM_OP_SUM,
                               MESHMEM_ALGO_AUTO);
        k->rounds++;
        if (all[0] == all[1] && all[2] == 0)
            break;
    }
}

int main(int argc, char **argv)
{
    amt_args_t o = {.variant = "put", .list = "64,1K,16K", .T = 1000, .ttl = 10};
    app_t h = APP_INIT("amt", "amt");
    amt_parse(&h, &o, "amt [options]   (start with meshrun -n RANKS)",
              "put, am or kernel (default put)", argc, argv);
    int kernel = !strcmp(o.variant, "kernel"), am = !strcmp(o.variant, "am");
    if (!kernel && !am && strcmp(o.variant, "put"))
        app_bad_option(&h, "-v %s: put, am or kernel", o.variant);
    app_start(&h, &app_rt_meshmem);
    int P = h.nranks;
    meshmem_am_entry_t entries[] = {
        {H_STORE, h_store, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 1},
        {H_TASK, h_task, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 1},
    };
    if (meshmem_am_register(entries, 2) != MESHMEM_OK)
        app_fatal(&h, "meshmem_am_register failed");
    if (kernel) {
        kern_t k = {.h = &h, .T = (uint64_t)o.T, .ttl = o.ttl};
        kern_now = &k;
        uint64_t want[2], want_all[2];
        if (amt_expect(h.seed, h.me, k.T, o.ttl, P, &want[0], &want[1]) != 0)
            app_fatal(&h, "out of memory");
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, want, want_all, 2, MESHMEM_UINT64,
                               MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
        app_runs_t runs = {
            .run = run_kernel, .ctx = &k, .phase = "kernel", .timing = APP_TIME_EACH, .warmup = -1};
        app_time_runs(&h, &runs);
        if (h.corrupt && h.me == 0)
            k.ran++;
        uint64_t got[3] = {k.ran, k.sum, k.sent - k.sent0}, got_all[3];
        meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, got, got_all, 3, MESHMEM_UINT64, MESHMEM_OP_SUM,
                               MESHMEM_ALGO_AUTO);
        amt_kernel_report(&h, &o, got_all, want_all, k.rounds);
        free(k.q.q);
        return app_finish(&h);
    }
    for (int ci = 0; ci < o.ncounts; ci++) {
        a2a_t a = {.h = &h, .am = am, .M = (uint64_t)o.counts[ci]};
        a.slots = amt_slots(a.M, P);
        a.recv = meshmem_calloc((size_t)P * (a.slots ? a.slots : 1), sizeof(uint64_t));
        a.got = calloc((size_t)P, sizeof(uint64_t));
        if (!a.recv || !a.got)
            app_fatal(&h, "out of (symmetric) memory for %llu messages", (unsigned long long)a.M);
        a2a_now = &a;
        char phase[48];
        snprintf(phase, sizeof(phase), "amt-%llu", (unsigned long long)a.M);
        app_runs_t runs = {.prepare = prepare_a2a,
                           .run = run_a2a,
                           .ctx = &a,
                           .phase = phase,
                           .timing = APP_TIME_EACH,
                           .warmup = -1};
        app_time_runs(&h, &runs);
        int from = (h.me + P - 1) % P; /* a source that sent this rank something */
        if (h.corrupt && amt_count(from, h.me, a.M, P))
            a.recv[(size_t)from * a.slots] ^= 2;
        app_verdict(&h, check_a2a(&a), 0, "messages missing or wrong in their slots");
        amt_a2a_report(&h, o.variant, a.M);
        meshmem_free(a.recv);
        free(a.got);
    }
    return app_finish(&h);
}
