/*
 * OpenSHMEM RMA (1.5 section 9.6): put, p, iput, get, g, iget, put_nbi, get_nbi in their typed
 * (Table 5), sized (8..128 bits) and byte forms, each with its context form.
 *
 * A thin shell: the checks, then the transport interface (mm_tp.h), as the native API. To a PE
 * of the node a put is a copy into the peer's mapping and a get a copy out of it, complete on
 * return (which also completes the nbi forms), and p and g of one element are a single
 * translated store or load; to a PE on another host they go through the network transport.
 */
#include "mm_tp.h"
#include "mm_trace.h"
#include "shmem_internal.h"

/* put / get of nelems elements of esize bytes; nbi: the non-blocking forms */
SHMEMI_INLINE void shmemi_put_elems(const char *call, void *dest, const void *source,
                                    size_t nelems, size_t esize, int pe, bool nbi)
{
    size_t nbytes = shmemi_bytes(call, nelems, esize);
    MM_TRACE_SCOPE(mm_trace_p2p("put", nbytes, pe, MM_TRACE_STORE));
    void *d = shmemi_xlate(call, "dest", dest, nbytes, pe);
    if (MM_UNLIKELY(nbytes == 0)) /* source may be NULL when there is nothing to copy */
        return;
    if (nbi)
        mm_tp_put_nbi_at(d, dest, source, nbytes, pe);
    else
        mm_tp_put_at(d, dest, source, nbytes, pe);
}

SHMEMI_INLINE void shmemi_get_elems(const char *call, void *dest, const void *source,
                                    size_t nelems, size_t esize, int pe, bool nbi)
{
    size_t nbytes = shmemi_bytes(call, nelems, esize);
    MM_TRACE_SCOPE(mm_trace_p2p("get", nbytes, pe, 0));
    const void *s = shmemi_xlate(call, "source", source, nbytes, pe);
    if (MM_UNLIKELY(nbytes == 0))
        return;
    if (nbi)
        mm_tp_get_nbi_at(s, dest, source, nbytes, pe);
    else
        mm_tp_get_at(s, dest, source, nbytes, pe);
}

/*
 * Strided copy between symmetric @p sym on world PE @p pe (stride @p sym_stride) and local
 * @p local (stride @p local_stride); strides in elements of @p esize bytes, possibly negative.
 * The symmetric range checked is the one really touched: from the lowest element to the
 * highest. esize is a constant in every caller, so the per-element memcpy is one move.
 */
static inline void shmemi_strided(const char *call, const char *what, bool to_sym, void *sym,
                                  void *local, ptrdiff_t sym_stride, ptrdiff_t local_stride,
                                  size_t nelems, size_t esize, int pe)
{
    if (nelems == 0) {
        shmemi_xlate(call, what, sym, 0, pe); /* still a valid PE */
        return;
    }
    size_t steps = nelems - 1, astride = sym_stride < 0 ? -(size_t)sym_stride : (size_t)sym_stride;
    size_t span;
    if (__builtin_mul_overflow(astride, esize, &span) || __builtin_mul_overflow(span, steps, &span) ||
        __builtin_add_overflow(span, esize, &span))
        shmemi_size_fatal(call, nelems, esize);
    MM_TRACE_SCOPE(mm_trace_p2p(to_sym ? "put" : "get", nelems * esize, pe,
                                to_sym ? MM_TRACE_STORE : 0));
    char *low = (char *)sym - (sym_stride < 0 ? span - esize : 0);
    char *mapped = shmemi_xlate(call, what, low, span, pe);
    /* a PE on another host: element by element through the transport (r is then the
     * symmetric address), completed together */
    char *r = mapped ? mapped + ((char *)sym - low) : sym, *l = local;
    ptrdiff_t rstep = sym_stride * (ptrdiff_t)esize, lstep = local_stride * (ptrdiff_t)esize;
    for (size_t i = 0; i < nelems; i++, r += rstep, l += lstep) {
        if (!mapped && to_sym)
            mm_tp_put_nbi_at(NULL, r, l, esize, pe);
        else if (!mapped)
            mm_tp_get_nbi_at(NULL, l, r, esize, pe);
        else if (to_sym)
            memcpy(r, l, esize);
        else
            memcpy(l, r, esize);
    }
    if (!mapped && !to_sym)
        mm_tp_quiet(); /* a get returns with its data */
    else if (to_sym && mapped)
        mm_wake(pe);
}

/* ---- bodies: BODY(CALL, T, PE) over the parameters of the routine ---- */

#define SHMEMI_PUT_BODY(CALL, T, PE)                                                               \
    shmemi_put_elems(CALL, dest, source, nelems, sizeof(T), PE, false)
#define SHMEMI_PUT_NBI_BODY(CALL, T, PE)                                                           \
    shmemi_put_elems(CALL, dest, source, nelems, sizeof(T), PE, true)
#define SHMEMI_GET_BODY(CALL, T, PE)                                                               \
    shmemi_get_elems(CALL, dest, source, nelems, sizeof(T), PE, false)
