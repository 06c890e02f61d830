/**
 * @file shallow_mpi.c
 * @brief The OpenMPI twin of `shallow`: the same scheme, decomposition, exchange plan, timing,
 * verification and result line, the halo exchanged as an MPI code does it: per step, for every
 * peer an MPI_Irecv of its message, the strips bound for it packed and sent with MPI_Isend,
 * then MPI_Waitall and the unpacking (the usual nonblocking halo exchange).
 */
#include "sw_app.h"

#include <mpi.h>
#include <stdlib.h>

typedef struct {
    sw_state_t *s;
    const sw_halo_t *plan;
    double *sbuf[SW_MAX_PEERS], *rbuf[SW_MAX_PEERS];
} mpi_exch_t;

enum { TAG_HALO = 7, TAG_FETCH = 8 };

static void halo(void *ctx)
{
    mpi_exch_t *x = ctx;
    const sw_halo_t *h = x->plan;
    sw_level_t cur = sw_cur(x->s);
    MPI_Request req[2 * SW_MAX_PEERS];
    for (int k = 0; k < h->npeers; k++)
        MPI_Irecv(x->rbuf[k], (int)h->recv[k].count, MPI_DOUBLE, h->recv[k].peer, TAG_HALO,
                  MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < h->npeers; k++) {
        size_t n = sw_pack(&h->send[k], SW_ALL_PIECES, cur, x->sbuf[k]);
        MPI_Isend(x->sbuf[k], (int)n, MPI_DOUBLE, h->send[k].peer, TAG_HALO, MPI_COMM_WORLD,
                  &req[h->npeers + k]);
    }
    sw_copy_self(h, cur);
    MPI_Waitall(2 * h->npeers, req, MPI_STATUSES_IGNORE);
    for (int k = 0; k < h->npeers; k++)
        sw_unpack(&h->recv[k], SW_ALL_PIECES, cur, x->rbuf[k]);
}

static void fetch(void *ctx, int r, sw_level_t dst)
{
    mpi_exch_t *x = ctx;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    sw_level_t cur = sw_cur(x->s);
    double *mine[3] = {cur.u, cur.v, cur.p}, *into[3] = {dst.u, dst.v, dst.p};
    int cells = (int)x->s->b.cells;
    if (me == 0 && r == 0) {
        for (int q = 0; q < 3; q++)
            memcpy(into[q], mine[q], x->s->b.cells * sizeof(double));
    } else if (me == 0) {
        sw_block_t b;
        sw_grid_block(&x->plan->g, r, &b);
        for (int q = 0; q < 3; q++)
            MPI_Recv(into[q], (int)b.cells, MPI_DOUBLE, r, TAG_FETCH, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    } else if (me == r) {
        for (int q = 0; q < 3; q++)
            MPI_Send(mine[q], cells, MPI_DOUBLE, 0, TAG_FETCH, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    app_t h = APP_INIT("shallow_mpi", "shallow");
    h.iters = 3;
    sw_opts_t o;
    sw_app_parse(&h, &o, "shallow_mpi [options]   (start with mpirun -n RANKS)", "mpi", NULL, argc,
                 argv);
    app_start(&h, &app_rt_mpi);
    sw_halo_t plan;
    sw_app_plan(&h, &o, &plan);

    mpi_exch_t x = {.plan = &plan};
    double *mem = app_alloc(&h, 9 * plan.b.cells * sizeof(double), "the three levels");
    sw_level_t lv[3];
    for (int k = 0; k < 3; k++)
        lv[k] = (sw_level_t){mem + (3 * k) * plan.b.cells, mem + (3 * k + 1) * plan.b.cells,
                             mem + (3 * k + 2) * plan.b.cells};
    for (int k = 0; k < plan.npeers; k++) {
        x.sbuf[k] = app_alloc(&h, plan.send[k].count * sizeof(double), "a send buffer");
        x.rbuf[k] = app_alloc(&h, plan.recv[k].count * sizeof(double), "a receive buffer");
    }
    sw_state_t s;
    if (sw_state_init(&s, o.M, o.N, &plan.b, lv) != 0)
        app_fatal(&h, "out of memory for a %dx%d block", plan.b.nx, plan.b.ny);
    x.s = &s;
    sw_exch_t ex = {.halo = halo, .fetch = fetch, .ctx = &x};
    sw_app_run(&h, &o, &s, &plan, &ex);

    sw_state_free(&s);
    for (int k = 0; k < plan.npeers; k++) {
        free(x.sbuf[k]);
        free(x.rbuf[k]);
    }
    free(mem);
    return app_finish(&h);
}
