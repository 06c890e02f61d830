/*
 * Streamed blocks with counted signals (app_stream.h).
 */
#include "app_stream.h"

#include <meshmem.h>

void app_stream_init(app_t *h, app_stream_t *s)
{
    *s = (app_stream_t){.nranks = h->nranks, .me = h->me};
    s->sig = meshmem_calloc((size_t)h->nranks, sizeof(uint64_t));
    if (s->sig == NULL)
        app_fatal(h, "out of symmetric memory for %d stream signals", h->nranks);
}

void app_stream_put(app_stream_t *s, void *dest, const void *src, size_t bytes, int rank)
{
    meshmem_put_signal(dest, src, bytes, &s->sig[s->me], 1, MESHMEM_SIGNAL_ADD, rank);
}

void app_stream_put_nbi(app_stream_t *s, void *dest, const void *src, size_t bytes, int rank)
{
    meshmem_put_signal_nbi(dest, src, bytes, &s->sig[s->me], 1, MESHMEM_SIGNAL_ADD, rank);
}

void app_stream_stored(app_stream_t *s, int rank)
{
    meshmem_fence(); /* the block's stores before the signal */
    meshmem_put_signal(s->sig, s->sig, 0, &s->sig[s->me], 1, MESHMEM_SIGNAL_ADD, rank);
}

void app_stream_wait(app_stream_t *s, int sender, uint64_t n)
{
    uint64_t want = s->base + n;
    meshmem_wait_until(&s->sig[sender], MESHMEM_UINT64, MESHMEM_CMP_GE, &want);
}

void app_stream_next(app_stream_t *s, uint64_t n)
{
    s->base += n;
}
