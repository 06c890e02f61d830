/**
 * @file meshmem_coll.h
 * @brief MPI-like collectives of meshmem (ACCL's set) on any team, on any buffers.
 *
 * Unlike the OpenSHMEM collectives, buffers may be anywhere (stack, malloc, symmetric heap);
 * buffers in shared memory (symmetric heap or globals) are read by peers directly and so need
 * no staging copy: the fastest way to use these calls, as OPTWEB's "dedicated communication
 * memory". Counts are in elements of @c dtype (MESHMEM_BYTE for raw bytes). Every call is
 * collective over @p team and blocking: on return the send buffers may be reused and the
 * receive buffers hold the result. Each call takes an algorithm hint; MESHMEM_ALGO_AUTO picks
 * the fastest known for the size and topology. As counts, roots and types, the hint must be the
 * same on every member (AUTO and the algorithm AUTO picks may be mixed; reduce, which has one
 * algorithm, takes AUTO and AGGRESSIVE alike). On a team with a GHC topology
 * (meshmem_team_set_topology, MESHMEM_TOPOLOGY) every hint but RING and RECDBL runs per
 * dimension, along x then along y, with the same results bit for bit (docs/collectives.md).
 * Across hosts, AUTO picks the node-leader form (MESHMEM_ALGO_LEADER: one network message per
 * pair of hosts instead of one per pair of ranks) for messages of at most MESHMEM_LEADER_BYTES.
 *
 * Errors (bad team, root, type, operator, algorithm) return a negative status after one line
 * naming the call and the argument; mismatched counts between ranks end the job with a message.
 */
#ifndef MESHMEM_COLL_H
#define MESHMEM_COLL_H

#include "meshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* what this header declares is libmeshmem's API: exported, while everything else in the
 * library is hidden (built with -fvisibility=hidden) */
#pragma GCC visibility push(default)

/** Raw bytes. */
#define MESHMEM_BYTE MESHMEM_UINT8

/** Pass as the send buffer of allreduce/reduce/allgather/alltoall to use the receive buffer. */
#define MESHMEM_IN_PLACE ((void *)1)

/** Algorithm hints. */
typedef enum {
    MESHMEM_ALGO_AUTO = 0,   /**< choose by size and topology */
    MESHMEM_ALGO_ONESTEP,    /**< full mesh, one step: every rank writes every peer directly */
    MESHMEM_ALGO_NAIVE,      /**< allreduce: all-to-all, reduce, all-gather (3 memory passes) */
    MESHMEM_ALGO_AGGRESSIVE, /**< allreduce: reduce as data arrives, then all-gather (2 passes) */
    MESHMEM_ALGO_RING,       /**< ring: N-1 neighbour steps */
    MESHMEM_ALGO_RECDBL,     /**< recursive doubling: log2 N steps */
    MESHMEM_ALGO_LEADER,     /**< across hosts: one rank per host talks to the other hosts
                                  (barrier, bcast, allreduce, allgather, alltoall); where the
                                  team is on one host or spread unevenly, as AUTO */
    MESHMEM_ALGO_COUNT
} meshmem_algo_t;

/** @return the name of @p algo ("onestep", ...), or NULL for an invalid one. */
const char *meshmem_algo_name(meshmem_algo_t algo);

/** @brief Barrier over @p team (no RMA completion implied). */
meshmem_status_t meshmem_coll_barrier(meshmem_team_t team);

/** @brief Broadcast @p count elements of @p buf from team rank @p root to every member. */
meshmem_status_t meshmem_coll_bcast(meshmem_team_t team, void *buf, size_t count,
                                    meshmem_dtype_t dtype, int root, meshmem_algo_t algo);

/** @brief Block r (of @p count elements) of @p sendbuf at @p root goes to @p recvbuf of r. */
meshmem_status_t meshmem_coll_scatter(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                      size_t count, meshmem_dtype_t dtype, int root,
                                      meshmem_algo_t algo);

/** @brief Each member's @p count elements land as block r of @p recvbuf at @p root. */
meshmem_status_t meshmem_coll_gather(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                     size_t count, meshmem_dtype_t dtype, int root,
                                     meshmem_algo_t algo);

/** @brief Every member gets every member's @p count elements, in team-rank order. */
meshmem_status_t meshmem_coll_allgather(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                        size_t count, meshmem_dtype_t dtype, meshmem_algo_t algo);

/**
 * @brief All-gather with a count per member: member r's @p sendcount elements land at
 * recvbuf + displs[r] on every member; recvcounts[r] must equal r's sendcount.
 */
meshmem_status_t meshmem_coll_allgatherv(meshmem_team_t team, const void *sendbuf, size_t sendcount,
                                         void *recvbuf, const size_t *recvcounts,
                                         const size_t *displs, meshmem_dtype_t dtype,
                                         meshmem_algo_t algo);

/** @brief Block j of @p sendbuf goes to block me of @p recvbuf at member j. */
meshmem_status_t meshmem_coll_alltoall(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                       size_t count, meshmem_dtype_t dtype, meshmem_algo_t algo);

/**
 * @brief All-to-all with counts per pair (elements; displacements in elements).
 * @p recvcounts may be NULL: receivers then learn each count from the message itself (the
 * sender's end of data; OPTWEB sort's EOP) and write it to @p recvcounts_out when not NULL;
 * blocks land at rdispls[j] and must fit before the next displacement (or the buffer end,
 * @p recvcap elements).
 */
meshmem_status_t meshmem_coll_alltoallv(meshmem_team_t team, const void *sendbuf,
                                        const size_t *sendcounts, const size_t *sdispls,
                                        void *recvbuf, const size_t *recvcounts,
                                        const size_t *rdispls, size_t recvcap,
                                        size_t *recvcounts_out, meshmem_dtype_t dtype,
                                        meshmem_algo_t algo);

/** @brief Reduce @p count elements with @p op into @p recvbuf at @p root. */
meshmem_status_t meshmem_coll_reduce(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                     size_t count, meshmem_dtype_t dtype, meshmem_op_t op, int root,
                                     meshmem_algo_t algo);

/**
 * @brief All-reduce @p count elements with @p op into @p recvbuf on every member; results are
 * bitwise identical on every member. Algorithms: ONESTEP (everyone reduces everything; small
 * sizes), AGGRESSIVE (default above a few KiB), NAIVE, RING, RECDBL.
 */
meshmem_status_t meshmem_coll_allreduce(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                        size_t count, meshmem_dtype_t dtype, meshmem_op_t op,
                                        meshmem_algo_t algo);

/**
 * @brief Reduce-scatter (block form): element block r (of @p recvcount) of the reduction of
 * every member's @p sendbuf (size x recvcount elements) lands in @p recvbuf of member r.
 */
meshmem_status_t meshmem_coll_reduce_scatter(meshmem_team_t team, const void *sendbuf,
                                             void *recvbuf, size_t recvcount, meshmem_dtype_t dtype,
                                             meshmem_op_t op, meshmem_algo_t algo);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* MESHMEM_COLL_H */
