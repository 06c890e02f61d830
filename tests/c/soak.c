/*
 * soak: a job that keeps every part of the runtime busy at once and checks every byte, for a
 * given time: round after round, each PE
 *   - puts a block (1 byte to 64 KiB, the size changing every round) to a peer that changes
 *     every round, and reads another peer's block back with a get;
 *   - adds to one PE's counter with AMOs (fetch-add, add, and a compare-and-swap chain);
 *   - runs collectives: a sum all-reduce, an all-to-all and a broadcast from a moving root;
 *   - sends a medium active message with a payload to its right neighbour, whose handler
 *     checks the payload and replies;
 * and checks each result against the value it must have. Rank 0 decides when to stop (every PE
 * learns it with the round's broadcast).
 *   meshrun -n N soak [SECONDS]     (default 20; make test runs 10)
 * Ends with "soak: R rounds, S s, 0 mismatches" and status 0, or names the first mismatch.
 */
#include "meshmem_am.h"
#include <shmem.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXBLOCK (64 * 1024)
#define VEC      257 /* all-reduce length: odd */

static int me, npes;
static long mismatches;
static uint64_t counter[2]; /* AMO targets: [0] additions, [1] compare-and-swap chain */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "soak: PE %d: ", me);                                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            mismatches++;                                                                          \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the byte at index i of the block PE pe sends in round r */
static unsigned char pattern(long r, int pe, size_t i)
{
    return (unsigned char)(r * 131 + pe * 17 + (long)i * 7);
}

static size_t block_size(long r)
{
    static const size_t sizes[] = {1, 7, 64, 100, 4096, 4097, 30000, MAXBLOCK};
    return sizes[r % (long)(sizeof sizes / sizeof sizes[0])];
}

/* ---- active messages: the right neighbour's payload is checked in the handler ---- */
static atomic_long am_seen, am_replies;

static void on_payload(meshmem_am_token_t token, void *buf, size_t nbytes,
                       const meshmem_am_arg_t *args, int nargs)
{
    long r = (long)args[0];
    int from = meshmem_am_token_rank(token);
    int ok = nargs == 1 && nbytes == 1000;
    for (size_t i = 0; ok && i < nbytes; i++)
        ok = ((unsigned char *)buf)[i] == pattern(r, from, i);
    CHECK(ok, "active message of round %ld from PE %d: payload differs", r, from);
    atomic_fetch_add(&am_seen, 1);
    meshmem_am_reply_short(token, 1, 0, NULL);
}

static void on_reply(meshmem_am_token_t token, void *buf, size_t nbytes,
                     const meshmem_am_arg_t *args, int nargs)
{
    (void)token, (void)buf, (void)nbytes, (void)args, (void)nargs;
    atomic_fetch_add(&am_replies, 1);
}

static void round_rma(long r, unsigned char *inbox, unsigned char *src)
{
    size_t size = block_size(r);
    int shift = 1 + (int)(r % (npes > 1 ? npes - 1 : 1));
    int to = (me + shift) % npes, from = (me - shift % npes + npes) % npes;
    for (size_t i = 0; i < size; i++)
        src[i] = pattern(r, me, i);
    shmem_putmem(inbox, src, size, to);
    shmem_barrier_all();
    for (size_t i = 0; i < size; i++)
        if (inbox[i] != pattern(r, from, i)) {
            CHECK(0, "round %ld: byte %zu of %zu from PE %d is %u, expected %u", r, i, size, from,
                  inbox[i], pattern(r, from, i));
        }
    /* read back what this PE put into its target's inbox */
    unsigned char *back = malloc(size);
    shmem_getmem(back, inbox, size, to);
    CHECK(memcmp(back, src, size) == 0, "round %ld: get of PE %d's inbox differs", r, to);
    free(back);
}

