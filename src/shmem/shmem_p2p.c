/*
 * OpenSHMEM point-to-point synchronization (1.5 section 9.10): wait_until and test, their
 * _all/_any/_some and _vector forms, and the deprecated shmem_wait, for the Table 12 types.
 *
 * The variables are local; peers store into them. Each load is atomic with acquire order, so
 * data a peer put before its flag is visible once the flag is. A wait polls its condition
 * between mm_wait_step() calls (spin, yield, then sleep until a peer's store rings this PE's
 * doorbell: mm_wait.h). The array forms share one implementation over a per-type comparison
 * function; a scalar cmp_value is a vector of stride 0.
 */
#include "shmem_internal.h"

/* does ivars[i] compare cmp to values[i * vstride]? */
typedef bool (*shmemi_sat_fn)(const void *ivars, size_t i, int cmp, const void *values,
                              size_t vstride);

/* the arguments of an array wait or test */
typedef struct {
    const char *call;
    shmemi_sat_fn sat;
    const void *ivars;
    size_t nelems;
    const int *status; /* NULL: every element is included */
    int cmp;
    const void *values;
    size_t vstride; /* 0: one cmp_value for all, 1: a vector */
} shmemi_p2p_t;

static bool shmemi_included(const shmemi_p2p_t *a, size_t i)
{
    return a->status == NULL || a->status[i] == 0;
}

static bool shmemi_none_included(const shmemi_p2p_t *a)
{
    for (size_t i = 0; i < a->nelems; i++)
        if (shmemi_included(a, i))
            return false;
    return true;
}

static void shmemi_p2p_check(const shmemi_p2p_t *a)
{
    MM_CHECK_INIT(a->call);
    shmemi_check_cmp(a->call, a->cmp);
    if (a->nelems != 0 && (a->ivars == NULL || a->values == NULL))
        mm_fatal("%s: ivars or cmp_values argument is NULL for %zu elements", a->call, a->nelems);
}

static bool shmemi_test_all(const shmemi_p2p_t *a)
{
    for (size_t i = 0; i < a->nelems; i++)
        if (shmemi_included(a, i) && !a->sat(a->ivars, i, a->cmp, a->values, a->vstride))
            return false;
    return true;
}

/*
 * Where this thread's next _any test starts: one past the index it returned last. "If an entry
 * i satisfies the test condition, a series of calls to shmem_test_any must eventually return i"
 * (1.5 9.10.8): a search always starting at 0 would return a lower satisfied index forever, and
 * a program that polls without masking what it has seen (the spec's examples do both) would
 * never see the others.
 */
static _Thread_local size_t shmemi_any_next;

static size_t shmemi_test_any(const shmemi_p2p_t *a)
{
    size_t n = a->nelems, start = n ? shmemi_any_next % n : 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = start + k < n ? start + k : start + k - n;
        if (shmemi_included(a, i) && a->sat(a->ivars, i, a->cmp, a->values, a->vstride)) {
            shmemi_any_next = i + 1;
            return i;
        }
    }
    return SIZE_MAX;
}

static size_t shmemi_test_some(const shmemi_p2p_t *a, size_t *indices)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nelems; i++)
        if (shmemi_included(a, i) && a->sat(a->ivars, i, a->cmp, a->values, a->vstride))
            indices[n++] = i;
    return n;
}

static void shmemi_check_indices(const shmemi_p2p_t *a, const size_t *indices)
{
    if (indices == NULL && a->nelems != 0)
        mm_fatal("%s: indices argument is NULL", a->call);
}

static int shmemi_test_all_api(const shmemi_p2p_t *a)
{
    shmemi_p2p_check(a);
    return mm_trace_test(shmemi_test_all(a));
}

static size_t shmemi_test_any_api(const shmemi_p2p_t *a)
{
    shmemi_p2p_check(a);
    size_t found = shmemi_test_any(a);
    mm_trace_test(found != SIZE_MAX);
    return found;
}

static size_t shmemi_test_some_api(const shmemi_p2p_t *a, size_t *indices)
{
    shmemi_p2p_check(a);
    shmemi_check_indices(a, indices);
    size_t n = shmemi_test_some(a, indices);
    mm_trace_test(n != 0);
    return n;
}

static void shmemi_wait_all(const shmemi_p2p_t *a)
{
    shmemi_p2p_check(a);
    MM_WAIT_UNTIL(shmemi_test_all(a));
}

static size_t shmemi_wait_any(const shmemi_p2p_t *a)
{
    shmemi_p2p_check(a);
    if (shmemi_none_included(a))
        return SIZE_MAX;
    size_t found;
    MM_WAIT_UNTIL((found = shmemi_test_any(a)) != SIZE_MAX);
    return found;
}

static size_t shmemi_wait_some(const shmemi_p2p_t *a, size_t *indices)
{
    shmemi_p2p_check(a);
    shmemi_check_indices(a, indices);
    if (shmemi_none_included(a))
        return 0;
    size_t found;
    MM_WAIT_UNTIL((found = shmemi_test_some(a, indices)) != 0);
    return found;
}

