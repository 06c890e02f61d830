/*
 * OpenSHMEM 1.5 team routines: queries, translate_pe, get_config, split_strided and split_2d
 * (including their error cases and splits of splits), destroy and re-create many times (slot
 * reuse), collectives running concurrently on disjoint teams, team_sync / sync_all /
 * barrier_all.
 */
#include "shmem_coll_test.h"

int mm_test_rank_hint = -1;

static long counter[64]; /* symmetric (bss) */
static long red_src[16], red_dst[16];

/* sum-reduce over @p team and check it against the members' world ranks */
static void check_team_sum(shmem_team_t team, const char *what)
{
    int np = shmem_team_n_pes(team);
    for (int i = 0; i < 16; i++)
        red_src[i] = shmem_my_pe() * 100 + i;
    CHECK(shmem_long_sum_reduce(team, red_dst, red_src, 16) == 0);
    for (int i = 0; i < 16; i++) {
        long ref = 0;
        for (int r = 0; r < np; r++)
            ref += shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD) * 100 + i;
        CHECK_COLL(red_dst[i] == ref, "sum_reduce", "long", what, i);
    }
}

static void test_queries(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK_EQ_LL(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ_LL(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
    /* the shared team: the PEs whose memory this PE can load and store (this host's), in
     * world order; on one host, the world */
    int shared = 0, mine = -1;
    for (int p = 0; p < n; p++) {
        if (p == me)
            mine = shared;
        shared += shmem_ptr(&counter[0], p) != NULL;
    }
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) != 1) { /* 1: a placement that is not strided */
        CHECK_EQ_LL(shmem_team_my_pe(SHMEM_TEAM_SHARED), mine);
        CHECK_EQ_LL(shmem_team_n_pes(SHMEM_TEAM_SHARED), shared);
    }
    CHECK_EQ_LL(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ_LL(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ_LL(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_INVALID), -1);
    CHECK_EQ_LL(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ_LL(shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ_LL(shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD), -1);
    shmem_team_config_t cfg = {.num_contexts = 77};
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0);
    CHECK_EQ_LL(cfg.num_contexts, 0);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0);
}

/* every argument error returns non-zero and SHMEM_TEAM_INVALID, on every PE, and the job
 * goes on */
static void test_split_errors(void)
{
    int n = shmem_n_pes();
    static const int bad[][3] = {/* start, stride, size */
                                 {-1, 1, 1}, {0, 1, 0},          {0, 1, -2},        {0, 0, 2},
                                 {0, -1, 2}, {0, 1, 0x7fffffff}, {0, 0x7fffffff, 2}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        shmem_team_t t = (shmem_team_t)&counter[0]; /* must be overwritten */
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[k][0], bad[k][1], bad[k][2], NULL, 0,
                                       &t) != 0);
        CHECK(t == SHMEM_TEAM_INVALID);
    }
    shmem_team_t t = (shmem_team_t)&counter[0];
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n, 1, 1, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &t) != 0);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    /* a config with a negative context count, or an unknown mask bit */
    shmem_team_config_t cfg = {.num_contexts = -1};
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t) !=
          0);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 1L << 7, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    shmem_team_t x = (shmem_team_t)&counter[0], y = x;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0);
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, NULL, 0, &x, NULL, 0, &y) != 0);
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
    shmem_sync_all();
}

static void test_strided_and_translate(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_team_t odd, even, quarter = SHMEM_TEAM_INVALID, single;
    shmem_team_config_t cfg = {.num_contexts = 3};
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &even) == 0);
    odd = SHMEM_TEAM_INVALID;
    if (n > 1)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd) == 0);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 0, 1, NULL, 0, &single) == 0);
    if (me % 2 == 0) {
        CHECK(even != SHMEM_TEAM_INVALID);
        CHECK_EQ_LL(shmem_team_my_pe(even), me / 2);
        CHECK_EQ_LL(shmem_team_n_pes(even), (n + 1) / 2);
        shmem_team_config_t got = {0};
        CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
        CHECK_EQ_LL(got.num_contexts, 3);
        for (int r = 0; r < (n + 1) / 2; r++) {
            CHECK_EQ_LL(shmem_team_translate_pe(even, r, SHMEM_TEAM_WORLD), 2 * r);
            CHECK_EQ_LL(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 2 * r, even), r);
        }
        CHECK_EQ_LL(shmem_team_translate_pe(even, (n + 1) / 2, SHMEM_TEAM_WORLD), -1);
        if (n > 1)
            CHECK_EQ_LL(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even), -1);
        /* a split of a split: every other even PE, world stride 4 */
        CHECK(shmem_team_split_strided(even, 0, 2, ((n + 1) / 2 + 1) / 2, NULL, 0, &quarter) == 0);
        if (me % 4 == 0) {
            CHECK_EQ_LL(shmem_team_my_pe(quarter), me / 4);
            CHECK_EQ_LL(shmem_team_translate_pe(quarter, 1, SHMEM_TEAM_WORLD), n > 4 ? 4 : -1);
            CHECK_EQ_LL(shmem_team_translate_pe(quarter, 0, even), 0);
            check_team_sum(quarter, "even/2");
        } else {
            CHECK(quarter == SHMEM_TEAM_INVALID);
        }
        check_team_sum(even, "even");
    } else {
        CHECK(even == SHMEM_TEAM_INVALID);
        CHECK_EQ_LL(shmem_team_my_pe(odd), me / 2);
        CHECK_EQ_LL(shmem_team_translate_pe(odd, shmem_team_my_pe(odd), even), -1);
        check_team_sum(odd, "odd");
    }
    if (me == n - 1) {
        CHECK_EQ_LL(shmem_team_n_pes(single), 1);
        check_team_sum(single, "single");
    } else {
        CHECK(single == SHMEM_TEAM_INVALID);
    }
    shmem_team_destroy(quarter);
    shmem_team_destroy(single);
    shmem_team_destroy(odd);
    shmem_team_destroy(even);
}

