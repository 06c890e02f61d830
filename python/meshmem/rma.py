"""One-sided operations on symmetric arrays: put, get, atomics, signals, waits, fence, quiet.

The symmetric side (put's and the atomics' dest, get's source, the signal word) is a symmetric
array or a slice of one; it names the same elements on the target rank. The local side is any
NumPy array of the same dtype and size. Contiguous arrays go in one call; one-dimensional
strided slices (a[::2], a column of a 2-D array as a[:, 3]) in one strided call (iput/iget).
Puts are complete at the target on return on this node; fence() orders and quiet() completes
them where a transport does not (the OpenSHMEM rules).
"""
import numpy as np

from meshmem import _fast
from meshmem.core import (ADDR, DTYPE, NBYTES, Error, _buffers, address, buffer, check_rank,
                          dtype_code, lib, status_error)

_fast_put = _fast.put
_get = lib.mmpy_get
_OK = 0


def _rma_error(call: str, status: int, rank, side: str) -> Error:
    if status == lib.MESHMEM_ERR_RANK:
        return Error(call, f"rank={rank!r}: not a rank of the job (0..{lib.meshmem_nranks() - 1})",
                     status)
    if status == lib.MESHMEM_ERR_NOT_SYMMETRIC:
        return Error(call, f"{side}: not (wholly) in a symmetric array: allocate it with "
                           f"meshmem.empty/zeros/array", status)
    return status_error(call, status)


def _local(x, like: np.ndarray, call: str, name: str) -> np.ndarray:
    """@p x as an array of @p like's dtype and size (a scalar or list is converted; an array
    of another dtype or size is an error, not a silent cast)."""
    if not isinstance(x, np.ndarray):
        x = np.asarray(x, dtype=like.dtype)
        if x.size == 1 and like.size != 1:
            x = np.broadcast_to(x, like.shape)
    if x.dtype != like.dtype:
        raise TypeError(f"{call}: {name}: dtype {x.dtype} differs from the symmetric "
                        f"array's {like.dtype}")
    if x.size != like.size:
        raise ValueError(f"{call}: {name}: {x.size} elements, the symmetric side has "
                         f"{like.size}")
    return x


def _strided(x: np.ndarray):
    """(address, stride in elements) of an array laid out along one line, or None."""
    if x.size <= 1 or x.flags.c_contiguous:
        return address(x, "", ""), 1
    dims = [(n, st) for n, st in zip(x.shape, x.strides) if n != 1]
    if len(dims) != 1 or dims[0][1] % x.itemsize:
        return None
    return address(x, "", ""), dims[0][1] // x.itemsize


def _span(addr: int, stride: int, n: int, itemsize: int):
    """(lowest address, bytes) covering @p n elements from @p addr, @p stride elements apart."""
    last = addr + (n - 1) * stride * itemsize
    lo = min(addr, last)
    return lo, abs(last - addr) + itemsize


def _transfer(call, strided_fn, sym, loc, rank, sym_is_dest):
    s, l = _strided(sym), _strided(loc)
    if s is None or l is None:
        which = "dest" if (s is None) == sym_is_dest else "source"
        raise ValueError(f"{call}: {which}: a layout no single call moves (strided in more "
                         f"than one dimension): move it row by row, or use a contiguous copy")
    n, es = sym.size, sym.itemsize
    lo, span = _span(s[0], s[1], n, es)
    if sym_is_dest:
        st = strided_fn(s[0], l[0], s[1], l[1], es, n, lo, span, rank)
    else:
        st = strided_fn(l[0], s[0], l[1], s[1], es, n, lo, span, rank)
    if st != _OK:
        raise _rma_error(call, st, rank, "dest" if sym_is_dest else "source")


def put(dest: np.ndarray, src, rank: int) -> None:
    """Copy local @p src into symmetric @p dest on @p rank (meshmem_put / iput)."""
    # the common case in C (fast.c: it makes the call only when it cannot fail); anything
    # else, and errors, on the path below
    if _fast_put(dest, src, rank):
        _put(dest, src, rank)


def _put(dest, src, rank) -> None:
    call = "meshmem.put"
    src = _local(src, dest, call, "src")
    if dest.flags.c_contiguous and src.flags.c_contiguous:
        d = buffer(dest, call, "dest")
        s = buffer(src, call, "src")
        st = lib.mmpy_put(d[ADDR], s[ADDR], d[NBYTES], rank)
        if st != _OK:
            raise _rma_error(call, st, rank, "dest")
        return
    _transfer(call, lib.mmpy_iput, dest, src, rank, True)


