/* The collectives the rtl transport offloads in two commands (meshrun --rtl,
 * docs/rtl-transport.md): all-to-all-v (an ALLGATHER of each member's largest block, then one
 * ALLTOALLV) and all-reduce of integer sums (REDUCE_SCATTER on the averaging core, then
 * ALLGATHER); every other type and operation the runtime's algorithm over the engine's puts.
 * Checks the data against values computed here and against the runtime's algorithm (the hint
 * RING, which is never offloaded), and which path ran: the descriptors this rank queued during
 * each call, read from its slot of the job's control block (MESHMEM_RTL_FD, mm_rtl_ctl.h).
 * Rank 0 then prints the simulated cycles of each path, the same on every run. */
#include "meshmem.h"
#include "meshmem_coll.h"
#include "mm_rtl_ctl.h"
#include "mm_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int mm_test_rank_hint = -1;

static const mm_rtl_slot_t *slot; /* this rank's, in the control block */
static int me, n;

/* the descriptors this rank queued since @p from: how many, and how many of opcode @p op */
static uint64_t queued(uint64_t from, unsigned op, uint64_t *of_op)
{
    uint64_t head = atomic_load(&slot->sq_head), k = head - from;
    *of_op = 0;
    for (uint64_t i = from + (k > MM_RTL_SQ ? k - MM_RTL_SQ : 0); i < head; i++)
        *of_op += slot->sq[i % MM_RTL_SQ].op == op;
    return k;
}

static long cycles(double s0, double s1)
{
    return (long)((s1 - s0) * 200e6 + 0.5); /* at the configuration's 200 MHz */
}

static size_t a2a_huge; /* when set: the bytes from rank 0 to rank 1 */

/* a block's bytes from rank i to rank j, some of them empty */
static size_t a2a_len(int i, int j, size_t unit)
{
    if (a2a_huge && i == 0 && j == 1)
        return a2a_huge;
    return (size_t)((i * 5 + j * 3) % 4) * unit + (size_t)((i + j) % 3);
}

static unsigned char a2a_byte(int i, int j, size_t k)
{
    return (unsigned char)(i * 31 + j * 17 + (int)k);
}

/* one all-to-all-v with blocks of up to 3 * @p unit + 2 bytes, the receive counts given or
 * learnt; @return its simulated cycles; @p path: the descriptors it queued */
static long alltoallv(size_t unit, bool counts_known, meshmem_algo_t algo, uint64_t *path,
                      uint64_t *a2av)
{
    size_t *sc = calloc((size_t)n * 5, sizeof(size_t)), *sd = sc + n, *rc = sc + 2 * n,
           *rd = sc + 3 * n, *out = sc + 4 * n;
    size_t stot = 0, rtot = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = a2a_len(me, j, unit);
        sd[j] = stot;
        stot += sc[j] + 5; /* gaps between the blocks */
        rc[j] = a2a_len(j, me, unit);
        rd[j] = rtot;
        rtot += rc[j] + 3;
    }
    unsigned char *s = malloc(stot + 1), *r = malloc(rtot + 1);
    memset(s, 0xEE, stot + 1);
    memset(r, 0xDD, rtot + 1);
    for (int j = 0; j < n; j++)
        for (size_t k = 0; k < sc[j]; k++)
            s[sd[j] + k] = a2a_byte(me, j, k);
    CHECK(meshmem_coll_barrier(MESHMEM_TEAM_WORLD) == MESHMEM_OK);
    uint64_t h = atomic_load(&slot->sq_head);
    double t0 = meshmem_wtime();
    CHECK(meshmem_coll_alltoallv(MESHMEM_TEAM_WORLD, s, sc, sd, r, counts_known ? rc : NULL, rd,
                                 rtot, out, MESHMEM_BYTE, algo) == MESHMEM_OK);
    double t1 = meshmem_wtime();
    *path = queued(h, MM_RTL_OP_ALLTOALLV, a2av);
    for (int i = 0; i < n; i++) {
        CHECK_EQ_LL(out[i], rc[i]);
        for (size_t k = 0; k < rc[i]; k++)
            CHECK(r[rd[i] + k] == a2a_byte(i, me, k));
        CHECK(r[rd[i] + rc[i]] == 0xDD); /* nothing past the block */
    }
    free(s);
    free(r);
    free(sc);
    return cycles(t0, t1);
}

