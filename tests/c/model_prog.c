/*
 * Small programs whose virtual time on a modelled fabric is worked out by hand in
 * tests/py/test_fabric_run.py (meshrun --fabric). Each checks its own results, so the same
 * runs also show that tracing leaves results unchanged; rank 0 prints "model_prog NAME ok".
 * The phase of each program ends with meshmem_model_phase("done") right after its last
 * timed call, so the tests can compare that phase's time with the hand-worked figure.
 *
 *   model_prog put        rank 0 puts 1 MiB into rank 1, then a barrier
 *   model_prog compute    rank 0 annotates 1 GB read (phase "work"), then a barrier
 *   model_prog pingpong R R round trips of an 8-byte put_signal between ranks 0 and 1
 *   model_prog skew       rank 0 annotates 1 GB read, then an all-to-all of 1 MiB per rank
 *   model_prog far D      rank 0 puts 1 MiB into rank D, then a barrier (GHC: 2 hops)
 *   model_prog direct L   through meshmem_ptr with meshmem_model_transfer: rank 0 copies L
 *                         bytes from rank 1 (phase "direct-get"); then rank 0 annotates 1 GB
 *                         read and writes L bytes and a flag into rank 1, which waits for the
 *                         flag (phase "direct-put": the wait follows the direct write)
 *   model_prog all        every program above in turn (the ctest case, without a fabric)
 */
#include "meshmem.h"
#include "meshmem_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t)1 << 20)
#define GB  1000000000ull

static int fails;

static void check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "model_prog[%d]: %s\n", meshmem_rank(), what);
        fails++;
    }
}

static unsigned char pattern(size_t i, int rank)
{
    return (unsigned char)(i * 7 + (size_t)rank * 13 + 1);
}

/* rank 0 puts 1 MiB into `dst`, a barrier; dst checks every byte */
static void prog_put(int dst)
{
    int me = meshmem_rank();
    unsigned char *buf = meshmem_malloc(MIB);
    unsigned char *src = malloc(MIB);
    for (size_t i = 0; i < MIB; i++)
        src[i] = pattern(i, 0);
    memset(buf, 0, MIB);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_model_phase("transfer");
    if (me == 0 && dst < meshmem_nranks())
        meshmem_put(buf, src, MIB, dst);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_model_phase("done");
    if (me == dst)
        for (size_t i = 0; i < MIB; i++)
            if (buf[i] != pattern(i, 0)) {
                check(0, "put: wrong byte at the destination");
                break;
            }
    free(src);
    meshmem_free(buf);
}

/* rank 0 annotates 1 GB read; a barrier */
static void prog_compute(void)
{
    meshmem_model_phase("work");
    if (meshmem_rank() == 0)
        meshmem_model_compute(GB, 0, 0);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_model_phase("done");
}

/* rounds of ping (0 -> 1) and pong (1 -> 0), each an 8-byte put with a signal */
static void prog_pingpong(int rounds)
{
    int me = meshmem_rank();
    uint64_t *data = meshmem_calloc(1, sizeof(uint64_t));
    uint64_t *sig = meshmem_calloc(1, sizeof(uint64_t));
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_model_phase("pingpong");
    if (meshmem_nranks() >= 2 && me < 2) {
        for (int r = 1; r <= rounds; r++) {
            uint64_t v = (uint64_t)r, want = (uint64_t)r;
            if (me == 0) {
                meshmem_put_signal(data, &v, sizeof(v), sig, v, MESHMEM_SIGNAL_SET, 1);
                meshmem_wait_until(sig, MESHMEM_UINT64, MESHMEM_CMP_EQ, &want);
            } else {
                meshmem_wait_until(sig, MESHMEM_UINT64, MESHMEM_CMP_EQ, &want);
                check(*data == v, "pingpong: wrong value received");
                meshmem_put_signal(data, &v, sizeof(v), sig, v, MESHMEM_SIGNAL_SET, 0);
            }
        }
        check(*data == (uint64_t)rounds, "pingpong: wrong final value");
    }
    meshmem_model_phase("done");
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_free(sig);
    meshmem_free(data);
}

