/*
 * The runtime-independent part of the distributed GEMM (gemm_data.h).
 */
#include "gemm_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gemm_parse(app_t *h, gemm_opts_t *o, const char *synopsis, const char *variants, int argc,
                char **argv)
{
    static char vhelp[128], vdefault[32];
    snprintf(vdefault, sizeof(vdefault), "%.*s", (int)strcspn(variants, ","), variants);
    snprintf(vhelp, sizeof(vhelp), "%s (default %s)", variants, vdefault);
    *o = (gemm_opts_t){.size = "256", .variant = vdefault, .chunk = 256};
    const app_opt_t opts[] = {
        {'N', APP_STR, &o->size, 0, "SIZE",
         "n (square) or MxNxK: C is MxN, A MxK, B KxN (default 256)"},
        {'v', APP_STR, &o->variant, 0, "VARIANT", vhelp},
        {'b', APP_INT, &o->chunk, 1, "ROWS", "stream: rows of C per streamed chunk (default 256)"},
        {'k', APP_INT, &o->panel, 0, "COLS",
         "summa: panel width; 0: K in one panel per rank (default 0)"},
        {'H', APP_INT, &o->heap_ranks, 1, "RANKS",
         "print the symmetric heap bytes a run on RANKS ranks needs, and exit"},
        {0, APP_FLAG, NULL, 0, NULL, NULL},
    };
    app_parse(h, synopsis, opts, argc, argv);
    char tail;
    int n = sscanf(o->size, "%dx%dx%d%c", &o->M, &o->N, &o->K, &tail);
    if (n == 1)
        o->N = o->K = o->M;
    if ((n != 1 && n != 3) || o->M < 1 || o->N < 1 || o->K < 1 || o->M > 1 << 15 ||
        o->N > 1 << 15 || o->K > 1 << 15)
        app_bad_option(h, "-N %s: a size n or MxNxK, each 1 to 32768", o->size);
    app_check_choice(h, 'v', o->variant, variants);
}

static double value(uint64_t seed, uint64_t i)
{
    return app_unit(app_rand_at(seed, i)) - 0.5;
}

void gemm_fill_a(uint64_t seed, const gemm_opts_t *o, int r0, int nr, int c0, int nc, double *out,
                 int ld)
{
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++)
            out[(size_t)i * ld + j] = value(seed, (uint64_t)(r0 + i) * o->K + (c0 + j));
}

void gemm_fill_b(uint64_t seed, const gemm_opts_t *o, int r0, int nr, int c0, int nc, double *out,
                 int ld)
{
    uint64_t s = seed ^ UINT64_C(0xb0b0b0b0b0b0b0b0);
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++)
            out[(size_t)i * ld + j] = value(s, (uint64_t)(r0 + i) * o->N + (c0 + j));
}

double gemm_block_error(uint64_t seed, const gemm_opts_t *o, int r0, int nr, int c0, int nc,
                        const double *c, int ldc, uint64_t *bad)
{
    *bad = 0;
    if (nr == 0 || nc == 0)
        return 0;
    double *a = malloc((size_t)nr * o->K * sizeof(double));
    double *b = malloc((size_t)o->K * nc * sizeof(double));
    double *ref = malloc((size_t)nr * nc * sizeof(double));
    if (!a || !b || !ref) {
        free(a), free(b), free(ref);
        return -1;
    }
    gemm_fill_a(seed, o, r0, nr, 0, o->K, a, o->K);
    gemm_fill_b(seed, o, 0, o->K, c0, nc, b, nc);
    gemm_multiply(nr, nc, o->K, a, o->K, b, nc, 0.0, ref, nc);
    double err = app_blas_rel_error(APP_BLAS_DOUBLE, c, (size_t)ldc, ref, (size_t)nc, (size_t)nr,
                                    (size_t)nc, 1e-12, bad);
    free(a), free(b), free(ref);
    return err;
}

double gemm_ops(const gemm_opts_t *o)
{
    return 2.0 * o->M * o->N * o->K;
}

