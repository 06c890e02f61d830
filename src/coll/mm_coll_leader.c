/*
 * The node-leader forms of the smallest collectives across hosts (MESHMEM_ALGO_LEADER).
 *
 * On a team whose GHC is the hosts' own (topology auto, mm_topo.c) the per-dimension
 * algorithms of mm_coll_ghc.c cross the network once per pair of ranks of matching local
 * number: L messages between every two hosts, all at once (OPTWEB's multi-link injection).
 * For the smallest messages the cost of a network message is its overhead, not its bytes, and
 * L of them cost about L times one. So here only the first rank of each host (its leader)
 * talks to the other hosts, and the hosts' other ranks reach it through shared memory:
 *
 *   barrier    host barrier; leaders' barrier; host barrier (the release)
 *   bcast      the root's column first (the root to the rank of its local number on every
 *              host: one message per host), then every host from that rank
 *   allreduce  gather the host's vectors at the leader; the leaders all-gather the host
 *              bundles (one message per pair of hosts); each leader folds all n vectors in
 *              member order and broadcasts the result to its host
 *   allgather  the same, the leader broadcasting the n blocks in member order
 *   alltoall   gather the host's send buffers at the leader; the leaders exchange, for every
 *              pair of hosts, the L x L blocks between them in one message; each leader
 *              scatters to every rank of its host its n blocks in member order
 *
 * Results are the full mesh's bit for bit: the fold is acc = v0, then acc = acc op vr for
 * r = 1 .. n-1 over the raw vectors, the order of every other allreduce (mm_coll_ghc.c).
 * The host and leader teams are the GHC's rows and columns (which of the two is the host
 * depends on how the ranks were placed: team->ghc_hosts), so no new team is built.
 */
#include "mm_coll.h"

#include <stdlib.h>
#include <string.h>

/* the two levels of a team across hosts, seen from one member */
typedef struct {
    struct meshmem_team *host; /* the ranks of this rank's host (shared memory) */
    struct meshmem_team *net;  /* the ranks of this local number on every host */
    int L, H;                  /* ranks per host, hosts */
    int li, hi;                /* this rank's number on its host, its host's number */
    bool rows;                 /* MM_HOSTS_ROWS: member r is (r % L, r / L), else (r / H, r % H) */
} mm_leader_t;

static mm_leader_t mm_leader_of(struct meshmem_team *t)
{
    mm_leader_t l = {.rows = t->ghc_hosts == MM_HOSTS_ROWS};
    struct meshmem_team *row, *col;
    mm_topo_axes(t, &row, &col);
    l.host = l.rows ? row : col;
    l.net = l.rows ? col : row;
    l.L = l.host->size;
    l.H = l.net->size;
    l.li = l.host->my_rank;
    l.hi = l.net->my_rank;
    return l;
}

/* team member at local number @p li of host @p hi */
static inline int mm_leader_member(const mm_leader_t *l, int li, int hi)
{
    return l->rows ? li + hi * l->L : hi + li * l->H;
}

static void *mm_leader_alloc(const mm_coll_args_t *a, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        mm_fatal("%s: out of memory (%zu bytes for the node leader's buffers)", a->call, bytes);
    return p;
}

/* the sub-team calls below cannot fail on arguments this call has checked */
static void mm_leader_ok(const mm_coll_args_t *a, meshmem_status_t st)
{
    if (st != MESHMEM_OK)
        mm_fatal("%s: a step of the node-leader form failed: %s", a->call,
                 meshmem_status_string(st));
}

void mm_leader_barrier(struct meshmem_team *t)
{
    mm_leader_t l = mm_leader_of(t);
    mm_fullmesh_barrier(l.host);
    if (l.li == 0)
        mm_fullmesh_barrier(l.net);
    mm_fullmesh_barrier(l.host);
}

void mm_leader_bcast(const mm_coll_args_t *a, void *buf, size_t len, int root)
{
    mm_leader_t l = mm_leader_of(a->t);
    int rl = l.rows ? root % l.L : root / l.H, rh = l.rows ? root / l.L : root % l.H;
    if (l.li == rl)
        mm_leader_ok(a, meshmem_coll_bcast(l.net, buf, len, MESHMEM_BYTE, rh, MESHMEM_ALGO_AUTO));
    mm_leader_ok(a, meshmem_coll_bcast(l.host, buf, len, MESHMEM_BYTE, rl, MESHMEM_ALGO_AUTO));
}

