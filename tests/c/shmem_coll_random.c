/*
 * A randomized run of a few thousand mixed team collectives: every PE draws the same sequence
 * (team, collective, size, root) from one seed; the members of the drawn team run it, the
 * others go straight on, so collectives on different teams overlap and none is separated from
 * the next by a barrier. Each result is checked by a checksum against the one computed from
 * the serial reference. Floating-point reductions of inexact values are checked to be bitwise
 * identical on every member (max and min of the bits, by a second collective) and close to the
 * serial sum.
 */
#include "shmem_coll_test.h"

#include <math.h>

int mm_test_rank_hint = -1;

#define MAX_ELEMS 6000
static int64_t src[MAX_ELEMS * 8 * 2], dst[MAX_ELEMS * 8 * 2]; /* symmetric (bss) */
static uint64_t bits_src[1], bits_max[1], bits_min[1];

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void) /* xorshift64*, the same sequence on every PE */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717u;
}

/* element i of member r's contribution to operation k */
static int64_t val(int k, int r, size_t i)
{
    return (int64_t)((uint64_t)k * 1000003u + (uint64_t)r * 7919u + i * 31u) % 100000 - 50000;
}

static uint64_t checksum(const int64_t *p, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)p[i]) * 1099511628211u;
    return h;
}

enum {
    OP_BCAST,
    OP_COLLECT,
    OP_FCOLLECT,
    OP_ALLTOALL,
    OP_ALLTOALLS,
    OP_SUM,
    OP_MAX,
    OP_XOR,
    OP_FSUM,
    OP_DSUM,
    OP_KINDS
};
static const char *const op_names[OP_KINDS] = {"broadcast", "collect",   "fcollect", "alltoall",
                                               "alltoalls", "sum",       "max",      "xor",
                                               "float sum", "double sum"};

static void run_one(int k, shmem_team_t team, const char *tn, int op, size_t n, int root)
{
    int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);
    static int64_t ref[MAX_ELEMS * 8 * 2];
    size_t count = 0; /* elements of dst to compare */
    switch (op) {
    case OP_BCAST:
        for (size_t i = 0; i < n; i++)
            src[i] = val(k, me, i);
        CHECK(shmem_int64_broadcast(team, dst, src, n, root) == 0);
        for (size_t i = 0; i < n; i++)
            ref[i] = val(k, root, i);
        count = n;
        break;
    case OP_COLLECT:
        for (size_t i = 0; i < n + (size_t)me; i++)
            src[i] = val(k, me, i);
        CHECK(shmem_collectmem(team, dst, src, (n + (size_t)me) * sizeof(int64_t)) == 0);
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n + (size_t)r; i++)
                ref[count++] = val(k, r, i);
        break;
    case OP_FCOLLECT:
        for (size_t i = 0; i < n; i++)
            src[i] = val(k, me, i);
        CHECK(shmem_int64_fcollect(team, dst, src, n) == 0);
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++)
                ref[count++] = val(k, r, i);
        break;
    case OP_ALLTOALL:
        for (size_t i = 0; i < n * (size_t)np; i++)
            src[i] = val(k, me, i);
        CHECK(shmem_int64_alltoall(team, dst, src, n) == 0);
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++)
                ref[count++] = val(k, r, (size_t)me * n + i);
        break;
    case OP_ALLTOALLS:
        for (size_t i = 0; i < n * (size_t)np; i++)
            src[2 * i] = val(k, me, i);
        for (size_t i = 0; i < n * (size_t)np; i++)
            dst[2 * i + 1] = -1;
        CHECK(shmem_int64_alltoalls(team, dst, src, 2, 2, n) == 0);
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++) {
                ref[count++] = val(k, r, (size_t)me * n + i);
                ref[count++] = -1;
            }
        break;
    case OP_SUM:
    case OP_MAX:
    case OP_XOR:
        for (size_t i = 0; i < n; i++)
            src[i] = val(k, me, i);
        CHECK((op == OP_SUM   ? shmem_int64_sum_reduce(team, dst, src, n)
               : op == OP_MAX ? shmem_long_max_reduce(team, (long *)dst, (long *)src, n)
                              : shmem_xor_reduce(team, dst, src, n)) == 0);
        for (size_t i = 0; i < n; i++) {
            int64_t a = val(k, 0, i);
            for (int r = 1; r < np; r++) {
                int64_t b = val(k, r, i);
                a = op == OP_SUM ? a + b : op == OP_MAX ? (b > a ? b : a) : a ^ b;
            }
            ref[count++] = a;
        }
        break;
    case OP_FSUM:
    case OP_DSUM: {
        /* inexact values: the result depends on the order of the additions, and every member
         * must still get the same bits */
        double x = 0, want = 0;
        for (int r = 0; r < np; r++)
            want += 0.1 * (double)(val(k, r, 0) % 1000) / 3.0;
        double mine = 0.1 * (double)(val(k, me, 0) % 1000) / 3.0;
        if (op == OP_FSUM) {
            float *fs = (float *)(void *)src, *fd = (float *)(void *)dst;
            fs[0] = (float)mine;
            CHECK(shmem_float_sum_reduce(team, fd, fs, 1) == 0);
            x = fd[0];
            uint32_t b;
            memcpy(&b, &fd[0], 4);
            bits_src[0] = b;
        } else {
            double *ds = (double *)(void *)src, *dd = (double *)(void *)dst;
            ds[0] = mine;
            CHECK(shmem_double_sum_reduce(team, dd, ds, 1) == 0);
            x = dd[0];
            memcpy(&bits_src[0], &dd[0], 8);
        }
        CHECK(shmem_uint64_max_reduce(team, bits_max, bits_src, 1) == 0);
        CHECK(shmem_uint64_min_reduce(team, bits_min, bits_src, 1) == 0);
        CHECK_COLL(bits_max[0] == bits_src[0] && bits_min[0] == bits_src[0], op_names[op],
                   "bits identical on every member", tn, 0);
        CHECK_COLL(fabs(x - want) <= 1e-3 * (1 + fabs(want)), op_names[op], "close to serial", tn,
                   0);
        return;
    }
    }
    if (checksum(dst, count) != checksum(ref, count)) {
        for (size_t i = 0; i < count; i++)
            CHECK_COLL(dst[i] == ref[i], op_names[op], "int64 (checksum)", tn, i);
    }
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    mm_test_rank_hint = me;
    int ops = argc > 1 ? atoi(argv[1]) : 4000;
    shmem_team_t teams[TEAM_COUNT];
    test_teams_create(teams);
    int ran = 0;
    for (int k = 0; k < ops; k++) {
        int t = (int)(rng() % TEAM_COUNT), op = (int)(rng() % OP_KINDS);
        uint64_t z = rng();
        size_t cnt = z % 16 == 0 ? (size_t)(rng() % MAX_ELEMS) : (size_t)(rng() % 40);
        int root_draw = (int)(rng() % 64);
        if (teams[t] == SHMEM_TEAM_INVALID)
            continue; /* not a member: the others run it without us */
        int root = root_draw % shmem_team_n_pes(teams[t]);
        run_one(k, teams[t], test_team_names[t], op, cnt, root);
        ran++;
    }
    shmem_barrier_all();
    if (me == 0)
        printf("shmem_coll_random: %d collectives drawn, %d run on PE 0 (%d PEs), all correct\n",
               ops, ran, n);
    test_teams_destroy(teams);
    shmem_finalize();
    return 0;
}
