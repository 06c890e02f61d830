/**
 * @file am_fuzz_check.h
 * @brief What the fuzz target (am_fuzz.c) and its deterministic twin (am_decode.c) check on one
 * input: the input is a ring slot (its first byte also picks request or reply ring); when the
 * decoder accepts it, every pointer it returns must lie inside the slot or the destination
 * region, and the receiver's copy of a LONG payload is performed, so that AddressSanitizer
 * sees any write outside them.
 */
#ifndef AM_FUZZ_CHECK_H
#define AM_FUZZ_CHECK_H

#include "mm_am_wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AM_FUZZ_SLOT      512
#define AM_FUZZ_MAX_INPUT (AM_FUZZ_SLOT + 64)

#define AM_FUZZ_FAIL(what)                                                                         \
    do {                                                                                           \
        fprintf(stderr, "am_fuzz: %s\n", what);                                                    \
        abort();                                                                                   \
    } while (0)

#ifndef CHECK
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c))                                                                                  \
            AM_FUZZ_FAIL(#c);                                                                      \
    } while (0)
#endif

static uint8_t am_fz_kinds[MM_AM_NHANDLERS], am_fz_flags[MM_AM_NHANDLERS];
static int8_t am_fz_nargs[MM_AM_NHANDLERS];
static char *am_fz_region[2];
static const size_t am_fz_region_size[2] = {65536, 4096};
static volatile uint64_t am_fz_sink;

static inline mm_am_limits_t am_fuzz_limits(void)
{
    if (!am_fz_region[0]) {
        /* handlers 0..5: each kind as request and as reply, some with fixed nargs */
        for (int h = 0; h < 6; h++) {
            am_fz_kinds[h] = (uint8_t)(1 + h % 3);
            am_fz_flags[h] = (uint8_t)(h < 3 ? MM_AM_REQ : MM_AM_REP);
            am_fz_nargs[h] = (int8_t)(h == 4 ? 2 : -1);
        }
        am_fz_kinds[MM_AM_H_PUT] = MM_AM_LONG;
        am_fz_flags[MM_AM_H_PUT] = MM_AM_REQ | MM_AM_REP;
        am_fz_nargs[MM_AM_H_PUT] = 0;
        am_fz_region[0] = malloc(am_fz_region_size[0]);
        am_fz_region[1] = malloc(am_fz_region_size[1]);
    }
    mm_am_limits_t lim = {.kinds = am_fz_kinds,
                          .flags = am_fz_flags,
                          .nargs = am_fz_nargs,
                          .slot_bytes = AM_FUZZ_SLOT,
                          .region_base = {am_fz_region[0], am_fz_region[1]},
                          .region_size = {am_fz_region_size[0], am_fz_region_size[1]}};
    return lim;
}

/** @return 1 when the decoder accepted @p data as a message (after checking it), else 0. */
static inline int am_fuzz_one(const uint8_t *data, size_t len)
{
    mm_am_limits_t lim = am_fuzz_limits();
    /* the slot is its own allocation of exactly slot_bytes: ASan catches reads past it */
    uint8_t *slot = malloc(AM_FUZZ_SLOT);
    memset(slot, 0, AM_FUZZ_SLOT);
    memcpy(slot, data, len < AM_FUZZ_SLOT ? len : AM_FUZZ_SLOT);
    bool reply_ring = len > 0 && (data[0] & 1);
    mm_am_msg_t m;
    int rc = mm_am_decode(slot, &lim, reply_ring, &m);
    if (rc != MM_AM_OK) {
        CHECK(rc < 0 && mm_am_decode_error(rc)[0] != 0);
        free(slot);
        return 0;
    }
    const char *s = (const char *)slot;
    CHECK(m.nargs >= 0 && m.nargs <= MM_AM_MAX_ARGS);
    CHECK((const char *)m.args == s + MM_AM_HDR_BYTES);
    uint64_t argsum = 0;
    for (int i = 0; i < m.nargs; i++)
        argsum += m.args[i];
    if (m.payload) {
        CHECK(m.payload >= s + MM_AM_HDR_BYTES + 8 * (size_t)m.nargs);
        CHECK(m.payload + m.nbytes <= s + AM_FUZZ_SLOT);
    }
    if (m.kind == MM_AM_SHORT)
        CHECK(m.nbytes == 0 && m.payload == NULL && m.dest == NULL);
    if (m.kind == MM_AM_LONG) {
        int r = m.dest >= am_fz_region[1] && m.dest <= am_fz_region[1] + am_fz_region_size[1];
        if (!(m.dest >= am_fz_region[r] &&
              m.dest + m.nbytes <= am_fz_region[r] + am_fz_region_size[r]))
            AM_FUZZ_FAIL("LONG destination outside its region");
        if (m.payload)
            memcpy(m.dest, m.payload, m.nbytes); /* what the receiver does */
    }
    free(slot);
    am_fz_sink = argsum; /* the arguments were read: ASan checked they are inside the slot */
    return 1;
}

/** @return 1 when well-formed messages of every kind are accepted. */
static inline int am_fuzz_valid_accepted(void)
{
    mm_am_limits_t lim = am_fuzz_limits();
    uint8_t *slot = calloc(1, AM_FUZZ_SLOT);
    mm_am_hdr_t h = {0};
    mm_am_msg_t m;
    int ok = 1;
    for (int nargs = 0; nargs <= 16; nargs++) {
        size_t room = mm_am_payload_room(AM_FUZZ_SLOT, nargs);
        h = (mm_am_hdr_t){.handler = 0, .kind = MM_AM_SHORT, .nargs = (uint8_t)nargs};
        memcpy(slot, &h, sizeof h);
        ok &= mm_am_decode(slot, &lim, false, &m) == MM_AM_OK;
        h = (mm_am_hdr_t){
            .handler = 1, .kind = MM_AM_MEDIUM, .nargs = (uint8_t)nargs, .nbytes = (uint32_t)room};
        memcpy(slot, &h, sizeof h);
        ok &= mm_am_decode(slot, &lim, false, &m) == MM_AM_OK && m.nbytes == room;
        h.nbytes = (uint32_t)room + 1;
        memcpy(slot, &h, sizeof h);
        ok &= mm_am_decode(slot, &lim, false, &m) == MM_AM_ESIZE;
        h = (mm_am_hdr_t){.handler = 5,
                          .kind = MM_AM_LONG,
                          .flags = MM_AM_F_REPLY,
                          .nargs = (uint8_t)nargs,
                          .region = 1,
                          .nbytes = 4096,
                          .offset = 0};
        memcpy(slot, &h, sizeof h);
        ok &= mm_am_decode(slot, &lim, true, &m) == MM_AM_OK;
        h.offset = 1;
        memcpy(slot, &h, sizeof h);
        ok &= mm_am_decode(slot, &lim, true, &m) == MM_AM_ERANGE;
        h.offset = UINT64_MAX; /* no wrap-around */
        memcpy(slot, &h, sizeof h);
        ok &= mm_am_decode(slot, &lim, true, &m) == MM_AM_ERANGE;
    }
    free(slot);
    return ok;
}

#endif /* AM_FUZZ_CHECK_H */
