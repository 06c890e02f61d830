/*
 * Streams: a producer's elements bound for a consumer's symmetric buffer, made visible N at a
 * time with one signal (FSHMEM's Automatic Result Transfer, ACCL's streaming calls).
 *
 * Writers: the producer alone writes the consumer's buffer (element i at byte i * elem_size,
 * each element once) and the consumer's signal word; the consumer only reads them.
 * Order: push copies elements straight into the consumer's mapping (the put of the batch, done
 * as the elements come, so the copy overlaps the producer's compute); when a batch of N is
 * complete the producer stores signal = elements visible (release: the batch's data is
 * visible before the count; mm_stream_publish says why only the last store is seq_cst). A
 * fence first when the batch was large enough for memcpy's non-temporal stores, which release
 * does not order (as mm_rma.c). Close stores count | MESHMEM_STREAM_END the same way.
 * The consumer acquire-loads the signal and reads only elements below the count: never an
 * element the producer may still be writing.
 * Producer state is in bytes of the consumer's buffer (wp, sig_off, next_off): the inline
 * meshmem_stream_push1 stores an element and advances wp while wp < wlim (the last element of
 * the batch); only the push that completes a batch (or reaches the capacity) comes here, so
 * the per-element path has no call, no count and no division. The signal only grows (a count), so no sequence
 * wrap; nothing flows back to the producer: no round trip.
 */
#include "meshmem_am.h"
#include "mm_core.h"
#include "mm_tp.h"
#include "mm_wait.h"

#include <stdlib.h>
#include <string.h>

#define MM_STREAM_NT_BYTES   4096
#define MM_STREAM_WAKE_BYTES 4096

/* after a signal at sig_off: where the next batch ends and where push1's fast path stops
 * (the batch's last element, or the buffer's last one; below wp when the buffer is full) */
static void mm_stream_next_batch(meshmem_stream_t *s)
{
    size_t cap = s->capacity * s->elem_size;
    s->next_off = s->batch_bytes <= cap - s->sig_off ? s->sig_off + s->batch_bytes : SIZE_MAX;
    size_t end = s->next_off < cap ? s->next_off : cap;
    s->wlim = s->remote + end - s->elem_size;
}

meshmem_status_t meshmem_stream_open(meshmem_stream_t *s, void *buf, size_t elem_size,
                                     size_t capacity, uint64_t *signal, size_t batch, int producer,
                                     int consumer)
{
    if (!mm_g.initialized) {
        mm_error("meshmem_stream_open: called before meshmem_init");
        return MESHMEM_ERR_STATE;
    }
    if (s == NULL || elem_size == 0 || batch == 0 || capacity == 0 || signal == NULL ||
        capacity > (SIZE_MAX / elem_size)) {
        mm_error("meshmem_stream_open: stream, elem_size, capacity, signal and batch must be "
                 "non-zero (elem_size %zu, capacity %zu, batch %zu)",
                 elem_size, capacity, batch);
        return MESHMEM_ERR_ARG;
    }
    if ((unsigned)producer >= (unsigned)mm_g.nranks ||
        (unsigned)consumer >= (unsigned)mm_g.nranks) {
        mm_error("meshmem_stream_open: producer (%d) or consumer (%d) argument is not a rank "
                 "of the job (0..%d)",
                 producer, consumer, mm_g.nranks - 1);
        return MESHMEM_ERR_RANK;
    }
    if (producer == consumer) {
        mm_error("meshmem_stream_open: producer and consumer are the same rank (%d)", producer);
        return MESHMEM_ERR_ARG;
    }
    if (!mm_is_symmetric(buf, capacity * elem_size) || !mm_is_symmetric(signal, sizeof(uint64_t))) {
        mm_error("meshmem_stream_open: buf (%p, %zu bytes) or signal (%p) argument is not in "
                 "symmetric memory",
                 buf, capacity * elem_size, (void *)signal);
        return MESHMEM_ERR_NOT_SYMMETRIC;
    }
    memset(s, 0, sizeof *s);
    s->buf = buf;
    s->signal = signal;
    s->elem_size = elem_size;
    s->capacity = capacity;
    s->batch = batch;
    s->producer = producer;
    s->consumer = consumer;
    s->role = mm_g.rank == producer ? 0 : mm_g.rank == consumer ? 1 : -1;
    if (s->role == 0) {
        s->remote = mm_tp_ptr(buf, consumer);
        s->remote_signal = mm_tp_ptr(signal, consumer);
        if (s->remote == NULL) {
            /* a consumer on another host: elements gather here, each batch goes by put */
            s->stage = malloc(capacity * elem_size);
            if (s->stage == NULL) {
                mm_error("meshmem_stream_open: no memory to stage %zu bytes for rank %d",
                         capacity * elem_size, consumer);
                return MESHMEM_ERR_NOMEM;
            }
            s->remote = s->stage;
        }
        s->wp = s->remote;
        /* N beyond the capacity: no boundary is ever reached (and N * elem_size may overflow) */
        s->batch_bytes = batch <= capacity ? batch * elem_size : SIZE_MAX;
        mm_stream_next_batch(s);
    }
    return MESHMEM_OK;
}

