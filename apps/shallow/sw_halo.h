/**
 * @file sw_halo.h
 * @brief The decomposition of the shallow-water grid over the ranks and the plan of its halo
 * exchange, runtime-independent (the meshmem program and its OpenMPI twin use the same plan).
 *
 * Ranks form a px x py grid (rank = cy * px + cx), periodic in both directions; rank (cx, cy)
 * owns the block of x cells [M cx / px, M (cx + 1) / px) and y cells likewise: block sizes
 * differ by at most one. 1-D decomposition: px = 1 (blocks of whole rows). Each block needs a
 * halo of SW_HALO cells from its 8 neighbours: toward direction d (dx, dy in -1, 0, 1) it sends
 * its strip of SW_HALO columns (dx != 0) or all its columns (dx = 0), and likewise for rows;
 * the strip lands in the neighbour's halo on the opposite side. A neighbour that is this rank
 * itself (a grid of one column or row) is a local copy.
 *
 * Pieces bound for the same peer travel together: one message per peer and step (buffered,
 * MPI), or one per peer and sender row that holds any of them (streaming). Peers are listed
 * in the order of first appearance over the directions, so that both sides of a pair agree on
 * the order of the pieces (the sender's directions, ascending) and each receiver keeps one
 * slot per peer.
 */
#ifndef SW_HALO_H
#define SW_HALO_H

#include "sw_scheme.h"

#include <stddef.h>

/** Directions d = (dy + 1) * 3 + (dx + 1), 0..8; 4 (0, 0) is the block itself. */
enum { SW_DIRS = 9, SW_SELF_DIR = 4, SW_MAX_PEERS = 8 };

/** The rank grid over an M x N grid. */
typedef struct {
    int M, N, P, px, py;
} sw_grid_t;

/** One strip: sender cells [xs, xs + w) x [ys, ys + h) (sender's block coordinates) into the
 * receiver's halo at [xr, xr + w) x [yr, yr + h) (receiver's coordinates). */
typedef struct {
    int d, xs, ys, w, h, xr, yr;
} sw_piece_t;

/** @return whether @p p is a side strip (dy = 0: every row of the block, SW_HALO wide). */
static inline int sw_piece_is_side(const sw_piece_t *p)
{
    return p->d / 3 == 1;
}

/** What moves between this rank and one peer in one direction (a send or a receive). */
typedef struct {
    int peer; /**< world rank */
    int slot; /**< send: this rank's slot at the peer; receive: the peer's here */
    int npieces;
    sw_piece_t piece[SW_DIRS];
    size_t count;                /**< doubles in the message: u, v, p of every piece */
    int rows;                    /**< streaming messages per step: the sender's boundary rows
                                   holding a top, bottom or corner piece, and one for the side
                                   pieces */
    sw_block_t sender, receiver; /**< the two blocks' layouts */
} sw_link_t;

/** One rank's exchange plan. */
typedef struct {
    sw_grid_t g;
    int me;
    sw_block_t b;                                     /**< this rank's block */
    int npeers;                                       /**< peers other than this rank */
    sw_link_t send[SW_MAX_PEERS], recv[SW_MAX_PEERS]; /**< the same peer at the same index */
    sw_link_t self;      /**< pieces this rank sends itself (local copies) */
    size_t slot_doubles; /**< a receive slot: the largest message of any pair */
    size_t max_cells;    /**< the largest block's array (every rank allocates it) */
} sw_halo_t;

/** @brief The grid for @p P ranks: @p px columns when > 0, else 1 (1-D) when @p twod is 0 or
 * the most square px <= py. */
void sw_grid(sw_grid_t *g, int M, int N, int P, int px, int twod);

/** @brief Rank @p r's block. */
void sw_grid_block(const sw_grid_t *g, int r, sw_block_t *b);

/** @return the smallest block's columns (x) and rows (y) in *@p nx, *@p ny. */
void sw_grid_min_block(const sw_grid_t *g, int *nx, int *ny);

/** @brief Plan rank @p me's exchange on grid @p g. */
void sw_halo_plan(sw_halo_t *h, const sw_grid_t *g, int me);

/** Which pieces of a link a message carries. */
typedef enum {
    SW_ALL_PIECES,  /**< every piece (the buffered exchange, MPI) */
    SW_SIDE_PIECES, /**< the side strips only (streaming: the rows travel on their own) */
} sw_pieces_t;

/** @brief Pack @p l's pieces @p which of level @p lv (this rank the sender) into @p buf.
 * @return the doubles packed. */
size_t sw_pack(const sw_link_t *l, sw_pieces_t which, sw_level_t lv, double *buf);

/** @brief Unpack @p buf (the peer's message of @p l, pieces @p which) into level @p lv's halo
 * here. */
void sw_unpack(const sw_link_t *l, sw_pieces_t which, sw_level_t lv, const double *buf);

/** @brief The pieces this rank sends itself: from its strips straight into its halo. */
void sw_copy_self(const sw_halo_t *h, sw_level_t lv);

/** @brief Where row @p j of the sender (@p l, this rank) lands at the peer: for each top,
 * bottom or corner piece holding the row (not the side strips), its cell offset here (@p from)
 * and in the peer's arrays (@p to), and its width. @return how many (at most 3). */
int sw_row_segments(const sw_link_t *l, int j, size_t *from, size_t *to, int *w);

/**
 * @brief Compare level @p lv's halo with the initial state (periodic): after an exchange of
 * levels that hold the initial state, every halo cell must equal it bitwise.
 * @return the number of cells that differ.
 */
size_t sw_check_halo_initial(const sw_halo_t *h, const sw_consts_t *c, sw_level_t lv);

#endif /* SW_HALO_H */
