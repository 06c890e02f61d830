/*
 * Collectives on GHC (r = 2) teams against serial references and against the full mesh:
 *
 *   shapes      every MPI-like collective on teams of shape 4x2, 2x4, 2x2, 3x2, 2x3, 1xN, Nx1,
 *               2x1, 1x2 (those that fit the job), and on a full-mesh team of the same members:
 *               all roots, sizes 0 / 1 / odd / above the eager size, private and symmetric
 *               buffers, in place; floating-point reductions equal the serial member-order fold
 *               bit for bit on both topologies
 *   sym         the symmetric (OpenSHMEM) collectives on the message engine against the
 *               reference two-step ones (mm_ref_*) on random inputs, full mesh and GHC
 *   concurrent  two disjoint GHC teams (the two halves of the job) running collectives at once
 *   errors      shapes that do not factor the team, the topology queries
 *   env KX KY   the world team took MESHMEM_TOPOLOGY: its shape is KX x KY; collectives on it
 */
#include "meshmem_coll.h"
#include "coll_reference.h"
#include "mm_coll.h"
#include "mm_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mm_test_rank_hint = -1;
static int me, np;

#define MAXC 20000 /* elements per block: 80 KB of int32, far above the 4 KB eager size */
#define BUFB ((size_t)MAXC * 8 * 8 + 4096)
static char *symbuf[4], *privbuf[4];

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* inputs of team rank r, element i, for test salt s: small ints, and doubles of mixed scale */
static int32_t ival(int r, size_t i, int s)
{
    return (int32_t)(mix((uint32_t)r * 7919u + (uint32_t)i * 104729u + (uint32_t)s * 15485863u) %
                     2001u) -
           1000;
}

static double dval(int r, size_t i, int s)
{
    uint32_t h = mix((uint32_t)r * 31u + (uint32_t)i * 1000003u + (uint32_t)s * 97u);
    double m = (double)(h % 1000003u) / 1000003.0;
    return (h & 1 ? -m : m) * (double)(1u << (h >> 27));
}

static void *buf(int k, int sym)
{
    return sym ? symbuf[k] : privbuf[k];
}

/* 2040: the -v forms' blocks (vcount) fall on both sides of the eager size in one call */
static const size_t counts[] = {0, 1, 7, 13, 1500, 2040, MAXC};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

static void rooted(meshmem_team_t t, int sym, size_t c)
{
    int n = meshmem_team_size(t), r = meshmem_team_rank(t);
    int32_t *a = buf(0, sym), *b = buf(1, sym);
    for (int root = 0; root < n; root++) {
        for (size_t i = 0; i < c; i++)
            a[i] = r == root ? ival(root, i, 1) : -1;
        CHECK(meshmem_coll_bcast(t, a, c, MESHMEM_INT32, root, MESHMEM_ALGO_AUTO) == 0);
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(a[i], ival(root, i, 1));
        for (size_t i = 0; i < c * (size_t)n; i++)
            a[i] = ival(r, i, 2);
        memset(b, 0xff, c * 4);
        CHECK(meshmem_coll_scatter(t, a, b, c, MESHMEM_INT32, root, MESHMEM_ALGO_AUTO) == 0);
        for (size_t i = 0; i < c; i++)
            CHECK_EQ_LL(b[i], ival(root, (size_t)r * c + i, 2));
        for (size_t i = 0; i < c; i++)
            a[i] = ival(r, i, 3);
        memset(b, 0xff, c * 4 * (size_t)n);
        bool inplace = root % 2 && r == root;
        if (inplace)
            memcpy(b + (size_t)r * c, a, c * 4);
        CHECK(meshmem_coll_gather(t, inplace ? MESHMEM_IN_PLACE : a, b, c, MESHMEM_INT32, root,
                                  MESHMEM_ALGO_AUTO) == 0);
        if (r == root)
            for (int j = 0; j < n; j++)
                for (size_t i = 0; i < c; i++)
                    CHECK_EQ_LL(b[(size_t)j * c + i], ival(j, i, 3));
        /* reduce: int sum against the serial sum, doubles against the member-order fold */
        for (size_t i = 0; i < c; i++)
            a[i] = ival(r, i, 4);
        CHECK(meshmem_coll_reduce(t, a, b, c, MESHMEM_INT32, MESHMEM_OP_SUM, root,
                                  MESHMEM_ALGO_AUTO) == 0);
        if (r == root)
            for (size_t i = 0; i < c; i++) {
                int64_t s = 0;
                for (int j = 0; j < n; j++)
                    s += ival(j, i, 4);
                CHECK_EQ_LL(b[i], s);
            }
        double *da = buf(2, sym), *db = buf(3, sym);
        for (size_t i = 0; i < c; i++)
            da[i] = dval(r, i, 5 + root);
        CHECK(meshmem_coll_reduce(t, da, db, c, MESHMEM_FLOAT64, MESHMEM_OP_SUM, root,
                                  MESHMEM_ALGO_AUTO) == 0);
        if (r == root)
            for (size_t i = 0; i < c; i++) {
                double s = dval(0, i, 5 + root);
                for (int j = 1; j < n; j++)
                    s += dval(j, i, 5 + root);
                CHECK(memcmp(&db[i], &s, 8) == 0);
            }
    }
}

