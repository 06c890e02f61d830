/*
 * fault_prog: one program, many ways for a job to go wrong, for tests/py/test_launcher.py.
 *
 *   fault_prog MODE [args...]
 *
 * Every rank first prints "fault_prog: rank R pid P" (flushed), so that the test can check
 * afterwards that no process of the job is left. Modes (rank 1 is the faulty one where one is
 * needed, the others wait where the job would hang if the failure went unnoticed):
 *   ok               init, a ring put checked by every rank, finalize; status 0
 *   late-ok [S]      as ok, rank 0 starting its init S seconds (default 1) after the others
 *   kill-self [SIG]  rank 1 raises SIGKILL (or SIGSEGV, ...) after init; others in a barrier
 *   die-in-init      rank 1 dies before init while the others wait in the init barrier with
 *                    their segments in /dev/shm (launcher must remove them)
 *   exit-early       rank 1 calls _exit(0) after init; others in a barrier
 *   exit3            rank 1 calls exit(3) after init; others wait for a flag nobody sets
 *   exit0-barrier    rank 1 calls exit(0) after init (its finalize's barrier meets the others'
 *                    barrier); the others then wait for it in an all-reduce
 *   exit0-coll       rank 1 calls exit(0) after init while the others wait in an all-reduce
 *   bad-pe           rank 0 puts to PE nranks; others in a barrier
 *   not-symmetric    rank 0 puts to a stack address; others in a barrier
 *   global-exit      the last rank (rank 2 from 3 ranks on) calls global_exit(7); others wait
 *   asym-malloc      each rank allocates a different size
 *   count-mismatch B [OP]  OP (alltoall, then allreduce; or bcast, gather, reduce at root 0)
 *                    where the counts differ between ranks: rank r passes B + r bytes (gather
 *                    and reduce: B + N - 1 - r, so that the root expects more than it gets);
 *                    the call must end the job saying so
 *   root-far STEP    meshmem_coll_reduce (bcast with STEP 4096 or more) of one long at root 0,
 *                    where the last rank passes root STEP instead (32: the reduce's root in the
 *                    16 bits of a line's header alike); then an all-reduce
 *   hang             everyone waits for a flag nobody sets (prints "ready" when all are in)
 *   hang-init        everyone but rank 0 waits in the init barrier; rank 0 sleeps before init
 *   fork-child       rank 1 forks a child that sleeps forever (prints "child P"), then dies
 *   barriers N       N barriers, rank 0 prints "barriers N seconds S"
 *   echo ARGS...     prints its rank and arguments to stdout, one line to stderr; no init
 *   pieces N         N lines "rank R line K: " + 300 'x', each written a character at a time
 *                    (flushed), then "rank R unfinished" without a newline; no init
 *   heap             prints the symmetric heap size per rank
 *   ranks            prints "rank R of N" (used without meshrun: a singleton)
 *   cpus             prints its affinity mask's CPU count and MESHMEM_JOB_CPUS; no init
 * OpenSHMEM calls, where the message must name the routine the user called:
 *   before-init      the last rank calls shmem_malloc before shmem_init; the others init
 *   clear-free-lock  the last rank clears a lock nobody holds; the others wait
 *   clear-held-lock  rank 0 holds a lock, the last rank clears it; the others wait
 *   free-private     every rank passes a malloc'ed pointer to shmem_free
 *   malloc-too-big   two shmem_malloc calls larger than the heap (NULL), then a finalize
 *   reduce-mismatch  shmem_long_sum_reduce where rank r passes 4 + r elements
 *   shmem-bad-pe     rank 2 (the last below 3 ranks) puts an int to PE 9 (the README's example)
 * Arguments that differ between PEs, in OpenSHMEM calls (the job must end with one line):
 *   root-differs     shmem_long_broadcast: PE 0 passes PE_root 0, the others 1; then a barrier
 *   op-differs       shmem_int_sum_reduce on PE 0, shmem_int_max_reduce on the others
 *   split-differs    shmem_team_split_strided of size 2 on PE 0, 3 on the others
 *   malloc-barrier   shmem_malloc on PE 0 only, shmem_barrier_all on the others
 *   malloc-alltoall  shmem_malloc on PE 0 only, shmem_int_alltoall on the others
 * Handles and pointers that are not what they claim (the last PE; the others wait):
 *   dead-team        shmem_team_sync on a team shmem_team_destroy destroyed
 *   madeup-team      shmem_team_my_pe on a team handle that no split made
 *   dead-ctx         shmem_ctx_int_put on a context shmem_ctx_destroy destroyed
 *   madeup-ctx       shmem_ctx_long_put on (shmem_ctx_t)0x1234, a context no call made
 *   stray-ctx        shmem_ctx_int_get on the address of a program's array, as a context
 *   null-put, null-get, null-iput, null-put-nbi   the local buffer NULL for 1 element
 *   null-zero        shmem_int_put / get of 0 elements with NULL (legal): exit 0
 *   split-invalid    shmem_team_split_strided leaving the parent team: SHMEM_TEAM_INVALID is
 *                    returned, the program goes on, exit 0
 *   barrier-alone    PE 0 sleeps outside any call, the others wait in shmem_barrier_all (for
 *                    meshrun's --timeout line, which names the call each rank waits in)
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "meshmem.h"
#include "meshmem_coll.h"
#include "shmem.h"

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long never_set; /* a global (symmetric) flag that nobody stores into */
static long lock;      /* an OpenSHMEM lock (zero: free) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void init_or_die(void)
{
    if (meshmem_init(MESHMEM_THREAD_SINGLE, NULL) != MESHMEM_OK) {
        fprintf(stderr, "fault_prog: meshmem_init failed\n");
        exit(1);
    }
}

/* wait for a flag nobody sets: only the job's teardown can end this */
static void wait_forever(void)
{
    long one = 1;
    meshmem_wait_until(&never_set, MESHMEM_INT64, MESHMEM_CMP_EQ, &one);
    fprintf(stderr, "fault_prog: never_set was set?\n");
    exit(99);
}

