/**
 * @file meshmem_am.h
 * @brief Active messages (GASNet's shape), put/get carried by them, and streaming transfers.
 *
 * Active messages: a message names a handler, registered by index on every rank, that runs at
 * the target with the message's integer arguments and payload (FSHMEM's GASNet core).
 *  - Three kinds. SHORT: up to MESHMEM_AM_MAX_ARGS arguments, no payload. MEDIUM: a payload of
 *    up to meshmem_am_max_medium() bytes, handed to the handler in a temporary buffer valid
 *    until it returns. LONG: a payload written to a symmetric destination address on the target
 *    before the handler runs (the handler gets that address).
 *  - Requests go to any rank; a reply goes only from inside a request handler, to the
 *    requester, at most once per request. Reply handlers may not send anything.
 *  - Handlers on a rank run one at a time (FSHMEM's handler atomicity), whichever thread polls.
 *    They must not block (no waits, barriers or requests inside a handler).
 *  - Progress: every meshmem call that waits runs incoming handlers, as does meshmem_am_poll();
 *    MESHMEM_PROGRESS_THREAD=1 adds a progress thread.
 *  - Flow control: each (sender, receiver) pair has its own ring of fixed-size slots in the
 *    receiver's memory, and the receiver returns credits. A sender that finds the ring full
 *    waits, serving its own incoming messages meanwhile, so floods never overflow or deadlock.
 *    A request reserves the slot of its reply: a reply never waits.
 *
 * Streams: a producer pushes elements bound for a consumer's symmetric buffer; every N elements
 * become visible with one signal (FSHMEM's Automatic Result Transfer). The consumer pops
 * elements or waits on the count; the producer never waits for the consumer (no round trip).
 */
#ifndef MESHMEM_AM_H
#define MESHMEM_AM_H

#include "meshmem.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what this header declares is libmeshmem's API: exported, while everything else in the
 * library is hidden (built with -fvisibility=hidden) */
#pragma GCC visibility push(default)

/* ------------------------------------------------------------------------------------------ */
/* Active messages                                                                             */
/* ------------------------------------------------------------------------------------------ */

/** Most integer arguments a message carries (GASNet's gex_AM_MaxArgs). */
#define MESHMEM_AM_MAX_ARGS 16
/** Handler indices are 0 .. MESHMEM_AM_MAX_HANDLERS - 1. */
#define MESHMEM_AM_MAX_HANDLERS 256

/** One message argument. */
typedef uint64_t meshmem_am_arg_t;

/** Identifies the message a handler runs for; valid only inside that handler. */
typedef struct meshmem_am_token *meshmem_am_token_t;

/**
 * A handler. @p buf and @p nbytes: the payload (MEDIUM: a temporary buffer, LONG: the
 * destination on this rank; SHORT: NULL, 0). @p args: the @p nargs arguments.
 */
typedef void (*meshmem_am_handler_t)(meshmem_am_token_t token, void *buf, size_t nbytes,
                                     const meshmem_am_arg_t *args, int nargs);

/** Message kinds. */
typedef enum {
    MESHMEM_AM_SHORT = 1,  /**< arguments only */
    MESHMEM_AM_MEDIUM = 2, /**< payload in a temporary buffer */
    MESHMEM_AM_LONG = 3,   /**< payload at a symmetric destination */
} meshmem_am_kind_t;

/** Whether a handler takes requests, replies or both. */
enum {
    MESHMEM_AM_REQUEST = 1,
    MESHMEM_AM_REPLY = 2,
    MESHMEM_AM_REQREP = 3,
};

/** One handler registration (as GASNet-EX's gex_AM_Entry_t). */
typedef struct {
    int index;               /**< 0 .. MESHMEM_AM_MAX_HANDLERS-1 */
    meshmem_am_handler_t fn; /**< the handler */
    meshmem_am_kind_t kind;  /**< the one kind of message it takes */
    int flags;               /**< MESHMEM_AM_REQUEST, _REPLY or _REQREP */
    int nargs;               /**< the argument count it takes, or -1 for any */
} meshmem_am_entry_t;

