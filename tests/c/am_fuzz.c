/*
 * libFuzzer target for the active-message header decoder (clang -fsanitize=fuzzer,address):
 *   clang -fsanitize=fuzzer,address -Isrc/am tests/c/am_fuzz.c src/am/mm_am_wire.c -o am_fuzz
 *   ./am_fuzz -runs=1000000
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
