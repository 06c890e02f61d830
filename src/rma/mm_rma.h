/**
 * @file mm_rma.h
 * @brief The one-sided operations under every API: the native meshmem_* and the OpenSHMEM
 * shmem_* routines are each a call of one of these (with their own name for messages), so
 * there is one translation (mm_tp_xlate), one strided copy and one CPU AMO switch
 * (mm_shm_amo), whichever API a program uses.
 *
 * Each checks its arguments (the job ends with a line naming @p call and the argument), then
 * runs on the transport interface (mm_tp.h): to a PE of the node a put is a copy into the
 * peer's mapping and a get a copy out of it, complete on return (which also completes the nbi
 * forms); to a PE reached through a network they go out of line and quiet completes them.
 * Inline by force: the typed OpenSHMEM routines pass their element size as a constant, so a
 * put of one long is a few compares, a store and the sleeper check.
 */
#ifndef MM_RMA_H
#define MM_RMA_H

#include "mm_tp.h"
#include "mm_trace.h"

#include <string.h>

/** @brief End the job: @p nelems elements of @p esize bytes for @p call overflow a size_t. */
void mm_rma_size_fatal(const char *call, size_t nelems, size_t esize)
    __attribute__((noreturn, cold));

/** @brief End the job: the local buffer @p what of @p call is NULL for @p nbytes bytes. */
void mm_rma_null_fatal(const char *call, const char *what, size_t nbytes)
    __attribute__((noreturn, cold));

/** @brief End the job: @p what (@p addr) of @p call is not aligned to its @p size bytes. */
void mm_rma_align_fatal(const char *call, const char *what, const void *addr, size_t size)
    __attribute__((noreturn, cold));

/** @brief End the job: @p sig_addr of @p call is not 8-byte aligned, or @p sig_op is neither
 * MESHMEM_SIGNAL_SET nor MESHMEM_SIGNAL_ADD. */
void mm_rma_signal_fatal(const char *call, const uint64_t *sig_addr, int sig_op)
    __attribute__((noreturn, cold));

/** @return @p nelems * @p esize, ending the job when it overflows (a negative count). */
MM_INLINE_HOT size_t mm_rma_bytes(const char *call, size_t nelems, size_t esize)
{
    if (MM_UNLIKELY(nelems > SIZE_MAX / esize))
        mm_rma_size_fatal(call, nelems, esize);
    return nelems * esize;
}

/** @brief Put @p nbytes from @p src to symmetric @p dest on world PE @p pe (@p nbi: the
 * non-blocking form; @p src must then stay unchanged until quiet). */
MM_INLINE_HOT void mm_rma_put(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                              bool nbi)
{
    MM_TRACE_SCOPE(mm_trace_p2p("put", nbytes, pe, MM_TRACE_STORE));
    void *d = mm_tp_xlate(call, "dest", dest, nbytes, pe);
    if (MM_UNLIKELY(nbytes == 0 || src == NULL)) { /* src may be NULL when nothing is copied */
        if (nbytes)
            mm_rma_null_fatal(call, "source", nbytes);
        return;
    }
    if (nbi)
        mm_tp_put_nbi_at(d, dest, src, nbytes, pe);
    else
        mm_tp_put_at(d, dest, src, nbytes, pe);
}

/** @brief Get @p nbytes from symmetric @p src on world PE @p pe into @p dest (@p nbi: the
 * non-blocking form; @p dest is then valid after quiet). */
MM_INLINE_HOT void mm_rma_get(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                              bool nbi)
{
    MM_TRACE_SCOPE(mm_trace_p2p("get", nbytes, pe, 0));
    const void *s = mm_tp_xlate(call, "source", src, nbytes, pe);
    if (MM_UNLIKELY(nbytes == 0 || dest == NULL)) { /* dest may be NULL when nothing is copied */
        if (nbytes)
            mm_rma_null_fatal(call, "dest", nbytes);
        return;
    }
    if (nbi)
        mm_tp_get_nbi_at(s, dest, src, nbytes, pe);
    else
        mm_tp_get_at(s, dest, src, nbytes, pe);
}

/* element i of @p s (stride @p sst) to element i of @p d (stride @p dst), strides in bytes:
 * esize is a constant in the typed callers, so the switch folds to one move per element */
MM_INLINE_HOT void mm_rma_strided_copy(char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst,
                                       size_t esize, size_t nelems)
{
#define MM_RMA_STRIDED(bytes)                                                                      \
    case bytes:                                                                                    \
        for (size_t i = 0; i < nelems; i++, d += dst, s += sst)                                    \
            memcpy(d, s, bytes);                                                                   \
        return;
    switch (esize) {
        MM_RMA_STRIDED(1)
        MM_RMA_STRIDED(2)
        MM_RMA_STRIDED(4)
        MM_RMA_STRIDED(8)
        MM_RMA_STRIDED(16)
    default:
        for (size_t i = 0; i < nelems; i++, d += dst, s += sst)
            memcpy(d, s, esize);
    }
#undef MM_RMA_STRIDED
}

