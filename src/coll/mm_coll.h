/**
 * @file mm_coll.h
 * @brief Internals shared by the MPI-like collectives (one file per collective, as xhc).
 *
 * Prototypes are grouped by the file that defines them.
 */
#ifndef MM_COLL_H
#define MM_COLL_H

#include "meshmem_coll.h"
#include "mm_msg.h"
#include "mm_reduce.h"

/* ---- mm_coll_api.c: argument checks shared by every call ---- */

/** Validated arguments of one call. */
typedef struct {
    const char *call;
    struct meshmem_team *t;
    size_t esize; /* bytes per element */
    meshmem_algo_t algo;
} mm_coll_args_t;

/**
 * @brief Check that the library is initialized and @p team is a team this rank belongs to;
 * fill @p a's call and team (the whole check of a call without type or algorithm: barrier).
 * @return MESHMEM_OK, or an error after logging which argument is wrong.
 */
meshmem_status_t mm_coll_check_team(mm_coll_args_t *a, const char *call, meshmem_team_t team);

/**
 * @brief Check team (mm_coll_check_team), type and algorithm of @p call; fill @p a.
 * @return MESHMEM_OK, or an error after logging which argument is wrong.
 */
meshmem_status_t mm_coll_check(mm_coll_args_t *a, const char *call, meshmem_team_t team,
                               meshmem_dtype_t dtype, meshmem_algo_t algo);

/** @brief Check that @p root is a member of the team. */
meshmem_status_t mm_coll_check_root(const mm_coll_args_t *a, int root);

/** @brief Check that the reduction @p op is defined on @p dtype. */
meshmem_status_t mm_coll_check_op(const mm_coll_args_t *a, meshmem_dtype_t dtype, meshmem_op_t op);

/** @brief Unless @p a->algo is AUTO or @p only, log that it is not available for the call.
 * @return MESHMEM_OK or the error of mm_coll_no_algo. */
meshmem_status_t mm_coll_check_algo(const mm_coll_args_t *a, meshmem_algo_t only);

/** @brief The checks of a rooted call with one algorithm besides AUTO: mm_coll_check, then the
 * root, then the algorithm. */
meshmem_status_t mm_coll_check_rooted(mm_coll_args_t *a, const char *call, meshmem_team_t team,
                                      meshmem_dtype_t dtype, meshmem_algo_t algo, int root,
                                      meshmem_algo_t only);

/** @brief End the job: @p count elements overflow a size_t across the team (mm_coll_bytes). */
void mm_coll_bytes_overflow(const mm_coll_args_t *a, size_t count) __attribute__((noreturn));

/** @brief count * esize, ending the job when count * esize * team size overflows. Inline, by
 * overflow-checked multiplications rather than divisions: it is on every call's path, where a
 * 64-bit division costs a sizeable part of a one-rank 8-byte call (docs/results-coll.md). */
static inline size_t mm_coll_bytes(const mm_coll_args_t *a, size_t count)
{
    size_t len, all;
    if (MM_UNLIKELY(__builtin_mul_overflow(count, a->esize, &len) ||
                    __builtin_mul_overflow(len, (size_t)(a->t->size ? a->t->size : 1), &all)))
        mm_coll_bytes_overflow(a, count);
    return len;
}

/** @return the collectives of the transport that reaches every member of @p a's team, when
 * it has its own (mm_tp_coll.h) and the hint lets it (AUTO or ONESTEP: an algorithm named
 * otherwise runs as the runtime has it); else NULL. On shared memory and UCX: one load and a
 * branch not taken. */
static inline const mm_tp_coll_ops_t *mm_coll_offload(const mm_coll_args_t *a)
{
    const mm_tp_coll_ops_t *off = a->t->offload;
    if (MM_LIKELY(off == NULL))
        return NULL;
    return a->algo == MESHMEM_ALGO_AUTO || a->algo == MESHMEM_ALGO_ONESTEP ? off : NULL;
}

