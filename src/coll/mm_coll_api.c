/* Argument checks and helpers shared by the MPI-like collectives; the barrier. */
#include "mm_coll.h"
#include "mm_trace.h"

const char *meshmem_algo_name(meshmem_algo_t algo)
{
    static const char *names[MESHMEM_ALGO_COUNT] = {"auto", "onestep", "naive", "aggressive",
                                                    "ring", "recdbl",  "leader"};
    return (unsigned)algo < MESHMEM_ALGO_COUNT ? names[algo] : NULL;
}

meshmem_status_t mm_coll_check_team(mm_coll_args_t *a, const char *call, meshmem_team_t team)
{
    call = mm_call_name(call); /* the OpenSHMEM routine, when one made this call */
    MM_CHECK_INIT(call);
    a->call = call;
    if (team == MESHMEM_TEAM_INVALID || team->my_rank < 0) {
        mm_error("%s: team argument is invalid or this rank is not a member", call);
        return MESHMEM_ERR_TEAM;
    }
    a->t = mm_team_checked(call, team);
    mm_coll_enter(a->t, call, 0); /* named in a wait that lasts; the line path tags the call */
    return MESHMEM_OK;
}

meshmem_status_t mm_coll_check(mm_coll_args_t *a, const char *call, meshmem_team_t team,
                               meshmem_dtype_t dtype, meshmem_algo_t algo)
{
    meshmem_status_t st = mm_coll_check_team(a, call, team);
    if (st != MESHMEM_OK)
        return st;
    a->esize = meshmem_dtype_size(dtype);
    if (a->esize == 0) {
        mm_error("%s: dtype argument (%d) is not a meshmem_dtype_t", a->call, (int)dtype);
        return MESHMEM_ERR_ARG;
    }
    if ((unsigned)algo >= MESHMEM_ALGO_COUNT) {
        mm_error("%s: algo argument (%d) is not a meshmem_algo_t", a->call, (int)algo);
        return MESHMEM_ERR_ARG;
    }
    a->algo = algo;
    return MESHMEM_OK;
}

meshmem_status_t mm_coll_check_root(const mm_coll_args_t *a, int root)
{
    if (root < 0 || root >= a->t->size) {
        mm_error("%s: root argument (%d) is not a rank of the team (0..%d)", a->call, root,
                 a->t->size - 1);
        return MESHMEM_ERR_RANK;
    }
    return MESHMEM_OK;
}

meshmem_status_t mm_coll_check_op(const mm_coll_args_t *a, meshmem_dtype_t dtype, meshmem_op_t op)
{
    if (!mm_reduce_supported(dtype, op)) {
        mm_error("%s: op argument (%s) is not defined on dtype %s", a->call, mm_op_name(op),
                 mm_dtype_name(dtype));
        return MESHMEM_ERR_ARG;
    }
    return MESHMEM_OK;
}

meshmem_status_t mm_coll_check_algo(const mm_coll_args_t *a, meshmem_algo_t only)
{
    if (a->algo != MESHMEM_ALGO_AUTO && a->algo != only)
        return mm_coll_no_algo(a);
    return MESHMEM_OK;
}

meshmem_status_t mm_coll_check_rooted(mm_coll_args_t *a, const char *call, meshmem_team_t team,
                                      meshmem_dtype_t dtype, meshmem_algo_t algo, int root,
                                      meshmem_algo_t only)
{
    meshmem_status_t st = mm_coll_check(a, call, team, dtype, algo);
    if (st == MESHMEM_OK)
        st = mm_coll_check_root(a, root);
    if (st == MESHMEM_OK)
        st = mm_coll_check_algo(a, only);
    return st;
}

void mm_coll_bytes_overflow(const mm_coll_args_t *a, size_t count)
{
    mm_fatal("%s: count argument (%zu) overflows", a->call, count);
}

meshmem_status_t mm_coll_no_algo(const mm_coll_args_t *a)
{
    mm_error("%s: algorithm %s is not available for this call", a->call,
             meshmem_algo_name(a->algo));
    return MESHMEM_ERR_UNSUPPORTED;
}

const void *mm_coll_expose(const mm_coll_args_t *a, const void *buf, size_t len, mm_desc_t *desc)
{
    if (mm_desc_of(buf, len, desc))
        return buf;
    void *stage = mm_msg_stage(a->t, len);
    if (stage == NULL)
        return NULL;
    return mm_msg_expose(buf, len, stage, desc);
}

meshmem_status_t meshmem_coll_barrier(meshmem_team_t team)
{
    MM_TRACE_SCOPE(mm_trace_coll("barrier", team, 0));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check_team(&a, "meshmem_coll_barrier", team);
    if (st == MESHMEM_OK)
        mm_coll_barrier(a.t);
    return st;
}

/* the runtime's barrier on @p t's topology (node leaders, GHC or full mesh) */
static inline void mm_coll_barrier_runtime(struct meshmem_team *t)
{
    if (mm_leader_barrier_for(t))
        mm_leader_barrier(t);
    else if (mm_topo_ghc(t))
        mm_ghc_barrier(t);
    else
        mm_fullmesh_barrier(t);
}

/* the barrier of the transport that reaches every member of @p t (mm_tp_coll.h), or the
 * runtime's when it has none or declines (out of line: the runtime's barriers stay tail calls,
 * with no stack frame) */
static __attribute__((noinline, cold)) void mm_coll_barrier_offload(struct meshmem_team *t)
{
    if (t->offload->barrier == NULL || t->offload->barrier(&t->group) == MESHMEM_ERR_UNSUPPORTED)
        mm_coll_barrier_runtime(t);
}

void mm_coll_barrier(struct meshmem_team *t)
{
    if (MM_UNLIKELY(t->offload != NULL))
        mm_coll_barrier_offload(t);
    else
        mm_coll_barrier_runtime(t);
}
