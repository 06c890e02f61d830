/**
 * @file amt_data.h
 * @brief The traffic of the AMT kernels (DataVortex §4), the same on every runtime (header-only,
 * included by the meshmem program and its MPI twin).
 *
 * All-to-all of 8-byte messages (Fig. 2): rank s sends M messages; message i goes to rank
 * (s + 1 + i mod (P-1)) mod P (to itself when P = 1), round robin over the peers, so every rank
 * also receives exactly M. It carries amt_value(seed, run, s, i). Its slot at the receiver is
 * [s][i / (P-1)]: the k-th message from s.
 *
 * Message-driven kernel: a task is 8 bytes: its time to live in the top 8 bits, a random state
 * below. Every rank starts T tasks with time to live D; a task that arrives is counted and, if
 * its time to live is not 0, spawns 1 task (2 with probability 1/4) with one less, each on a
 * rank its state picks. The work is deterministic, so its total and the sum of amt_mix(task)
 * over every task run are known in advance: amt_expect() computes a rank's share (the trees
 * of its own initial tasks) without communication, and the sums over ranks must match what
 * the ranks ran.
 */
#ifndef AMT_DATA_H
#define AMT_DATA_H

#include "../common/app_harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/** @return the destination of message @p i of rank @p s among @p P ranks. */
static inline int amt_dest(int s, uint64_t i, int P)
{
    return P == 1 ? s : (int)((s + 1 + (int)(i % (uint64_t)(P - 1))) % P);
}

/** @return the slots per source a receiver needs for @p M messages per rank. */
static inline uint64_t amt_slots(uint64_t M, int P)
{
    return P == 1 ? M : (M + (uint64_t)P - 2) / (uint64_t)(P - 1);
}

/** @return the payload of message @p i of rank @p s in run @p run (never 0). */
static inline uint64_t amt_value(uint64_t seed, uint64_t run, int s, uint64_t i)
{
    return app_mix(seed ^ app_mix(run * UINT64_C(0x10001) + (uint64_t)s) ^ (i << 20)) | 1;
}

/** @return how many of @p M messages rank @p s sends to rank @p d. */
static inline uint64_t amt_count(int s, int d, uint64_t M, int P)
{
    if (P == 1)
        return M;
    int o = ((d - s) % P + P) % P; /* offset 1..P-1 */
    if (o == 0)
        return 0;
    uint64_t q = M / (uint64_t)(P - 1), r = M % (uint64_t)(P - 1);
    return q + ((uint64_t)(o - 1) < r ? 1 : 0);
}

/** Task layout: time to live in the top 8 bits. */
#define AMT_TTL_SHIFT  56
#define AMT_STATE_MASK ((UINT64_C(1) << AMT_TTL_SHIFT) - 1)

/** @return the mix of a task, summed into the kernel's checksum. */
static inline uint64_t amt_mix(uint64_t task)
{
    return app_mix(task ^ UINT64_C(0x5bd1e995));
}

/** @return initial task @p t of rank @p r with time to live @p ttl. */
static inline uint64_t amt_root(uint64_t seed, int r, uint64_t t, int ttl)
{
    uint64_t st = app_mix(seed ^ ((uint64_t)r << 32) ^ t) & AMT_STATE_MASK;
    return ((uint64_t)ttl << AMT_TTL_SHIFT) | st;
}

/** @return the children @p task spawns (0, 1 or 2) into @p child, and each one's rank in @p rank. */
static inline int amt_spawn(uint64_t task, int P, uint64_t child[2], int rank[2])
{
    uint64_t ttl = task >> AMT_TTL_SHIFT, st = task & AMT_STATE_MASK;
    if (ttl == 0)
        return 0;
    uint64_t h = app_mix(st);
    int n = 1 + ((h & 3) == 0);
    for (int c = 0; c < n; c++) {
        uint64_t s2 = app_mix(h + (uint64_t)c + 1);
        child[c] = ((ttl - 1) << AMT_TTL_SHIFT) | (s2 & AMT_STATE_MASK);
        rank[c] = (int)((s2 >> 8) % (uint64_t)P);
    }
    return n;
}

/**
 * @brief The tasks of the trees of rank @p r's @p T initial tasks (time to live @p ttl):
 * their number into @p count and the sum of amt_mix into @p sum. Depth-first, no recursion.
 * @return 0, or -1 when out of memory.
 */
static inline int amt_expect(uint64_t seed, int r, uint64_t T, int ttl, int P, uint64_t *count,
                             uint64_t *sum)
{
    size_t cap = 64 + 2 * (size_t)ttl, n = 0;
    uint64_t *stack = malloc(cap * sizeof(uint64_t));
    if (!stack)
        return -1;
    *count = *sum = 0;
    for (uint64_t t = 0; t < T; t++) {
        stack[n++] = amt_root(seed, r, t, ttl);
        while (n) {
            uint64_t task = stack[--n], child[2];
            int rank[2];
            ++*count;
            *sum += amt_mix(task);
            int k = amt_spawn(task, P, child, rank);
            for (int c = 0; c < k; c++)
                stack[n++] = child[c]; /* depth-first: at most 2 per level */
        }
    }
    free(stack);
    return 0;
}

/** A growable queue of tasks (last in, first out: depth first, as amt_expect). */
typedef struct {
    uint64_t *q;
    size_t n, cap;
} amt_queue_t;

/** @brief Queue @p task; app_fatal when out of memory. */
static inline void amt_push(app_t *h, amt_queue_t *q, uint64_t task)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 4096;
        q->q = realloc(q->q, q->cap * sizeof(uint64_t));
        if (!q->q)
            app_fatal(h, "out of memory for %zu queued tasks", q->cap);
    }
    q->q[q->n++] = task;
}