/**
 * @brief Hand @p a's call to the transport's collective @p fn (mm_coll_offload) when there is
 * one and it takes the call: then this returns the entry's status from the calling function.
 * The arguments after @p fn are the entry's, after the team.
 */
#define MM_COLL_TRY_OFFLOAD(a, fn, ...)                                                            \
    do {                                                                                           \
        const mm_tp_coll_ops_t *off_ = mm_coll_offload(a);                                         \
        if (MM_UNLIKELY(off_ != NULL) && off_->fn != NULL) {                                       \
            meshmem_status_t off_st_ = off_->fn(&(a)->t->group, __VA_ARGS__);                      \
            if (off_st_ != MESHMEM_ERR_UNSUPPORTED)                                                \
                return off_st_;                                                                    \
        }                                                                                          \
    } while (0)

/** @brief Log that @p algo is not one of @p a->call's algorithms. @return the error. */
meshmem_status_t mm_coll_no_algo(const mm_coll_args_t *a);

/**
 * @brief Make @p len bytes of @p buf readable by peers for a rendezvous (staging when needed).
 * @return the address peers read (buf or the team's staging buffer), and its descriptor;
 * NULL when the buffer is private and larger than the staging capacity.
 */
const void *mm_coll_expose(const mm_coll_args_t *a, const void *buf, size_t len, mm_desc_t *desc);

/* ---- mm_coll_bcast.c ---- */

/**
 * @brief The root's part of a one-step broadcast or scatter round, collective @p seq of
 * @p a's team, this member the root: blk(r), @p len bytes at @p buf + @p stride * r (stride 0:
 * the same buffer for every member), to every other member, by descriptor above the eager size
 * (a private buffer staged first; ends the job when it does not fit staging); its own block
 * into @p recv (NULL: none) while the members copy; returns when every member has its block.
 */
void mm_root_send(const mm_coll_args_t *a, uint64_t seq, const char *buf, size_t stride, size_t len,
                  char *recv);

/** @return @p d moved on by @p off bytes. */
static inline mm_desc_t mm_desc_add(mm_desc_t d, size_t off)
{
    d.offset += off;
    return d;
}

/** @return the first element of member @p r's slice when @p count is cut into @p n slices. */
static inline size_t mm_slice_lo(size_t count, int n, int r)
{
    size_t q = count / (size_t)n, rem = count % (size_t)n;
    return (size_t)r * q + ((size_t)r < rem ? (size_t)r : rem);
}

/* ---- mm_coll_alltoall.c ---- */

/**
 * @brief One step: block j (slen[j] bytes at sbuf + soff[j]) to member j, received at
 * rbuf + roff[j] (at most rcap[j] bytes; the size received goes to rlen[j] if rlen is not
 * NULL). @p stage_all stages every rendezvous block first (in-place calls).
 */
void mm_coll_a2a_step(const mm_coll_args_t *a, const char *sbuf, const size_t *soff,
                      const size_t *slen, char *rbuf, const size_t *roff, const size_t *rcap,
                      size_t *rlen, bool stage_all);

/* ---- mm_coll_line.c: calls whose every message fits in a flag line ---- */

/** @return true when the one-step form of @p a's call may use the line path for @p len bytes
 * per message (the decision depends only on arguments every member passes equal). */
static inline bool mm_line_fits(const mm_coll_args_t *a, size_t len)
{
    return len <= MM_MSG_INLINE &&
           (a->algo == MESHMEM_ALGO_AUTO || a->algo == MESHMEM_ALGO_ONESTEP);
}

/** @brief All-to-all of @p len bytes per block (block j at j * len; rbuf may be sbuf). */
void mm_line_alltoall(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len);

/** @brief All-reduce of @p count elements (recvbuf may be sendbuf), reduced in member order. */
void mm_line_allreduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf, size_t count,
                       meshmem_dtype_t dtype, meshmem_op_t op);

