/*
 * One-sided operations of the native API: each is one call of mm_rma.h, the operations the
 * OpenSHMEM layer calls too, under the native name for messages; and their out-of-line error
 * paths.
 */
#include "mm_rma.h"

void mm_rma_size_fatal(const char *call, size_t nelems, size_t esize)
{
    mm_fatal("%s: nelems argument (%zu) of %zu-byte elements overflows (a negative count?)", call,
             nelems, esize);
}

void mm_rma_null_fatal(const char *call, const char *what, size_t nbytes)
{
    mm_fatal("%s: %s argument is NULL for %zu bytes", call, what, nbytes);
}

void mm_rma_align_fatal(const char *call, const char *what, const void *addr, size_t size)
{
    mm_fatal("%s: %s argument (%p) is not aligned to its %zu-byte type", call, what, addr, size);
}

void mm_rma_signal_fatal(const char *call, const uint64_t *sig_addr, int sig_op)
{
    if (((uintptr_t)sig_addr & (sizeof(uint64_t) - 1)) != 0)
        mm_fatal("%s: sig_addr argument (%p) is not aligned to 8 bytes", call,
                 (const void *)sig_addr);
    mm_fatal("%s: sig_op argument (%d) is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", call,
             sig_op);
}

void meshmem_put(void *dest, const void *src, size_t nbytes, int rank)
{
    mm_rma_put("meshmem_put", dest, src, nbytes, rank, false);
}

void meshmem_get(void *dest, const void *src, size_t nbytes, int rank)
{
    mm_rma_get("meshmem_get", dest, src, nbytes, rank, false);
}

void meshmem_iput(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                  size_t nelems, int rank)
{
    mm_rma_strided("meshmem_iput", "dest", true, dest, (void *)src, dst, sst, nelems, esize, rank);
}

void meshmem_iget(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t esize,
                  size_t nelems, int rank)
{
    mm_rma_strided("meshmem_iget", "source", false, (void *)src, dest, sst, dst, nelems, esize,
                   rank);
}

void meshmem_put_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                        uint64_t signal, int sig_op, int rank)
{
    mm_rma_put_signal("meshmem_put_signal", dest, src, nbytes, sig_addr, signal, sig_op, rank,
                      false);
}

void meshmem_put_signal_nbi(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                            uint64_t signal, int sig_op, int rank)
{
    mm_rma_put_signal("meshmem_put_signal_nbi", dest, src, nbytes, sig_addr, signal, sig_op, rank,
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
    return mm_g.initialized && (unsigned)rank < (unsigned)mm_g.nranks && mm_is_symmetric(addr, 1);
}

int meshmem_rank_accessible(int rank)
{
    return mm_g.initialized && (unsigned)rank < (unsigned)mm_g.nranks;
}