void gemm_summa_grid(const gemm_opts_t *o, int P, gemm_summa_t *s)
{
    int r, c; /* the most square grid, pc <= pr */
    mm_grid_most_square(P, &r, &c);
    *s = (gemm_summa_t){.pc = c, .pr = r};
    s->T = o->panel > 0 ? (o->K + o->panel - 1) / o->panel : P;
    s->T = s->T > o->K ? o->K : s->T;
    s->maxkt = (o->K + s->T - 1) / s->T;
}

/* @p n doubles from *@p store, advanced past them, or memory of their own */
static double *panel_at(app_t *h, double **store, size_t n, const char *what)
{
    if (*store == NULL)
        return app_alloc(h, n * sizeof(double), what);
    double *p = *store;
    *store += n;
    return p;
}

void gemm_summa_setup(app_t *h, const gemm_opts_t *o, int P, int me, gemm_summa_t *s,
                      double *a_store, double *b_store)
{
    gemm_summa_grid(o, P, s);
    s->x = me % s->pc, s->y = me / s->pc;
    s->r0 = app_part_lo(o->M, s->pr, s->y), s->nr = app_part_len(o->M, s->pr, s->y);
    s->c0 = app_part_lo(o->N, s->pc, s->x), s->nc = app_part_len(o->N, s->pc, s->x);
    s->apan = app_alloc(h, (size_t)s->T * sizeof(double *), "panel list");
    s->bpan = app_alloc(h, (size_t)s->T * sizeof(double *), "panel list");
    for (int t = 0; t < s->T; t++) {
        int k0 = app_part_lo(o->K, s->T, t), kt = app_part_len(o->K, s->T, t);
        s->apan[t] = s->bpan[t] = NULL;
        if (t % s->pc == s->x) {
            s->apan[t] = panel_at(h, &a_store, (size_t)s->nr * kt, "an A panel");
            gemm_fill_a(h->seed, o, s->r0, s->nr, k0, kt, s->apan[t], kt);
        }
        if (t % s->pr == s->y) {
            s->bpan[t] = panel_at(h, &b_store, (size_t)kt * s->nc, "a B panel");
            gemm_fill_b(h->seed, o, k0, kt, s->c0, s->nc, s->bpan[t], s->nc);
        }
    }
}

void gemm_stream_inputs(app_t *h, const gemm_opts_t *o, int P, int me, int *kp, double **a,
                        double **b)
{
    int k0 = app_part_lo(o->K, P, me);
    *kp = app_part_len(o->K, P, me);
    *a = app_alloc(h, (size_t)o->M * *kp * sizeof(double), "A's columns");
    *b = app_alloc(h, (size_t)*kp * o->N * sizeof(double), "B's rows");
    gemm_fill_a(h->seed, o, 0, o->M, k0, *kp, *a, *kp > 0 ? *kp : 1);
    gemm_fill_b(h->seed, o, k0, *kp, 0, o->N, *b, o->N);
}

void gemm_sum_partials(double *c, const double *slots, int P, size_t stride, size_t n)
{
    memcpy(c, slots, n * sizeof(double));
    for (int s = 1; s < P; s++) {
        const double *part = slots + (size_t)s * stride;
        for (size_t i = 0; i < n; i++)
            c[i] += part[i];
    }
}

void gemm_verify_report(app_t *h, const gemm_opts_t *o, int r0, int nr, int c0, int nc, double *c)
{
    if (h->corrupt && h->me == h->nranks - 1 && nr > 0 && nc > 0)
        c[0] += 1.0;
    uint64_t bad;
    double err = gemm_block_error(h->seed, o, r0, nr, c0, nc, c, nc, &bad);
    if (err < 0)
        app_fatal(h, "out of memory for the reference of a %dx%d block", nr, nc);
    app_verdict(h, bad, err, "C differs from the one-rank product by more than 1e-12");
    double gops = h->t.median > 0 ? gemm_ops(o) / h->t.median * 1e-9 : 0;
    app_report(h, "variant=%s n=%dx%dx%d chunk=%d GOPS=%.4f", o->variant, o->M, o->N, o->K,
               o->chunk, gops);
}