/* count member s sends member d in an all-to-all-v (c: the size class) */
static size_t vcount(int s, int d, size_t c)
{
    return ((size_t)s * 3 + (size_t)d * 5 + c) % 7 + c / 2;
}

static void symmetric(meshmem_team_t t, int sym, size_t c)
{
    int n = meshmem_team_size(t), r = meshmem_team_rank(t);
    int32_t *a = buf(0, sym), *b = buf(1, sym);
    /* all-gather, then in place */
    for (int inplace = 0; inplace < 2; inplace++) {
        for (size_t i = 0; i < c; i++)
            a[i] = ival(r, i, 10 + inplace);
        memset(b, 0xff, c * 4 * (size_t)n);
        if (inplace)
            memcpy(b + (size_t)r * c, a, c * 4);
        CHECK(meshmem_coll_allgather(t, inplace ? MESHMEM_IN_PLACE : a, b, c, MESHMEM_INT32,
                                     MESHMEM_ALGO_AUTO) == 0);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < c; i++)
                CHECK_EQ_LL(b[(size_t)j * c + i], ival(j, i, 10 + inplace));
    }
    /* all-gather-v, blocks side by side (gap 0) and with gaps between them */
    size_t *cnt = malloc(sizeof(size_t) * 2 * (size_t)n), *dis = cnt + n;
    CHECK(cnt != NULL);
    for (size_t gap = 0; gap < 4; gap += 3) {
        size_t at = 0;
        for (int j = 0; j < n; j++) {
            cnt[j] = vcount(j, 0, c);
            dis[j] = at;
            at += cnt[j] + gap;
        }
        for (size_t i = 0; i < cnt[r]; i++)
            a[i] = ival(r, i, 12);
        memset(b, 0xff, at * 4);
        CHECK(meshmem_coll_allgatherv(t, a, cnt[r], b, cnt, dis, MESHMEM_INT32,
                                      MESHMEM_ALGO_AUTO) == 0);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < cnt[j]; i++)
                CHECK_EQ_LL(b[dis[j] + i], ival(j, i, 12));
    }
    /* all-to-all, then in place */
    for (int inplace = 0; inplace < 2; inplace++) {
        for (size_t i = 0; i < c * (size_t)n; i++)
            (inplace ? b : a)[i] = ival(r, i, 13);
        if (!inplace)
            memset(b, 0xff, c * 4 * (size_t)n);
        CHECK(meshmem_coll_alltoall(t, inplace ? MESHMEM_IN_PLACE : a, b, c, MESHMEM_INT32,
                                    MESHMEM_ALGO_AUTO) == 0);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < c; i++)
                CHECK_EQ_LL(b[(size_t)j * c + i], ival(j, (size_t)r * c + i, 13));
    }
    /* all-to-all-v, counts known, then unknown (learned from the messages) */
    size_t *sc = malloc(sizeof(size_t) * 5 * (size_t)n), *sd = sc + n, *rc = sc + 2 * n,
           *rd = sc + 3 * n, *got = sc + 4 * n;
    CHECK(sc != NULL);
    size_t sat = 0, rat = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = vcount(r, j, c);
        sd[j] = sat;
        sat += sc[j];
        rc[j] = vcount(j, r, c);
        rd[j] = rat;
        rat += rc[j] + 1;
    }
    for (size_t i = 0; i < sat; i++)
        a[i] = ival(r, i, 14);
    for (int known = 0; known < 2; known++) {
        memset(b, 0xff, rat * 4);
        CHECK(meshmem_coll_alltoallv(t, a, sc, sd, b, known ? rc : NULL, rd, rat, got,
                                     MESHMEM_INT32, MESHMEM_ALGO_AUTO) == 0);
        for (int j = 0; j < n; j++) {
            CHECK_EQ_LL(got[j], rc[j]);
            size_t from = 0; /* where j's block for me starts in j's send buffer */
            for (int k = 0; k < r; k++)
                from += vcount(j, k, c);
            for (size_t i = 0; i < rc[j]; i++)
                CHECK_EQ_LL(b[rd[j] + i], ival(j, from + i, 14));
        }
    }
    free(sc);
    free(cnt);
    /* all-reduce, every per-dimension algorithm, doubles bitwise equal to the serial fold */
    static const meshmem_algo_t algos[] = {MESHMEM_ALGO_AUTO, MESHMEM_ALGO_ONESTEP,
                                           MESHMEM_ALGO_AGGRESSIVE, MESHMEM_ALGO_NAIVE};
    double *da = buf(2, sym), *db = buf(3, sym);
    for (size_t k = 0; k < sizeof(algos) / sizeof(algos[0]); k++) {
        bool inplace = k % 2;
        for (size_t i = 0; i < c; i++)
            da[i] = dval(r, i, 20 + (int)k);
        CHECK(meshmem_coll_allreduce(t, inplace ? MESHMEM_IN_PLACE : da, inplace ? da : db, c,
                                     MESHMEM_FLOAT64, MESHMEM_OP_SUM, algos[k]) == 0);
        const double *res = inplace ? da : db;
        for (size_t i = 0; i < c; i++) {
            double s = dval(0, i, 20 + (int)k);
            for (int j = 1; j < n; j++)
                s += dval(j, i, 20 + (int)k);
            CHECK(memcmp(&res[i], &s, 8) == 0);
        }
        for (size_t i = 0; i < c; i++)
            a[i] = ival(r, i, 30 + (int)k);
        CHECK(meshmem_coll_allreduce(t, a, b, c, MESHMEM_INT32, MESHMEM_OP_MAX, algos[k]) == 0);
        for (size_t i = 0; i < c; i++) {
            int32_t m = ival(0, i, 30 + (int)k);
            for (int j = 1; j < n; j++)
                m = ival(j, i, 30 + (int)k) > m ? ival(j, i, 30 + (int)k) : m;
            CHECK_EQ_LL(b[i], m);
        }
    }
    /* reduce-scatter (block form) */
    for (size_t i = 0; i < c * (size_t)n; i++)
        da[i] = dval(r, i, 40);
    CHECK(meshmem_coll_reduce_scatter(t, da, db, c, MESHMEM_FLOAT64, MESHMEM_OP_SUM,
                                      MESHMEM_ALGO_AUTO) == 0);
    for (size_t i = 0; i < c; i++) {
        size_t e = (size_t)r * c + i;
        double s = dval(0, e, 40);
        for (int j = 1; j < n; j++)
            s += dval(j, e, 40);
        CHECK(memcmp(&db[i], &s, 8) == 0);
    }
    CHECK(meshmem_coll_barrier(t) == 0);
}