/*
 * make the first @p off bytes (@p count elements) visible at the consumer (@p last: flush or
 * close). Batches in the middle of a stream are published with a release store only (a plain
 * store on x86, no locked instruction per batch): the sleeper check after it may then miss a
 * consumer that registered at that very moment, which then sees the count on its futex timeout
 * (MESHMEM_SLEEP_US) or at the next wake, never later. The last batch (flush, close) is
 * seq_cst and always checks for a sleeper.
 */
static void mm_stream_publish(meshmem_stream_t *s, size_t off, uint64_t count, bool last)
{
    uint64_t v = count | (s->closed ? MESHMEM_STREAM_END : 0);
    if (s->stage) {
        /* the batch by put, then the count (ordered after it by the transport); the put
         * completes in the background while the producer computes the next batch: the staged
         * bytes are written once and never changed */
        mm_tp_put_nbi_at(NULL, s->buf + s->sig_off, s->stage + s->sig_off, off - s->sig_off,
                         s->consumer);
        mm_tp_put_signal_at(NULL, NULL, NULL, NULL, 0, s->signal, v, MESHMEM_SIGNAL_SET,
                            s->consumer, false);
        s->sig_off = off;
        s->signalled = count;
        return;
    }
    if (off - s->sig_off >= MM_STREAM_NT_BYTES)
        atomic_thread_fence(memory_order_seq_cst);
    s->sig_off = off;
    s->signalled = count;
    if (last) {
        atomic_store(s->remote_signal, v);
    } else {
        atomic_store_explicit(s->remote_signal, v, memory_order_release);
        /* a consumer asleep in a wait is woken once per MM_STREAM_WAKE_BYTES, not per batch:
         * a futex wake is a system call, which per small batch would cost more than the
         * batch (it then sees the count at the next wake, its futex timeout, or the close);
         * mm_tp_wake itself is one load of the consumer's sleeper count, a system call only
         * when it sleeps */
        if (off - s->woken_off < MM_STREAM_WAKE_BYTES)
            return;
    }
    s->woken_off = off;
    mm_tp_wake(s->consumer);
}

static meshmem_status_t mm_stream_producer(const char *call, const meshmem_stream_t *s)
{
    if (s == NULL || s->role != 0) {
        mm_error("%s: this rank is not the stream's producer", call);
        return MESHMEM_ERR_STATE;
    }
    if (s->closed) {
        mm_error("%s: the stream is closed", call);
        return MESHMEM_ERR_STATE;
    }
    return MESHMEM_OK;
}

