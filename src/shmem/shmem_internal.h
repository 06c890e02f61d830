/**
 * @file shmem_internal.h
 * @brief Internals of the OpenSHMEM point-to-point layer (RMA, AMOs, signals, waits, locks,
 * contexts): the context object, the checks of contexts and comparisons, and the macros that
 * define a routine and its context form from one body.
 *
 * The layer is a typed shell: RMA, AMOs and signals are one call each of the native
 * operations (src/rma/mm_rma.h: one translation, one strided copy, one AMO switch), which
 * check the call's arguments and name the routine in their messages, as "shmem_int_put: PE
 * argument (9) is invalid".
 */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include "mm_core.h"
#include "mm_wait.h"
#include "shmem.h"
#include "shmem_profiled.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/**
 * A context. PEs given to its operations are numbers in its team; the team's geometry is
 * copied here at creation (world PE = start + pe * stride), so an operation needs no team
 * lookup and a context stays usable for its own lifetime. Written only at creation.
 *
 * Every context but SHMEM_CTX_DEFAULT is a slot of one array the library owns
 * (shmemi_ctx_pool), so that a handle is checked before it is read: it must be the default
 * context or a slot's address (a range and an alignment, one mask), and a made-up pointer ends
 * the job with a line instead of a SIGSEGV. A slot never handed out has team NULL and size 0.
 */
struct shmem_ctx_s {
    _Alignas(64) int start; /* the struct aligned: one slot of 64 bytes */
    int stride, size;
    long options;
    shmem_team_t team;
    struct shmem_ctx_s *next; /* the destroyed slots, reused by the next create */
};

/* the slots of shmemi_ctx_pool: a power of two of 64-byte slots (1 MiB of address space,
 * touched only as far as contexts were created) */
#define SHMEMI_CTX_SLOTS 16384
static_assert(sizeof(struct shmem_ctx_s) == 64, "a context is one 64-byte slot");
/* hidden: its address is a constant of the library (one lea), not a load from the GOT */
extern struct shmem_ctx_s shmemi_ctx_pool[SHMEMI_CTX_SLOTS] __attribute__((visibility("hidden")));

/** @return true when @p ctx is SHMEM_CTX_DEFAULT or a slot of shmemi_ctx_pool: then it may be
 * read (never for SHMEM_CTX_INVALID or a made-up pointer). One compare, then one mask: the
 * offset from the pool must be below its size and a multiple of a slot. The default context is
 * compared apart: a program's executable usually holds its copy (a copy relocation), outside
 * the pool. In a loop of 8-byte shmem_ctx_long_put to a peer of the node (3.2 ns a call) this
 * cost 0.05-0.3 ns with SHMEM_CTX_DEFAULT and 0.3-0.4 ns (about a cycle) with a created context
 * over four runs; testing the pool first made the default's 0.5 ns, and both tests without a
 * branch (a cmov) 0.45 ns each. */
static inline bool shmemi_ctx_readable(shmem_ctx_t ctx)
{
    uintptr_t off = (uintptr_t)ctx - (uintptr_t)shmemi_ctx_pool;
    return ctx == SHMEM_CTX_DEFAULT ||
           (off & ~(uintptr_t)(sizeof(shmemi_ctx_pool) - sizeof(shmemi_ctx_pool[0]))) == 0;
}

/* the options of a destroyed context: its slot keeps them (size 0: every PE is out of its
 * team) until a create reuses it, so that a call on it says so (shmemi_ctx_fatal) */
#define SHMEMI_CTX_DEAD (-1L)

/** @brief Set up SHMEM_CTX_DEFAULT on the world team (after meshmem_init). */
void shmemi_ctx_default_init(void);

/** @brief Free the contexts the program did not destroy (shmem_finalize releases them). */
void shmemi_ctx_fini(void);

#define SHMEMI_COLD __attribute__((cold, noinline))
/* the hot paths: inlined into every typed routine even where GCC counts too many callers */
#define SHMEMI_INLINE MM_INLINE_HOT

/** @brief End the job: @p call was given SHMEM_CTX_INVALID, a destroyed or made-up context, or
 * a bad PE for its context. */
