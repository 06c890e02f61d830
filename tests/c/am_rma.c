/*
 * put and get carried by active messages (the runtime's PUT and GET handlers): every fragment
 * size (128, 256, 512, 1024 B, larger than a slot, unfragmented) with sizes around the
 * fragment and slot boundaries, to every rank (this one included); gets into symmetric memory
 * (LONG replies) and into private memory (MEDIUM replies). Packed fragments (several packets
 * per ring slot): odd fragment sizes (padding), 2 packets per slot and 1 (not packed), with
 * sizes around one slot's packets and across many ring windows, to the right neighbour.
 * Argument "short": no sizes past 5000 bytes and 3 slots' packets (the boundaries without the
 * long runs: for the simulated engine, which clocks every fragment).
 */
#include "am_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int mm_test_rank_hint = -1;

#define MAXB (3 << 16)

/* put @p len bytes in fragments of @p frag to @p dst, read back; get them both ways */
static void put_get(unsigned char *area, unsigned char *mine, unsigned char *got,
                    unsigned char *priv, unsigned char *src, int me, int dst, size_t len,
                    size_t frag)
{
    am_fill(src, me, len);
    unsigned char *d = area + (size_t)me * MAXB;
    CHECK(meshmem_am_put(d, src, len, dst, frag) == MESHMEM_OK);
    CHECK(meshmem_am_quiet() == MESHMEM_OK);
    /* read it back with a direct get: the PUT handlers have run */
    meshmem_get(priv, d, len, dst);
    CHECK(am_check_payload(priv, me, len));
    /* get: symmetric destination (LONG or packed replies), then private */
    memset(got, 0, len);
    CHECK(meshmem_am_get(got, mine, len, dst, frag) == MESHMEM_OK);
    for (size_t j = 0; j < len; j++)
        CHECK(got[j] == am_byte(dst, MAXB, j));
    memset(priv, 0, len);
    CHECK(meshmem_am_get(priv, mine, len, dst, frag) == MESHMEM_OK);
    for (size_t j = 0; j < len; j++)
        CHECK(priv[j] == am_byte(dst, MAXB, j));
}

int main(int argc, char **argv)
{
    bool brief = argc > 1 && strcmp(argv[1], "short") == 0;
    CHECK(meshmem_init(MESHMEM_THREAD_MULTIPLE, NULL) == MESHMEM_OK);
    int me = meshmem_rank(), n = meshmem_nranks();
    mm_test_rank_hint = me;
    unsigned char *area = meshmem_malloc((size_t)n * MAXB); /* [src][MAXB]: what src put here */
    unsigned char *mine = meshmem_malloc(MAXB);             /* what others get from me */
    unsigned char *got = meshmem_malloc(MAXB);              /* symmetric get destination */
    unsigned char *priv = malloc(MAXB), *src = malloc(MAXB);
    CHECK(area && mine && got && priv && src);
    am_fill(mine, me, MAXB);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    size_t mm = meshmem_am_max_medium();
    size_t frags[] = {0, 128, 256, 512, 1024, mm + 8};
    size_t sizes[] = {0, 1, 4, 127, 128, 129, 1000, mm, mm + 1, 5000, 100000, MAXB};
    for (int k = 0; k < n; k++) {
        int dst = (me + k) % n;
        for (size_t f = 0; f < sizeof frags / sizeof frags[0]; f++)
            for (size_t s = 0; s < (brief ? 10 : sizeof sizes / sizeof sizes[0]); s++)
                put_get(area, mine, got, priv, src, me, dst, sizes[s], frags[f]);
    }
    /* packed slots: k = packets per slot (8-byte header each, data padded to 8 bytes) */
    size_t pfrags[] = {100, 129, 1000, mm / 2 - 8, mm / 2 - 4};
    for (size_t f = 0; f < sizeof pfrags / sizeof pfrags[0]; f++) {
        size_t fr = pfrags[f], k = mm / (8 + ((fr + 7) & ~(size_t)7));
        size_t kf = (k ? k : 1) * fr;
        size_t psizes[] = {fr + 1, kf - 1, kf, kf + 1, 3 * kf + 5, 17 * kf + 3, MAXB - 1};
        for (size_t s = 0; s < (brief ? 5 : sizeof psizes / sizeof psizes[0]); s++)
            put_get(area, mine, got, priv, src, me, (me + 1) % n,
                    psizes[s] < MAXB ? psizes[s] : MAXB, fr);
    }
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    free(src);
    free(priv);
    meshmem_free(got);
    meshmem_free(mine);
    meshmem_free(area);
    meshmem_finalize();
    return 0;
}
