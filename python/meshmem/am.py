"""Active messages with Python handlers, put/get carried by them, and streams (meshmem_am.h).

A handler is a Python function `fn(token, payload, *args)`: `token.rank` is the sender,
`token.reply(...)` answers a request (once, only inside a request handler), `payload` is a
memoryview on the message's bytes (MEDIUM: a temporary buffer valid until the handler
returns, copy what you keep; LONG: the destination on this rank; SHORT: None) and `args` the
integer arguments. Handlers run one at a time on a rank, inside any waiting meshmem call,
poll() or quiet(); they must not block (no waits, collectives or requests inside).

register() is collective: every rank registers the same indices, kinds and flags (the
functions may differ). An exception escaping a handler ends the job (every rank) with status
1 after printing its traceback, as an uncaught exception in the program does.
"""
import sys
import traceback
from dataclasses import dataclass
from typing import Callable

import numpy as np

from meshmem.core import ADDR, NBYTES, Error, address, buffer, check_rank, ffi, lib, status_error

# the names `import meshmem` offers (meshmem.NAME, __init__.py)
__all__ = ["Stream"]

KINDS = {"short": lib.MESHMEM_AM_SHORT, "medium": lib.MESHMEM_AM_MEDIUM,
         "long": lib.MESHMEM_AM_LONG}
FLAGS = {"request": lib.MESHMEM_AM_REQUEST, "reply": lib.MESHMEM_AM_REPLY,
         "both": lib.MESHMEM_AM_REQREP}
MAX_ARGS = lib.MESHMEM_AM_MAX_ARGS
MAX_HANDLERS = lib.MESHMEM_AM_MAX_HANDLERS

_functions: dict = {}  # index -> the Python function of the registered handler


@dataclass(frozen=True)
class Handler:
    """One registration: handler @p index (0..255) runs @p fn for messages of @p kind
    ("short", "medium", "long") sent as @p flags ("request", "reply", "both") with @p nargs
    arguments (-1: any number)."""

    index: int
    fn: Callable
    kind: str = "short"
    flags: str = "request"
    nargs: int = -1


def handler(index: int, kind: str = "short", flags: str = "request", nargs: int = -1):
    """Decorator: `@meshmem.am.handler(3, "medium")` makes a Handler of the function below
    (register it with register(), collectively)."""
    return lambda fn: Handler(index, fn, kind, flags, nargs)


def register(*handlers: Handler) -> None:
    """Register @p handlers on every rank (collective; see the module's text)."""
    call = "meshmem.am.register"
    entries = ffi.new("meshmem_am_entry_t[]", max(len(handlers), 1))
    for k, h in enumerate(handlers):
        if not isinstance(h, Handler):
            raise TypeError(f"{call}: argument {k}: expected a meshmem.am.Handler, got "
                            f"{type(h).__name__}")
        if not callable(h.fn):
            raise TypeError(f"{call}: handler {h.index}: fn is not callable")
        for table, value, what in ((KINDS, h.kind, "kind"), (FLAGS, h.flags, "flags")):
            if value not in table:
                raise ValueError(f"{call}: handler {h.index}: {what}={value!r}: expected one "
                                 f"of {', '.join(table)}")
        e = entries[k]
        e.index, e.kind, e.flags, e.nargs = h.index, KINDS[h.kind], FLAGS[h.flags], h.nargs
    # the functions first: a peer may send as soon as the registration is committed, and this
    # rank runs its requests from inside the registration's closing barrier
    previous = {h.index: _functions.get(h.index) for h in handlers}
    for h in handlers:
        _functions[h.index] = h.fn
    st = lib.mmpy_am_register(entries, len(handlers))
    if st != 0:
        for index, fn in previous.items():
            if fn is None:
                _functions.pop(index, None)
            else:
                _functions[index] = fn
        raise status_error(call, st, "indices " + ", ".join(str(h.index) for h in handlers)
                           + " (every rank must register the same indices, kinds, flags and "
                             "nargs)")


