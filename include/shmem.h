/**
 * @file shmem.h
 * @brief The OpenSHMEM 1.5 C API of meshmem.
 *
 * A thin layer over the native API (meshmem.h): every PE maps every peer's symmetric heap and
 * static data, so a put is a store into the peer's memory, a get a load from it, an atomic a
 * hardware atomic on the peer's copy. Every operation is therefore complete on return; the
 * non-blocking (_nbi) forms complete immediately, which the standard allows.
 *
 * The typed routines (shmem_TYPENAME_put, ...) are declared from the type tables of
 * shmem_types.h (the table numbers are the specification's); the C11 type-generic macros
 * (shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, source, nelems, pe)) are built
 * from the C11 tables below, which list each C type once (int32_t is int, and so on: _Generic
 * rejects compatible types twice).
 *
 * Teams and collectives are declared in shmem_coll.h, included at the end. C++ (meshc++) gets
 * the generic routines as overloads instead (shmem_cxx.h, also included at the end).
 */
#ifndef MESHMEM_SHMEM_H
#define MESHMEM_SHMEM_H

#include "meshmem.h"
#include "shmem_types.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what this header declares is libmeshmem's API: exported, while everything else in the
 * library is hidden (built with -fvisibility=hidden) */
#pragma GCC visibility push(default)

/* ------------------------------------------------------------------------------------------ */
/* Library constants (OpenSHMEM 1.5 section 9.1)                                               */
/* ------------------------------------------------------------------------------------------ */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN  256
#define SHMEM_VENDOR_STRING "meshmem"

#define SHMEM_THREAD_SINGLE     MESHMEM_THREAD_SINGLE
#define SHMEM_THREAD_FUNNELED   MESHMEM_THREAD_FUNNELED
#define SHMEM_THREAD_SERIALIZED MESHMEM_THREAD_SERIALIZED
#define SHMEM_THREAD_MULTIPLE   MESHMEM_THREAD_MULTIPLE

/* comparisons of the wait and test routines */
#define SHMEM_CMP_EQ MESHMEM_CMP_EQ
#define SHMEM_CMP_NE MESHMEM_CMP_NE
#define SHMEM_CMP_GT MESHMEM_CMP_GT
#define SHMEM_CMP_LE MESHMEM_CMP_LE
#define SHMEM_CMP_LT MESHMEM_CMP_LT
#define SHMEM_CMP_GE MESHMEM_CMP_GE

/* signal update operations of shmem_put_signal */
#define SHMEM_SIGNAL_SET MESHMEM_SIGNAL_SET
#define SHMEM_SIGNAL_ADD MESHMEM_SIGNAL_ADD

