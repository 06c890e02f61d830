/*
 * OpenSHMEM contexts: creation with every option, team contexts whose PE numbers are team
 * numbers (on a team of the even world PEs), ctx_get_team, destroy, the invalid context, and
 * RMA / AMO / signal / fence / quiet through created contexts.
 */
#include "shmem_test.h"

static long slots[16];
static uint64_t sig;

int main(void)
{
    shmem_init();
    test_neighbours();
    shmem_team_t team;

    /* default context: on the world team */
    EXPECT(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
           "default context team");
    EXPECT(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0 && team == SHMEM_TEAM_INVALID,
           "invalid context team");
    shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
    EXPECT(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID, "unknown option");
    EXPECT(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad) != 0 && bad == SHMEM_CTX_INVALID,
           "invalid team");
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* a no-op */

    /* world contexts with each option: puts, AMOs, signals, ordering */
    const long options[] = {0, SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    for (int k = 0; k < 5; k++) {
        shmem_ctx_t ctx;
        EXPECT(shmem_ctx_create(options[k], &ctx) == 0 && ctx != SHMEM_CTX_INVALID,
               "ctx_create options %ld", options[k]);
        EXPECT(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD, "ctx team");
        long v = me * 100 + k;
        shmem_ctx_long_put(ctx, &slots[k], &v, 1, right);
        shmem_ctx_fence(ctx);
        shmem_ctx_long_atomic_add(ctx, &slots[8], 1, 0);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        EXPECT(slots[k] == left * 100 + k, "ctx put with options %ld", options[k]);
        EXPECT(shmem_ctx_long_g(ctx, &slots[k], right) == me * 100 + k, "ctx g");
        shmem_ctx_destroy(ctx);
    }
    if (me == 0)
        EXPECT(slots[8] == 5L * npes, "ctx AMOs on PE 0: %ld", slots[8]);
    shmem_barrier_all();

    /* a team of the even world PEs: its context numbers PEs in the team */
    shmem_team_t evens;
    int nevens = (npes + 1) / 2;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nevens, NULL, 0, &evens);
    shmem_ctx_t ectx = SHMEM_CTX_INVALID;
    int rc = shmem_team_create_ctx(evens, SHMEM_CTX_PRIVATE, &ectx);
    if (me % 2 == 0) {
        EXPECT(rc == 0 && ectx != SHMEM_CTX_INVALID, "team_create_ctx on a member");
        EXPECT(shmem_ctx_get_team(ectx, &team) == 0 && team == evens, "team ctx's team");
        int tme = shmem_team_my_pe(evens), tright = (tme + 1) % nevens;
        long v = 7000 + me;
        shmem_ctx_long_put(ectx, &slots[10], &v, 1, tright); /* team PE tright = world 2*tright */
        shmem_ctx_putmem_signal(ectx, &slots[11], &v, sizeof v, &sig, 1, SHMEM_SIGNAL_ADD, tright);
        shmem_ctx_long_atomic_add(ectx, &slots[12], 1, 0); /* team PE 0 is world PE 0 */
        shmem_ctx_quiet(ectx);
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
        int tleft = (tme + nevens - 1) % nevens;
        EXPECT(slots[11] == 7000 + 2 * tleft, "team ctx signal data");
        shmem_ctx_destroy(ectx);
    } else {
        EXPECT(rc != 0 && ectx == SHMEM_CTX_INVALID, "team_create_ctx on a non-member");
    }
    shmem_barrier_all();
    if (me % 2 == 0) {
        int tme = shmem_team_my_pe(evens), tleft = (tme + nevens - 1) % nevens;
        EXPECT(slots[10] == 7000 + 2 * tleft, "team ctx put went to the team neighbour");
    } else
        EXPECT(slots[10] == 0, "team ctx put reached an odd PE");
    if (me == 0)
        EXPECT(slots[12] == nevens, "team ctx AMOs");
    shmem_barrier_all();
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    shmem_finalize();
    return 0;
}
