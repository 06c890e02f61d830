/*
 * SHMEM_THREAD_MULTIPLE under stress: THREADS threads on every PE, each with a private context
 * and a private team (a copy of the world made before the threads start: team creation is
 * collective over the parent, so one thread makes them), mix in every round
 *   - RMA through the context: a put to the right neighbour, and a get back of what it holds;
 *   - AMOs: a fetch-add on a counter of one PE, the owner changing every round;
 *   - a signal: put_signal to the right neighbour's slot for this thread, waited for by it;
 *   - collectives on the thread's team: a sum all-reduce and a broadcast, checked.
 * Every value is checked; at the end the counters hold exactly what every thread of every PE
 * added. Run under TSan (label "threads"): the threads of one PE share the runtime.
 *   shmem_thread_stress [ROUNDS]
 */
#include "shmem_test.h"

#include <pthread.h>
#include <stdint.h>

#define THREADS 4

static long counters[64];      /* counters[r % 64] on PE r % npes, round r */
static long data[THREADS][2];  /* what the left neighbour's thread t put */
static uint64_t sigs[THREADS]; /* its signals, one per round */
static long sig_data[THREADS];
static int rounds = 40;

typedef struct {
    int t;
    shmem_team_t team;
    long *coll_src, *coll_dst; /* symmetric, this thread's */
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    int t = w->t;
    shmem_ctx_t ctx;
    EXPECT(shmem_team_create_ctx(w->team, SHMEM_CTX_PRIVATE, &ctx) == 0, "thread %d ctx", t);
    int tn = shmem_team_n_pes(w->team), tme = shmem_team_my_pe(w->team);
    EXPECT(tn == npes && tme == me, "thread %d: team of %d, me %d", t, tn, tme);
    for (int r = 0; r < rounds; r++) {
        long v = ((long)r << 20) | (me << 8) | t;
        /* RMA: the context numbers PEs in the thread's team (here the world's numbers) */
        shmem_ctx_long_put(ctx, &data[t][r % 2], &v, 1, right);
        shmem_ctx_quiet(ctx);
        /* AMO on this round's counter */
        long old = shmem_ctx_long_atomic_fetch_add(ctx, &counters[r % 64], t + 1, r % npes);
        EXPECT(old >= 0, "fetch_add returned %ld", old);
        /* signal: data, then the round number + 1 */
        long sv = v + 1;
        shmem_ctx_long_put_signal(ctx, &sig_data[t], &sv, 1, &sigs[t], (uint64_t)r + 1,
                                  SHMEM_SIGNAL_SET, right);
        shmem_signal_wait_until(&sigs[t], SHMEM_CMP_GE, (uint64_t)r + 1);
        /* collectives on the thread's own team */
        w->coll_src[0] = me + t + r;
        w->coll_src[1] = 1;
        EXPECT(shmem_long_sum_reduce(w->team, w->coll_dst, w->coll_src, 2) == 0, "reduce");
        long want = (long)npes * (npes - 1) / 2 + (long)npes * (t + r);
        EXPECT(w->coll_dst[0] == want && w->coll_dst[1] == npes,
               "thread %d round %d: sum %ld, expected %ld", t, r, w->coll_dst[0], want);
        /* after the reduce the left neighbour's put of this round (quiet before) is here */
        long lv = ((long)r << 20) | (left << 8) | t;
        EXPECT(data[t][r % 2] == lv, "thread %d round %d: put %lx, expected %lx", t, r,
               data[t][r % 2], lv);
        EXPECT(sig_data[t] >= lv + 1, "signalled data");
        long back = shmem_ctx_long_g(ctx, &data[t][r % 2], right);
        EXPECT(back == v, "thread %d round %d: get %lx, expected %lx", t, r, back, v);
        w->coll_src[0] = r * 7 + t;
        EXPECT(shmem_long_broadcast(w->team, w->coll_dst, w->coll_src, 1, r % npes) == 0,
               "broadcast");
        EXPECT(w->coll_dst[0] == r * 7 + t, "broadcast value");
        EXPECT(shmem_team_sync(w->team) == 0, "team sync"); /* nobody overwrites data early */
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    int provided;
    EXPECT(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 &&
               provided == SHMEM_THREAD_MULTIPLE,
           "THREAD_MULTIPLE");
    test_neighbours();
    worker_t w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t].t = t;
        EXPECT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &w[t].team) == 0,
               "team %d", t);
        w[t].coll_src = shmem_malloc(2 * sizeof(long));
        w[t].coll_dst = shmem_malloc(2 * sizeof(long));
    }
    shmem_barrier_all();
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, &w[t]);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    /* each thread of each PE added t + 1 to counters[r % 64] on PE r % npes, every round */
    for (int c = 0; c < 64; c++) {
        long want = 0;
        for (int r = c; r < rounds; r += 64)
            if (r % npes == me)
                want += (long)npes * (THREADS * (THREADS + 1) / 2);
        EXPECT(counters[c] == want, "counter %d: %ld, expected %ld", c, counters[c], want);
    }
    for (int t = 0; t < THREADS; t++) {
        shmem_free(w[t].coll_dst);
        shmem_free(w[t].coll_src);
        shmem_team_destroy(w[t].team);
    }
    if (me == 0)
        printf("thread stress: %d PEs x %d threads x %d rounds: ok\n", npes, THREADS, rounds);
    shmem_finalize();
    return 0;
}
