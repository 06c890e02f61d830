/*
 * OpenSHMEM communication contexts (1.5 section 9.5) and ordering (9.11).
 *
 * Every operation of every context is complete on return (stores and atomics into the peer's
 * mapping), so a context carries no queue: only its team's geometry, to number PEs in the
 * team, and its options. fence and quiet are one full memory fence for every context: it
 * orders the weakly-ordered (non-temporal) stores of large copies too.
 */
#include "mm_tp.h"
#include "shmem_internal.h"
#include "mm_team.h"

#include <pthread.h>
#include <string.h>

struct shmem_ctx_s meshmem_shmem_ctx_default;

/* every other context (shmem_internal.h); slots [0, shmemi_ctx_used) were handed out once */
struct shmem_ctx_s shmemi_ctx_pool[SHMEMI_CTX_SLOTS];
static int shmemi_ctx_used;
/* the destroyed ones (SHMEMI_CTX_DEAD), reused by the next create */
static struct shmem_ctx_s *shmemi_ctx_dead;
/* threads create and destroy contexts concurrently */
static pthread_mutex_t shmemi_ctx_lock = PTHREAD_MUTEX_INITIALIZER;

#define SHMEMI_CTX_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

/* the geometry of @p team, as a context records it */
static void shmemi_ctx_fill(struct shmem_ctx_s *ctx, shmem_team_t team, long options)
{
    ctx->start = team->start;
    ctx->stride = team->stride;
    ctx->size = team->size;
    ctx->options = options;
    ctx->team = team;
}

void shmemi_ctx_default_init(void)
{
    shmemi_ctx_fill(&meshmem_shmem_ctx_default, SHMEM_TEAM_WORLD, 0);
}

/* end the job unless @p ctx is a context created and not destroyed (SHMEM_CTX_DEFAULT too) */
static void shmemi_ctx_check(const char *call, shmem_ctx_t ctx)
{
    if (MM_UNLIKELY(!shmemi_ctx_readable(ctx) || ctx->team == NULL ||
                    ctx->options == SHMEMI_CTX_DEAD))
        shmemi_ctx_fatal(call, ctx, 0);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    MM_CHECK_INIT("shmem_team_create_ctx");
    if (ctx == NULL)
        mm_fatal("shmem_team_create_ctx: ctx argument is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (team == SHMEM_TEAM_INVALID || (options & ~SHMEMI_CTX_OPTIONS) != 0)
        return -1;
    team = mm_team_checked("shmem_team_create_ctx", team);
    if (team->my_rank < 0)
        return -1; /* not a member */
    pthread_mutex_lock(&shmemi_ctx_lock);
    struct shmem_ctx_s *c = shmemi_ctx_dead;
    if (c != NULL)
        shmemi_ctx_dead = c->next;
    else if (shmemi_ctx_used < SHMEMI_CTX_SLOTS)
        c = &shmemi_ctx_pool[shmemi_ctx_used++];
    if (c != NULL) {
        shmemi_ctx_fill(c, team, options);
        c->next = NULL;
    }
    pthread_mutex_unlock(&shmemi_ctx_lock);
    if (c == NULL) /* every slot holds a live context */
        return -1;
    *ctx = c;
    return 0;
}
SHMEMI_PROFILED(shmem_team_create_ctx)

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    MM_CHECK_INIT("shmem_ctx_create");
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}
SHMEMI_PROFILED(shmem_ctx_create)

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        mm_fatal("shmem_ctx_destroy: ctx argument is SHMEM_CTX_DEFAULT, which cannot be "
                 "destroyed");
    shmemi_ctx_check("shmem_ctx_destroy", ctx);
    meshmem_quiet();
    pthread_mutex_lock(&shmemi_ctx_lock);
    ctx->size = 0;
    ctx->options = SHMEMI_CTX_DEAD;
    ctx->next = shmemi_ctx_dead;
    shmemi_ctx_dead = ctx;
    pthread_mutex_unlock(&shmemi_ctx_lock);
}

void shmemi_ctx_fini(void)
{
    /* every slot as never created: a context used after shmem_finalize is "not a context" */
    pthread_mutex_lock(&shmemi_ctx_lock);
    memset(shmemi_ctx_pool, 0, (size_t)shmemi_ctx_used * sizeof(shmemi_ctx_pool[0]));
    shmemi_ctx_used = 0;
    shmemi_ctx_dead = NULL;
    pthread_mutex_unlock(&shmemi_ctx_lock);
}
SHMEMI_PROFILED(shmem_ctx_destroy)

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (team == NULL)
        mm_fatal("shmem_ctx_get_team: team argument is NULL");
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    shmemi_ctx_check("shmem_ctx_get_team", ctx);
    *team = ctx->team;
    return 0;
}
SHMEMI_PROFILED(shmem_ctx_get_team)

/* fence and quiet: operations to a PE of the node are complete on return, so for them both
 * only order this PE's stores (copies, rep movsb included) before its later ones, one full
 * fence; operations to PEs on other hosts the network transport orders or completes (mm_tp.h,
 * inline: a test of one pointer when the job is on one host). A context shares the PE's
 * transport, so its fence and quiet are the PE's. */
void shmem_fence(void)
{
    mm_tp_fence();
}
SHMEMI_PROFILED(shmem_fence)

void shmem_quiet(void)
{
    mm_tp_quiet();
}
SHMEMI_PROFILED(shmem_quiet)

/* SHMEM_CTX_INVALID: "no operation is performed" (1.5 9.11): a PE outside a team quiets the
 * context that shmem_team_create_ctx could not give it, as the spec's team-context example does */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID) {
        shmemi_ctx_check("shmem_ctx_fence", ctx);
        mm_tp_fence();
    }
}
SHMEMI_PROFILED(shmem_ctx_fence)

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID) {
        shmemi_ctx_check("shmem_ctx_quiet", ctx);
        mm_tp_quiet();
    }
}
SHMEMI_PROFILED(shmem_ctx_quiet)
