/* Sharing averaged parameters on meshmem: naive (3 steps) and aggressive (2 steps, or one
 * step for small vectors), on the full mesh or per GHC dimension (average.h). */
#include "average.h"
#include "average_data.h"

#include <meshmem_coll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    LINE = 8,       /* uint64 per cache line: one flag per line */
    FLAG_READY = 0, /* this rank entered the run: its buffers may be read and overwritten */
    FLAG_DONE1,     /* phase 1 (x or full mesh): this rank's slice of the mean is ready */
    FLAG_READY2,    /* GHC: phase 1 is over here (the row mean may be read) */
    FLAG_DONE2,     /* GHC phase 2: slice ready */
    FLAG_KINDS
};

static int avg_team_init(avg_team_t *t, meshmem_team_t team)
{
    t->team = team;
    t->size = meshmem_team_size(team);
    t->rank = meshmem_team_rank(team);
    t->world = malloc(sizeof(int) * (size_t)t->size);
    if (!t->world)
        return -1;
    for (int i = 0; i < t->size; i++)
        t->world[i] = meshmem_team_world_rank(team, i);
    return 0;
}

int avg_setup(avg_job_t *a, size_t count, int ghc_x, size_t onestep_bytes)
{
    memset(a, 0, sizeof(*a));
    int n = meshmem_nranks();
    a->count = count;
    /* ranks outnumbering cores: a spinning rank holds the core its peer needs, so yield at once */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a->spin = cpus > 0 && n > cpus ? 0 : 2048;
    meshmem_team_t teams[2] = {MESHMEM_TEAM_WORLD, MESHMEM_TEAM_WORLD};
    a->nteams = 1;
    if (ghc_x > 0 && ghc_x < n) {
        if (n % ghc_x)
            return -1;
        if (meshmem_team_split_2d(MESHMEM_TEAM_WORLD, ghc_x, &teams[0], &teams[1]) != MESHMEM_OK)
            return -1;
        a->nteams = 2;
    }
    for (int k = 0; k < a->nteams; k++)
        if (avg_team_init(&a->teams[k], teams[k]) != 0) {
            fprintf(stderr, "average: out of memory\n");
            meshmem_global_exit(1);
        }
    /* pad to a multiple of the ranks: a multiple of every team's size too */
    a->padded = (count + (size_t)n - 1) / (size_t)n * (size_t)n;
    size_t bytes = (a->padded ? a->padded : (size_t)n) * sizeof(float);
    /* the limit grows with the ranks: the sliced form's two synchronisations each wait for
     * every peer (the crossovers behind 2 KiB x ranks/2: docs/results-apps.md) */
    a->onestep_bytes = onestep_bytes * (size_t)(n > 2 ? n : 2) / 2;
    int onestep = onestep_bytes > 0 && count * sizeof(float) <= a->onestep_bytes;
    /* a slot holds the whole vector, then its flag on a line of its own */
    a->slot_bytes = (count * sizeof(float) + 63) / 64 * 64 + 64;
    size_t slots = (size_t)a->nteams * 2;
    a->x = meshmem_calloc(1, bytes);
    a->res = meshmem_calloc(1, bytes);
    a->buf = meshmem_calloc(1, bytes);
    a->mid = meshmem_calloc(1, bytes);
    a->flags = meshmem_calloc((size_t)FLAG_KINDS * (size_t)n * LINE, sizeof(uint64_t));
    a->onestep = onestep;
    a->area = onestep ? meshmem_align(64, slots * a->slot_bytes) : NULL;
    if (!a->x || !a->res || !a->buf || !a->mid || !a->flags || (onestep && !a->area)) {
        fprintf(stderr, "average: the symmetric heap has no room for 4 x %zu + %zu bytes\n", bytes,
                onestep ? slots * a->slot_bytes : 0);
        meshmem_global_exit(1);
    }
    /* a member not mapped here (another host, the simulated engine): collectives, on every
     * rank alike (they are collective), when any rank has such a member */
    int32_t remote = 0, any = 0;
    for (int r = 0; r < n && !remote; r++)
        remote = meshmem_ptr(a->x, r) == NULL;
    meshmem_coll_allreduce(MESHMEM_TEAM_WORLD, &remote, &any, 1, MESHMEM_INT32, MESHMEM_OP_MAX,
                           MESHMEM_ALGO_AUTO);
    a->coll = any != 0;
    if (a->coll && onestep) { /* the one-step form's gathered vectors */
        a->scratch = malloc((size_t)n * (count ? count : 1) * sizeof(float));
        if (a->scratch == NULL) {
            fprintf(stderr, "average: out of memory\n");
            meshmem_global_exit(1);
        }
    }
    if (a->area) /* slot flags start at 0: below every run's sequence number */
        memset(a->area, 0, slots * a->slot_bytes);
    meshmem_barrier(MESHMEM_TEAM_WORLD); /* nobody signals into a slot before it is cleared */
    return 0;
}