/** One rank's state of the message-driven kernel (the runtimes add their transport's). */
typedef struct {
    app_t *h;
    uint64_t T; /**< initial tasks */
    int ttl;    /**< their time to live */
    amt_queue_t q;
    uint64_t sent, recvd; /**< messages (tasks to other ranks) since the start */
    uint64_t sent0;       /**< sent when this run started */
    uint64_t ran, sum;    /**< tasks run here, the sum of their amt_mix */
    uint64_t rounds;      /**< of the termination detection */
} amt_kernel_t;

/**
 * @brief Start a run: this rank's initial tasks join the queue; the run's counts start at 0.
 * The queue and the message counters carry over from the last run: a peer that started this
 * run first may already have sent tasks here (its handler ran while this rank was still in
 * the harness's barrier), and they must neither be dropped nor uncounted. At the end of every
 * run the counters are equal over the ranks and the queues empty, so they stay consistent.
 */
static inline void amt_kernel_start(amt_kernel_t *k)
{
    k->ran = k->sum = k->rounds = 0;
    k->sent0 = k->sent;
    for (uint64_t t = 0; t < k->T; t++)
        amt_push(k->h, &k->q, amt_root(k->h->seed, k->h->me, t, k->ttl));
}

/**
 * @brief Run the queue dry: each task is counted and its children are queued here or handed
 * to @p send (rank, task; counted as sent); @p poll runs every 64 tasks and when the queue
 * runs empty, to take in what arrived.
 */
static inline void amt_kernel_drain(amt_kernel_t *k, void (*send)(void *, int, uint64_t),
                                    void (*poll)(void *), void *ctx)
{
    int me = k->h->me, P = k->h->nranks;
    while (k->q.n) {
        uint64_t task = k->q.q[--k->q.n], child[2];
        int rank[2];
        k->ran++;
        k->sum += amt_mix(task);
        int n = amt_spawn(task, P, child, rank);
        for (int c = 0; c < n; c++) {
            if (rank[c] == me) {
                amt_push(k->h, &k->q, child[c]);
            } else {
                send(ctx, rank[c], child[c]);
                k->sent++;
            }
        }
        if ((k->ran & 63) == 0 || !k->q.n)
            poll(ctx);
    }
}

/** The command line shared by `amt` and its twin. */
typedef struct {
    const char *variant, *list;
    long long T;
    int ttl;
    long long counts[64];
    int ncounts;
} amt_args_t;

/** @brief Parse the command line into @p a (variants: the program's, for the usage). */
static inline void amt_parse(app_t *h, amt_args_t *a, const char *synopsis, const char *variants,
                             int argc, char **argv)
{
    const app_opt_t opts[] = {
        {'v', APP_STR, &a->variant, 0, "VARIANT", variants},
        {'m', APP_STR, &a->list, 0, "COUNTS",
         "8-byte messages per rank, comma-separated (default 64,1K,16K)"},
        {'t', APP_COUNT, &a->T, 0, "TASKS", "kernel: initial tasks per rank (default 1000)"},
        {'d', APP_INT, &a->ttl, 0, "DEPTH",
         "kernel: time to live of the initial tasks, at most 255 (default 10)"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(h, synopsis, opts, argc, argv);
    if (a->ttl > 255)
        app_bad_option(h, "-d %d: DEPTH at most 255", a->ttl);
    if ((a->ncounts = app_parse_counts(a->list, a->counts, 64)) <= 0)
        app_bad_option(h, "-m %s: message counts, e.g. 64,1K,16K", a->list);
}

/**
 * @brief The kernel's verdict and result line: @p got = the sums over ranks of tasks run, their
 * checksum and messages sent; @p want = the expected tasks and checksum; @p rounds of the
 * termination detection (rank 0's).
 */
static inline void amt_kernel_report(app_t *h, const amt_args_t *a, const uint64_t got[3],
                                     const uint64_t want[2], uint64_t rounds)
{
    char what[160];
    snprintf(what, sizeof(what), "%llu tasks ran (%llu expected), checksum %s",
             (unsigned long long)got[0], (unsigned long long)want[0],
             got[1] == want[1] ? "equal" : "different");
    app_verdict(h, h->me == 0 && (got[0] != want[0] || got[1] != want[1]), 0, what);
    double t = h->t.median;
    app_report(h,
               "variant=kernel tasks=%llu messages=%llu T=%lld depth=%d rounds=%llu "
               "Mtasks=%.4f Mmsgs=%.4f",
               (unsigned long long)got[0], (unsigned long long)got[2], a->T, a->ttl,
               (unsigned long long)rounds, t > 0 ? (double)got[0] / t * 1e-6 : 0.0,
               t > 0 ? (double)got[2] / t * 1e-6 : 0.0);
}

/** @brief The all-to-all's result line for @p M messages per rank. */
static inline void amt_a2a_report(app_t *h, const char *variant, uint64_t M)
{
    double t = h->t.median, msgs = (double)M * h->nranks;
    app_report(h, "variant=%s messages=%llu Mmsgs=%.4f MBps=%.4f", variant, (unsigned long long)M,
               t > 0 ? msgs / t * 1e-6 : 0.0, t > 0 ? 8 * msgs / t * 1e-6 : 0.0);
}

/** @return the index among rank @p s's messages of the @p k-th it sends to @p me. */
static inline uint64_t amt_index(int s, int me, uint64_t k, int P)
{
    return P == 1 ? k : k * (uint64_t)(P - 1) + (uint64_t)(((me - s) % P + P) % P - 1);
}

#endif /* AMT_DATA_H */
