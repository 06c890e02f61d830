/*
 * fault_matrix: one rank of a job fails in one way at one phase (tests/c/fault_case.py runs
 * every combination and checks that the job ends within 2 s, every process gone, nothing left).
 *
 *   fault_matrix PHASE HOW VICTIM
 *     PHASE   init      the victim fails inside meshmem_init, waiting there for late peers
 *             put       inside a put (8 MiB puts to its neighbour, over and over)
 *             coll      inside a collective (1 MiB all-reduces and all-to-alls, every rank)
 *             am        inside an active-message handler (the request its left peer sent)
 *             stream    inside a stream (pushing and waiting, batch by batch)
 *             finalize  inside meshmem_finalize, waiting there for late peers
 *     HOW     kill (SIGKILL), segv (a store to NULL), abort, exit3 (exit(3): atexit handlers run)
 *     VICTIM  the rank that fails
 *
 * Every rank prints "fault_matrix: rank R pid P"; the victim prints "fault_matrix: failing at T"
 * (CLOCK_MONOTONIC seconds) just before it fails, so that the driver can time the job's end
 * from the failure. Except in a handler, the failure comes from a thread of the victim, a few
 * milliseconds after its main thread has entered the phase (the phase loops until then, or
 * waits for peers that come late), so that the rank dies in the middle of the call.
 */
#define _GNU_SOURCE
#include "meshmem.h"
#include "meshmem_am.h"
#include "meshmem_coll.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *how;
static atomic_int armed;
static int delay_ms;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(void)
{
    printf("fault_matrix: failing at %.6f\n", now_s());
    fflush(stdout);
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    else if (!strcmp(how, "segv")) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    } else if (!strcmp(how, "abort"))
        abort();
    else if (!strcmp(how, "exit3"))
        exit(3);
    fprintf(stderr, "fault_matrix: unknown way to fail %s\n", how);
    _exit(2);
}

/* the victim's second thread: fails delay_ms after the main thread arms it */
static void *failer(void *arg)
{
    (void)arg;
    while (!atomic_load(&armed))
        usleep(1000);
    usleep((useconds_t)delay_ms * 1000);
    fail();
    return NULL;
}

/* arm the failure: from now on the victim fails within delay_ms */
static void arm(int victim, int me)
{
    if (me == victim)
        atomic_store(&armed, 1);
}

static int me_, victim_;

static void on_request(meshmem_am_token_t token, void *buf, size_t nbytes,
                       const meshmem_am_arg_t *args, int nargs)
{
    (void)buf, (void)nbytes, (void)args, (void)nargs;
    if (me_ == victim_)
        fail(); /* inside the handler */
    meshmem_am_reply_short(token, 1, 0, NULL);
}

static atomic_int replied;

static void on_reply(meshmem_am_token_t token, void *buf, size_t nbytes,
                     const meshmem_am_arg_t *args, int nargs)
{
    (void)token, (void)buf, (void)nbytes, (void)args, (void)nargs;
    atomic_store(&replied, 1);
}

static void wait_forever(void)
{
    for (;;)
        meshmem_barrier(MESHMEM_TEAM_WORLD);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fault_matrix PHASE HOW VICTIM\n");
        return 2;
    }
    const char *phase = argv[1];
    how = argv[2];
    victim_ = atoi(argv[3]);
    const char *env = getenv("MESHMEM_RANK");
    int rank = env ? atoi(env) : 0;
    printf("fault_matrix: rank %d pid %d\n", rank, (int)getpid());
    fflush(stdout);
    delay_ms = !strcmp(phase, "init") || !strcmp(phase, "finalize") ? 100 : 20;
    pthread_t th;
    if (rank == victim_ && strcmp(phase, "am") != 0)
        pthread_create(&th, NULL, failer, NULL);

    if (!strcmp(phase, "init")) {
        if (rank != victim_)
            usleep(500000); /* late: the victim waits inside init when it fails */
        arm(victim_, rank);
    }
    if (meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) != MESHMEM_OK)
        return 1;
    int me = me_ = meshmem_rank(), n = meshmem_nranks();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    if (!strcmp(phase, "put")) {
        size_t bytes = (size_t)8 << 20;
        char *dst = meshmem_malloc(bytes), *src = malloc(bytes);
        memset(src, me, bytes);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        arm(victim_, me);
        if (me == victim_)
            for (;;)
                meshmem_put(dst, src, bytes, right);
        wait_forever();
    } else if (!strcmp(phase, "coll")) {
        size_t count = (size_t)1 << 17; /* 1 MiB of int64 */
        int64_t *a = meshmem_malloc(count * 8), *b = meshmem_malloc(count * 8);
        memset(a, 1, count * 8);
        for (int i = 0;; i++) {
            if (i == 1)
                arm(victim_, me);
            meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, a, b, count, MESHMEM_INT64, MESHMEM_OP_SUM,
                                   MESHMEM_ALGO_AUTO);
            meshmem_coll_alltoall(MESHMEM_TEAM_WORLD, b, a, count / (size_t)n, MESHMEM_INT64,
                                  MESHMEM_ALGO_AUTO);
        }
    } else if (!strcmp(phase, "am")) {
        meshmem_am_entry_t e[2] = {{0, on_request, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 0},
                                   {1, on_reply, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 0}};
        if (meshmem_am_register(e, 2) != MESHMEM_OK)
            return 1;
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        meshmem_am_request_short(right, 0, 0, NULL);
        while (!atomic_load(&replied)) /* the victim's left peer waits here for good */
            meshmem_am_poll();
        wait_forever();
    } else if (!strcmp(phase, "stream")) {
        static uint64_t sig;
        size_t cap = (size_t)1 << 20;
        uint64_t *buf = meshmem_malloc(cap * 8), chunk[64];
        memset(chunk, me, sizeof chunk);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        meshmem_stream_t out, in;
        meshmem_stream_open(&out, buf, 8, cap, &sig, 64, me, right);
        meshmem_stream_open(&in, buf, 8, cap, &sig, 64, left, me);
        arm(victim_, me);
        for (size_t k = 0; k < cap / 64; k++) {
            meshmem_stream_push(&out, chunk, 64);
            meshmem_stream_wait(&in, (k + 1) * 64);
            usleep(100); /* a producer that computes between batches */
        }
        wait_forever();
    } else if (!strcmp(phase, "finalize")) {
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        if (me != victim_)
            usleep(500000); /* late: the victim waits inside finalize when it fails */
        arm(victim_, me);
        meshmem_finalize();
        if (me == victim_)
            for (;;)
                pause(); /* finalize returned before the failure: it comes here */
        return 0;
    } else if (strcmp(phase, "init") != 0) {
        fprintf(stderr, "fault_matrix: unknown phase %s\n", phase);
        return 2;
    }
    wait_forever(); /* init: the victim fails before this; the others wait for it here */
}