void shmemi_ctx_fatal(const char *call, shmem_ctx_t ctx, int pe)
    __attribute__((noreturn)) SHMEMI_COLD;

/** @brief End the job: @p cmp is not a SHMEM_CMP_* value. */
void shmemi_cmp_fatal(const char *call, int cmp) __attribute__((noreturn)) SHMEMI_COLD;

/** @return the world PE of @p ctx's team PE @p pe; ends the job on a bad context or PE (a
 * destroyed context has size 0, a slot never created too: every PE is out of their team). */
SHMEMI_INLINE int shmemi_ctx_pe(const char *call, shmem_ctx_t ctx, int pe)
{
    if (MM_UNLIKELY(!shmemi_ctx_readable(ctx) || (unsigned)pe >= (unsigned)ctx->size))
        shmemi_ctx_fatal(call, ctx, pe);
    return ctx->start + pe * ctx->stride;
}

/** @brief End the job when @p cmp is not one of SHMEM_CMP_EQ .. SHMEM_CMP_GE. */
static inline void shmemi_check_cmp(const char *call, int cmp)
{
    if (MM_UNLIKELY((unsigned)cmp - SHMEM_CMP_EQ > (unsigned)(SHMEM_CMP_GE - SHMEM_CMP_EQ)))
        shmemi_cmp_fatal(call, cmp);
}

/** Compare @p a with @p b by SHMEM_CMP_* @p cmp (validated by the caller). */
#define SHMEMI_COMPARE(a, cmp, b)                                                                  \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)                                                          \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b)                                                          \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)                                                           \
     : (cmp) == SHMEM_CMP_LE ? (a) <= (b)                                                          \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)                                                           \
                             : (a) >= (b))

/**
 * Wait until the value of @p LOAD (an atomic load, evaluated once per poll and assigned to
 * @p V) compares @p CMP (validated) to @p C: one wait loop per comparison, so that a poll is a
 * load, one compare and a pause (MM_WAIT_UNTIL polls inline before it steps).
 */
#define SHMEMI_WAIT_CMP(V, LOAD, CMP, C)                                                           \
    switch (CMP) {                                                                                 \
    case SHMEM_CMP_EQ: MM_WAIT_UNTIL(((V) = (LOAD)) == (C)); break;                                \
    case SHMEM_CMP_NE: MM_WAIT_UNTIL(((V) = (LOAD)) != (C)); break;                                \
    case SHMEM_CMP_GT: MM_WAIT_UNTIL(((V) = (LOAD)) > (C)); break;                                 \
    case SHMEM_CMP_LE: MM_WAIT_UNTIL(((V) = (LOAD)) <= (C)); break;                                \
    case SHMEM_CMP_LT: MM_WAIT_UNTIL(((V) = (LOAD)) < (C)); break;                                 \
    default: MM_WAIT_UNTIL(((V) = (LOAD)) >= (C)); break;                                          \
    }

/*
 * Defining a routine and its context form from one body. BODY(CALL, T, PE) is a macro that
 * uses the routine's parameters (by name) and PE, the world PE (an expression: evaluate it
 * once); CALL is the routine's name for messages; T the element type. The parameter list is
 * the variadic part, without the context; every routine's PE parameter is named pe.
 */
#define SHMEMI_DEFINE(RET, NAME, BODY, T, ...)                                                     \
    RET shmem_##NAME(__VA_ARGS__)                                                                  \
    {                                                                                              \
        BODY("shmem_" #NAME, T, pe);                                                               \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##NAME)
#define SHMEMI_DEFINE_CTX(RET, NAME, BODY, T, ...)                                                 \
    RET shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__)                                             \
    {                                                                                              \
        BODY("shmem_ctx_" #NAME, T, shmemi_ctx_pe("shmem_ctx_" #NAME, ctx, pe));                   \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_ctx_##NAME)
#define SHMEMI_DEFINE_PAIR(RET, NAME, BODY, T, ...)                                                \
    SHMEMI_DEFINE(RET, NAME, BODY, T, __VA_ARGS__)                                                 \
    SHMEMI_DEFINE_CTX(RET, NAME, BODY, T, __VA_ARGS__)

#endif /* SHMEM_INTERNAL_H */
