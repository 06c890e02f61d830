/*
 * libFuzzer target for the active-message header decoder (clang -fsanitize=fuzzer,address):
 * built by tests/fuzz/fuzz.cmake as build/fuzz/am_fuzz, run from tests/fuzz/corpus/am:
 *   build/fuzz/am_fuzz -max_total_time=600 build/fuzz/am tests/fuzz/corpus/am
 * Malformed headers must be rejected without reading or writing outside the slot and region.
 */
#include "am_fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > AM_FUZZ_MAX_INPUT)
        size = AM_FUZZ_MAX_INPUT;
    am_fuzz_one(data, size);
    return 0;
}