/** @brief Broadcast of @p len bytes from team rank @p root. */
void mm_line_bcast(const mm_coll_args_t *a, void *buf, size_t len, int root);

/** @brief Scatter of @p len bytes per member from @p root's sbuf (block j at j * len). */
void mm_line_scatter(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len, int root);

/** @brief Gather of @p len bytes per member into @p root's rbuf (block j at j * len); the root's
 * sbuf NULL: its block is in place already. */
void mm_line_gather(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len, int root);

/** @brief All-gather of the @p len bytes at @p blk (may be rbuf + me * len) into rbuf. */
void mm_line_allgather(const mm_coll_args_t *a, const char *blk, char *rbuf, size_t len);

/** @brief Reduce of @p count elements to @p root (recvbuf may be sendbuf), in member order:
 * the same bits as mm_line_allreduce. */
void mm_line_reduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf, size_t count,
                    meshmem_dtype_t dtype, meshmem_op_t op, int root);

/* ---- mm_coll_gather.c ---- */

/**
 * @brief All-gather of @p mylen bytes (MESHMEM_IN_PLACE: already at recvbuf + roff[me]) into
 * recvbuf + roff[r], rcap[r] bytes from member r, with a->algo (ONESTEP or RING).
 */
meshmem_status_t mm_coll_allgather_run(mm_coll_args_t *a, const void *sendbuf, size_t mylen,
                                       void *recvbuf, const size_t *roff, const size_t *rcap);

/* ---- mm_coll_allreduce.c ---- */

/** @brief Reduce-scatter into slices (the first half of the aggressive all-reduce). */
meshmem_status_t mm_coll_reduce_slices(const mm_coll_args_t *a, const void *sendbuf, void *out,
                                       size_t count, meshmem_dtype_t dtype, meshmem_op_t op);

/* ---- mm_coll_api.c ---- */

/** @brief Barrier over @p t on its topology (node leaders, GHC or full mesh), without
 * completing RMA: the one barrier under meshmem_barrier, meshmem_team_sync and
 * meshmem_coll_barrier. */
void mm_coll_barrier(struct meshmem_team *t);

/* ---- mm_coll_symmetric.c: collectives on symmetric buffers (meshmem_broadcast ...) ---- */

/** @brief The team of a broadcast; NULL, after a line naming the call, when @p root is not
 * one of its members. */
struct meshmem_team *mm_symmetric_rooted(meshmem_team_t team, int root);

/** @brief The checks of a symmetric reduction: @p op defined on @p dtype (else an error line
 * and MESHMEM_ERR_ARG); @p src symmetric (else the job ends). */
meshmem_status_t mm_symmetric_reduce_check(meshmem_team_t team, const void *src, size_t count,
                                           meshmem_dtype_t dtype, meshmem_op_t op);

/* ---- mm_coll_ghc.c: the GHC (r = 2) algorithms, per dimension (see that file) ---- */

/**
 * @return true when @p a's call runs per dimension: its team is a GHC and the hint names no
 * whole-team baseline (RING and RECDBL run over the whole team as named).
 */
static inline bool mm_ghc_for(const mm_coll_args_t *a)
{
    return mm_topo_ghc(a->t) && a->algo != MESHMEM_ALGO_RING && a->algo != MESHMEM_ALGO_RECDBL;
}

/** @brief All-to-all of @p len bytes per block (block j at j * len), in place when equal. */
void mm_ghc_alltoall(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len);

/** @brief All-to-all-v in bytes (as mm_coll_a2a_step; sizes travel with the blocks). */
void mm_ghc_alltoallv(const mm_coll_args_t *a, const char *sbuf, const size_t *soff,
                      const size_t *slen, char *rbuf, const size_t *roff, const size_t *rcap,
                      size_t *rlen);

/** @brief All-gather(v) in bytes (as mm_coll_allgather_run). */
meshmem_status_t mm_ghc_allgatherv(const mm_coll_args_t *a, const void *sendbuf, size_t mylen,
                                   void *recvbuf, const size_t *roff, const size_t *rcap);