/**
 * @brief Register @p count handlers (collective over all ranks).
 *
 * Every rank must register the same indices with the same kind, flags and nargs (the function
 * pointers may differ). Checked collectively: on a mismatch or a bad entry anywhere, every rank
 * gets the error (and a line naming the index and ranks is logged) and nothing is registered.
 * An index may be registered again with a new function.
 * @param [in] entries  the registrations
 * @param [in] count    their number (0 is allowed and still collective)
 * @return MESHMEM_OK; MESHMEM_ERR_ARG for a bad index, kind, flags, nargs, a NULL function or a
 *         mismatch between ranks; MESHMEM_ERR_STATE inside a handler or before init.
 */
meshmem_status_t meshmem_am_register(const meshmem_am_entry_t *entries, int count);

/**
 * @brief Send a SHORT request to @p rank: handler @p handler runs there with @p args.
 * May wait for ring space (serving incoming messages meanwhile); never from inside a handler.
 * @param [in] rank     target world rank (this rank itself included)
 * @param [in] handler  a registered SHORT request handler index
 * @param [in] nargs    0 .. MESHMEM_AM_MAX_ARGS
 * @param [in] args     @p nargs arguments (may be NULL when nargs is 0)
 * @return MESHMEM_OK once the message is in the target's ring; MESHMEM_ERR_ARG (unregistered
 *         or wrong-kind handler, bad nargs), MESHMEM_ERR_RANK, MESHMEM_ERR_STATE (in a handler).
 */
meshmem_status_t meshmem_am_request_short(int rank, int handler, int nargs,
                                          const meshmem_am_arg_t *args);

/**
 * @brief Send a MEDIUM request: @p nbytes of @p buf are handed to the handler in a temporary
 * buffer. @p buf may be reused on return.
 * @return as meshmem_am_request_short; MESHMEM_ERR_ARG also when @p nbytes exceeds
 *         meshmem_am_max_medium().
 */
meshmem_status_t meshmem_am_request_medium(int rank, int handler, const void *buf, size_t nbytes,
                                           int nargs, const meshmem_am_arg_t *args);

/**
 * @brief Send a LONG request: @p nbytes of @p buf are written to symmetric @p dest on @p rank,
 * then the handler runs there with (dest as seen on @p rank, nbytes). @p buf may be reused on
 * return.
 * @return as meshmem_am_request_short; MESHMEM_ERR_NOT_SYMMETRIC when [dest, dest+nbytes) is
 *         not symmetric; MESHMEM_ERR_ARG when nbytes exceeds meshmem_am_max_long().
 */
meshmem_status_t meshmem_am_request_long(int rank, int handler, const void *buf, size_t nbytes,
                                         void *dest, int nargs, const meshmem_am_arg_t *args);

/**
 * @brief Reply with a SHORT message to the requester of @p token (only inside a request
 * handler, at most once per request). Never waits: the request reserved the reply's slot.
 * @return MESHMEM_OK; MESHMEM_ERR_STATE outside a request handler, with a token that is not
 *         the running handler's, or for a second reply; MESHMEM_ERR_ARG as for requests.
 */
meshmem_status_t meshmem_am_reply_short(meshmem_am_token_t token, int handler, int nargs,
                                        const meshmem_am_arg_t *args);

/** @brief Reply with a MEDIUM message (see meshmem_am_reply_short and _request_medium). */
meshmem_status_t meshmem_am_reply_medium(meshmem_am_token_t token, int handler, const void *buf,
                                         size_t nbytes, int nargs, const meshmem_am_arg_t *args);

/**
 * @brief Reply with a LONG message to symmetric @p dest on the requester (see
 * meshmem_am_reply_short and meshmem_am_request_long).
 */
meshmem_status_t meshmem_am_reply_long(meshmem_am_token_t token, int handler, const void *buf,
                                       size_t nbytes, void *dest, int nargs,
                                       const meshmem_am_arg_t *args);

/** @return the world rank that sent the message of @p token, or -1 for an invalid token. */
int meshmem_am_token_rank(meshmem_am_token_t token);

/** @return the most arguments of a message: MESHMEM_AM_MAX_ARGS. */
int meshmem_am_max_args(void);

