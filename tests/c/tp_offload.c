/*
 * The collective-offload entry of the transport interface (src/transport/mm_tp_coll.h): a team
 * whose members are all reached through one transport with collectives of its own hands them
 * its calls (with the hint AUTO or ONESTEP); an entry that declines (MESHMEM_ERR_UNSUPPORTED)
 * leaves the call to the runtime's algorithm, whose result must then be right; an entry that
 * takes it answers for it; another hint, or a team_init that fails, keeps the runtime's.
 *
 * The transport is the node's shared memory, its table replaced after init by a copy with
 * collectives of its own (the shared-memory data path is inline and never reads the table).
 * One host only: the teams' members must share that one transport.
 */
#include "mm_coll.h"
#include "mm_test.h"

#include <string.h>

int mm_test_rank_hint = 0;

enum {
    C_INIT,
    C_FINI,
    C_BARRIER,
    C_BCAST,
    C_SCATTER,
    C_GATHER,
    C_ALLGATHER,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLREDUCE,
    C_KINDS
};
static int calls[C_KINDS];
static bool fail_init;

static int fake_team_init(mm_tp_group_t *g)
{
    calls[C_INIT]++;
    CHECK(g->my_rank == meshmem_rank() && g->size == meshmem_nranks() && g->stride == 1);
    g->ctx = &calls; /* what the engine keeps for the team */
    return fail_init ? -1 : 0;
}

static void fake_team_fini(mm_tp_group_t *g)
{
    CHECK(g->ctx == &calls);
    calls[C_FINI]++;
}

static meshmem_status_t fake_barrier(mm_tp_group_t *g)
{
    (void)g;
    calls[C_BARRIER]++;
    return MESHMEM_ERR_UNSUPPORTED;
}

static meshmem_status_t fake_bcast(mm_tp_group_t *g, void *buf, size_t len, int root)
{
    (void)g, (void)buf, (void)len, (void)root;
    calls[C_BCAST]++;
    return MESHMEM_ERR_UNSUPPORTED;
}

static meshmem_status_t fake_scatter(mm_tp_group_t *g, const void *s, void *r, size_t len, int root)
{
    (void)g, (void)s, (void)r, (void)len, (void)root;
    calls[C_SCATTER]++;
    return MESHMEM_ERR_UNSUPPORTED;
}

static meshmem_status_t fake_gather(mm_tp_group_t *g, const void *s, void *r, size_t len, int root)
{
    (void)g, (void)s, (void)r, (void)len, (void)root;
    calls[C_GATHER]++;
    return MESHMEM_ERR_UNSUPPORTED;
}

static meshmem_status_t fake_allgather(mm_tp_group_t *g, const void *s, void *r, size_t len)
{
    (void)g, (void)r;
    calls[C_ALLGATHER]++;
    /* MESHMEM_IN_PLACE arrives resolved: the member's own block of the receive buffer */
    CHECK(s != MESHMEM_IN_PLACE && len == sizeof(long));
    return MESHMEM_ERR_UNSUPPORTED;
}

static meshmem_status_t fake_alltoall(mm_tp_group_t *g, const void *s, void *r, size_t len)
{
    (void)g, (void)s, (void)r, (void)len;
    calls[C_ALLTOALL]++;
    return MESHMEM_ERR_UNSUPPORTED;
}

static meshmem_status_t fake_alltoallv(mm_tp_group_t *g, const void *s, const size_t *soff,
                                       const size_t *slen, void *r, const size_t *roff,
                                       const size_t *rcap, size_t *rlen)
{
    (void)g, (void)s, (void)soff, (void)slen, (void)r, (void)roff, (void)rcap, (void)rlen;
    calls[C_ALLTOALLV]++;
    return MESHMEM_ERR_UNSUPPORTED;
}

/* takes int64 sums (an engine's reduction unit), declines the rest; its answer is a pattern
 * no reduction of the test's data gives, so that the test sees whose result it got */
