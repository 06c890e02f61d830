/*
 * Streams from each rank to its right neighbour: N = 1, odd N, N larger than the data, N equal
 * to the data; pushes of one element and of odd-sized groups; the consumer pops in odd chunks
 * and waits on counts; the end is seen after the last element. Also: misuse gives errors.
 * Batch boundaries exactly: after every push (one element inline, N at once, several batches
 * at once, a partial batch, a flush) both sides meet in a barrier and the consumer checks that
 * the signal is the last boundary reached (counted from the last flush), for element sizes 4,
 * 8 and 12 and capacities that are not multiples of N; then push1 fills up to the capacity.
 */
#include "am_test.h"

int mm_test_rank_hint = -1;

#define CAP 1000

static uint64_t sig[4];

static uint64_t bsig;

/* pushes of @p g elements (values from @p at on) of @p es bytes by push1 when g == 1 */
static void push_group(meshmem_stream_t *s, int me, size_t at, size_t g, size_t es)
{
    unsigned char v[64 * 12];
    for (size_t j = 0; j < g * es; j++)
        v[j] = (unsigned char)(me * 29 + (at * es + j) * 7 + 3);
    if (g == 1)
        CHECK(meshmem_stream_push1(s, v) == MESHMEM_OK);
    else
        CHECK(meshmem_stream_push(s, v, g) == MESHMEM_OK);
}

static void check_batches(unsigned char *buf, size_t es, size_t batch, size_t cap, int me,
                          int right, int left)
{
    meshmem_stream_t out, in;
    bsig = 0;
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    CHECK(meshmem_stream_open(&out, buf, es, cap, &bsig, batch, me, right) == MESHMEM_OK);
    CHECK(meshmem_stream_open(&in, buf, es, cap, &bsig, batch, left, me) == MESHMEM_OK);
    /* group sizes: one, a batch, several batches and a bit, the rest of a batch, ... */
    size_t groups[] = {1,
                       batch,
                       3 * batch + 2,
                       batch - 1 ? batch - 1 : 1,
                       1,
                       1,
                       2 * batch,
                       5,
                       0 /* flush */,
                       batch,
                       1,
                       7};
    size_t pushed = 0, want = 0;
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++) {
        size_t g = groups[k];
        if (g == 0) {
            CHECK(meshmem_stream_flush(&out) == MESHMEM_OK);
            want = pushed;
        } else {
            if (g > cap - pushed || g > 64)
                continue;
            push_group(&out, me, pushed, g, es);
            pushed += g;
            size_t pending = pushed - want;
            want += pending - pending % batch;
        }
        meshmem_barrier(MESHMEM_TEAM_WORLD);
        CHECK_EQ_LL(bsig, want); /* the last boundary reached, no more, no less */
        for (size_t j = 0; j < want * es; j++)
            CHECK(buf[j] == (unsigned char)(left * 29 + j * 7 + 3));
        meshmem_barrier(MESHMEM_TEAM_WORLD); /* checked before the next push */
    }
    /* push1 up to the capacity, then one too many */
    while (pushed < cap) {
        push_group(&out, me, pushed, 1, es);
        pushed++;
    }
    unsigned char extra[12] = {0};
    CHECK(meshmem_stream_push1(&out, extra) == MESHMEM_ERR_ARG);
    CHECK(meshmem_stream_push(&out, extra, 1) == MESHMEM_ERR_ARG);
    CHECK(meshmem_stream_close(&out) == MESHMEM_OK);
    CHECK(meshmem_stream_push1(&out, extra) == MESHMEM_ERR_STATE); /* closed */
    CHECK_EQ_LL(meshmem_stream_wait(&in, cap + 1), cap);           /* returns at the end only */
    CHECK(meshmem_stream_ended(&in));
    for (size_t j = 0; j < cap * es; j++)
        CHECK(buf[j] == (unsigned char)(left * 29 + j * 7 + 3));
    meshmem_barrier(MESHMEM_TEAM_WORLD);
}

