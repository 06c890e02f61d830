/**
 * @file conv_data.h
 * @brief What the distributed convolution of FSHMEM §V (`conv`) and its OpenMPI twin
 * (`conv_mpi`) share: the command line, the layout of the feature maps, the input and the
 * weights (functions of global indices: the same on every rank count and runtime), the local
 * compute of one block (shifted copies of the input + OpenBLAS sgemm or dgemm, one thread per
 * rank), the one-rank forward pass and the verification against it.
 *
 * A layer: KOUT kernels of KH x KW x CIN over CIN maps of H x W, 'same' padding (the output
 * maps are H x W too; for an even kernel the extra row and column of padding are after the
 * map, as TensorFlow pads), no bias, no activation. With -l LAYERS > 1 the same shape is
 * chained: layer l + 1 convolves the KOUT maps layer l produced (so KOUT = CIN), each layer
 * with its own weights. Weights are uniform with variance 1 / (CIN KH KW), so the maps keep
 * their scale from layer to layer.
 *
 * Layout of a tensor of C maps (the input and every layer's output, on every runtime): the
 * rows of the maps are split in blocks of -b rows (the last one shorter); block b holds all C
 * channels of its rows, channel after channel, at element C W y0(b). So the rows of a block
 * of output channels [c0, c1) are one contiguous piece, computed by gemms into it and sent in
 * one message: out[c0:c1, block b] = sum over kernel rows kh of W_kh[c0:c1, :] x S_kh, where
 * S_kh is the block's input shifted by each kernel column and read from kernel row kh on
 * (conv_block: the im2col matrix without its KH-fold copy).
 *
 * Kernel groups (FSHMEM Fig. 6b generalised to P ranks): rank r computes output channels
 * [app_part_lo(KOUT, P, r), ...), block after block, and every block goes to every other rank
 * as soon as it is computed, so that each rank holds the whole layer (the concatenation), the
 * next layer's input. Block b of the next layer needs this layer's blocks up to conv_need(b).
 *
 * Verification: every rank runs the one-rank forward pass (conv_forward_local: the same block
 * compute over all KOUT channels) and compares every map it holds with it: relative to the
 * largest output, 1e-5 in single and 1e-12 in double precision (another split of the
 * channels may let OpenBLAS add in another order, so not bitwise), and checks each layer of that
 * pass against the convolution summed tap by tap (conv_check_t). GOPS = 2 KH KW CIN KOUT H W
 * per layer / time.
 */
#ifndef CONV_DATA_H
#define CONV_DATA_H

#include "../common/app_blas.h"
#include "../common/app_harness.h"

#include <stddef.h>
#include <stdint.h>

/** The command line of both programs, and the shape it names. */
typedef struct {
    const char *maps;      /**< -m n or HxW */
    const char *kernels;   /**< -k KOUTxKHxKWxCIN */
    const char *variant;   /**< -v */
    const char *precision; /**< -p single|double */
    int chunk;             /**< -b rows per block */
    int layers;            /**< -l chained layers */
    int heap_ranks;        /**< -H RANKS: print the symmetric heap a run needs (meshmem only) */
    int H, W, kout, kh, kw, cin;
    app_blas_prec_t prec;
    size_t esz; /**< bytes per element */
    int blocks; /**< blocks of rows */
    int kdim;   /**< CIN KH KW: the weights of one kernel */
} conv_opts_t;

/** One rank's share of the work: a group of output channels and its weights. */
typedef struct {
    int c0, nc; /**< output channels [c0, c0 + nc) */
    void **w;   /**< [layers]: kernels c0 .. c0+nc of each layer, [kh][kernel][ci][kw] */
    void *col;  /**< the shifted copies of one panel of a block (conv_shift_elems) */
} conv_group_t;

/** @brief Parse the command line (variants in @p variants, comma-separated, the first the
 * default); exits 2 on a bad option. */
void conv_parse(app_t *h, conv_opts_t *o, const char *synopsis, const char *variants, int argc,
                char **argv);

/** @return the first row of block @p b. */
static inline int conv_row0(const conv_opts_t *o, int b)
{
    return b * o->chunk;
}

/** @return the rows of block @p b. */
static inline int conv_rows(const conv_opts_t *o, int b)
{
    int left = o->H - b * o->chunk;
    return left < o->chunk ? left : o->chunk;
}

/** @return the elements of a tensor of @p C maps. */
static inline size_t conv_elems(const conv_opts_t *o, int C)
{
    return (size_t)C * o->H * o->W;
}

/** @return the offset (elements) of channels [c0, ...) of block @p b in a tensor of @p C maps:
 * the piece rank c0's group computes and sends. */
static inline size_t conv_piece(const conv_opts_t *o, int C, int b, int c0)
{
    return ((size_t)C * conv_row0(o, b) + (size_t)c0 * conv_rows(o, b)) * o->W;
}

/** @return the last block of a layer's output that block @p b of the next layer reads. */
int conv_need(const conv_opts_t *o, int b);

/** @brief The group of output channels of rank @p me of @p P and its weights (every layer),
 * with its buffer of shifted copies. */
void conv_group_setup(app_t *h, const conv_opts_t *o, int P, int me, conv_group_t *g);

/** @brief The layer-0 input: CIN maps in the block layout, @p o->esz bytes each. */
void *conv_input(app_t *h, const conv_opts_t *o);

/** @return the input channels of one panel of conv_block's gemms. */
int conv_panel(const conv_opts_t *o);

/** @return the elements of the shifted copies of @p channels input channels for block @p b:
 * KW copies of each channel's rows that the block's output rows read (rows + KH - 1). */
size_t conv_shift_elems(const conv_opts_t *o, int b, int channels);

/** @brief Block @p b of layer @p layer for group @p g into @p out's piece of the group's
 * channels (KOUT maps): per panel of input channels, the KW shifted copies of @p in's rows
 * (CIN maps, block layout), then one gemm per kernel row accumulating into the piece. */
void conv_block(const conv_opts_t *o, const conv_group_t *g, int layer, const void *in, void *out,
                int b);

/** A check of every layer of the one-rank forward pass against the convolution summed tap by
 * tap (at sampled points of large layers): the run (the seed of the weights, and the
 * allocator), the tolerance relative to the largest output, and where the failures are added
 * and the largest error is maxed. */
typedef struct {
    app_t *h;
    double tol;
    uint64_t *bad;
    double *err;
} conv_check_t;

/** @brief The one-rank forward pass of every layer from @p in (@p g: every channel), the last
 * layer's maps into @p out; @p tmp (the same size) holds the layers between. With @p check
 * (NULL when timed) each layer is also checked against the convolution summed tap by tap. */
void conv_forward_local(const conv_opts_t *o, const conv_group_t *g, const void *in, void *out,
                        void *tmp, const conv_check_t *check);

/** @brief After the timed runs (collective): -C damages the maps on the last rank, the verdict
 * of @p out (the last layer's KOUT maps, all of them) against the one-rank forward pass, and
 * the result line with GOPS. */
void conv_verify_report(app_t *h, const conv_opts_t *o, void *out);

/** @return the operations of the run: 2 KH KW CIN KOUT H W per layer. */
double conv_ops(const conv_opts_t *o);

/** @return the bytes of a tensor of KOUT maps (a layer's output). */
static inline size_t conv_out_bytes(const conv_opts_t *o)
{
    return conv_elems(o, o->kout) * o->esz;
}

#endif /* CONV_DATA_H */