static void check_team(meshmem_team_t t)
{
    for (int sym = 0; sym < 2; sym++)
        for (size_t ci = 0; ci < NCOUNTS; ci++) {
            size_t c = counts[ci];
            if (c == MAXC && meshmem_team_size(t) > 4)
                c = MAXC / 2; /* big blocks, less time at 8 ranks on 2 cores */
            rooted(t, sym, c);
            symmetric(t, sym, c);
        }
}

/* the team of the first kx*ky world ranks with topology kx x ky (0 x 0: the full mesh);
 * collective over the world; non-members get MESHMEM_TEAM_INVALID */
static meshmem_team_t make_team(int kx, int ky)
{
    int size = kx ? kx * ky : np;
    meshmem_team_t t;
    CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, 0, 1, size, &t) == 0);
    if (t != MESHMEM_TEAM_INVALID) {
        CHECK(meshmem_team_set_topology(t, kx, ky) == 0);
        int gx = -2, gy = -2;
        CHECK(meshmem_team_get_topology(t, &gx, &gy) == 0);
        CHECK_EQ_LL(gx, kx);
        CHECK_EQ_LL(gy, ky);
    }
    return t;
}

static void part_shapes(void)
{
    int shapes[][2] = {{4, 2}, {2, 4}, {2, 2}, {3, 2}, {2, 3}, {1, np}, {np, 1}, {2, 1}, {1, 2}};
    /* the full mesh of every member first, then each shape that fits */
    meshmem_team_t fm = make_team(0, 0);
    check_team(fm);
    meshmem_team_destroy(fm);
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        int kx = shapes[s][0], ky = shapes[s][1];
        if (kx * ky > np || (s >= 7 && np <= 2))
            continue;
        meshmem_team_t t = make_team(kx, ky);
        if (t != MESHMEM_TEAM_INVALID) {
            check_team(t);
            meshmem_team_destroy(t);
        }
        CHECK(meshmem_barrier(MESHMEM_TEAM_WORLD) == 0);
    }
}

