/*
 * Tracing of communication calls for the virtual-clock replay (format and rules: mm_trace.h),
 * and the modelling calls of meshmem.h: meshmem_model_compute, meshmem_model_phase and
 * meshmem_model_transfer.
 */
#include "mm_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { MM_TR_P2P, MM_TR_COLL, MM_TR_WAIT };

struct mm_trace_scope {
    int kind; /* MM_TR_* */
    const char *op;
    uint64_t t_in; /* ns at entry */
    uint64_t bytes;
    int peer;                /* p2p: world rank */
    int start, stride, size; /* coll: the team */
    uint64_t event;          /* p2p stores: this rank's n-th store into peer */
};

static FILE *mm_trace_file;
static pthread_mutex_t mm_trace_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t *mm_trace_events; /* [dst * nranks + src]: stores src made into dst */
static size_t mm_trace_events_bytes;
static uint64_t *mm_trace_seen;    /* [src]: this rank's row at its last wait */
static uint64_t mm_trace_boundary; /* ns at the end of the last traced call */

/* the call in progress on this thread, and how deep calls are nested inside it */
static _Thread_local mm_trace_scope_t mm_trace_cur;
static _Thread_local int mm_trace_depth;
static mm_trace_scope_t mm_trace_nested; /* returned to nested calls: end only unwinds */

static uint64_t mm_trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mm_trace_init(void)
{
    const char *dir = getenv("MESHMEM_TRACE_DIR");
    if (dir == NULL || *dir == 0 || mm_g.trace)
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank-%d.trace", dir, mm_g.rank);
    mm_trace_file = fopen(path, "w");
    if (mm_trace_file == NULL)
        mm_fatal("meshmem_init: MESHMEM_TRACE_DIR: cannot write %s: %s", path, strerror(errno));
    setvbuf(mm_trace_file, NULL, _IOFBF, 1 << 20);
    fprintf(mm_trace_file, "meshmem-trace 1 rank %d nranks %d\n", mm_g.rank, mm_g.nranks);

    /* every rank creates the file at the same size: ftruncate to an unchanged size keeps the
       counters another rank may already have bumped */
    snprintf(path, sizeof(path), "%s/events", dir);
    size_t n = (size_t)mm_g.nranks;
    mm_trace_events_bytes = n * n * sizeof(uint64_t);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)mm_trace_events_bytes) != 0)
        mm_fatal("meshmem_init: MESHMEM_TRACE_DIR: cannot create %s: %s", path, strerror(errno));
    void *map = mmap(NULL, mm_trace_events_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    mm_trace_seen = calloc(n, sizeof(uint64_t));
    if (map == MAP_FAILED || mm_trace_seen == NULL)
        mm_fatal("meshmem_init: MESHMEM_TRACE_DIR: cannot map %s: %s", path, strerror(errno));
    mm_trace_events = map;
    mm_trace_boundary = mm_trace_now();
    mm_g.trace = true;
}

void mm_trace_mark(void)
{
    if (!mm_g.trace)
        return;
    pthread_mutex_lock(&mm_trace_lock);
    mm_trace_boundary = mm_trace_now();
    pthread_mutex_unlock(&mm_trace_lock);
}

void mm_trace_fini(void)
{
    if (!mm_g.trace)
        return;
    mm_g.trace = false;
    fclose(mm_trace_file);
    mm_trace_file = NULL;
    munmap((void *)mm_trace_events, mm_trace_events_bytes);
    mm_trace_events = NULL;
    free(mm_trace_seen);
    mm_trace_seen = NULL;
}

/* the scope of a new call: the thread's own when outermost, else the nesting marker */
static mm_trace_scope_t *mm_trace_begin(int kind, const char *op, uint64_t nbytes)
{
    if (mm_trace_depth++ > 0)
        return &mm_trace_nested;
    mm_trace_scope_t *s = &mm_trace_cur;
    memset(s, 0, sizeof(*s));
    s->kind = kind;
    s->op = op;
    s->bytes = nbytes;
    s->t_in = mm_trace_now();
    return s;
}

mm_trace_scope_t *mm_trace_p2p(const char *op, uint64_t nbytes, int peer, unsigned flags)
{
    mm_trace_scope_t *s = mm_trace_begin(MM_TR_P2P, op, nbytes);
    if (s == &mm_trace_nested)
        return s;
    s->peer = peer;
    /* counted before the data is written (see mm_trace.h); a bad peer fails the call's own
       check right after, so it is not counted */
    if ((flags & MM_TRACE_STORE) && (unsigned)peer < (unsigned)mm_g.nranks)
        s->event = atomic_fetch_add_explicit(
                       &mm_trace_events[(size_t)peer * (size_t)mm_g.nranks + (size_t)mm_g.rank], 1,
                       memory_order_seq_cst) +
                   1;
    return s;
}

mm_trace_scope_t *mm_trace_coll(const char *op, meshmem_team_t team, uint64_t nbytes)
{
    mm_trace_scope_t *s = mm_trace_begin(MM_TR_COLL, op, nbytes);
    if (s == &mm_trace_nested)
        return s;
    /* the team through the API, as a program sees it: core reads no layer above it */
    if (meshmem_team_rank(team) < 0) {
        s->size = 0; /* not written: the call fails its own checks */
        return s;
    }
    s->size = meshmem_team_size(team);
    s->start = meshmem_team_world_rank(team, 0);
    s->stride = s->size > 1 ? meshmem_team_world_rank(team, 1) - s->start : 1;
    return s;
}