/*
 * The call's tag (mm_team.h's MM_CALL_TAG: the collective, its operator and type) travels in the
 * blocks the leaders gather anyway: each rank's block is its bytes, then its tag in the block's
 * last word (a block a whole number of 16 bytes, so that every vector stays aligned for any
 * type). Every leader then holds every member's tag; a difference ends the job with one line,
 * said by the leader of member 0's host (the others know the same and end quietly), naming
 * member 0 and the first member whose tag differs from its own, as on one host.
 */
#define MM_LEADER_STACK 512 /* a block up to this size is built on the stack */

/* the bytes of one member's block of @p len bytes and its tag */
static inline size_t mm_leader_stride(size_t len)
{
    return (len + sizeof(uint64_t) + 15) & ~(size_t)15;
}

static inline uint64_t mm_leader_tag_of(const char *blk, size_t stride)
{
    uint64_t tag;
    memcpy(&tag, blk + stride - sizeof(tag), sizeof(tag));
    return tag;
}

/* end the job at a leader whose @p n blocks of @p stride bytes at @p all (host-major) carry
 * tags that differ (out of line: on the path, the loop of compares alone) */
static __attribute__((noinline, cold, noreturn)) void mm_leader_differs(const mm_coll_args_t *a,
                                                                        const mm_leader_t *l,
                                                                        const char *all,
                                                                        size_t stride, int n);

/* at a leader: every tag of the @p n blocks against this member's, @p mine */
static void mm_leader_check_tags(const mm_coll_args_t *a, const mm_leader_t *l, const char *all,
                                 size_t stride, int n, uint64_t mine)
{
    for (int b = 0; b < n; b++)
        if (MM_UNLIKELY(mm_leader_tag_of(all + (size_t)b * stride, stride) != mine))
            mm_leader_differs(a, l, all, stride, n);
}

/* at the leader: the n blocks (mm_leader_stride(len) bytes each, the bytes then the tag) of
 * every host, host-major, from the host's @p len bytes at @p mine, tagged @p tag (NULL
 * elsewhere); every member's tag checked against this one's */
static char *mm_leader_allgather_hosts(const mm_coll_args_t *a, const mm_leader_t *l,
                                       const void *mine, size_t len, unsigned tag)
{
    size_t stride = mm_leader_stride(len);
    uint64_t word = tag;
    _Alignas(16) char stack[MM_LEADER_STACK];
    char *blk = stride <= sizeof(stack) ? stack : mm_leader_alloc(a, stride);
    memcpy(blk, mine, len);
    memset(blk + len, 0, stride - len - sizeof(word));
    memcpy(blk + stride - sizeof(word), &word, sizeof(word));
    char *g = l->li == 0 ? mm_leader_alloc(a, (size_t)l->L * stride) : NULL;
    mm_leader_ok(a,
                 meshmem_coll_gather(l->host, blk, g, stride, MESHMEM_BYTE, 0, MESHMEM_ALGO_AUTO));
    if (blk != stack)
        free(blk);
    if (l->li != 0)
        return NULL;
    char *all = mm_leader_alloc(a, (size_t)l->L * l->H * stride);
    mm_leader_ok(a, meshmem_coll_allgather(l->net, g, all, (size_t)l->L * stride, MESHMEM_BYTE,
                                           MESHMEM_ALGO_AUTO));
    free(g);
    mm_leader_check_tags(a, l, all, stride, l->L * l->H, word);
    return all;
}

/* block of team member @p r in the host-major array of mm_leader_allgather_hosts */
static inline const char *mm_leader_block(const mm_leader_t *l, const char *all, int r,
                                          size_t stride)
{
    int li = l->rows ? r % l->L : r / l->H, hi = l->rows ? r / l->L : r % l->H;
    return all + ((size_t)hi * l->L + li) * stride;
}

static void mm_leader_differs(const mm_coll_args_t *a, const mm_leader_t *l, const char *all,
                              size_t stride, int n)
{
    uint64_t first = mm_leader_tag_of(mm_leader_block(l, all, 0, stride), stride);
    int r = 1;
    while (r < n - 1 && mm_leader_tag_of(mm_leader_block(l, all, r, stride), stride) == first)
        r++;
    /* member 0 is the leader of host 0 (local number 0 of host 0): it says it */
    if (l->hi != 0)
        mm_fatal_reported();
    mm_coll_differs(a->t, a->call, r,
                    (unsigned)mm_leader_tag_of(mm_leader_block(l, all, r, stride), stride),
                    (unsigned)first);
}