/** @return the largest MEDIUM payload in bytes (MESHMEM_AM_MEDIUM_SIZE, rounded). */
size_t meshmem_am_max_medium(void);

/** @return the largest LONG payload in bytes: the symmetric heap size. */
size_t meshmem_am_max_long(void);

/**
 * @brief Run the handlers of the messages that have arrived (none when another thread is
 * running handlers, or when called from a handler).
 * @return the number of messages handled.
 */
int meshmem_am_poll(void);

/**
 * @brief Wait until every request this rank has sent has been handled at its target and its
 * reply (if any) has been handled here. Serves incoming messages meanwhile.
 * @return MESHMEM_OK, or MESHMEM_ERR_STATE inside a handler.
 */
meshmem_status_t meshmem_am_quiet(void);

/* ------------------------------------------------------------------------------------------ */
/* put and get carried by active messages                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * @brief Put @p nbytes from local @p src to symmetric @p dest on @p rank as LONG requests to
 * the runtime's PUT handler, in fragments ("packets") of @p frag bytes (0: one message).
 * Fragments up to meshmem_am_max_medium() travel inside the ring slot and are copied into place
 * by the target; a larger message is written directly to the destination before its header.
 * @note Not complete on return: meshmem_am_quiet() completes it (every PUT handler has run).
 * @return MESHMEM_OK, MESHMEM_ERR_RANK, MESHMEM_ERR_NOT_SYMMETRIC, MESHMEM_ERR_STATE.
 */
meshmem_status_t meshmem_am_put(void *dest, const void *src, size_t nbytes, int rank, size_t frag);

/**
 * @brief Get @p nbytes from symmetric @p src on @p rank into local @p dest: per fragment of
 * @p frag bytes (0: one), a SHORT request to the GET handler, answered by a LONG reply when
 * @p dest is symmetric, else by MEDIUM replies copied here by their handler. Complete on return.
 * @return MESHMEM_OK, MESHMEM_ERR_RANK, MESHMEM_ERR_NOT_SYMMETRIC, MESHMEM_ERR_STATE.
 */
meshmem_status_t meshmem_am_get(void *dest, const void *src, size_t nbytes, int rank, size_t frag);

/* ------------------------------------------------------------------------------------------ */
/* Streams                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** A stream's state on one side (producer or consumer); plain data, no allocation. */
typedef struct {
    /* producer's fast path (meshmem_stream_push1): first, one line with the element size */
    char *wp;         /**< producer: where the next element goes (consumer's buffer, mapped here) */
    char *wlim;       /**< producer: the last element of the current batch (pushing it completes
                               the batch: out of line); NULL when closed or not the producer */
    size_t elem_size; /**< bytes per element */
    char *buf;        /**< symmetric element buffer (the consumer's copy receives) */
    uint64_t *signal; /**< symmetric 64-bit count word (the consumer's copy counts) */
    size_t capacity;  /**< elements the buffer holds */
    size_t batch;     /**< N: elements per signal */
    int producer, consumer; /**< world ranks */
    int role;               /**< 0 producer, 1 consumer, -1 neither */
    int closed;             /**< producer: closed */
    char *remote;           /**< producer: the consumer's buffer as mapped here, or the staging
                               buffer when the consumer is on another host */
    char *stage;            /**< producer: staging buffer for a consumer on another host (freed
                               by meshmem_stream_close), else NULL */
#ifdef __cplusplus
    uint64_t *remote_signal; /* the same pointer: C++ has no _Atomic; only the library uses it */
#else
    _Atomic uint64_t *remote_signal; /**< producer: the consumer's signal as mapped here */
#endif
    size_t sig_off;     /**< producer: bytes made visible */
    size_t next_off;    /**< producer: byte offset of the next batch boundary (SIZE_MAX: none) */
    size_t batch_bytes; /**< producer: N * elem_size (SIZE_MAX when N exceeds the capacity) */
    size_t woken_off;   /**< producer: bytes visible when the consumer was last woken */
    uint64_t signalled; /**< producer: elements made visible */
    uint64_t popped;    /**< consumer: elements taken */
} meshmem_stream_t;

/** Bit of the signal word set when the producer has closed the stream. */
#define MESHMEM_STREAM_END (UINT64_C(1) << 63)