/* context options: accepted and recorded; every context completes its operations on return */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE    (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

/* shmem_malloc_with_hints hints: every symmetric byte already supports remote atomics/signals */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/*
 * pSync / pWrk of the deprecated active-set collectives. meshmem's collectives synchronise in
 * the team sync slots of the symmetric heap; pSync only carries the agreement on an active
 * set's team (SHMEM_ASET_PSYNC_WORDS words, see shmem_coll.h), so one size fits every routine
 * and a program may reuse one pSync for every kind of collective. pWrk is not used.
 */
#define SHMEM_SYNC_VALUE              0L
#define SHMEM_SYNC_SIZE               8
#define SHMEM_BARRIER_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE         SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE      SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE     SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* deprecated spellings of the constants (OpenSHMEM 1.5 Annex: still accepted) */
#define _SHMEM_MAJOR_VERSION           SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION           SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN            SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING           SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ                  SHMEM_CMP_EQ
#define _SHMEM_CMP_NE                  SHMEM_CMP_NE
#define _SHMEM_CMP_GT                  SHMEM_CMP_GT
#define _SHMEM_CMP_LE                  SHMEM_CMP_LE
#define _SHMEM_CMP_LT                  SHMEM_CMP_LT
#define _SHMEM_CMP_GE                  SHMEM_CMP_GE
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ------------------------------------------------------------------------------------------ */
/* Handles: teams and contexts                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** A team: meshmem's team handle. */
typedef struct meshmem_team *shmem_team_t;

/** Team configuration (shmem_team_split_strided / split_2d / get_config). */
typedef struct {
    int num_contexts; /**< contexts the team is expected to create (a hint) */
} shmem_team_config_t;

/** config_mask bit: shmem_team_config_t.num_contexts is set. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

#define SHMEM_TEAM_WORLD   MESHMEM_TEAM_WORLD
#define SHMEM_TEAM_SHARED  MESHMEM_TEAM_SHARED
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/** A communication context: a team and options (see shmem_ctx_create). */
typedef struct shmem_ctx_s *shmem_ctx_t;

/** The default context (on the world team), defined by the library. */
extern struct shmem_ctx_s meshmem_shmem_ctx_default;
#define SHMEM_CTX_DEFAULT (&meshmem_shmem_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ------------------------------------------------------------------------------------------ */
/* C11 type tables: one C type per entry, for _Generic (see the file comment)                  */
/* ------------------------------------------------------------------------------------------ */

/** Table 5, one entry per distinct C type. */
#define SHMEM_C11_RMA_TYPES(X)                                                                     \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)                                                                     \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)

/** Table 6, one entry per distinct C type. */
#define SHMEM_C11_AMO_STANDARD_TYPES(X)                                                            \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)

/** Table 7, one entry per distinct C type. */
#define SHMEM_C11_AMO_EXTENDED_TYPES(X)                                                            \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    SHMEM_C11_AMO_STANDARD_TYPES(X)

/** Table 8, one entry per distinct C type (int32_t and int64_t stand for int and long). */
#define SHMEM_C11_AMO_BITWISE_TYPES(X)                                                             \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)

/** Table 12, one entry per distinct C type. */
#define SHMEM_C11_P2P_TYPES(X)                                                                     \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)

/** The 1.4 AMO names (shmem_int_fadd, ...) that also exist for float and double. */
#define SHMEM_AMO_DEPRECATED_EXTENDED_TYPES(X)                                                     \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    SHMEM_AMO_DEPRECATED_TYPES(X)

/* ------------------------------------------------------------------------------------------ */
/* Setup, exit and query (9.2)                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** @brief Initialise the library (collective); maps every PE's symmetric memory. */
void shmem_init(void);

/**
 * @brief Initialise with a thread level (collective).
 * @param [in]  requested SHMEM_THREAD_*
 * @param [out] provided  the level provided (always SHMEM_THREAD_MULTIPLE); may be NULL
 * @return 0 on success.
 */
int shmem_init_thread(int requested, int *provided);

/** @brief The thread level provided by shmem_init / shmem_init_thread. */
void shmem_query_thread(int *provided);

/** @brief Finalise (collective): a barrier, then the symmetric memory is released. */
void shmem_finalize(void);

/** @brief End every PE of the job with @p status. Never returns. */
void shmem_global_exit(int status) __attribute__((noreturn));

/** @return this PE's number, 0..shmem_n_pes()-1. */
int shmem_my_pe(void);

/** @return the number of PEs of the job. */
int shmem_n_pes(void);

/** @return 1 when @p pe can be reached by RMA and AMOs from this PE, else 0. */
int shmem_pe_accessible(int pe);

/** @return 1 when symmetric @p addr is accessible on @p pe, else 0. */
int shmem_addr_accessible(const void *addr, int pe);

/**
 * @return a local address through which this PE can load and store @p pe's copy of symmetric
 * @p dest (every PE of the node is mapped), or NULL when @p dest is not symmetric.
 */
void *shmem_ptr(const void *dest, int pe);

/** @brief The OpenSHMEM version implemented: 1.5. */
void shmem_info_get_version(int *major, int *minor);

/** @brief Copy the vendor string (at most SHMEM_MAX_NAME_LEN bytes, terminated) to @p name. */
void shmem_info_get_name(char *name);

/** @brief Profiling control (OpenSHMEM 1.5 9.14): meshmem has no profiling levels; no effect. */
void shmem_pcontrol(const int level, ...);

/** @deprecated 1.5 Annex: use shmem_init. @p npes is ignored. */
void start_pes(int npes);
/** @deprecated use shmem_my_pe. */
int _my_pe(void);
/** @deprecated use shmem_n_pes. */
int _num_pes(void);

/**
 * @deprecated Cache management routines of OpenSHMEM 1.2. meshmem's memory is cache coherent,
 * so they have no effect, as the specification allows.
 */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

/* ------------------------------------------------------------------------------------------ */
/* Memory management (9.3); every call is collective and ends with a barrier                  */
/* ------------------------------------------------------------------------------------------ */

/** @return @p size bytes of symmetric memory, or NULL for size 0 or an exhausted heap. */
void *shmem_malloc(size_t size);
/** @brief Like shmem_malloc; @p hints (SHMEM_MALLOC_*) need nothing special here. */
void *shmem_malloc_with_hints(size_t size, long hints);
/** @return symmetric memory for @p count elements of @p size bytes, zeroed. */
void *shmem_calloc(size_t count, size_t size);
/** @return @p size bytes of symmetric memory aligned to @p alignment (a power of two). */
void *shmem_align(size_t alignment, size_t size);
/** @brief Resize a symmetric block; the contents are kept up to the smaller size. */
void *shmem_realloc(void *ptr, size_t size);
/** @brief Release a symmetric block; NULL is a no-op (still collective). */
void shmem_free(void *ptr);

/** @deprecated 1.5 Annex: shmem_malloc, shmem_free, shmem_realloc, shmem_align. */
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ------------------------------------------------------------------------------------------ */
/* Contexts (9.5)                                                                              */
/* ------------------------------------------------------------------------------------------ */

/**
 * @brief Create a context on the world team.
 * @param [in]  options  0 or SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE
 * @param [out] ctx      the new context, or SHMEM_CTX_INVALID on failure
 * @return 0 on success, non-zero for unknown options or no memory.
 */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);