int main(void)
{
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    int me = meshmem_rank(), n = meshmem_nranks();
    mm_test_rank_hint = me;
    float *buf = meshmem_malloc(4 * CAP * sizeof(float));
    CHECK(buf != NULL);
    meshmem_stream_t s;
    if (n == 1) {
        CHECK(meshmem_stream_open(&s, buf, 4, CAP, &sig[0], 4, 0, 0) == MESHMEM_ERR_ARG);
        meshmem_finalize();
        return 0;
    }
    int right = (me + 1) % n, left = (me + n - 1) % n;
    size_t batches[4] = {1, 7, CAP + 5, 100};
    size_t counts[4] = {CAP, 999, 100, 100};
    memset(sig, 0, sizeof sig);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    for (int t = 0; t < 4; t++) {
        float *b = buf + (size_t)t * CAP;
        size_t cnt = counts[t];
        /* produce to the right */
        meshmem_stream_t out, in;
        CHECK(meshmem_stream_open(&out, b, sizeof(float), CAP, &sig[t], batches[t], me, right) ==
              MESHMEM_OK);
        CHECK(meshmem_stream_open(&in, b, sizeof(float), CAP, &sig[t], batches[t], left, me) ==
              MESHMEM_OK);
        CHECK(meshmem_stream_pop(&out, b, 1) == 0); /* not the consumer */
        size_t i = 0;
        while (i < cnt) {
            size_t g = (t & 1) ? 1 : (i % 3) + 1;
            if (g > cnt - i)
                g = cnt - i;
            float v[3];
            for (size_t j = 0; j < g; j++)
                v[j] = (float)(me * 100000 + (int)(i + j));
            if (g == 1 && (i & 2)) /* the inline one-element push, half of the time */
                CHECK(meshmem_stream_push1(&out, v) == MESHMEM_OK);
            else
                CHECK(meshmem_stream_push(&out, v, g) == MESHMEM_OK);
            i += g;
        }
        CHECK(meshmem_stream_push(&in, buf, 1) == MESHMEM_ERR_STATE); /* not the producer */
        if (t == 3)
            CHECK(meshmem_stream_flush(&out) == MESHMEM_OK);
        CHECK(meshmem_stream_close(&out) == MESHMEM_OK);
        CHECK(meshmem_stream_close(&out) == MESHMEM_OK);
        CHECK(meshmem_stream_push(&out, buf, 1) == MESHMEM_ERR_STATE); /* closed */
        /* consume from the left */
        size_t have = meshmem_stream_wait(&in, cnt / 2);
        CHECK(have >= cnt / 2 && have <= cnt);
        float got[13];
        size_t total = 0, k;
        while ((k = meshmem_stream_pop(&in, got, 1 + total % 13)) > 0) {
            for (size_t j = 0; j < k; j++)
                CHECK(got[j] == (float)(left * 100000 + (int)(total + j)));
            total += k;
        }
        CHECK_EQ_LL(total, cnt);
        CHECK(meshmem_stream_ended(&in));
        CHECK_EQ_LL(meshmem_stream_wait(&in, CAP), cnt);
    }
    /* batch boundaries: (element size, N, capacity) */
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    static const size_t cfg[][3] = {{4, 1, 50},  {4, 7, 50},   {4, 64, 50}, {8, 5, 48},
                                    {12, 3, 31}, {4, 16, 200}, {4, 50, 50}};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        check_batches((unsigned char *)buf, cfg[c][0], cfg[c][1], cfg[c][2], me, right, left);
    /* capacity */
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    CHECK(meshmem_stream_open(&s, buf, sizeof(float), 2, &sig[0], 1, me, right) == MESHMEM_OK);
    float three[3] = {1, 2, 3};
    CHECK(meshmem_stream_push(&s, three, 3) == MESHMEM_ERR_ARG);
    CHECK(meshmem_stream_push1(&s, three) == MESHMEM_OK);
    CHECK(meshmem_stream_push1(&s, three) == MESHMEM_OK);
    CHECK(meshmem_stream_push1(&s, three) == MESHMEM_ERR_ARG); /* capacity 2 */
    float local[4];
    CHECK(meshmem_stream_open(&s, local, 4, 4, &sig[0], 1, me, right) == MESHMEM_ERR_NOT_SYMMETRIC);
    CHECK(meshmem_stream_open(&s, buf, 4, 4, &sig[0], 0, me, right) == MESHMEM_ERR_ARG);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_free(buf);
    meshmem_finalize();
    return 0;
}
