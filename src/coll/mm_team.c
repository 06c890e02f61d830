/* Teams: strided subsets of the world, each holding one sync slot (see mm_team.h). */
#include "mm_team.h"
#include "mm_msg.h"

#include <stdlib.h>
#include <string.h>

static struct meshmem_team mm_team_world_obj, mm_team_shared_obj;
meshmem_team_t MESHMEM_TEAM_WORLD = &mm_team_world_obj;
meshmem_team_t MESHMEM_TEAM_SHARED = &mm_team_shared_obj;

/* bit s set: sync slot s is free on this rank */
static uint64_t mm_slots_free;
static pthread_mutex_t mm_team_lock = PTHREAD_MUTEX_INITIALIZER;
/* the teams made by splits, by slot (world and shared are static): finalize frees those the
 * program did not destroy, as the spec has shmem_finalize release every resource */
static struct meshmem_team *mm_team_live[MM_TEAM_SLOTS];

/*
 * SHMEM_TEAM_SHARED: the ranks of this rank's node (those whose memory it maps). A team is a
 * strided set of world ranks: when the node's ranks are not one (an uneven mapping across
 * hosts), the shared team is this rank alone, which the specification allows and which every
 * shmem_ptr answer stays consistent with.
 */
static void mm_team_shared_init(struct meshmem_team *t)
{
    int first = -1, second = -1, count = 0, me = -1;
    for (int r = 0; r < mm_g.nranks; r++) {
        if (mm_g.node_of[r] != mm_g.node)
            continue;
        if (r == mm_g.rank)
            me = count;
        if (first < 0)
            first = r;
        else if (second < 0)
            second = r;
        count++;
    }
    int stride = second < 0 ? 1 : second - first;
    bool strided = true;
    for (int i = 0, r = first; i < count; i++, r += stride)
        strided = strided && r < mm_g.nranks && mm_g.node_of[r] == mm_g.node;
    if (!strided) {
        first = mm_g.rank, stride = 1, count = 1, me = 0;
        mm_debug("SHMEM_TEAM_SHARED: this host's ranks are not a strided set: the team is this "
                 "rank alone");
    }
    t->start = first;
    t->stride = stride;
    t->size = count;
    t->my_rank = me;
}

/* @p t offloads its collectives when one transport reaches every member and runs them itself
 * (mm_tp_coll.h); a member asks, with the others (team_init may be collective) */
static void mm_team_offload_init(struct meshmem_team *t)
{
    t->offload = NULL;
    const mm_tp_coll_ops_t *c =
        t->my_rank < 0 ? NULL : mm_tp_coll_for(t->start, t->stride, t->size);
    if (c == NULL)
        return;
    t->group = (mm_tp_group_t){.start = t->start,
                               .stride = t->stride,
                               .size = t->size,
                               .my_rank = t->my_rank,
                               .slot = t->slot};
    if (c->team_init == NULL || c->team_init(&t->group) == 0)
        t->offload = c;
}

static void mm_team_offload_fini(struct meshmem_team *t)
{
    if (t->offload != NULL && t->offload->team_fini != NULL)
        t->offload->team_fini(&t->group);
    t->offload = NULL;
}

int mm_team_init(void)
{
    mm_slots_free = ~UINT64_C(0) & ~UINT64_C(3);
    mm_team_world_obj = (struct meshmem_team){.start = 0,
                                              .stride = 1,
                                              .size = mm_g.nranks,
                                              .my_rank = mm_g.rank,
                                              .slot = 0,
                                              .predefined = true};
    mm_team_shared_obj = mm_team_world_obj;
    mm_team_shared_obj.slot = 1;
    mm_team_shared_init(&mm_team_shared_obj);
    mm_team_offload_init(&mm_team_world_obj);
    mm_team_offload_init(&mm_team_shared_obj);
    return mm_topo_world_init(&mm_team_world_obj);
}

