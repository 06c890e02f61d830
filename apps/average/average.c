/* Sharing averaged parameters on meshmem: naive (3 steps) and aggressive (2 steps), on the full
 * mesh or per GHC dimension (average.h). */
#include "average.h"

#include <meshmem_coll.h>
#include <stdio.h>
#include <string.h>

int avg_setup(avg_job_t *a, size_t count, int ghc_x)
{
    memset(a, 0, sizeof(*a));
    int n = meshmem_nranks();
    a->count = count;
    if (ghc_x > 0 && ghc_x < n) {
        if (n % ghc_x)
            return -1;
        if (meshmem_team_split_2d(MESHMEM_TEAM_WORLD, ghc_x, &a->teams[0], &a->teams[1]) !=
            MESHMEM_OK)
            return -1;
        a->nteams = 2;
    } else {
        a->teams[0] = MESHMEM_TEAM_WORLD;
        a->nteams = 1;
    }
    /* pad to a multiple of every team size (x, y and their product divide n) */
    a->padded = (count + (size_t)n - 1) / (size_t)n * (size_t)n;
    size_t bytes = (a->padded ? a->padded : (size_t)n) * sizeof(float);
    a->x = meshmem_calloc(1, bytes);
    a->res = meshmem_calloc(1, bytes);
    a->buf = meshmem_calloc(1, bytes);
    a->slice = meshmem_calloc(1, bytes);
    if (!a->x || !a->res || !a->buf || !a->slice) {
        fprintf(stderr, "average: the symmetric heap has no room for 4 x %zu bytes\n", bytes);
        meshmem_global_exit(1);
    }
    return 0;
}

/* one flow over @p team: the mean of @p src (padded length) into @p dst on every member */
static void avg_team(meshmem_team_t team, const float *src, float *dst, size_t padded,
                     avg_job_t *a, avg_algo_t algo)
{
    int t = meshmem_team_size(team);
    size_t rc = padded / (size_t)t;
    float scale = 1.0f / (float)t;
    if (algo == AVG_AGGRESSIVE) {
        /* step 1: slices reduced as they arrive (read in place from the peers), scaled */
        meshmem_coll_reduce_scatter(team, src, a->slice, rc, MESHMEM_FLOAT32, MESHMEM_OP_SUM,
                                    MESHMEM_ALGO_AGGRESSIVE);
        for (size_t i = 0; i < rc; i++)
            a->slice[i] *= scale;
    } else {
        /* step 1: all-to-all of the slices into the buffer */
        meshmem_coll_alltoall(team, src, a->buf, rc, MESHMEM_FLOAT32, MESHMEM_ALGO_ONESTEP);
        /* step 2: the averaging pass over the buffer (sources in rank order) */
        memcpy(a->slice, a->buf, rc * sizeof(float));
        for (int r = 1; r < t; r++) {
            const float *b = a->buf + (size_t)r * rc;
            for (size_t i = 0; i < rc; i++)
                a->slice[i] += b[i];
        }
        for (size_t i = 0; i < rc; i++)
            a->slice[i] *= scale;
    }
    /* last step: all-gather of the averaged slices */
    meshmem_coll_allgather(team, a->slice, dst, rc, MESHMEM_FLOAT32, MESHMEM_ALGO_ONESTEP);
}

void avg_run(avg_job_t *a, avg_algo_t algo)
{
    avg_team(a->teams[0], a->x, a->res, a->padded, a, algo);
    if (a->nteams == 2) /* GHC: the rows' means, averaged down the columns */
        avg_team(a->teams[1], a->res, a->res, a->padded, a, algo);
}

void avg_free(avg_job_t *a)
{
    meshmem_free(a->slice);
    meshmem_free(a->buf);
    meshmem_free(a->res);
    meshmem_free(a->x);
    if (a->nteams == 2) {
        meshmem_team_destroy(a->teams[0]);
        meshmem_team_destroy(a->teams[1]);
    }
    memset(a, 0, sizeof(*a));
}
