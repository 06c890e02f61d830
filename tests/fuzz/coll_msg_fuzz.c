/*
 * libFuzzer target: the header of a collective message and its rendezvous descriptor, as the
 * receiver checks them (mm_msg.h: mm_msg_hdr_valid, mm_desc_valid), then reads what they
 * accepted the way the receiver does, from buffers exactly the size of the line, the channel
 * and the sender's regions: an accepted header that reaches outside them is an AddressSanitizer
 * report. Input: header (8 bytes), descriptor (16), eager channel, heap, data and segment sizes
 * (2 bytes each, small so that the buffers exist).
 */
#include "fuzz_input.h"
#include "mm_msg.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 + 16 + 8)
        return 0;
    uint64_t h;
    mm_desc_t d;
    memcpy(&h, data, 8);
    memcpy(&d, data + 8, 16);
    size_t eager = take16(data + 24), heap = take16(data + 26), dsize = take16(data + 28),
           seg = take16(data + 30);
    if (!mm_msg_hdr_valid(h, eager))
        return 0;
    size_t n = MM_MSG_BYTES(h);
    char *dst = malloc(n ? n : 1), *src = NULL;
    switch (MM_MSG_PROTO(h)) {
    case MM_MSG_INLINED: /* the line's payload after the header word */
        src = malloc(MM_MSG_INLINE);
        memset(src, 1, MM_MSG_INLINE);
        memcpy(dst, src, n);
        break;
    case MM_MSG_EAGER: /* the sender's channel in this rank's slot */
        src = malloc(eager ? eager : 1);
        memset(src, 2, eager);
        memcpy(dst, src, n);
        break;
    case MM_MSG_RNDV:
        if (mm_desc_valid(&d, n, heap, dsize, seg)) {
            size_t region = d.kind == MM_DESC_HEAP ? heap : d.kind == MM_DESC_DATA ? dsize : seg;
            src = malloc(region ? region : 1);
            memset(src, 3, region);
            memcpy(dst, src + d.offset, n);
        }
        break;
    }
    free(src);
    free(dst);
    return 0;
}