void mm_team_fini(void)
{
    mm_topo_fini(&mm_team_world_obj);
    mm_team_offload_fini(&mm_team_world_obj);
    mm_team_offload_fini(&mm_team_shared_obj);
    mm_msg_rx_release(&mm_team_world_obj);
    mm_msg_rx_release(&mm_team_shared_obj);
    /* past finalize's barrier: no member uses them any more, so no collective release */
    for (int slot = 0; slot < MM_TEAM_SLOTS; slot++) {
        struct meshmem_team *t = mm_team_live[slot];
        if (t != NULL) {
            mm_msg_stage_release(t);
            mm_team_free(t);
        }
    }
    mm_team_world_obj.seq = mm_team_shared_obj.seq = 0;
}

bool mm_team_known(meshmem_team_t team)
{
    if (team == MESHMEM_TEAM_WORLD || team == MESHMEM_TEAM_SHARED)
        return true;
    for (uint64_t used = ~__atomic_load_n(&mm_slots_free, __ATOMIC_RELAXED); used; used &= used - 1)
        if (__atomic_load_n(&mm_team_live[__builtin_ctzll(used)], __ATOMIC_RELAXED) == team)
            return true;
    return false;
}

void mm_team_bad(const char *call, meshmem_team_t team)
{
    if (team == MESHMEM_TEAM_INVALID)
        mm_fatal("%s: team argument is SHMEM_TEAM_INVALID", call);
    if (!mm_team_known(team))
        mm_fatal("%s: team argument (%p) is not a team: destroyed already, or never made by a "
                 "split",
                 call, (void *)team);
    mm_fatal("%s: team argument (%p) is not a live team", call, (void *)team);
}

int meshmem_team_rank(meshmem_team_t team)
{
    mm_team_check_handle(mm_call_name("meshmem_team_rank"), team);
    return team == MESHMEM_TEAM_INVALID ? -1 : team->my_rank;
}

int meshmem_team_size(meshmem_team_t team)
{
    mm_team_check_handle(mm_call_name("meshmem_team_size"), team);
    return team == MESHMEM_TEAM_INVALID ? -1 : team->size;
}

int meshmem_team_world_rank(meshmem_team_t team, int r)
{
    if (team == MESHMEM_TEAM_INVALID || r < 0 || r >= team->size)
        return -1;
    return mm_team_world(team, r);
}

int meshmem_team_translate(meshmem_team_t src, int src_rank, meshmem_team_t dst)
{
    const char *call = mm_call_name("meshmem_team_translate");
    mm_team_check_handle(call, src);
    mm_team_check_handle(call, dst);
    int w = meshmem_team_world_rank(src, src_rank);
    if (w < 0 || dst == MESHMEM_TEAM_INVALID)
        return -1;
    int d = w - dst->start;
    if (d % dst->stride != 0)
        return -1;
    d /= dst->stride;
    return (d >= 0 && d < dst->size) ? d : -1;
}

/* "size 2" or "start 0, size 2": the arguments of a split (@p names, @p v) where @p o differs */
static void mm_team_split_args(char *out, size_t cap, const char *const *names, const int64_t *v,
                               const int64_t *o, int nargs)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < nargs && len < cap; i++)
        if (v[i] != o[i])
            len += (size_t)snprintf(out + len, cap - len, "%s%s %lld", len ? ", " : "", names[i],
                                    (long long)v[i]);
}

/*
 * Agree on free slots (the AND of every parent member's free mask) and check that every member
 * passed the same @p nargs (<= 3) arguments @p args, named @p names, to @p call: they must (a
 * member that splits otherwise would build another team than its peers), so a difference ends
 * the job naming the arguments and their values on two PEs.
 */
