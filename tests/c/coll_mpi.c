/*
 * MPI-like collectives (meshmem_coll.h) against serial references: every collective, every
 * algorithm, every root, sizes around the inline/eager/rendezvous thresholds, private and
 * symmetric buffers, in place, sub-teams, and a randomized mixed sequence with no barriers.
 */
#include "meshmem_coll.h"
#include "mm_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mm_test_rank_hint = -1;
static int me, np;

/* element value of (rank, index, salt): deterministic, distinct */
static int32_t val(int rank, size_t i, int salt)
{
    return (int32_t)((rank + 1) * 1000003u + i * 7919u + (unsigned)salt * 104729u);
}

/* buffers: private (malloc) or symmetric (heap); symmetric allocation is collective */
static void *buf_alloc(size_t bytes, int symmetric)
{
    void *p = symmetric ? meshmem_malloc(bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
    CHECK(p != NULL);
    return p;
}

static void buf_free(void *p, int symmetric)
{
    if (symmetric)
        meshmem_free(p);
    else
        free(p);
}

static const size_t counts[] = {0, 1, 3, 12, 13, 257, 1025, 5000, 40000};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))
/* the reductions' counts: all of them, or (second argument "short", for the simulated engine,
 * where every cycle that moves data is clocked) those up to 1025 elements: inline, eager and
 * rendezvous messages, without the runs of 40 KB and more */
static size_t reduce_counts = NCOUNTS;

/* broadcast of count @p c from @p root (by @p bcast_algo), then scatter and gather at it, each
 * checked; values tagged @p tag, tag + 1, tag + 2 (a and b hold c * n elements) */
static void check_bcast_scatter_gather(meshmem_team_t team, int32_t *a, int32_t *b, size_t c,
                                       int root, meshmem_algo_t bcast_algo, int tag)
{
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    for (size_t i = 0; i < c; i++)
        a[i] = r == root ? val(root, i, tag) : -1;
    CHECK(meshmem_coll_bcast(team, a, c, MESHMEM_INT32, root, bcast_algo) == 0);
    for (size_t i = 0; i < c; i++)
        CHECK_EQ_LL(a[i], val(root, i, tag));
    for (size_t i = 0; i < c * (size_t)n; i++)
        a[i] = val(r, i, tag + 1);
    memset(b, 0xff, c * 4);
    CHECK(meshmem_coll_scatter(team, a, b, c, MESHMEM_INT32, root, MESHMEM_ALGO_AUTO) == 0);
    for (size_t i = 0; i < c; i++)
        CHECK_EQ_LL(b[i], val(root, (size_t)r * c + i, tag + 1));
    for (size_t i = 0; i < c; i++)
        a[i] = val(r, i, tag + 2);
    memset(b, 0xff, c * 4 * (size_t)n);
    CHECK(meshmem_coll_gather(team, a, b, c, MESHMEM_INT32, root, MESHMEM_ALGO_AUTO) == 0);
    if (r == root)
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < c; i++)
                CHECK_EQ_LL(b[(size_t)j * c + i], val(j, i, tag + 2));
}

/* all-gather (in place and not) and all-to-all (in place and not) of count @p c by @p algo,
 * each checked (a and b hold c * n elements) */
static void check_allgather_alltoall(meshmem_team_t team, int32_t *a, int32_t *b, size_t c,
                                     meshmem_algo_t algo)
{
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    for (size_t i = 0; i < c; i++)
        a[i] = val(r, i, 4);
    memset(b, 0xff, c * 4 * (size_t)n);
    CHECK(meshmem_coll_allgather(team, a, b, c, MESHMEM_INT32, algo) == 0);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(b[(size_t)j * c + i], val(j, i, 4));
    /* in place */
    for (size_t i = 0; i < c * (size_t)n; i++)
        b[i] = i / (c ? c : 1) == (size_t)r ? val(r, i % (c ? c : 1), 5) : -1;
    CHECK(meshmem_coll_allgather(team, MESHMEM_IN_PLACE, b, c, MESHMEM_INT32, algo) == 0);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(b[(size_t)j * c + i], val(j, i, 5));
    for (size_t i = 0; i < c * (size_t)n; i++)
        a[i] = val(r, i, 6);
    memset(b, 0xff, c * 4 * (size_t)n);
    CHECK(meshmem_coll_alltoall(team, a, b, c, MESHMEM_INT32, algo) == 0);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(b[(size_t)j * c + i], val(j, (size_t)r * c + i, 6));
    CHECK(meshmem_coll_alltoall(team, MESHMEM_IN_PLACE, a, c, MESHMEM_INT32, algo) == 0);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(a[(size_t)j * c + i], val(j, (size_t)r * c + i, 6));
}

