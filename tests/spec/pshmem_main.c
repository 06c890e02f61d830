/*
 * The profiling interface at work: the specification's own wrapper of shmem_long_put
 * (examples/pshmem_example.c, included as written: its counters are static) intercepts the
 * program's puts and passes them on to pshmem_long_put. Built against libmeshmem.so (the
 * program's shmem_long_put interposes) and libmeshmem.a (the library's weak one gives way).
 */
#include "examples/pshmem_example.c"

#include <stdlib.h>

int main(void)
{
    static long dest[4];
    long source[4] = {1, 2, 3, 4};
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < 3; i++)
        shmem_long_put(dest, source, 4, (me + 1) % n);
    shmem_barrier_all();
    int ok = put_count == 3 && total_put_time >= 0 && avg_put_time >= 0 && dest[3] == 4;
    printf("PE %d: %ld puts seen by the wrapper, %s\n", me, put_count, ok ? "ok" : "WRONG");
    shmem_finalize();
    return ok ? 0 : 1;
}
