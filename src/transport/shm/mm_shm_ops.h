/**
 * @file mm_shm_ops.h
 * @brief The shared-memory transport's primitives, from which every put, get, signal and AMO to
 * a peer of the node is built (mm_tp.h): the copy to or from a peer's mapping, the signal store
 * after it, and the CPU atomics.
 */
#ifndef MM_SHM_OPS_H
#define MM_SHM_OPS_H

#include "mm_core.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/**
 * Copies of at least this many bytes use `rep movsb` where the CPU has ERMS.
 *
 * glibc's memcpy itself uses rep movsb from 4 KiB up to its rep_movsb_stop_threshold, which
 * glibc sets to the L2 size (1 MiB) on AMD; from there on it switches to a 4-vector loop (and to
 * non-temporal stores beyond 3/4 of the L3 share), which copy into a shared mapping more slowly
 * than rep movsb does (docs/results-core.md has the measurements). Non-temporal stores bypass
 * the caches that the target then reads from, so they are not used.
 */
#define MM_COPY_MOVSB_MIN ((size_t)64 << 10)

/** True when the CPU has enhanced rep movsb (CPUID.7.0:EBX bit 9), set at load time. */
extern bool mm_copy_erms;

/**
 * @brief Copy @p n bytes between local memory and a peer's mapping (put or get).
 *
 * Ordering: rep movsb stores are ordinary write-back stores; the stores inside one string
 * operation may complete in any order, but not after a later locked instruction or fence, so a
 * signal posted by mm_signal_post (a locked instruction) or a quiet (a fence) still follows the
 * whole copy. No non-temporal stores are issued here (glibc's memcpy ends its own
 * non-temporal loop with an sfence).
 */
static inline void mm_copy(void *dest, const void *src, size_t n)
{
    /* up to 16 bytes inline: a call into memcpy (through the PLT, then its size dispatch) was a
     * third of an 8-byte put's instructions. Two overlapping words of type T (both loads, then
     * both stores), T the widest that fits: as glibc, a word a peer polls is never half-written */
#define MM_COPY_ENDS(T)                                                                            \
    do {                                                                                           \
        T head_, tail_;                                                                            \
        memcpy(&head_, src, sizeof(T));                                                            \
        memcpy(&tail_, (const char *)src + n - sizeof(T), sizeof(T));                              \
        memcpy(dest, &head_, sizeof(T));                                                           \
        memcpy((char *)dest + n - sizeof(T), &tail_, sizeof(T));                                   \
    } while (0)
    if (MM_LIKELY(n - 8 <= 8)) { /* 8 to 16 bytes, a word and flags' size: one compare */
        MM_COPY_ENDS(uint64_t);
        return;
    }
    if (n < 8) {
        if (n >= 4)
            MM_COPY_ENDS(uint32_t);
        else if (n >= 2)
            MM_COPY_ENDS(uint16_t);
        else if (n == 1)
            *(char *)dest = *(const char *)src;
        return;
    }
#undef MM_COPY_ENDS
#if defined(__x86_64__)
    if (n >= MM_COPY_MOVSB_MIN && mm_copy_erms) {
        __asm__ volatile("rep movsb" : "+D"(dest), "+S"(src), "+c"(n) : : "memory");
        return;
    }
#endif
    memcpy(dest, src, n);
}