static uint64_t mm_team_common_free(struct meshmem_team *parent, const char *call,
                                    const char *const *names, const int *args, int nargs)
{
    enum { W = 4 };
    uint64_t mine[W] = {mm_team_slots_free()}, *all = malloc(sizeof(mine) * (size_t)parent->size);
    if (all == NULL)
        mm_fatal("team split: out of memory");
    for (int i = 0; i < nargs; i++)
        mine[1 + i] = (uint64_t)(int64_t)args[i];
    mm_coll_enter(parent, call, MM_CALL_TAG(MM_CALL_SPLIT, 0));
    mm_coll_exchange(parent, MM_FLAG_ARRIVE, parent->tag, mine, W, all);
    uint64_t common = ~UINT64_C(0);
    for (int r = 0; r < parent->size; r++) {
        const uint64_t *o = all + (size_t)r * W;
        if (memcmp(o + 1, mine + 1, sizeof(uint64_t) * (size_t)nargs) != 0) {
            int64_t a[3], b[3];
            for (int i = 0; i < nargs; i++) {
                a[i] = (int64_t)mine[1 + i];
                b[i] = (int64_t)o[1 + i];
            }
            char here[96], there[96];
            int me = mm_g.rank, peer = mm_team_world(parent, r);
            mm_team_split_args(here, sizeof(here), names, a, b, nargs);
            mm_team_split_args(there, sizeof(there), names, b, a, nargs);
            if (peer < me)
                mm_fatal_collective("%s: arguments differ between PEs (PE %d: %s, PE %d: %s)", call,
                                    peer, there, me, here);
            mm_fatal_collective("%s: arguments differ between PEs (PE %d: %s, PE %d: %s)", call, me,
                                here, peer, there);
        }
        common &= o[0];
    }
    free(all);
    return common;
}

static struct meshmem_team *mm_team_new(int start, int stride, int size, int slot);

uint64_t mm_team_slots_free(void)
{
    pthread_mutex_lock(&mm_team_lock);
    uint64_t mask = mm_slots_free;
    pthread_mutex_unlock(&mm_team_lock);
    return mask;
}

struct meshmem_team *mm_team_create(int start, int stride, int size, int slot)
{
    pthread_mutex_lock(&mm_team_lock);
    bool was_free = slot >= 0 && slot < MM_TEAM_SLOTS && (mm_slots_free >> slot & 1);
    if (was_free) /* claimed here, under the lock, so no concurrent split takes it */
        __atomic_fetch_and(&mm_slots_free, ~(UINT64_C(1) << slot), __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mm_team_lock);
    return was_free ? mm_team_new(start, stride, size, slot) : NULL;
}

static struct meshmem_team *mm_team_new(int start, int stride, int size, int slot)
{
    struct meshmem_team *t = calloc(1, sizeof(*t));
    if (t == NULL)
        mm_fatal("team split: out of memory");
    t->start = start;
    t->stride = stride;
    t->size = size;
    t->slot = slot;
    t->my_rank = -1;
    int d = mm_g.rank - start;
    if (d % stride == 0 && d / stride >= 0 && d / stride < size)
        t->my_rank = d / stride;
    mm_topo_team_init(t);
    mm_team_offload_init(t);
    pthread_mutex_lock(&mm_team_lock);
    __atomic_fetch_and(&mm_slots_free, ~(UINT64_C(1) << slot), __ATOMIC_RELAXED);
    __atomic_store_n(&mm_team_live[slot], t, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mm_team_lock);
    return t;
}

void mm_team_free(struct meshmem_team *t)
{
    mm_team_offload_fini(t);
    pthread_mutex_lock(&mm_team_lock);
    if (t->slot >= 0 && t->slot < MM_TEAM_SLOTS && mm_team_live[t->slot] == t)
        __atomic_store_n(&mm_team_live[t->slot], NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mm_team_lock);
    free(t->heard);
    free(t);
}

