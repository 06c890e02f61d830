/*
 * OpenSHMEM 1.5 teams (query, configuration, split, destroy) and synchronisation (barrier_all,
 * sync_all, team_sync and the deprecated active-set barrier and sync), over meshmem's teams.
 *
 * Team configuration: the only field of 1.5, num_contexts, is kept in the native team
 * (struct meshmem_team.num_contexts) where the context layer reads it; a field not selected by
 * the config mask takes its default (0).
 */
#include "shmem_coll_impl.h"

int shmem_team_my_pe(shmem_team_t team)
{
    mm_team_check_handle("shmem_team_my_pe", team);
    return meshmem_team_rank(team);
}
SHMEMI_PROFILED(shmem_team_my_pe)

int shmem_team_n_pes(shmem_team_t team)
{
    mm_team_check_handle("shmem_team_n_pes", team);
    return meshmem_team_size(team);
}
SHMEMI_PROFILED(shmem_team_n_pes)

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    MM_CHECK_INIT("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID)
        return NULL;
    mm_team_checked("shmem_team_ptr", team);
    int world = meshmem_team_world_rank(team, pe);
    return world < 0 ? NULL : meshmem_ptr(dest, world);
}
SHMEMI_PROFILED(shmem_team_ptr)

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    mm_team_check_handle("shmem_team_translate_pe", src_team);
    mm_team_check_handle("shmem_team_translate_pe", dest_team);
    return meshmem_team_translate(src_team, src_pe, dest_team);
}
SHMEMI_PROFILED(shmem_team_translate_pe)

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    mm_team_check_handle("shmem_team_get_config", team);
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
        mm_error("shmem_team_get_config: config_mask argument (%#lx) has unknown bits",
                 config_mask);
        return -1;
    }
    if (config_mask != 0 && config == NULL) {
        mm_error("shmem_team_get_config: config argument is NULL");
        return -1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->num_contexts;
    return 0;
}
SHMEMI_PROFILED(shmem_team_get_config)

/* the number of contexts that @p config / @p mask ask for (0 by default); -1 when invalid */
static int shmemi_team_config_contexts(const char *call, const shmem_team_config_t *config,
                                       long mask)
{
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
        mm_error("%s: config_mask argument (%#lx) has unknown bits", call, mask);
        return -1;
    }
    if (!(mask & SHMEM_TEAM_NUM_CONTEXTS))
        return 0;
    if (config == NULL || config->num_contexts < 0) {
        mm_error("%s: config argument is %s", call,
                 config == NULL ? "NULL" : "invalid (negative num_contexts)");
        return -1;
    }
    return config->num_contexts;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    MM_CHECK_INIT("shmem_team_split_strided");
    if (new_team == NULL)
        mm_fatal("shmem_team_split_strided: new_team argument is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    mm_team_check_handle("shmem_team_split_strided", parent_team);
    int contexts = shmemi_team_config_contexts("shmem_team_split_strided", config, config_mask);
    if (parent_team == SHMEM_TEAM_INVALID || contexts < 0)
        return -1;
    if (meshmem_team_split_strided(parent_team, start, stride, size, new_team) != MESHMEM_OK)
        return -1;
    if (*new_team != SHMEM_TEAM_INVALID)
        (*new_team)->num_contexts = contexts;
    return 0;
}
SHMEMI_PROFILED(shmem_team_split_strided)

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    MM_CHECK_INIT("shmem_team_split_2d");
    if (xaxis_team == NULL || yaxis_team == NULL)
        mm_fatal("shmem_team_split_2d: %s argument is NULL",
                 xaxis_team == NULL ? "xaxis_team" : "yaxis_team");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    mm_team_check_handle("shmem_team_split_2d", parent_team);
    int xcontexts = shmemi_team_config_contexts("shmem_team_split_2d", xaxis_config, xaxis_mask);
    int ycontexts = shmemi_team_config_contexts("shmem_team_split_2d", yaxis_config, yaxis_mask);
    if (parent_team == SHMEM_TEAM_INVALID || xcontexts < 0 || ycontexts < 0)
        return -1;
    if (meshmem_team_split_2d(parent_team, xrange, xaxis_team, yaxis_team) != MESHMEM_OK)
        return -1;
    (*xaxis_team)->num_contexts = xcontexts;
    (*yaxis_team)->num_contexts = ycontexts;
    return 0;
}
SHMEMI_PROFILED(shmem_team_split_2d)

void shmem_team_destroy(shmem_team_t team)
{
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) {
        mm_error("shmem_team_destroy: the predefined teams (world, shared) cannot be destroyed");
        return;
    }
    mm_team_check_handle("shmem_team_destroy", team);
    meshmem_team_destroy(team);
}
SHMEMI_PROFILED(shmem_team_destroy)

/* ---- synchronisation ---- */

/* the native call @p expr, naming routine @p call in its errors and in a wait that lasts */
#define SHMEMI_NAMED(call, expr)                                                                   \
    do {                                                                                           \
        mm_user_call = call;                                                                       \
        expr;                                                                                      \
        mm_user_call = NULL;                                                                       \
    } while (0)

void shmem_barrier_all(void)
{
    SHMEMI_NAMED("shmem_barrier_all", meshmem_barrier(SHMEM_TEAM_WORLD)); /* quiet, then barrier */
}
SHMEMI_PROFILED(shmem_barrier_all)

void shmem_sync_all(void)
{
    SHMEMI_NAMED("shmem_sync_all", meshmem_team_sync(SHMEM_TEAM_WORLD));
}
SHMEMI_PROFILED(shmem_sync_all)

int shmem_team_sync(shmem_team_t team)
{
    MM_CHECK_INIT("shmem_team_sync");
    mm_team_checked("shmem_team_sync", team);
    int st;
    SHMEMI_NAMED("shmem_team_sync", st = meshmem_team_sync(team));
    return st;
}
SHMEMI_PROFILED(shmem_team_sync)

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shmem_team_t t = shmemi_aset_team("shmem_barrier", PE_start, logPE_stride, PE_size, pSync);
    SHMEMI_NAMED("shmem_barrier", meshmem_barrier(t));
}
SHMEMI_PROFILED(shmem_barrier)

/* (the parentheses: shmem_sync is also the macro that picks this or shmem_team_sync) */
void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shmem_team_t t = shmemi_aset_team("shmem_sync", PE_start, logPE_stride, PE_size, pSync);
    SHMEMI_NAMED("shmem_sync", meshmem_team_sync(t));
}
SHMEMI_PROFILED(shmem_sync)
