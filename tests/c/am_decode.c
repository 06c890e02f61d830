/*
 * The message decoder against random and mutated headers (deterministic): it never accepts a
 * message whose payload lies outside the slot or whose LONG destination lies outside its
 * region, and it accepts every well-formed message. Runs the same checks as the fuzz target
 * (am_fuzz.c) on 200000 inputs, without the fuzzer.
 */
#include "am_fuzz_check.h"

#include <stdio.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    static uint8_t input[AM_FUZZ_MAX_INPUT];
    long accepted = 0;
    for (int iter = 0; iter < 200000; iter++) {
        size_t len = next() % sizeof input;
        for (size_t i = 0; i < len; i++)
            input[i] = (uint8_t)next();
        if (iter % 2 == 0 && len >= 40) {
            /* a plausible header: valid fields with one random mutation */
            mm_am_hdr_t h = {0};
            h.handler = (uint16_t)(next() % 6);
            h.kind = (uint8_t)(1 + next() % 3);
            h.nargs = (uint8_t)(next() % 17);
            h.nbytes = (uint32_t)(next() % 5000);
            h.region = (uint8_t)(next() % 2);
            h.offset = next() % 70000;
            h.flags = (uint8_t)(next() % 4);
            if (next() % 3 == 0)
                ((uint8_t *)&h)[8 + next() % 24] = (uint8_t)next();
            memcpy(input + 8, (uint8_t *)&h + 8, 24);
        }
        accepted += am_fuzz_one(input, len);
    }
    /* well-formed messages are accepted */
    CHECK(am_fuzz_valid_accepted());
    printf("am_decode: %ld of 200000 random inputs accepted, none out of bounds\n", accepted);
    return 0;
}