/**
 * @brief Create a context on @p team: PE numbers given to its operations are team PE numbers.
 * @return 0 on success; non-zero (and *ctx = SHMEM_CTX_INVALID) for SHMEM_TEAM_INVALID, unknown
 * options or no memory.
 */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);

/** @brief Complete the context's operations (quiet) and release it. SHMEM_CTX_INVALID: no-op. */
void shmem_ctx_destroy(shmem_ctx_t ctx);

/**
 * @brief The team of @p ctx (SHMEM_TEAM_WORLD for SHMEM_CTX_DEFAULT).
 * @return 0, or non-zero with *team = SHMEM_TEAM_INVALID for SHMEM_CTX_INVALID.
 */
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ------------------------------------------------------------------------------------------ */
/* RMA (9.6): put, p, iput, get, g, iget and the non-blocking put_nbi, get_nbi                 */
/* ------------------------------------------------------------------------------------------ */

/*
 * Table 5 types. Every routine has a context form shmem_ctx_TYPENAME_OP(ctx, ...) whose PE is
 * numbered in the context's team.
 *  put:  copy nelems elements from local source to symmetric dest on pe (complete on return).
 *  p:    store one value into symmetric dest on pe.
 *  iput: strided put; dst and sst are strides in elements.
 *  get:  copy nelems elements from symmetric source on pe into local dest.
 *  g:    load one value of symmetric source on pe.
 *  iget: strided get.
 *  put_nbi, get_nbi: like put and get (they complete immediately, which nbi allows).
 */
#define SHMEM_DECL_RMA_(T, N)                                                                      \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                         \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);    \
    void shmem_##N##_p(T *dest, T value, int pe);                                                  \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                             \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe);                                                                 \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                         \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);    \
    T shmem_##N##_g(const T *source, int pe);                                                      \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                                 \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe);                                                                 \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe);                                                          \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_RMA_)
#undef SHMEM_DECL_RMA_

/* Sized forms: elements of BITS bits (8, 16, 32, 64, 128), same semantics as the typed ones. */
#define SHMEM_DECL_RMA_SIZED_(BITS, BYTES)                                                         \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                   \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                             int pe);                                                              \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe);                                                  \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                   \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                             int pe);                                                              \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe);                                                  \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);             \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   int pe);                                                        \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);             \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   int pe);
SHMEM_SIZED_TYPES(SHMEM_DECL_RMA_SIZED_)
#undef SHMEM_DECL_RMA_SIZED_

/** @brief Byte forms: put, get and their nbi and context forms; nelems counts bytes. */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);

/* ------------------------------------------------------------------------------------------ */
/* Signals (9.7)                                                                               */
/* ------------------------------------------------------------------------------------------ */

/*
 * put_signal: put nelems elements to dest on pe, then update the 64-bit sig_addr on pe with
 * signal (sig_op SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD); a PE that sees the signal sees the data.
 * Typed (Table 5), sized and mem forms, each with _nbi and context forms.
 */
#define SHMEM_DECL_SIGNAL_(T, N)                                                                   \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                uint64_t signal, int sig_op, int pe);                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe);                          \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_SIGNAL_)
#undef SHMEM_DECL_SIGNAL_

#define SHMEM_DECL_SIGNAL_SIZED_(BITS, BYTES)                                                      \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,                   \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);        \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,             \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,          \
                                      int sig_op, int pe);                                         \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,               \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);    \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
                                          int sig_op, int pe);
