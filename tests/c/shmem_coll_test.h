/**
 * @file shmem_coll_test.h
 * @brief Helpers of the OpenSHMEM team and collective tests: the teams every test runs on, a
 * deterministic value per (member, element), and failure messages naming the routine.
 */
#ifndef SHMEM_COLL_TEST_H
#define SHMEM_COLL_TEST_H

#include "mm_test.h"
#include "shmem.h"

#include <stdbool.h>
#include <string.h>

/* check that names the collective, the type and the team being tested */
#define CHECK_COLL(cond, what, tname, team_name, idx)                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: %s on %s (team %s) wrong at element %zu: %s\n",      \
                    mm_test_rank_hint, __FILE__, __LINE__, what, tname, team_name, (size_t)(idx),  \
                    #cond);                                                                        \
            fflush(NULL);                                                                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

/* the teams the tests run on; the caller is a member of those whose handle is valid */
enum { TEAM_WORLD, TEAM_SHIFTED, TEAM_EVEN, TEAM_ROW, TEAM_COL, TEAM_SHARED, TEAM_COUNT };
static const char *const test_team_names[TEAM_COUNT] = {
    "world", "strided(start 1, stride 1)", "strided(start 0, stride 2)", "2d x-axis", "2d y-axis",
    "shared"};

/* world, [1..n-1] (stride 1, odd start), the even PEs (stride 2), the rows and columns of a
 * 2-D split with xrange 3, shared. Collective over the world. */
static inline void test_teams_create(shmem_team_t teams[TEAM_COUNT])
{
    int n = shmem_n_pes();
    teams[TEAM_WORLD] = SHMEM_TEAM_WORLD;
    teams[TEAM_SHARED] = SHMEM_TEAM_SHARED;
    teams[TEAM_SHIFTED] = SHMEM_TEAM_INVALID;
    if (n > 1)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, n - 1, NULL, 0,
                                       &teams[TEAM_SHIFTED]) == 0);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                                   &teams[TEAM_EVEN]) == 0);
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &teams[TEAM_ROW], NULL, 0,
                              &teams[TEAM_COL]) == 0);
}

static inline void test_teams_destroy(shmem_team_t teams[TEAM_COUNT])
{
    for (int t = TEAM_SHIFTED; t <= TEAM_COL; t++)
        shmem_team_destroy(teams[t]); /* a no-op on SHMEM_TEAM_INVALID */
}

/* a small non-negative value per (member, element): exact in every type of the tables */
#define TEST_VAL(member, i, salt) ((int)(((member)*31 + (i)*7 + (salt)) % 101))

/* reductions: the value member r gives at element i (exact and in range in every type of the
 * tables, products included), and the serial operator */
#define RED_VAL_sum(T, r, i)  ((T)(TEST_VAL(r, i, 7) % 11))
#define RED_VAL_prod(T, r, i) ((T)(((r) + (i)) % 3 == 0 ? 2 : 1))
#define RED_VAL_max(T, r, i)  ((T)(TEST_VAL(r, i, 8) - 50))
#define RED_VAL_min(T, r, i)  ((T)(TEST_VAL(r, i, 9) - 50))
#define RED_VAL_and(T, r, i)  ((T)(((TEST_VAL(r, i, 10) * 3) & 0x7f) | 0x41))
#define RED_VAL_or(T, r, i)   ((T)((TEST_VAL(r, i, 11) * 5) & 0x3f))
#define RED_VAL_xor(T, r, i)  ((T)((TEST_VAL(r, i, 12) * 7) & 0x7f))
#define RED_OP_sum(T, a, b)   ((T)((a) + (b)))
#define RED_OP_prod(T, a, b)  ((T)((a) * (b)))
#define RED_OP_max(T, a, b)   ((b) > (a) ? (b) : (a))
#define RED_OP_min(T, a, b)   ((b) < (a) ? (b) : (a))
#define RED_OP_and(T, a, b)   ((T)((a) & (b)))
#define RED_OP_or(T, a, b)    ((T)((a) | (b)))
#define RED_OP_xor(T, a, b)   ((T)((a) ^ (b)))

#endif /* SHMEM_COLL_TEST_H */
