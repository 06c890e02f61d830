/**
 * @file fft_main.c
 * @brief `fft`: the distributed 3-D complex FFT of DataVortex §5 on meshmem (fft_engine.h),
 * and the serial FFTW baseline.
 *
 * Variants: slab (pr = ranks), pencil (a pr x pc grid), serial (FFTW's own 3-D plan on one
 * rank). Each timed run is one forward transform (warm-up first; a run's time is the slowest
 * rank's from a common barrier). Then the last result is compared with serial FFTW on rank 0
 * (relative L2 error), and the inverse of it with the input (round trip). One line:
 *   @fft variant=slab n=256x256x256 prec=double grid=2x1 chunk=1 GFlops=... err_fwd=...
 *   err_roundtrip=... seconds=<median> ... verified=1
 * GFlops = 5 N log2 N / seconds. Exit status 0 verified, 1 not, 2 bad arguments.
 */
#include "fft_engine.h"

#include "../common/app_harness.h"

#include <meshmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the state of the timed runs */
typedef struct {
    fft_job_t job;
    void *result;
    /* serial */
    fftw_plan plan;
    int single;
    void *sin, *sout;
} fft_run_t;

static void run_dist(void *ctx, int run)
{
    (void)run;
    fft_run_t *r = ctx;
    r->result = fft_forward(&r->job); /* names its stages' phases */
}

static void run_serial(void *ctx, int run)
{
    (void)run;
    fft_run_t *r = ctx;
    if (r->single)
        fftwf_execute((fftwf_plan)r->plan);
    else
        fftw_execute(r->plan);
}

/* rank 0 compares every rank's part of the forward result with serial FFTW: it reads each
 * part from that rank's symmetric result buffer (meshmem_get: any rank, any host) */
static double check_forward(app_t *h, fft_job_t *j, void *result, const fftw_complex *ref)
{
    const fft_params_t *p = &j->p;
    fft_err_t e = {0, 0, 0};
    size_t most = 0;
    for (int r = 0; r < h->nranks; r++) {
        size_t c = (size_t)fft_blk_len(p->n[1], p->pr, r / p->pc) * p->n[0] *
                   (p->pc > 1 ? fft_blk_len(p->n[2], p->pc, r % p->pc) : p->n[2]);
        most = c > most ? c : most;
    }
    char *piece = h->me == 0 ? app_alloc(h, most * j->es, "the result of a rank") : NULL;
    for (int r = 0; h->me == 0 && r < h->nranks; r++) {
        int row = r / p->pc, col = r % p->pc;
        int y0 = fft_blk_lo(p->n[1], p->pr, row), ny = fft_blk_len(p->n[1], p->pr, row);
        int z0 = p->pc > 1 ? fft_blk_lo(p->n[2], p->pc, col) : 0;
        int nz = p->pc > 1 ? fft_blk_len(p->n[2], p->pc, col) : p->n[2];
        size_t bytes = (size_t)ny * p->n[0] * nz * j->es;
        meshmem_get(piece, result, bytes, r);
        fft_compare_yxz(&e, piece, p->single, ref, p->n, y0, ny, 0, p->n[0], z0, nz);
    }
    free(piece);
    return h->me == 0 ? fft_rel_error(&e) : 0.0;
}

/* the round trip: every rank compares its part of the inverse with N x its input */
static double check_roundtrip(app_t *h, fft_job_t *j)
{
    const fft_params_t *p = &j->p;
    fft_err_t e = {0, 0, 0};
    double N = (double)p->n[0] * p->n[1] * p->n[2];
    fft_compare_input(&e, j->in, p->single, N, h->seed, p->n, j->x0, j->nx, j->y0, j->ny, 0,
                      p->n[2]);
    double v[2] = {e.diff2, e.ref2};
    h->rt->allreduce(v, 2, APP_SUM);
    e.diff2 = v[0], e.ref2 = v[1];
    e.maxabs = 0;
    return fft_rel_error(&e);
}