/* element i of rank r's vector: the signed types' without overflow in the sum (the runtime's
 * signed addition), the unsigned types' and the narrow types' wrapping */
static int64_t small(int r, size_t i)
{
    return (long)r * 100003 - (long)i * 7919 + (i % 2 ? -5000000 : 5000000);
}
static uint64_t wide(int r, size_t i)
{
    return (0xF0000000u + (uint64_t)r * 2654435761u + i * 40503u) * 0x9E3779B97F4A7C15ull;
}

/* element @p i of rank @p r's vector as @p dt into @p p; r = -1: their @p op (SUM, or MAX of
 * INT32) over every rank (float32: small integers, exact in any order) */
static void elem(meshmem_dtype_t dt, meshmem_op_t op, int r, size_t i, unsigned char *p)
{
    bool sign = dt == MESHMEM_INT32 || dt == MESHMEM_INT64;
    uint64_t x = 0;
    int32_t m = INT32_MIN;
    float f = 0;
    for (int k = r < 0 ? 0 : r; k < (r < 0 ? n : r + 1); k++) {
        x += sign ? (uint64_t)(small(k, i) * (dt == MESHMEM_INT64 ? 1000003 : 1)) : wide(k, i);
        m = (int32_t)small(k, i) > m ? (int32_t)small(k, i) : m;
        f += (float)(small(k, i) % 1000);
    }
    /* little-endian: an integer type's element is x's low bytes */
    memcpy(p,
           dt == MESHMEM_FLOAT32  ? (void *)&f
           : op == MESHMEM_OP_MAX ? (void *)&m
                                  : (void *)&x,
           meshmem_dtype_size(dt));
}

/* an all-reduce of @p count elements of @p dt with @p op (as elem's), in place or not; checked
 * against the result computed here and the runtime's ring; @return its cycles */
static long allreduce(meshmem_dtype_t dt, meshmem_op_t op, size_t count, bool in_place,
                      uint64_t *path, uint64_t *rs)
{
    size_t es = meshmem_dtype_size(dt);
    unsigned char *src = malloc(count * es + 1), *dst = malloc(count * es + 1),
                  *want = malloc(count * es + 1), *ring = malloc(count * es + 1);
    for (size_t i = 0; i < count; i++) {
        elem(dt, op, me, i, src + i * es);
        elem(dt, op, -1, i, want + i * es);
    }
    dst[count * es] = 0xDD;
    if (in_place)
        memcpy(dst, src, count * es);
    CHECK(meshmem_coll_barrier(MESHMEM_TEAM_WORLD) == MESHMEM_OK);
    uint64_t h = atomic_load(&slot->sq_head);
    double t0 = meshmem_wtime();
    CHECK(meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, in_place ? MESHMEM_IN_PLACE : src, dst, count,
                                 dt, op, MESHMEM_ALGO_AUTO) == MESHMEM_OK);
    double t1 = meshmem_wtime();
    *path = queued(h, MM_RTL_OP_REDUCE_SCATTER, rs);
    CHECK(memcmp(dst, want, count * es) == 0);
    CHECK(dst[count * es] == 0xDD);
    CHECK(meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, src, ring, count, dt, op, MESHMEM_ALGO_RING) ==
          MESHMEM_OK);
    CHECK(memcmp(dst, ring, count * es) == 0); /* the runtime's result, bit for bit */
    free(src);
    free(dst);
    free(want);
    free(ring);
    return cycles(t0, t1);
}