static void round_amo(long r)
{
    int owner = (int)(r % npes);
    uint64_t before = shmem_uint64_atomic_fetch_add(&counter[0], (uint64_t)me + 1, owner);
    CHECK(before < UINT64_MAX / 2, "round %ld: fetch-add returned %llu", r,
          (unsigned long long)before);
    shmem_uint64_atomic_add(&counter[0], 1, owner);
    /* the compare-and-swap chain on PE 0: in round r, PE k moves the word from r*npes+k to
     * r*npes+k+1, so the PEs take turns in order (a PE waiting for its turn yields) */
    uint64_t turn = (uint64_t)(r * npes + me);
    while (shmem_uint64_atomic_compare_swap(&counter[1], turn, turn + 1, 0) != turn)
        sched_yield();
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 20;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    meshmem_am_entry_t e[2] = {{0, on_payload, MESHMEM_AM_MEDIUM, MESHMEM_AM_REQUEST, 1},
                               {1, on_reply, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 0}};
    if (meshmem_am_register(e, 2) != MESHMEM_OK)
        return 1;
    unsigned char *inbox = shmem_malloc(MAXBLOCK), *src = malloc(MAXBLOCK);
    long *vec = shmem_malloc(VEC * sizeof(long)), *sum = shmem_malloc(VEC * sizeof(long));
    int *a2a_src = shmem_malloc((size_t)npes * 4 * sizeof(int));
    int *a2a_dst = shmem_malloc((size_t)npes * 4 * sizeof(int));
    long *flag = shmem_malloc(2 * sizeof(long));
    unsigned char payload[1000];
    double t0 = now_s();
    long r = 0;
    uint64_t adds = 0;
    for (;; r++) {
        round_rma(r, inbox, src);
        round_amo(r);
        if (r % npes == me)
            adds += (uint64_t)npes * (npes + 1) / 2 + (uint64_t)npes;
        /* collectives */
        for (int i = 0; i < VEC; i++)
            vec[i] = me + r + i;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, vec, VEC);
        for (int i = 0; i < VEC; i++)
            CHECK(sum[i] == (long)npes * (npes - 1) / 2 + (long)npes * (r + i),
                  "round %ld: all-reduce element %d is %ld", r, i, sum[i]);
        for (int p = 0; p < npes; p++)
            for (int k = 0; k < 4; k++)
                a2a_src[p * 4 + k] = (int)(r * 1000 + me * 10 + k) ^ p;
        shmem_int_alltoall(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 4);
        for (int p = 0; p < npes; p++)
            for (int k = 0; k < 4; k++)
                CHECK(a2a_dst[p * 4 + k] == ((int)(r * 1000 + p * 10 + k) ^ me),
                      "round %ld: all-to-all from PE %d element %d", r, p, k);
        /* active messages */
        for (size_t i = 0; i < sizeof payload; i++)
            payload[i] = pattern(r, me, i);
        meshmem_am_arg_t arg = (meshmem_am_arg_t)r;
        meshmem_am_request_medium((me + 1) % npes, 0, payload, sizeof payload, 1, &arg);
        while (atomic_load(&am_replies) < r + 1)
            meshmem_am_poll();
        /* rank 0 says whether to go on, with a broadcast from a moving root first */
        flag[0] = me == r % npes ? r * 3 + 1 : -1;
        flag[1] = -2;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &flag[1], &flag[0], 1, (int)(r % npes));
        CHECK(flag[1] == r * 3 + 1 || (me == r % npes && flag[1] == -2),
              "round %ld: broadcast gave %ld", r, flag[1]);
        flag[0] = now_s() - t0 < seconds;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &flag[1], &flag[0], 1, 0);
        if (!(me == 0 ? flag[0] : flag[1]))
            break;
    }
    r++;
    shmem_barrier_all();
    CHECK(counter[0] == adds, "the AMO counter is %llu, expected %llu",
          (unsigned long long)counter[0], (unsigned long long)adds);
    CHECK(atomic_load(&am_seen) == r, "%ld active messages handled, %ld sent", (long)am_seen, r);
    long total = mismatches;
    long *all = shmem_malloc(2 * sizeof(long));
    all[0] = total;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &all[1], &all[0], 1);
    if (me == 0)
        printf("soak: %d PEs, %ld rounds, %.1f s, %ld mismatches\n", npes, r, now_s() - t0, all[1]);
    shmem_finalize();
    return all[1] == 0 ? 0 : 1;
}