SHMEM_SIZED_TYPES(SHMEM_DECL_SIGNAL_SIZED_)
#undef SHMEM_DECL_SIGNAL_SIZED_

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/** @return the value of local signal @p sig_addr (an atomic load). */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);

/**
 * @brief Wait until local signal @p sig_addr compares @p cmp (SHMEM_CMP_*) to @p cmp_value.
 * @return the signal's value that satisfied the comparison.
 */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ------------------------------------------------------------------------------------------ */
/* Atomic memory operations (9.8)                                                              */
/* ------------------------------------------------------------------------------------------ */

/*
 * Every AMO is a hardware atomic on pe's copy of symmetric dest (sequentially consistent), with
 * a context form shmem_ctx_TYPENAME_atomic_OP(ctx, ...) and, for the fetching ones, a
 * non-blocking form ..._nbi(fetch, ...) that stores the fetched value in local *fetch.
 */

/* Table 7 (extended types): fetch, set, swap. */
#define SHMEM_DECL_AMO_EXTENDED_(T, N)                                                             \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                           \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                      \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                          \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);     \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                         \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                           \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                      \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                          \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
SHMEM_AMO_EXTENDED_TYPES(SHMEM_DECL_AMO_EXTENDED_)
#undef SHMEM_DECL_AMO_EXTENDED_

/* Table 6 (standard types): compare_swap, fetch_inc, inc, fetch_add, add. */
#define SHMEM_DECL_AMO_STANDARD_(T, N)                                                             \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                           \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);      \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);          \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,       \
                                                 T value, int pe);                                 \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                               \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                          \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);         \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                                  \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                             \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                      \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);                 \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                     \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,         \
                                              int pe);                                             \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                         \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);
SHMEM_AMO_STANDARD_TYPES(SHMEM_DECL_AMO_STANDARD_)
#undef SHMEM_DECL_AMO_STANDARD_

/* Table 8 (bitwise types): fetch_and, and, fetch_or, or, fetch_xor, xor. */
#define SHMEM_DECL_AMO_BITWISE_OP_(T, N, OP)                                                       \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                     \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                  \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,      \
                                                 int pe);                                          \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                        \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);
#define SHMEM_DECL_AMO_BITWISE_(T, N)                                                              \
    SHMEM_DECL_AMO_BITWISE_OP_(T, N, and)                                                          \
    SHMEM_DECL_AMO_BITWISE_OP_(T, N, or)                                                           \
    SHMEM_DECL_AMO_BITWISE_OP_(T, N, xor)
SHMEM_AMO_BITWISE_TYPES(SHMEM_DECL_AMO_BITWISE_)
#undef SHMEM_DECL_AMO_BITWISE_
#undef SHMEM_DECL_AMO_BITWISE_OP_

/* Deprecated 1.4 names (1.5 Annex): cswap, finc, inc, fadd, add on int, long, long long ... */
#define SHMEM_DECL_AMO_DEPRECATED_(T, N)                                                           \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                                         \
    T shmem_##N##_finc(T *dest, int pe);                                                           \
    void shmem_##N##_inc(T *dest, int pe);                                                         \
    T shmem_##N##_fadd(T *dest, T value, int pe);                                                  \
    void shmem_##N##_add(T *dest, T value, int pe);
SHMEM_AMO_DEPRECATED_TYPES(SHMEM_DECL_AMO_DEPRECATED_)
#undef SHMEM_DECL_AMO_DEPRECATED_

/* ... and fetch, set, swap, also on float and double. */
#define SHMEM_DECL_AMO_DEPRECATED_EXTENDED_(T, N)                                                  \
    T shmem_##N##_fetch(const T *source, int pe);                                                  \
    void shmem_##N##_set(T *dest, T value, int pe);                                                \
    T shmem_##N##_swap(T *dest, T value, int pe);
SHMEM_AMO_DEPRECATED_EXTENDED_TYPES(SHMEM_DECL_AMO_DEPRECATED_EXTENDED_)
#undef SHMEM_DECL_AMO_DEPRECATED_EXTENDED_

/* ------------------------------------------------------------------------------------------ */
/* Point-to-point synchronization (9.10), Table 12 types                                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * ivar / ivars are local symmetric variables written by other PEs; cmp is a SHMEM_CMP_*.
 * status (may be NULL): status[i] != 0 excludes ivars[i].
 *  wait_until:      block until *ivar cmp cmp_value.
 *  wait_until_all:  block until every included ivars[i] satisfies.
 *  wait_until_any:  block until one does; return its index (SIZE_MAX when none is included).
 *  wait_until_some: block until at least one does; store every satisfied index in indices and
 *                   return their number (0 when none is included).
 *  ..._vector:      element i is compared with cmp_values[i].
 *  test, test_all, test_any, test_some (and _vector): the same, without blocking (test and
 *                   test_all return 1 or 0; test_any SIZE_MAX and test_some 0 when none yet).
 * Waiting spins briefly, then yields, then sleeps until a peer writes to this PE.
 */
