/**
 * @file osu_am.c
 * @brief OSU-style benchmarks of active messages, put/get carried by them, and streams (FSHMEM
 * Fig. 5 and Table III; meshmem's native API, meshmem_am.h). Same command line and output as
 * osu_shmem.c (osu_common.h); `meshmem bench` runs it (python/meshmem/bench/osu.py).
 *
 * Operations (-o), by the lower half of the ranks towards their partners:
 *   put, get           meshmem_put + meshmem_quiet, meshmem_get: the direct reference
 *   am_put[_fF]        meshmem_am_put in fragments of F bytes (none: one message), then
 *                      meshmem_am_quiet (every PUT handler has run: a round trip)
 *   am_get[_fF]        meshmem_am_get (SHORT requests, LONG replies) into symmetric memory
 *   am_pingpong        a SHORT request (one 8-byte argument; above 8 bytes a MEDIUM of SIZE
 *                      bytes) whose handler replies the same way; half the round trip
 *   am_rate            windows of 64 SHORT requests then meshmem_am_quiet: time per message
 *   stream_nN          SIZE bytes of float32 pushed one element at a time (meshmem_stream_push1)
 *                      into a stream with batch N, closed; the consumer waits for the end and
 *                      acknowledges
 *   stream_nN_batch    the same, pushed N elements per call (meshmem_stream_push): a producer
 *                      that has its results a batch at a time
 *   stream_put         the same data as one put_signal, waited for and acknowledged alike
 * The partner polls (meshmem_am_poll) until the initiator is done, for the direct put and get
 * too, so that both are measured against a partner in the same state.
 */
#include "osu_common.h"

#include <meshmem.h>
#include <meshmem_am.h>
#include <stdatomic.h>
#include <stdbool.h>

static inline void osu_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    __asm__ volatile("" ::: "memory");
#endif
}

enum { H_PING = 1, H_PONG = 2, H_SINK = 3, H_MPING = 4, H_MPONG = 5, WINDOW = 64 };

static char *s_buf, *r_buf;
static uint64_t done_word, sig_word, ack_word; /* symmetric (static data) */
static double *root_sum;
static int me, npes;
static uint64_t seq;
static _Atomic uint64_t pongs;

static void on_ping(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)buf, (void)n;
    meshmem_am_reply_short(t, H_PONG, na, a);
}

static void on_mping(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)a, (void)na;
    meshmem_am_reply_medium(t, H_MPONG, buf, n, 0, NULL);
}

static void on_pong(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    atomic_fetch_add_explicit(&pongs, 1, memory_order_relaxed);
}

static void on_sink(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
}

static void rt_barrier(void)
{
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

static double rt_sum_to_root(double v)
{
    meshmem_put(&root_sum[me], &v, sizeof v, 0);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    double sum = 0;
    if (me == 0)
        for (int i = 0; i < npes; i++)
            sum += root_sum[i];
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    return sum;
}

/* the partner of an AM operation: serve until the initiator says it is done */
static void serve_until_done(uint64_t v)
{
    while (__atomic_load_n(&done_word, __ATOMIC_ACQUIRE) < v)
        if (meshmem_am_poll() == 0)
            osu_cpu_relax();
}

static void signal_done(int peer, uint64_t v)
{
    meshmem_put_signal(&done_word, &v, 0, &done_word, v, MESHMEM_SIGNAL_SET, peer);
}

static void wait_u64(uint64_t *w, uint64_t v)
{
    meshmem_wait_until(w, MESHMEM_UINT64, MESHMEM_CMP_GE, &v);
}

/* a failed AM call ends the run (its error line is logged already) */
static void am_ok(meshmem_status_t st)
{
    if (st != MESHMEM_OK)
        meshmem_global_exit(1);
}

/* fragment size of an op named BASE_fF, 0 without suffix */
static size_t frag_of(const char *op)
{
    const char *f = strstr(op, "_f");
    return f ? (size_t)strtoul(f + 2, NULL, 10) : 0;
}

static double run_op(const char *op, size_t size, int iters, int warmup)
{
    int peer = osu_peer(me, npes), initiator = osu_is_initiator(me, npes);
    double t0 = 0;
    if (peer < 0)
        return 0;
    uint64_t round = ++seq;
    bool stream = !strncmp(op, "stream_", 7);
    if (!stream && !initiator) {
        /* the partner polls for the whole measurement, AM or direct alike: a direct put to a
         * partner asleep in a barrier would pay its futex wake, and the two would differ */
        serve_until_done(round);
        return 0;
    }
    if (stream) {
        /* producer (initiator) -> consumer; the consumer acknowledges each complete transfer */
        size_t nelem = size / sizeof(float);
        char *kind = NULL;
        size_t batch = strcmp(op, "stream_put") ? (size_t)strtoul(op + 8, &kind, 10) : 0;
        bool whole_batches = batch && !strcmp(kind, "_batch");
        float *src = (float *)s_buf;
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = osu_now_us();
            uint64_t v = round * 1000000u + (uint64_t)i + 1;
            if (initiator) {
                if (batch) {
                    meshmem_stream_t st;
                    meshmem_stream_open(&st, r_buf, sizeof(float), nelem ? nelem : 1, &sig_word,
                                        batch, me, peer);
                    if (whole_batches)
                        for (size_t e = 0; e < nelem; e += batch)
                            meshmem_stream_push(&st, &src[e],
                                                nelem - e < batch ? nelem - e : batch);
                    else
                        for (size_t e = 0; e < nelem; e++)
                            meshmem_stream_push1(&st, &src[e]);
                    meshmem_stream_close(&st);
                } else {
                    meshmem_put_signal(r_buf, src, nelem * sizeof(float), &sig_word,
                                       MESHMEM_STREAM_END | nelem, MESHMEM_SIGNAL_SET, peer);
                }
                wait_u64(&ack_word, v);
            } else {
                uint64_t end = MESHMEM_STREAM_END;
                meshmem_wait_until(&sig_word, MESHMEM_UINT64, MESHMEM_CMP_GE, &end);
                __atomic_store_n(&sig_word, 0, __ATOMIC_SEQ_CST); /* ready for the next one */
                meshmem_put_signal(&ack_word, &v, 0, &ack_word, v, MESHMEM_SIGNAL_SET, peer);
            }
        }
        return (osu_now_us() - t0) / iters;
    }
    size_t frag = frag_of(op);
    meshmem_am_arg_t arg = 8;
    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = osu_now_us();
        if (!strcmp(op, "put")) {
            meshmem_put(r_buf, s_buf, size, peer);
            meshmem_quiet();
        } else if (!strcmp(op, "get")) {
            meshmem_get(r_buf, s_buf, size, peer);
        } else if (!strncmp(op, "am_put", 6)) {
            am_ok(meshmem_am_put(r_buf, s_buf, size, peer, frag));
            meshmem_am_quiet();
        } else if (!strncmp(op, "am_get", 6)) {
            am_ok(meshmem_am_get(r_buf, s_buf, size, peer, frag));
        } else if (!strcmp(op, "am_pingpong")) {
            uint64_t want = atomic_load_explicit(&pongs, memory_order_relaxed) + 1;
            if (size <= 8)
                am_ok(meshmem_am_request_short(peer, H_PING, 1, &arg));
            else
                am_ok(meshmem_am_request_medium(peer, H_MPING, s_buf, size, 0, NULL));
            while (atomic_load_explicit(&pongs, memory_order_acquire) < want)
                if (meshmem_am_poll() == 0)
                    osu_cpu_relax();
        } else if (!strcmp(op, "am_rate")) {
            for (int w = 0; w < WINDOW; w++)
                am_ok(meshmem_am_request_short(peer, H_SINK, 1, &arg));
            meshmem_am_quiet();
        }
    }
    double us = (osu_now_us() - t0) / iters;
    signal_done(peer, round);
    if (!strcmp(op, "am_pingpong"))
        us /= 2;
    if (!strcmp(op, "am_rate"))
        us /= WINDOW;
    return us;
}