void mm_leader_allreduce(const mm_coll_args_t *a, const void *sendbuf, void *recvbuf, size_t count,
                         meshmem_dtype_t dtype, meshmem_op_t op)
{
    size_t len = count * a->esize, stride = mm_leader_stride(len);
    if (len == 0)
        return;
    unsigned tag = MM_CALL_TAG(MM_CALL_ALLREDUCE, MM_CALL_OP(dtype, op));
    mm_coll_enter(a->t, a->call, tag);
    mm_leader_t l = mm_leader_of(a->t);
    char *all = mm_leader_allgather_hosts(a, &l, sendbuf, len, tag);
    if (all != NULL) {
        int n = a->t->size;
        memcpy(recvbuf, mm_leader_block(&l, all, 0, stride), len);
        for (int r = 1; r < n; r++)
            mm_reduce_apply(dtype, op, recvbuf, mm_leader_block(&l, all, r, stride), count);
        free(all);
    }
    mm_leader_ok(a, meshmem_coll_bcast(l.host, recvbuf, len, MESHMEM_BYTE, 0, MESHMEM_ALGO_AUTO));
}

void mm_leader_allgather(const mm_coll_args_t *a, const void *blk, void *recvbuf, size_t len)
{
    if (len == 0)
        return;
    unsigned tag = MM_CALL_TAG(MM_CALL_ALLGATHER, 0);
    mm_coll_enter(a->t, a->call, tag);
    mm_leader_t l = mm_leader_of(a->t);
    int n = a->t->size;
    size_t stride = mm_leader_stride(len);
    char *all = mm_leader_allgather_hosts(a, &l, blk, len, tag);
    if (all != NULL) {
        for (int r = 0; r < n; r++)
            memcpy((char *)recvbuf + (size_t)r * len, mm_leader_block(&l, all, r, stride), len);
        free(all);
    }
    mm_leader_ok(a, meshmem_coll_bcast(l.host, recvbuf, (size_t)n * len, MESHMEM_BYTE, 0,
                                       MESHMEM_ALGO_AUTO));
}

void mm_leader_alltoall(const mm_coll_args_t *a, const char *sbuf, char *rbuf, size_t len)
{
    if (len == 0)
        return;
    mm_leader_t l = mm_leader_of(a->t);
    int n = a->t->size, L = l.L, H = l.H;
    size_t row = (size_t)n * len; /* one rank's send (or receive) buffer */
    bool leader = l.li == 0;
    /* g[li]: the send buffer of the host's rank li (block j for member j) */
    char *g = leader ? mm_leader_alloc(a, (size_t)L * row) : NULL;
    mm_leader_ok(a, meshmem_coll_gather(l.host, sbuf, g, row, MESHMEM_BYTE, 0, MESHMEM_ALGO_AUTO));
    char *out = NULL;
    if (leader) {
        /* s[h][li][lj]: from our rank li to rank lj of host h; r[h][li][lj]: from rank li of
         * host h to our rank lj */
        size_t pair = (size_t)L * L * len;
        char *s = mm_leader_alloc(a, (size_t)H * pair), *r = mm_leader_alloc(a, (size_t)H * pair);
        for (int h = 0; h < H; h++)
            for (int li = 0; li < L; li++)
                for (int lj = 0; lj < L; lj++)
                    memcpy(s + (size_t)h * pair + ((size_t)li * L + lj) * len,
                           g + (size_t)li * row + (size_t)mm_leader_member(&l, lj, h) * len, len);
        free(g);
        mm_leader_ok(a, meshmem_coll_alltoall(l.net, s, r, pair, MESHMEM_BYTE, MESHMEM_ALGO_AUTO));
        free(s);
        /* out[lj]: the receive buffer of our rank lj, block m from member m */
        out = mm_leader_alloc(a, (size_t)L * row);
        for (int h = 0; h < H; h++)
            for (int li = 0; li < L; li++)
                for (int lj = 0; lj < L; lj++)
                    memcpy(out + (size_t)lj * row + (size_t)mm_leader_member(&l, li, h) * len,
                           r + (size_t)h * pair + ((size_t)li * L + lj) * len, len);
        free(r);
    }
    mm_leader_ok(a,
                 meshmem_coll_scatter(l.host, out, rbuf, row, MESHMEM_BYTE, 0, MESHMEM_ALGO_AUTO));
    free(out);
}
