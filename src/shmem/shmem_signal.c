/*
 * OpenSHMEM signaling operations (1.5 section 9.7): put with signal, signal fetch, signal wait.
 *
 * A put with signal is, inline: the checks (PE, both ranges, sig_addr alignment, sig_op: a
 * few compares, errors out of line), then the transport's put-with-signal (mm_tp.h): to a PE of
 * the node one copy into the peer's mapping, one locked read-modify-write of the peer's signal
 * word, and the sleeper check (the RMW orders the data before the signal and the signal before
 * the sleeper check: the argument is in mm_shm_ops.h, mm_signal_post); to a PE on another host
 * one message that carries both. The _nbi forms return there before the source is read (it
 * must stay unchanged until quiet); to the node they copy as the blocking ones.
 */
#include "mm_tp.h"
#include "mm_trace.h"
#include "shmem_internal.h"

/* the message of a misaligned sig_addr or an unknown sig_op */
static void shmemi_signal_fatal(const char *call, const uint64_t *sig_addr, int sig_op)
    __attribute__((noreturn)) SHMEMI_COLD;
static void shmemi_signal_fatal(const char *call, const uint64_t *sig_addr, int sig_op)
{
    if (((uintptr_t)sig_addr & (sizeof(uint64_t) - 1)) != 0)
        mm_fatal("%s: sig_addr argument (%p) is not aligned to 8 bytes", call,
                 (const void *)sig_addr);
    mm_fatal("%s: sig_op argument (%d) is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", call,
             sig_op);
}

SHMEMI_INLINE void shmemi_put_signal(const char *call, void *dest, const void *source,
                                     size_t nelems, size_t esize, uint64_t *sig_addr,
                                     uint64_t signal, int sig_op, int pe, bool nbi)
{
    size_t nbytes = shmemi_bytes(call, nelems, esize);
    MM_TRACE_SCOPE(mm_trace_p2p("signal", nbytes + sizeof(uint64_t), pe, MM_TRACE_STORE));
    uint64_t *sig = shmemi_xlate(call, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    _Static_assert(SHMEM_SIGNAL_SET == 0 && SHMEM_SIGNAL_ADD == 1, "sig_op check");
    if (MM_UNLIKELY((((uintptr_t)sig_addr & (sizeof(uint64_t) - 1)) | (unsigned)sig_op) > 1))
        shmemi_signal_fatal(call, sig_addr, sig_op);
    /* a signal alone: dest and source need not be valid (memcpy is given valid pointers even
     * for 0 bytes, so UBSan stays quiet) */
    void *d = sig;
    if (MM_LIKELY(nbytes != 0))
        d = shmemi_xlate(call, "dest", dest, nbytes, pe);
    else
        source = sig;
    mm_tp_put_signal_at(d, sig, dest, source, nbytes, sig_addr, signal, sig_op, pe, nbi);
}

#define SHMEMI_PUT_SIGNAL_BODY(CALL, T, PE)                                                        \
    shmemi_put_signal(CALL, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, PE, false)
#define SHMEMI_PUT_SIGNAL_NBI_BODY(CALL, T, PE)                                                    \
    shmemi_put_signal(CALL, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, PE, true)

#define SHMEMI_SIGNAL_TYPED_(T, N)                                                                 \
    SHMEMI_DEFINE_PAIR(void, N##_put_signal, SHMEMI_PUT_SIGNAL_BODY, T, T *dest, const T *source, \
                       size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)     \
    SHMEMI_DEFINE_PAIR(void, N##_put_signal_nbi, SHMEMI_PUT_SIGNAL_NBI_BODY, T, T *dest,           \
                       const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                       int sig_op, int pe)
SHMEM_RMA_TYPES(SHMEMI_SIGNAL_TYPED_)

#define SHMEMI_SIGNAL_SIZED_(BITS, BYTES)                                                          \
    SHMEMI_DEFINE_PAIR(void, put##BITS##_signal, SHMEMI_PUT_SIGNAL_BODY, char[BYTES], void *dest, \
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