static meshmem_status_t fake_allreduce(mm_tp_group_t *g, const void *s, void *r, size_t count,
                                       meshmem_dtype_t dtype, meshmem_op_t op)
{
    (void)g, (void)s;
    calls[C_ALLREDUCE]++;
    if (dtype != MESHMEM_INT64 || op != MESHMEM_OP_SUM)
        return MESHMEM_ERR_UNSUPPORTED;
    for (size_t i = 0; i < count; i++)
        ((int64_t *)r)[i] = -1000 - (int64_t)i;
    return MESHMEM_OK;
}

static const mm_tp_coll_ops_t fake_coll = {.team_init = fake_team_init,
                                           .team_fini = fake_team_fini,
                                           .barrier = fake_barrier,
                                           .bcast = fake_bcast,
                                           .scatter = fake_scatter,
                                           .gather = fake_gather,
                                           .allgather = fake_allgather,
                                           .alltoall = fake_alltoall,
                                           .alltoallv = fake_alltoallv,
                                           .allreduce = fake_allreduce};

/* the runtime's collectives on @p t are right (and every one asked the transport first, when
 * @p offloaded) */
static void check_collectives(meshmem_team_t t, bool offloaded)
{
    int n = meshmem_nranks(), me = meshmem_rank();
    int before[C_KINDS];
    memcpy(before, calls, sizeof(before));
    CHECK(meshmem_coll_barrier(t) == MESHMEM_OK);
    long v[4] = {me == 0 ? 42 : 0, me == 0 ? 43 : 0, 0, 0};
    CHECK(meshmem_coll_bcast(t, v, 2, MESHMEM_INT64, 0, MESHMEM_ALGO_AUTO) == MESHMEM_OK);
    CHECK(v[0] == 42 && v[1] == 43);
    long *all = calloc((size_t)n, sizeof(long)), *got = calloc((size_t)n, sizeof(long));
    CHECK(all != NULL && got != NULL);
    all[me] = 100 + me;
    CHECK(meshmem_coll_allgather(t, MESHMEM_IN_PLACE, all, 1, MESHMEM_INT64, MESHMEM_ALGO_AUTO) ==
          MESHMEM_OK);
    for (int r = 0; r < n; r++)
        CHECK_EQ_LL(all[r], 100 + r);
    for (int r = 0; r < n; r++)
        all[r] = me * 1000 + r;
    CHECK(meshmem_coll_alltoall(t, all, got, 1, MESHMEM_INT64, MESHMEM_ALGO_AUTO) == MESHMEM_OK);
    for (int r = 0; r < n; r++)
        CHECK_EQ_LL(got[r], r * 1000 + me);
    size_t *cnt = calloc(4 * (size_t)n, sizeof(size_t)), *rcnt = cnt + n, *disp = cnt + 2 * n;
    CHECK(cnt != NULL);
    for (int r = 0; r < n; r++)
        cnt[r] = 1, rcnt[r] = 1, disp[r] = (size_t)r;
    CHECK(meshmem_coll_alltoallv(t, all, cnt, disp, got, rcnt, disp, (size_t)n, NULL, MESHMEM_INT64,
                                 MESHMEM_ALGO_AUTO) == MESHMEM_OK);
    for (int r = 0; r < n; r++)
        CHECK_EQ_LL(got[r], r * 1000 + me);
    long mine = 7 + me, one = 0;
    CHECK(meshmem_coll_gather(t, &mine, got, 1, MESHMEM_INT64, n - 1, MESHMEM_ALGO_AUTO) ==
          MESHMEM_OK);
    for (int r = 0; me == n - 1 && r < n; r++)
        CHECK_EQ_LL(got[r], 7 + r);
    CHECK(meshmem_coll_scatter(t, all, &one, 1, MESHMEM_INT64, 0, MESHMEM_ALGO_AUTO) == MESHMEM_OK);
    CHECK_EQ_LL(one, me); /* rank 0's row: 0 * 1000 + r */
    /* an int32 sum: declined, the runtime's */
    int32_t x = me + 1, sum32 = 0;
    CHECK(meshmem_coll_allreduce(t, &x, &sum32, 1, MESHMEM_INT32, MESHMEM_OP_SUM,
                                 MESHMEM_ALGO_AUTO) == MESHMEM_OK);
    CHECK_EQ_LL(sum32, n * (n + 1) / 2);
    /* an int64 sum: taken (its pattern), unless the team does not offload */
    int64_t y[2] = {me, me}, sum[2];
    CHECK(meshmem_coll_allreduce(t, y, sum, 2, MESHMEM_INT64, MESHMEM_OP_SUM, MESHMEM_ALGO_AUTO) ==
          MESHMEM_OK);
    CHECK_EQ_LL(sum[1], offloaded ? -1001 : (int64_t)n * (n - 1) / 2);
    /* another algorithm named: the runtime's, not asked */
    int calls_before = calls[C_ALLREDUCE];
    CHECK(meshmem_coll_allreduce(t, y, sum, 2, MESHMEM_INT64, MESHMEM_OP_SUM, MESHMEM_ALGO_RING) ==
          MESHMEM_OK);
    CHECK_EQ_LL(sum[1], (int64_t)n * (n - 1) / 2);
    CHECK_EQ_LL(calls[C_ALLREDUCE], calls_before);
    int k = offloaded ? 1 : 0;
    CHECK_EQ_LL(calls[C_BARRIER] - before[C_BARRIER], k);
    CHECK_EQ_LL(calls[C_BCAST] - before[C_BCAST], k);
    CHECK_EQ_LL(calls[C_ALLGATHER] - before[C_ALLGATHER], k);
    CHECK_EQ_LL(calls[C_ALLTOALL] - before[C_ALLTOALL], k);
    CHECK_EQ_LL(calls[C_ALLTOALLV] - before[C_ALLTOALLV], k);
    CHECK_EQ_LL(calls[C_GATHER] - before[C_GATHER], k);
    CHECK_EQ_LL(calls[C_SCATTER] - before[C_SCATTER], k);
    CHECK_EQ_LL(calls[C_ALLREDUCE] - before[C_ALLREDUCE], 2 * k);
    free(all);
    free(got);
    free(cnt);
}

