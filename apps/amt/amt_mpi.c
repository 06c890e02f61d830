/**
 * @file amt_mpi.c
 * @brief The OpenMPI twin of `amt`: the same traffic (amt_data.h) the way an MPI program sends
 * 8-byte messages, with the same timing, verifier and result line.
 *
 *  alltoall  Fig. 2's messages as MPI_Alltoall calls of 8-byte blocks: one call carries one
 *            message to each peer, ceil(M / (P-1)) calls
 *  isend     every message its own MPI_Isend of 8 bytes, received by MPI_Irecv (any source) in
 *            windows of 64 (OSU's osu_mbw_mr window), MPI_Waitall per window
 *  kernel    the message-driven kernel: tasks sent by MPI_Isend, received through 64 pre-posted
 *            MPI_Irecv (any source) polled with MPI_Testsome; termination as in amt_main.c: run
 *            the queue dry, complete the sends, sum (sent, received, queued) over the ranks with
 *            MPI_Allreduce; a message not yet received is missing from the received sum, so
 *            sent = received and nothing queued means done
 */
#include "amt_data.h"

#include "../common/app_harness.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64 };

typedef struct {
    app_t *h;
    int isend;
    uint64_t M, slots, run, calls;
    uint64_t *recv;              /* [P][slots] */
    uint64_t *sendblk, *recvblk; /* alltoall: one block per rank */
    uint64_t *win_in, *win_out;  /* isend: a window of messages */
    MPI_Request *req;
    uint64_t got_sum, got_n; /* isend: received payloads (any source) */
} a2a_t;

typedef struct {
    amt_kernel_t k;
    uint64_t inbox[WINDOW];
    MPI_Request rreq[WINDOW];
    uint64_t *outbox; /* payloads of the sends in flight */
    MPI_Request *sreq;
    int nsend, scap;
} mpi_kern_t;

static void prepare_a2a(void *ctx, int run)
{
    a2a_t *a = ctx;
    a->run = (uint64_t)run;
    a->got_sum = a->got_n = 0;
}

static void run_alltoall(a2a_t *a, int run)
{
    int me = a->h->me, P = a->h->nranks;
    for (uint64_t c = 0; c < a->calls; c++) {
        for (int o = 1; o < P || (P == 1 && o == 1); o++) {
            uint64_t i = P == 1 ? c : c * (uint64_t)(P - 1) + (uint64_t)(o - 1);
            a->sendblk[(me + o) % P] = i < a->M ? amt_value(a->h->seed, (uint64_t)run, me, i) : 0;
        }
        MPI_Alltoall(a->sendblk, 1, MPI_UINT64_T, a->recvblk, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int s = 0; s < P; s++)
            if (P == 1 || s != me)
                a->recv[(size_t)s * a->slots + c] = a->recvblk[s];
    }
}

static void run_isend(a2a_t *a, int run)
{
    int me = a->h->me, P = a->h->nranks;
    for (uint64_t w = 0; w < a->M; w += WINDOW) {
        int n = (int)(a->M - w < WINDOW ? a->M - w : WINDOW);
        for (int k = 0; k < n; k++)
            MPI_Irecv(&a->win_in[k], 1, MPI_UINT64_T, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
                      &a->req[k]);
        for (int k = 0; k < n; k++) {
            uint64_t i = w + (uint64_t)k;
            a->win_out[k] = amt_value(a->h->seed, (uint64_t)run, me, i);
            MPI_Isend(&a->win_out[k], 1, MPI_UINT64_T, amt_dest(me, i, P), 5, MPI_COMM_WORLD,
                      &a->req[n + k]);
        }
        MPI_Waitall(2 * n, a->req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < n; k++) {
            a->got_sum += a->win_in[k];
            a->got_n++;
        }
    }
}

static void run_a2a(void *ctx, int run)
{
    a2a_t *a = ctx;
    if (a->isend)
        run_isend(a, run);
    else
        run_alltoall(a, run);
}

/* alltoall: every slot; isend: the count and the sum of what came (any order, any window) */
static uint64_t check_a2a(const a2a_t *a)
{
    int me = a->h->me, P = a->h->nranks;
    uint64_t bad = 0, want_sum = 0, want_n = 0;
    for (int s = 0; s < P; s++) {
        uint64_t want = amt_count(s, me, a->M, P);
        for (uint64_t k = 0; k < want; k++) {
            uint64_t i = amt_index(s, me, k, P);
            uint64_t v = amt_value(a->h->seed, a->run, s, i);
            want_sum += v;
            want_n++;
            if (!a->isend)
                bad += a->recv[(size_t)s * a->slots + k] != v;
        }
    }
    if (a->isend)
        bad += (a->got_n != want_n) + (a->got_sum != want_sum);
    return bad;
}

static void post_recv(mpi_kern_t *k, int slot)
{
    MPI_Irecv(&k->inbox[slot], 1, MPI_UINT64_T, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &k->rreq[slot]);
}

/* take what has arrived into the queue, re-posting its receives */
static void poll_recv(void *ctx)
{
    mpi_kern_t *k = ctx;
    int idx[WINDOW], n = 0;
    MPI_Testsome(WINDOW, k->rreq, &n, idx, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n && n != MPI_UNDEFINED; i++) {
        amt_push(k->k.h, &k->k.q, k->inbox[idx[i]]);
        k->k.recvd++;
        post_recv(k, idx[i]);
    }
}

