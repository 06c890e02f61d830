/*
 * The progress thread (run only with MESHMEM_PROGRESS_THREAD=1): rank 0 computes without
 * calling meshmem at all while every other rank sends it requests whose handlers reply; the
 * requests are served, and the replies come back, by rank 0's progress thread alone. Rank 0
 * sees the handlers' effect in its compute loop.
 */
#include "am_test.h"

#include <stdlib.h>

int mm_test_rank_hint = -1;

enum { H_ADD = 9, H_DONE = 10, PER = 200 };

static _Atomic int64_t sum, done;

static void on_add(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)buf, (void)n, (void)na;
    atomic_fetch_add(&sum, (int64_t)a[0]);
    CHECK(meshmem_am_reply_short(t, H_DONE, 0, NULL) == MESHMEM_OK);
}

static void on_done(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    atomic_fetch_add(&done, 1);
}

int main(void)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    int me = meshmem_rank(), n = meshmem_nranks();
    mm_test_rank_hint = me;
    const char *env = getenv("MESHMEM_PROGRESS_THREAD");
    CHECK(env && env[0] == '1');
    meshmem_am_entry_t table[] = {
        {H_ADD, on_add, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 1},
        {H_DONE, on_done, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 0},
    };
    CHECK(meshmem_am_register(table, 2) == MESHMEM_OK);
    int64_t expect = 0;
    for (int p = 1; p < n; p++)
        for (int i = 0; i < PER; i++)
            expect += p * 1000 + i;
    if (me == 0) {
        /* compute, with no meshmem call, until the handlers have added everything */
        volatile double x = 1.0;
        while (atomic_load(&sum) != expect)
            x = x * 1.0000001 + 1e-9;
        CHECK(x > 0);
    } else {
        for (int i = 0; i < PER; i++) {
            meshmem_am_arg_t a = (meshmem_am_arg_t)(me * 1000 + i);
            CHECK(meshmem_am_request_short(0, H_ADD, 1, &a) == MESHMEM_OK);
        }
        /* the replies are run by this rank's own progress thread: wait without polling */
        while (atomic_load(&done) != PER)
            ;
    }
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_finalize();
    return 0;
}