int main(void)
{
    meshmem_init(MESHMEM_THREAD_SINGLE, NULL);
    int n = meshmem_nranks();
    mm_test_rank_hint = meshmem_rank();
    for (int p = 0; p < n; p++)
        CHECK(mm_tp_load_store(p)); /* one host: every member on the one transport */
    const mm_tp_ops_t *shm = mm_tp_peers[0].ops;
    static mm_tp_ops_t with_coll;
    with_coll = *shm;
    with_coll.coll = &fake_coll;
    for (int p = 0; p < n; p++)
        mm_tp_peers[p].ops = &with_coll;

    /* the world team was made before: the runtime's */
    CHECK(MESHMEM_TEAM_WORLD->offload == NULL);
    check_collectives(MESHMEM_TEAM_WORLD, false);

    meshmem_team_t t;
    CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, 0, 1, n, &t) == MESHMEM_OK);
    CHECK(t->offload == &fake_coll && calls[C_INIT] == 1);
    check_collectives(t, true);

    fail_init = true; /* a team the engine cannot take: the runtime's */
    meshmem_team_t u;
    CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, 0, 1, n, &u) == MESHMEM_OK);
    CHECK(u->offload == NULL && calls[C_INIT] == 2);
    check_collectives(u, false);
    meshmem_team_destroy(u);
    CHECK_EQ_LL(calls[C_FINI], 0);
    meshmem_team_destroy(t);
    CHECK_EQ_LL(calls[C_FINI], 1);

    for (int p = 0; p < n; p++)
        mm_tp_peers[p].ops = shm;
    meshmem_finalize();
    return 0;
}
