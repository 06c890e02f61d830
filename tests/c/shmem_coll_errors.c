/*
 * Misuse of the collectives ends the job with one line naming the routine and the argument
 * (checked by the test's expected output): argv[1] picks the misuse.
 */
#include "shmem_coll_test.h"

int mm_test_rank_hint = -1;

static int src[64], dst[64];
static long psync[SHMEM_BCAST_SYNC_SIZE];

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    mm_test_rank_hint = me;
    const char *what = argc > 1 ? argv[1] : "";
    int local[4];
    if (!strcmp(what, "root"))
        shmem_int_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n);
    else if (!strcmp(what, "nreduce"))
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, (size_t)-3);
    else if (!strcmp(what, "dest"))
        shmem_int_fcollect(SHMEM_TEAM_WORLD, local, src, 1);
    else if (!strcmp(what, "team"))
        shmem_long_max_reduce(SHMEM_TEAM_INVALID, (long *)dst, (long *)src, 1);
    else if (!strcmp(what, "stride"))
        shmem_int_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 1);
    else if (!strcmp(what, "aset"))
        shmem_broadcast32(dst, src, 1, 0, 0, 0, n + 1, psync);
    fprintf(stderr, "shmem_coll_errors: '%s' did not end the job\n", what);
    shmem_finalize();
    return 0;
}