/* rank 0 computes longer, then an all-to-all of 1 MiB per rank, checked block by block */
static void prog_skew(void)
{
    int me = meshmem_rank(), n = meshmem_nranks();
    size_t block = MIB / (size_t)n;
    unsigned char *send = malloc(MIB), *recv = malloc(MIB);
    for (int j = 0; j < n; j++)
        memset(send + (size_t)j * block, (me * 16 + j) & 0xff, block);
    meshmem_model_phase("skew");
    if (me == 0)
        meshmem_model_compute(GB, 0, 0);
    meshmem_coll_alltoall(MESHMEM_TEAM_WORLD, send, recv, block, MESHMEM_BYTE, MESHMEM_ALGO_AUTO);
    meshmem_model_phase("done");
    for (int j = 0; j < n; j++)
        check(recv[(size_t)j * block] == ((j * 16 + me) & 0xff) &&
                  recv[(size_t)(j + 1) * block - 1] == ((j * 16 + me) & 0xff),
              "skew: wrong all-to-all block");
    free(send);
    free(recv);
}

/* direct loads and stores between ranks 0 and 1, annotated as transfers (see the top) */
static void prog_direct(size_t len)
{
    int me = meshmem_rank();
    unsigned char *buf = meshmem_malloc(len), *mine = malloc(len);
    uint64_t *flag = meshmem_calloc(1, sizeof(uint64_t));
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(i, me);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    int pair = meshmem_nranks() >= 2 && me < 2;
    meshmem_model_phase("direct-get");
    if (pair && me == 0) {
        meshmem_model_transfer(1, 0, len);
        memcpy(mine, meshmem_ptr(buf, 1), len);
        for (size_t i = 0; i < len; i++)
            if (mine[i] != pattern(i, 1)) {
                check(0, "direct: wrong byte read from rank 1");
                break;
            }
    }
    meshmem_model_phase("sync");
    meshmem_barrier(MESHMEM_TEAM_WORLD); /* rank 1 has checked nothing yet: buf still its own */
    meshmem_model_phase("direct-put");
    if (pair && me == 0) {
        meshmem_model_compute(GB, 0, 0);
        meshmem_model_transfer(1, len + sizeof(uint64_t), 0); /* before the stores */
        for (size_t i = 0; i < len; i++)
            mine[i] = pattern(i, 0);
        memcpy(meshmem_ptr(buf, 1), mine, len);
        __atomic_store_n((uint64_t *)meshmem_ptr(flag, 1), 1, __ATOMIC_RELEASE);
    } else if (pair) {
        uint64_t one = 1;
        meshmem_wait_until(flag, MESHMEM_UINT64, MESHMEM_CMP_EQ, &one);
        for (size_t i = 0; i < len; i++)
            if (buf[i] != pattern(i, 0)) {
                check(0, "direct: wrong byte written by rank 0");
                break;
            }
    }
    meshmem_model_phase("done");
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_free(flag);
    free(mine);
    meshmem_free(buf);
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "all";
    int arg = argc > 2 ? atoi(argv[2]) : 0;
    int all = !strcmp(name, "all");
    meshmem_init(MESHMEM_THREAD_SINGLE, NULL);
    if (all || !strcmp(name, "put"))
        prog_put(1);
    if (all || !strcmp(name, "compute"))
        prog_compute();
    if (all || !strcmp(name, "pingpong"))
        prog_pingpong(arg > 0 ? arg : 3);
    if (all || !strcmp(name, "skew"))
        prog_skew();
    if (all || !strcmp(name, "far"))
        prog_put(arg > 0 ? arg : meshmem_nranks() - 1);
    if (all || !strcmp(name, "direct"))
        prog_direct(arg > 0 ? (size_t)arg : MIB);
    if (meshmem_rank() == 0 && fails == 0)
        printf("model_prog %s ok\n", name);
    meshmem_finalize();
    return fails != 0;
}