def get(dest, src: np.ndarray, rank: int) -> None:
    """Copy symmetric @p src on @p rank into local @p dest (meshmem_get / iget)."""
    d = _buffers.get(id(dest))
    s = _buffers.get(id(src))
    if (d is not None and s is not None and d[0]() is dest and s[0]() is src
            and s[DTYPE] is src.dtype and s[DTYPE] is d[DTYPE] and d[NBYTES] == s[NBYTES]):
        st = _get(d[ADDR], s[ADDR], d[NBYTES], rank)
        if st != _OK:
            raise _rma_error("meshmem.get", st, rank, "src")
        return
    if not isinstance(dest, np.ndarray):
        raise TypeError(f"meshmem.get: dest: expected a NumPy array, got {type(dest).__name__}")
    _local(dest, src, "meshmem.get", "dest")
    if not dest.flags.writeable:
        raise ValueError("meshmem.get: dest: the array is read-only")
    if dest.flags.c_contiguous and src.flags.c_contiguous:
        d = buffer(dest, "meshmem.get", "dest", writable=True)
        s = buffer(src, "meshmem.get", "src")
        st = _get(d[ADDR], s[ADDR], d[NBYTES], rank)
        if st != _OK:
            raise _rma_error("meshmem.get", st, rank, "src")
        return
    _transfer("meshmem.get", lib.mmpy_iget, src, dest, rank, False)


def put_signal(dest: np.ndarray, src, sig: np.ndarray, signal: int, rank: int,
               sig_op: str = "set") -> None:
    """Put @p src into @p dest on @p rank, then set (or, with sig_op="add", add to) the
    uint64 word sig[0] there: the signal is visible only after the data."""
    call = "meshmem.put_signal"
    src = _local(src, dest, call, "src")
    d = buffer(dest, call, "dest")
    s = buffer(np.ascontiguousarray(src), call, "src")
    g = _signal_word(sig, call)
    op = {"set": lib.MESHMEM_SIGNAL_SET, "add": lib.MESHMEM_SIGNAL_ADD}.get(sig_op)
    if op is None:
        raise ValueError(f"{call}: sig_op={sig_op!r}: expected 'set' or 'add'")
    st = lib.mmpy_put_signal(d[ADDR], s[ADDR], d[NBYTES], g, int(signal), op, rank)
    if st != _OK:
        raise _rma_error(call, st, rank, "dest or sig")


def _signal_word(sig, call: str) -> int:
    if not isinstance(sig, np.ndarray) or sig.dtype != np.uint64 or sig.size < 1:
        raise TypeError(f"{call}: sig: expected a uint64 symmetric array (its first element "
                        f"is the signal word)")
    return address(sig, call, "sig")


def signal_fetch(sig: np.ndarray) -> int:
    """The value of this rank's signal word sig[0] (one atomic load)."""
    return atomic_fetch(sig.reshape(-1)[:1], lib.meshmem_rank())


def signal_wait_until(sig: np.ndarray, cmp: str, value: int) -> int:
    """Wait until this rank's signal word sig[0] compares @p cmp to @p value; return it."""
    wait_until(sig, cmp, value)
    return signal_fetch(sig)


def fence() -> None:
    """Order: puts issued before reach each rank before puts issued after."""
    lib.meshmem_fence()


def quiet() -> None:
    """Complete: every put, atomic and signal issued before is visible at its target."""
    lib.meshmem_quiet()


# ------------------------------------------------------------------------------------------
# Atomics: on element `index` (flat, default 0) of a symmetric array, on @p rank
# ------------------------------------------------------------------------------------------

def _element(dest, index: int, call: str) -> int:
    """The address of element @p index (flat, C order) of @p dest, any layout."""
    if not isinstance(dest, np.ndarray):
        raise TypeError(f"{call}: dest: expected a symmetric NumPy array, got "
                        f"{type(dest).__name__}")
    n = dest.size
    if not -n <= index < n:
        raise IndexError(f"{call}: index={index}: out of range for {n} elements")
    idx = np.unravel_index(index % n, dest.shape) if dest.ndim else ()
    return address(dest, call, "dest") + sum(int(i) * st for i, st in zip(idx, dest.strides))


def _amo(op: str, dest, value, cond, rank, index: int, fetch: bool):
    call = f"meshmem.atomic_{op}"
    r = check_rank(call, rank)
    addr = _element(dest, index, call)
    code = dtype_code(dest.dtype, call, "dest")
    v = np.array(0 if value is None else value, dtype=dest.dtype)
    c = np.array(0 if cond is None else cond, dtype=dest.dtype)
    out = np.zeros((), dtype=dest.dtype)
    amo = getattr(lib, f"MESHMEM_AMO_{_AMO_OPS[op]}")
    st = lib.mmpy_atomic(amo, code, addr, address(v, call, "value"), address(c, call, "cond"),
                         address(out, call, "") if fetch else 0, r)
    if st != _OK:
        if st == lib.MESHMEM_ERR_ARG:
            raise TypeError(f"{call}: dest: dtype {dest.dtype} does not support atomic {op} "
                            f"(add, inc and the bitwise operations take integers)")
        raise _rma_error(call, st, rank, "dest")
    return out[()] if fetch else None