/* broadcast, scatter and gather at every root, all-gather and all-to-all, of vectors larger
 * than staging (run with a small MESHMEM_STAGE_SIZE): in rounds that every member cuts by
 * itself, private and symmetric buffers */
static void test_rooted_rounds(meshmem_team_t team, int sym)
{
    static const size_t big[] = {40000, 100003};
    int n = meshmem_team_size(team);
    for (size_t ci = 0; ci < sizeof(big) / sizeof(big[0]); ci++) {
        size_t c = big[ci];
        int32_t *a = buf_alloc(c * 4 * (size_t)n, sym), *b = buf_alloc(c * 4 * (size_t)n, sym);
        for (int root = 0; root < n; root++)
            check_bcast_scatter_gather(team, a, b, c, root, MESHMEM_ALGO_AUTO, 11);
        check_allgather_alltoall(team, a, b, c, MESHMEM_ALGO_AUTO);
        buf_free(b, sym);
        buf_free(a, sym);
    }
}

static void test_bcast_scatter_gather(meshmem_team_t team, int sym)
{
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    for (size_t ci = 0; ci < NCOUNTS; ci++) {
        size_t c = counts[ci];
        int32_t *a = buf_alloc(c * 4 * (size_t)n, sym), *b = buf_alloc(c * 4 * (size_t)n, sym);
        for (int root = 0; root < n; root++) {
            /* the node-leader form across hosts (as AUTO on one host) on every other root */
            check_bcast_scatter_gather(team, a, b, c, root,
                                       root % 2 ? MESHMEM_ALGO_LEADER : MESHMEM_ALGO_AUTO, 1);
            /* in place at the root: its block is already at b + root * c */
            for (size_t i = 0; i < c * (size_t)n; i++)
                b[i] = r == root && i / (c ? c : 1) == (size_t)root ? val(r, i % c, 7) : -1;
            for (size_t i = 0; i < c; i++)
                a[i] = val(r, i, 7);
            CHECK(meshmem_coll_gather(team, r == root ? MESHMEM_IN_PLACE : a, b, c, MESHMEM_INT32,
                                      root, MESHMEM_ALGO_AUTO) == 0);
            if (r == root)
                for (int j = 0; j < n; j++)
                    for (size_t i = 0; i < c; i++)
                        CHECK_EQ_LL(b[(size_t)j * c + i], val(j, i, 7));
        }
        buf_free(b, sym);
        buf_free(a, sym);
    }
}

static void test_allgather_alltoall(meshmem_team_t team, int sym, meshmem_algo_t algo)
{
    int n = meshmem_team_size(team);
    for (size_t ci = 0; ci < NCOUNTS; ci++) {
        size_t c = counts[ci];
        int32_t *a = buf_alloc(c * 4 * (size_t)n, sym), *b = buf_alloc(c * 4 * (size_t)n, sym);
        check_allgather_alltoall(team, a, b, c, algo);
        buf_free(b, sym);
        buf_free(a, sym);
    }
}

