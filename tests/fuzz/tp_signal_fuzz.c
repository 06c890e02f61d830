/*
 * libFuzzer target: the validation of a put with signal to a network peer (mm_tp_wire.h's
 * mm_tp_signal_valid, the check mm_tp_on_signal makes), followed by what the handler then
 * does: the bytes into their region, then an atomic on the 8-byte signal word in its region,
 * in a segment and static data of exactly the sizes given: an accepted put whose bytes or
 * signal reach outside them is an AddressSanitizer report (a misaligned signal word, a UBSan
 * one). Input: the header (48 bytes), the data length, segment and static data sizes (2 bytes
 * each, small), a byte the target ignores (the number of ranks of the layout before), then
 * the data.
 */
#include "fuzz_input.h"
#include "mm_tp_wire.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mm_tp_signal_t h;
    const size_t fixed = sizeof(h) + FUZZ_REGIONS_BYTES;
    if (size < fixed)
        return 0;
    memcpy(&h, data, sizeof(h));
    fuzz_regions_t in = take_regions(data + sizeof(h), size - fixed);
    size_t seg_bytes = in.seg_bytes, data_size = in.data_size;
    const uint8_t *payload = data + fixed;
    if (!mm_tp_signal_valid(&h, in.length, seg_bytes, data_size))
        return 0;
    /* 8-aligned regions, as a segment and static data are */
    uint64_t *seg = malloc(seg_bytes ? (seg_bytes + 7) / 8 * 8 : 8);
    uint64_t *stat = malloc(data_size ? (data_size + 7) / 8 * 8 : 8);
    char *at = (char *)(h.region == MM_TP_DATA ? stat : seg) + h.off;
    memcpy(at, payload, h.len);
    _Atomic uint64_t *sig =
        (_Atomic uint64_t *)((char *)(h.sig_region == MM_TP_DATA ? stat : seg) + h.sig_off);
    if (h.op == 1)
        atomic_fetch_add(sig, h.value);
    else
        atomic_store(sig, h.value);
    free(seg);
    free(stat);
    return 0;
}
