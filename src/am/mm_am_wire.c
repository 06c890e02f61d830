/* The validating decoder of active-message headers (see mm_am_wire.h). Self-contained: the
 * fuzz harness compiles this file alone. */
#include "mm_am_wire.h"

#include <string.h>

int mm_am_decode(const void *slot, const mm_am_limits_t *lim, bool in_reply_ring,
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
    if (reply != in_reply_ring ||
        !(lim->flags[h.handler] & (reply ? MM_AM_REP : MM_AM_REQ)))
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
    default:
        return MM_AM_EKIND;
    }
}

const char *mm_am_decode_error(int code)
{
    switch (code) {
    case MM_AM_OK: return "accepted";
    case MM_AM_EHANDLER: return "handler index not registered";
    case MM_AM_EKIND: return "message kind differs from the handler's registration";
    case MM_AM_EDIR: return "request/reply direction not allowed for the handler";
    case MM_AM_ENARGS: return "argument count out of range or not the registered one";
    case MM_AM_ESIZE: return "payload does not fit the slot (or a SHORT with a payload)";
    case MM_AM_ERANGE: return "LONG destination outside its symmetric region";
    case MM_AM_EFLAGS: return "unknown flags or region";
    }
    return "unknown verdict";
}