static int sig_by_name(const char *name)
{
    if (!strcmp(name, "SIGKILL"))
        return SIGKILL;
    if (!strcmp(name, "SIGSEGV"))
        return SIGSEGV;
    if (!strcmp(name, "SIGABRT"))
        return SIGABRT;
    if (!strcmp(name, "SIGTERM"))
        return SIGTERM;
    fprintf(stderr, "fault_prog: unknown signal %s\n", name);
    exit(2);
}

static int run_ok(void)
{
    init_or_die();
    int me = meshmem_rank(), n = meshmem_nranks();
    long *slot = meshmem_malloc(sizeof(long));
    *slot = -1;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    long v = 1000 + me;
    meshmem_put(slot, &v, sizeof v, (me + 1) % n);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    long want = 1000 + (me + n - 1) % n;
    if (*slot != want) {
        fprintf(stderr, "fault_prog: rank %d got %ld, want %ld\n", me, *slot, want);
        return 1;
    }
    printf("ok rank %d of %d\n", me, n);
    meshmem_free(slot);
    meshmem_finalize();
    return 0;
}

/* @return true for the modes of differing arguments and false handles (the file comment) */
static bool shmem_mode(const char *mode)
{
    static const char *const modes[] = {
        "root-differs",  "op-differs",   "split-differs", "malloc-barrier", "malloc-alltoall",
        "dead-team",     "madeup-team",  "dead-ctx",      "madeup-ctx",     "stray-ctx",
        "null-put",      "null-get",     "null-iput",     "null-put-nbi",   "null-zero",
        "split-invalid", "barrier-alone"};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        if (!strcmp(mode, modes[i]))
            return true;
    return false;
}

