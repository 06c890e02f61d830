/**
 * @file meshmem.h
 * @brief meshmem native API.
 *
 * meshmem gives every rank a symmetric heap that every other rank of the node maps directly
 * (OPTWEB's dedicated per-peer communication memory). One-sided operations are loads and stores
 * into those mappings; collectives complete in one step over the full mesh. The OpenSHMEM 1.5
 * API (shmem.h) is a thin layer over these calls.
 *
 * Conventions:
 *  - Functions that can fail return a meshmem_status_t: 0 (MESHMEM_OK) on success, negative on
 *    error; meshmem_status_string() names it.
 *  - "Symmetric address": an address inside the symmetric heap or inside the executable's
 *    global/static data. Such an address names the same object on every rank.
 *  - Misuse (bad rank, non-symmetric address, ...) in a call that cannot return a status ends the
 *    job with one line naming the call and the offending argument.
 */
#ifndef MESHMEM_H
#define MESHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what this header declares is libmeshmem's API: exported, while everything else in the
 * library is hidden (built with -fvisibility=hidden) */
#pragma GCC visibility push(default)

#define MESHMEM_VERSION_MAJOR 0
#define MESHMEM_VERSION_MINOR 1

/* ------------------------------------------------------------------------------------------ */
/* Status                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/** One status type for the whole library. */
typedef enum {
    MESHMEM_OK = 0,                 /**< success */
    MESHMEM_INPROGRESS = 1,         /**< operation started, not complete */
    MESHMEM_ERR_ARG = -1,           /**< invalid argument */
    MESHMEM_ERR_NOMEM = -2,         /**< out of (symmetric) memory */
    MESHMEM_ERR_SYSTEM = -3,        /**< a system call failed (errno logged) */
    MESHMEM_ERR_STATE = -4,         /**< call not allowed in the current state */
    MESHMEM_ERR_NOT_SYMMETRIC = -5, /**< address is not symmetric */
    MESHMEM_ERR_RANK = -6,          /**< rank out of range */
    MESHMEM_ERR_TEAM = -7,          /**< invalid team */
    MESHMEM_ERR_UNSUPPORTED = -8,   /**< operation not supported for these arguments */
    MESHMEM_ERR_ABORTED = -9,       /**< the job is being torn down */
} meshmem_status_t;

/** @return a constant string describing @p status. */
const char *meshmem_status_string(meshmem_status_t status);

/* ------------------------------------------------------------------------------------------ */
/* Setup and query                                                                             */
/* ------------------------------------------------------------------------------------------ */

/** Thread levels, as OpenSHMEM. */
enum {
    MESHMEM_THREAD_SINGLE = 0,
    MESHMEM_THREAD_FUNNELED = 1,
    MESHMEM_THREAD_SERIALIZED = 2,
    MESHMEM_THREAD_MULTIPLE = 3,
};

/**
 * @brief Initialise the runtime (collective over all ranks of the job).
 *
 * Maps every rank's symmetric heap and static data, so that each rank can load and store into
 * every peer's. Started outside meshrun, the program runs as a single rank.
 * A second call is a no-op.
 * @param [in]  requested  thread level requested (MESHMEM_THREAD_*)
 * @param [out] provided   thread level provided (may be NULL); always MESHMEM_THREAD_MULTIPLE
 * @return MESHMEM_OK, or an error after which the library cannot be used.
 */
meshmem_status_t meshmem_init(int requested, int *provided);

/** @brief Finalise (collective): a barrier, then every mapping released. Idempotent. */
void meshmem_finalize(void);

/** @return non-zero between meshmem_init and meshmem_finalize. */
int meshmem_initialized(void);

/** @brief End the whole job with @p status; never returns. Other ranks are stopped. */
void meshmem_global_exit(int status) __attribute__((noreturn));

/**
 * @brief Name the calls this thread makes from now on @p name in the runtime's error lines (a
 * binding's own name, e.g. "meshmem.alltoall" for Python), until called with NULL. @p name must
 * stay valid until then.
 */
