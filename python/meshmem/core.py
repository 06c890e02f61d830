"""The bindings' core: the extension, start and end of the runtime, errors, dtypes, buffers.

Start: the runtime starts when the program first uses the API (`import meshmem` followed by
any meshmem.NAME, see __init__.py), or with init(). It is collective, like MPI_Init in
`from mpi4py import MPI`.

End: at the interpreter's exit, as a C program's `return` from main. A clean exit finalizes
(a barrier; active-message handlers still run in Python meanwhile). A failing one does not:
finalize is a barrier, and peers waiting for something this rank will never do would never
reach it, so the job would hang instead of ending. A rank is failing when an exception
reached the top (sys.excepthook) or sys.exit was called with a non-zero status; it then exits
with that status, the C runtime's on_exit handler sees it and skips finalize too, and meshrun
stops the other ranks, exactly as for a C rank that calls exit(1).
"""
import atexit
import os
import sys
import weakref

import numpy as np

try:
    from meshmem._ffi import ffi, lib
except ImportError as e:  # the CLI runs from the source tree, the bindings need the build
    raise ImportError("meshmem: the bindings' extension (meshmem._ffi) is not built: install "
                      "the package (pip install ., or make test's build/venv)") from e


class Error(RuntimeError):
    """A meshmem call failed. `call` names the call, `status` is the runtime's status code
    (None for errors found in Python)."""

    def __init__(self, call: str, message: str, status=None):
        super().__init__(f"{call}: {message}")
        self.call = call
        self.status = status


_STATUS_NAMES = {getattr(lib, n): n for n in (
    "MESHMEM_ERR_ARG", "MESHMEM_ERR_NOMEM", "MESHMEM_ERR_SYSTEM", "MESHMEM_ERR_STATE",
    "MESHMEM_ERR_NOT_SYMMETRIC", "MESHMEM_ERR_RANK", "MESHMEM_ERR_TEAM",
    "MESHMEM_ERR_UNSUPPORTED", "MESHMEM_ERR_ABORTED")}


def status_error(call: str, status: int, what: str = "") -> Error:
    """The exception for a negative status of @p call; @p what names the argument(s)."""
    text = ffi.string(lib.meshmem_status_string(status)).decode()
    name = _STATUS_NAMES.get(status, str(status))
    return Error(call, f"{what}: {text} ({name})" if what else f"{text} ({name})", status)


# ------------------------------------------------------------------------------------------
# Element types: NumPy dtype -> meshmem_dtype_t
# ------------------------------------------------------------------------------------------

DTYPES = {np.dtype(t): getattr(lib, f"MESHMEM_{c}") for t, c in (
    ("int8", "INT8"), ("int16", "INT16"), ("int32", "INT32"), ("int64", "INT64"),
    ("uint8", "UINT8"), ("uint16", "UINT16"), ("uint32", "UINT32"), ("uint64", "UINT64"),
    ("float32", "FLOAT32"), ("float64", "FLOAT64"), ("float16", "FLOAT16"),
    ("longdouble", "LONGDOUBLE"), ("complex64", "COMPLEXF"), ("complex128", "COMPLEXD"))}
try:  # bfloat16 is not in NumPy; ml_dtypes (JAX's, TensorFlow's) defines it
    import ml_dtypes
    DTYPES[np.dtype(ml_dtypes.bfloat16)] = lib.MESHMEM_BFLOAT16
except ImportError:
    pass
assert np.dtype(np.longdouble).itemsize == lib.meshmem_dtype_size(lib.MESHMEM_LONGDOUBLE)


def dtype_code(dtype, call: str, name: str) -> int:
    """meshmem_dtype_t of a NumPy dtype, or TypeError naming @p call and argument @p name."""
    code = DTYPES.get(np.dtype(dtype))
    if code is None:
        known = ", ".join(str(d) for d in DTYPES)
        raise TypeError(f"{call}: {name}: dtype {np.dtype(dtype)} is not one meshmem reduces "
                        f"or operates on atomically (one of {known})")
    return code


# ------------------------------------------------------------------------------------------
# Buffers: ndarray -> (address, bytes), cached per array
# ------------------------------------------------------------------------------------------
# An entry is (weakref, address, nbytes, dtype, dtype code or None, element count). Reading
# the address of an ndarray costs microseconds (__array_interface__, ctypes, ffi.from_buffer);
# the cache makes a repeated call on the same array a dict lookup. Only C-contiguous arrays
# are cached: an array's data pointer and byte size never change (assigning its shape or dtype
# keeps both; the entry's dtype is compared on every use). The weakref's callback drops the
# entry when the array dies, before its id can be reused.

ADDR, NBYTES, DTYPE, CODE, COUNT = 1, 2, 3, 4, 5
_buffers: dict = {}


def _forget(key):
    return lambda _ref: _buffers.pop(key, None)


def forget_buffers(addr: int, nbytes: int) -> None:
    """Drop the cache entries of arrays within @p nbytes from @p addr (a block just freed:
    their next use takes the path that checks them)."""
    for key in [k for k, e in _buffers.items() if addr <= e[ADDR] < addr + nbytes]:
        del _buffers[key]