int main(int argc, char **argv)
{
    const char *size = "64", *variant = "slab", *prec = "double", *flags_name = "measure";
    int chunk = 1, want_pc = 0, heap_ranks = 0;
    app_t h = APP_INIT("fft", "fft");
    h.iters = 3;
    const app_opt_t opts[] = {
        {'N', APP_STR, &size, 0, "SIZE", "n (a cube) or n0xn1xn2 (default 64)"},
        {'v', APP_STR, &variant, 0, "VARIANT", "slab, pencil or serial (default slab)"},
        {'p', APP_STR, &prec, 0, "PREC", "double or float (default double)"},
        {'k', APP_INT, &chunk, 0, "PLANES",
         "planes per pipeline chunk; 0: all at once (default 1)"},
        {'g', APP_INT, &want_pc, 0, "PC", "pencil: ranks per grid row (default: most square)"},
        {'f', APP_STR, &flags_name, 0, "FLAGS",
         "FFTW planner: estimate, measure, patient (default measure)"},
        {'H', APP_INT, &heap_ranks, 1, "RANKS",
         "print the symmetric heap bytes a run on RANKS ranks needs, and exit"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(&h, "fft [options]   (start with meshrun -n RANKS --heap SIZE)", opts, argc, argv);
    fft_params_t p = {.chunk = chunk};
    if (fft_planner_flags(flags_name, &p.flags) != 0)
        app_bad_option(&h, "-f %s: planner flags estimate, measure or patient", flags_name);
    if (fft_parse_size(size, p.n) != 0)
        app_bad_option(&h, "-N %s: a size n or n0xn1xn2, each 1 to 2^20", size);
    int serial = !strcmp(variant, "serial"), pencil = !strcmp(variant, "pencil");
    if (!serial && !pencil && strcmp(variant, "slab"))
        app_bad_option(&h, "-v %s: slab, pencil or serial", variant);
    if (strcmp(prec, "double") && strcmp(prec, "float"))
        app_bad_option(&h, "-p %s: double or float", prec);
    p.single = !strcmp(prec, "float");
    if (want_pc && !pencil)
        app_bad_option(&h, "-g %d: a grid is for -v pencil", want_pc);
    if (heap_ranks > 0) {
        p.pc = pencil ? want_pc : 1;
        p.pr = 0;
        printf("%zu\n", serial ? (size_t)(8u << 20) : fft_heap_bytes(&p, heap_ranks));
        return 0;
    }
    app_start(&h, &app_rt_meshmem);
    if (serial && h.nranks != 1)
        app_arg_error(&h, "-v serial: the serial baseline runs on one rank (not %d)", h.nranks);
    if (pencil) {
        fft_grid(h.nranks, want_pc, &p.pr, &p.pc);
        if (want_pc && h.nranks % want_pc)
            app_arg_error(&h, "-g %d: ranks per grid row must divide %d ranks", want_pc, h.nranks);
    } else {
        p.pr = h.nranks, p.pc = 1;
    }
    size_t N = (size_t)p.n[0] * p.n[1] * p.n[2], es = p.single ? 8 : 16;
    fft_run_t r = {.single = p.single};
    app_runs_t runs = {.ctx = &r, .timing = APP_TIME_EACH, .warmup = -1};
    if (serial) {
        r.sin = p.single ? (void *)fftwf_malloc(N * es) : (void *)fftw_malloc(N * es);
        r.sout = p.single ? (void *)fftwf_malloc(N * es) : (void *)fftw_malloc(N * es);
        if (!r.sin || !r.sout)
            app_fatal(&h, "out of memory for a %zu-element serial FFT", N);
        r.plan = p.single ? (fftw_plan)fftwf_plan_dft_3d(p.n[0], p.n[1], p.n[2], r.sin, r.sout,
                                                         FFTW_FORWARD, p.flags)
                          : fftw_plan_dft_3d(p.n[0], p.n[1], p.n[2], r.sin, r.sout, FFTW_FORWARD,
                                             p.flags);
        fft_fill(r.sin, p.single, h.seed, p.n, 0, p.n[0], 0, p.n[1], 0, p.n[2]);
        runs.run = run_serial;
        runs.phase = "serial"; /* not modelled: measured time */
    } else {
        if (fft_setup(&r.job, &p) != 0)
            app_fatal(&h, "out of (symmetric) memory or an FFTW plan failed: -H tells the heap");
        fft_fill(r.job.in, p.single, h.seed, p.n, r.job.x0, r.job.nx, r.job.y0, r.job.ny, 0,
                 p.n[2]);
        runs.run = run_dist;
    }
    app_time_runs(&h, &runs);

    /* verification: rank 0 holds the serial reference */
    fftw_complex *ref = h.me == 0 ? fft_reference(h.seed, p.n, p.single) : NULL;
    if (h.me == 0 && !ref)
        app_fatal(&h, "out of memory for the serial reference (%zu elements)", N);
    double err_fwd, err_rt = 0;
    if (serial) {
        if (h.corrupt)
            fft_corrupt(r.sout, p.single, N);
        fft_err_t e = {0, 0, 0};
        /* the serial output's natural layout is the transposed one of a single y block */
        for (int x = 0; x < p.n[0]; x++)
            fft_compare_yxz(&e, (char *)r.sout + (size_t)x * p.n[1] * p.n[2] * es, p.single, ref,
                            p.n, 0, p.n[1], x, 1, 0, p.n[2]);
        err_fwd = fft_rel_error(&e);
    } else {
        if (h.corrupt)
            fft_corrupt(r.result, p.single, (size_t)r.job.nyt * p.n[0] * r.job.nz);
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        err_fwd = check_forward(&h, &r.job, r.result, ref);
        fft_inverse(&r.job, r.result);
        err_rt = check_roundtrip(&h, &r.job);
    }
    double worst;
    char what[160];
    int ok = fft_judge(p.single, err_fwd, err_rt, &worst, what, sizeof(what));
    app_verdict(&h, h.me == 0 && !ok, h.me == 0 ? worst : 0, what);
    double gf = h.t.median > 0 ? fft_flops(p.n) / h.t.median * 1e-9 : 0;
    app_report(&h,
               "variant=%s n=%dx%dx%d prec=%s grid=%dx%d chunk=%d flags=%s GFlops=%.4f "
               "err_fwd=%.3g err_roundtrip=%.3g",
               variant, p.n[0], p.n[1], p.n[2], prec, serial ? 1 : p.pr, serial ? 1 : p.pc, chunk,
               flags_name, gf, err_fwd, err_rt);
    fftw_free(ref);
    if (serial) {
        if (p.single) {
            fftwf_destroy_plan((fftwf_plan)r.plan);
            fftwf_free(r.sin);
            fftwf_free(r.sout);
        } else {
            fftw_destroy_plan(r.plan);
            fftw_free(r.sin);
            fftw_free(r.sout);
        }
    } else {
        fft_free(&r.job);
    }
    return app_finish(&h);
}
