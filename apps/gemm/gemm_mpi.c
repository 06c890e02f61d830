/**
 * @file gemm_mpi.c
 * @brief The OpenMPI twin of `gemm`: the same variants, input, timing, verification and
 * result line (gemm_data.h), the transfers as an MPI code makes them.
 *
 * stream: the same chunks in the same order, each multiplied into this rank's partial-product
 * buffer and sent with MPI_Isend while the next is multiplied; the owner pre-posts one
 * MPI_Irecv per sender and chunk, waits for all, and sums the P partials in rank order.
 * summa: MPI_Bcast of the A panel over the grid row's communicator and of the B panel over the
 * grid column's (MPI_Comm_split), then the local multiply.
 */
#include "gemm_data.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    app_t *h;
    const gemm_opts_t *o;
    int P, me;
    int kp, maxrows;
    double *a, *b, *part, *slots, *c;
    MPI_Request *req;
    /* summa */
    MPI_Comm row, col;
    gemm_summa_t s;
    double *abuf, *bbuf;
    int crow0, crows, ccol0, ccols;
} twin_t;

static void stream_setup(twin_t *j)
{
    const gemm_opts_t *o = j->o;
    gemm_stream_inputs(j->h, o, j->P, j->me, &j->kp, &j->a, &j->b);
    j->maxrows = (o->M + j->P - 1) / j->P;
    j->part = app_alloc(j->h, (size_t)o->M * o->N * sizeof(double), "the partial products");
    j->slots = app_alloc(j->h, (size_t)j->P * j->maxrows * o->N * sizeof(double), "slots");
    j->crow0 = app_part_lo(o->M, j->P, j->me), j->crows = app_part_len(o->M, j->P, j->me);
    j->ccol0 = 0, j->ccols = o->N;
    j->c = app_alloc(j->h, (size_t)j->crows * o->N * sizeof(double), "C's rows");
    size_t chunks = (size_t)(o->M + o->chunk - 1) / o->chunk + (size_t)j->P;
    j->req =
        app_alloc(j->h, 2 * (chunks + (size_t)j->P * chunks) * sizeof(MPI_Request), "requests");
}

static void stream_run(void *ctx, int run)
{
    (void)run;
    twin_t *j = ctx;
    const gemm_opts_t *o = j->o;
    const int N = o->N, lda = j->kp > 0 ? j->kp : 1;
    int nreq = 0;
    for (int s = 0; s < j->P; s++) /* the chunks of my block from every other rank */
        for (int c0 = 0; s != j->me && c0 < j->crows; c0 += o->chunk) {
            int rows = j->crows - c0 < o->chunk ? j->crows - c0 : o->chunk;
            MPI_Irecv(j->slots + ((size_t)s * j->maxrows + c0) * N, rows * N, MPI_DOUBLE, s,
                      c0 / o->chunk, MPI_COMM_WORLD, &j->req[nreq++]);
        }
    for (int t = 1; t <= j->P; t++) {
        int r = (j->me + t) % j->P, m0 = app_part_lo(o->M, j->P, r),
            mr = app_part_len(o->M, j->P, r);
        for (int c0 = 0; c0 < mr; c0 += o->chunk) {
            int rows = mr - c0 < o->chunk ? mr - c0 : o->chunk;
            double *dst = r == j->me ? j->slots + ((size_t)j->me * j->maxrows + c0) * N
                                     : j->part + (size_t)(m0 + c0) * N;
            gemm_multiply(rows, N, j->kp, j->a + (size_t)(m0 + c0) * j->kp, lda, j->b, N, 0.0, dst,
                          N);
            if (r != j->me)
                MPI_Isend(dst, rows * N, MPI_DOUBLE, r, c0 / o->chunk, MPI_COMM_WORLD,
                          &j->req[nreq++]);
        }
    }
    MPI_Waitall(nreq, j->req, MPI_STATUSES_IGNORE);
    size_t n = (size_t)j->crows * N;
    gemm_sum_partials(j->c, j->slots, j->P, (size_t)j->maxrows * N, n);
}

static void summa_setup(twin_t *j)
{
    gemm_summa_t *s = &j->s;
    gemm_summa_setup(j->h, j->o, j->P, j->me, s, NULL, NULL);
    MPI_Comm_split(MPI_COMM_WORLD, s->y, s->x, &j->row);
    MPI_Comm_split(MPI_COMM_WORLD, s->x, s->y, &j->col);
    j->abuf = app_alloc(j->h, (size_t)s->nr * s->maxkt * sizeof(double), "the A panel");
    j->bbuf = app_alloc(j->h, (size_t)s->maxkt * s->nc * sizeof(double), "the B panel");
    j->crow0 = s->r0, j->crows = s->nr, j->ccol0 = s->c0, j->ccols = s->nc;
    j->c = app_alloc(j->h, (size_t)s->nr * s->nc * sizeof(double), "C's block");
}

static void summa_run(void *ctx, int run)
{
    (void)run;
    twin_t *j = ctx;
    const gemm_summa_t *s = &j->s;
    for (int t = 0; t < s->T; t++) {
        int kt = app_part_len(j->o->K, s->T, t);
        double *a = s->apan[t] ? s->apan[t] : j->abuf, *b = s->bpan[t] ? s->bpan[t] : j->bbuf;
        MPI_Bcast(a, s->nr * kt, MPI_DOUBLE, t % s->pc, j->row);
        MPI_Bcast(b, kt * s->nc, MPI_DOUBLE, t % s->pr, j->col);
        gemm_multiply(s->nr, s->nc, kt, a, kt, b, s->nc, t ? 1.0 : 0.0, j->c, s->nc);
    }
}

int main(int argc, char **argv)
{
    app_t h = APP_INIT("gemm_mpi", "gemm");
    h.iters = 3;
    gemm_opts_t o;
    gemm_parse(&h, &o, "gemm_mpi [options]   (start with mpirun -n RANKS)", "stream,summa", argc,
               argv);
    if (o.heap_ranks)
        app_bad_option(&h, "-H %d: the symmetric heap is meshmem's (the twin has none)",
                       o.heap_ranks);
    app_blas_one_thread();
    app_start(&h, &app_rt_mpi);
    twin_t j = {.h = &h, .o = &o, .P = h.nranks, .me = h.me};
    app_runs_t runs = {.ctx = &j, .timing = APP_TIME_EACH, .warmup = -1, .phase = "gemm"};
    if (!strcmp(o.variant, "summa")) {
        summa_setup(&j);
        runs.run = summa_run;
    } else {
        stream_setup(&j);
        runs.run = stream_run;
    }
    app_time_runs(&h, &runs);
    gemm_verify_report(&h, &o, j.crow0, j.crows, j.ccol0, j.ccols, j.c);
    return app_finish(&h);
}