void meshmem_name_calls(const char *name);

/** @return this rank's number in the world, 0..nranks-1. */
int meshmem_rank(void);

/** @return the number of ranks in the world. */
int meshmem_nranks(void);

/** @return the thread level provided by meshmem_init. */
int meshmem_query_thread(void);

/** @return the job's clock in seconds from an arbitrary origin: CLOCK_MONOTONIC, or on the
 * simulated engine (meshrun --rtl) the simulated time, the engine's cycles at its clock, the
 * same on every run of a program (docs/rtl-transport.md). */
double meshmem_wtime(void);

/* ------------------------------------------------------------------------------------------ */
/* Symmetric memory                                                                            */
/* ------------------------------------------------------------------------------------------ */

/**
 * @brief Allocate @p size bytes from the symmetric heap (collective, ends with a barrier).
 * Every rank must pass the same size; a mismatch ends the job with an error naming the sizes.
 * @return a symmetric address, or NULL for size 0 or when the heap is exhausted.
 */
void *meshmem_malloc(size_t size);

/** @brief Like meshmem_malloc with @p alignment (a power of two). */
void *meshmem_align(size_t alignment, size_t size);

/** @brief Like meshmem_malloc, memory zeroed. */
void *meshmem_calloc(size_t count, size_t size);

/** @brief Resize a symmetric block (collective); contents kept up to the smaller size. */
void *meshmem_realloc(void *ptr, size_t size);

/** @brief Free a symmetric block (collective, starts with a barrier). NULL is a no-op. */
void meshmem_free(void *ptr);

/**
 * @brief Address of a peer's copy of a symmetric object, directly loadable and storable.
 * @return the mapped address, or NULL when @p addr is not symmetric or @p rank is out of range.
 */
void *meshmem_ptr(const void *addr, int rank);

/** @return non-zero when @p addr is symmetric and remotely accessible on @p rank. */
int meshmem_addr_accessible(const void *addr, int rank);

/** @return non-zero when @p rank is reachable (mapped) from this rank. */
int meshmem_rank_accessible(int rank);

/** @brief Bytes of the symmetric heap: total per rank, and still free on this rank. */
void meshmem_heap_info(size_t *total, size_t *free_bytes);

/* ------------------------------------------------------------------------------------------ */
/* One-sided operations                                                                        */
/* ------------------------------------------------------------------------------------------ */

/**
 * @brief Copy @p nbytes from local @p src into @p dest (symmetric) on @p rank.
 * @note Complete on return on a mapped peer: the data is in the peer's memory. Ordering with
 *       later operations to other ranks needs meshmem_fence/meshmem_quiet.
 */
void meshmem_put(void *dest, const void *src, size_t nbytes, int rank);

/** @brief Copy @p nbytes from @p src (symmetric) on @p rank into local @p dest. */
void meshmem_get(void *dest, const void *src, size_t nbytes, int rank);

/**
 * @brief Strided put: element i (of @p elem_size bytes) of src at src + i*sst*elem_size goes to
 * dest + i*dst*elem_size on @p rank, for i < @p nelems.
 */
void meshmem_iput(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
                  size_t nelems, int rank);

/** @brief Strided get, the mirror of meshmem_iput. */
void meshmem_iget(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
                  size_t nelems, int rank);

/** Signal update operations. */
enum {
    MESHMEM_SIGNAL_SET = 0,
    MESHMEM_SIGNAL_ADD = 1,
};

/**
 * @brief Put @p nbytes, then update the 64-bit @p sig_addr on @p rank with @p signal
 * (MESHMEM_SIGNAL_SET or _ADD). The signal is visible only after the data.
 */
void meshmem_put_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                        uint64_t signal, int sig_op, int rank);

/**
 * @brief The same put with signal, started: it may return before @p src is read, which must
 * then stay unchanged until meshmem_quiet (or a barrier). To a rank of this host the copy is
 * done on return; to another host the transfer goes on while the caller computes.
 */
void meshmem_put_signal_nbi(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                            uint64_t signal, int sig_op, int rank);

