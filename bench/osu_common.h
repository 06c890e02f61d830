/**
 * @file osu_common.h
 * @brief What the OpenSHMEM benchmark (osu_shmem.c) and its MPI twin (osu_mpi.c) share:
 * command line, timer, iteration counts and the memcpy reference, so that both sides of a
 * comparison are measured the same way (OSU micro-benchmarks methodology: warm-up iterations
 * that are not timed, then 1000 timed iterations up to 8 KiB and 100 above, average per size).
 *
 * Command line of both programs:
 *   PROG -o OP -s SIZE[,SIZE...] [-i ITERS] [-I ITERS_LARGE] [-w WARMUP] [-W WARMUP_LARGE]
 *        [-m MEMCPY_MIN]
 * Output (stdout, one line per size, parsed by python/meshmem/bench/osu.py):
 *   @osu op=OP pes=N bytes=B us=AVG_LATENCY iters=K
 *   @memcpy bytes=B all_GBps=X one_GBps=Y moved=M   (sizes >= MEMCPY_MIN only)
 * all_GBps is a plain memcpy of M bytes (B, or what a collective of size B moves per rank) run
 * by every rank at once between page-aligned buffers (per-rank bandwidth, averaged over ranks);
 * one_GBps the same copy by rank 0 alone while the others wait.
 *
 * Header-only (static functions): each program is a single translation unit compiled by a
 * different compiler wrapper (meshcc, oshcc, mpicc), so a shared object file is not an option.
 */
#ifndef OSU_COMMON_H
#define OSU_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/** OSU's boundary between small and large messages (iteration counts change above it). */
#define OSU_LARGE_MESSAGE 8192
/** Most sizes one run accepts. */
#define OSU_MAX_SIZES 64

/** Parsed command line. */
typedef struct {
    const char *op;
    size_t sizes[OSU_MAX_SIZES];
    int nsizes;
    size_t max_size;
    int iters, iters_large;   /* timed iterations */
    int warmup, warmup_large; /* untimed iterations before them */
    size_t memcpy_min;        /* memcpy reference for sizes >= this (0: never) */
} osu_args_t;

#ifdef OSU_CLOCK_MESHMEM
double meshmem_wtime(void); /* include/meshmem.h: not included here, osu_shmem is built twice */
/** @return meshmem's clock in microseconds: CLOCK_MONOTONIC, or under meshrun --rtl the
 * simulated time (docs/rtl-transport.md). For the programs built against meshmem. */
static inline double osu_now_us(void)
{
    return meshmem_wtime() * 1e6;
}
#else
/** @return monotonic time in microseconds. */
static inline double osu_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
#endif

static void osu_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s -o OP -s SIZE[,SIZE...] [-i ITERS] [-I ITERS_LARGE] [-w WARMUP] "
            "[-W WARMUP_LARGE] [-m MEMCPY_MIN]\n",
            prog);
}

/* strtol with range checking: a typo must not silently become 0 iterations */
static long osu_parse_long(const char *prog, const char *what, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s argument \"%s\" is not an integer in [%ld, %ld]\n", prog, what, s,
                lo, hi);
        exit(2);
    }
    return v;
}

/**
 * @brief Parse the command line into @p a; prints usage and exits with status 2 on an error.
 * Defaults: OSU's 1000/100 iterations, 10% of them (at least 10) as warm-up.
 */
