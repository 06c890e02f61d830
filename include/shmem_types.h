/**
 * @file shmem_types.h
 * @brief The OpenSHMEM 1.5 type tables, as X-macros: one source for declarations, definitions
 * and the C11 _Generic selections. Each entry is X(CTYPE, TYPENAME).
 *
 * Table numbers are those of the OpenSHMEM 1.5 specification.
 */
#ifndef MESHMEM_SHMEM_TYPES_H
#define MESHMEM_SHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table 5: standard RMA types (put, get, p, g, iput, iget, nbi, broadcast, collect, alltoall) */
#define SHMEM_RMA_TYPES(X)                                                                         \
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
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Table 6: standard AMO types (all AMOs) */
#define SHMEM_AMO_STANDARD_TYPES(X)                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Table 7: extended AMO types (fetch, set, swap): the standard ones plus float and double */
#define SHMEM_AMO_EXTENDED_TYPES(X)                                                                \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    SHMEM_AMO_STANDARD_TYPES(X)

/* Table 8: bitwise AMO types (and, or, xor and their fetching forms) */
#define SHMEM_AMO_BITWISE_TYPES(X)                                                                 \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)

/* Table 9 (1.4 names, deprecated): the AMO types of shmem_int_fadd and friends */
#define SHMEM_AMO_DEPRECATED_TYPES(X)                                                              \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)

/* Table 12: point-to-point synchronization types (wait_until, test families) */
#define SHMEM_P2P_TYPES(X)                                                                         \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Table 10: reduction types; bitwise (and, or, xor) */
#define SHMEM_REDUCE_BITWISE_TYPES(X)                                                              \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)

/* Table 10: reduction types; min and max */
#define SHMEM_REDUCE_MINMAX_TYPES(X)                                                               \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(ptrdiff_t, ptrdiff)                                                                          \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)

/* Table 10: reduction types; sum and prod: min/max types plus the complex ones */
#define SHMEM_REDUCE_ARITH_TYPES(X)                                                                \
    SHMEM_REDUCE_MINMAX_TYPES(X)                                                                   \
    X(double _Complex, complexd)                                                                   \
    X(float _Complex, complexf)

/* OpenSHMEM 1.4 active-set reductions (shmem_TYPENAME_OP_to_all), deprecated in 1.5 */
#define SHMEM_TO_ALL_BITWISE_TYPES(X)                                                              \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)
#define SHMEM_TO_ALL_MINMAX_TYPES(X)                                                               \
    SHMEM_TO_ALL_BITWISE_TYPES(X)                                                                  \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)
#define SHMEM_TO_ALL_ARITH_TYPES(X)                                                                \
    SHMEM_TO_ALL_MINMAX_TYPES(X)                                                                   \
    X(double _Complex, complexd)                                                                   \
    X(float _Complex, complexf)

/* Sized RMA forms: shmem_put8/16/32/64/128, shmem_get..., shmem_iput... (bits, bytes) */
#define SHMEM_SIZED_TYPES(X)                                                                       \
    X(8, 1)                                                                                        \
    X(16, 2)                                                                                       \
    X(32, 4)                                                                                       \
    X(64, 8)                                                                                       \
    X(128, 16)

#endif /* MESHMEM_SHMEM_TYPES_H */
