/**
 * @file conv_main.c
 * @brief `conv`: the distributed convolution of FSHMEM §V on meshmem (conv_data.h for the
 * shapes, the layout and the verification).
 *
 * stream (FSHMEM Fig. 6b with its automatic result transfer, on P ranks): rank r computes its
 * group's output channels block after block; each block, one contiguous piece of the layer's
 * maps, is put with a signal into the same place of every other rank's copy of the maps as
 * soon as it is computed, before the next block is computed (app_stream.h; a layer is a
 * phase). So the concatenation is done when the last block is: there is no all-gather after
 * the compute. Block b of the next layer waits only for the blocks it reads, conv_need(b),
 * from every rank, so consecutive layers overlap too; after the last layer every rank waits
 * for every block.
 *   Symmetric: out[2], KOUT maps each (layer l writes out[l % 2]; layer 0 reads the input,
 *   private), and the stream's signals.
 *   Why a put never lands on maps a peer still reads: rank r puts block b of layer l + 1 into
 *   peer s's out[(l + 1) % 2], which is s's input of layer l. r computes that block only after
 *   s signalled its layer-l blocks up to conv_need(b), so s has read those blocks' input rows,
 *   and s's later layer-l blocks read rows from conv_row0(conv_need(b) + 1) - ph on, where ph
 *   (the padding before a map) is at most the padding after it: past block b's rows. A rank
 *   is never more than one layer ahead of another (it needs the other's previous layer), and
 *   every timed run starts from a barrier after every rank received every block of the last.
 *   Why the puts need not complete before the next block (app_stream_put_nbi: to another
 *   host the block travels while the next one is computed): r rewrites its piece of block b
 *   of out[l % 2] in layer l + 2, after every peer's layer-(l + 1) blocks up to
 *   conv_need(b) >= b arrived, which each peer computed after r's layer-l blocks up to
 *   conv_need of that arrived there: block b's data has been read everywhere.
 * serial: the one-rank forward pass (conv_forward_local: the same blocks over all kernels).
 */
#include "conv_data.h"
#include "../common/app_stream.h"

#include <meshmem.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    app_t *h;
    const conv_opts_t *o;
    int P, me;
    conv_group_t g;
    void *in;
    char *out[2];
    app_stream_t st;
    char *last; /* the maps of the last layer */
} conv_job_t;

/* every other rank's first n blocks of the layer being received */
static void wait_blocks(conv_job_t *j, int n)
{
    for (int s = 0; s < j->P; s++)
        if (s != j->me)
            app_stream_wait(&j->st, s, (uint64_t)n);
}

static void compute_block(conv_job_t *j, int layer, const void *in, void *out, int b)
{
    const conv_opts_t *o = j->o;
    uint64_t n = (uint64_t)conv_rows(o, b) * o->W, k = (uint64_t)o->kdim;
    uint64_t q = conv_shift_elems(o, b, o->cin);
    /* the shifted copies read the input and write q elements; the KH gemms read k x n of them
     * and the weights */
    meshmem_model_compute((q + k * n + (uint64_t)j->g.nc * k) * o->esz,
                          (q + (uint64_t)j->g.nc * n) * o->esz, 2 * (uint64_t)j->g.nc * n * k);
    conv_block(o, &j->g, layer, in, out, b);
}

static void stream_run(void *ctx, int run)
{
    (void)run;
    conv_job_t *j = ctx;
    const conv_opts_t *o = j->o;
    for (int l = 0; l < o->layers; l++) {
        const void *in = l == 0 ? j->in : j->out[(l - 1) % 2];
        char *out = j->out[l % 2];
        for (int b = 0; b < o->blocks; b++) {
            if (l > 0)
                wait_blocks(j, conv_need(o, b) + 1);
            compute_block(j, l, in, out, b);
            char *piece = out + conv_piece(o, o->kout, b, j->g.c0) * o->esz;
            size_t bytes = (size_t)j->g.nc * conv_rows(o, b) * o->W * o->esz;
            for (int t = 1; t < j->P; t++)
                app_stream_put_nbi(&j->st, piece, piece, bytes, (j->me + t) % j->P);
        }
        if (l > 0)
            app_stream_next(&j->st, (uint64_t)o->blocks); /* layer l - 1 is all here */
    }
    wait_blocks(j, o->blocks);
    app_stream_next(&j->st, (uint64_t)o->blocks);
}

static void stream_setup(conv_job_t *j)
{
    const conv_opts_t *o = j->o;
    conv_group_setup(j->h, o, j->P, j->me, &j->g);
    j->in = conv_input(j->h, o);
    for (int i = 0; i < 2; i++) {
        j->out[i] = meshmem_malloc(conv_out_bytes(o));
        if (j->out[i] == NULL)
            app_fatal(j->h,
                      "out of symmetric memory (conv -k %s -m %s -H %d prints what it "
                      "needs)",
                      o->kernels, o->maps, j->P);
    }
    app_stream_init(j->h, &j->st);
    j->last = j->out[(o->layers - 1) % 2];
}

static void serial_run(void *ctx, int run)
{
    (void)run;
    conv_job_t *j = ctx;
    conv_forward_local(j->o, &j->g, j->in, j->out[0], j->out[1], NULL);
}

static void serial_setup(conv_job_t *j)
{
    const conv_opts_t *o = j->o;
    conv_group_setup(j->h, o, 1, 0, &j->g);
    j->in = conv_input(j->h, o);
    for (int i = 0; i < 2; i++)
        j->out[i] = app_alloc(j->h, conv_out_bytes(o), "the maps");
    j->last = j->out[0];
}

/* symmetric bytes a run needs (two layers' maps) and the runtime's */
static size_t heap_bytes(const conv_opts_t *o)
{
    return 2 * conv_out_bytes(o) + (8u << 20);
}

int main(int argc, char **argv)
{
    app_t h = APP_INIT("conv", "conv");
    h.iters = 3;
    conv_opts_t o;
    conv_parse(&h, &o, "conv [options]   (start with meshrun -n RANKS --heap SIZE)",
               "stream,serial", argc, argv);
    if (o.heap_ranks > 0) {
        printf("%zu\n", heap_bytes(&o));
        return 0;
    }
    app_blas_one_thread();
    app_start(&h, &app_rt_meshmem);
    conv_job_t j = {.h = &h, .o = &o, .P = h.nranks, .me = h.me};
    app_runs_t runs = {.ctx = &j, .phase = "conv", .timing = APP_TIME_EACH, .warmup = -1};
    if (!strcmp(o.variant, "serial")) {
        if (h.nranks != 1)
            app_arg_error(&h, "-v serial: the one-rank baseline runs on one rank (not %d)",
                          h.nranks);
        serial_setup(&j);
        runs.run = serial_run;
    } else {
        stream_setup(&j);
        runs.run = stream_run;
    }
    app_time_runs(&h, &runs);
    conv_verify_report(&h, &o, j.last);
    return app_finish(&h);
}
