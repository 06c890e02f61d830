/*
 * One-sided operations over the node's full mesh: a put is a copy into the peer's mapping of
 * the destination, a get a copy out of it. Both are complete on return.
 *
 * Copies go through mm_copy (mm_rma.h: rep movsb for large ones, glibc's memcpy otherwise),
 * signals through mm_signal_post (one sequentially consistent RMW: data before signal, signal
 * before the sleeper check). fence and quiet are one full fence.
 */
#include "mm_rma.h"
#include "mm_trace.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <string.h>

bool mm_copy_erms;

__attribute__((constructor)) static void mm_copy_detect(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
        mm_copy_erms = (b >> 9) & 1u; /* CPUID.(EAX=7,ECX=0):EBX.ERMS[bit 9] */
#endif
}

void meshmem_put(void *dest, const void *src, size_t nbytes, int rank)
{
    MM_TRACE_SCOPE(mm_trace_p2p("put", nbytes, rank, MM_TRACE_STORE));
    void *d = mm_xlate_checked("meshmem_put", "dest", dest, nbytes, rank);
    mm_copy(d, src, nbytes);
    mm_wake(rank);
}

void meshmem_get(void *dest, const void *src, size_t nbytes, int rank)
{
    MM_TRACE_SCOPE(mm_trace_p2p("get", nbytes, rank, 0));
    const void *s = mm_xlate_checked("meshmem_get", "source", src, nbytes, rank);
    mm_copy(dest, s, nbytes);
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
    MM_TRACE_SCOPE(mm_trace_p2p("put", esize * nelems, rank, MM_TRACE_STORE));
    char *d = mm_strided_xlate("meshmem_iput", "dest", dest, dst, esize, nelems, rank);
    mm_strided_copy(d, src, dst, sst, esize, nelems);
    mm_wake(rank);
}

void meshmem_iget(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                  size_t nelems, int rank)
{
    if (nelems == 0)
        return;
    MM_TRACE_SCOPE(mm_trace_p2p("get", esize * nelems, rank, 0));
    const char *s = mm_strided_xlate("meshmem_iget", "source", src, sst, esize, nelems, rank);
    mm_strided_copy(dest, s, dst, sst, esize, nelems);
}

void meshmem_put_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                        uint64_t signal, int sig_op, int rank)
{
    MM_TRACE_SCOPE(mm_trace_p2p("signal", nbytes + sizeof(uint64_t), rank, MM_TRACE_STORE));
    void *d = mm_xlate_checked("meshmem_put_signal", "dest", dest, nbytes, rank);
    uint64_t *sig =
        mm_xlate_checked("meshmem_put_signal", "sig_addr", sig_addr, sizeof(uint64_t), rank);
    if (MM_UNLIKELY(sig_op != MESHMEM_SIGNAL_SET && sig_op != MESHMEM_SIGNAL_ADD))
        mm_fatal("meshmem_put_signal: sig_op argument (%d) is neither SHMEM_SIGNAL_SET nor "
                 "SHMEM_SIGNAL_ADD",
                 sig_op);
    mm_copy(d, src, nbytes);
    mm_signal_post(sig, signal, sig_op);
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