static void test_split_2d(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int xrange = 1; xrange <= n + 1; xrange++) {
        shmem_team_t x, y;
        shmem_team_config_t cx = {.num_contexts = 1}, cy = {.num_contexts = 2};
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &cx, SHMEM_TEAM_NUM_CONTEXTS, &x, &cy,
                                  SHMEM_TEAM_NUM_CONTEXTS, &y) == 0);
        int xr = xrange > n ? n : xrange, col = me % xr, row = me / xr;
        int rows = (n + xr - 1) / xr;
        int xsize = row == rows - 1 ? n - row * xr : xr;
        int ysize = col < n - (rows - 1) * xr ? rows : rows - 1;
        CHECK_EQ_LL(shmem_team_my_pe(x), col);
        CHECK_EQ_LL(shmem_team_n_pes(x), xsize);
        CHECK_EQ_LL(shmem_team_my_pe(y), row);
        CHECK_EQ_LL(shmem_team_n_pes(y), ysize);
        for (int r = 0; r < xsize; r++)
            CHECK_EQ_LL(shmem_team_translate_pe(x, r, SHMEM_TEAM_WORLD), row * xr + r);
        for (int r = 0; r < ysize; r++)
            CHECK_EQ_LL(shmem_team_translate_pe(y, r, SHMEM_TEAM_WORLD), r * xr + col);
        shmem_team_config_t got;
        CHECK(shmem_team_get_config(y, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
        CHECK_EQ_LL(got.num_contexts, 2);
        /* rows run concurrently (disjoint), then columns */
        check_team_sum(x, "2d x-axis");
        check_team_sum(y, "2d y-axis");
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }
}

/* destroy and re-create far more teams than there are slots, a few alive at a time */
static void test_recreate(void)
{
    int n = shmem_n_pes();
    enum { ALIVE = 6, ROUNDS = 150 };
    shmem_team_t alive[ALIVE] = {0};
    for (int k = 0; k < ROUNDS; k++) {
        int a = k % ALIVE;
        shmem_team_destroy(alive[a]);
        int stride = 1 + k % 3, start = k % n, size = (n - 1 - start) / stride + 1;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &alive[a]) ==
              0);
        if (alive[a] != SHMEM_TEAM_INVALID) {
            CHECK_EQ_LL(shmem_team_n_pes(alive[a]), size);
            check_team_sum(alive[a], "re-created");
        }
    }
    for (int a = 0; a < ALIVE; a++)
        shmem_team_destroy(alive[a]);
}

/* barrier_all completes earlier puts; team_sync / sync_all order the rounds */
static void test_sync(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int round = 1; round <= 20; round++) {
        long v = round * 1000 + me;
        meshmem_put(&counter[me % 64], &v, sizeof v, (me + 1) % n);
        shmem_barrier_all();
        int left = (me + n - 1) % n;
        CHECK_EQ_LL(counter[left % 64], round * 1000 + left);
        shmem_sync_all();
        CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0);
        CHECK(shmem_team_sync(SHMEM_TEAM_SHARED) == 0);
    }
}

int main(void)
{
    shmem_init();
    mm_test_rank_hint = shmem_my_pe();
    test_queries();
    test_split_errors();
    test_strided_and_translate();
    test_split_2d();
    test_recreate();
    test_sync();
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("shmem_coll_teams: all correct on %d PEs\n", shmem_n_pes());
    shmem_finalize();
    return 0;
}
