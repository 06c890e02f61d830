/*
 * One-sided operations of the native API, through the transport interface (mm_tp.h): to a peer
 * of the node a put is a copy into the peer's mapping of the destination and a get a copy out
 * of it, both complete on return; to a peer on another host they go through the network
 * transport, and quiet completes them.
 */
#include "mm_tp.h"
#include "mm_trace.h"

#include <string.h>

void meshmem_put(void *dest, const void *src, size_t nbytes, int rank)
{
    MM_TRACE_SCOPE(mm_trace_p2p("put", nbytes, rank, MM_TRACE_STORE));
    void *d = mm_xlate_checked("meshmem_put", "dest", dest, nbytes, rank);
    mm_tp_put_at(d, dest, src, nbytes, rank);
}

void meshmem_get(void *dest, const void *src, size_t nbytes, int rank)
{
    MM_TRACE_SCOPE(mm_trace_p2p("get", nbytes, rank, 0));
    const void *s = mm_xlate_checked("meshmem_get", "source", src, nbytes, rank);
    mm_tp_get_at(s, dest, src, nbytes, rank);
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
 * reaches below its base address); NULL for a peer on another host */
static char *mm_strided_xlate(const char *call, const char *what, const void *base,
                              ptrdiff_t stride, size_t esize, size_t nelems, int rank)
{
    const char *lo = base;
    if (stride < 0)
        lo += (ptrdiff_t)(nelems - 1) * stride * (ptrdiff_t)esize;
    char *t = mm_xlate_checked(call, what, lo, mm_strided_span(stride, esize, nelems), rank);
    return t ? t + ((const char *)base - lo) : NULL;
}

/* a strided transfer with a peer on another host: one element at a time, non-blocking, then
 * completed together (the strides may interleave with other data: no bulk transfer covers
 * only the elements) */
static void mm_strided_net(bool put, char *remote, char *local, ptrdiff_t rstride,
                           ptrdiff_t lstride, size_t esize, size_t nelems, int rank)
{
    for (size_t i = 0; i < nelems; i++) {
        char *r = remote + (ptrdiff_t)i * rstride * (ptrdiff_t)esize;
        char *l = local + (ptrdiff_t)i * lstride * (ptrdiff_t)esize;
        if (put)
            mm_tp_put_nbi_at(NULL, r, l, esize, rank);
        else
            mm_tp_get_nbi_at(NULL, l, r, esize, rank);
    }
    if (!put)
        mm_tp_quiet(); /* a get returns with its data */
}

void meshmem_iput(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                  size_t nelems, int rank)
{
    if (nelems == 0)
        return;
    MM_TRACE_SCOPE(mm_trace_p2p("put", esize * nelems, rank, MM_TRACE_STORE));
    char *d = mm_strided_xlate("meshmem_iput", "dest", dest, dst, esize, nelems, rank);
    if (d == NULL) {
        mm_strided_net(true, dest, (char *)src, dst, sst, esize, nelems, rank);
        return;
    }
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
    if (s == NULL) {
        mm_strided_net(false, (char *)src, dest, sst, dst, esize, nelems, rank);
        return;
    }
    mm_strided_copy(dest, s, dst, sst, esize, nelems);
}

static void mm_put_signal(const char *call, void *dest, const void *src, size_t nbytes,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int rank, bool nbi)
{
    MM_TRACE_SCOPE(mm_trace_p2p("signal", nbytes + sizeof(uint64_t), rank, MM_TRACE_STORE));
    void *d = mm_xlate_checked(call, "dest", dest, nbytes, rank);
    uint64_t *sig = mm_xlate_checked(call, "sig_addr", sig_addr, sizeof(uint64_t), rank);
    if (MM_UNLIKELY(sig_op != MESHMEM_SIGNAL_SET && sig_op != MESHMEM_SIGNAL_ADD))
        mm_fatal("%s: sig_op argument (%d) is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                 call, sig_op);
    mm_tp_put_signal_at(d, sig, dest, src, nbytes, sig_addr, signal, sig_op, rank, nbi);
}

void meshmem_put_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                        uint64_t signal, int sig_op, int rank)
{
    mm_put_signal("meshmem_put_signal", dest, src, nbytes, sig_addr, signal, sig_op, rank, false);
}

void meshmem_put_signal_nbi(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                            uint64_t signal, int sig_op, int rank)
{
    mm_put_signal("meshmem_put_signal_nbi", dest, src, nbytes, sig_addr, signal, sig_op, rank,
                  true);
}

void meshmem_fence(void)
{
    mm_tp_fence();
}

void meshmem_quiet(void)
{
    mm_tp_quiet();
}

void *meshmem_ptr(const void *addr, int rank)
{
    if (!mm_g.initialized || (unsigned)rank >= (unsigned)mm_g.nranks)
        return NULL;
    return mm_tp_ptr(addr, rank);
}

int meshmem_addr_accessible(const void *addr, int rank)
{
    /* symmetric and the rank exists: reachable, by load/store or by the network */
    return mm_g.initialized && (unsigned)rank < (unsigned)mm_g.nranks &&
           mm_is_symmetric(addr, 1);
}

int meshmem_rank_accessible(int rank)
{
    return mm_g.initialized && (unsigned)rank < (unsigned)mm_g.nranks;
}
