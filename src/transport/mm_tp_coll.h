/**
 * @file mm_tp_coll.h
 * @brief Collectives a transport runs itself: the optional entry of its table (mm_tp_ops_t's
 * coll). An engine that does a collective in one step (OPTWEB's block signal, a reduction unit
 * in the network) takes the whole call, one command, where the runtime's algorithms would send
 * N messages over its point-to-point operations (OpenMPI's coll/ucc with SHARP, ACCL's CCLO).
 *
 * When: a team offloads when every member is reached through one transport (every member's
 * entry in mm_tp_peers names the same table, this rank's own excepted: it reaches itself
 * through shared memory) and that table has coll (mm_tp_coll_for, when the
 * team is created: src/coll/mm_team.c). Its meshmem_coll_* calls with the algorithm AUTO or
 * ONESTEP (and the OpenSHMEM team collectives, which run on them) then go to the entry below,
 * after the runtime's argument checks; another algorithm asked for by name runs as the runtime
 * has it, for comparison. Shared memory and UCX have no entry.
 *
 * What: every member calls the same entry with the same sizes (the APIs require it). An entry
 * may be NULL, or return MESHMEM_ERR_UNSUPPORTED for a call it cannot take (a type or an
 * operation its reduction unit lacks, a buffer it cannot reach): the runtime's own algorithm
 * then runs, so an engine may start with one collective. Otherwise it returns MESHMEM_OK once
 * this member's part is done, as the runtime's collectives do; a failure inside ends the job
 * (the plugin host's fatal). Sizes are in bytes, but the reductions' counts (elements of
 * dtype). Buffers are as the program passed them, MESHMEM_IN_PLACE resolved (the send buffer
 * is then inside or equal to the receive buffer): symmetric (heap, static data) or private,
 * which an engine that reaches only the ranks' segments declines or stages itself.
 */
#ifndef MM_TP_COLL_H
#define MM_TP_COLL_H

#include "meshmem.h"

#include <stddef.h>

/** A team, as a transport's collectives see it. Written when the team is created. */
typedef struct {
    int start, stride, size; /* members: world ranks start + i * stride, i < size */
    int my_rank;             /* this member's number */
    int slot;                /* the team's sync slot, the same on every member (a name for
                                  the team the members agree on) */
    void *ctx;               /* the transport's own, from team_init */
} mm_tp_group_t;

typedef struct mm_tp_coll_ops {
    /** A team is created (its members call it together): set up what the engine keeps for it
     * (@p g->ctx). NULL: nothing to set up. @return 0, or -1: the team's collectives stay the
     * runtime's. */
    int (*team_init)(mm_tp_group_t *g);
    /** The team is gone (after its last collective; each member alone). NULL: nothing. */
    void (*team_fini)(mm_tp_group_t *g);
    meshmem_status_t (*barrier)(mm_tp_group_t *g);
    /** @p len bytes of @p buf from member @p root to every member's @p buf. */
    meshmem_status_t (*bcast)(mm_tp_group_t *g, void *buf, size_t len, int root);
    /** Block j (@p len bytes at @p sbuf + j * len, the root's) to member j's @p rbuf. */
    meshmem_status_t (*scatter)(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len,
                                int root);
    /** Member j's @p len bytes at @p sbuf to the root's @p rbuf + j * len. */
    meshmem_status_t (*gather)(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len,
                               int root);
    /** Member j's @p len bytes at @p sbuf to every member's @p rbuf + j * len. */
    meshmem_status_t (*allgather)(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len);
    /** Block j (@p len bytes at @p sbuf + j * len) to member j's @p rbuf + i * len, i this
     * member (@p sbuf == @p rbuf: in place). */
    meshmem_status_t (*alltoall)(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t len);
    /** Block j (@p slen[j] bytes at @p sbuf + @p soff[j]) to member j, received from member i
     * at @p rbuf + @p roff[i], at most @p rcap[i] bytes, its size into @p rlen[i]. */
    meshmem_status_t (*alltoallv)(mm_tp_group_t *g, const void *sbuf, const size_t *soff,
                                  const size_t *slen, void *rbuf, const size_t *roff,
                                  const size_t *rcap, size_t *rlen);
    /** The @p op of every member's @p count elements of @p dtype at @p sbuf into every
     * member's @p rbuf (may be @p sbuf); the same bits on every member. */
    meshmem_status_t (*allreduce)(mm_tp_group_t *g, const void *sbuf, void *rbuf, size_t count,
                                  meshmem_dtype_t dtype, meshmem_op_t op);
} mm_tp_coll_ops_t;

/** @return the collectives of the one transport that reaches every member of the team of
 * world ranks @p start + i * @p stride (i < @p size), or NULL: the members are reached through
 * several transports, or through one without collectives of its own. */
const mm_tp_coll_ops_t *mm_tp_coll_for(int start, int stride, int size);

#endif /* MM_TP_COLL_H */
