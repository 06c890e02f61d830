/*
 * Floods: (1) every rank sends many MEDIUM requests to rank 0 at once, half of them answered;
 * (2) every rank floods every rank (itself included) at once, each request answered by a
 * reply. With small rings (the test also runs with MESHMEM_AM_SLOTS=1 and 2) senders find
 * rings full all the time and must serve their own incoming requests and replies while they
 * wait (nested progress): a handler's reply to a requester whose ring is full. Nothing may be
 * lost, duplicated, reordered per sender, or deadlock.
 */
#include "am_test.h"

#include <stdlib.h>

int mm_test_rank_hint = -1;

enum { H_COUNT = 1, H_ACK = 2, FLOOD = 600, ALL = 150 };

static int me, npes;
static _Atomic int64_t *from; /* [npes] requests handled, per sender (atomic: the progress
                                  thread writes them, and TSan sees no order through peers) */
static _Atomic int64_t acks;  /* replies handled here */
static _Atomic int64_t handled;

static void on_count(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    int src = meshmem_am_token_rank(t);
    /* per sender, requests are handled in the order they were sent */
    CHECK(a[0] == (uint64_t)atomic_load(&from[src]));
    CHECK(am_check_payload(buf, src, n));
    atomic_fetch_add(&from[src], 1);
    atomic_fetch_add(&handled, 1);
    if (a[1])
        CHECK(meshmem_am_reply_short(t, H_ACK, 2, a) == MESHMEM_OK);
}

static void on_ack(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    atomic_fetch_add(&acks, 1);
}

int main(void)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    me = meshmem_rank();
    npes = meshmem_nranks();
    mm_test_rank_hint = me;
    from = calloc((size_t)(unsigned)npes, sizeof *from);
    CHECK(from != NULL);
    meshmem_am_entry_t table[] = {
        {H_COUNT, on_count, MESHMEM_AM_MEDIUM, MESHMEM_AM_REQUEST, 2},
        {H_ACK, on_ack, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 2},
    };
    CHECK(meshmem_am_register(table, 2) == MESHMEM_OK);
    unsigned char buf[512];

    /* (1) all to one */
    int64_t seq0 = 0, expect_acks = 0;
    for (int i = 0; i < FLOOD; i++) {
        size_t n = (size_t)(i * 37 % 500);
        am_fill(buf, me, n);
        meshmem_am_arg_t a[2] = {(uint64_t)seq0++, (uint64_t)(i & 1)};
        expect_acks += i & 1;
        CHECK(meshmem_am_request_medium(0, H_COUNT, buf, n, 2, a) == MESHMEM_OK);
    }
    CHECK(meshmem_am_quiet() == MESHMEM_OK);
    CHECK_EQ_LL(atomic_load(&acks), expect_acks);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    if (me == 0)
        for (int p = 0; p < npes; p++)
            CHECK_EQ_LL(atomic_load(&from[p]), FLOOD);
    meshmem_barrier(MESHMEM_TEAM_WORLD); /* checked before phase 2 sends (progress thread) */

    /* (2) all to all, interleaved destinations, every request answered */
    CHECK(npes > 0);
    int64_t *next = calloc((size_t)(unsigned)npes, sizeof *next);
    CHECK(next != NULL);
    for (int p = 0; p < npes; p++)
        next[p] = p == 0 ? FLOOD : 0; /* sequence numbers continue per (sender, receiver) */
    for (int i = 0; i < ALL; i++)
        for (int k = 0; k < npes; k++) {
            int dst = (me + k) % npes;
            size_t n = (size_t)((i + k) * 13 % 300);
            am_fill(buf, me, n);
            meshmem_am_arg_t a[2] = {(uint64_t)next[dst]++, 1};
            CHECK(meshmem_am_request_medium(dst, H_COUNT, buf, n, 2, a) == MESHMEM_OK);
        }
    CHECK(meshmem_am_quiet() == MESHMEM_OK);
    CHECK_EQ_LL(atomic_load(&acks), expect_acks + (int64_t)ALL * npes);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    for (int p = 0; p < npes; p++)
        CHECK_EQ_LL(atomic_load(&from[p]), (me == 0 ? FLOOD : 0) + ALL);
    free(next);
    free((void *)from);
    meshmem_finalize();
    return 0;
}
