/*
 * Active messages of every kind (SHORT, MEDIUM, LONG) with every argument count (0..16) and
 * payload sizes from 0 to the maximum (LONG also past the slot, written directly), as requests
 * to every rank (this one included), each answered by a reply of the same kind that carries
 * the same arguments and payload back. Handlers check every argument and byte.
 */
#include "am_test.h"

#include <stdlib.h>

int mm_test_rank_hint = -1;

enum {
    H_REQ_SHORT = 3,
    H_REQ_MEDIUM = 10,
    H_REQ_LONG = 200,
    H_REP_SHORT = 4,
    H_REP_MEDIUM = 11,
    H_REP_LONG = 255
};

static int me, npes;
static size_t long_max;          /* largest LONG tested */
static unsigned char *req_area;  /* symmetric [npes][long_max]: LONG requests from each rank */
static unsigned char *rep_area;  /* symmetric [npes][long_max]: LONG replies from each rank */
static _Atomic int64_t replies;  /* replies handled here */
static _Atomic int64_t requests; /* requests handled here */

static void check_args(int src, int dst, const meshmem_am_arg_t *a, int nargs)
{
    for (int i = 0; i < nargs; i++)
        CHECK(a[i] == am_arg(src, dst, nargs, i));
}

static void on_request(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                       int nargs, int kind)
{
    int src = meshmem_am_token_rank(t);
    CHECK(src >= 0 && src < npes);
    check_args(src, me, a, nargs);
    meshmem_am_arg_t back[MESHMEM_AM_MAX_ARGS];
    for (int i = 0; i < nargs; i++)
        back[i] = am_arg(me, src, nargs, i);
    atomic_fetch_add(&requests, 1);
    if (kind == MESHMEM_AM_SHORT) {
        CHECK(buf == NULL && n == 0);
        CHECK(meshmem_am_reply_short(t, H_REP_SHORT, nargs, back) == MESHMEM_OK);
        return;
    }
    CHECK(n == 0 || buf != NULL);
    CHECK(am_check_payload(buf, src, n));
    unsigned char *echo = malloc(n + 1);
    CHECK(echo != NULL);
    am_fill(echo, me, n);
    if (kind == MESHMEM_AM_MEDIUM) {
        CHECK(meshmem_am_reply_medium(t, H_REP_MEDIUM, echo, n, nargs, back) == MESHMEM_OK);
    } else {
        CHECK((unsigned char *)buf == req_area + (size_t)src * long_max);
        CHECK(meshmem_am_reply_long(t, H_REP_LONG, echo, n, rep_area + (size_t)me * long_max, nargs,
                                    back) == MESHMEM_OK);
    }
    free(echo);
}

static void on_reply(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a,
                     int nargs, int kind)
{
    int src = meshmem_am_token_rank(t);
    check_args(src, me, a, nargs);
    if (kind == MESHMEM_AM_SHORT)
        CHECK(buf == NULL && n == 0);
    else
        CHECK(am_check_payload(buf, src, n));
    if (kind == MESHMEM_AM_LONG)
        CHECK((unsigned char *)buf == rep_area + (size_t)src * long_max);
    /* a reply handler cannot reply */
    CHECK(meshmem_am_reply_short(t, H_REP_SHORT, 0, NULL) == MESHMEM_ERR_STATE);
    atomic_fetch_add(&replies, 1);
}

#define KIND_HANDLERS(K, k)                                                                        \
    static void req_##k(meshmem_am_token_t t, void *b, size_t n, const meshmem_am_arg_t *a,        \
                        int na)                                                                    \
    {                                                                                              \
        on_request(t, b, n, a, na, K);                                                             \
    }                                                                                              \
    static void rep_##k(meshmem_am_token_t t, void *b, size_t n, const meshmem_am_arg_t *a,        \
                        int na)                                                                    \
    {                                                                                              \
        on_reply(t, b, n, a, na, K);                                                               \
    }
KIND_HANDLERS(MESHMEM_AM_SHORT, short)
KIND_HANDLERS(MESHMEM_AM_MEDIUM, medium)
KIND_HANDLERS(MESHMEM_AM_LONG, long)

