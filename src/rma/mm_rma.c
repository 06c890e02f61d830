/*
 * One-sided operations over the node's full mesh: a put is a copy into the peer's mapping of
 * the destination, a get a copy out of it. Both are complete on return.
 *
 * Ordering: x86 keeps ordinary stores in order, but memcpy uses non-temporal stores for large
 * copies, which are weakly ordered; fence and quiet therefore issue a full fence (mfence orders
 * non-temporal stores too). A signal is an atomic store or add after such a fence.
 */
#include "mm_core.h"

#include <string.h>

/* large copies may use non-temporal stores: order them before a following flag store */
#define MM_NT_THRESHOLD 4096

void meshmem_put(void *dest, const void *src, size_t nbytes, int rank)
{
    void *d = mm_xlate_checked("meshmem_put", "dest", dest, nbytes, rank);
    memcpy(d, src, nbytes);
    mm_wake(rank);
}

void meshmem_get(void *dest, const void *src, size_t nbytes, int rank)
{
    const void *s = mm_xlate_checked("meshmem_get", "source", src, nbytes, rank);
    memcpy(dest, s, nbytes);
}

/* strided copy: element i of src (stride sst) to element i of dest (stride dst) */
static void mm_strided_copy(char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                            size_t nelems)
{
    switch (esize) {
    case 1:
        for (size_t i = 0; i < nelems; i++)
            d[(ptrdiff_t)i * dst] = s[(ptrdiff_t)i * sst];
        return;
#define MM_STRIDED(bytes, type)                                                                    \
    case bytes:                                                                                    \
        for (size_t i = 0; i < nelems; i++)                                                        \
            memcpy(d + (ptrdiff_t)i * dst * bytes, s + (ptrdiff_t)i * sst * bytes, sizeof(type));  \
        return;
        MM_STRIDED(2, uint16_t)
        MM_STRIDED(4, uint32_t)
        MM_STRIDED(8, uint64_t)
#undef MM_STRIDED
    default:
        for (size_t i = 0; i < nelems; i++)
            memcpy(d + (ptrdiff_t)(i * esize) * dst, s + (ptrdiff_t)(i * esize) * sst, esize);
    }
}

/* bytes spanned by nelems elements at a stride (for the symmetric-range check) */
static size_t mm_strided_span(ptrdiff_t stride, size_t esize, size_t nelems)
{
    if (nelems == 0)
        return 0;
    ptrdiff_t s = stride < 0 ? -stride : stride;
    return (size_t)s * esize * (nelems - 1) + esize;
}

/* translate a strided remote range, checking every byte it touches (a negative stride
 * reaches below its base address) */
static char *mm_strided_xlate(const char *call, const char *what, const void *base,
                              ptrdiff_t stride, size_t esize, size_t nelems, int rank)
{
    const char *lo = base;
    if (stride < 0)
        lo += (ptrdiff_t)(nelems - 1) * stride * (ptrdiff_t)esize;
    char *t = mm_xlate_checked(call, what, lo, mm_strided_span(stride, esize, nelems), rank);
    return t + ((const char *)base - lo);
}

void meshmem_iput(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                  size_t nelems, int rank)
{
    if (nelems == 0)
        return;
    char *d = mm_strided_xlate("meshmem_iput", "dest", dest, dst, esize, nelems, rank);
    mm_strided_copy(d, src, dst, sst, esize, nelems);
    mm_wake(rank);
}

void meshmem_iget(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                  size_t nelems, int rank)
{
    if (nelems == 0)
        return;
    const char *s = mm_strided_xlate("meshmem_iget", "source", src, sst, esize, nelems, rank);
    mm_strided_copy(dest, s, dst, sst, esize, nelems);
}

void meshmem_put_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                        uint64_t signal, int sig_op, int rank)
{
    void *d = mm_xlate_checked("meshmem_put_signal", "dest", dest, nbytes, rank);
    _Atomic uint64_t *sig =
        mm_xlate_checked("meshmem_put_signal", "sig_addr", sig_addr, sizeof(uint64_t), rank);
    if (MM_UNLIKELY(sig_op != MESHMEM_SIGNAL_SET && sig_op != MESHMEM_SIGNAL_ADD))
        mm_fatal("meshmem_put_signal: sig_op argument (%d) is neither SHMEM_SIGNAL_SET nor "
                 "SHMEM_SIGNAL_ADD",
                 sig_op);
    memcpy(d, src, nbytes);
    if (nbytes >= MM_NT_THRESHOLD)
        atomic_thread_fence(memory_order_seq_cst);
    /* seq_cst: the data is visible before the signal, and the signal before the sleeper check */
    if (sig_op == MESHMEM_SIGNAL_SET)
        atomic_store(sig, signal);
    else
        atomic_fetch_add(sig, signal);
    mm_wake(rank);
}

void meshmem_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

void meshmem_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

void *meshmem_ptr(const void *addr, int rank)
{
    if (!mm_g.initialized || (unsigned)rank >= (unsigned)mm_g.nranks)
        return NULL;
    return mm_xlate(addr, rank);
}

int meshmem_addr_accessible(const void *addr, int rank)
{
    return meshmem_ptr(addr, rank) != NULL;
}

int meshmem_rank_accessible(int rank)
{
    return mm_g.initialized && (unsigned)rank < (unsigned)mm_g.nranks;
}