/** @brief Order: puts issued before are delivered before puts issued after, per rank. */
void meshmem_fence(void);

/** @brief Complete: every put, AMO and signal issued before is visible at its target. */
void meshmem_quiet(void);

/* ------------------------------------------------------------------------------------------ */
/* Atomics                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Element types for atomics, waits and reductions. */
typedef enum {
    MESHMEM_INT8,
    MESHMEM_INT16,
    MESHMEM_INT32,
    MESHMEM_INT64,
    MESHMEM_UINT8,
    MESHMEM_UINT16,
    MESHMEM_UINT32,
    MESHMEM_UINT64,
    MESHMEM_FLOAT32,
    MESHMEM_FLOAT64,
    MESHMEM_FLOAT16,
    MESHMEM_BFLOAT16,
    MESHMEM_LONGDOUBLE, /**< long double: sum, prod, min, max */
    MESHMEM_COMPLEXF,
    MESHMEM_COMPLEXD, /**< float/double _Complex: sum, prod */
    MESHMEM_DTYPE_COUNT
} meshmem_dtype_t;

/** @return the size in bytes of one @p dtype element, 0 for an invalid type. */
size_t meshmem_dtype_size(meshmem_dtype_t dtype);

/** Atomic memory operations. */
typedef enum {
    MESHMEM_AMO_FETCH,
    MESHMEM_AMO_SET,
    MESHMEM_AMO_SWAP,
    MESHMEM_AMO_CSWAP,
    MESHMEM_AMO_ADD,
    MESHMEM_AMO_AND,
    MESHMEM_AMO_OR,
    MESHMEM_AMO_XOR,
} meshmem_amo_op_t;

/**
 * @brief One atomic operation on the @p dtype element at symmetric @p dest on @p rank.
 * @param [in]  value  operand (for CSWAP: the new value)
 * @param [in]  cond   CSWAP's comparand, otherwise ignored (may be NULL)
 * @param [out] fetched the prior value (may be NULL for non-fetching use)
 * @return MESHMEM_OK, MESHMEM_ERR_ARG for an op the type does not support (bitwise on floats),
 *         MESHMEM_ERR_RANK or MESHMEM_ERR_NOT_SYMMETRIC.
 */
meshmem_status_t meshmem_atomic(meshmem_amo_op_t op, meshmem_dtype_t dtype, void *dest,
                                const void *value, const void *cond, void *fetched, int rank);

/* ------------------------------------------------------------------------------------------ */
/* Waiting                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Comparisons for waits, as OpenSHMEM's SHMEM_CMP_*. */
typedef enum {
    MESHMEM_CMP_EQ = 1,
    MESHMEM_CMP_NE,
    MESHMEM_CMP_GT,
    MESHMEM_CMP_LE,
    MESHMEM_CMP_LT,
    MESHMEM_CMP_GE,
} meshmem_cmp_t;

/**
 * @brief Wait until local @p ivar (of @p dtype) compares @p cmp to @p value.
 * Spins briefly, then yields, then sleeps until a peer writes to this rank.
 * @return MESHMEM_OK, or MESHMEM_ERR_ARG for a bad comparison or type.
 */
meshmem_status_t meshmem_wait_until(void *ivar, meshmem_dtype_t dtype, meshmem_cmp_t cmp,
                                    const void *value);

/** @return 1 if local @p ivar compares @p cmp to @p value now, else 0; negative on bad args. */
int meshmem_test(const void *ivar, meshmem_dtype_t dtype, meshmem_cmp_t cmp, const void *value);

/* ------------------------------------------------------------------------------------------ */
/* Teams                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** Opaque team handle. */
typedef struct meshmem_team *meshmem_team_t;

/** All ranks of the job. */
extern meshmem_team_t MESHMEM_TEAM_WORLD;
/** The ranks that share memory with this one (all ranks, on one node). */
extern meshmem_team_t MESHMEM_TEAM_SHARED;
/** The invalid team. */
#define MESHMEM_TEAM_INVALID ((meshmem_team_t)0)