static void test_alltoallv(meshmem_team_t team)
{
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    size_t *sc = calloc((size_t)n, sizeof(size_t)), *sd = calloc((size_t)n, sizeof(size_t));
    size_t *rc = calloc((size_t)n, sizeof(size_t)), *rd = calloc((size_t)n, sizeof(size_t));
    size_t *got = calloc((size_t)n, sizeof(size_t));
    CHECK(sc && sd && rc && rd && got);
    for (int round = 0; round < 4; round++) {
        /* rank i sends (i*7 + j*13 + round*2000) % 3001 elements to j: some 0, some rendezvous */
        size_t stot = 0, rtot = 0;
        for (int j = 0; j < n; j++) {
            sc[j] = ((size_t)r * 7 + (size_t)j * 13 + (size_t)round * 2000) % 3001;
            rc[j] = ((size_t)j * 7 + (size_t)r * 13 + (size_t)round * 2000) % 3001;
            sd[j] = stot;
            rd[j] = rtot + 5; /* gaps between blocks */
            stot += sc[j];
            rtot += rc[j] + 5;
        }
        int32_t *s = malloc(stot * 4 + 4), *d = malloc(rtot * 4 + 4);
        CHECK(s && d);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < sc[j]; i++)
                s[sd[j] + i] = val(r, (size_t)j * 10000 + i, round);
        /* counts known */
        CHECK(meshmem_coll_alltoallv(team, s, sc, sd, d, rc, rd, rtot, NULL, MESHMEM_INT32,
                                     round % 2 ? MESHMEM_ALGO_RING : MESHMEM_ALGO_AUTO) == 0);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < rc[j]; i++)
                CHECK_EQ_LL(d[rd[j] + i], val(j, (size_t)r * 10000 + i, round));
        /* counts unknown to the receiver: learned from the messages (end of data) */
        memset(d, 0, rtot * 4);
        CHECK(meshmem_coll_alltoallv(team, s, sc, sd, d, NULL, rd, rtot, got, MESHMEM_INT32,
                                     MESHMEM_ALGO_AUTO) == 0);
        for (int j = 0; j < n; j++) {
            CHECK_EQ_LL(got[j], rc[j]);
            for (size_t i = 0; i < rc[j]; i++)
                CHECK_EQ_LL(d[rd[j] + i], val(j, (size_t)r * 10000 + i, round));
        }
        free(s);
        free(d);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(got);
}

/* the reference of a SUM: element i of val(j, ., salt) summed over the n ranks */
static int64_t sum_over_ranks(int n, size_t i, int salt)
{
    int64_t ref = 0;
    for (int j = 0; j < n; j++)
        ref += val(j, i, salt);
    return ref;
}

/* teams that each keep a staging buffer of the largest size (run with a small
 * MESHMEM_STAGE_SIZE): two more teams of every rank, each broadcasting a private vector larger
 * than staging; the arena cannot hold the three teams' kept buffers at once, so a team's
 * staging must take the idle buffers of the others */
static void test_stage_teams(void)
{
    size_t c = 40000;
    meshmem_team_t t[2];
    int32_t *a = buf_alloc(c * 4, 0);
    for (int k = 0; k < 2; k++)
        CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, 0, 1, np, &t[k]) == 0);
    for (int round = 0; round < 3; round++) {
        meshmem_team_t team = round < 2 ? t[round] : MESHMEM_TEAM_WORLD;
        for (size_t i = 0; i < c; i++)
            a[i] = me == 0 ? val(0, i, 17 + round) : -1;
        CHECK(meshmem_coll_bcast(team, a, c, MESHMEM_INT32, 0, MESHMEM_ALGO_AUTO) == 0);
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(a[i], val(0, i, 17 + round));
    }
    for (int k = 0; k < 2; k++)
        meshmem_team_destroy(t[k]);
    buf_free(a, 0);
}

/* all-reduce, reduce at the first and last root, and reduce-scatter of vectors that do not
 * divide by the team (slices of two sizes) and exceed staging (run with a small
 * MESHMEM_STAGE_SIZE: rounds), private and symmetric buffers */