/* meshmem_* (engine) against mm_ref_* (reference) on the same inputs */
static void sym_compare(meshmem_team_t t)
{
    int n = meshmem_team_size(t), r = meshmem_team_rank(t);
    static const size_t sizes[] = {0, 1, 13, 4095, 5000, 70001};
    char *src = privbuf[0], *d1 = symbuf[1], *d2 = symbuf[2], *ssrc = symbuf[0];
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t nb = sizes[si];
        for (int from_sym = 0; from_sym < 2; from_sym++) {
            char *s = from_sym ? ssrc : src;
            for (size_t i = 0; i < nb * (size_t)n; i++)
                s[i] = (char)mix((uint32_t)(r * 1000003 + (int)i + (int)si));
            for (int root = 0; root<n; root += n> 3 ? 3 : 1) {
                memset(d1, 1, nb);
                memset(d2, 2, nb);
                CHECK(meshmem_broadcast(t, d1, s, nb, root) == 0);
                CHECK(mm_ref_broadcast(t, d2, s, nb, root) == 0);
                CHECK(memcmp(d1, d2, nb) == 0);
            }
            size_t mine = (nb * (size_t)(r + 1)) / (size_t)n, total = 0;
            for (int j = 0; j < n; j++)
                total += (nb * (size_t)(j + 1)) / (size_t)n;
            memset(d1, 1, total);
            memset(d2, 2, total);
            CHECK(meshmem_collect(t, d1, s, mine) == 0);
            CHECK(mm_ref_collect(t, d2, s, mine) == 0);
            CHECK(memcmp(d1, d2, total) == 0);
            CHECK(meshmem_fcollect(t, d1, s, nb) == 0);
            CHECK(mm_ref_fcollect(t, d2, s, nb) == 0);
            CHECK(memcmp(d1, d2, nb * (size_t)n) == 0);
            CHECK(meshmem_alltoall(t, d1, s, nb) == 0);
            CHECK(mm_ref_alltoall(t, d2, s, nb) == 0);
            CHECK(memcmp(d1, d2, nb * (size_t)n) == 0);
            size_t ne = nb / 16; /* strided: 4-byte elements, dst 3, sst 2 */
            size_t span = ne ? ((size_t)n * ne - 1) * 3 * 4 + 4 : 0;
            memset(d1, 1, span);
            memset(d2, 1, span);
            CHECK(meshmem_alltoalls(t, d1, s, 3, 2, 4, ne) == 0);
            CHECK(mm_ref_alltoalls(t, d2, s, 3, 2, 4, ne) == 0);
            CHECK(memcmp(d1, d2, span) == 0);
        }
        /* all-reduce of doubles from symmetric memory, and in place */
        size_t cnt = nb / 8;
        double *x = (double *)ssrc;
        for (size_t i = 0; i < cnt; i++)
            x[i] = dval(r, i, (int)si);
        CHECK(meshmem_allreduce(t, d1, x, cnt, MESHMEM_FLOAT64, MESHMEM_OP_SUM) == 0);
        CHECK(mm_ref_allreduce(t, d2, x, cnt, MESHMEM_FLOAT64, MESHMEM_OP_SUM) == 0);
        CHECK(memcmp(d1, d2, cnt * 8) == 0);
        CHECK(meshmem_allreduce(t, x, x, cnt, MESHMEM_FLOAT64, MESHMEM_OP_SUM) == 0);
        CHECK(memcmp(x, d2, cnt * 8) == 0);
        CHECK(meshmem_barrier(t) == 0);
    }
}

static void part_sym(void)
{
    int kx, ky;
    meshmem_topology_square(np, &kx, &ky);
    meshmem_team_t fm = make_team(0, 0);
    sym_compare(fm);
    meshmem_team_destroy(fm);
    meshmem_team_t g = make_team(kx, ky);
    sym_compare(g);
    if (ky > 1 || kx > 1) { /* and transposed */
        CHECK(meshmem_team_set_topology(g, ky, kx) == 0);
        sym_compare(g);
    }
    meshmem_team_destroy(g);
}

