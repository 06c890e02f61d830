/*
 * where: an OpenSHMEM program that reports where each PE runs and moves data between all of
 * them, for tests/py/test_slurm.py (a job started by `srun --mpi=pmix`, without meshrun). The
 * test compiles it with meshcc, as a user would.
 *
 * Every PE prints
 *     where: pe R of N on HOST shared L of S memory-peers M
 * (HOST: gethostname; L of S: its place in SHMEM_TEAM_SHARED; M: the PEs whose memory it reaches
 * by load/store, shmem_ptr non-NULL), then checks, printing one line per failure and exiting 1:
 *  - the host names of all PEs (shmem_fcollectmem) agree with shmem_ptr: a peer's memory is
 *    directly reachable exactly when the peer runs on the same host, and SHMEM_TEAM_SHARED has
 *    as many PEs as this host;
 *  - a ring put (shmem_long_p to the right neighbour), a get (shmem_long_g from the left one),
 *    an atomic add of every PE on PE 0, and a sum reduction all give the expected values.
 * PE 0 ends with "where: ok N pes on H hosts" when every PE passed.
 */
#define _DEFAULT_SOURCE /* gethostname under -std=c11 */
#include <shmem.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HOST_LEN 64

static long from_left = -1; /* globals are symmetric */
static long mine;
static long counter;
static long failed;

static int fail(const char *what, int me, long got, long want)
{
    printf("where: pe %d: %s: got %ld, want %ld\n", me, what, got, want);
    return 1;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *host = shmem_calloc(1, HOST_LEN);
    char *hosts = shmem_calloc((size_t)n, HOST_LEN);
    long *sum = shmem_malloc(sizeof(long));
    long *value = shmem_malloc(sizeof(long));
    gethostname(host, HOST_LEN - 1);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, hosts, host, HOST_LEN);

    int bad = 0, same_host = 0, by_memory = 0, nhosts = 0;
    for (int pe = 0; pe < n; pe++) {
        int same = strcmp(hosts + (size_t)pe * HOST_LEN, host) == 0;
        int reach = shmem_ptr(&mine, pe) != NULL;
        same_host += same;
        by_memory += reach;
        if (same != reach)
            bad |= fail(same ? "shmem_ptr of a PE on this host" : "shmem_ptr of a PE elsewhere", me,
                        reach, same);
        int first = 1; /* the first PE of its host: counts the hosts */
        for (int q = 0; q < pe; q++)
            first &= strcmp(hosts + (size_t)q * HOST_LEN, hosts + (size_t)pe * HOST_LEN) != 0;
        nhosts += first;
    }
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) != same_host)
        bad |= fail("SHMEM_TEAM_SHARED size", me, shmem_team_n_pes(SHMEM_TEAM_SHARED), same_host);
    printf("where: pe %d of %d on %s shared %d of %d memory-peers %d\n", me, n, host,
           shmem_team_my_pe(SHMEM_TEAM_SHARED), shmem_team_n_pes(SHMEM_TEAM_SHARED), by_memory);
    fflush(stdout);

    mine = 1000 + me;
    shmem_barrier_all();
    shmem_long_p(&from_left, 1000 + me, (me + 1) % n);
    long left = (me + n - 1) % n;
    long got = shmem_long_g(&mine, (int)left);
    if (got != 1000 + left)
        bad |= fail("get from the left neighbour", me, got, 1000 + left);
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();
    if (from_left != 1000 + left)
        bad |= fail("put from the left neighbour", me, from_left, 1000 + left);
    if (me == 0 && counter != (long)n * (n + 1) / 2)
        bad |= fail("atomic adds of every PE", me, counter, (long)n * (n + 1) / 2);
    *value = me;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, value, 1);
    if (*sum != (long)n * (n - 1) / 2)
        bad |= fail("sum reduction", me, *sum, (long)n * (n - 1) / 2);

    shmem_long_atomic_add(&failed, bad, 0);
    shmem_barrier_all();
    if (me == 0 && failed == 0)
        printf("where: ok %d pes on %d hosts\n", n, nhosts);
    fflush(stdout);
    shmem_free(value);
    shmem_free(sum);
    shmem_free(hosts);
    shmem_free(host);
    shmem_finalize();
    return bad;
}