static void osu_parse_args(int argc, char **argv, osu_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->iters = 1000;
    a->iters_large = 100;
    a->warmup = a->warmup_large = -1;
    a->memcpy_min = 65536;
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        if (f[0] != '-' || f[1] == 0 || f[2] != 0 || i + 1 >= argc) {
            osu_usage(argv[0]);
            exit(2);
        }
        const char *v = argv[++i];
        switch (f[1]) {
        case 'o': a->op = v; break;
        case 'i': a->iters = (int)osu_parse_long(argv[0], "-i", v, 1, 100000000); break;
        case 'I': a->iters_large = (int)osu_parse_long(argv[0], "-I", v, 1, 100000000); break;
        case 'w': a->warmup = (int)osu_parse_long(argv[0], "-w", v, 0, 100000000); break;
        case 'W': a->warmup_large = (int)osu_parse_long(argv[0], "-W", v, 0, 100000000); break;
        case 'm': a->memcpy_min = (size_t)osu_parse_long(argv[0], "-m", v, 0, 1L << 40); break;
        case 's': {
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (a->nsizes == OSU_MAX_SIZES) {
                    fprintf(stderr, "%s: more than %d sizes\n", argv[0], OSU_MAX_SIZES);
                    exit(2);
                }
                size_t s = (size_t)osu_parse_long(argv[0], "-s", t, 0, 1L << 34);
                a->sizes[a->nsizes++] = s;
                if (s > a->max_size)
                    a->max_size = s;
            }
            free(copy);
            break;
        }
        default: osu_usage(argv[0]); exit(2);
        }
    }
    if (!a->op || a->nsizes == 0) {
        osu_usage(argv[0]);
        exit(2);
    }
    if (a->warmup < 0)
        a->warmup = a->iters / 10 > 10 ? a->iters / 10 : 10;
    if (a->warmup_large < 0)
        a->warmup_large = a->iters_large / 10 > 10 ? a->iters_large / 10 : 10;
}

/** Operations both programs implement (python/meshmem/bench/osu.py's OPS names these modes). */
static const char *const osu_ops[] = {"put",      "get",          "atomic",    "put_signal",
                                      "pingpong", "put_pingpong", "put_bidir", "barrier"};

/** @return non-zero when @p op is one of osu_ops. */
static inline int osu_op_known(const char *op)
{
    for (size_t i = 0; i < sizeof osu_ops / sizeof osu_ops[0]; i++)
        if (!strcmp(op, osu_ops[i]))
            return 1;
    return 0;
}

/** @return 0 when every size of @p a suits its operation; else 2 after a message naming the
 * program, the operation and the size (put_pingpong's sizes end in a whole 8-byte word: the
 * sequence number its partner waits for). */
static inline int osu_sizes_fit(const char *prog, const osu_args_t *a)
{
    if (strcmp(a->op, "put_pingpong") != 0)
        return 0;
    for (int i = 0; i < a->nsizes; i++)
        if (a->sizes[i] < 8 || a->sizes[i] % 8 != 0) {
            fprintf(stderr, "%s: put_pingpong: size %zu is not a multiple of 8 bytes\n", prog,
                    a->sizes[i]);
            return 2;
        }
    return 0;
}

/** @brief Timed and warm-up iteration counts for a message of @p size bytes (OSU rule). */
static inline void osu_iters_for(const osu_args_t *a, size_t size, int *iters, int *warmup)
{
    *iters = size > OSU_LARGE_MESSAGE ? a->iters_large : a->iters;
    *warmup = size > OSU_LARGE_MESSAGE ? a->warmup_large : a->warmup;
}

/** How the memcpy reference reaches the other ranks: the runtime's barrier and a sum at rank 0. */
typedef struct {
    void (*barrier)(void);
    /* sum of every rank's @p v, valid on rank 0 */
    double (*sum_to_root)(double v);
    int me, npes;
} osu_runtime_t;

/* keeps the compiler from dropping a copy whose result is never read */
static volatile unsigned char osu_sink;

/* average microseconds of one memcpy of @p size bytes over @p iters copies after warm-up */
static double osu_memcpy_us(unsigned char *dst, const unsigned char *src, size_t size, int iters,
                            int warmup)
{
    for (int i = 0; i < warmup; i++)
        memcpy(dst, src, size);
    double t0 = osu_now_us();
    for (int i = 0; i < iters; i++) {
        memcpy(dst, src, size);
        /* a compiler barrier: each copy is a separate memcpy call, as a put would be */
        __asm__ volatile("" ::: "memory");
    }
    double t = (osu_now_us() - t0) / iters;
    osu_sink = dst[size - 1];
    return t;
}