/* wait until *f reaches this run's sequence number (spin briefly, then yield) */
static void wait_flag(const avg_job_t *a, uint64_t *f)
{
    for (unsigned polls = 0; __atomic_load_n(f, __ATOMIC_ACQUIRE) < a->seq; polls++) {
        if (polls < a->spin)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
}

/* the block signal: one store of the sequence number into the peer's heap, after the data
   (meshrun --fabric: an 8-byte direct write); every member is mapped (else a->coll) */
static void raise_flag(const avg_job_t *a, uint64_t *f, int world)
{
    uint64_t *peer = meshmem_ptr(f, world);
    meshmem_model_transfer(world, sizeof(uint64_t), 0);
    __atomic_store_n(peer, a->seq, __ATOMIC_RELEASE);
}

static uint64_t *flag(avg_job_t *a, int kind, int src)
{
    return &a->flags[((size_t)kind * (size_t)meshmem_nranks() + (size_t)src) * LINE];
}

/* our flag of @p kind at every member of @p t becomes this run's seq */
static void signal_team(avg_job_t *a, const avg_team_t *t, int kind)
{
    uint64_t *f = flag(a, kind, meshmem_rank());
    for (int i = 1; i < t->size; i++)
        raise_flag(a, f, t->world[(t->rank + i) % t->size]);
}

/* wait for the flags of @p kind from every member of @p t */
static void wait_team(avg_job_t *a, const avg_team_t *t, int kind)
{
    for (int i = 0; i < t->size; i++)
        if (i != t->rank)
            wait_flag(a, flag(a, kind, t->world[i]));
    /* not a traced wait (meshrun --fabric): a wait depends on every store counted when it
       ends, and with 8 ranks on 2 cores a peer's next flags are often counted by then, which
       chained the ranks' steps one after another; the ranks are symmetric, so each rank's
       own clock is the step's time */
}

/* this rank's one-step slot of team @p k and this run's parity */
static char *slot(avg_job_t *a, int k)
{
    return a->area + ((size_t)k * 2 + (a->seq & 1)) * a->slot_bytes;
}

static uint64_t *slot_flag(avg_job_t *a, char *s)
{
    return (uint64_t *)(s + a->slot_bytes - 64);
}

/*
 * The small-vector form of the aggressive approach (one step): our whole vector is published
 * in our slot of this run's parity with its block signal, every member reads every other
 * member's vector straight from its slot, and each computes the mean of the N vectors in
 * member order (the same bits on every rank) in one pass. The copy into the slot is local
 * (the vector is in L1): a reader then pulls each line once, where a write into the reader's
 * memory would move it twice (for ownership, then back to the reader), and the caller may
 * change its vector as soon as we return.
 * Room: the slot of this parity was last read in run seq-2, and every reader finished that
 * run before it signalled us anything in run seq-1 (its piece or a READY), which we waited
 * for. @p dst is written only once every member's signal of this run is here: each has
 * finished the previous run, and with it any read of @p dst.
 */
static void avg_onestep(avg_job_t *a, int k, const float *src, float *dst)
{
    const avg_team_t *t = &a->teams[k];
    const float *stack[16], **in = t->size <= 16 ? stack : malloc(sizeof(*in) * (size_t)t->size);
    if (!in) {
        fprintf(stderr, "average: out of memory\n");
        meshmem_global_exit(1);
    }
    char *mine = slot(a, k);
    /* meshrun --fabric: the mean of n vectors (n additions per element, the scale folded in),
       each other member's vector read from its slot */
    uint64_t n = (uint64_t)t->size, c = a->count, e = sizeof(float);
    meshmem_model_compute((n + 1) * c * e, 2 * c * e, n * c);
    for (int i = 0; i < t->size; i++)
        if (i != t->rank)
            meshmem_model_transfer(t->world[i], 0, c * e);
    if (t->size > 1) {
        memcpy(mine, src, a->count * sizeof(float));
        __atomic_store_n(slot_flag(a, mine), a->seq, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < t->size; i++) {
        if (i == t->rank) {
            in[i] = src;
            continue;
        }
        char *s = meshmem_ptr(mine, t->world[i]);
        wait_flag(a, slot_flag(a, s));
        in[i] = (const float *)s;
    }
    avg_mean_into(dst, in, t->size, a->count, 1.0f / (float)t->size);
    if (in != stack)
        free(in);
}

/* the sliced flow over team @p k (2 or 3 steps): the mean of @p src into @p dst on every
 * member (both symmetric); every member's READY for this run is already here */
static void avg_sliced(avg_job_t *a, int k, const float *src, float *dst, avg_algo_t algo,
                       int done_kind)
{
    const avg_team_t *t = &a->teams[k];
    int n = t->size, me = t->rank;
    size_t rc = a->padded / (size_t)n, lo = (size_t)me * rc;
    float scale = 1.0f / (float)n;
    const float *stack[16], **in = n <= 16 ? stack : malloc(sizeof(*in) * (size_t)n);
    if (!in) {
        fprintf(stderr, "average: out of memory\n");
        meshmem_global_exit(1);
    }
    /* meshrun --fabric: step 1 reads our slice of every vector (the naive form copies it into
       the buffer first) and writes our slice of the mean, n additions per element; the other
       members' slices come through meshmem_ptr */
    uint64_t e = sizeof(float), all = (uint64_t)rc * (uint64_t)n;
    uint64_t copy = algo == AVG_NAIVE ? all * e : 0;
    meshmem_model_compute(copy + all * e, copy + rc * e, all);
    for (int r = 0; r < n; r++) {
        if (r != me)
            meshmem_model_transfer(t->world[r], 0, rc * e);
        in[r] = meshmem_ptr(src + lo, t->world[r]);
    }
    if (algo == AVG_NAIVE) {
        /* step 1: all-to-all: our slice of every member's vector into the buffer */
        for (int r = 0; r < n; r++) {
            memcpy(a->buf + (size_t)r * rc, in[r], rc * sizeof(float));
            in[r] = a->buf + (size_t)r * rc;
        }
    }
    /* aggressive step 1 (straight from the members' heaps, averaged as it is read), or naive
     * step 2 (the averaging pass over the buffer): one pass, the division included */
    avg_mean_into(dst + lo, in, n, rc, scale);
    if (in != stack)
        free(in);
    signal_team(a, t, done_kind);
    wait_team(a, t, done_kind);
    /* last step: all-gather: every member's averaged slice out of its heap */
    meshmem_model_compute((uint64_t)(n - 1) * rc * e, (uint64_t)(n - 1) * rc * e, 0);
    for (int r = 0; r < n; r++)
        if (r != me)
            meshmem_model_transfer(t->world[r], 0, rc * e);
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        const float *from = meshmem_ptr(dst + (size_t)r * rc, t->world[r]);
        memcpy(dst + (size_t)r * rc, from, rc * sizeof(float));
    }
}

/* a collective of the flow failed: it said why (one line); nothing to go on with */
static void coll_ok(meshmem_status_t st, const char *what)
{
    if (st != MESHMEM_OK) {
        fprintf(stderr, "average: %s failed (%d)\n", what, (int)st);
        meshmem_global_exit(1);
    }
}

/*
 * The flows where some member is not mapped (a->coll, average.h): every step that moves data
 * is one collective over team @p k, blocking, so nothing else orders the runs. One step: the
 * whole vectors all-gathered, then the mean of the n in member order (the same bits on every
 * member, as avg_onestep's). Sliced: our slice of every member's vector by an all-to-all into
 * the buffer, the averaging pass over it into our slice of @p dst, then the averaged slices
 * all-gathered in place; naive and aggressive alike (the all-to-all lands the slices in the
 * buffer either way).
 */
static void avg_coll(avg_job_t *a, int k, const float *src, float *dst, int onestep)
{
    const avg_team_t *t = &a->teams[k];
    int n = t->size;
    size_t rc = onestep ? a->count : a->padded / (size_t)n; /* elements per member's block */
    if (rc == 0 || n == 1) {
        if (dst != src)
            memcpy(dst, src, a->count * sizeof(float));
        return;
    }
    const float *stack[16], **in = n <= 16 ? stack : malloc(sizeof(*in) * (size_t)n);
    if (!in) {
        fprintf(stderr, "average: out of memory\n");
        meshmem_global_exit(1);
    }
    float *got = onestep ? a->scratch : a->buf;
    if (onestep)
        coll_ok(meshmem_coll_allgather(t->team, src, got, rc, MESHMEM_FLOAT32, MESHMEM_ALGO_AUTO),
                "meshmem_coll_allgather");
    else
        coll_ok(meshmem_coll_alltoall(t->team, src, got, rc, MESHMEM_FLOAT32, MESHMEM_ALGO_AUTO),
                "meshmem_coll_alltoall");
    for (int r = 0; r < n; r++)
        in[r] = got + (size_t)r * rc;
    /* meshrun --fabric: the averaging pass reads the n blocks and writes one, n additions per
       element (the collectives are traced themselves) */
    uint64_t e = sizeof(float);
    meshmem_model_compute((uint64_t)n * rc * e, rc * e, (uint64_t)n * rc);
    float *out = onestep ? dst : dst + (size_t)t->rank * rc;
    avg_mean_into(out, in, n, rc, 1.0f / (float)n);
    if (in != stack)
        free(in);
    if (!onestep)
        coll_ok(meshmem_coll_allgather(t->team, MESHMEM_IN_PLACE, dst, rc, MESHMEM_FLOAT32,
                                       MESHMEM_ALGO_AUTO),
                "meshmem_coll_allgather");
}

static int use_onestep(const avg_job_t *a, avg_algo_t algo)
{
    return algo == AVG_AGGRESSIVE && a->onestep; /* the vector is small */
}

int avg_steps(const avg_job_t *a, avg_algo_t algo)
{
    return (use_onestep(a, algo) ? 1 : algo == AVG_AGGRESSIVE ? 2 : 3) * a->nteams;
}

void avg_run(avg_job_t *a, avg_algo_t algo)
{
    a->seq++;
    if (a->coll) { /* GHC: the row means into mid, then averaged down the columns */
        int one = use_onestep(a, algo);
        avg_coll(a, 0, a->x, a->nteams == 1 ? a->res : a->mid, one);
        if (a->nteams == 2)
            avg_coll(a, 1, a->mid, a->res, one);
        return;
    }
    if (use_onestep(a, algo)) {
        /* GHC: row means into mid (the column phase sends copies of it) */
        avg_onestep(a, 0, a->x, a->nteams == 1 ? a->res : a->mid);
        if (a->nteams == 2)
            avg_onestep(a, 1, a->mid, a->res);
        return;
    }
    /* entering the run: every peer that reads our buffers has finished the previous run */
    for (int k = 0; k < a->nteams; k++)
        signal_team(a, &a->teams[k], FLAG_READY);
    for (int k = 0; k < a->nteams; k++)
        wait_team(a, &a->teams[k], FLAG_READY);
    if (a->nteams == 1) {
        avg_sliced(a, 0, a->x, a->res, algo, FLAG_DONE1);
        return;
    }
    /* GHC: the rows' means (into mid: row peers may still be gathering from it while we are
     * in phase 2), then averaged down the columns */
    avg_sliced(a, 0, a->x, a->mid, algo, FLAG_DONE1);
    signal_team(a, &a->teams[1], FLAG_READY2);
    wait_team(a, &a->teams[1], FLAG_READY2);
    avg_sliced(a, 1, a->mid, a->res, algo, FLAG_DONE2);
}

void avg_free(avg_job_t *a)
{
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_free(a->area);
    meshmem_free(a->flags);
    meshmem_free(a->mid);
    meshmem_free(a->buf);
    meshmem_free(a->res);
    meshmem_free(a->x);
    free(a->scratch);
    for (int k = 0; k < a->nteams; k++) {
        if (a->nteams == 2)
            meshmem_team_destroy(a->teams[k].team);
        free(a->teams[k].world);
    }
    memset(a, 0, sizeof(*a));
}
