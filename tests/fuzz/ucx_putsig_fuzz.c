/*
 * libFuzzer target: the validation of a put with signal between hosts (mm_ucx_post.h's
 * mm_ucx_putsig_valid, the check mm_ucx_on_put_signal makes), followed by what the transport
 * then does: the bytes into their region, then an atomic on the 8-byte signal word in its
 * region, in a segment and static data of exactly the sizes given: an accepted put whose bytes
 * or signal reach outside them is an AddressSanitizer report (a misaligned signal word, a
 * UBSan one). Input: the header (64 bytes), the data length, segment and static data sizes
 * (2 bytes each, small), the number of ranks (1 byte), then the data.
 */
#include "fuzz_input.h"
#include "mm_ucx_post.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mm_ucx_putsig_t h;
    const size_t fixed = sizeof(h) + FUZZ_REGIONS_BYTES;
    if (size < fixed)
        return 0;
    memcpy(&h, data, sizeof(h));
    fuzz_regions_t in = take_regions(data + sizeof(h), size - fixed);
    size_t seg_bytes = in.seg_bytes, data_size = in.data_size;
    const uint8_t *payload = data + fixed;
    if (!mm_ucx_putsig_valid(&h, in.length, seg_bytes, data_size, in.nranks))
        return 0;
    /* 8-aligned regions, as a segment and static data are */
    uint64_t *seg = malloc(seg_bytes ? (seg_bytes + 7) / 8 * 8 : 8);
    uint64_t *stat = malloc(data_size ? (data_size + 7) / 8 * 8 : 8);
    char *at = (char *)(h.put.region == MM_UCX_DATA ? stat : seg) + h.put.off;
    memcpy(at, payload, h.put.len);
    _Atomic uint64_t *sig =
        (_Atomic uint64_t *)((char *)(h.sig_region == MM_UCX_DATA ? stat : seg) + h.sig_off);
    if (h.op == MM_UCX_SIG_ADD)
        atomic_fetch_add(sig, h.value);
    else
        atomic_store(sig, h.value);
    free(seg);
    free(stat);
    return 0;
}
