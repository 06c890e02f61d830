/* The decoder's verdicts as text (the decoder itself is inline in mm_am_wire.h). Self-contained:
 * the fuzz harness compiles this file alone. */
#include "mm_am_wire.h"

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