/** @return this rank's number in @p team, or -1 if not a member / invalid team. */
int meshmem_team_rank(meshmem_team_t team);

/** @return the number of ranks in @p team, or -1 for an invalid team. */
int meshmem_team_size(meshmem_team_t team);

/**
 * @brief Translate rank @p src_rank of @p src into its number in @p dst.
 * @return the rank in @p dst, or -1 if not a member of it.
 */
int meshmem_team_translate(meshmem_team_t src, int src_rank, meshmem_team_t dst);

/**
 * @brief Split @p parent (collective over it) into the team of parent ranks
 * start, start+stride, ... (size of them). Non-members get MESHMEM_TEAM_INVALID.
 * @return MESHMEM_OK or an error (bad arguments, no team slot left).
 */
meshmem_status_t meshmem_team_split_strided(meshmem_team_t parent, int start, int stride, int size,
                                            meshmem_team_t *new_team);

/**
 * @brief Split @p parent (collective) into a 2-D grid with @p xrange columns: x-axis teams
 * (rows) and y-axis teams (columns).
 */
meshmem_status_t meshmem_team_split_2d(meshmem_team_t parent, int xrange,
                                       meshmem_team_t *xaxis_team, meshmem_team_t *yaxis_team);

/** @brief Destroy a team (collective over it). World and shared cannot be destroyed. */
void meshmem_team_destroy(meshmem_team_t team);

/** @return the world rank of member @p team_rank of @p team, or -1. */
int meshmem_team_world_rank(meshmem_team_t team, int team_rank);

/**
 * @brief Choose the topology @p team's collectives run on (collective over @p team).
 *
 * @p kx = @p ky = 0: the full mesh (the default: every member writes every other directly).
 * @p kx * @p ky == team size: a 2-D generalized hypercube (GHC, r = 2; OPTWEB §2.D): member r
 * is (x, y) = (r % kx, r / kx), linked only to the members of its row (same y) and of its
 * column (same x). Collectives then run per dimension, each phase one step over a row or a
 * column (along x, then along y), with results bit-for-bit equal to the full mesh's. The row
 * and column teams are built (two team slots) at the first collective after the call; -1, -1
 * picks the most square grid (meshmem_topology_square). MESHMEM_TOPOLOGY sets the world
 * team's topology at init. Algorithm hints RING and RECDBL still run over the whole team.
 * @return MESHMEM_OK; MESHMEM_ERR_ARG (with a line naming the shape) when kx * ky is not the
 * team size; MESHMEM_ERR_TEAM for an invalid team.
 */
meshmem_status_t meshmem_team_set_topology(meshmem_team_t team, int kx, int ky);

/**
 * @brief The topology of @p team: *kx = *ky = 0 for the full mesh, else the GHC grid.
 * @return MESHMEM_OK, or MESHMEM_ERR_TEAM for an invalid team.
 */
meshmem_status_t meshmem_team_get_topology(meshmem_team_t team, int *kx, int *ky);

/**
 * @brief The most square GHC grid of @p n ranks: the largest ky <= sqrt(n) dividing n, and
 * kx = n / ky (so kx >= ky; a prime n gives n x 1). Nothing for n < 1.
 */
void meshmem_topology_square(int n, int *kx, int *ky);

/* ------------------------------------------------------------------------------------------ */
/* Collectives on symmetric buffers                                                            */
/* ------------------------------------------------------------------------------------------ */

/** Reduction operators. */
typedef enum {
    MESHMEM_OP_SUM,
    MESHMEM_OP_PROD,
    MESHMEM_OP_MIN,
    MESHMEM_OP_MAX,
    MESHMEM_OP_AND,
    MESHMEM_OP_OR,
    MESHMEM_OP_XOR,
    MESHMEM_OP_COUNT
} meshmem_op_t;

/** @brief Barrier over @p team, also completing this rank's outstanding operations. */
meshmem_status_t meshmem_barrier(meshmem_team_t team);

/** @brief Synchronise @p team without completing outstanding operations. */
meshmem_status_t meshmem_team_sync(meshmem_team_t team);

