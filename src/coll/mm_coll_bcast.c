/*
 * Broadcast and scatter in one step: the root sends each member its message (the same
 * buffer for broadcast, block r for scatter); members copy out in parallel. Above the eager
 * size each member copies straight from the root's buffer (rendezvous by descriptor), so the
 * N-1 copies run on N-1 cores at once instead of one after another at the root.
 */
#include "mm_coll.h"
#include "mm_trace.h"

#include <stdlib.h>
#include <string.h>

void mm_root_send(const mm_coll_args_t *a, uint64_t seq, const char *buf, size_t stride, size_t len,
                  char *recv)
{
    struct meshmem_team *t = a->t;
    int n = t->size, root = t->my_rank;
    mm_desc_t d = {MM_DESC_NONE, 0};
    const char *src = buf;
    size_t sstride = stride;
    if (len > mm_g.eager_bytes && n > 1) {
        size_t span = stride ? stride * (size_t)(n - 1) + len : len;
        if (!mm_desc_of(buf, span, &d)) {
            /* private: stage this round's blocks back to back */
            size_t nb = stride ? (size_t)n : 1;
            char *stage = mm_msg_stage(t, len * nb);
            if (stage == NULL)
                mm_fatal("%s: %zu bytes to stage exceed the staging memory", a->call, len * nb);
            for (size_t b = 0; b < nb; b++)
                memcpy(stage + b * len, buf + stride * b, len);
            src = stage;
            sstride = stride ? len : 0;
            mm_desc_of(stage, len * nb, &d);
        }
    }
    uint8_t *sent = calloc((size_t)n, 1);
    if (sent == NULL)
        mm_fatal("%s: out of memory", a->call);
    for (int k = 1; k < n; k++) {
        int r = (root + k) % n;
        mm_desc_t dr = mm_desc_add(d, sstride * (size_t)r);
        sent[r] = mm_msg_send(t, seq, r, src + sstride * (size_t)r, len, &dr);
    }
    mm_coll_wake_all(t);
    if (recv && recv != buf + stride * (size_t)root && len)
        memmove(recv, buf + stride * (size_t)root, len);
    mm_msg_send_complete(t, seq, sent);
    free(sent);
}

/* one round: the root sends blk(r) (len bytes at buf + stride*r, stride 0 for a broadcast) */
static void mm_root_step(const mm_coll_args_t *a, int root, const char *buf, size_t stride,
                         size_t len, char *recv)
{
    struct meshmem_team *t = a->t;
    uint64_t seq = mm_coll_begin(t);
    if (t->my_rank == root)
        mm_root_send(a, seq, buf, stride, len, recv);
    else
        mm_msg_recv_exact(a->call, t, seq, root, recv, len);
    mm_coll_end(t, seq);
}

meshmem_status_t meshmem_coll_bcast(meshmem_team_t team, void *buf, size_t count,
                                    meshmem_dtype_t dtype, int root, meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("bcast", team, count * meshmem_dtype_size(dtype)));
    mm_coll_args_t a;
    meshmem_status_t st =
        mm_coll_check_rooted(&a, "meshmem_coll_bcast", team, dtype, algo, root,
                             algo == MESHMEM_ALGO_LEADER ? algo : MESHMEM_ALGO_ONESTEP);
    if (st != MESHMEM_OK)
        return st;
    size_t len = mm_coll_bytes(&a, count);
    MM_COLL_TRY_OFFLOAD(&a, bcast, buf, len, root);
    if (mm_leader_for(&a, len)) { /* across hosts, the smallest (mm_coll_leader.c) */
        mm_leader_bcast(&a, buf, len, root);
        return MESHMEM_OK;
    }
    if (mm_ghc_for(&a))
        return mm_ghc_bcast(&a, buf, len, root);
    if (mm_line_fits(&a, len)) {
        mm_line_bcast(&a, buf, len, root);
        return MESHMEM_OK;
    }
    /* rounds over slices, so that a private buffer fits in staging: every member cuts the
     * same rounds by itself (mm_msg_round_bytes), where the root once told its chunk in a
     * round of its own, a network message and its wait per call between hosts; no staging:
     * one round (a private buffer then fails in mm_root_step, naming the bytes) */
    size_t chunk = mm_msg_round_bytes(len, a.esize, 1), done = 0;
    do {
        size_t c = len - done < chunk ? len - done : chunk;
        mm_root_step(&a, root, (char *)buf + done, 0, c, (char *)buf + done);
        done += c;
    } while (done < len);
    return MESHMEM_OK;
}

meshmem_status_t meshmem_coll_scatter(meshmem_team_t team, const void *sendbuf, void *recvbuf,
                                      size_t count, meshmem_dtype_t dtype, int root,
                                      meshmem_algo_t algo)
{
    MM_TRACE_SCOPE(mm_trace_coll("scatter", team,
                                 mm_trace_team_bytes(team, count * meshmem_dtype_size(dtype))));
    mm_coll_args_t a;
    meshmem_status_t st = mm_coll_check_rooted(&a, "meshmem_coll_scatter", team, dtype, algo, root,
                                               MESHMEM_ALGO_ONESTEP);
    if (st != MESHMEM_OK)
        return st;
    size_t len = mm_coll_bytes(&a, count);
    MM_COLL_TRY_OFFLOAD(&a, scatter, sendbuf, recvbuf, len, root);
    if (mm_ghc_for(&a))
        return mm_ghc_scatter(&a, sendbuf, recvbuf, len, root);
    if (mm_line_fits(&a, len)) {
        mm_line_scatter(&a, sendbuf, recvbuf, len, root);
        return MESHMEM_OK;
    }
    int n = a.t->size;
    bool is_root = a.t->my_rank == root;
    const char *sbuf = is_root ? sendbuf : NULL;
    size_t chunk = mm_msg_round_bytes(len, a.esize, n), done = 0; /* as bcast's */
    do {
        size_t c = len - done < chunk ? len - done : chunk;
        mm_root_step(&a, root, sbuf ? sbuf + done : NULL, len, c, (char *)recvbuf + done);
        done += c;
    } while (done < len);
    return MESHMEM_OK;
}