def check_live(x: np.ndarray, call: str, name: str) -> None:
    """Error naming @p call and argument @p name when @p x is an array (or a view of one) on
    a symmetric block that meshmem.free released: its memory may hold another array now."""
    base = x.base
    while isinstance(base, np.ndarray):
        base = base.base
    if getattr(base, "freed", False):
        raise Error(call, f"{name}: the symmetric array ({x.dtype}, shape {x.shape}) was "
                          f"released by meshmem.free and may not be used any more",
                    lib.MESHMEM_ERR_ARG)


def buffer(x, call: str, name: str, writable: bool = False):
    """The cache entry of ndarray @p x (see above); TypeError / ValueError naming @p call and
    the argument @p name when @p x is not a C-contiguous ndarray (or not writable), Error when
    it was freed."""
    e = _buffers.get(id(x))
    if e is not None and e[0]() is x and e[DTYPE] is x.dtype:
        return e
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{call}: {name}: expected a NumPy array, got {type(x).__name__}")
    check_live(x, call, name)
    if not x.flags.c_contiguous:
        raise ValueError(f"{call}: {name}: the array is not contiguous (pass a contiguous "
                         f"array or a copy: np.ascontiguousarray)")
    if writable and not x.flags.writeable:
        raise ValueError(f"{call}: {name}: the array is read-only")
    e = (weakref.ref(x, _forget(id(x))), x.__array_interface__["data"][0], x.nbytes, x.dtype,
         DTYPES.get(x.dtype), x.size)
    _buffers[id(x)] = e
    return e


def address(x, call: str, name: str, writable: bool = False) -> int:
    """The address of ndarray @p x's first element, any layout (strided views included)."""
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{call}: {name}: expected a NumPy array, got {type(x).__name__}")
    check_live(x, call, name)
    if writable and not x.flags.writeable:
        raise ValueError(f"{call}: {name}: the array is read-only")
    return x.__array_interface__["data"][0]


# ------------------------------------------------------------------------------------------
# Start and end
# ------------------------------------------------------------------------------------------

_exit_status = None       # what sys.exit was called with, if it was
_uncaught = False         # an exception reached sys.excepthook
_sys_exit = sys.exit
_sys_excepthook = sys.excepthook


def _record_exit(status=None):
    global _exit_status
    _exit_status = status
    _sys_exit(status)


def _record_uncaught(*exc):
    global _uncaught
    _uncaught = True
    _sys_excepthook(*exc)


def failing() -> bool:
    """True when this process is exiting with a non-zero status (see the module's text)."""
    return _uncaught or _exit_status not in (None, 0)


def _at_python_exit():
    if lib.meshmem_initialized() and not failing():
        finalize()
    lib.mmpy_python_gone()  # from here on no C callback may enter the interpreter


def init() -> None:
    """Start the runtime (collective over every rank of the job); a second call does
    nothing. Started outside meshrun, the program is a job of one rank."""
    if lib.meshmem_initialized():
        return
    # The interpreter's own globals need not be symmetric (no Python object lives there), and
    # shared they would be shared with a child forked by subprocess or multiprocessing too.
    saved = os.environ.get("MESHMEM_DATA_REMAP")
    os.environ["MESHMEM_DATA_REMAP"] = "0"
    try:
        status = lib.meshmem_init(lib.MESHMEM_THREAD_MULTIPLE, ffi.NULL)
    finally:
        if saved is None:
            del os.environ["MESHMEM_DATA_REMAP"]
        else:
            os.environ["MESHMEM_DATA_REMAP"] = saved
    if status != lib.MESHMEM_OK:
        raise status_error("meshmem.init", status)
    if sys.exit is _sys_exit:
        sys.exit = _record_exit
    if sys.excepthook is _sys_excepthook:
        sys.excepthook = _record_uncaught
    atexit.register(_at_python_exit)


def finalize() -> None:
    """End the runtime (collective: a barrier); symmetric arrays must no longer be used. Also
    done at a clean exit."""
    if lib.meshmem_initialized():
        lib.meshmem_finalize()


def initialized() -> bool:
    """True between init and finalize."""
    return bool(lib.meshmem_initialized())


def global_exit(status: int = 1) -> None:
    """End the whole job with @p status now (every rank stops; nothing is finalized)."""
    sys.stdout.flush()
    sys.stderr.flush()
    lib.meshmem_global_exit(int(status))


def rank() -> int:
    """This rank's number in the world, 0..size()-1."""
    return lib.meshmem_rank()


def size() -> int:
    """The number of ranks of the job."""
    return lib.meshmem_nranks()


def check_rank(call: str, r, name: str = "rank") -> int:
    """@p r as an int in 0..size()-1, or an Error naming @p call and the argument."""
    n = lib.meshmem_nranks()
    if not isinstance(r, (int, np.integer)) or not 0 <= r < n:
        raise Error(call, f"{name}={r!r}: not a rank of the job (0..{n - 1})",
                    lib.MESHMEM_ERR_RANK)
    return int(r)


# Importing any module of the bindings starts the runtime (see the module's text).
init()