/* one request to @p dst and its reply */
static void round_trip(int dst, int kind, int nargs, size_t n, unsigned char *payload)
{
    meshmem_am_arg_t a[MESHMEM_AM_MAX_ARGS];
    for (int i = 0; i < nargs; i++)
        a[i] = am_arg(me, dst, nargs, i);
    am_fill(payload, me, n);
    int64_t before = atomic_load(&replies);
    meshmem_status_t st;
    if (kind == MESHMEM_AM_SHORT)
        st = meshmem_am_request_short(dst, H_REQ_SHORT, nargs, a);
    else if (kind == MESHMEM_AM_MEDIUM)
        st = meshmem_am_request_medium(dst, H_REQ_MEDIUM, payload, n, nargs, a);
    else
        st = meshmem_am_request_long(dst, H_REQ_LONG, payload, n, req_area + (size_t)me * long_max,
                                     nargs, a);
    CHECK(st == MESHMEM_OK);
    am_wait_ge(&replies, before + 1);
}

int main(void)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    me = meshmem_rank();
    npes = meshmem_nranks();
    mm_test_rank_hint = me;
    CHECK(meshmem_am_max_args() == 16);
    size_t mmax = meshmem_am_max_medium();
    CHECK(mmax >= 1024);
    CHECK(meshmem_am_max_long() >= mmax);
    long_max = 3 * mmax + 64;
    req_area = meshmem_malloc((size_t)npes * long_max);
    rep_area = meshmem_malloc((size_t)npes * long_max);
    CHECK(req_area && rep_area);

    meshmem_am_entry_t table[] = {
        {H_REQ_SHORT, req_short, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, -1},
        {H_REQ_MEDIUM, req_medium, MESHMEM_AM_MEDIUM, MESHMEM_AM_REQUEST, -1},
        {H_REQ_LONG, req_long, MESHMEM_AM_LONG, MESHMEM_AM_REQUEST, -1},
        {H_REP_SHORT, rep_short, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, -1},
        {H_REP_MEDIUM, rep_medium, MESHMEM_AM_MEDIUM, MESHMEM_AM_REPLY, -1},
        {H_REP_LONG, rep_long, MESHMEM_AM_LONG, MESHMEM_AM_REPLY, -1},
    };
    CHECK(meshmem_am_register(table, 6) == MESHMEM_OK);

    size_t sizes[] = {0,        1,
                      7,        8,
                      9,        63,
                      64,       65,
                      1000,     mmax - 1,
                      mmax, /* LONG only: */
                      mmax + 1, 2 * mmax + 3,
                      long_max};
    const int nmed = 11, nlong = 14;
    unsigned char *payload = malloc(long_max);
    CHECK(payload != NULL);
    int64_t sent = 0;
    for (int k = 0; k < npes; k++) {
        int dst = (me + k) % npes;
        for (int kind = MESHMEM_AM_SHORT; kind <= MESHMEM_AM_LONG; kind++) {
            int ns = kind == MESHMEM_AM_SHORT ? 1 : kind == MESHMEM_AM_MEDIUM ? nmed : nlong;
            /* every argument count, with the sizes in rotation */
            for (int nargs = 0; nargs <= MESHMEM_AM_MAX_ARGS; nargs++, sent++)
                round_trip(dst, kind, nargs, kind == MESHMEM_AM_SHORT ? 0 : sizes[nargs % ns],
                           payload);
            /* every size, with no arguments and with all 16 */
            for (int s = 0; kind != MESHMEM_AM_SHORT && s < ns; s++, sent += 2) {
                round_trip(dst, kind, 0, sizes[s], payload);
                round_trip(dst, kind, MESHMEM_AM_MAX_ARGS, sizes[s], payload);
            }
        }
    }
    CHECK_EQ_LL(atomic_load(&replies), sent);
    CHECK(meshmem_am_quiet() == MESHMEM_OK);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    /* every rank sent the same number to each rank: this one handled npes * sent / npes */
    CHECK_EQ_LL(atomic_load(&requests), sent);
    free(payload);
    meshmem_free(rep_area);
    meshmem_free(req_area);
    meshmem_finalize();
    return 0;
}
