/*
 * libFuzzer target: the validation of a post to a network peer (mm_tp_wire.h, the check
 * mm_tp_on_post makes before writing), followed by the writes the handler then makes, into a
 * segment and static data of exactly the sizes given: an accepted post that writes outside them
 * is an AddressSanitizer report. Input: the header (40 bytes), then the data length, segment and
 * static data sizes (2 bytes each, small), then the data.
 */
#include "fuzz_input.h"
#include "mm_tp_wire.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mm_tp_post_t h;
    if (size < sizeof(h) + 6)
        return 0;
    memcpy(&h, data, sizeof(h));
    size_t length = take16(data + sizeof(h)), seg_bytes = take16(data + sizeof(h) + 2),
           data_size = take16(data + sizeof(h) + 4);
    const uint8_t *payload = data + sizeof(h) + 6;
    if (length > size - sizeof(h) - 6)
        length = size - sizeof(h) - 6; /* the message carries what the input has */
    if (!mm_tp_post_valid(&h, length, seg_bytes, data_size))
        return 0;
    char *seg = malloc(seg_bytes ? seg_bytes : 1), *stat = malloc(data_size ? data_size : 1);
    char *rbase = h.extra_region == MM_TP_DATA ? stat : seg;
    if (h.extra_len)
        memcpy(rbase + h.extra_off, payload + h.body_len, h.extra_len);
    if (h.body_len)
        memcpy(seg + h.line + 8, payload, h.body_len);
    memcpy(seg + h.line, &h.seq, 8); /* the sequence word */
    free(seg);
    free(stat);
    return 0;
}