static void test_reduce_rounds(meshmem_team_t team, int sym)
{
    static const size_t big[] = {40001, 100003};
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    for (size_t ci = 0; ci < sizeof(big) / sizeof(big[0]); ci++) {
        size_t c = big[ci];
        int64_t *a = buf_alloc(c * 8, sym), *b = buf_alloc(c * 8, sym);
        for (size_t i = 0; i < c; i++)
            a[i] = val(r, i, 13);
        memset(b, 0, c * 8);
        CHECK(meshmem_coll_allreduce(team, a, b, c, MESHMEM_INT64, MESHMEM_OP_SUM,
                                     MESHMEM_ALGO_AUTO) == 0);
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(b[i], sum_over_ranks(n, i, 13));
        int roots[2] = {0, n - 1};
        for (int k = 0; k < 2; k++) {
            memset(b, 0, c * 8);
            CHECK(meshmem_coll_reduce(team, a, b, c, MESHMEM_INT64, MESHMEM_OP_SUM, roots[k],
                                      MESHMEM_ALGO_AUTO) == 0);
            if (r == roots[k])
                for (size_t i = 0; i < c; i++)
                    CHECK_EQ_LL(b[i], sum_over_ranks(n, i, 13));
        }
        size_t rc = c / (size_t)n; /* reduce-scatter: rc of the first rc * n elements each */
        memset(b, 0, c * 8);
        CHECK(meshmem_coll_reduce_scatter(team, a, b, rc, MESHMEM_INT64, MESHMEM_OP_SUM,
                                          MESHMEM_ALGO_AUTO) == 0);
        for (size_t i = 0; i < rc; i++)
            CHECK_EQ_LL(b[i], sum_over_ranks(n, (size_t)r * rc + i, 13));
        buf_free(b, sym);
        buf_free(a, sym);
    }
}

static void test_reductions(meshmem_team_t team, int sym)
{
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    static const meshmem_algo_t algos[] = {
        MESHMEM_ALGO_AUTO, MESHMEM_ALGO_ONESTEP, MESHMEM_ALGO_AGGRESSIVE, MESHMEM_ALGO_NAIVE,
        MESHMEM_ALGO_RING, MESHMEM_ALGO_RECDBL,  MESHMEM_ALGO_LEADER};
    for (size_t ci = 0; ci < reduce_counts; ci++) {
        size_t c = counts[ci];
        int64_t *a = buf_alloc(c * 8 * (size_t)n, sym), *b = buf_alloc(c * 8 * (size_t)n, sym);
        double *fa = buf_alloc(c * 8, sym), *fb = buf_alloc(c * 8, sym), *fc = malloc(c * 8 + 8);
        for (size_t ai = 0; ai < sizeof(algos) / sizeof(algos[0]); ai++) {
            meshmem_algo_t algo = algos[ai];
            for (size_t i = 0; i < c; i++)
                a[i] = val(r, i, 7);
            CHECK(meshmem_coll_allreduce(team, a, b, c, MESHMEM_INT64, MESHMEM_OP_SUM, algo) == 0);
            for (size_t i = 0; i < c; i++)
                CHECK_EQ_LL(b[i], sum_over_ranks(n, i, 7));
            /* in place, max */
            for (size_t i = 0; i < c; i++)
                b[i] = val(r, i, 8) ^ (r * 77);
            CHECK(meshmem_coll_allreduce(team, MESHMEM_IN_PLACE, b, c, MESHMEM_INT64,
                                         MESHMEM_OP_MAX, algo) == 0);
            for (size_t i = 0; i < c; i++) {
                int64_t ref = INT64_MIN;
                for (int j = 0; j < n; j++)
                    ref = (val(j, i, 8) ^ (j * 77)) > ref ? (val(j, i, 8) ^ (j * 77)) : ref;
                CHECK_EQ_LL(b[i], ref);
            }
            /* floats: every rank must get the same bits */
            for (size_t i = 0; i < c; i++)
                fa[i] = 1.0 / (double)(val(r, i, 9) % 1000 + 3) * (r % 2 ? 1e-8 : 1e8);
            CHECK(meshmem_coll_allreduce(team, fa, fb, c, MESHMEM_FLOAT64, MESHMEM_OP_SUM, algo) ==
                  0);
            CHECK(meshmem_coll_bcast(team, fb, c, MESHMEM_FLOAT64, 0, MESHMEM_ALGO_AUTO) == 0 || 1);
            memcpy(fc, fb, c * 8);
            CHECK(meshmem_coll_allreduce(team, fa, fb, c, MESHMEM_FLOAT64, MESHMEM_OP_SUM, algo) ==
                  0);
            CHECK(memcmp(fc, fb, c * 8) == 0); /* deterministic */
            double *root = malloc(c * 8 + 8);
            CHECK(root != NULL);
            memcpy(root, fb, c * 8);
            CHECK(meshmem_coll_bcast(team, root, c, MESHMEM_FLOAT64, 0, MESHMEM_ALGO_AUTO) == 0);
            CHECK(memcmp(root, fb, c * 8) == 0); /* identical on every rank */
            free(root);
        }
        /* reduce at every root, reduce_scatter */
        for (int rt = 0; rt < n; rt++) {
            for (size_t i = 0; i < c; i++)
                a[i] = val(r, i, 10);
            memset(b, 0, c * 8);
            CHECK(meshmem_coll_reduce(team, a, b, c, MESHMEM_INT64, MESHMEM_OP_XOR, rt,
                                      MESHMEM_ALGO_AUTO) == 0);
            if (r == rt)
                for (size_t i = 0; i < c; i++) {
                    int64_t ref = 0;
                    for (int j = 0; j < n; j++)
                        ref ^= val(j, i, 10);
                    CHECK_EQ_LL(b[i], ref);
                }
            /* in place (the vector and the result in b), with the hint mixed between members
             * (reduce has one algorithm: AUTO = AGGRESSIVE), on the line path (up to 48 B)
             * and above it: the same path everywhere, no hang */
            for (size_t i = 0; i < c; i++)
                b[i] = val(r, i, 12);
            CHECK(meshmem_coll_reduce(team, MESHMEM_IN_PLACE, b, c, MESHMEM_INT64, MESHMEM_OP_SUM,
                                      rt,
                                      r % 2 ? MESHMEM_ALGO_AGGRESSIVE : MESHMEM_ALGO_AUTO) == 0);
            if (r == rt)
                for (size_t i = 0; i < c; i++)
                    CHECK_EQ_LL(b[i], sum_over_ranks(n, i, 12));
        }
        for (size_t i = 0; i < c * (size_t)n; i++)
            a[i] = val(r, i, 11);
        CHECK(meshmem_coll_reduce_scatter(team, a, b, c, MESHMEM_INT64, MESHMEM_OP_SUM,
                                          MESHMEM_ALGO_AUTO) == 0);
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(b[i], sum_over_ranks(n, (size_t)r * c + i, 11));
        free(fc);
        buf_free(fb, sym);
        buf_free(fa, sym);
        buf_free(b, sym);
        buf_free(a, sym);
    }
}