/**
 * @brief Strided transfer between symmetric @p sym on world PE @p pe (stride @p sym_stride) and
 * local @p local (stride @p local_stride); strides in elements of @p esize bytes, possibly
 * negative; @p to_sym: a put (iput), else a get (iget). The symmetric range checked is the one
 * really touched, from the lowest element to the highest (@p what names it for messages).
 * To a network peer element by element (the strides may interleave with other data: no bulk
 * transfer covers only the elements), non-blocking, completed together.
 */
MM_INLINE_HOT void mm_rma_strided(const char *call, const char *what, bool to_sym, void *sym,
                                  void *local, ptrdiff_t sym_stride, ptrdiff_t local_stride,
                                  size_t nelems, size_t esize, int pe)
{
    if (nelems == 0) {
        mm_tp_xlate(call, what, sym, 0, pe); /* still a valid PE */
        return;
    }
    size_t steps = nelems - 1, astride = sym_stride < 0 ? -(size_t)sym_stride : (size_t)sym_stride;
    size_t span;
    if (__builtin_mul_overflow(astride, esize, &span) ||
        __builtin_mul_overflow(span, steps, &span) || __builtin_add_overflow(span, esize, &span))
        mm_rma_size_fatal(call, nelems, esize);
    MM_TRACE_SCOPE(
        mm_trace_p2p(to_sym ? "put" : "get", nelems * esize, pe, to_sym ? MM_TRACE_STORE : 0));
    if (MM_UNLIKELY(local == NULL))
        mm_rma_null_fatal(call, to_sym ? "source" : "dest", nelems * esize);
    char *low = (char *)sym - (sym_stride < 0 ? span - esize : 0);
    char *mapped = mm_tp_xlate(call, what, low, span, pe);
    ptrdiff_t rstep = sym_stride * (ptrdiff_t)esize, lstep = local_stride * (ptrdiff_t)esize;
    if (MM_LIKELY(mapped != NULL)) {
        char *r = mapped + ((char *)sym - low);
        if (to_sym) {
            mm_rma_strided_copy(r, local, rstep, lstep, esize, nelems);
            mm_tp_wake_mapped(pe);
        } else {
            mm_rma_strided_copy(local, r, lstep, rstep, esize, nelems);
        }
        return;
    }
    char *r = sym, *l = local; /* r: the symmetric address, the transport's */
    for (size_t i = 0; i < nelems; i++, r += rstep, l += lstep) {
        if (to_sym)
            mm_tp_put_nbi_at(NULL, r, l, esize, pe);
        else
            mm_tp_get_nbi_at(NULL, l, r, esize, pe);
    }
    if (!to_sym)
        mm_tp_quiet(); /* a get returns with its data */
}

/**
 * @brief Put @p nbytes from @p src to symmetric @p dest on world PE @p pe, then post @p signal
 * into the symmetric 64-bit @p sig_addr there by @p sig_op (MESHMEM_SIGNAL_SET or _ADD): a PE
 * that sees the signal sees the data. The checks are a few compares (PE, both ranges,
 * sig_addr's alignment, sig_op), the errors out of line; then the transport's put with
 * signal (mm_tp_put_signal_at). @p nbi: to a network peer, return before the source is read.
 */
MM_INLINE_HOT void mm_rma_put_signal(const char *call, void *dest, const void *src, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     bool nbi)
{
    MM_TRACE_SCOPE(mm_trace_p2p("signal", nbytes + sizeof(uint64_t), pe, MM_TRACE_STORE));
    uint64_t *sig = mm_tp_xlate(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    _Static_assert(MESHMEM_SIGNAL_SET == 0 && MESHMEM_SIGNAL_ADD == 1, "sig_op check");
    if (MM_UNLIKELY((((uintptr_t)sig_addr & (sizeof(uint64_t) - 1)) | (unsigned)sig_op) > 1))
        mm_rma_signal_fatal(call, sig_addr, sig_op);
    /* a signal alone: dest and src need not be valid (memcpy is given valid pointers even for
     * 0 bytes, so UBSan stays quiet; and for a network peer sig is NULL, so is dest) */
    void *d = sig;
    if (MM_LIKELY(nbytes != 0))
        d = mm_tp_xlate(call, "dest", dest, nbytes, pe);
    else
        src = sig_addr;
    mm_tp_put_signal_at(d, sig, dest, src, nbytes, sig_addr, signal, sig_op, pe, nbi);
}

/**
 * @brief Atomic @p op on the @p size-byte word at symmetric @p dest on world PE @p pe (the
 * argument named @p what of @p call: symmetric, and naturally aligned, or the job ends: an
 * unaligned atomic is not one). @p value, @p cond (CSWAP's) and the result are the word's bits
 * in the low bytes of a uint64_t. @return the word's value before (0 for SET).
 */
MM_INLINE_HOT uint64_t mm_rma_amo(const char *call, const char *what, void *dest,
                                  meshmem_amo_op_t op, size_t size, uint64_t value, uint64_t cond,
                                  int pe)
{
    void *p = mm_tp_xlate(call, what, dest, size, pe);
    if (MM_UNLIKELY(((uintptr_t)dest & (size - 1)) != 0))
        mm_rma_align_fatal(call, what, dest, size);
    return mm_tp_amo_at(p, dest, op, size, value, cond, pe);
}

#endif /* MM_RMA_H */