/** @brief Broadcast @p len bytes from team rank @p root. */
meshmem_status_t mm_ghc_bcast(const mm_coll_args_t *a, void *buf, size_t len, int root);

/** @brief Scatter blocks of @p len bytes from @p root. */
meshmem_status_t mm_ghc_scatter(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                size_t len, int root);

/** @brief Gather blocks of @p len bytes at @p root (sendbuf may be MESHMEM_IN_PLACE there). */
meshmem_status_t mm_ghc_gather(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                               size_t len, int root);

/** @brief Barrier: along x, then along y. */
void mm_ghc_barrier(struct meshmem_team *t);

/** @return the elements of a vector whose slices one round of the GHC reductions moves: the
 * packed slices fit staging (ends the job when staging cannot hold one element). */
size_t mm_ghc_round(const mm_coll_args_t *a);

/** @brief Reduce-scatter: slice me (mm_slice_lo of @p count) of the reduction into recvbuf. */
meshmem_status_t mm_ghc_reduce_scatter(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                       size_t count, meshmem_dtype_t dtype, meshmem_op_t op);

/** @brief All-reduce (@p algo ONESTEP or AUTO at most the eager size: all-gather and fold). */
meshmem_status_t mm_ghc_allreduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                                  size_t count, meshmem_dtype_t dtype, meshmem_op_t op,
                                  meshmem_algo_t algo);

/** @brief Reduce to @p root (reduce-scatter, then a gather of the slices). */
meshmem_status_t mm_ghc_reduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf,
                               size_t count, meshmem_dtype_t dtype, meshmem_op_t op, int root);

/* ---- mm_coll_leader.c: node-leader forms across hosts (see that file) ---- */

/**
 * @return true when @p a's call takes the node-leader form: its team's GHC is the hosts' and
 * the hint is LEADER, or AUTO with @p bytes at most MESHMEM_LEADER_BYTES. A LEADER hint on any
 * other team becomes AUTO (in @p a). (Inline: every collective asks, and on one host the
 * answer is one load.)
 */
static inline bool mm_leader_for(mm_coll_args_t *a, size_t bytes)
{
    if (a->t->ghc_hosts == MM_HOSTS_NONE) {
        if (MM_UNLIKELY(a->algo == MESHMEM_ALGO_LEADER))
            a->algo = MESHMEM_ALGO_AUTO; /* one host, or an uneven spread: as AUTO */
        return false;
    }
    if (a->algo == MESHMEM_ALGO_LEADER)
        return true;
    return a->algo == MESHMEM_ALGO_AUTO && mm_config.leader_bytes >= 0 &&
           bytes <= (size_t)mm_config.leader_bytes;
}

/** @return true when barriers on @p t take the node-leader form. (Inline: every barrier asks,
 * and on one host the answer is one load.) */
static inline bool mm_leader_barrier_for(const struct meshmem_team *t)
{
    return t->ghc_hosts != MM_HOSTS_NONE && mm_config.leader_bytes >= 0;
}

/** @brief Barrier: host, leaders, host. */
void mm_leader_barrier(struct meshmem_team *t);

/** @brief Broadcast of @p len bytes from team rank @p root: its column, then every host. */
void mm_leader_bcast(const mm_coll_args_t *a, void *buf, size_t len, int root);

/** @brief All-reduce of @p count elements (recvbuf may be sendbuf), folded in member order. */
void mm_leader_allreduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf, size_t count,
                         meshmem_dtype_t dtype, meshmem_op_t op);

/** @brief All-gather of the @p len bytes at @p blk (may be in recvbuf) into recvbuf. */
void mm_leader_allgather(const mm_coll_args_t *a, const void *blk, void *recvbuf, size_t len);

/** @brief All-to-all of @p len bytes per block (rbuf may be sbuf). */
void mm_leader_alltoall(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len);

#endif /* MM_COLL_H */
