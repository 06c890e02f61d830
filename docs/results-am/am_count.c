/* am_count.c: instructions of the 8-byte active-message round trip, per side (callgrind).
 * The ping-pong of `meshmem bench am_pingpong`, each step in a function of its own, so that
 * callgrind's inclusive counts split the round trip exactly:
 *   send_request   meshmem_am_request_short (rank 0 sends)
 *   serve_request  one meshmem_am_poll that runs the request's handler, which replies (rank 1)
 *   take_reply     one meshmem_am_poll that runs the reply's handler (rank 0 receives)
 * No idle poll is counted: a rank calls meshmem_am_poll only once its partner has said, by a
 * direct store into a symmetric word after its own AM call, that the message is there.
 *   meshcc -O2 am_count.c -o am_count
 *   meshrun -n 2 valgrind --tool=callgrind ./am_count 20000
 *   callgrind_annotate --inclusive=yes callgrind.out.PID | grep -E 'send_request|serve_|take_'
 */
#include <meshmem.h>
#include <meshmem_am.h>
#include <stdio.h>
#include <stdlib.h>

static int pongs;
static int said[2]; /* symmetric: said[r] is stored into by rank r */

static void on_ping(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)buf, (void)n;
    meshmem_am_reply_short(t, 2, na, a);
}

static void on_pong(meshmem_am_token_t t, void *buf, size_t n, const meshmem_am_arg_t *a, int na)
{
    (void)t, (void)buf, (void)n, (void)a, (void)na;
    pongs++;
}

__attribute__((noinline)) static void send_request(int to, const meshmem_am_arg_t *arg)
{
    if (meshmem_am_request_short(to, 1, 1, arg) != MESHMEM_OK)
        meshmem_global_exit(1);
}

/* (the two polls differ by their counters, so that the compiler cannot fold them into one) */
static int served, taken;

__attribute__((noinline)) static int serve_request(void)
{
    int n = meshmem_am_poll();
    served += n;
    return n;
}

__attribute__((noinline)) static int take_reply(void)
{
    int n = meshmem_am_poll();
    taken += n;
    return n;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    meshmem_init(MESHMEM_THREAD_SINGLE, NULL);
    meshmem_am_entry_t t[] = {{1, on_ping, MESHMEM_AM_SHORT, MESHMEM_AM_REQUEST, 1},
                              {2, on_pong, MESHMEM_AM_SHORT, MESHMEM_AM_REPLY, 1}};
    if (meshmem_am_register(t, 2) != MESHMEM_OK)
        return 1;
    meshmem_am_arg_t arg = 8;
    int me = meshmem_rank(), peer = 1 - me;
    int *tell = meshmem_ptr(&said[me], peer);
    if (meshmem_nranks() != 2 || tell == NULL) {
        fprintf(stderr, "am_count: needs 2 ranks on one host\n");
        meshmem_global_exit(1);
    }
    for (int i = 1; i <= iters; i++) {
        if (me == 0)
            send_request(peer, &arg);
        else
            while (__atomic_load_n(&said[0], __ATOMIC_ACQUIRE) != i)
                ;
        if (me == 1 && serve_request() != 1) {
            fprintf(stderr, "am_count: round trip %d: no request where one was said\n", i);
            meshmem_global_exit(1);
        }
        __atomic_store_n(tell, i, __ATOMIC_RELEASE);
        if (me == 0) {
            while (__atomic_load_n(&said[1], __ATOMIC_ACQUIRE) != i)
                ;
            if (take_reply() != 1) {
                fprintf(stderr, "am_count: round trip %d: no reply where one was said\n", i);
                meshmem_global_exit(1);
            }
        }
    }
    if (me == 0)
        printf("%d round trips, %d replies\n", iters, pongs);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    meshmem_finalize();
    return pongs == (me == 0 ? iters : 0) ? 0 : 1;
}