meshmem_status_t meshmem_team_split_strided(meshmem_team_t parent_h, int start, int stride,
                                            int size, meshmem_team_t *new_team)
{
    MM_CHECK_INIT("meshmem_team_split_strided");
    if (new_team == NULL)
        return MESHMEM_ERR_ARG;
    *new_team = MESHMEM_TEAM_INVALID;
    const char *call = "shmem_team_split_strided";
    struct meshmem_team *parent = mm_team_checked(call, parent_h);
    static const char *const names[] = {"start", "stride", "size"};
    uint64_t common =
        mm_team_common_free(parent, call, names, (const int[]){start, stride, size}, 3);
    if (size == 1 && stride == 0)
        stride = 1;
    if (size < 1 || size > parent->size || start < 0 || start >= parent->size || stride < 1 ||
        (int64_t)start + (int64_t)(size - 1) * stride >= parent->size) {
        /* an error the call returns (SHMEM_TEAM_INVALID): told once, by the parent's first PE */
        if (parent->my_rank == 0)
            mm_warn("%s: start %d, stride %d, size %d do not fit a parent team of %d PEs: the "
                    "call returns SHMEM_TEAM_INVALID",
                    call, start, stride, size, parent->size);
        return MESHMEM_ERR_ARG;
    }
    if (common == 0) {
        mm_error("shmem_team_split_strided: all %d team slots are in use", MM_TEAM_SLOTS);
        return MESHMEM_ERR_NOMEM;
    }
    int slot = __builtin_ctzll(common);
    int wstart = mm_team_world(parent, start), wstride = stride * parent->stride;
    int d = mm_g.rank - wstart;
    if (d % wstride == 0 && d / wstride >= 0 && d / wstride < size) {
        *new_team = mm_team_new(wstart, wstride, size, slot);
        (*new_team)->num_contexts = 0;
    }
    return MESHMEM_OK;
}

meshmem_status_t meshmem_team_split_2d(meshmem_team_t parent_h, int xrange, meshmem_team_t *xaxis,
                                       meshmem_team_t *yaxis)
{
    MM_CHECK_INIT("meshmem_team_split_2d");
    return mm_team_split_2d_as("shmem_team_split_2d", parent_h, xrange, xaxis, yaxis);
}

meshmem_status_t mm_team_split_2d_as(const char *call, meshmem_team_t parent_h, int xrange,
                                     meshmem_team_t *xaxis, meshmem_team_t *yaxis)
{
    if (xaxis == NULL || yaxis == NULL)
        return MESHMEM_ERR_ARG;
    *xaxis = *yaxis = MESHMEM_TEAM_INVALID;
    struct meshmem_team *parent = mm_team_checked(call, parent_h);
    static const char *const names[] = {"xrange"};
    uint64_t common = mm_team_common_free(parent, call, names, &xrange, 1);
    if (xrange <= 0) {
        if (parent->my_rank == 0)
            mm_warn("%s: xrange (%d) must be positive: the call returns SHMEM_TEAM_INVALID", call,
                    xrange);
        return MESHMEM_ERR_ARG;
    }
    if (xrange > parent->size)
        xrange = parent->size;
    if (__builtin_popcountll(common) < 2) {
        mm_error("%s: fewer than 2 of %d team slots are free", call, MM_TEAM_SLOTS);
        return MESHMEM_ERR_NOMEM;
    }
    int xslot = __builtin_ctzll(common);
    common &= common - 1;
    int yslot = __builtin_ctzll(common);
    int me = parent->my_rank, x = me % xrange, y = me / xrange;
    int ysize = (parent->size + xrange - 1) / xrange;
    /* the last row may be short */
    int xsize = (y == ysize - 1) ? parent->size - y * xrange : xrange;
    int ycount = (x < parent->size - (ysize - 1) * xrange) ? ysize : ysize - 1;
    *xaxis = mm_team_new(mm_team_world(parent, y * xrange), parent->stride, xsize, xslot);
    *yaxis = mm_team_new(mm_team_world(parent, x), parent->stride * xrange, ycount, yslot);
    return MESHMEM_OK;
}

void meshmem_team_destroy(meshmem_team_t team)
{
    mm_team_check_handle(mm_call_name("meshmem_team_destroy"), team);
    if (team == MESHMEM_TEAM_INVALID || team->predefined)
        return;
    MM_CHECK_INIT("shmem_team_destroy");
    mm_topo_release(team);
    mm_fullmesh_barrier(team);
    /* nobody writes into our copy of the slot any more (mm_team.h): zero it and free it */
    memset(mm_team_slot(team), 0, mm_g.slot_bytes);
    pthread_mutex_lock(&mm_team_lock);
    __atomic_fetch_or(&mm_slots_free, UINT64_C(1) << team->slot, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mm_team_lock);
    team->my_rank = -1;
    mm_team_free(team);
}
