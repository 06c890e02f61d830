/*
 * OpenSHMEM signaling operations (1.5 section 9.7): put with signal, signal fetch, signal wait.
 *
 * A put with signal is one call of the native one (mm_rma_put_signal): the checks, then to a PE
 * of the node one copy into the peer's mapping, one locked read-modify-write of the peer's
 * signal word, and the sleeper check (the RMW orders the data before the signal and the signal
 * before the sleeper check: the argument is in mm_shm_ops.h, mm_signal_post); to a PE reached
 * through a network one message that carries both. The _nbi forms return there before the
 * source is read (it must stay unchanged until quiet); to the node they copy as the blocking
 * ones.
 */
#include "mm_rma.h"
#include "shmem_internal.h"

#define SHMEMI_PUT_SIGNAL_BODY(CALL, T, PE)                                                        \
    mm_rma_put_signal(CALL, dest, source, mm_rma_bytes(CALL, nelems, sizeof(T)), sig_addr, signal, \
                      sig_op, PE, false)
#define SHMEMI_PUT_SIGNAL_NBI_BODY(CALL, T, PE)                                                    \
    mm_rma_put_signal(CALL, dest, source, mm_rma_bytes(CALL, nelems, sizeof(T)), sig_addr, signal, \
                      sig_op, PE, true)

#define SHMEMI_SIGNAL_TYPED_(T, N)                                                                 \
    SHMEMI_DEFINE_PAIR(void, N##_put_signal, SHMEMI_PUT_SIGNAL_BODY, T, T *dest, const T *source,  \
                       size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)     \
    SHMEMI_DEFINE_PAIR(void, N##_put_signal_nbi, SHMEMI_PUT_SIGNAL_NBI_BODY, T, T *dest,           \
                       const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                       int sig_op, int pe)
SHMEM_RMA_TYPES(SHMEMI_SIGNAL_TYPED_)

#define SHMEMI_SIGNAL_SIZED_(BITS, BYTES)                                                          \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_signal, SHMEMI_PUT_SIGNAL_BODY, char[BYTES], void *dest,  \
                       const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                       int sig_op, int pe)                                                         \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_signal_nbi, SHMEMI_PUT_SIGNAL_NBI_BODY, char[BYTES],      \
                       void *dest, const void *source, size_t nelems, uint64_t *sig_addr,          \
                       uint64_t signal, int sig_op, int pe)
SHMEM_SIZED_TYPES(SHMEMI_SIGNAL_SIZED_)

SHMEMI_DEFINE_PAIR(void, putmem_signal, SHMEMI_PUT_SIGNAL_BODY, char, void *dest,
                   const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                   int sig_op, int pe)
SHMEMI_DEFINE_PAIR(void, putmem_signal_nbi, SHMEMI_PUT_SIGNAL_NBI_BODY, char, void *dest,
                   const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                   int sig_op, int pe)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    MM_CHECK_INIT("shmem_signal_fetch");
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
SHMEMI_PROFILED(shmem_signal_fetch)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    MM_CHECK_INIT("shmem_signal_wait_until");
    shmemi_check_cmp("shmem_signal_wait_until", cmp);
    uint64_t seen;
    SHMEMI_WAIT_CMP(seen, __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE), cmp, cmp_value);
    return seen;
}
SHMEMI_PROFILED(shmem_signal_wait_until)