/* free the finished sends, keeping those in flight at the front */
static void reap_sends(mpi_kern_t *k, int all)
{
    if (all) {
        MPI_Waitall(k->nsend, k->sreq, MPI_STATUSES_IGNORE);
        k->nsend = 0;
        return;
    }
    int done = 0;
    MPI_Testall(k->nsend, k->sreq, &done, MPI_STATUSES_IGNORE);
    if (done)
        k->nsend = 0;
}

static void send_task(void *ctx, int rank, uint64_t task)
{
    mpi_kern_t *k = ctx;
    if (k->nsend == k->scap) {
        reap_sends(k, 0);
        if (k->nsend == k->scap) {
            poll_recv(k); /* the peers may wait for this rank to receive */
            reap_sends(k, 1);
        }
    }
    k->outbox[k->nsend] = task;
    MPI_Isend(&k->outbox[k->nsend], 1, MPI_UINT64_T, rank, 9, MPI_COMM_WORLD, &k->sreq[k->nsend]);
    k->nsend++;
}

static void run_kernel(void *ctx, int run)
{
    (void)run;
    mpi_kern_t *m = ctx;
    amt_kernel_t *k = &m->k;
    amt_kernel_start(k);
    for (;;) {
        amt_kernel_drain(k, send_task, poll_recv, m);
        reap_sends(m, 1);
        poll_recv(m);
        uint64_t mine[3] = {k->sent, k->recvd, k->q.n}, all[3];
        MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        k->rounds++;
        if (all[0] == all[1] && all[2] == 0)
            break;
    }
}

int main(int argc, char **argv)
{
    amt_args_t o = {.variant = "isend", .list = "64,1K,16K", .T = 1000, .ttl = 10};
    app_t h = APP_INIT("amt_mpi", "amt");
    amt_parse(&h, &o, "amt_mpi [options]   (start with mpirun -n RANKS)",
              "alltoall, isend or kernel (default isend)", argc, argv);
    int kernel = !strcmp(o.variant, "kernel"), isend = !strcmp(o.variant, "isend");
    if (!kernel && !isend && strcmp(o.variant, "alltoall"))
        app_bad_option(&h, "-v %s: alltoall, isend or kernel", o.variant);
    app_start(&h, &app_rt_mpi);
    int P = h.nranks;
    if (kernel) {
        mpi_kern_t m = {.k = {.h = &h, .T = (uint64_t)o.T, .ttl = o.ttl}, .scap = 4096};
        amt_kernel_t *k = &m.k;
        m.outbox = app_alloc(&h, (size_t)m.scap * sizeof(uint64_t), "sends");
        m.sreq = app_alloc(&h, (size_t)m.scap * sizeof(MPI_Request), "sends");
        for (int s = 0; s < WINDOW; s++)
            post_recv(&m, s);
        uint64_t want[2], want_all[2];
        if (amt_expect(h.seed, h.me, k->T, o.ttl, P, &want[0], &want[1]) != 0)
            app_fatal(&h, "out of memory");
        MPI_Allreduce(want, want_all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        app_runs_t runs = {.run = run_kernel, .ctx = &m, .timing = APP_TIME_EACH, .warmup = -1};
        app_time_runs(&h, &runs);
        if (h.corrupt && h.me == 0)
            k->ran++;
        uint64_t got[3] = {k->ran, k->sum, k->sent - k->sent0}, got_all[3];
        MPI_Allreduce(got, got_all, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        amt_kernel_report(&h, &o, got_all, want_all, k->rounds);
        for (int s = 0; s < WINDOW; s++) { /* the receives still posted */
            MPI_Cancel(&m.rreq[s]);
            MPI_Wait(&m.rreq[s], MPI_STATUS_IGNORE);
        }
        free(k->q.q);
        free(m.outbox);
        free(m.sreq);
        return app_finish(&h);
    }
    for (int ci = 0; ci < o.ncounts; ci++) {
        a2a_t a = {.h = &h, .isend = isend, .M = (uint64_t)o.counts[ci]};
        a.slots = amt_slots(a.M, P);
        a.calls = a.slots;
        a.recv = calloc((size_t)P * (a.slots ? a.slots : 1), sizeof(uint64_t));
        a.sendblk = calloc((size_t)P, sizeof(uint64_t));
        a.recvblk = calloc((size_t)P, sizeof(uint64_t));
        a.win_in = calloc(WINDOW, sizeof(uint64_t));
        a.win_out = calloc(WINDOW, sizeof(uint64_t));
        a.req = calloc(2 * WINDOW, sizeof(MPI_Request));
        if (!a.recv || !a.sendblk || !a.recvblk || !a.win_in || !a.win_out || !a.req)
            app_fatal(&h, "out of memory for %llu messages", (unsigned long long)a.M);
        app_runs_t runs = {.prepare = prepare_a2a,
                           .run = run_a2a,
                           .ctx = &a,
                           .timing = APP_TIME_EACH,
                           .warmup = -1};
        app_time_runs(&h, &runs);
        int from = (h.me + P - 1) % P;
        if (h.corrupt && amt_count(from, h.me, a.M, P)) {
            a.recv[(size_t)from * a.slots] ^= 2;
            a.got_sum ^= 2;
        }
        app_verdict(&h, check_a2a(&a), 0, "messages missing or wrong");
        amt_a2a_report(&h, o.variant, a.M);
        free(a.recv);
        free(a.sendblk);
        free(a.recvblk);
        free(a.win_in);
        free(a.win_out);
        free(a.req);
    }
    return app_finish(&h);
}
