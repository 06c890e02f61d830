/* Sharing averaged parameters on meshmem: naive (3 steps) and aggressive (2 steps), on the full
 * mesh or per GHC dimension (average.h). */
#include "average.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
    LINE = 8,         /* uint64 per cache line: one flag per line */
    FLAG_READY = 0,   /* this rank entered the run: its buffers may be read and overwritten */
    FLAG_DONE1,       /* phase 1 (x or full mesh): this rank's slice of the mean is ready */
    FLAG_READY2,      /* GHC: phase 1 is over here (the row mean may be read) */
    FLAG_DONE2,       /* GHC phase 2: slice ready */
    FLAG_KINDS
};

int avg_setup(avg_job_t *a, size_t count, int ghc_x)
{
    memset(a, 0, sizeof(*a));
    int n = meshmem_nranks();
    a->count = count;
    /* ranks outnumbering cores: a spinning rank holds the core its peer needs, so yield at once */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a->spin = cpus > 0 && n > cpus ? 0 : 256;
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
    /* pad to a multiple of the ranks: a multiple of every team's size too */
    a->padded = (count + (size_t)n - 1) / (size_t)n * (size_t)n;
    size_t bytes = (a->padded ? a->padded : (size_t)n) * sizeof(float);
    a->x = meshmem_calloc(1, bytes);
    a->res = meshmem_calloc(1, bytes);
    a->buf = meshmem_calloc(1, bytes);
    a->mid = meshmem_calloc(1, bytes);
    a->flags = meshmem_calloc((size_t)FLAG_KINDS * (size_t)n * LINE, sizeof(uint64_t));
    if (!a->x || !a->res || !a->buf || !a->mid || !a->flags) {
        fprintf(stderr, "average: the symmetric heap has no room for 4 x %zu bytes\n", bytes);
        meshmem_global_exit(1);
    }
    return 0;
}

static uint64_t *flag(avg_job_t *a, int kind, int src)
{
    return &a->flags[((size_t)kind * (size_t)meshmem_nranks() + (size_t)src) * LINE];
}

/* the block signal: our flag of @p kind at every member of @p team becomes this run's seq */
static void signal_team(avg_job_t *a, meshmem_team_t team, int kind)
{
    int t = meshmem_team_size(team), me = meshmem_rank();
    uint64_t *f = flag(a, kind, me);
    for (int i = 0; i < t; i++) {
        int w = meshmem_team_world_rank(team, i);
        if (w != me)
            meshmem_put_signal(f, &a->seq, 0, f, a->seq, MESHMEM_SIGNAL_SET, w);
    }
}

/* wait for the flags of @p kind from every member of @p team (spin briefly, then yield) */
static void wait_team(avg_job_t *a, meshmem_team_t team, int kind)
{
    int t = meshmem_team_size(team), me = meshmem_rank();
    for (int i = 0; i < t; i++) {
        int w = meshmem_team_world_rank(team, i);
        if (w == me)
            continue;
        const uint64_t *f = flag(a, kind, w);
        for (unsigned polls = 0; __atomic_load_n(f, __ATOMIC_ACQUIRE) < a->seq; polls++) {
            if (polls < a->spin)
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    }
}

/* one flow over @p team: the mean of @p src into @p dst on every member (both symmetric) */
static void avg_team(avg_job_t *a, meshmem_team_t team, const float *src, float *dst,
                     avg_algo_t algo, int done_kind)
{
    int t = meshmem_team_size(team), me = meshmem_team_rank(team);
    size_t rc = a->padded / (size_t)t, lo = (size_t)me * rc;
    float scale = 1.0f / (float)t;
    float *mine = dst + lo;
    if (algo == AVG_AGGRESSIVE) {
        /* step 1: our slice of every member's vector, averaged as it is read */
        for (int k = 0; k < t; k++) {
            int r = (me + k) % t;
            const float *p = meshmem_ptr(src + lo, meshmem_team_world_rank(team, r));
            if (k == 0)
                for (size_t i = 0; i < rc; i++)
                    mine[i] = p[i];
            else
                for (size_t i = 0; i < rc; i++)
                    mine[i] += p[i];
        }
        for (size_t i = 0; i < rc; i++)
            mine[i] *= scale;
    } else {
        /* step 1: all-to-all: our slice of every member's vector into the buffer */
        for (int r = 0; r < t; r++)
            memcpy(a->buf + (size_t)r * rc,
                   meshmem_ptr(src + lo, meshmem_team_world_rank(team, r)), rc * sizeof(float));
        /* step 2: the averaging pass over the buffer */
        memcpy(mine, a->buf, rc * sizeof(float));
        for (int r = 1; r < t; r++) {
            const float *b = a->buf + (size_t)r * rc;
            for (size_t i = 0; i < rc; i++)
                mine[i] += b[i];
        }
        for (size_t i = 0; i < rc; i++)
            mine[i] *= scale;
    }
    signal_team(a, team, done_kind);
    wait_team(a, team, done_kind);
    /* last step: all-gather: every member's averaged slice out of its heap */
    for (int r = 0; r < t; r++)
        if (r != me)
            memcpy(dst + (size_t)r * rc,
                   meshmem_ptr(dst + (size_t)r * rc, meshmem_team_world_rank(team, r)),
                   rc * sizeof(float));
}

void avg_run(avg_job_t *a, avg_algo_t algo)
{
    a->seq++;
    /* entering the run: every peer that reads our buffers has finished the previous run */
    for (int k = 0; k < a->nteams; k++)
        signal_team(a, a->teams[k], FLAG_READY);
    for (int k = 0; k < a->nteams; k++)
        wait_team(a, a->teams[k], FLAG_READY);
    if (a->nteams == 1) {
        avg_team(a, a->teams[0], a->x, a->res, algo, FLAG_DONE1);
        return;
    }
    /* GHC: the rows' means (into mid: row peers may still be gathering from it while we are
     * in phase 2), then averaged down the columns */
    avg_team(a, a->teams[0], a->x, a->mid, algo, FLAG_DONE1);
    signal_team(a, a->teams[1], FLAG_READY2);
    wait_team(a, a->teams[1], FLAG_READY2);
    avg_team(a, a->teams[1], a->mid, a->res, algo, FLAG_DONE2);
}

void avg_free(avg_job_t *a)
{
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_free(a->flags);
    meshmem_free(a->mid);
    meshmem_free(a->buf);
    meshmem_free(a->res);
    meshmem_free(a->x);
    if (a->nteams == 2) {
        meshmem_team_destroy(a->teams[0]);
        meshmem_team_destroy(a->teams[1]);
    }
    memset(a, 0, sizeof(*a));
}