#define SHMEMI_GET_NBI_BODY(CALL, T, PE)                                                           \
    shmemi_get_elems(CALL, dest, source, nelems, sizeof(T), PE, true)
#define SHMEMI_IPUT_BODY(CALL, T, PE)                                                              \
    shmemi_strided(CALL, "dest", true, dest, (void *)source, dst, sst, nelems, sizeof(T), PE)
#define SHMEMI_IGET_BODY(CALL, T, PE)                                                              \
    shmemi_strided(CALL, "source", false, (void *)source, dest, sst, dst, nelems, sizeof(T), PE)
#define SHMEMI_P_BODY(CALL, T, PE)                                                                 \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p("put", sizeof(T), world_, MM_TRACE_STORE));                        \
    T *to_ = shmemi_xlate(CALL, "dest", dest, sizeof(T), world_);                                  \
    if (MM_LIKELY(to_ != NULL)) {                                                                  \
        *to_ = value;                                                                              \
        mm_wake_local(world_);                                                                           \
    } else {                                                                                       \
        mm_tp_put_at(NULL, dest, &value, sizeof(T), world_);                                       \
    }
#define SHMEMI_G_BODY(CALL, T, PE)                                                                 \
    int world_ = PE;                                                                               \
    MM_TRACE_SCOPE(mm_trace_p2p("get", sizeof(T), world_, 0));                                     \
    const T *from_ = shmemi_xlate(CALL, "source", source, sizeof(T), world_);                      \
    T value_;                                                                                      \
    if (MM_LIKELY(from_ != NULL))                                                                  \
        return *from_;                                                                             \
    mm_tp_get_at(NULL, &value_, source, sizeof(T), world_);                                        \
    return value_

/* ---- Table 5 typed routines ---- */

#define SHMEMI_RMA_TYPED_(T, N)                                                                    \
    SHMEMI_DEFINE_PAIR(void, N##_put, SHMEMI_PUT_BODY, T, T *dest, const T *source,               \
                       size_t nelems, int pe)                                                      \
    SHMEMI_DEFINE_PAIR(void, N##_put_nbi, SHMEMI_PUT_NBI_BODY, T, T *dest, const T *source,           \
                       size_t nelems, int pe)                                                      \
    SHMEMI_DEFINE_PAIR(void, N##_get, SHMEMI_GET_BODY, T, T *dest, const T *source,               \
                       size_t nelems, int pe)                                                      \
    SHMEMI_DEFINE_PAIR(void, N##_get_nbi, SHMEMI_GET_NBI_BODY, T, T *dest, const T *source,           \
                       size_t nelems, int pe)                                                      \
    SHMEMI_DEFINE_PAIR(void, N##_iput, SHMEMI_IPUT_BODY, T, T *dest, const T *source,             \
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)                        \
    SHMEMI_DEFINE_PAIR(void, N##_iget, SHMEMI_IGET_BODY, T, T *dest, const T *source,             \
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)                        \
    SHMEMI_DEFINE_PAIR(void, N##_p, SHMEMI_P_BODY, T, T *dest, T value, int pe)                    \
    SHMEMI_DEFINE_PAIR(T, N##_g, SHMEMI_G_BODY, T, const T *source, int pe)
SHMEM_RMA_TYPES(SHMEMI_RMA_TYPED_)

/* ---- sized routines: elements of BYTES bytes (no alignment is assumed) ---- */

#define SHMEMI_RMA_SIZED_(BITS, BYTES)                                                             \
    SHMEMI_DEFINE_PAIR(void, put##BITS, SHMEMI_PUT_BODY, char[BYTES], void *dest,                 \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_nbi, SHMEMI_PUT_NBI_BODY, char[BYTES], void *dest,           \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, get##BITS, SHMEMI_GET_BODY, char[BYTES], void *dest,                 \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, get##BITS##_nbi, SHMEMI_GET_NBI_BODY, char[BYTES], void *dest,           \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, iput##BITS, SHMEMI_IPUT_BODY, char[BYTES], void *dest,               \
                       const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)    \
    SHMEMI_DEFINE_PAIR(void, iget##BITS, SHMEMI_IGET_BODY, char[BYTES], void *dest,               \
                       const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)
SHMEM_SIZED_TYPES(SHMEMI_RMA_SIZED_)

/* ---- byte routines ---- */

SHMEMI_DEFINE_PAIR(void, putmem, SHMEMI_PUT_BODY, char, void *dest, const void *source,
                   size_t nelems, int pe)
SHMEMI_DEFINE_PAIR(void, putmem_nbi, SHMEMI_PUT_NBI_BODY, char, void *dest, const void *source,
                   size_t nelems, int pe)
SHMEMI_DEFINE_PAIR(void, getmem, SHMEMI_GET_BODY, char, void *dest, const void *source,
                   size_t nelems, int pe)
SHMEMI_DEFINE_PAIR(void, getmem_nbi, SHMEMI_GET_NBI_BODY, char, void *dest, const void *source,
                   size_t nelems, int pe)
