/* line_pingpong.c: two processes hand a word back and forth (issue 31: what this machine charges
 * for it, the floor under the active messages' round trip and under every wait).
 *   ./line_pingpong CPU0 CPU1 MODE [same]
 * MODE 0 polls, 1 sleeps on a futex, 2 yields; each word on a cache line of its own, as the
 * active messages' request and reply are, or with "same" both on one line.
 *   cc -O2 line_pingpong.c -o line_pingpong && ./line_pingpong 0 1 0 && ./line_pingpong 0 1 0 same
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { N = 20000, WARM = 1000 };

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

/* wait until *w holds v: poll, sleep or yield */
static void wait_for(_Atomic unsigned *w, unsigned v, int mode)
{
    while (atomic_load(w) != v) {
        if (mode == 1)
            syscall(SYS_futex, w, FUTEX_WAIT, v - 1, NULL, NULL, 0);
        else if (mode == 2)
            sched_yield();
    }
}

static void post(_Atomic unsigned *w, unsigned v, int mode)
{
    atomic_store(w, v);
    if (mode == 1)
        syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int c0 = atoi(argv[1]), c1 = atoi(argv[2]), mode = atoi(argv[3]);
    int same = argc > 4 && !strcmp(argv[4], "same");
    char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    _Atomic unsigned *to1 = (_Atomic unsigned *)m, *to0 = (_Atomic unsigned *)(m + (same ? 4 : 64));
    int child = fork() == 0;
    pin(child ? c1 : c0);
    double t0 = 0;
    for (unsigned i = 1; i <= N; i++) {
        if (i == WARM)
            t0 = now_us();
        if (!child) {
            post(to1, i, mode);
            wait_for(to0, i, mode);
        } else {
            wait_for(to1, i, mode);
            post(to0, i, mode);
        }
    }
    if (!child) {
        printf("cpus %d %d, %s, %s: half round trip %.3f us\n", c0, c1,
               mode == 0   ? "polling"
               : mode == 1 ? "futex"
                           : "yield",
               same ? "one line" : "two lines", (now_us() - t0) / (N - WARM + 1) / 2);
        wait(NULL);
    }
    return 0;
}