#define SHMEM_DECL_P2P_(T, N)                                                                      \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                    \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value);                                                  \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value);                                                \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value);                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values);                                         \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values);                                       \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values);          \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                           \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);    \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value);                                            \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values);                                                \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values);                                             \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values);                \
    /** @deprecated wait while *ivar == cmp_value: use shmem_wait_until(ivar, SHMEM_CMP_NE, v) */  \
    void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEM_P2P_TYPES(SHMEM_DECL_P2P_)
#undef SHMEM_DECL_P2P_

/** @deprecated The C (not C11) forms on long of 1.5 9.10.1: shmem_long_wait_until, shmem_long_wait.
 * A C11 program reaches the generic routines of the same names (below). */
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
void shmem_wait(long *ivar, long cmp_value);

/* ------------------------------------------------------------------------------------------ */
/* Memory ordering (9.11) and distributed locking (9.12)                                       */
/* ------------------------------------------------------------------------------------------ */

/** @brief Order: puts, AMOs and signals to a PE issued before arrive before those after. */
void shmem_fence(void);
/** @brief shmem_fence for the operations of @p ctx. */
void shmem_ctx_fence(shmem_ctx_t ctx);
/** @brief Complete every put, AMO and signal issued before. */
void shmem_quiet(void);
/** @brief shmem_quiet for the operations of @p ctx. */
void shmem_ctx_quiet(shmem_ctx_t ctx);

/**
 * @brief Acquire the distributed lock @p lock (a symmetric long, 0 on every PE before first
 * use). Locks are granted in request order (an MCS queue: each waiter sleeps on its own copy).
 */
void shmem_set_lock(long *lock);
/** @brief Complete this PE's operations (quiet), then release @p lock to the next in line. */
void shmem_clear_lock(long *lock);
/** @return 0 when @p lock was free and is now held by this PE, 1 when it is held elsewhere. */
int shmem_test_lock(long *lock);

/* ------------------------------------------------------------------------------------------ */
/* C11 type-generic interfaces                                                                 */
/* ------------------------------------------------------------------------------------------ */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

/*
 * A generic routine with a context form is selected on its first argument: a shmem_ctx_t picks
 * the context family, dispatched on the second argument; anything else is dispatched on the
 * first argument itself. &*(p) turns an array argument into a pointer; (p) + 0 does the same
 * for the second argument, which may also be a scalar. An argument of no listed type selects
 * shmem_c11_type_not_supported, which takes no arguments: the call does not compile.
 */
void shmem_c11_type_not_supported(void);
#define SHMEM_C11_ARG0_(a, ...) a
#define SHMEM_C11_ARG0(...)     SHMEM_C11_ARG0_(__VA_ARGS__, _extra)
#define SHMEM_C11_ARG1(a, ...)  SHMEM_C11_ARG0_(__VA_ARGS__, _extra)

/*
 * The dispatch tables: the C11 tables again, under names of their own. A macro is not expanded
 * inside its own expansion, so if the generic macros used SHMEM_C11_RMA_TYPES, a program could
 * not call shmem_put inside code it generates with SHMEM_C11_RMA_TYPES (as the tests do).
 */
/* clang-format off */
#define SHMEMI_C11_RMA(X)                                                                          \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                     \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)         \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                        \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_C11_AMO_STANDARD(X)                                                                 \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                         \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_C11_AMO_EXTENDED(X) X(float, float) X(double, double) SHMEMI_C11_AMO_STANDARD(X)
#define SHMEMI_C11_AMO_BITWISE(X)                                                                  \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                 \
    X(int32_t, int32) X(int64_t, int64)
#define SHMEMI_C11_P2P(X)                                                                          \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)     \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_C11_AMO_DEPRECATED(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMI_C11_AMO_DEPRECATED_EXTENDED(X)                                                      \
    X(float, float) X(double, double) SHMEMI_C11_AMO_DEPRECATED(X)
/* clang-format on */

