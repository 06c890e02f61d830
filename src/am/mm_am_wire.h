/**
 * @file mm_am_wire.h
 * @brief The wire format of an active message in a ring slot, and its validating decoder.
 *
 * A slot of slot_bytes bytes (a multiple of 64) holds:
 *   [0, 32)              mm_am_hdr_t: seq (written last), handler, kind, flags, nargs, region,
 *                        nbytes, offset
 *   [32, 32 + 8 nargs)   the arguments, 64-bit each
 *   [32 + 8 nargs, ...)  the payload, when it travels in the slot (MEDIUM always, LONG when
 *                        MM_AM_F_INLINE); 8-byte aligned
 * A LONG message names its destination as (region, offset): region 0 is the symmetric heap,
 * region 1 the static data; offsets are the same on every rank, so the format needs no mapping
 * of the peer (the later inter-node transport sends the same bytes).
 *
 * The decoder (below, inline; its verdicts' text in mm_am_wire.c) depends on nothing else in
 * the runtime, so that the fuzz harness (tests/c/am_fuzz.c) builds it alone: it reads the header once into a private copy (a
 * misbehaving writer cannot change it between check and use) and accepts a message only when
 * every field is in range; on success every pointer it returns lies inside the slot or inside
 * the destination region.
 */
#ifndef MM_AM_WIRE_H
#define MM_AM_WIRE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MM_AM_MAX_ARGS 16

/** User handler indices 0..255; the runtime's own handlers follow them. */
#define MM_AM_USER_HANDLERS 256
enum {
    MM_AM_H_PUT = MM_AM_USER_HANDLERS, /* LONG request: the payload is the put */
    MM_AM_H_GET,                       /* SHORT request: reply with the data */
    MM_AM_H_GET_REPLY_LONG,            /* LONG reply: count the fragment */
    MM_AM_H_GET_REPLY_MEDIUM,          /* MEDIUM reply: copy to the requester's buffer */
    MM_AM_H_PUT_PACKED,                /* MEDIUM request: several PUT packets (mm_am.c) */
    MM_AM_H_GET_PACKED,                /* MEDIUM request: several GET packet requests */
    MM_AM_H_GET_REPLY_PACKED,          /* MEDIUM reply: their data packets */
    MM_AM_NHANDLERS
};

/* kinds (the values of meshmem_am_kind_t) */
enum { MM_AM_SHORT = 1, MM_AM_MEDIUM = 2, MM_AM_LONG = 3 };
/* registration flags (MESHMEM_AM_REQUEST / _REPLY) */
enum { MM_AM_REQ = 1, MM_AM_REP = 2 };
/* header flags */
enum {
    MM_AM_F_REPLY = 1,  /* a reply (travels in a reply ring) */
    MM_AM_F_INLINE = 2, /* LONG: the payload is in the slot; the receiver copies it */
    MM_AM_F_ALL = 3,
};

/** Bytes of the fixed header; the arguments follow. */
#define MM_AM_HDR_BYTES 32

typedef struct {
    uint64_t seq; /* message number + 1 (accessed atomically: mm_am_slot_seq) */
    uint16_t handler;
    uint8_t kind;
    uint8_t flags;
    uint8_t nargs;
    uint8_t region; /* LONG: 0 heap, 1 static data */
    uint16_t reserved;
    uint32_t nbytes; /* payload bytes */
    uint32_t reserved2;
    uint64_t offset; /* LONG: destination offset within the region */
} mm_am_hdr_t;
static_assert(sizeof(mm_am_hdr_t) == MM_AM_HDR_BYTES, "header is 32 bytes");
static_assert(offsetof(mm_am_hdr_t, seq) == 0, "seq first: one line holds it and a short");

/** What the receiver accepts: its handler table and its destination regions. */
typedef struct {
    const uint8_t *kinds; /* [MM_AM_NHANDLERS] registered kind, 0: none */
    const uint8_t *flags; /* [MM_AM_NHANDLERS] MM_AM_REQ | MM_AM_REP */
    const int8_t *nargs;  /* [MM_AM_NHANDLERS] argument count, -1: any */
    size_t slot_bytes;
    char *region_base[2];
    size_t region_size[2];
} mm_am_limits_t;

/** A decoded message. */
typedef struct {
    int handler, kind, nargs;
    bool reply, inline_payload;
    const uint64_t *args; /* inside the slot */
    const char *payload;  /* inside the slot (MEDIUM, inline LONG), else NULL */
    char *dest;           /* LONG: destination inside its region, else NULL */
    size_t nbytes;
} mm_am_msg_t;

