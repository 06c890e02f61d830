/*
 * Misuse of active messages gives a clear error (a status, and one logged line naming the call
 * and the argument), and the job goes on: unregistered or out-of-range handler indices, a
 * handler of another kind, a wrong argument count, oversized payloads, a LONG destination
 * outside symmetric memory, a reply outside a handler, a request or second reply inside one,
 * bad registrations and registrations that differ between ranks (every rank gets the error).
 */
#include "am_test.h"

int mm_test_rank_hint = -1;

enum { H_REQ = 5, H_REP = 6, H_FIXED = 7 };

static _Atomic int64_t got;

static void on_req(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)buf, (void)n, (void)a, (void)na;
    /* no requests from a handler */
    CHECK(meshmem_am_request_short(meshmem_am_token_rank(t), H_REQ, 0, NULL) == MESHMEM_ERR_STATE);
    CHECK(meshmem_am_quiet() == MESHMEM_ERR_STATE);
    CHECK(meshmem_am_poll() == 0); /* handlers do not nest */
    CHECK(meshmem_am_reply_short(t, H_REP, 0, NULL) == MESHMEM_OK);
    CHECK(meshmem_am_reply_short(t, H_REP, 0, NULL) == MESHMEM_ERR_STATE); /* second reply */
    atomic_fetch_add(&got, 1);
}

static void on_rep(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    atomic_fetch_add(&got, 1);
}

static void on_fixed(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a;
    CHECK(na == 2);
}

int main(void)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    int me = meshmem_rank(), n = meshmem_nranks();
    mm_test_rank_hint = me;
    int peer = (me + 1) % n;
    meshmem_am_entry_t table[] = {
        {H_REQ, on_req, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 0},
        {H_REP, on_rep, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 0},
        {H_FIXED, on_fixed, MESHMEM_AM_MEDIUM, MESHMEM_AM_REQREP, 2},
    };
    CHECK(meshmem_am_register(table, 3) == MESHMEM_OK);
    meshmem_am_arg_t a[17] = {0};
    static char big[1 << 16];
    char *sym = meshmem_malloc(1024);
    char local[64];

    CHECK(meshmem_am_request_short(peer, 77, 0, NULL) == MESHMEM_ERR_ARG);    /* unregistered */
    CHECK(meshmem_am_request_short(peer, -1, 0, NULL) == MESHMEM_ERR_ARG);    /* out of range */
    CHECK(meshmem_am_request_short(peer, 256, 0, NULL) == MESHMEM_ERR_ARG);   /* runtime's */
    CHECK(meshmem_am_request_short(peer, H_FIXED, 2, a) == MESHMEM_ERR_ARG);  /* other kind */
    CHECK(meshmem_am_request_short(peer, H_REP, 0, NULL) == MESHMEM_ERR_ARG); /* reply only */
    CHECK(meshmem_am_request_short(peer, H_REQ, 17, a) == MESHMEM_ERR_ARG);   /* > 16 args */
    CHECK(meshmem_am_request_medium(peer, H_FIXED, local, 8, 3, a) == MESHMEM_ERR_ARG);
    CHECK(meshmem_am_request_medium(peer, H_FIXED, big, meshmem_am_max_medium() + 1, 2, a) ==
          MESHMEM_ERR_ARG); /* oversized payload */
    CHECK(meshmem_am_request_short(n, H_REQ, 0, NULL) == MESHMEM_ERR_RANK);
    CHECK(meshmem_am_put(local, big, 8, peer, 0) == MESHMEM_ERR_NOT_SYMMETRIC);
    CHECK(meshmem_am_put(sym, big, meshmem_am_max_long() + 1, peer, 0) == MESHMEM_ERR_ARG);
    CHECK(meshmem_am_get(local, local, 8, peer, 0) == MESHMEM_ERR_NOT_SYMMETRIC);
    /* replies outside a handler */
    CHECK(meshmem_am_reply_short(NULL, H_REP, 0, NULL) == MESHMEM_ERR_STATE);
    CHECK(meshmem_am_reply_medium((meshmem_am_token_t)local, H_FIXED, local, 1, 2, a) ==
          MESHMEM_ERR_STATE);

    /* the valid path still works after all that */
    CHECK(meshmem_am_request_short(peer, H_REQ, 0, NULL) == MESHMEM_OK);
    CHECK(meshmem_am_quiet() == MESHMEM_OK);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    am_wait_ge(&got, 2);

    /* bad registrations: every rank gets the error, nothing is registered */
    meshmem_am_entry_t bad = {300, on_req, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 0};
    CHECK(meshmem_am_register(&bad, 1) == MESHMEM_ERR_ARG);
    meshmem_am_entry_t only_rank0 = {20, on_req, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 0};
    if (me != 0)
        only_rank0.index = 300; /* a bad entry on the other ranks only */
    CHECK(meshmem_am_register(&only_rank0, 1) == (n == 1 ? MESHMEM_OK : MESHMEM_ERR_ARG));
    meshmem_am_entry_t differ = {21, on_req, me == 0 ? MESHMEM_AM_SHORT : MESHMEM_AM_MEDIUM,
                                 MESHMEM_AM_REQUEST, -1};
    CHECK(meshmem_am_register(&differ, 1) == (n == 1 ? MESHMEM_OK : MESHMEM_ERR_ARG));
    if (n > 1) {
        CHECK(meshmem_am_request_short(peer, 21, 0, NULL) == MESHMEM_ERR_ARG);
        CHECK(meshmem_am_request_short(peer, 20, 0, NULL) == MESHMEM_ERR_ARG);
    }
    CHECK(meshmem_am_register(NULL, 0) == MESHMEM_OK);
    meshmem_free(sym);
    meshmem_finalize();
    return 0;
}