/* dispatch OP over TABLE, with or without a leading context */
#define SHMEM_C11_CTX_DISPATCH(TABLE, OP, ...)                                                     \
    _Generic(&*(SHMEM_C11_ARG0(__VA_ARGS__)), shmem_ctx_t                                          \
             : _Generic((SHMEM_C11_ARG1(__VA_ARGS__)) + 0, TABLE(SHMEM_C11_CTX_##OP##_) default    \
                        : shmem_c11_type_not_supported),                                           \
               TABLE(SHMEM_C11_##OP##_) default                                                    \
             : shmem_c11_type_not_supported)(__VA_ARGS__)
/* dispatch OP over TABLE on the first argument (routines without a context form) */
#define SHMEM_C11_DISPATCH(TABLE, OP, ...)                                                         \
    _Generic(&*(SHMEM_C11_ARG0(__VA_ARGS__)), TABLE(SHMEM_C11_##OP##_) default                     \
             : shmem_c11_type_not_supported)(__VA_ARGS__)

/* the association of each generic routine: T * selects the typed routine */
#define SHMEM_C11_ASSOC_(T, FN) T * : FN,
/* routines that read through the pointer also accept a pointer to const */
#define SHMEM_C11_ASSOC_RO_(T, FN) T * : FN, const T * : FN,

#define SHMEM_C11_put_(T, N)                SHMEM_C11_ASSOC_(T, shmem_##N##_put)
#define SHMEM_C11_CTX_put_(T, N)            SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_put)
#define SHMEM_C11_p_(T, N)                  SHMEM_C11_ASSOC_(T, shmem_##N##_p)
#define SHMEM_C11_CTX_p_(T, N)              SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_p)
#define SHMEM_C11_iput_(T, N)               SHMEM_C11_ASSOC_(T, shmem_##N##_iput)
#define SHMEM_C11_CTX_iput_(T, N)           SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_iput)
#define SHMEM_C11_get_(T, N)                SHMEM_C11_ASSOC_(T, shmem_##N##_get)
#define SHMEM_C11_CTX_get_(T, N)            SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_get)
#define SHMEM_C11_g_(T, N)                  SHMEM_C11_ASSOC_RO_(T, shmem_##N##_g)
#define SHMEM_C11_CTX_g_(T, N)              SHMEM_C11_ASSOC_RO_(T, shmem_ctx_##N##_g)
#define SHMEM_C11_iget_(T, N)               SHMEM_C11_ASSOC_(T, shmem_##N##_iget)
#define SHMEM_C11_CTX_iget_(T, N)           SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_iget)
#define SHMEM_C11_put_nbi_(T, N)            SHMEM_C11_ASSOC_(T, shmem_##N##_put_nbi)
#define SHMEM_C11_CTX_put_nbi_(T, N)        SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_put_nbi)
#define SHMEM_C11_get_nbi_(T, N)            SHMEM_C11_ASSOC_(T, shmem_##N##_get_nbi)
#define SHMEM_C11_CTX_get_nbi_(T, N)        SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_get_nbi)
#define SHMEM_C11_put_signal_(T, N)         SHMEM_C11_ASSOC_(T, shmem_##N##_put_signal)
#define SHMEM_C11_CTX_put_signal_(T, N)     SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_put_signal)
#define SHMEM_C11_put_signal_nbi_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_put_signal_nbi)
#define SHMEM_C11_CTX_put_signal_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_put_signal_nbi)

/** @brief Type-generic RMA: shmem_put([ctx,] dest, source, nelems, pe) and so on. */
#define shmem_put(...)     SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, put, __VA_ARGS__)
#define shmem_p(...)       SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, p, __VA_ARGS__)
#define shmem_iput(...)    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, iput, __VA_ARGS__)
#define shmem_get(...)     SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, get, __VA_ARGS__)
#define shmem_g(...)       SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, g, __VA_ARGS__)
#define shmem_iget(...)    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, iget, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, get_nbi, __VA_ARGS__)
/** @brief Type-generic put with signal: shmem_put_signal([ctx,] dest, source, nelems, ...). */
#define shmem_put_signal(...) SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...)                                                                  \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_RMA, put_signal_nbi, __VA_ARGS__)

#define SHMEM_C11_atomic_fetch_(T, N)         SHMEM_C11_ASSOC_RO_(T, shmem_##N##_atomic_fetch)
#define SHMEM_C11_CTX_atomic_fetch_(T, N)     SHMEM_C11_ASSOC_RO_(T, shmem_ctx_##N##_atomic_fetch)
#define SHMEM_C11_atomic_fetch_nbi_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_nbi)
#define SHMEM_C11_CTX_atomic_fetch_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_nbi)
#define SHMEM_C11_atomic_set_(T, N)           SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_set)
#define SHMEM_C11_CTX_atomic_set_(T, N)       SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_set)
#define SHMEM_C11_atomic_swap_(T, N)          SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_swap)
#define SHMEM_C11_CTX_atomic_swap_(T, N)      SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_swap)
#define SHMEM_C11_atomic_swap_nbi_(T, N)      SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_swap_nbi)
#define SHMEM_C11_CTX_atomic_swap_nbi_(T, N)  SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_swap_nbi)
#define SHMEM_C11_atomic_compare_swap_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_compare_swap)
#define SHMEM_C11_CTX_atomic_compare_swap_(T, N)                                                   \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_compare_swap)
#define SHMEM_C11_atomic_compare_swap_nbi_(T, N)                                                   \
    SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_compare_swap_nbi)
#define SHMEM_C11_CTX_atomic_compare_swap_nbi_(T, N)                                               \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_compare_swap_nbi)
#define SHMEM_C11_atomic_fetch_inc_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_inc)
#define SHMEM_C11_CTX_atomic_fetch_inc_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_inc)
#define SHMEM_C11_atomic_fetch_inc_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_inc_nbi)
#define SHMEM_C11_CTX_atomic_fetch_inc_nbi_(T, N)                                                  \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_inc_nbi)
#define SHMEM_C11_atomic_inc_(T, N)           SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_inc)
#define SHMEM_C11_CTX_atomic_inc_(T, N)       SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_inc)
#define SHMEM_C11_atomic_fetch_add_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_add)
#define SHMEM_C11_CTX_atomic_fetch_add_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_add)
#define SHMEM_C11_atomic_fetch_add_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_add_nbi)
#define SHMEM_C11_CTX_atomic_fetch_add_nbi_(T, N)                                                  \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_add_nbi)
#define SHMEM_C11_atomic_add_(T, N)           SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_add)
#define SHMEM_C11_CTX_atomic_add_(T, N)       SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_add)
#define SHMEM_C11_atomic_fetch_and_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_and)
#define SHMEM_C11_CTX_atomic_fetch_and_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_and)
#define SHMEM_C11_atomic_fetch_and_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_and_nbi)
#define SHMEM_C11_CTX_atomic_fetch_and_nbi_(T, N)                                                  \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_and_nbi)
#define SHMEM_C11_atomic_and_(T, N)          SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_and)
#define SHMEM_C11_CTX_atomic_and_(T, N)      SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_and)
#define SHMEM_C11_atomic_fetch_or_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_or)
#define SHMEM_C11_CTX_atomic_fetch_or_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_or)
#define SHMEM_C11_atomic_fetch_or_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_or_nbi)
#define SHMEM_C11_CTX_atomic_fetch_or_nbi_(T, N)                                                   \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_or_nbi)
#define SHMEM_C11_atomic_or_(T, N)            SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_or)
#define SHMEM_C11_CTX_atomic_or_(T, N)        SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_or)
#define SHMEM_C11_atomic_fetch_xor_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_xor)
#define SHMEM_C11_CTX_atomic_fetch_xor_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_xor)
#define SHMEM_C11_atomic_fetch_xor_nbi_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_fetch_xor_nbi)
#define SHMEM_C11_CTX_atomic_fetch_xor_nbi_(T, N)                                                  \
    SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_fetch_xor_nbi)
#define SHMEM_C11_atomic_xor_(T, N)     SHMEM_C11_ASSOC_(T, shmem_##N##_atomic_xor)
#define SHMEM_C11_CTX_atomic_xor_(T, N) SHMEM_C11_ASSOC_(T, shmem_ctx_##N##_atomic_xor)

/** @brief Type-generic AMOs: shmem_atomic_fetch_add([ctx,] dest, value, pe) and so on. */
#define shmem_atomic_fetch(...)                                                                    \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_EXTENDED, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                                                \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_EXTENDED, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_set(...)                                                                      \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_EXTENDED, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)                                                                     \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_EXTENDED, atomic_swap, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                                                 \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_EXTENDED, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                             \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                         \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                                                \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                            \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...)                                                                      \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                                                \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                            \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...)                                                                      \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_STANDARD, atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                                                \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                            \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_and(...)                                                                      \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                                                 \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                             \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                                                \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                            \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_fetch_xor_nbi, __VA_ARGS__)
#define shmem_atomic_xor(...)                                                                      \
    SHMEM_C11_CTX_DISPATCH(SHMEMI_C11_AMO_BITWISE, atomic_xor, __VA_ARGS__)

/* deprecated 1.4 generic AMO names (no context forms) */
#define SHMEM_C11_fetch_(T, N) SHMEM_C11_ASSOC_RO_(T, shmem_##N##_fetch)
#define SHMEM_C11_set_(T, N)   SHMEM_C11_ASSOC_(T, shmem_##N##_set)
#define SHMEM_C11_swap_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_swap)
#define SHMEM_C11_cswap_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_cswap)
#define SHMEM_C11_finc_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_finc)
#define SHMEM_C11_inc_(T, N)   SHMEM_C11_ASSOC_(T, shmem_##N##_inc)
#define SHMEM_C11_fadd_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_fadd)
#define SHMEM_C11_add_(T, N)   SHMEM_C11_ASSOC_(T, shmem_##N##_add)
/** @deprecated 1.4 generic AMOs: shmem_fadd(dest, value, pe) and so on. */
#define shmem_fetch(...) SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED_EXTENDED, fetch, __VA_ARGS__)
#define shmem_set(...)   SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED_EXTENDED, set, __VA_ARGS__)
#define shmem_swap(...)  SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED_EXTENDED, swap, __VA_ARGS__)
#define shmem_cswap(...) SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED, cswap, __VA_ARGS__)
#define shmem_finc(...)  SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED, finc, __VA_ARGS__)
#define shmem_inc(...)   SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED, inc, __VA_ARGS__)
#define shmem_fadd(...)  SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED, fadd, __VA_ARGS__)
#define shmem_add(...)   SHMEM_C11_DISPATCH(SHMEMI_C11_AMO_DEPRECATED, add, __VA_ARGS__)

/* point-to-point synchronization */
#define SHMEM_C11_wait_until_(T, N)      SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until)
#define SHMEM_C11_wait_until_all_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until_all)
#define SHMEM_C11_wait_until_any_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until_any)
#define SHMEM_C11_wait_until_some_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until_some)
#define SHMEM_C11_wait_until_all_vector_(T, N)                                                     \
    SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until_all_vector)