static void part_concurrent(void)
{
    /* two halves, each a GHC of its own, running collectives at once with no barrier */
    int h = np / 2;
    if (h < 1) {
        check_team(MESHMEM_TEAM_WORLD);
        return;
    }
    meshmem_team_t lo, hi;
    CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, 0, 1, h, &lo) == 0);
    CHECK(meshmem_team_split_strided(MESHMEM_TEAM_WORLD, h, 1, np - h, &hi) == 0);
    meshmem_team_t mine = lo != MESHMEM_TEAM_INVALID ? lo : hi;
    CHECK(mine != MESHMEM_TEAM_INVALID);
    CHECK(meshmem_team_set_topology(mine, -1, -1) == 0);
    for (int round = 0; round < 3; round++) {
        rooted(mine, round % 2, counts[(size_t)round * 2 + 1]);
        symmetric(mine, round % 2, counts[(size_t)round * 2 + 1]);
    }
    meshmem_team_destroy(mine);
    CHECK(meshmem_barrier(MESHMEM_TEAM_WORLD) == 0);
}

static void part_errors(void)
{
    meshmem_team_t t = make_team(0, 0);
    int kx = -2, ky = -2;
    CHECK(meshmem_team_set_topology(t, np + 1, 1) == MESHMEM_ERR_ARG);
    CHECK(meshmem_team_set_topology(t, 0, 5) == MESHMEM_ERR_ARG);
    CHECK(meshmem_team_set_topology(t, -3, 2) == MESHMEM_ERR_ARG);
    CHECK(meshmem_team_get_topology(t, &kx, &ky) == 0 && kx == 0 && ky == 0);
    CHECK(meshmem_team_set_topology(t, -1, -1) == 0);
    int sx, sy;
    meshmem_topology_square(np, &sx, &sy);
    CHECK(meshmem_team_get_topology(t, &kx, &ky) == 0 && kx == sx && ky == sy);
    CHECK(kx >= ky && kx * ky == np);
    CHECK(meshmem_team_set_topology(MESHMEM_TEAM_INVALID, 1, 1) == MESHMEM_ERR_TEAM);
    CHECK(meshmem_team_get_topology(MESHMEM_TEAM_INVALID, &kx, &ky) == MESHMEM_ERR_TEAM);
    meshmem_topology_square(12, &sx, &sy);
    CHECK(sx == 4 && sy == 3);
    meshmem_topology_square(7, &sx, &sy);
    CHECK(sx == 7 && sy == 1);
    /* a collective still works after the failed calls, and after going back to the mesh */
    rooted(t, 0, 13);
    CHECK(meshmem_team_set_topology(t, 0, 0) == 0);
    rooted(t, 0, 13);
    meshmem_team_destroy(t);
}

int main(int argc, char **argv)
{
    CHECK(meshmem_init(MESHMEM_THREAD_SINGLE, NULL) == 0);
    me = meshmem_rank();
    np = meshmem_nranks();
    mm_test_rank_hint = me;
    for (int k = 0; k < 4; k++) {
        symbuf[k] = meshmem_malloc(BUFB);
        privbuf[k] = malloc(BUFB);
        CHECK(symbuf[k] != NULL && privbuf[k] != NULL);
    }
    const char *part = argc > 1 ? argv[1] : "shapes";
    if (!strcmp(part, "shapes")) {
        part_shapes();
    } else if (!strcmp(part, "sym")) {
        part_sym();
    } else if (!strcmp(part, "concurrent")) {
        part_concurrent();
    } else if (!strcmp(part, "errors")) {
        part_errors();
    } else if (!strcmp(part, "env")) {
        CHECK(argc == 4);
        int kx, ky;
        CHECK(meshmem_team_get_topology(MESHMEM_TEAM_WORLD, &kx, &ky) == 0);
        CHECK_EQ_LL(kx, atoi(argv[2]));
        CHECK_EQ_LL(ky, atoi(argv[3]));
        check_team(MESHMEM_TEAM_WORLD);
        sym_compare(MESHMEM_TEAM_WORLD);
    } else {
        CHECK(!"unknown part");
    }
    for (int k = 0; k < 4; k++) {
        meshmem_free(symbuf[k]);
        free(privbuf[k]);
    }
    meshmem_finalize();
    return 0;
}
