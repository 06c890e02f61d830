/* The rtl transport (meshrun --rtl, docs/rtl-transport.md): every operation to a peer through
 * the simulated OPTWEB engine, the collectives offloaded to it, and simulated time. Checks the
 * data of put, get (private and symmetric buffers, more than the staging holds), AMOs of 2, 4 and
 * 8 bytes from every rank, put with signal, barrier, broadcast, all-to-all, all-gather; then
 * prints the simulated time of a few operations on rank 0, which a second run must print alike
 * (tests/c/rtl.cmake compares two runs), and checks that every rank left meshmem_init at the
 * same simulated time. */
#include "meshmem.h"
#include "mm_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mm_test_rank_hint = -1;

static long cycles(double s0, double s1)
{
    return (long)((s1 - s0) * 200e6 + 0.5); /* at the configuration's 200 MHz */
}

int main(void)
{
    CHECK(meshmem_init(0, NULL) == MESHMEM_OK);
    double t_init = meshmem_wtime();
    int me = meshmem_rank(), n = meshmem_nranks();
    mm_test_rank_hint = me;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* put and get: private source, symmetric target; 5 MiB crosses the staging's 4 MiB */
    size_t big = 5u << 20;
    unsigned char *sym = meshmem_malloc(big), *priv = malloc(big);
    for (size_t i = 0; i < big; i++)
        priv[i] = (unsigned char)(i * 7 + (size_t)me);
    CHECK(meshmem_ptr(sym, right) == NULL); /* not load/store: through the engine */
    meshmem_put(sym, priv, big, right);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    for (size_t i = 0; i < big; i += 4093)
        CHECK(sym[i] == (unsigned char)(i * 7 + (size_t)left));
    memset(priv, 0, big);
    meshmem_get(priv, sym, 1000, right); /* right holds what me put */
    for (size_t i = 0; i < 1000; i++)
        CHECK(priv[i] == (unsigned char)(i * 7 + (size_t)me));

    /* AMOs from every rank on rank 0's words */
    uint64_t *w64 = meshmem_calloc(1, 8);
    uint32_t *w32 = meshmem_calloc(1, 8);
    uint16_t *w16 = meshmem_calloc(1, 8);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    uint64_t one = 1, old = 0;
    for (int k = 0; k < 3; k++) {
        CHECK(meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_UINT64, w64, &one, NULL, &old, 0) ==
              MESHMEM_OK);
        uint32_t one32 = 1;
        CHECK(meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_UINT32, w32, &one32, NULL, NULL, 0) ==
              MESHMEM_OK);
        uint16_t one16 = 1;
        CHECK(meshmem_atomic(MESHMEM_AMO_ADD, MESHMEM_UINT16, w16 + 1, &one16, NULL, NULL, 0) ==
              MESHMEM_OK);
    }
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    if (me == 0) {
        CHECK(*w64 == 3u * (uint64_t)n);
        CHECK(*w32 == 3u * (uint32_t)n);
        CHECK(w16[1] == 3u * (uint16_t)n && w16[0] == 0);
    }

    /* put with signal: the data before the signal */
    uint64_t *sig = meshmem_calloc(1, 8);
    int *box = meshmem_calloc(64, sizeof(int));
    int vals[64];
    for (int i = 0; i < 64; i++)
        vals[i] = me * 1000 + i;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_put_signal(box, vals, sizeof(vals), sig, 1, MESHMEM_SIGNAL_SET, right);
    uint64_t want = 1;
    CHECK(meshmem_wait_until(sig, MESHMEM_UINT64, MESHMEM_CMP_EQ, &want) == MESHMEM_OK);
    for (int i = 0; i < 64; i++)
        CHECK(box[i] == left * 1000 + i);

    /* collectives (offloaded: one command each) */
    int *a = meshmem_malloc(64 * (size_t)n * sizeof(int)),
        *b = meshmem_malloc(64 * (size_t)n * sizeof(int));
    for (int i = 0; i < 64 * n; i++)
        a[i] = me * 100000 + i;
    CHECK(meshmem_broadcast(MESHMEM_TEAM_WORLD, b, a, 64 * sizeof(int), n - 1) == MESHMEM_OK);
    for (int i = 0; i < 64; i++)
        CHECK(b[i] == (n - 1) * 100000 + i);
    CHECK(meshmem_alltoall(MESHMEM_TEAM_WORLD, b, a, 64 * sizeof(int)) == MESHMEM_OK);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 64; i++)
            CHECK(b[j * 64 + i] == j * 100000 + me * 64 + i);
    CHECK(meshmem_fcollect(MESHMEM_TEAM_WORLD, b, a, 64 * sizeof(int)) == MESHMEM_OK);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 64; i++)
            CHECK(b[j * 64 + i] == j * 100000 + i);

    /* simulated time: the same on every run */
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    double t0 = meshmem_wtime();
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    double t1 = meshmem_wtime();
    if (me == 0)
        meshmem_put(sym, priv, 8, right);
    meshmem_quiet();
    double t2 = meshmem_wtime();
    CHECK(meshmem_alltoall(MESHMEM_TEAM_WORLD, b, a, 64 * sizeof(int)) == MESHMEM_OK);
    double t3 = meshmem_wtime();
    if (me == 0) {
        CHECK(t1 > t0 && t2 > t1 && t3 > t2);
        printf("rtl_prog: %d ranks: barrier %ld cycles, 8-byte put + quiet %ld, alltoall of "
               "256 B blocks %ld, since init %ld\n",
               n, cycles(t0, t1), cycles(t1, t2), cycles(t2, t3), cycles(0, t3));
    }
    /* every rank leaves meshmem_init at the same simulated time: before, the one that reached
     * its last barrier first left a simulator step after the others (after their first
     * operations), and the times that followed differed from run to run */
    memcpy(a, &t_init, sizeof(t_init));
    CHECK(meshmem_fcollect(MESHMEM_TEAM_WORLD, b, a, sizeof(t_init)) == MESHMEM_OK);
    for (int j = 0; j < n; j++) {
        double tj;
        memcpy(&tj, (char *)b + (size_t)j * sizeof(tj), sizeof(tj));
        CHECK(tj == t_init);
    }
    meshmem_free(a);
    meshmem_free(b);
    meshmem_free(sym);
    free(priv);
    meshmem_finalize();
    return 0;
}