/* put, get, am_put[_fF], am_get[_fF], am_pingpong, am_rate, stream_put, stream_nN[_batch] */
static int op_known(const char *op)
{
    static const char *const exact[] = {"put",         "get",     "am_put",    "am_get",
                                        "am_pingpong", "am_rate", "stream_put"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(op, exact[i]))
            return 1;
    if ((!strncmp(op, "am_put_f", 8) || !strncmp(op, "am_get_f", 8)) && frag_of(op) > 0)
        return 1;
    char *kind = NULL;
    return !strncmp(op, "stream_n", 8) && strtoul(op + 8, &kind, 10) > 0 &&
           (!strcmp(kind, "") || !strcmp(kind, "_batch"));
}

int main(int argc, char **argv)
{
    osu_args_t a;
    osu_parse_args(argc, argv, &a);
    if (!op_known(a.op)) {
        fprintf(stderr, "%s: unknown operation \"%s\"\n", argv[0], a.op);
        return 2;
    }
    meshmem_init(MESHMEM_THREAD_SINGLE, NULL);
    me = meshmem_rank();
    npes = meshmem_nranks();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: %s needs at least 2 ranks\n", argv[0], a.op);
        meshmem_global_exit(2);
    }
    meshmem_am_entry_t table[] = {
        {H_PING, on_ping, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 1},
        {H_PONG, on_pong, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 1},
        {H_SINK, on_sink, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 1},
        {H_MPING, on_mping, MESHMEM_AM_MEDIUM, MESHMEM_AM_REQUEST, 0},
        {H_MPONG, on_pong, MESHMEM_AM_MEDIUM, MESHMEM_AM_REPLY, 0},
    };
    if (meshmem_am_register(table, 5) != MESHMEM_OK)
        meshmem_global_exit(1);
    if (!strcmp(a.op, "am_pingpong") && a.max_size > meshmem_am_max_medium()) {
        if (me == 0)
            fprintf(stderr, "%s: am_pingpong sizes are MEDIUM payloads: at most %zu bytes\n",
                    argv[0], meshmem_am_max_medium());
        meshmem_global_exit(2);
    }
    size_t bytes = a.max_size ? a.max_size : 1;
    s_buf = meshmem_malloc(bytes);
    r_buf = meshmem_malloc(bytes);
    root_sum = meshmem_malloc((size_t)npes * sizeof(double));
    if (!s_buf || !r_buf || !root_sum) {
        fprintf(stderr, "%s: rank %d: meshmem_malloc of %zu bytes failed\n", argv[0], me, bytes);
        meshmem_global_exit(1);
    }
    memset(s_buf, 'a' + me % 26, bytes);
    memset(r_buf, 0, bytes);
    osu_runtime_t rt = {rt_barrier, rt_sum_to_root, me, npes};
    osu_run_sizes(&rt, &a, run_op, osu_is_initiator(me, npes));
    meshmem_free(root_sum);
    meshmem_free(r_buf);
    meshmem_free(s_buf);
    meshmem_finalize();
    return 0;
}