/* the modes that go wrong in an OpenSHMEM call (see the file comment) */
static int run_shmem(const char *mode)
{
    const char *rank_env = getenv("MESHMEM_RANK"), *nranks_env = getenv("MESHMEM_NRANKS");
    int last = nranks_env ? atoi(nranks_env) - 1 : 0;
    if (!strcmp(mode, "before-init") && (rank_env ? atoi(rank_env) : 0) == last) {
        shmem_malloc(8);
        fprintf(stderr, "fault_prog: shmem_malloc before shmem_init returned\n");
        return 99;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (!strcmp(mode, "clear-free-lock") || !strcmp(mode, "clear-held-lock")) {
        if (!strcmp(mode, "clear-held-lock") && me == 0)
            shmem_set_lock(&lock);
        shmem_barrier_all();
        if (me == n - 1) {
            shmem_clear_lock(&lock);
            fprintf(stderr, "fault_prog: clearing a lock this PE does not hold returned\n");
            return 99;
        }
        wait_forever();
    } else if (!strcmp(mode, "free-private")) {
        void *p = malloc(64);
        shmem_free(p);
        fprintf(stderr, "fault_prog: shmem_free of a private pointer returned\n");
        return 99;
    } else if (!strcmp(mode, "malloc-too-big")) {
        size_t total = 0;
        meshmem_heap_info(&total, NULL);
        void *a = shmem_malloc(total + 1), *b = shmem_malloc(2 * total);
        printf("too big: %s %s\n", a ? "allocated" : "NULL", b ? "allocated" : "NULL");
        shmem_finalize();
        return 0;
    } else if (!strcmp(mode, "reduce-mismatch")) {
        long *src = shmem_calloc(4 + (size_t)n, sizeof(long));
        long *dst = shmem_calloc(4 + (size_t)n, sizeof(long));
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4 + (size_t)me);
        fprintf(stderr, "fault_prog: rank %d: mismatched counts went unnoticed\n", me);
        return 99;
    } else if (!strcmp(mode, "root-differs")) {
        long *buf = shmem_calloc(4, sizeof(long));
        long src[4] = {me, me, me, me};
        shmem_long_broadcast(SHMEM_TEAM_WORLD, buf, src, 4, me == 0 ? 0 : 1);
        shmem_barrier_all();
        fprintf(stderr, "fault_prog: rank %d: PE_root differing went unnoticed\n", me);
        return 99;
    } else if (!strcmp(mode, "op-differs")) {
        int *src = shmem_calloc(2, sizeof(int)), *dst = shmem_calloc(2, sizeof(int));
        if (me == 0)
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2);
        else
            shmem_int_max_reduce(SHMEM_TEAM_WORLD, dst, src, 2);
        shmem_barrier_all();
        fprintf(stderr, "fault_prog: rank %d: differing operations went unnoticed\n", me);
        return 99;
    } else if (!strcmp(mode, "split-differs")) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, me == 0 ? 2 : 3, NULL, 0, &t);
        fprintf(stderr, "fault_prog: rank %d: differing split sizes went unnoticed\n", me);
        return 99;
    } else if (!strcmp(mode, "malloc-barrier") || !strcmp(mode, "malloc-alltoall")) {
        int *src = shmem_calloc((size_t)n, sizeof(int)),
            *dst = shmem_calloc((size_t)n, sizeof(int));
        if (me == 0)
            shmem_malloc(64);
        else if (!strcmp(mode, "malloc-barrier"))
            shmem_barrier_all();
        else
            shmem_int_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
        shmem_barrier_all();
        fprintf(stderr, "fault_prog: rank %d: shmem_malloc on PE 0 alone went unnoticed\n", me);
        return 99;
    } else if (!strcmp(mode, "dead-team") || !strcmp(mode, "madeup-team") ||
               !strcmp(mode, "dead-ctx") || !strcmp(mode, "madeup-ctx") ||
               !strcmp(mode, "stray-ctx") || !strncmp(mode, "null-", 5)) {
        static int x[4], y[4];
        shmem_team_t t = SHMEM_TEAM_INVALID;
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        if (!strcmp(mode, "dead-team")) {
            shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
            shmem_team_destroy(t);
        }
        if (!strcmp(mode, "dead-ctx")) {
            shmem_ctx_create(0, &ctx);
            shmem_ctx_destroy(ctx);
        }
        if (!strcmp(mode, "null-zero")) {
            shmem_int_put(x, NULL, 0, 0);
            shmem_int_get(NULL, x, 0, 0);
            shmem_int_put_nbi(x, NULL, 0, 0);
            shmem_int_iput(x, NULL, 1, 1, 0, 0);
            shmem_barrier_all();
            printf("fault_prog: rank %d: NULL with 0 elements passed\n", me);
            shmem_finalize();
            return 0;
        }
        shmem_barrier_all();
        if (me != n - 1)
            wait_forever();
        if (!strcmp(mode, "dead-team"))
            shmem_team_sync(t);
        else if (!strcmp(mode, "madeup-team"))
            shmem_team_my_pe((shmem_team_t)(uintptr_t)y);
        else if (!strcmp(mode, "dead-ctx"))
            shmem_ctx_int_put(ctx, x, y, 1, 0);
        else if (!strcmp(mode, "madeup-ctx"))
            shmem_ctx_long_put((shmem_ctx_t)0x1234, (long *)x, (long *)y, 1, 0);
        else if (!strcmp(mode, "stray-ctx"))
            shmem_ctx_int_get((shmem_ctx_t)(uintptr_t)y, x, x, 1, 0);
        else if (!strcmp(mode, "null-put"))
            shmem_int_put(x, NULL, 1, 0);
        else if (!strcmp(mode, "null-get"))
            shmem_int_get(NULL, x, 1, 0);
        else if (!strcmp(mode, "null-iput"))
            shmem_int_iput(x, NULL, 1, 1, 2, 0);
        else if (!strcmp(mode, "null-put-nbi"))
            shmem_int_put_nbi(x, NULL, 1, 0);
        fprintf(stderr, "fault_prog: %s returned\n", mode);
        return 99;
    } else if (!strcmp(mode, "barrier-alone")) {
        if (me == 0)
            wait_forever();
        shmem_barrier_all();
        return 99;
    } else if (!strcmp(mode, "split-invalid")) {
        shmem_team_t t;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n, NULL, 0, &t);
        printf("fault_prog: rank %d: split returned %d, %s\n", me, rc,
               t == SHMEM_TEAM_INVALID ? "SHMEM_TEAM_INVALID" : "a team");
        shmem_finalize();
        return 0;
    } else if (!strcmp(mode, "shmem-bad-pe")) {
        static int x;
        if (me == (n > 2 ? 2 : n - 1)) {
            shmem_int_put(&x, &x, 1, 9);
            fprintf(stderr, "fault_prog: put to PE 9 returned\n");
            return 99;
        }
        wait_forever();
    }
    fprintf(stderr, "fault_prog: unknown mode %s\n", mode);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fault_prog MODE [args...]\n");
        return 2;
    }
    const char *mode = argv[1];
    const char *rank_env = getenv("MESHMEM_RANK");
    int env_rank = rank_env ? atoi(rank_env) : 0;
    printf("fault_prog: rank %d pid %d\n", env_rank, (int)getpid());
    fflush(stdout);

    if (!strcmp(mode, "echo")) {
        printf("echo rank %d argc %d", env_rank, argc - 2);
        for (int i = 2; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\n");
        fprintf(stderr, "stderr from rank %d\n", env_rank);
        return 0;
    }
    if (!strcmp(mode, "pieces")) { /* lines written in pieces: only whole ones may arrive */
        long lines = argc > 2 ? atol(argv[2]) : 10;
        for (long k = 0; k < lines; k++) {
            printf("rank %d line %ld: ", env_rank, k);
            for (int c = 0; c < 300; c++) {
                putchar('x');
                fflush(stdout);
            }
            putchar('\n');
        }
        printf("rank %d unfinished", env_rank);
        return 0;
    }
    if (!strcmp(mode, "cpus")) { /* what a rank knows of the CPUs it shares (mm_count_cpus) */
        cpu_set_t mask;
        int mine = sched_getaffinity(0, sizeof(mask), &mask) == 0 ? CPU_COUNT(&mask) : -1;
        const char *job = getenv("MESHMEM_JOB_CPUS");
        printf("cpus rank %d affinity %d job %s\n", env_rank, mine, job ? job : "unset");
        return 0;
    }
    if (!strcmp(mode, "ok"))
        return run_ok();
    if (!strcmp(mode, "late-ok")) { /* the others wait in init, listening, meanwhile */
        if (env_rank == 0)
            usleep((useconds_t)(atof(argc > 2 ? argv[2] : "1") * 1e6));
        return run_ok();
    }
    if (!strcmp(mode, "die-in-init") || !strcmp(mode, "hang-init")) {
        /* the others are in meshmem_init's barrier while this rank has not arrived */
        int late = !strcmp(mode, "die-in-init") ? 1 : 0;
        if (env_rank == late) {
            usleep(300000);
            if (late == 1)
                raise(SIGKILL);
            pause();
        }
        init_or_die();
        fprintf(stderr, "fault_prog: rank %d passed init without its peer\n", env_rank);
        return 99;
    }

    if (!strncmp(mode, "before-init", 11) || !strncmp(mode, "clear-", 6) ||
        !strcmp(mode, "free-private") || !strcmp(mode, "malloc-too-big") ||
        !strcmp(mode, "reduce-mismatch") || !strcmp(mode, "shmem-bad-pe") || shmem_mode(mode))
        return run_shmem(mode);

    init_or_die();
    int me = meshmem_rank(), n = meshmem_nranks();

    if (!strcmp(mode, "kill-self")) {
        int sig = argc > 2 ? sig_by_name(argv[2]) : SIGKILL;
        if (me == 1)
            raise(sig);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        wait_forever();
    } else if (!strcmp(mode, "exit-early")) {
        if (me == 1)
            _exit(0);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        wait_forever();
    } else if (!strcmp(mode, "exit0-barrier") || !strcmp(mode, "exit0-coll")) {
        static long src[4], dst[4];
        if (me == 1)
            exit(0); /* the exit handler finalizes: a barrier, and rank 1 is gone */
        if (!strcmp(mode, "exit0-barrier"))
            meshmem_barrier(MESHMEM_TEAM_WORLD);
        meshmem_allreduce(MESHMEM_TEAM_WORLD, dst, src, 4, MESHMEM_INT64, MESHMEM_OP_SUM);
        fprintf(stderr, "fault_prog: all-reduce without rank 1 returned\n");
        return 99;
    } else if (!strcmp(mode, "exit3")) {
        if (me == 1)
            exit(3); /* atexit handlers run: they must not wait for the others */
        wait_forever();
    } else if (!strcmp(mode, "bad-pe")) {
        if (me == 0) {
            long v = 1;
            meshmem_put(&never_set, &v, sizeof v, n);
            fprintf(stderr, "fault_prog: put to PE %d returned\n", n);
            return 99;
        }
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        wait_forever();
    } else if (!strcmp(mode, "not-symmetric")) {
        if (me == 0) {
            long on_stack = 0, v = 1;
            meshmem_put(&on_stack, &v, sizeof v, n - 1);
            fprintf(stderr, "fault_prog: put to a stack address returned\n");
            return 99;
        }
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        wait_forever();
    } else if (!strcmp(mode, "global-exit")) {
        if (me == (n > 2 ? 2 : n - 1))
            meshmem_global_exit(7);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        wait_forever();
    } else if (!strcmp(mode, "asym-malloc")) {
        void *p = meshmem_malloc(100 + 8 * (size_t)me);
        fprintf(stderr, "fault_prog: asymmetric malloc returned %p\n", p);
        return 99;
    } else if (!strcmp(mode, "count-mismatch")) {
        size_t b = argc > 2 ? (size_t)atol(argv[2]) : 8;
        const char *op = argc > 3 ? argv[3] : "alltoall";
        int to_root = !strcmp(op, "gather") || !strcmp(op, "reduce");
        size_t mine = b + (size_t)(to_root ? n - 1 - me : me);
        size_t half = (b + (size_t)n) * (size_t)n;
        char *buf = meshmem_malloc(half * 2);
        memset(buf, 1, half * 2);
        meshmem_team_t w = MESHMEM_TEAM_WORLD;
        if (!strcmp(op, "bcast"))
            meshmem_coll_bcast(w, buf, mine, MESHMEM_INT8, 0, MESHMEM_ALGO_AUTO);
        else if (!strcmp(op, "gather"))
            meshmem_coll_gather(w, buf, buf + half, mine, MESHMEM_INT8, 0, MESHMEM_ALGO_AUTO);
        else if (!strcmp(op, "reduce"))
            meshmem_coll_reduce(w, buf, buf + half, mine, MESHMEM_INT8, MESHMEM_OP_SUM, 0,
                                MESHMEM_ALGO_AUTO);
        else
            meshmem_coll_alltoall(w, buf, buf + half, mine, MESHMEM_INT8, MESHMEM_ALGO_AUTO);
        meshmem_coll_allreduce(w, buf, buf, mine, MESHMEM_INT8, MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
        fprintf(stderr, "fault_prog: rank %d: mismatched counts went unnoticed\n", me);
        return 99;
    } else if (!strcmp(mode, "root-far")) {
        int step = argc > 2 ? atoi(argv[2]) : 32, root = me == n - 1 ? step : 0;
        long *buf = meshmem_malloc(2 * sizeof(long));
        buf[0] = me;
        meshmem_team_t w = MESHMEM_TEAM_WORLD;
        if (step >= 4096)
            meshmem_coll_bcast(w, buf, 1, MESHMEM_INT64, root, MESHMEM_ALGO_AUTO);
        else
            meshmem_coll_reduce(w, buf, buf + 1, 1, MESHMEM_INT64, MESHMEM_OP_SUM, root,
                                MESHMEM_ALGO_AUTO);
        meshmem_coll_allreduce(w, buf, buf, 1, MESHMEM_INT64, MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO);
        fprintf(stderr, "fault_prog: rank %d: a root differing by %d went unnoticed\n", me, step);
        return 99;
    } else if (!strcmp(mode, "hang")) {
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        if (me == 0) {
            printf("ready\n");
            fflush(stdout);
        }
        wait_forever();
    } else if (!strcmp(mode, "fork-child")) {
        if (me == 1) {
            pid_t child = fork();
            if (child == 0) {
                for (;;)
                    pause();
            }
            printf("child %d\n", (int)child);
            fflush(stdout);
            raise(SIGKILL);
        }
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        wait_forever();
    } else if (!strcmp(mode, "barriers")) {
        long iters = argc > 2 ? atol(argv[2]) : 1000;
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        double t0 = now_s();
        for (long i = 0; i < iters; i++)
            meshmem_barrier(MESHMEM_TEAM_WORLD);
        double t = now_s() - t0;
        if (me == 0)
            printf("barriers %ld seconds %.6f\n", iters, t);
        meshmem_finalize();
        return 0;
    } else if (!strcmp(mode, "heap")) {
        size_t total = 0, free_bytes = 0;
        meshmem_heap_info(&total, &free_bytes);
        printf("heap rank %d total %zu\n", me, total);
        meshmem_finalize();
        return 0;
    } else if (!strcmp(mode, "ranks")) {
        printf("rank %d of %d\n", me, n);
        meshmem_finalize();
        return 0;
    }
    fprintf(stderr, "fault_prog: unknown mode %s\n", mode);
    return 2;
}