/*
 * @p bytes of page-aligned memory, every page touched (page faults are not measured), or the
 * end of the program. Page-aligned because the reference must be memcpy at its best: two
 * malloc'ed buffers of 64 KiB to 128 KiB land 64 KiB + 16 bytes apart, a distance at which
 * glibc's copy runs at a tenth of its speed on some CPUs, and the operations measured against
 * it then read "1000 % of memcpy".
 */
static unsigned char *osu_alloc_pages(size_t bytes, int fill)
{
    size_t page = 4096, rounded = (bytes + page - 1) / page * page;
    unsigned char *p = aligned_alloc(page, rounded ? rounded : page);
    if (p == NULL) {
        fprintf(stderr, "osu: cannot allocate %zu bytes for the memcpy reference\n", bytes);
        exit(1);
    }
    memset(p, fill, rounded);
    return p;
}

/**
 * @brief Measure plain memcpy bandwidth for @p moved bytes (what one call of size @p size moves
 * per rank: @p size itself for the point-to-point operations), every rank at once and rank 0
 * alone, and print the @memcpy line, keyed by @p size, on rank 0. Collective.
 */
static void osu_memcpy_reference(const osu_runtime_t *rt, const osu_args_t *a, size_t size,
                                 size_t moved)
{
    int iters, warmup;
    osu_iters_for(a, size, &iters, &warmup);
    unsigned char *src = osu_alloc_pages(moved, 1), *dst = osu_alloc_pages(moved, 2);

    rt->barrier();
    double all_us = osu_memcpy_us(dst, src, moved, iters, warmup);
    double sum = rt->sum_to_root((double)moved / all_us * 1e-3);
    rt->barrier();
    double one_us = 1;
    if (rt->me == 0)
        one_us = osu_memcpy_us(dst, src, moved, iters, warmup);
    rt->barrier();
    if (rt->me == 0)
        printf("@memcpy bytes=%zu all_GBps=%.4f one_GBps=%.4f moved=%zu\n", size, sum / rt->npes,
               (double)moved / one_us * 1e-3, moved);
    fflush(stdout);
    free(src);
    free(dst);
}

/**
 * Pairing of ranks for the point-to-point operations (as OSU's multi-pair tests): rank r of the
 * lower half talks to r + npes/2; with an odd count the last rank only joins the barriers.
 * @return the peer of @p me, or -1 when @p me has none.
 */
static inline int osu_peer(int me, int npes)
{
    int half = npes / 2;
    if (npes < 2)
        return -1;
    if (me < half)
        return me + half;
    if (me < 2 * half)
        return me - half;
    return -1;
}

/** @return non-zero when @p me initiates the operations (the lower half of the pairs). */
static inline int osu_is_initiator(int me, int npes)
{
    return me < npes / 2;
}

/**
 * @brief The measurement loop of a benchmark program: for every size of @p a, a barrier, then
 * @p run (the op's average latency in us on this rank), the average over the ranks that are
 * @p counted printed as the @osu line on rank 0, then the memcpy reference for large sizes.
 * Collective. @p counted: this rank's time enters the average (an initiator of a paired
 * operation, every rank of one that is not): a partner that runs the same loop (a ping-pong)
 * may return its time too, and it is left out here, not by each operation.
 */
static inline void osu_run_sizes(const osu_runtime_t *rt, const osu_args_t *a,
                                 double (*run)(const char *op, size_t size, int iters, int warmup),
                                 int counted)
{
    double ncounted = rt->sum_to_root(counted ? 1.0 : 0.0);
    for (int k = 0; k < a->nsizes; k++) {
        size_t size = a->sizes[k];
        int iters, warmup;
        osu_iters_for(a, size, &iters, &warmup);
        rt->barrier();
        double us = run(a->op, size, iters, warmup);
        double sum = rt->sum_to_root(counted ? us : 0.0);
        if (rt->me == 0) {
            printf("@osu op=%s pes=%d bytes=%zu us=%.4f iters=%d\n", a->op, rt->npes, size,
                   sum / ncounted, iters);
            fflush(stdout);
        }
        if (a->memcpy_min && size >= a->memcpy_min)
            osu_memcpy_reference(rt, a, size, size);
    }
}

#endif /* OSU_COMMON_H */
