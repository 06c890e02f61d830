/*
 * libFuzzer target: the validation of a large put or get between hosts (mm_ucx_post.h's
 * mm_ucx_rma_valid, the check mm_ucx_on_put and mm_ucx_on_get make), followed by what the
 * transport then does: a put writes its bytes into its region, a get's answer reads them, in a
 * segment and static data of exactly the sizes given: an accepted transfer that reaches outside
 * them is an AddressSanitizer report. Input: the header (40 bytes), a kind byte (odd: a get
 * request), the data length, segment and static data sizes (2 bytes each, small), the number of
 * ranks (1 byte), then the data.
 */
#include "fuzz_input.h"
#include "mm_ucx_post.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mm_ucx_rma_t h;
    const size_t fixed = sizeof(h) + 1 + FUZZ_REGIONS_BYTES;
    if (size < fixed)
        return 0;
    memcpy(&h, data, sizeof(h));
    bool is_get = data[sizeof(h)] & 1;
    fuzz_regions_t in = take_regions(data + sizeof(h) + 1, size - fixed);
    size_t seg_bytes = in.seg_bytes, data_size = in.data_size;
    const uint8_t *payload = data + fixed;
    if (!mm_ucx_rma_valid(&h, in.length, is_get, seg_bytes, data_size, in.nranks))
        return 0;
    char *seg = malloc(seg_bytes ? seg_bytes : 1), *stat = malloc(data_size ? data_size : 1);
    char *at = (h.region == MM_UCX_DATA ? stat : seg) + h.off;
    if (is_get) {
        char *reply = malloc(h.len ? h.len : 1);
        memcpy(reply, at, h.len); /* what the reply sends */
        free(reply);
    } else {
        memcpy(at, payload, h.len);
    }
    free(seg);
    free(stat);
    return 0;
}