/* the arguments of an array routine named shmem_N_OP */
#define SHMEMI_P2P_ARGS(N, OP, VALUES, VSTRIDE)                                                    \
    (&(shmemi_p2p_t){"shmem_" #N "_" #OP, shmemi_sat_##N, ivars, nelems, status, cmp, VALUES,      \
                     VSTRIDE})

#define SHMEMI_P2P_(T, N)                                                                          \
    static bool shmemi_sat_##N(const void *ivars, size_t i, int cmp, const void *values,           \
                               size_t vstride)                                                     \
    {                                                                                              \
        T v = __atomic_load_n((const T *)ivars + i, __ATOMIC_ACQUIRE);                             \
        T c = ((const T *)values)[i * vstride];                                                    \
        return SHMEMI_COMPARE(v, cmp, c);                                                          \
    }                                                                                              \
    static inline bool shmemi_reached_##N(T *ivar, int cmp, T cmp_value)                           \
    {                                                                                              \
        return shmemi_sat_##N(ivar, 0, cmp, &cmp_value, 0);                                        \
    }                                                                                              \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                     \
    {                                                                                              \
        MM_CHECK_INIT("shmem_" #N "_wait_until");                                                  \
        shmemi_check_cmp("shmem_" #N "_wait_until", cmp);                                          \
        T seen_;                                                                                   \
        SHMEMI_WAIT_CMP(seen_, __atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value);           \
        (void)seen_;                                                                               \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until)                                                        \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                                    \
    {                                                                                              \
        MM_CHECK_INIT("shmem_" #N "_wait");                                                        \
        MM_WAIT_UNTIL(__atomic_load_n(ivar, __ATOMIC_ACQUIRE) != cmp_value);                       \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait)                                                              \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                            \
    {                                                                                              \
        MM_CHECK_INIT("shmem_" #N "_test");                                                        \
        shmemi_check_cmp("shmem_" #N "_test", cmp);                                                \
        return mm_trace_test(shmemi_reached_##N(ivar, cmp, cmp_value));                            \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test)                                                              \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value)                                                   \
    {                                                                                              \
        shmemi_wait_all(SHMEMI_P2P_ARGS(N, wait_until_all, &cmp_value, 0));                        \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until_all)                                                    \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value)                                                 \
    {                                                                                              \
        return shmemi_wait_any(SHMEMI_P2P_ARGS(N, wait_until_any, &cmp_value, 0));                 \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until_any)                                                    \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value)                    \
    {                                                                                              \
        return shmemi_wait_some(SHMEMI_P2P_ARGS(N, wait_until_some, &cmp_value, 0), indices);      \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until_some)                                                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values)                                          \
    {                                                                                              \
        shmemi_wait_all(SHMEMI_P2P_ARGS(N, wait_until_all_vector, cmp_values, 1));                 \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until_all_vector)                                             \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values)                                        \
    {                                                                                              \
        return shmemi_wait_any(SHMEMI_P2P_ARGS(N, wait_until_any_vector, cmp_values, 1));          \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until_any_vector)                                             \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values)           \
    {                                                                                              \
        return shmemi_wait_some(SHMEMI_P2P_ARGS(N, wait_until_some_vector, cmp_values, 1),         \
                                indices);                                                          \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_wait_until_some_vector)                                            \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)     \
    {                                                                                              \
        return shmemi_test_all_api(SHMEMI_P2P_ARGS(N, test_all, &cmp_value, 0));                   \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test_all)                                                          \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)  \
    {                                                                                              \
        return shmemi_test_any_api(SHMEMI_P2P_ARGS(N, test_any, &cmp_value, 0));                   \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test_any)                                                          \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value)                                             \
    {                                                                                              \
        return shmemi_test_some_api(SHMEMI_P2P_ARGS(N, test_some, &cmp_value, 0), indices);        \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test_some)                                                         \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values)                                                 \
    {                                                                                              \
        return shmemi_test_all_api(SHMEMI_P2P_ARGS(N, test_all_vector, cmp_values, 1));            \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test_all_vector)                                                   \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values)                                              \
    {                                                                                              \
        return shmemi_test_any_api(SHMEMI_P2P_ARGS(N, test_any_vector, cmp_values, 1));            \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test_any_vector)                                                   \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values)                 \
    {                                                                                              \
        return shmemi_test_some_api(SHMEMI_P2P_ARGS(N, test_some_vector, cmp_values, 1), indices); \
    }                                                                                              \
    SHMEMI_PROFILED(shmem_##N##_test_some_vector)
SHMEM_P2P_TYPES(SHMEMI_P2P_)

/* the deprecated C forms on long (the parentheses: C11 programs see generic macros by these
 * names, and so does this file) */
void(shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}
SHMEMI_PROFILED(shmem_wait_until)

void(shmem_wait)(long *ivar, long cmp_value)
{
    shmem_long_wait(ivar, cmp_value);
}
SHMEMI_PROFILED(shmem_wait)
