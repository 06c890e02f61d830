/* Point-to-point synchronisation: waits and tests on local symmetric variables. */
#include "mm_core.h"
#include "mm_trace.h"
#include "mm_wait.h"

#include <string.h>

/* load the element (atomically for the sizes that allow it) as a comparable value */
#define MM_CMP_CASE(DT, T)                                                                         \
    case DT: {                                                                                     \
        T a = __atomic_load_n((const T *)ivar, __ATOMIC_ACQUIRE), b;                               \
        memcpy(&b, value, sizeof(T));                                                              \
        switch (cmp) {                                                                             \
        case MESHMEM_CMP_EQ: return a == b;                                                        \
        case MESHMEM_CMP_NE: return a != b;                                                        \
        case MESHMEM_CMP_GT: return a > b;                                                         \
        case MESHMEM_CMP_LE: return a <= b;                                                        \
        case MESHMEM_CMP_LT: return a < b;                                                         \
        case MESHMEM_CMP_GE: return a >= b;                                                        \
        }                                                                                          \
        return -1;                                                                                 \
    }

static int mm_test_value(const void *ivar, meshmem_dtype_t dtype, meshmem_cmp_t cmp,
                         const void *value)
{
    if ((unsigned)cmp - 1u > 5u)
        return -1;
    switch (dtype) {
        MM_CMP_CASE(MESHMEM_INT8, int8_t)
        MM_CMP_CASE(MESHMEM_INT16, int16_t)
        MM_CMP_CASE(MESHMEM_INT32, int32_t)
        MM_CMP_CASE(MESHMEM_INT64, int64_t)
        MM_CMP_CASE(MESHMEM_UINT8, uint8_t)
        MM_CMP_CASE(MESHMEM_UINT16, uint16_t)
        MM_CMP_CASE(MESHMEM_UINT32, uint32_t)
        MM_CMP_CASE(MESHMEM_UINT64, uint64_t)
    default: return -1;
    }
}

int meshmem_test(const void *ivar, meshmem_dtype_t dtype, meshmem_cmp_t cmp, const void *value)
{
    return mm_trace_test(mm_test_value(ivar, dtype, cmp, value));
}

meshmem_status_t meshmem_wait_until(void *ivar, meshmem_dtype_t dtype, meshmem_cmp_t cmp,
                                    const void *value)
{
    int r = mm_test_value(ivar, dtype, cmp, value);
    if (r < 0)
        return MESHMEM_ERR_ARG;
    MM_WAIT_UNTIL(mm_test_value(ivar, dtype, cmp, value) == 1);
    return MESHMEM_OK;
}