int main(void)
{
    CHECK(meshmem_init(0, NULL) == MESHMEM_OK);
    me = meshmem_rank();
    n = meshmem_nranks();
    mm_test_rank_hint = me;
    const char *fd = getenv("MESHMEM_RTL_FD");
    CHECK(fd != NULL); /* run under meshrun --rtl */
    const mm_rtl_ctl_t *ctl =
        mmap(NULL, mm_rtl_ctl_bytes((uint32_t)n), PROT_READ, MAP_SHARED, atoi(fd), 0);
    CHECK(ctl != MAP_FAILED && ctl->magic == MM_RTL_CTL_MAGIC && ctl->nranks == (uint32_t)n);
    slot = &ctl->rank[me];

    /* all-to-all-v: eager (blocks up to 26 B) and rendezvous (up to 12 KiB, over the 8 KiB
     * threshold), counts given and learnt: two descriptors, the second the ALLTOALLV */
    uint64_t path, hits;
    long c_a2av = 0;
    for (int big = 0; big < 2; big++)
        for (int known = 0; known < 2; known++) {
            long c = alltoallv(big ? 4096 : 8, known, MESHMEM_ALGO_AUTO, &path, &hits);
            CHECK_EQ_LL(path, 2);
            CHECK_EQ_LL(hits, 1);
            if (!big && known)
                c_a2av = c;
        }
    /* the runtime's algorithm (a named hint is never offloaded): no ALLTOALLV */
    long c_a2av_ring = alltoallv(8, true, MESHMEM_ALGO_RING, &path, &hits);
    CHECK(path >= 1 && hits == 0); /* its messages, no ALLTOALLV */
    /* one block from rank 0 to rank 1 that does not fit the collectives' area (4 MiB a half,
     * MM_RTL_COLL in mm_rtl.c): every member declines after the length exchange, rank 1 and
     * the others too though their own blocks are small, and the runtime's algorithm moves it */
    a2a_huge = (4u << 20) / (size_t)n + 64;
    alltoallv(8, me % 2, MESHMEM_ALGO_AUTO, &path, &hits);
    CHECK(path >= 2 && hits == 0); /* the exchange's ALLGATHER, then messages */
    a2a_huge = 0;

    /* all-reduce: integer sums of every width on the averaging core (a count not a multiple of
     * the team, one smaller than the team, in place), two descriptors, the first the
     * REDUCE_SCATTER; a float32 sum and an int32 max the runtime's */
    const size_t counts[] = {1, 7, 256, 1000};
    const meshmem_dtype_t sums[] = {MESHMEM_INT32,  MESHMEM_UINT32, MESHMEM_INT8,
                                    MESHMEM_UINT16, MESHMEM_INT64,  MESHMEM_UINT64};
    long c_i32 = 0, c_f32 = 0;
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
        for (size_t t = 0; t < sizeof(sums) / sizeof(sums[0]); t++)
            for (int ip = 0; ip < 2; ip++) {
                long c = allreduce(sums[t], MESHMEM_OP_SUM, counts[k], ip, &path, &hits);
                CHECK(path == 2 && hits == 1);
                c_i32 = sums[t] == MESHMEM_INT32 && counts[k] == 256 && !ip ? c : c_i32;
            }
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        long c = allreduce(MESHMEM_FLOAT32, MESHMEM_OP_SUM, counts[k], false, &path, &hits);
        CHECK(path >= 1 && hits == 0); /* no REDUCE_SCATTER */
        c_f32 = counts[k] == 256 ? c : c_f32;
        allreduce(MESHMEM_INT32, MESHMEM_OP_MAX, counts[k], false, &path, &hits);
        CHECK(path >= 1 && hits == 0);
    }
    if (me == 0)
        printf("rtl_coll: %d ranks: alltoallv of up to 26 B blocks %ld cycles (ring %ld); "
               "allreduce of 1 KiB int32 sum %ld cycles (float32 sum, the runtime's: %ld)\n",
               n, c_a2av, c_a2av_ring, c_i32, c_f32);
    munmap((void *)ctl, mm_rtl_ctl_bytes((uint32_t)n));
    meshmem_finalize();
    return 0;
}
