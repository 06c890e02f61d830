/**
 * @file sw_scheme.h
 * @brief The 2-D shallow-water equations as Swarztrauber's SHALLOW benchmark solves them
 * (Sadourny's energy-conserving finite differences on a staggered C grid, leapfrog time steps
 * with a Robert-Asselin filter, periodic in x and y): the scheme's row kernels on a block with
 * a halo, the initial state, and the serial run that verifies every distributed one.
 *
 * Runtime-independent: the meshmem program (shallow_main.c) and its OpenMPI twin
 * (shallow_mpi.c) call the very same kernels, so that a distributed run is bitwise identical
 * to the serial one: each value of a step is a function of its neighbours' values only, and
 * the same expression in the same order wherever a block boundary falls. The file is
 * compiled with -ffp-contract=off so that no compiler fuses a multiply and an add in one
 * place and not in another.
 *
 * Grid: M cells in x (index i, contiguous in memory), N in y (index j). A block owns
 * [i0, i0 + nx) x [j0, j0 + ny) and keeps a halo of SW_HALO cells on every side. One step:
 *   stage 1 on the block and one halo ring (i in [-1, nx], j in [-1, ny]):
 *     cu = .5 (p + p[i-1]) u,   cv = .5 (p + p[j-1]) v,
 *     z  = (4/dx (v - v[i-1]) - 4/dy (u - u[j-1])) / (p[i-1,j-1] + p[j-1] + p + p[i-1]),
 *     h  = p + .25 (u[i+1]^2 + u^2 + v[j+1]^2 + v^2)
 *   stage 2 on the block: unew, vnew, pnew from uold, vold, pold and stage 1 at (i..i+1, j..j+1)
 *   time filter: old = cur + alpha (new - 2 cur + old) (the first step: old = cur), cur = new.
 * Stage 1 on the halo ring reads the second ring, so one exchange of u, v, p with a halo of
 * width 2 per step suffices (no exchange of the stage-1 fields). pnew is in flux form and the
 * filter is linear, so the sum of p (the mass) is conserved up to round-off.
 */
#ifndef SW_SCHEME_H
#define SW_SCHEME_H

#include <stddef.h>

/** Halo width: the second ring feeds stage 1 on the first. */
enum { SW_HALO = 2 };

/** The scheme's constants for an M x N grid (SHALLOW's: dt 90 s, dx = dy = 100 km). */
typedef struct {
    int M, N;
    double dt, dx, dy, a, alpha;
    double fsdx, fsdy; /* 4 / dx, 4 / dy */
} sw_consts_t;

/** A block of the grid: the cells it owns and the layout of its arrays (halo included). */
typedef struct {
    int i0, nx, j0, ny; /* owned cells */
    int stride;         /* nx + 2 SW_HALO */
    size_t cells;       /* (nx + 2 SW_HALO) (ny + 2 SW_HALO): elements of each array */
} sw_block_t;

/** Index of cell (i, j) (block coordinates, -SW_HALO .. n + SW_HALO - 1) in a block's array. */
static inline size_t sw_at(const sw_block_t *b, int i, int j)
{
    return (size_t)(j + SW_HALO) * (size_t)b->stride + (size_t)(i + SW_HALO);
}

/** One time level: u, v, p, each an array of block->cells. */
typedef struct {
    double *u, *v, *p;
} sw_level_t;

/** The stage-1 fields (private to a rank), each an array of block->cells. */
typedef struct {
    double *cu, *cv, *z, *h;
} sw_work_t;

/** @brief The constants for an M x N grid. */
void sw_consts(sw_consts_t *c, int M, int N);

/** @brief The block [i0, i0 + nx) x [j0, j0 + ny) and its layout. */
void sw_block(sw_block_t *b, int i0, int nx, int j0, int ny);

/** @brief Fill @p lv's owned cells (and its halo too when @p halo) with the initial state,
 * from the global indices (periodic): the same values whoever computes them. */
void sw_initial(const sw_consts_t *c, const sw_block_t *b, sw_level_t lv, int halo);

