/**
 * @file fft_mpi.c
 * @brief The OpenMPI twin of `fft`: FFTW's own distributed 3-D FFT (fftw_mpi_plan_dft_3d, the
 * "MPI-FFTW" of DataVortex §5) with the same planner flags, the same input, timing, verifier and
 * result line. Slab decomposition (FFTW-MPI distributes the first dimension), output in FFTW's
 * transposed layout (FFTW_MPI_TRANSPOSED_OUT: one global transpose, as `fft -v slab`); the
 * round trip uses the inverse plan with FFTW_MPI_TRANSPOSED_IN.
 */
#include "fft_data.h"

#include "../common/app_harness.h"

#include <fftw3-mpi.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one precision's FFTW-MPI calls, chosen once */
typedef struct {
    int single;
    ptrdiff_t ln0, l0s, ln1, l1s, alloc;
    void *in, *out, *back;
    void *fwd, *inv;
} twin_t;

static void run_fwd(void *ctx, int run)
{
    (void)run;
    twin_t *t = ctx;
    if (t->single)
        fftwf_execute(t->fwd);
    else
        fftw_execute(t->fwd);
}

static void setup(app_t *h, twin_t *t, const int n[3], unsigned flags)
{
    ptrdiff_t n0 = n[0], n1 = n[1], n2 = n[2];
    if (t->single) {
        fftwf_mpi_init();
        t->alloc = fftwf_mpi_local_size_3d_transposed(n0, n1, n2, MPI_COMM_WORLD, &t->ln0, &t->l0s,
                                                      &t->ln1, &t->l1s);
        t->in = fftwf_alloc_complex((size_t)t->alloc);
        t->out = fftwf_alloc_complex((size_t)t->alloc);
        t->back = fftwf_alloc_complex((size_t)t->alloc);
        if (!t->in || !t->out || !t->back)
            app_fatal(h, "out of memory (%td elements)", t->alloc);
        t->fwd = fftwf_mpi_plan_dft_3d(n0, n1, n2, t->in, t->out, MPI_COMM_WORLD, FFTW_FORWARD,
                                       flags | FFTW_MPI_TRANSPOSED_OUT);
        t->inv = fftwf_mpi_plan_dft_3d(n0, n1, n2, t->out, t->back, MPI_COMM_WORLD, FFTW_BACKWARD,
                                       FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
    } else {
        fftw_mpi_init();
        t->alloc = fftw_mpi_local_size_3d_transposed(n0, n1, n2, MPI_COMM_WORLD, &t->ln0, &t->l0s,
                                                     &t->ln1, &t->l1s);
        t->in = fftw_alloc_complex((size_t)t->alloc);
        t->out = fftw_alloc_complex((size_t)t->alloc);
        t->back = fftw_alloc_complex((size_t)t->alloc);
        if (!t->in || !t->out || !t->back)
            app_fatal(h, "out of memory (%td elements)", t->alloc);
        t->fwd = fftw_mpi_plan_dft_3d(n0, n1, n2, t->in, t->out, MPI_COMM_WORLD, FFTW_FORWARD,
                                      flags | FFTW_MPI_TRANSPOSED_OUT);
        t->inv = fftw_mpi_plan_dft_3d(n0, n1, n2, t->out, t->back, MPI_COMM_WORLD, FFTW_BACKWARD,
                                      FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
    }
    if (!t->fwd || !t->inv)
        app_fatal(h, "FFTW-MPI could not plan a %dx%dx%d transform", n[0], n[1], n[2]);
}

/* rank 0 receives every rank's [ln1][n0][n2] part and compares it with the reference */
static double check_forward(app_t *h, twin_t *t, const int n[3], const fftw_complex *ref)
{
    size_t es = t->single ? 8 : 16, row = (size_t)n[0] * n[2] * es;
    long long mine[2] = {t->l1s, t->ln1};
    long long *all = app_alloc(h, 2 * (size_t)h->nranks * sizeof(long long), "part sizes");
    MPI_Gather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    fft_err_t e = {0, 0, 0};
    if (h->me != 0) {
        for (size_t y = 0; y < (size_t)t->ln1; y++) /* one y-plane per message: under 2^31 */
            MPI_Send((char *)t->out + y * row, (int)row, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    } else {
        char *plane = app_alloc(h, row, "a y-plane");
        for (int r = 0; r < h->nranks; r++)
            for (long long y = 0; y < all[2 * r + 1]; y++) {
                if (r == 0)
                    memcpy(plane, (char *)t->out + (size_t)y * row, row);
                else
                    MPI_Recv(plane, (int)row, MPI_BYTE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                fft_compare_yxz(&e, plane, t->single, ref, n, (int)(all[2 * r] + y), 1, 0, n[0], 0,
                                n[2]);
            }
        free(plane);
    }
    free(all);
    return h->me == 0 ? fft_rel_error(&e) : 0.0;
}

int main(int argc, char **argv)
{
    const char *size = "64", *variant = "slab", *prec = "double", *flags_name = "measure";
    app_t h = APP_INIT("fft_mpi", "fft");
    h.iters = 3;
    const app_opt_t opts[] = {
        {'N', APP_STR, &size, 0, "SIZE", "n (a cube) or n0xn1xn2 (default 64)"},
        {'v', APP_STR, &variant, 0, "VARIANT", "slab (FFTW-MPI's decomposition)"},
        {'p', APP_STR, &prec, 0, "PREC", "double or float (default double)"},
        {'f', APP_STR, &flags_name, 0, "FLAGS",
         "FFTW planner: estimate, measure, patient (default measure)"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(&h, "fft_mpi [options]   (start with mpirun -n RANKS)", opts, argc, argv);
    int n[3];
    if (fft_parse_size(size, n) != 0)
        app_bad_option(&h, "-N %s: a size n or n0xn1xn2, each 1 to 2^20", size);
    if (strcmp(variant, "slab"))
        app_bad_option(&h, "-v %s: FFTW-MPI runs the slab decomposition", variant);
    if (strcmp(prec, "double") && strcmp(prec, "float"))
        app_bad_option(&h, "-p %s: double or float", prec);
    unsigned flags;
    if (fft_planner_flags(flags_name, &flags) != 0)
        app_bad_option(&h, "-f %s: planner flags estimate, measure or patient", flags_name);
    twin_t t = {.single = !strcmp(prec, "float")};
    app_start(&h, &app_rt_mpi);
    setup(&h, &t, n, flags);
    fft_fill(t.in, t.single, h.seed, n, (int)t.l0s, (int)t.ln0, 0, n[1], 0, n[2]);
    app_runs_t runs = {.run = run_fwd, .ctx = &t, .timing = APP_TIME_EACH, .warmup = -1};
    app_time_runs(&h, &runs);

    fftw_complex *ref = h.me == 0 ? fft_reference(h.seed, n, t.single) : NULL;
    if (h.me == 0 && !ref)
        app_fatal(&h, "out of memory for the serial reference");
    if (h.corrupt)
        fft_corrupt(t.out, t.single, (size_t)t.ln1 * n[0] * n[2]);
    double err_fwd = check_forward(&h, &t, n, ref);
    if (t.single)
        fftwf_execute(t.inv);
    else
        fftw_execute(t.inv);
    fft_err_t e = {0, 0, 0};
    fft_compare_input(&e, t.back, t.single, (double)n[0] * n[1] * n[2], h.seed, n, (int)t.l0s,
                      (int)t.ln0, 0, n[1], 0, n[2]);
    double v[2] = {e.diff2, e.ref2};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    e.diff2 = v[0], e.ref2 = v[1], e.maxabs = 0;
    double err_rt = fft_rel_error(&e);
    double worst;
    char what[160];
    int ok = fft_judge(t.single, err_fwd, err_rt, &worst, what, sizeof(what));
    app_verdict(&h, h.me == 0 && !ok, h.me == 0 ? worst : 0, what);
    double gf = h.t.median > 0 ? fft_flops(n) / h.t.median * 1e-9 : 0;
    app_report(&h,
               "variant=fftw_mpi n=%dx%dx%d prec=%s grid=%dx1 chunk=0 flags=%s GFlops=%.4f "
               "err_fwd=%.3g err_roundtrip=%.3g",
               n[0], n[1], n[2], prec, h.nranks, flags_name, gf, err_fwd, err_rt);
    fftw_free(ref);
    if (t.single) {
        fftwf_destroy_plan(t.fwd);
        fftwf_destroy_plan(t.inv);
        fftwf_free(t.in);
        fftwf_free(t.out);
        fftwf_free(t.back);
    } else {
        fftw_destroy_plan(t.fwd);
        fftw_destroy_plan(t.inv);
        fftw_free(t.in);
        fftw_free(t.out);
        fftw_free(t.back);
    }
    return app_finish(&h);
}
