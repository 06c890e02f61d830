/**
 * @file conv_mpi.c
 * @brief The OpenMPI twin of `conv`: the same shapes, blocks, compute, timing, verification
 * and result line (conv_data.h), the results exchanged as an MPI code exchanges them.
 *
 * stream: at the start of a layer every rank pre-posts one MPI_Irecv per other rank and block
 * into its copy of the layer's maps; each block of its own kernel group goes to every other
 * rank by MPI_Isend as soon as it is computed, while the next is computed. Block b of the
 * next layer waits (MPI_Waitall) for the blocks it reads, conv_need(b), as the meshmem
 * program does; a layer's sends complete before its maps are overwritten two layers later.
 * Messages are tagged by block: MPI's order between a pair of ranks keeps the layers apart.
 */
#include "conv_data.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    app_t *h;
    const conv_opts_t *o;
    int P, me;
    conv_group_t g;
    void *in;
    char *out[2];
    MPI_Datatype type;
    MPI_Request *recv[2], *send[2]; /* [block * P + rank], per parity of the layer */
} twin_t;

static void post_receives(twin_t *j, int parity)
{
    const conv_opts_t *o = j->o;
    for (int b = 0; b < o->blocks; b++)
        for (int s = 0; s < j->P; s++) {
            MPI_Request *r = &j->recv[parity][(size_t)b * j->P + s];
            int c0 = app_part_lo(o->kout, j->P, s), nc = app_part_len(o->kout, j->P, s);
            *r = MPI_REQUEST_NULL;
            if (s != j->me)
                MPI_Irecv(j->out[parity] + conv_piece(o, o->kout, b, c0) * o->esz,
                          nc * conv_rows(o, b) * o->W, j->type, s, b, MPI_COMM_WORLD, r);
        }
}

static void send_block(twin_t *j, int parity, int b)
{
    const conv_opts_t *o = j->o;
    char *piece = j->out[parity] + conv_piece(o, o->kout, b, j->g.c0) * o->esz;
    for (int t = 1; t < j->P; t++) {
        int s = (j->me + t) % j->P;
        MPI_Isend(piece, j->g.nc * conv_rows(o, b) * o->W, j->type, s, b, MPI_COMM_WORLD,
                  &j->send[parity][(size_t)b * j->P + s]);
    }
}

static void stream_run(void *ctx, int run)
{
    (void)run;
    twin_t *j = ctx;
    const conv_opts_t *o = j->o;
    const int all = o->blocks * j->P;
    for (int l = 0; l < o->layers; l++) {
        int par = l % 2, done = 0; /* blocks of the layer before waited for */
        MPI_Waitall(all, j->send[par], MPI_STATUSES_IGNORE); /* layer l - 2's, same maps */
        post_receives(j, par);
        const void *in = l == 0 ? j->in : j->out[1 - par];
        for (int b = 0; b < o->blocks; b++) {
            int need = conv_need(o, b) + 1;
            if (l > 0 && need > done) {
                MPI_Waitall((need - done) * j->P, j->recv[1 - par] + (size_t)done * j->P,
                            MPI_STATUSES_IGNORE);
                done = need;
            }
            conv_block(o, &j->g, l, in, j->out[par], b);
            send_block(j, par, b);
        }
    }
    MPI_Waitall(all, j->recv[(o->layers - 1) % 2], MPI_STATUSES_IGNORE);
    for (int par = 0; par < 2; par++)
        MPI_Waitall(all, j->send[par], MPI_STATUSES_IGNORE);
}

static void stream_setup(twin_t *j)
{
    const conv_opts_t *o = j->o;
    conv_group_setup(j->h, o, j->P, j->me, &j->g);
    j->in = conv_input(j->h, o);
    j->type = o->prec == APP_BLAS_SINGLE ? MPI_FLOAT : MPI_DOUBLE;
    size_t n = (size_t)o->blocks * j->P;
    for (int par = 0; par < 2; par++) {
        j->out[par] = app_alloc(j->h, conv_out_bytes(o), "the maps");
        j->recv[par] = app_alloc(j->h, n * sizeof(MPI_Request), "requests");
        j->send[par] = app_alloc(j->h, n * sizeof(MPI_Request), "requests");
        for (size_t i = 0; i < n; i++)
            j->recv[par][i] = j->send[par][i] = MPI_REQUEST_NULL;
    }
}

int main(int argc, char **argv)
{
    app_t h = APP_INIT("conv_mpi", "conv");
    h.iters = 3;
    conv_opts_t o;
    conv_parse(&h, &o, "conv_mpi [options]   (start with mpirun -n RANKS)", "stream", argc, argv);
    if (o.heap_ranks)
        app_bad_option(&h, "-H %d: the symmetric heap is meshmem's (the twin has none)",
                       o.heap_ranks);
    app_blas_one_thread();
    app_start(&h, &app_rt_mpi);
    twin_t j = {.h = &h, .o = &o, .P = h.nranks, .me = h.me};
    stream_setup(&j);
    app_runs_t runs = {
        .ctx = &j, .run = stream_run, .timing = APP_TIME_EACH, .warmup = -1, .phase = "conv"};
    app_time_runs(&h, &runs);
    conv_verify_report(&h, &o, j.out[(o.layers - 1) % 2]);
    return app_finish(&h);
}