/** @brief Stage 1 on row @p j (-1 .. ny) of the block, i from -1 to nx. Reads @p cur at
 * rows j - 1 .. j + 1, which must hold the current values (halo included). */
void sw_stage1_row(const sw_consts_t *c, const sw_block_t *b, sw_level_t cur, sw_work_t w, int j);

/**
 * @brief Stage 2 and the time filter on owned row @p j: writes @p nw's row (the next level),
 * and updates @p old's row to the filtered current level (its copy when @p first).
 * Needs stage 1 on rows j .. j + 1 and on j - 1. @p tdt: dt on the first step, 2 dt after.
 */
void sw_stage2_row(const sw_consts_t *c, const sw_block_t *b, sw_level_t cur, sw_level_t old,
                   sw_level_t nw, sw_work_t w, int j, double tdt, int first);

/** Floating-point operations per cell and step (stage 1 on the halo ring not counted): 65,
 * SHALLOW's count. */
enum { SW_FLOPS_PER_CELL = 65 };

/** Memory traffic per cell and step, in doubles: stage 1 reads u, v, p and writes cu, cv, z,
 * h; stage 2 reads those four, the current and the old level, and writes the next and the old
 * level. */
enum { SW_READS_PER_CELL = 13, SW_WRITES_PER_CELL = 10 };

/** @brief Copy the periodic images into a whole-grid block's halo (the serial run's wrap). */
void sw_wrap(const sw_block_t *b, sw_level_t lv);

/** @return the sum of p over the owned cells, row by row (the same order on every runtime). */
double sw_mass(const sw_block_t *b, const double *p);

/** The state of one rank (or of the serial run): levels, stage-1 fields, the step counter. */
typedef struct {
    sw_consts_t c;
    sw_block_t b;
    sw_level_t lv[3]; /* current, next, spare: level k of step s is lv[(s + k) % 3] */
    sw_level_t old;   /* filtered previous level (owned cells only used) */
    sw_work_t w;
    unsigned char *s1done; /* stage-1 row done this step: ny + 2 flags (rows -1 .. ny) */
    long step;             /* steps taken since the initial state */
} sw_state_t;

/** @return the current level of @p s. */
static inline sw_level_t sw_cur(const sw_state_t *s)
{
    return s->lv[s->step % 3];
}

/** @return the level the next step writes. */
static inline sw_level_t sw_next(const sw_state_t *s)
{
    return s->lv[(s->step + 1) % 3];
}

/**
 * @brief Set up @p s for block @p b of an M x N grid. The three levels are the caller's
 * (symmetric memory where peers write into them), each array of b->cells elements; the rest is
 * allocated here. @return 0, or -1 when out of memory.
 */
int sw_state_init(sw_state_t *s, int M, int N, const sw_block_t *b, const sw_level_t lv[3]);

/** @brief Back to the initial state: every level's owned cells (their halos too when
 * @p halos) and old, step 0. */
void sw_state_reset(sw_state_t *s, int halos);

/** @brief Free what sw_state_init allocated. */
void sw_state_free(sw_state_t *s);

/** Called as each boundary row of the next level is final (the streaming exchange). */
typedef void (*sw_row_fn)(void *ctx, int j);

/** @brief The boundary rows of block @p b, the first SW_HALO and the last SW_HALO (each once
 * when they overlap), in the order sw_step computes them. @return how many (at most
 * 2 SW_HALO). */
int sw_boundary_rows(const sw_block_t *b, int *rows);

/**
 * @brief One step of @p s whose current level's halo is complete: every owned row of the next
 * level; when @p row is given, the boundary rows first, each announced to @p row as soon as it
 * is final (then the inner rows). Then the step counter moves on.
 */
void sw_step(sw_state_t *s, sw_row_fn row, void *ctx);

/**
 * @brief The serial run: @p steps steps of the whole M x N grid from the initial state, its
 * halo wrapped locally before each step. @p out receives the final u, v, p (owned cells of a
 * whole-grid block, sw_block(0, M, 0, N)). @return 0, or -1 when out of memory.
 */
int sw_serial(int M, int N, long steps, sw_level_t out);

#endif /* SW_SCHEME_H */