meshmem_status_t meshmem_stream_push(meshmem_stream_t *s, const void *elems, size_t count)
{
    meshmem_status_t st = mm_stream_producer("meshmem_stream_push", s);
    if (st != MESHMEM_OK)
        return st;
    size_t es = s->elem_size, off = (size_t)(s->wp - s->remote);
    /* count <= capacity first: count * es cannot overflow then (checked at open) */
    if (count > s->capacity || count * es > s->capacity * es - off) {
        mm_error("meshmem_stream_push: %zu more elements exceed the stream's capacity (%zu, "
                 "%zu pushed)",
                 count, s->capacity, off / es);
        return MESHMEM_ERR_ARG;
    }
    size_t n = count * es;
    if (n == es && es == 4) /* push1's batch-completing element: no library call */
        memcpy(s->wp, elems, 4);
    else
        memcpy(s->wp, elems, n);
    s->wp += n;
    off += n;
    if (off >= s->next_off) {
        /* publish the last batch boundary reached: one signal even for many batches (the
         * division only for pushes longer than a batch) */
        size_t bb = s->batch_bytes,
               k = 1 + (off - s->next_off >= bb ? (off - s->next_off) / bb : 0);
        mm_stream_publish(s, s->next_off + (k - 1) * bb, s->signalled + k * s->batch, false);
        mm_stream_next_batch(s);
    }
    return MESHMEM_OK;
}

/* publish everything pushed (flush, close); the division by the element size once per call */
static void mm_stream_publish_all(meshmem_stream_t *s)
{
    size_t off = (size_t)(s->wp - s->remote);
    mm_stream_publish(s, off, off / s->elem_size, true);
    if (!s->closed)
        mm_stream_next_batch(s);
}

meshmem_status_t meshmem_stream_flush(meshmem_stream_t *s)
{
    meshmem_status_t st = mm_stream_producer("meshmem_stream_flush", s);
    if (st == MESHMEM_OK && s->wp != s->remote + s->sig_off)
        mm_stream_publish_all(s);
    return st;
}

meshmem_status_t meshmem_stream_close(meshmem_stream_t *s)
{
    if (s != NULL && s->role == 0 && s->closed)
        return MESHMEM_OK;
    meshmem_status_t st = mm_stream_producer("meshmem_stream_close", s);
    if (st != MESHMEM_OK)
        return st;
    s->closed = 1;
    s->wlim = NULL; /* every later push goes out of line, to the error */
    mm_stream_publish_all(s);
    if (s->stage) {
        mm_tp_quiet(); /* the staged batches have left before their memory goes */
        free(s->stage);
        s->stage = s->remote = s->wp = NULL;
    }
    return MESHMEM_OK;
}

static inline uint64_t mm_stream_signal(const meshmem_stream_t *s)
{
    return atomic_load_explicit((_Atomic uint64_t *)s->signal, memory_order_acquire);
}

size_t meshmem_stream_wait(meshmem_stream_t *s, size_t count)
{
    if (s == NULL || s->role != 1) {
        mm_error("meshmem_stream_wait: this rank is not the stream's consumer");
        return 0;
    }
    uint64_t v;
    MM_WAIT_UNTIL(
        (v = mm_stream_signal(s), (v & MESHMEM_STREAM_END) || (v & ~MESHMEM_STREAM_END) >= count));
    return (size_t)(v & ~MESHMEM_STREAM_END);
}

size_t meshmem_stream_pop(meshmem_stream_t *s, void *out, size_t max)
{
    if (s == NULL || s->role != 1) {
        mm_error("meshmem_stream_pop: this rank is not the stream's consumer");
        return 0;
    }
    if (max == 0)
        return 0;
    size_t have = meshmem_stream_wait(s, (size_t)s->popped + 1);
    size_t n = have - (size_t)s->popped;
    if (n > max)
        n = max;
    memcpy(out, s->buf + s->popped * s->elem_size, n * s->elem_size);
    s->popped += n;
    return n;
}

int meshmem_stream_ended(const meshmem_stream_t *s)
{
    return s != NULL && s->role == 1 && (mm_stream_signal(s) & MESHMEM_STREAM_END) != 0;
}