/**
 * @brief Post a signal (@p op: MESHMEM_SIGNAL_SET or _ADD, already validated) into the peer's
 * @p sig, after the data this rank copied before it; then mm_tp_wake(peer) checks for a sleeper.
 *
 * Two orderings are needed, and one sequentially consistent read-modify-write gives both:
 *
 * 1. Data before signal (a PE that sees the signal sees the data): the RMW is a release (and
 *    more); on x86 it is a locked instruction (xchg for SET, lock xadd for ADD), which no
 *    earlier store, rep movsb or non-temporal, can pass.
 *
 * 2. Signal before the sleeper check (no lost wake-up), a Dekker pair with mm_wait.c:
 *      waker (here):  RMW(sig) seq_cst;              load(sleepers) seq_cst (mm_shm_wake_user)
 *      waiter:        RMW(sleepers) seq_cst; fence seq_cst; load(sig) (its re-check)
 *    If the waker read sleepers == 0 and the waiter's re-check read the old signal, then in
 *    the single total order S of seq_cst operations and fences: RMW(sig) < load(sleepers)
 *    (program order), load(sleepers) < RMW(sleepers) (it read the value before it),
 *    RMW(sleepers) < fence (program order), and fence < RMW(sig) (a load after a seq_cst fence
 *    that reads a value older than a seq_cst write is ordered before that write): a cycle. So
 *    either the waker sees the sleeper and rings its doorbell, or the waiter sees the signal
 *    and does not sleep.
 *    A release store (a plain mov on x86) would be cheaper but is not enough: x86-TSO lets the
 *    later load of sleepers complete while the signal still sits in the store buffer, both
 *    sides then miss each other and the waiter sleeps until its futex timeout (1 ms). A store
 *    followed by a separate fence costs two serialising steps where xchg costs one; on x86 the
 *    seq_cst load in mm_wake is a plain mov.
 */
static inline void mm_signal_post(uint64_t *sig, uint64_t value, int op)
{
    if (op == MESHMEM_SIGNAL_SET)
        __atomic_exchange_n(sig, value, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add(sig, value, __ATOMIC_SEQ_CST);
}

/*
 * The CPU atomics: one switch for every AMO on a word of the node (the native API's, the
 * OpenSHMEM layer's typed ones, locks). Integer operations on an unsigned word of the type's
 * size (two's complement makes add agree; floats travel as their bits: fetch, set, swap and
 * compare-swap only). Sequentially consistent, which also orders them after this rank's earlier
 * puts and makes them the waker's half of mm_wait.h's Dekker pair. Inline by force: where op and
 * size are constants (every typed OpenSHMEM routine) the switch folds to one instruction.
 */
#define MM_SHM_AMO_INT(T)                                                                          \
    MM_INLINE_HOT T mm_shm_amo_##T(T *p, meshmem_amo_op_t op, T v, T c)                            \
    {                                                                                              \
        T old = 0;                                                                                 \
        switch (op) {                                                                              \
        case MESHMEM_AMO_FETCH: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                 \
        case MESHMEM_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;                     \
        case MESHMEM_AMO_SWAP: old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;           \
        case MESHMEM_AMO_CSWAP:                                                                    \
            old = c;                                                                               \
            __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
            break;                                                                                 \
        case MESHMEM_AMO_ADD: old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;             \
        case MESHMEM_AMO_AND: old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;             \
        case MESHMEM_AMO_OR: old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;               \
        case MESHMEM_AMO_XOR: old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;             \
        }                                                                                          \
        return old;                                                                                \
    }
MM_SHM_AMO_INT(uint8_t)
MM_SHM_AMO_INT(uint16_t)
MM_SHM_AMO_INT(uint32_t)
MM_SHM_AMO_INT(uint64_t)
#undef MM_SHM_AMO_INT

/**
 * @brief Atomic @p op on the @p size-byte word (1, 2, 4 or 8, naturally aligned) at @p p, a
 * mapping of the node: @p v and @p c (CSWAP's condition) and the result are the word's bits in
 * the low bytes of a uint64_t. @return the word's value before the operation (0 for SET).
 */
MM_INLINE_HOT uint64_t mm_shm_amo(void *p, meshmem_amo_op_t op, size_t size, uint64_t v, uint64_t c)
{
    switch (size) {
    case 1: return mm_shm_amo_uint8_t(p, op, (uint8_t)v, (uint8_t)c);
    case 2: return mm_shm_amo_uint16_t(p, op, (uint16_t)v, (uint16_t)c);
    case 4: return mm_shm_amo_uint32_t(p, op, (uint32_t)v, (uint32_t)c);
    default: return mm_shm_amo_uint64_t(p, op, v, c);
    }
}

#endif /* MM_SHM_OPS_H */