/**
 * @brief Broadcast @p nbytes from @p src on team rank @p root to @p dest on every member
 * (the root's dest included, as OpenSHMEM 1.5). @p dest symmetric; @p src local.
 */
meshmem_status_t meshmem_broadcast(meshmem_team_t team, void *dest, const void *src, size_t nbytes,
                                   int root);

/**
 * @brief Concatenate each member's @p nbytes (which may differ per member) into @p dest on every
 * member, in team-rank order. @p dest symmetric.
 */
meshmem_status_t meshmem_collect(meshmem_team_t team, void *dest, const void *src, size_t nbytes);

/** @brief Like meshmem_collect with the same @p nbytes on every member (all-gather). */
meshmem_status_t meshmem_fcollect(meshmem_team_t team, void *dest, const void *src, size_t nbytes);

/**
 * @brief All-to-all: block j (of @p nbytes) of @p src goes to block me of @p dest on member j.
 * @p dest symmetric.
 */
meshmem_status_t meshmem_alltoall(meshmem_team_t team, void *dest, const void *src, size_t nbytes);

/**
 * @brief Strided all-to-all (OpenSHMEM alltoalls): elements of @p elem_size bytes, @p nelems per
 * pair, @p dst / @p sst strides in elements.
 */
meshmem_status_t meshmem_alltoalls(meshmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                                   ptrdiff_t sst, size_t elem_size, size_t nelems);

/**
 * @brief All-reduce @p count elements of @p dtype with @p op into @p dest on every member.
 * Results are bitwise identical on every member. In place (dest == src) is allowed.
 * @return MESHMEM_ERR_ARG for an op the type does not support.
 */
meshmem_status_t meshmem_allreduce(meshmem_team_t team, void *dest, const void *src, size_t count,
                                   meshmem_dtype_t dtype, meshmem_op_t op);

/* ------------------------------------------------------------------------------------------ */
/* Modelling (meshrun --fabric: running the program on a modelled fabric)                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * @brief Annotate the computation done since the previous communication call: it read
 * @p bytes_read and wrote @p bytes_written bytes of memory and did @p flops operations.
 *
 * Under `meshrun --fabric F` the replay charges such an interval with the fabric's [compute]
 * rates (the slower of memory and arithmetic) instead of its measured wall time; several
 * annotations in one interval add up. Without --fabric the call costs one branch.
 */
void meshmem_model_compute(uint64_t bytes_read, uint64_t bytes_written, uint64_t flops);

/**
 * @brief Start the phase @p name (one word; other characters become '_'): the replay reports
 * the virtual time of each phase. The phase lasts until the next call. Without --fabric the
 * call costs one branch; a NULL or empty @p name ends the job with an error naming the call.
 */
void meshmem_model_phase(const char *name);

/**
 * @brief Charge a transfer made by direct loads/stores through meshmem_ptr: @p bytes_to_pe
 * bytes this rank wrote into world rank @p pe's memory and @p bytes_from_pe bytes it read
 * from it (either may be 0).
 *
 * Such loads and stores are not calls, so without this the replay sees them only as the
 * annotated memory traffic of the pass. Under `meshrun --fabric F` the replay charges them as
 * a put of @p bytes_to_pe into @p pe and a get of @p bytes_from_pe from it; a write counts as
 * a store into @p pe that its later waits depend on, so call this before the stores (or at
 * least before the traced call that tells @p pe they are done). It does not end the interval
 * of meshmem_model_compute annotations. Without --fabric the call costs one branch; a @p pe
 * outside the job ends the job with an error naming the call when tracing.
 */
void meshmem_model_transfer(int pe, uint64_t bytes_to_pe, uint64_t bytes_from_pe);

/* ------------------------------------------------------------------------------------------ */
/* Configuration                                                                               */
/* ------------------------------------------------------------------------------------------ */

/** @brief Print every tunable (name, value in force, default, documentation) to @p stream. */
void meshmem_config_print(void *stream);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* MESHMEM_H */
