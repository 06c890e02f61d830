/*
 * OpenSHMEM setup and query routines, the malloc family (realloc keeps contents, align, calloc
 * zeroes, zero sizes, malloc_with_hints) and the deprecated names (start_pes, _my_pe,
 * _num_pes, shmalloc family, cache routines, _SHMEM_* constants).
 */
#include "shmem_test.h"

#include <stdint.h>
#include <string.h>

static long global_long;

int main(void)
{
    start_pes(0); /* deprecated initialisation: the job's size comes from meshrun */
    shmem_init(); /* a second initialisation is allowed and changes nothing */
    test_neighbours();
    EXPECT(me == _my_pe() && npes == _num_pes(), "deprecated queries");
    EXPECT(npes >= 1 && me >= 0 && me < npes, "my_pe %d n_pes %d", me, npes);
    int provided = -1;
    shmem_query_thread(&provided);
    EXPECT(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE, "query_thread");

    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    EXPECT(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 && minor == 5,
           "version %d.%d", major, minor);
    EXPECT(_SHMEM_MAJOR_VERSION == 1 && _SHMEM_MINOR_VERSION == 5, "deprecated version");
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    EXPECT(strcmp(name, SHMEM_VENDOR_STRING) == 0 && strlen(name) < _SHMEM_MAX_NAME_LEN, "name");

    /* accessibility */
    for (int p = 0; p < npes; p++)
        EXPECT(shmem_pe_accessible(p), "pe_accessible %d", p);
    EXPECT(!shmem_pe_accessible(npes) && !shmem_pe_accessible(-1), "pe_accessible out of range");
    long local = 0;
    EXPECT(shmem_addr_accessible(&global_long, right), "global accessible");
    EXPECT(!shmem_addr_accessible(&local, right), "stack variable accessible");
    /* shmem_ptr reaches the PEs of this host (SHMEM_TEAM_SHARED), not another host's */
    long *peer = shmem_ptr(&global_long, right);
    int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, SHMEM_TEAM_SHARED) >= 0;
    EXPECT((peer != NULL) == shared || shmem_team_n_pes(SHMEM_TEAM_SHARED) == 1, "shmem_ptr");
    EXPECT(shmem_ptr(&local, right) == NULL, "shmem_ptr of a stack variable");
    EXPECT(shmem_ptr(&global_long, me) == &global_long, "shmem_ptr to myself");

    /* shmem_ptr gives load/store access to the peer's copy (a put where it gives none) */
    if (peer)
        *peer = 1000 + me;
    else
        shmem_long_p(&global_long, 1000 + me, right);
    shmem_barrier_all();
    EXPECT(global_long == 1000 + (me + npes - 1) % npes, "store through shmem_ptr");

    /* malloc family */
    EXPECT(shmem_malloc(0) == NULL, "malloc(0)");
    int *a = shmem_malloc(37 * sizeof(int));
    EXPECT(a != NULL && shmem_addr_accessible(a, right), "malloc");
    for (int i = 0; i < 37; i++)
        a[i] = me * 100 + i;
    a = shmem_realloc(a, 1000 * sizeof(int)); /* grows: the 37 values stay */
    EXPECT(a != NULL, "realloc up");
    for (int i = 0; i < 37; i++)
        EXPECT(a[i] == me * 100 + i, "realloc kept element %d", i);
    a = shmem_realloc(a, 5 * sizeof(int)); /* shrinks */
    for (int i = 0; i < 5; i++)
        EXPECT(a[i] == me * 100 + i, "realloc down kept element %d", i);
    shmem_barrier_all(); /* everyone checked before the neighbour writes */
    shmem_int_p(&a[4], -me, right);
    shmem_barrier_all();
    EXPECT(a[4] == -((me + npes - 1) % npes), "realloc'd block is symmetric");

    /* every power of two up to the heap base alignment (2 MiB) */
    for (size_t align = 1; align <= ((size_t)2 << 20); align *= 2) {
        char *p = shmem_align(align, 3);
        EXPECT(p != NULL && (uintptr_t)p % align == 0, "align %zu: %p", align, (void *)p);
        shmem_free(p);
    }
    double *z = shmem_calloc(513, sizeof(double));
    for (int i = 0; i < 513; i++)
        EXPECT(z[i] == 0.0, "calloc element %d", i);
    EXPECT(shmem_calloc(0, 8) == NULL && shmem_calloc(8, 0) == NULL, "calloc of zero");
    long *h = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    long *h0 = shmem_malloc_with_hints(64, 0);
    EXPECT(h && h0, "malloc_with_hints");
    h[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_inc(h, 0);
    shmem_barrier_all();
    if (me == 0)
        EXPECT(h[0] == npes, "AMOs on a hinted block");
    shmem_free(h0);
    shmem_free(h);
    shmem_free(z);
    shmem_free(a);
    shmem_free(NULL);

    /* deprecated allocation names */
    short *s = shmalloc(10 * sizeof(short));
    s[9] = 9;
    s = shrealloc(s, 20 * sizeof(short));
    EXPECT(s[9] == 9, "shrealloc kept contents");
    void *al = shmemalign(4096, 10);
    EXPECT(al && (uintptr_t)al % 4096 == 0, "shmemalign");
    shfree(al);
    shfree(s);

    /* deprecated cache routines: no effect, no error */
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_clear_cache_line_inv(&global_long);
    shmem_set_cache_line_inv(&global_long);
    shmem_udcflush();
    shmem_udcflush_line(&global_long);
    shmem_pcontrol(1);

    /* the deprecated constants */
    EXPECT(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_GE == SHMEM_CMP_GE, "_SHMEM_CMP");
    EXPECT(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE && _SHMEM_BARRIER_SYNC_SIZE >= 1 &&
               _SHMEM_BCAST_SYNC_SIZE >= 1 && _SHMEM_REDUCE_SYNC_SIZE >= 1 &&
               _SHMEM_COLLECT_SYNC_SIZE >= 1 && _SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1,
           "_SHMEM sync constants");
    shmem_finalize();
    shmem_finalize(); /* idempotent */
    return 0;
}
