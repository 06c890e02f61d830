"""Symmetric arrays: NumPy arrays whose memory is a block of the symmetric heap.

Allocation is collective (every rank, same shape and dtype, same order), as meshmem_malloc:
the same sequence of allocations gives every rank its block at the same heap offset, so an
array names the same memory on every rank and put/get/atomics/collectives address a peer's
copy of it.

Release is collective too, and must not depend on when each rank's garbage collector runs.
free(a) releases a block at once (all ranks call it, as shmem_free; the array must not be used
afterwards). Otherwise a block is released once no array on any rank refers to it: when the
last reference goes, the block joins this rank's list of unreferenced blocks (numbered in
allocation order, the same numbers on every rank); every allocation first gathers the lists
of all ranks and frees, in order, the blocks unreferenced everywhere.
"""
import numpy as np

from meshmem import _fast
from meshmem.core import Error, ffi, forget_buffers, lib

# the names `import meshmem` offers (meshmem.NAME, __init__.py)
__all__ = ["array", "empty", "zeros", "full", "asarray", "empty_like", "zeros_like", "free",
           "is_symmetric", "ptr", "heap_info", "release_unreferenced"]

_ALIGN = 64          # a cache line: what the runtime's one-step collectives like best
_next_id = 0         # allocation number, the same on every rank
_live = {}           # allocation number -> address, blocks not yet freed
_unreferenced = []   # allocation numbers of blocks no array refers to any more, here


class _Block(_fast.Block):
    """Owner of one symmetric block: the base of every array on it (NumPy's .base).
    `freed` (a field of _fast.Block, which meshmem.put's fast path reads in C) is set by
    free(): the calls then refuse the arrays on it, and every view of them (core.check_live)."""

    __slots__ = ("__array_interface__", "number", "__weakref__")

    def __init__(self, addr: int, nbytes: int, number: int):
        # bytes: the array interface cannot describe every dtype (ml_dtypes' bfloat16 is
        # "<V2" there), so the array is a view of these bytes as its dtype
        self.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                    "data": (addr, False)}
        self.number = number
        self.freed = False

    def __del__(self):
        if self.number in _live:
            _unreferenced.append(self.number)


def _gather_lists(call: bytes) -> list:
    """Every rank's list of unreferenced blocks (collective over the world), the all-gathers
    named @p call in the runtime's error lines (the allocation they are part of)."""
    n = lib.meshmem_nranks()
    counts = np.zeros(n, np.uint64)
    mine = np.array([len(_unreferenced)], np.uint64)
    _check("allgather", lib.mmpy_allgather_as(call, mine.ctypes.data, counts.ctypes.data, 8))
    if not counts.any():
        return []
    ids = np.array(sorted(_unreferenced), np.uint64)
    sizes = (counts * 8).astype(np.uintp)
    displs = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.uintp)
    out = np.zeros(int(counts.sum()), np.uint64)
    _check("allgatherv", lib.mmpy_allgatherv_as(
        call, ids.ctypes.data, ids.nbytes, out.ctypes.data,
        ffi.cast("size_t *", sizes.ctypes.data), ffi.cast("size_t *", displs.ctypes.data)))
    bounds = np.concatenate(([0], np.cumsum(counts))).astype(int)
    return [set(out[bounds[r]:bounds[r + 1]].tolist()) for r in range(n)]


def _check(what: str, status: int) -> None:
    if status != 0:
        from meshmem.core import status_error
        raise status_error(f"meshmem (releasing symmetric arrays: {what})", status)


def release_unreferenced(_call: str = "meshmem.release_unreferenced") -> int:
    """Free the blocks that no array refers to on any rank (collective over the world).
    Every allocation does this first; call it to return memory without allocating.
    @return the number of blocks freed."""
    lists = _gather_lists(_call.encode())
    if not lists:
        return 0
    common = sorted(set.intersection(*lists))
    for number in common:
        lib.meshmem_free(ffi.cast("void *", _live.pop(number)))
        _unreferenced.remove(number)
    return len(common)


def empty(shape, dtype=np.float64, *, align: int = _ALIGN, _call: str = "meshmem.empty"
          ) -> np.ndarray:
    """A symmetric array, contents undefined (collective: same shape and dtype everywhere).
    (_call: the name the runtime's error lines give the allocation, e.g. when ranks are in
    different collectives.)"""
    global _next_id
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"meshmem.empty: shape={shape}: negative dimension")
    if align < 1 or align & (align - 1):
        raise ValueError(f"meshmem.empty: align={align}: not a power of two")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    release_unreferenced(_call)
    ptr = lib.mmpy_align(align, max(nbytes, 1), _call.encode())
    if ptr == ffi.NULL:
        total, free = ffi.new("size_t *"), ffi.new("size_t *")
        lib.meshmem_heap_info(total, free)
        raise MemoryError(f"meshmem.empty: shape={shape} dtype={dtype} ({nbytes} bytes): the "
                          f"symmetric heap has {free[0]} of {total[0]} bytes free (meshrun "
                          f"--heap SIZE sets its size)")
    addr = int(ffi.cast("uintptr_t", ptr))
    number = _next_id
    _next_id += 1
    _live[number] = addr
    return np.asarray(_Block(addr, nbytes, number)).view(dtype).reshape(shape)


