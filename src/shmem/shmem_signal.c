/*
 * OpenSHMEM signaling operations (1.5 section 9.7): put with signal, signal fetch, signal wait.
 *
 * The data goes first, then the 64-bit signal is set or added atomically (sequentially
 * consistent, after a fence for large copies: meshmem_put_signal), so a PE that sees the signal
 * sees the data; the signal's store is also the full fence that lets mm_wake see a sleeper.
 * The _nbi forms complete immediately.
 */
#include "shmem_internal.h"

static inline void shmemi_put_signal(const char *call, void *dest, const void *source,
                                     size_t nelems, size_t esize, uint64_t *sig_addr,
                                     uint64_t signal, int sig_op, int pe)
{
    size_t nbytes = shmemi_bytes(call, nelems, esize);
    shmemi_xlate(call, "dest", dest, nbytes, pe);
    shmemi_xlate(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    if (MM_UNLIKELY(((uintptr_t)sig_addr & (sizeof(uint64_t) - 1)) != 0))
        mm_fatal("%s: sig_addr argument (%p) is not aligned to 8 bytes", call, (void *)sig_addr);
    if (MM_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        mm_fatal("%s: sig_op argument (%d) is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", call,
                 sig_op);
    if (nbytes == 0) /* a signal alone: dest and source need not be valid addresses */
        dest = sig_addr, source = sig_addr;
    meshmem_put_signal(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}

#define SHMEMI_PUT_SIGNAL_BODY(CALL, T, PE)                                                        \
    shmemi_put_signal(CALL, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, PE)

#define SHMEMI_SIGNAL_TYPED_(T, N)                                                                 \
    SHMEMI_DEFINE_PAIR(void, N##_put_signal, SHMEMI_PUT_SIGNAL_BODY, T, T *dest, const T *source, \
                       size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)     \
    SHMEMI_DEFINE_PAIR(void, N##_put_signal_nbi, SHMEMI_PUT_SIGNAL_BODY, T, T *dest,              \
                       const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                       int sig_op, int pe)
SHMEM_RMA_TYPES(SHMEMI_SIGNAL_TYPED_)

#define SHMEMI_SIGNAL_SIZED_(BITS, BYTES)                                                          \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_signal, SHMEMI_PUT_SIGNAL_BODY, char[BYTES], void *dest, \
                       const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                       int sig_op, int pe)                                                         \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_signal_nbi, SHMEMI_PUT_SIGNAL_BODY, char[BYTES],         \
                       void *dest, const void *source, size_t nelems, uint64_t *sig_addr,          \
                       uint64_t signal, int sig_op, int pe)
SHMEM_SIZED_TYPES(SHMEMI_SIGNAL_SIZED_)

SHMEMI_DEFINE_PAIR(void, putmem_signal, SHMEMI_PUT_SIGNAL_BODY, char, void *dest,
                   const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                   int sig_op, int pe)
SHMEMI_DEFINE_PAIR(void, putmem_signal_nbi, SHMEMI_PUT_SIGNAL_BODY, char, void *dest,
                   const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                   int sig_op, int pe)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    MM_CHECK_INIT("shmem_signal_fetch");
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

/* load the signal into *seen; true when it satisfies the comparison */
static inline bool shmemi_signal_reached(const uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                         uint64_t *seen)
{
    uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    *seen = v;
    return SHMEMI_COMPARE(v, cmp, cmp_value);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    MM_CHECK_INIT("shmem_signal_wait_until");
    shmemi_check_cmp("shmem_signal_wait_until", cmp);
    uint64_t seen;
    MM_WAIT_UNTIL(shmemi_signal_reached(sig_addr, cmp, cmp_value, &seen));
    return seen;
}
