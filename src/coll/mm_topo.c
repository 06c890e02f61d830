/*
 * Team topologies: the full mesh (default) or a 2-D generalized hypercube (GHC, r = 2).
 *
 * A GHC team of kx * ky members labels member r as (x, y) = (r % kx, r / kx). Its collectives
 * (mm_coll_ghc.c) run on two sub-teams per member, built once by the 2-D split of mm_team.c
 * and cached in the team: the row (x-axis: the kx members with the same y, numbered by x) and
 * the column (y-axis: the ky members with the same x, numbered by y). Every row shares one sync
 * slot, every column another (rows are disjoint, so are columns), so a GHC team holds three
 * slots in all. The split agrees on the slots with one exchange over the whole team: a setup
 * step, like creating a communicator; every collective afterwards uses row and column links
 * only.
 *
 * Across hosts the GHC is the machine's own shape (MESHMEM_TOPOLOGY=auto, the default): the
 * ranks of a host are a full mesh over shared memory, the ranks of the same local number on
 * every host a full mesh over the network, and a collective takes one step in each (OPTWEB's
 * GHC, OPTWEB §2.D). mm_topo_hosts finds that shape in the team's members: L ranks per host
 * placed by slot (member r on host r / L) is a GHC of L x H, placed round-robin (host r % H)
 * one of H x L; any other placement keeps the full mesh, which is correct for any.
 */
#include "mm_config.h"
#include "mm_grid.h"
#include "mm_msg.h"

#include <stdio.h>
#include <stdlib.h>

void meshmem_topology_square(int n, int *kx, int *ky)
{
    if (n < 1 || kx == NULL || ky == NULL)
        return;
    mm_grid_most_square(n, kx, ky);
}

/* check and set a GHC shape on @p t; @return 0, or -1 after a line naming the shape */
static int mm_topo_set_shape(struct meshmem_team *t, const char *who, int kx, int ky)
{
    if (kx == -1 && ky == -1)
        meshmem_topology_square(t->size, &kx, &ky);
    if (kx < 1 || ky < 1 || (int64_t)kx * ky != t->size) {
        mm_error("%s: a GHC of %d x %d does not factor the team's %d ranks (kx * ky must equal "
                 "%d%s)",
                 who, kx, ky, t->size, t->size,
                 t->predefined ? "" : "; 0 x 0 is the full mesh, -1 x -1 the most square grid");
        return -1;
    }
    t->ghc_kx = kx;
    t->ghc_ky = ky;
    return 0;
}

/* host (node) of team member @p r */
static int mm_topo_node(const struct meshmem_team *t, int r)
{
    return mm_g.node_of[mm_team_world(t, r)];
}

/* true when every block of @p L consecutive members (step @p in, blocks @p out apart) is on
 * one host and no two blocks share one */
static bool mm_topo_blocks(const struct meshmem_team *t, int L, int H, int in, int out)
{
    for (int h = 0; h < H; h++) {
        int node = mm_topo_node(t, h * out);
        for (int i = 1; i < L; i++)
            if (mm_topo_node(t, h * out + i * in) != node)
                return false;
        for (int g = 0; g < h; g++)
            if (mm_topo_node(t, g * out) == node)
                return false;
    }
    return true;
}

int mm_topo_hosts(const struct meshmem_team *t, int *kx, int *ky)
{
    *kx = *ky = 0;
    int n = t->size, L = 1, H = 1;
    while (L < n && mm_topo_node(t, L) == mm_topo_node(t, 0))
        L++;
    if (L > 1 && L < n && n % L == 0 && mm_topo_blocks(t, L, n / L, 1, L)) {
        *kx = L; /* by slot: rows are hosts */
        *ky = n / L;
        return MM_HOSTS_ROWS;
    }
    while (H < n && mm_topo_node(t, H) != mm_topo_node(t, 0))
        H++;
    if (H > 1 && H < n && n % H == 0 && mm_topo_blocks(t, n / H, H, H, 1)) {
        *kx = H; /* round-robin: rows span the hosts, columns are hosts */
        *ky = n / H;
        return MM_HOSTS_COLS;
    }
    return MM_HOSTS_NONE;
}

void mm_topo_team_init(struct meshmem_team *t)
{
    t->ghc_kx = t->ghc_ky = 0;
    t->ghc_hosts = MM_HOSTS_NONE;
    if (mm_config.topology == MM_TOPO_HOSTS && !mm_g.all_local && t->my_rank >= 0)
        t->ghc_hosts = mm_topo_hosts(t, &t->ghc_kx, &t->ghc_ky);
}