def _filled(shape, dtype, fill, align: int, call: str) -> np.ndarray:
    """A symmetric array filled with @p fill on every rank before any rank returns: a peer
    may put into it as soon as it has it, and the fill must not overwrite that."""
    a = empty(shape, dtype, align=align, _call=call)
    a[...] = fill
    lib.meshmem_coll_barrier(lib.MESHMEM_TEAM_WORLD)
    return a


def zeros(shape, dtype=np.float64, *, align: int = _ALIGN) -> np.ndarray:
    """A symmetric array of zeros (collective)."""
    return _filled(shape, dtype, 0, align, "meshmem.zeros")


def full(shape, fill_value, dtype=None, *, align: int = _ALIGN) -> np.ndarray:
    """A symmetric array filled with @p fill_value (collective)."""
    return _filled(shape, np.asarray(fill_value).dtype if dtype is None else dtype, fill_value,
                   align, "meshmem.full")


def array(shape, dtype=np.float64, *, fill=0, align: int = _ALIGN) -> np.ndarray:
    """A symmetric array of @p shape and @p dtype, filled with @p fill (0 by default; None
    leaves it undefined, as empty). Collective: same arguments on every rank."""
    if fill is None:
        return empty(shape, dtype, align=align)
    return _filled(shape, dtype, fill, align, "meshmem.array")


def asarray(obj, dtype=None, *, align: int = _ALIGN) -> np.ndarray:
    """A symmetric copy of an array-like (collective: same shape and dtype everywhere)."""
    src = np.asarray(obj, dtype=dtype)
    return _filled(src.shape, src.dtype, src, align, "meshmem.asarray")


def empty_like(a, dtype=None) -> np.ndarray:
    """A symmetric array of @p a's shape (and dtype, unless given)."""
    return empty(np.shape(a), np.asarray(a).dtype if dtype is None else dtype)


def zeros_like(a, dtype=None) -> np.ndarray:
    """A symmetric array of zeros of @p a's shape (and dtype, unless given)."""
    return zeros(np.shape(a), np.asarray(a).dtype if dtype is None else dtype)


def _owner(a):
    """The object at the end of @p a's chain of bases (a _Block for a symmetric array)."""
    base = a.base if isinstance(a, np.ndarray) else None
    while isinstance(base, np.ndarray):
        base = base.base
    return base


def _block_of(a, call: str) -> _Block:
    base = _owner(a)
    if not isinstance(base, _Block):
        raise Error(call, "the array is not a symmetric array (meshmem.empty/zeros/array...)",
                    lib.MESHMEM_ERR_NOT_SYMMETRIC)
    return base


def free(a) -> None:
    """Release @p a's block now (collective, like shmem_free): @p a and every view of it must
    not be used afterwards, and a call given one, views made before the free included, says so
    (a put into it would write into the block allocated next); @p a becomes read-only. Arrays
    are also released without this (see the module's text)."""
    block = _block_of(a, "meshmem.free")
    addr = _live.pop(block.number, None)
    if addr is None:
        raise Error("meshmem.free", "a: the array was already freed", lib.MESHMEM_ERR_ARG)
    block.freed = True
    forget_buffers(addr, block.__array_interface__["shape"][0])
    a.flags.writeable = False
    lib.meshmem_free(ffi.cast("void *", addr))


def is_symmetric(a) -> bool:
    """True for an array (or view) on a live symmetric block."""
    base = _owner(a)
    return isinstance(base, _Block) and base.number in _live


def ptr(a, rank: int):
    """A NumPy view of rank @p rank's copy of symmetric array @p a, read and written with
    loads and stores (meshmem_ptr; every rank of a node is reachable). None when the rank
    cannot be reached directly."""
    from meshmem.core import address, check_rank
    r = check_rank("meshmem.ptr", rank)
    _block_of(a, "meshmem.ptr")
    p = lib.meshmem_ptr(ffi.cast("void *", address(a, "meshmem.ptr", "a")), r)
    if p == ffi.NULL:
        return None
    base = a.__array_interface__
    iface = dict(base, data=(int(ffi.cast("uintptr_t", p)), False))

    class _Peer:
        __array_interface__ = iface
    return np.asarray(_Peer())


def heap_info() -> tuple:
    """(total bytes of the symmetric heap per rank, bytes still free on this rank)."""
    total, free_ = ffi.new("size_t *"), ffi.new("size_t *")
    lib.meshmem_heap_info(total, free_)
    return total[0], free_[0]
