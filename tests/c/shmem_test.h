/**
 * @file shmem_test.h
 * @brief Helpers of the OpenSHMEM tests: a check that names the PE, the line and what was
 * being tested, then ends the job with status 1 (meshrun stops the other PEs).
 */
#ifndef SHMEM_TEST_H
#define SHMEM_TEST_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* this PE, for messages; the job's size; the ring neighbours (set by test_neighbours) */
static int test_me = -1;
static int me, npes, right, left;

/** @brief After shmem_init: set me, npes and the ring neighbours right and left. */
static inline void test_neighbours(void)
{
    me = test_me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[PE %d] %s:%d: EXPECT(%s) failed: ", test_me, __FILE__, __LINE__,     \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fflush(NULL);                                                                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

/* a value of type T that depends on a PE and an index: small, exact in every type */
#define TEST_VAL(T, pe, i) ((T)((pe)*11 + (i) + 1))
/* never a TEST_VAL for pe < 8 and i < 40: marks elements nobody may write */
#define TEST_SENTINEL(T) ((T)127)

#endif /* SHMEM_TEST_H */