class Token:
    """The message a handler runs for; valid only inside that handler."""

    __slots__ = ("_t", "rank")

    def __init__(self, t):
        self._t = t
        self.rank = lib.meshmem_am_token_rank(t)

    def reply(self, handler: int, *args: int, payload=None, dest=None) -> None:
        """Answer the request with a message to @p handler on the sender: SHORT without
        @p payload, MEDIUM with it, LONG when @p dest (a symmetric array) is given."""
        call = "meshmem.am.Token.reply"
        if self._t is None:
            raise Error(call, "the token is no longer valid (its handler has returned)",
                        lib.MESHMEM_ERR_STATE)
        a, n = _args(args, call)
        if payload is None:
            st = lib.meshmem_am_reply_short(self._t, handler, n, a)
        else:
            p = _payload(payload, call)
            if dest is None:
                st = lib.meshmem_am_reply_medium(self._t, handler, _ptr(p[ADDR]), p[NBYTES], n,
                                                 a)
            else:
                st = lib.meshmem_am_reply_long(self._t, handler, _ptr(p[ADDR]), p[NBYTES],
                                               _ptr(address(dest, call, "dest")), n, a)
        if st != 0:
            raise status_error(call, st, f"handler={handler}")


def _ptr(addr: int):
    return ffi.cast("void *", addr)


def _args(args, call: str):
    if len(args) > MAX_ARGS:
        raise ValueError(f"{call}: {len(args)} arguments: at most {MAX_ARGS}")
    try:
        return ffi.new("meshmem_am_arg_t[]", [int(v) & 0xFFFFFFFFFFFFFFFF for v in args]) \
            if args else ffi.NULL, len(args)
    except (TypeError, ValueError):
        raise TypeError(f"{call}: arguments {args!r}: expected integers") from None


def _payload(payload, call: str):
    return buffer(np.ascontiguousarray(payload) if isinstance(payload, np.ndarray)
                  else np.frombuffer(bytes(payload), np.uint8), call, "payload")


def request(rank: int, handler: int, *args: int, payload=None, dest=None) -> None:
    """Send a request to @p handler on @p rank: SHORT without @p payload, MEDIUM with it
    (a NumPy array or bytes, at most max_medium() bytes), LONG when @p dest, a symmetric
    array, is given (the payload lands there on @p rank before the handler runs)."""
    call = "meshmem.am.request"
    r = check_rank(call, rank)
    a, n = _args(args, call)
    if payload is None:
        st = lib.meshmem_am_request_short(r, handler, n, a)
    else:
        p = _payload(payload, call)
        if dest is None:
            st = lib.meshmem_am_request_medium(r, handler, _ptr(p[ADDR]), p[NBYTES], n, a)
        else:
            st = lib.meshmem_am_request_long(r, handler, _ptr(p[ADDR]), p[NBYTES],
                                             _ptr(address(dest, call, "dest")), n, a)
    if st != 0:
        raise status_error(call, st, f"handler={handler} rank={rank}")


def poll() -> int:
    """Run the handlers of the messages that have arrived; @return how many ran."""
    return lib.meshmem_am_poll()


def quiet() -> None:
    """Wait until every request sent from here was handled (and its reply handled here)."""
    st = lib.meshmem_am_quiet()
    if st != 0:
        raise status_error("meshmem.am.quiet", st)


def max_medium() -> int:
    """The largest MEDIUM payload in bytes."""
    return lib.meshmem_am_max_medium()


def max_long() -> int:
    """The largest LONG payload in bytes."""
    return lib.meshmem_am_max_long()


def put(dest: np.ndarray, src, rank: int, frag: int = 0) -> None:
    """Put @p src into symmetric @p dest on @p rank with active messages, in fragments of
    @p frag bytes (0: one); complete after quiet()."""
    call = "meshmem.am.put"
    s = buffer(np.ascontiguousarray(src, dtype=dest.dtype), call, "src")
    d = buffer(dest, call, "dest")
    st = lib.meshmem_am_put(_ptr(d[ADDR]), _ptr(s[ADDR]), min(s[NBYTES], d[NBYTES]),
                            check_rank(call, rank), int(frag))
    if st != 0:
        raise status_error(call, st, "dest must be a symmetric array")


def get(dest: np.ndarray, src: np.ndarray, rank: int, frag: int = 0) -> None:
    """Get symmetric @p src on @p rank into @p dest with active messages (complete on
    return)."""
    call = "meshmem.am.get"
    d = buffer(dest, call, "dest", writable=True)
    s = buffer(src, call, "src")
    st = lib.meshmem_am_get(_ptr(d[ADDR]), _ptr(s[ADDR]), min(s[NBYTES], d[NBYTES]),
                            check_rank(call, rank), int(frag))
    if st != 0:
        raise status_error(call, st, "src must be a symmetric array")