/**
 * @brief Open a stream from @p producer to @p consumer (called by both; local only, no
 * communication). The consumer's @p signal must be zero before the producer's first push
 * (e.g. zeroed, then a barrier), as for any signal. A consumer on another host receives each
 * batch by put from a staging buffer the producer allocates here and frees at
 * meshmem_stream_close (which a producer must call).
 * @param [out] s          the stream
 * @param [in]  buf        symmetric buffer of @p capacity elements of @p elem_size bytes
 * @param [in]  signal     symmetric 64-bit word: elements delivered, MESHMEM_STREAM_END at close
 * @param [in]  batch      N: elements per put-with-signal (at least 1)
 * @return MESHMEM_OK, MESHMEM_ERR_ARG (zero sizes or batch, producer == consumer),
 *         MESHMEM_ERR_RANK, MESHMEM_ERR_NOT_SYMMETRIC, MESHMEM_ERR_NOMEM (no staging buffer).
 */
meshmem_status_t meshmem_stream_open(meshmem_stream_t *s, void *buf, size_t elem_size,
                                     size_t capacity, uint64_t *signal, size_t batch, int producer,
                                     int consumer);

/**
 * @brief Producer: append @p count elements of @p elems (one copy into the consumer's buffer).
 * Every time a multiple of N elements is complete (counted from the open or the last flush),
 * they become visible at the consumer with one signal; a push that completes several batches
 * signals once, for the last. Never waits. A producer that has its results a batch at a time
 * pushes them with one call: per batch, one copy and one signal store.
 * @note A consumer asleep in a wait (after its spin budget) is woken at most once per 4 KiB of
 *       elements and always at flush and close, not at every batch: a wake is a system call.
 * @return MESHMEM_OK; MESHMEM_ERR_ARG past the capacity; MESHMEM_ERR_STATE when not the
 *         producer or after close.
 */
meshmem_status_t meshmem_stream_push(meshmem_stream_t *s, const void *elems, size_t count);

/**
 * @brief Producer: append one element; the same as meshmem_stream_push(s, elem, 1), inline for
 * compute loops that push each result as it is produced (FSHMEM's Automatic Result Transfer).
 * Inside a batch it is one bounds check and one store into the consumer's buffer (the element
 * size test is constant for a stream and predicted); the element that completes a batch, and
 * every error, take the out-of-line meshmem_stream_push.
 */
static inline meshmem_status_t meshmem_stream_push1(meshmem_stream_t *s, const void *elem)
{
    char *p = s->wp;
    /* integers: wlim is NULL (never above p) when closed or not the producer */
    if (__builtin_expect((uintptr_t)p < (uintptr_t)s->wlim, 1)) {
        size_t es = s->elem_size;
        if (es == 4)
            __builtin_memcpy(p, elem, 4);
        else if (es == 8)
            __builtin_memcpy(p, elem, 8);
        else
            __builtin_memcpy(p, elem, es);
        s->wp = p + es;
        return MESHMEM_OK;
    }
    return meshmem_stream_push(s, elem, 1);
}

/** @brief Producer: make every pushed element visible now, even a partial batch. */
meshmem_status_t meshmem_stream_flush(meshmem_stream_t *s);

/** @brief Producer: flush and signal the end of the stream. Idempotent. */
meshmem_status_t meshmem_stream_close(meshmem_stream_t *s);

/**
 * @brief Consumer: wait until at least @p count elements in total have arrived, or the stream
 * has ended. @return the number of elements that have arrived (may be below @p count only at
 * the end).
 */
size_t meshmem_stream_wait(meshmem_stream_t *s, size_t count);

/**
 * @brief Consumer: copy up to @p max arrived elements not yet popped into @p out, waiting for
 * at least one unless the stream has ended.
 * @return the number of elements copied; 0 once the stream has ended and all are popped.
 */
size_t meshmem_stream_pop(meshmem_stream_t *s, void *out, size_t max);

/** @return consumer: non-zero when the producer has closed the stream (all data arrived). */
int meshmem_stream_ended(const meshmem_stream_t *s);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* MESHMEM_AM_H */