static void test_errors(void)
{
    int32_t x = 0;
    CHECK(meshmem_coll_bcast(MESHMEM_TEAM_WORLD, &x, 1, MESHMEM_INT32, np, MESHMEM_ALGO_AUTO) ==
          MESHMEM_ERR_RANK);
    CHECK(meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &x, &x, 1, MESHMEM_FLOAT32, MESHMEM_OP_XOR,
                                 MESHMEM_ALGO_AUTO) == MESHMEM_ERR_ARG);
    CHECK(meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &x, &x, 1, MESHMEM_INT32, MESHMEM_OP_SUM,
                                 (meshmem_algo_t)99) == MESHMEM_ERR_ARG);
    CHECK(meshmem_coll_bcast(MESHMEM_TEAM_WORLD, &x, 1, MESHMEM_INT32, 0, MESHMEM_ALGO_RING) ==
          MESHMEM_ERR_UNSUPPORTED);
    /* the node-leader form is a form of five calls only */
    int32_t blocks[8 * 64];
    CHECK(meshmem_coll_scatter(MESHMEM_TEAM_WORLD, blocks, &x, 1, MESHMEM_INT32, 0,
                               MESHMEM_ALGO_LEADER) == MESHMEM_ERR_UNSUPPORTED);
}

/* a randomized sequence of mixed collectives with no barrier between them */
static void test_random_mix(meshmem_team_t team)
{
    int n = meshmem_team_size(team), r = meshmem_team_rank(team);
    uint64_t x = 42; /* same seed everywhere: same sequence of calls */
    int64_t *a = malloc(8 * 4096 * (size_t)n), *b = malloc(8 * 4096 * (size_t)n);
    CHECK(a && b);
    for (int it = 0; it < 600; it++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t c = (x >> 33) % (it % 50 == 0 ? 4096 : 40);
        int root = (int)((x >> 20) % (uint64_t)n), kind = (int)((x >> 50) % 4);
        for (size_t i = 0; i < c * (size_t)n; i++)
            a[i] = val(r, i, it);
        switch (kind) {
        case 0:
            CHECK(meshmem_coll_allreduce(team, a, b, c, MESHMEM_INT64, MESHMEM_OP_SUM,
                                         MESHMEM_ALGO_AUTO) == 0);
            for (size_t i = 0; i < c; i++) {
                int64_t ref = 0;
                for (int j = 0; j < n; j++)
                    ref += val(j, i, it);
                CHECK_EQ_LL(b[i], ref);
            }
            break;
        case 1:
            CHECK(meshmem_coll_bcast(team, a, c, MESHMEM_INT64, root, MESHMEM_ALGO_AUTO) == 0);
            for (size_t i = 0; i < c; i++)
                CHECK_EQ_LL(a[i], val(root, i, it));
            break;
        case 2:
            CHECK(meshmem_coll_alltoall(team, a, b, c, MESHMEM_INT64, MESHMEM_ALGO_AUTO) == 0);
            for (int j = 0; j < n; j++)
                for (size_t i = 0; i < c; i++)
                    CHECK_EQ_LL(b[(size_t)j * c + i], val(j, (size_t)r * c + i, it));
            break;
        case 3:
            CHECK(meshmem_coll_gather(team, a, b, c, MESHMEM_INT64, root, MESHMEM_ALGO_AUTO) == 0);
            if (r == root)
                for (int j = 0; j < n; j++)
                    for (size_t i = 0; i < c; i++)
                        CHECK_EQ_LL(b[(size_t)j * c + i], val(j, i, it));
            break;
        }
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    me = meshmem_rank();
    np = meshmem_nranks();
    mm_test_rank_hint = me;
    const char *part = argc > 1 ? argv[1] : "all";
    bool all = !strcmp(part, "all");
    if (all || !strcmp(part, "rooted"))
        for (int sym = 0; sym < 2; sym++)
            test_bcast_scatter_gather(MESHMEM_TEAM_WORLD, sym);
    if (all || !strcmp(part, "rounds")) {
        for (int sym = 0; sym < 2; sym++) {
            test_rooted_rounds(MESHMEM_TEAM_WORLD, sym);
            test_reduce_rounds(MESHMEM_TEAM_WORLD, sym);
        }
        test_stage_teams();
    }
    if (all || !strcmp(part, "gather"))
        for (int sym = 0; sym < 2; sym++) {
            test_allgather_alltoall(MESHMEM_TEAM_WORLD, sym, MESHMEM_ALGO_ONESTEP);
            test_allgather_alltoall(MESHMEM_TEAM_WORLD, sym, MESHMEM_ALGO_RING);
            test_allgather_alltoall(MESHMEM_TEAM_WORLD, sym, MESHMEM_ALGO_LEADER);
        }
    if (all || !strcmp(part, "v"))
        test_alltoallv(MESHMEM_TEAM_WORLD);
    if (argc > 2 && !strcmp(argv[2], "short"))
        reduce_counts = 7; /* 0 to 1025 */
    if (all || !strcmp(part, "reduce"))
        for (int sym = 0; sym < 2; sym++)
            test_reductions(MESHMEM_TEAM_WORLD, sym);
    if (all || !strcmp(part, "teams")) {
        /* odd-numbered ranks, and the 2-D split, run collectives on their own */
        meshmem_team_t odd = MESHMEM_TEAM_INVALID, x = MESHMEM_TEAM_INVALID,
                       y = MESHMEM_TEAM_INVALID;
        if (np > 1)
            CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, 1, 2, np / 2, &odd) == 0);
        if (odd != MESHMEM_TEAM_INVALID) {
            test_bcast_scatter_gather(odd, 0);
            test_random_mix(odd);
            meshmem_team_destroy(odd);
        }
        CHECK(meshmem_team_split_2d(MESHMEM_TEAM_WORLD, 2, &x, &y) == 0);
        test_allgather_alltoall(x, 0, MESHMEM_ALGO_AUTO);
        test_random_mix(y);
        meshmem_team_destroy(x);
        meshmem_team_destroy(y);
    }
    if (all || !strcmp(part, "mix"))
        test_random_mix(MESHMEM_TEAM_WORLD);
    if (all || !strcmp(part, "errors"))
        test_errors();
    meshmem_finalize();
    return 0;
}