int mm_topo_world_init(struct meshmem_team *world)
{
    int64_t v = mm_config.topology;
    world->ghc_kx = world->ghc_ky = 0;
    world->ghc_hosts = MM_HOSTS_NONE;
    world->ghc_x = world->ghc_y = NULL;
    if (v == MM_TOPO_HOSTS) {
        mm_topo_team_init(world);
        return 0;
    }
    if (v == MM_TOPO_FULLMESH)
        return 0;
    if (v == MM_TOPO_GHC_AUTO)
        return mm_topo_set_shape(world, "MESHMEM_TOPOLOGY=ghc", -1, -1);
    int kx = (int)(v >> 32), ky = (int)(v & 0xffffffff);
    char who[64];
    snprintf(who, sizeof(who), "MESHMEM_TOPOLOGY=ghc:%dx%d", kx, ky);
    return mm_topo_set_shape(world, who, kx, ky);
}

void mm_topo_release(struct meshmem_team *t)
{
    struct meshmem_team *axes[2] = {t->ghc_x, t->ghc_y};
    t->ghc_x = t->ghc_y = NULL;
    for (int i = 0; i < 2; i++) {
        if (axes[i] == NULL)
            continue;
        mm_msg_stage_release(axes[i]);
        meshmem_team_destroy(axes[i]);
    }
}

void mm_topo_fini(struct meshmem_team *world)
{
    struct meshmem_team *axes[2] = {world->ghc_x, world->ghc_y};
    for (int i = 0; i < 2; i++) {
        if (axes[i] == NULL)
            continue;
        mm_msg_stage_release(axes[i]);
        mm_team_free(axes[i]);
    }
    world->ghc_x = world->ghc_y = NULL;
    world->ghc_kx = world->ghc_ky = 0;
    world->ghc_hosts = MM_HOSTS_NONE;
}

void mm_topo_axes(struct meshmem_team *t, struct meshmem_team **row, struct meshmem_team **col)
{
    if (MM_UNLIKELY(t->ghc_x == NULL)) {
        meshmem_team_t x, y;
        /* inside the user's collective: a peer that waits meanwhile is told that one */
        meshmem_status_t st =
            mm_team_split_2d_as(t->call ? t->call : "a collective", t, t->ghc_kx, &x, &y);
        if (st != MESHMEM_OK)
            mm_fatal("GHC %d x %d: cannot build the row and column teams: %s (each GHC team "
                     "takes 2 more of the %d team slots)",
                     t->ghc_kx, t->ghc_ky, meshmem_status_string(st), MM_TEAM_SLOTS);
        if (x->size != t->ghc_kx || y->size != t->ghc_ky)
            mm_fatal("GHC %d x %d: the split made a %d-member row and a %d-member column",
                     t->ghc_kx, t->ghc_ky, x->size, y->size);
        t->ghc_x = x;
        t->ghc_y = y;
    }
    *row = t->ghc_x;
    *col = t->ghc_y;
}

meshmem_status_t meshmem_team_set_topology(meshmem_team_t team, int kx, int ky)
{
    MM_CHECK_INIT("meshmem_team_set_topology");
    if (team == MESHMEM_TEAM_INVALID || team->my_rank < 0) {
        mm_error("meshmem_team_set_topology: team argument is invalid or this rank is not a "
                 "member");
        return MESHMEM_ERR_TEAM;
    }
    struct meshmem_team *t = mm_team_checked("meshmem_team_set_topology", team);
    int okx = t->ghc_kx, oky = t->ghc_ky;
    if (kx == 0 && ky == 0) {
        t->ghc_kx = t->ghc_ky = 0;
    } else if (mm_topo_set_shape(t, "meshmem_team_set_topology", kx, ky) != 0) {
        return MESHMEM_ERR_ARG;
    }
    if (t->ghc_kx != okx || t->ghc_ky != oky) {
        t->ghc_hosts = MM_HOSTS_NONE; /* the user's shape: its rows are not known to be hosts */
        mm_topo_release(t); /* a new shape needs new rows and columns (built on first use) */
    }
    return MESHMEM_OK;
}

meshmem_status_t meshmem_team_get_topology(meshmem_team_t team, int *kx, int *ky)
{
    if (team == MESHMEM_TEAM_INVALID || kx == NULL || ky == NULL)
        return team == MESHMEM_TEAM_INVALID ? MESHMEM_ERR_TEAM : MESHMEM_ERR_ARG;
    *kx = team->ghc_kx;
    *ky = team->ghc_ky;
    return MESHMEM_OK;
}
