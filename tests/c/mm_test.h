/**
 * @file mm_test.h
 * @brief Tiny helpers for meshmem's C tests: checks that name the rank, file and line and end
 * the job with a non-zero status (meshrun then stops every rank).
 */
#ifndef MM_TEST_H
#define MM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern int mm_test_rank_hint; /* set by the test to its rank for messages */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: CHECK failed: %s\n", mm_test_rank_hint, __FILE__,    \
                    __LINE__, #cond);                                                              \
            fflush(NULL);                                                                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_LL(a, b)                                                                          \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "[rank %d] %s:%d: CHECK failed: %s == %s (%lld != %lld)\n",            \
                    mm_test_rank_hint, __FILE__, __LINE__, #a, #b, a_, b_);                        \
            fflush(NULL);                                                                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

#endif /* MM_TEST_H */