_AMO_OPS = {"fetch": "FETCH", "set": "SET", "swap": "SWAP", "compare_swap": "CSWAP",
            "add": "ADD", "fetch_add": "ADD", "inc": "ADD", "fetch_inc": "ADD",
            "and": "AND", "fetch_and": "AND", "or": "OR", "fetch_or": "OR",
            "xor": "XOR", "fetch_xor": "XOR"}


def atomic_fetch(dest, rank, index=0):
    """The value of dest[index] on @p rank, read atomically."""
    return _amo("fetch", dest, None, None, rank, index, True)


def atomic_set(dest, value, rank, index=0):
    """Set dest[index] on @p rank to @p value atomically."""
    _amo("set", dest, value, None, rank, index, False)


def atomic_swap(dest, value, rank, index=0):
    """Swap @p value into dest[index] on @p rank; return the previous value."""
    return _amo("swap", dest, value, None, rank, index, True)


def atomic_compare_swap(dest, cond, value, rank, index=0):
    """Store @p value in dest[index] on @p rank if it equals @p cond; return the previous."""
    return _amo("compare_swap", dest, value, cond, rank, index, True)


def atomic_add(dest, value, rank, index=0):
    """dest[index] += value on @p rank, atomically."""
    _amo("add", dest, value, None, rank, index, False)


def atomic_fetch_add(dest, value, rank, index=0):
    """dest[index] += value on @p rank, atomically; return the previous value."""
    return _amo("fetch_add", dest, value, None, rank, index, True)


def atomic_inc(dest, rank, index=0):
    """dest[index] += 1 on @p rank, atomically."""
    _amo("inc", dest, 1, None, rank, index, False)


def atomic_fetch_inc(dest, rank, index=0):
    """dest[index] += 1 on @p rank, atomically; return the previous value."""
    return _amo("fetch_inc", dest, 1, None, rank, index, True)


def atomic_and(dest, value, rank, index=0):
    """dest[index] &= value on @p rank, atomically (integers)."""
    _amo("and", dest, value, None, rank, index, False)


def atomic_fetch_and(dest, value, rank, index=0):
    """dest[index] &= value on @p rank, atomically; return the previous value."""
    return _amo("fetch_and", dest, value, None, rank, index, True)


def atomic_or(dest, value, rank, index=0):
    """dest[index] |= value on @p rank, atomically (integers)."""
    _amo("or", dest, value, None, rank, index, False)


def atomic_fetch_or(dest, value, rank, index=0):
    """dest[index] |= value on @p rank, atomically; return the previous value."""
    return _amo("fetch_or", dest, value, None, rank, index, True)


def atomic_xor(dest, value, rank, index=0):
    """dest[index] ^= value on @p rank, atomically (integers)."""
    _amo("xor", dest, value, None, rank, index, False)


def atomic_fetch_xor(dest, value, rank, index=0):
    """dest[index] ^= value on @p rank, atomically; return the previous value."""
    return _amo("fetch_xor", dest, value, None, rank, index, True)


# ------------------------------------------------------------------------------------------
# Waiting on a local symmetric element that peers write
# ------------------------------------------------------------------------------------------

CMPS = {"==": "EQ", "!=": "NE", ">": "GT", "<=": "LE", "<": "LT", ">=": "GE",
        "eq": "EQ", "ne": "NE", "gt": "GT", "le": "LE", "lt": "LT", "ge": "GE"}


def _cmp(cmp, call: str) -> int:
    name = CMPS.get(cmp)
    if name is None:
        raise ValueError(f"{call}: cmp={cmp!r}: expected one of ==, !=, >, <=, <, >=")
    return getattr(lib, f"MESHMEM_CMP_{name}")


def wait_until(ivar: np.ndarray, cmp: str, value, index: int = 0) -> None:
    """Wait until this rank's ivar[index] compares @p cmp ("==", "<", ...) to @p value.
    Spins briefly, then yields, then sleeps until a peer writes to this rank."""
    call = "meshmem.wait_until"
    addr = _element(ivar, index, call)
    v = np.array(value, dtype=ivar.dtype)
    st = lib.mmpy_wait_until(addr, dtype_code(ivar.dtype, call, "ivar"), _cmp(cmp, call),
                             address(v, call, "value"))
    if st != _OK:
        raise status_error(call, st, f"ivar dtype {ivar.dtype}")


def test(ivar: np.ndarray, cmp: str, value, index: int = 0) -> bool:
    """True if this rank's ivar[index] compares @p cmp to @p value now."""
    call = "meshmem.test"
    addr = _element(ivar, index, call)
    v = np.array(value, dtype=ivar.dtype)
    r = lib.mmpy_test(addr, dtype_code(ivar.dtype, call, "ivar"), _cmp(cmp, call),
                      address(v, call, "value"))
    if r < 0:
        raise status_error(call, r, f"ivar dtype {ivar.dtype}")
    return bool(r)