/** Decoder verdicts (0: accepted). */
enum {
    MM_AM_OK = 0,
    MM_AM_EHANDLER = -1, /* index out of range or not registered */
    MM_AM_EKIND = -2,    /* kind differs from the registration */
    MM_AM_EDIR = -3,     /* request to a reply-only handler or the reverse */
    MM_AM_ENARGS = -4,   /* too many arguments, or not the registered count */
    MM_AM_ESIZE = -5,    /* payload does not fit the slot, or SHORT with payload */
    MM_AM_ERANGE = -6,   /* LONG destination outside its region */
    MM_AM_EFLAGS = -7,   /* unknown flags or region */
};

/** @return the bytes available for a payload in a slot after @p nargs arguments. */
static inline size_t mm_am_payload_room(size_t slot_bytes, int nargs)
{
    size_t used = MM_AM_HDR_BYTES + 8u * (size_t)nargs;
    return slot_bytes > used ? slot_bytes - used : 0;
}

/**
 * @brief Validate the message in @p slot (of lim->slot_bytes bytes, seq already checked by the
 * caller), received in a reply ring when @p in_reply_ring.
 * @return MM_AM_OK and *out, or a negative MM_AM_E* code (out untouched but for garbage).
 * Inline: the receiving path compiles it into its dispatch, where the fields of *out that a
 * SHORT message leaves unused cost nothing (a call and its stores were a third of a round
 * trip's decoding).
 */
static inline int mm_am_decode(const void *slot, const mm_am_limits_t *lim, bool in_reply_ring,
                               mm_am_msg_t *out)
{
    mm_am_hdr_t h;
    memcpy(&h, slot, sizeof h); /* one read: checks and uses see the same values */
    if (h.flags & ~(unsigned)MM_AM_F_ALL)
        return MM_AM_EFLAGS;
    if (h.handler >= MM_AM_NHANDLERS || lim->kinds[h.handler] == 0)
        return MM_AM_EHANDLER;
    if (h.kind != lim->kinds[h.handler])
        return MM_AM_EKIND;
    bool reply = (h.flags & MM_AM_F_REPLY) != 0;
    if (reply != in_reply_ring || !(lim->flags[h.handler] & (reply ? MM_AM_REP : MM_AM_REQ)))
        return MM_AM_EDIR;
    if (h.nargs > MM_AM_MAX_ARGS ||
        (lim->nargs[h.handler] >= 0 && h.nargs != lim->nargs[h.handler]))
        return MM_AM_ENARGS;
    size_t room = mm_am_payload_room(lim->slot_bytes, h.nargs);
    if (MM_AM_HDR_BYTES + 8u * (size_t)h.nargs > lim->slot_bytes)
        return MM_AM_ESIZE;
    const char *base = slot;
    out->handler = h.handler;
    out->kind = h.kind;
    out->nargs = h.nargs;
    out->reply = reply;
    out->inline_payload = false;
    out->args = (const uint64_t *)(base + MM_AM_HDR_BYTES);
    out->payload = NULL;
    out->dest = NULL;
    out->nbytes = h.nbytes;
    switch (h.kind) {
    case MM_AM_SHORT:
        if (h.nbytes != 0 || (h.flags & MM_AM_F_INLINE) || h.region != 0 || h.offset != 0)
            return h.nbytes ? MM_AM_ESIZE : MM_AM_EFLAGS;
        return MM_AM_OK;
    case MM_AM_MEDIUM:
        if (h.flags & MM_AM_F_INLINE || h.region != 0 || h.offset != 0)
            return MM_AM_EFLAGS;
        if (h.nbytes > room)
            return MM_AM_ESIZE;
        out->inline_payload = true;
        out->payload = base + MM_AM_HDR_BYTES + 8u * (size_t)h.nargs;
        return MM_AM_OK;
    case MM_AM_LONG:
        if (h.region > 1)
            return MM_AM_EFLAGS;
        if (h.offset > lim->region_size[h.region] ||
            h.nbytes > lim->region_size[h.region] - h.offset)
            return MM_AM_ERANGE;
        if (h.flags & MM_AM_F_INLINE) {
            if (h.nbytes > room)
                return MM_AM_ESIZE;
            out->inline_payload = true;
            out->payload = base + MM_AM_HDR_BYTES + 8u * (size_t)h.nargs;
        }
        out->dest = lim->region_base[h.region] + h.offset;
        return MM_AM_OK;
    default: return MM_AM_EKIND;
    }
}

/** @return a constant string for a decoder verdict. */
const char *mm_am_decode_error(int code);

#endif /* MM_AM_WIRE_H */