uint64_t mm_trace_team_bytes(meshmem_team_t team, uint64_t block)
{
    int size = meshmem_team_size(team);
    return size < 1 ? 0 : block * (uint64_t)size;
}

uint64_t mm_trace_sum_bytes(meshmem_team_t team, const size_t *counts, size_t esize)
{
    if (counts == NULL || team == MESHMEM_TEAM_INVALID)
        return 0;
    uint64_t sum = 0;
    for (int i = 0, n = meshmem_team_size(team); i < n; i++)
        sum += counts[i];
    return sum * esize;
}

mm_trace_scope_t *mm_trace_wait(void)
{
    return mm_trace_begin(MM_TR_WAIT, "wait", 0);
}

/* " src:event" for every peer whose stores into this rank moved since the last wait */
static void mm_trace_write_deps(FILE *f)
{
    const _Atomic uint64_t *row = mm_trace_events + (size_t)mm_g.rank * (size_t)mm_g.nranks;
    for (int src = 0; src < mm_g.nranks; src++) {
        uint64_t k = atomic_load_explicit(&row[src], memory_order_acquire);
        if (k != mm_trace_seen[src]) {
            fprintf(f, " %d:%llu", src, (unsigned long long)k);
            mm_trace_seen[src] = k;
        }
    }
}

void mm_trace_end(mm_trace_scope_t *s)
{
    mm_trace_depth--;
    if (s == &mm_trace_nested || !mm_g.trace)
        return;
    uint64_t t_out = mm_trace_now();
    pthread_mutex_lock(&mm_trace_lock);
    unsigned long long gap = s->t_in > mm_trace_boundary ? s->t_in - mm_trace_boundary : 0;
    FILE *f = mm_trace_file;
    if (s->kind == MM_TR_P2P) {
        fprintf(f, "p2p %s %llu %llu %d %llu\n", s->op, gap, (unsigned long long)s->bytes, s->peer,
                (unsigned long long)s->event);
    } else if (s->kind == MM_TR_COLL && s->size > 0) {
        fprintf(f, "coll %s %llu %llu %d %d %d\n", s->op, gap, (unsigned long long)s->bytes,
                s->start, s->stride, s->size);
    } else if (s->kind == MM_TR_WAIT) {
        fprintf(f, "wait %llu %llu", gap, (unsigned long long)(t_out - s->t_in));
        mm_trace_write_deps(f);
        fputc('\n', f);
    }
    mm_trace_boundary = t_out;
    pthread_mutex_unlock(&mm_trace_lock);
}

int mm_trace_test_slow(int hit)
{
    if (mm_trace_depth > 0)
        return hit;
    if (hit > 0) {
        mm_trace_end(mm_trace_wait());
        return hit;
    }
    mm_trace_mark(); /* the polling loop is not compute */
    return hit;
}

void meshmem_model_compute(uint64_t bytes_read, uint64_t bytes_written, uint64_t flops)
{
    if (MM_LIKELY(!mm_g.trace))
        return;
    pthread_mutex_lock(&mm_trace_lock);
    fprintf(mm_trace_file, "compute %llu %llu %llu\n", (unsigned long long)bytes_read,
            (unsigned long long)bytes_written, (unsigned long long)flops);
    pthread_mutex_unlock(&mm_trace_lock);
}

void meshmem_model_transfer(int pe, uint64_t bytes_to_pe, uint64_t bytes_from_pe)
{
    if (MM_LIKELY(!mm_g.trace))
        return;
    if ((unsigned)pe >= (unsigned)mm_g.nranks)
        mm_fatal("meshmem_model_transfer: pe %d is not a rank of this job (0..%d)", pe,
                 mm_g.nranks - 1);
    /* counted now, before the stores it stands for (see mm_trace.h): a wait in pe that sees
       them has seen the count */
    uint64_t event = 0;
    if (bytes_to_pe > 0)
        event = atomic_fetch_add_explicit(
                    &mm_trace_events[(size_t)pe * (size_t)mm_g.nranks + (size_t)mm_g.rank], 1,
                    memory_order_seq_cst) +
                1;
    pthread_mutex_lock(&mm_trace_lock);
    fprintf(mm_trace_file, "xfer %llu %llu %d %llu\n", (unsigned long long)bytes_to_pe,
            (unsigned long long)bytes_from_pe, pe, (unsigned long long)event);
    pthread_mutex_unlock(&mm_trace_lock);
}

void meshmem_model_phase(const char *name)
{
    if (MM_UNLIKELY(name == NULL || *name == 0))
        mm_fatal("meshmem_model_phase: name argument is %s", name ? "empty" : "NULL");
    if (MM_LIKELY(!mm_g.trace))
        return;
    char clean[64];
    size_t i = 0;
    for (; name[i] && i < sizeof(clean) - 1; i++) /* one word on the line */
        clean[i] = (name[i] > ' ' && name[i] < 127) ? name[i] : '_';
    clean[i] = 0;
    uint64_t now = mm_trace_now();
    pthread_mutex_lock(&mm_trace_lock);
    fprintf(mm_trace_file, "phase %llu %s\n",
            (unsigned long long)(now > mm_trace_boundary ? now - mm_trace_boundary : 0), clean);
    mm_trace_boundary = now;
    pthread_mutex_unlock(&mm_trace_lock);
}
