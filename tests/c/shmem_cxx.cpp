/*
 * An OpenSHMEM program in C++, built with meshc++ as with oshc++: the C API from C++ (extern
 * "C", no C11-only constructs) and the generic routines as overloads (shmem_cxx.h): RMA with
 * and without a context, put with signal, AMOs, waits, a lock, a broadcast and reductions.
 * Exit status 0 and "cxx: ok on N PEs" on PE 0 when every check holds.
 *
 * Built with -DSHMEM_CXX_WRONG_TYPE it must not compile: a put from an int array to a long
 * one selects no overload (the C11 form rejects it likewise).
 */
#include <shmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace
{

long target[8];
double reals[2];
long lock;
uint64_t signal;

void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "cxx: PE %d: %s failed\n", shmem_my_pe(), what);
        std::exit(1);
    }
}

} // namespace

int main()
{
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;

    // RMA: a put of a block and a p of one element, to the right neighbour
    std::vector<long> block(8);
    for (int i = 0; i < 8; i++)
        block[static_cast<size_t>(i)] = 100 * me + i;
    shmem_put(target, block.data(), 8, right);
    shmem_p(&reals[0], 0.5 * me, right);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        check(target[i] == 100 * left + i, "shmem_put (generic)");
    check(reals[0] == 0.5 * left, "shmem_p (generic)");
#ifdef SHMEM_CXX_WRONG_TYPE
    int ints[8] = {0};
    shmem_put(target, ints, 8, right); // long from int: no overload
#endif

    // get and g, one with the default context
    long got[8];
    shmem_get(SHMEM_CTX_DEFAULT, got, target, 8, right);
    check(got[3] == 100 * me + 3, "shmem_get (context form)");
    check(shmem_g(&target[7], left) == 100 * ((left + n - 1) % n) + 7, "shmem_g");
    shmem_barrier_all();

    // put with signal: the data is there once the signal is
    long *sym = static_cast<long *>(shmem_calloc(4, sizeof(long)));
    shmem_barrier_all();
    long four[4] = {me, me, me, me};
    shmem_put_signal(sym, four, 4, &signal, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(&signal, SHMEM_CMP_EQ, 1);
    check(sym[3] == left, "shmem_put_signal");

    // AMOs: everyone adds to PE 0; a fetch-add returns distinct tickets
    static long counter;
    shmem_barrier_all();
    shmem_atomic_add(&counter, 2L, 0);
    long ticket = shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &counter, 0);
    check(ticket >= 0, "shmem_atomic_fetch_inc");
    shmem_barrier_all();
    check(shmem_atomic_fetch(&counter, 0) == 3L * n, "shmem_atomic_add / fetch");
    unsigned int bits = 0;
    static unsigned int flags;
    shmem_atomic_or(&flags, 1u << (me % 32), 0);
    shmem_barrier_all();
    bits = shmem_atomic_fetch(&flags, 0);
    check(bits == (n >= 32 ? ~0u : (1u << n) - 1), "shmem_atomic_or");

    // a lock around a read-modify-write of PE 0's copy
    static int shared_count;
    shmem_set_lock(&lock);
    int v = shmem_g(&shared_count, 0);
    shmem_p(&shared_count, v + 1, 0);
    shmem_quiet();
    shmem_clear_lock(&lock);
    shmem_barrier_all();
    check(shmem_g(&shared_count, 0) == n, "lock");

    // wait_until: PE 0 raises a flag on everyone
    static int go;
    if (me == 0)
        for (int pe = 0; pe < n; pe++)
            shmem_p(&go, 7, pe);
    shmem_wait_until(&go, SHMEM_CMP_EQ, 7);

    // team collectives: a broadcast and two reductions
    double *src = static_cast<double *>(shmem_malloc(2 * sizeof(double)));
    double *dst = static_cast<double *>(shmem_malloc(2 * sizeof(double)));
    src[0] = me;
    src[1] = 1;
    shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2);
    check(dst[0] == 0.5 * n * (n - 1) && dst[1] == n, "shmem_sum_reduce");
    long *lsrc = static_cast<long *>(shmem_malloc(sizeof(long)));
    long *ldst = static_cast<long *>(shmem_malloc(sizeof(long)));
    *lsrc = me;
    shmem_max_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 1);
    check(*ldst == n - 1, "shmem_max_reduce");
    *lsrc = me == 0 ? 42 : -1;
    shmem_broadcast(SHMEM_TEAM_WORLD, ldst, lsrc, 1, 0);
    check(*ldst == 42, "shmem_broadcast");

    shmem_free(ldst);
    shmem_free(lsrc);
    shmem_free(dst);
    shmem_free(src);
    shmem_free(sym);
    if (me == 0)
        std::printf("cxx: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
