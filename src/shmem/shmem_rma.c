/*
 * OpenSHMEM RMA (1.5 section 9.6): put, p, iput, get, g, iget, put_nbi, get_nbi in their typed
 * (Table 5), sized (8..128 bits) and byte forms, each with its context form.
 *
 * A typed shell over the native RMA (mm_rma.h): each routine is one call of it, with its own
 * name for messages and its element size as a constant, so that p and g of one element are a
 * single translated store or load to a PE of the node.
 */
#include "mm_rma.h"
#include "shmem_internal.h"

/* ---- bodies: BODY(CALL, T, PE) over the parameters of the routine ---- */

#define SHMEMI_PUT_BODY(CALL, T, PE)                                                               \
    mm_rma_put(CALL, dest, source, mm_rma_bytes(CALL, nelems, sizeof(T)), PE, false)
#define SHMEMI_PUT_NBI_BODY(CALL, T, PE)                                                           \
    mm_rma_put(CALL, dest, source, mm_rma_bytes(CALL, nelems, sizeof(T)), PE, true)
#define SHMEMI_GET_BODY(CALL, T, PE)                                                               \
    mm_rma_get(CALL, dest, source, mm_rma_bytes(CALL, nelems, sizeof(T)), PE, false)
#define SHMEMI_GET_NBI_BODY(CALL, T, PE)                                                           \
    mm_rma_get(CALL, dest, source, mm_rma_bytes(CALL, nelems, sizeof(T)), PE, true)
#define SHMEMI_IPUT_BODY(CALL, T, PE)                                                              \
    mm_rma_strided(CALL, "dest", true, dest, (void *)source, dst, sst, nelems, sizeof(T), PE)
#define SHMEMI_IGET_BODY(CALL, T, PE)                                                              \
    mm_rma_strided(CALL, "source", false, (void *)source, dest, sst, dst, nelems, sizeof(T), PE)
#define SHMEMI_P_BODY(CALL, T, PE) mm_rma_put(CALL, dest, &value, sizeof(T), PE, false)
#define SHMEMI_G_BODY(CALL, T, PE)                                                                 \
    T value_;                                                                                      \
    mm_rma_get(CALL, &value_, source, sizeof(T), PE, false);                                       \
    return value_

/* ---- Table 5 typed routines ---- */

#define SHMEMI_RMA_TYPED_(T, N)                                                                    \
    SHMEMI_DEFINE_PAIR(void, N##_put, SHMEMI_PUT_BODY, T, T *dest, const T *source, size_t nelems, \
                       int pe)                                                                     \
    SHMEMI_DEFINE_PAIR(void, N##_put_nbi, SHMEMI_PUT_NBI_BODY, T, T *dest, const T *source,        \
                       size_t nelems, int pe)                                                      \
    SHMEMI_DEFINE_PAIR(void, N##_get, SHMEMI_GET_BODY, T, T *dest, const T *source, size_t nelems, \
                       int pe)                                                                     \
    SHMEMI_DEFINE_PAIR(void, N##_get_nbi, SHMEMI_GET_NBI_BODY, T, T *dest, const T *source,        \
                       size_t nelems, int pe)                                                      \
    SHMEMI_DEFINE_PAIR(void, N##_iput, SHMEMI_IPUT_BODY, T, T *dest, const T *source,              \
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)                        \
    SHMEMI_DEFINE_PAIR(void, N##_iget, SHMEMI_IGET_BODY, T, T *dest, const T *source,              \
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)                        \
    SHMEMI_DEFINE_PAIR(void, N##_p, SHMEMI_P_BODY, T, T *dest, T value, int pe)                    \
    SHMEMI_DEFINE_PAIR(T, N##_g, SHMEMI_G_BODY, T, const T *source, int pe)
SHMEM_RMA_TYPES(SHMEMI_RMA_TYPED_)

/* ---- sized routines: elements of BYTES bytes (no alignment is assumed) ---- */

#define SHMEMI_RMA_SIZED_(BITS, BYTES)                                                             \
    SHMEMI_DEFINE_PAIR(void, put##BITS, SHMEMI_PUT_BODY, char[BYTES], void *dest,                  \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_nbi, SHMEMI_PUT_NBI_BODY, char[BYTES], void *dest,        \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, get##BITS, SHMEMI_GET_BODY, char[BYTES], void *dest,                  \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, get##BITS##_nbi, SHMEMI_GET_NBI_BODY, char[BYTES], void *dest,        \
                       const void *source, size_t nelems, int pe)                                  \
    SHMEMI_DEFINE_PAIR(void, iput##BITS, SHMEMI_IPUT_BODY, char[BYTES], void *dest,                \
                       const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)    \
    SHMEMI_DEFINE_PAIR(void, iget##BITS, SHMEMI_IGET_BODY, char[BYTES], void *dest,                \
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