#define SHMEM_C11_wait_until_any_vector_(T, N)                                                     \
    SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until_any_vector)
#define SHMEM_C11_wait_until_some_vector_(T, N)                                                    \
    SHMEM_C11_ASSOC_(T, shmem_##N##_wait_until_some_vector)
#define SHMEM_C11_test_(T, N)             SHMEM_C11_ASSOC_(T, shmem_##N##_test)
#define SHMEM_C11_test_all_(T, N)         SHMEM_C11_ASSOC_(T, shmem_##N##_test_all)
#define SHMEM_C11_test_any_(T, N)         SHMEM_C11_ASSOC_(T, shmem_##N##_test_any)
#define SHMEM_C11_test_some_(T, N)        SHMEM_C11_ASSOC_(T, shmem_##N##_test_some)
#define SHMEM_C11_test_all_vector_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_test_all_vector)
#define SHMEM_C11_test_any_vector_(T, N)  SHMEM_C11_ASSOC_(T, shmem_##N##_test_any_vector)
#define SHMEM_C11_test_some_vector_(T, N) SHMEM_C11_ASSOC_(T, shmem_##N##_test_some_vector)
#define SHMEM_C11_wait_(T, N)             SHMEM_C11_ASSOC_(T, shmem_##N##_wait)

/** @brief Type-generic waits and tests: shmem_wait_until(ivar, cmp, cmp_value) and so on. */
#define shmem_wait_until(...)      SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...)  SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...)  SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)                                                           \
    SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)                                                           \
    SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)                                                          \
    SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...)            SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test, __VA_ARGS__)
#define shmem_test_all(...)        SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test_all, __VA_ARGS__)
#define shmem_test_any(...)        SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test_any, __VA_ARGS__)
#define shmem_test_some(...)       SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)                                                                \
    SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, test_some_vector, __VA_ARGS__)
/** @deprecated shmem_wait(ivar, cmp_value): wait while *ivar == cmp_value. */
#define shmem_wait(...) SHMEM_C11_DISPATCH(SHMEMI_C11_P2P, wait, __VA_ARGS__)

#endif /* C11 */

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* teams and collectives (their own header, written with the collectives) */
#include "shmem_coll.h"
/* C++: the generic routines as overloads */
#include "shmem_cxx.h"

#endif /* MESHMEM_SHMEM_H */