def _handler_failed(exc_type, exc, tb) -> None:
    """An exception escaped a handler: it cannot propagate through C, so it ends the job."""
    sys.stderr.write(f"meshmem[{lib.meshmem_rank()}] error: an active-message handler "
                     f"raised:\n")
    traceback.print_exception(exc_type, exc, tb)
    sys.stderr.flush()
    sys.stdout.flush()
    lib.meshmem_global_exit(1)


@ffi.def_extern(onerror=_handler_failed)
def mmpy_am_python(index, token, buf, nbytes, args, nargs):
    fn = _functions.get(index)
    if fn is None:
        raise Error("meshmem.am", f"handler {index} has no Python function on this rank")
    t = Token(token)
    try:
        fn(t, memoryview(ffi.buffer(buf, nbytes)) if nbytes else None,
           *(args[i] for i in range(nargs)))
    finally:
        t._t = None


# ------------------------------------------------------------------------------------------
# Streams
# ------------------------------------------------------------------------------------------

class Stream:
    """A stream of elements from @p producer into symmetric @p buf on @p consumer: every
    @p batch elements become visible there with one signal (FSHMEM's Automatic Result
    Transfer). Both ranks open it (local, no communication); @p signal is a symmetric uint64
    array whose first element counts the elements delivered and must be zero on the consumer
    before the first push (zeros, then a barrier). As a context manager, the producer's
    stream is closed at the end of the block."""

    def __init__(self, buf: np.ndarray, signal: np.ndarray, batch: int, producer: int,
                 consumer: int):
        call = "meshmem.am.Stream"
        b = buffer(buf, call, "buf", writable=True)
        if not isinstance(signal, np.ndarray) or signal.dtype != np.uint64:
            raise TypeError(f"{call}: signal: expected a uint64 symmetric array")
        self.dtype = buf.dtype
        self._buf, self._signal = buf, signal  # keep the symmetric arrays alive
        self._s = ffi.new("meshmem_stream_t *")
        st = lib.meshmem_stream_open(self._s, _ptr(b[ADDR]), buf.itemsize, buf.size,
                                     ffi.cast("uint64_t *", address(signal, call, "signal")),
                                     int(batch), int(producer), int(consumer))
        if st != 0:
            raise status_error(call, st, f"batch={batch} producer={producer} "
                                         f"consumer={consumer} (buf and signal symmetric)")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._s.role == 0:
            self.close()

    def push(self, elems) -> None:
        """Producer: append @p elems (an array of the stream's dtype, or one value)."""
        e = buffer(np.ascontiguousarray(elems, dtype=self.dtype).reshape(-1),
                   "meshmem.am.Stream.push", "elems")
        self._check("push", lib.meshmem_stream_push(self._s, _ptr(e[ADDR]),
                                                    e[NBYTES] // self.dtype.itemsize))

    def flush(self) -> None:
        """Producer: make every pushed element visible now, even a partial batch."""
        self._check("flush", lib.meshmem_stream_flush(self._s))

    def close(self) -> None:
        """Producer: flush and signal the end of the stream (idempotent)."""
        self._check("close", lib.meshmem_stream_close(self._s))

    def wait(self, count: int) -> int:
        """Consumer: wait until @p count elements in all have arrived or the stream ended;
        @return how many have arrived."""
        return lib.meshmem_stream_wait(self._s, int(count))

    def pop(self, max_count: int = None) -> np.ndarray:
        """Consumer: up to @p max_count arrived elements not yet taken (waits for one unless
        the stream ended; an empty array once it ended and all were taken)."""
        n = self._s.capacity if max_count is None else int(max_count)
        out = np.empty(n, self.dtype)
        got = lib.meshmem_stream_pop(self._s, _ptr(address(out, "", "")), n)
        return out[:got]

    @property
    def ended(self) -> bool:
        """Consumer: the producer has closed the stream (every element has arrived)."""
        return bool(lib.meshmem_stream_ended(self._s))

    def _check(self, what: str, st: int) -> None:
        if st != 0:
            raise status_error(f"meshmem.am.Stream.{what}", st,
                               "not the producer, closed, or past the buffer's capacity")
