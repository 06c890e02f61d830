"""Teams and their collectives (meshmem_coll.h's set, on NumPy arrays).

A Team wraps a meshmem_team_t. WORLD and SHARED always exist; split_strided and split_2d make
new ones (collective over the parent), which are context managers: `with` destroys them at the
end of the block (collective over the team). A rank outside a split gets an invalid team:
falsy, its `with` block does nothing, and its collectives raise.

Collectives take NumPy arrays in mpi4py's order (sendbuf, recvbuf, ...), with counts taken
from the arrays. Every buffer may be any C-contiguous array; symmetric arrays (meshmem.zeros
...) are read by peers directly, others are staged once. Reductions take a dtype meshmem
reduces (core.DTYPES: integers, float16/32/64, bfloat16 with ml_dtypes, longdouble, complex)
and an operator ("sum", "prod", "min", "max", "and", "or", "xor" or meshmem.SUM...); every
collective takes an algorithm hint ("auto", "onestep", "naive", "aggressive", "ring",
"recdbl" or meshmem.ALGO_*). As in C, arguments must agree on every member.
"""
import numpy as np

from meshmem import _fast
from meshmem.core import ADDR, CODE, COUNT, DTYPE, NBYTES, Error, buffer, ffi, lib, status_error

OPS = {n: getattr(lib, f"MESHMEM_OP_{n.upper()}")
       for n in ("sum", "prod", "min", "max", "and", "or", "xor")}
ALGOS = {n: getattr(lib, f"MESHMEM_ALGO_{n.upper()}")
         for n in ("auto", "onestep", "naive", "aggressive", "ring", "recdbl")}


class _InPlace:
    """Pass as sendbuf to use recvbuf as the send buffer too (MPI_IN_PLACE)."""

    def __repr__(self):
        return "meshmem.IN_PLACE"


IN_PLACE = _InPlace()
_SUM, _AUTO = OPS["sum"], ALGOS["auto"]  # defaults as ints: the fast path skips the lookup
_IN_PLACE_ADDR = 1  # MESHMEM_IN_PLACE


def _named(table: dict, value, call: str, what: str) -> int:
    if isinstance(value, (int, np.integer)) and int(value) in table.values():
        return int(value)
    code = table.get(value)
    if code is None:
        raise ValueError(f"{call}: {what}={value!r}: expected one of {', '.join(table)}")
    return code


def _recv(x, call: str, name: str = "recvbuf"):
    return buffer(x, call, name, writable=True)


def _send(x, call: str, name: str = "sendbuf"):
    return buffer(x, call, name)


def _same_type(s, r, call: str) -> None:
    if s[DTYPE] is not r[DTYPE] and s[DTYPE] != r[DTYPE]:
        raise TypeError(f"{call}: sendbuf has dtype {s[DTYPE]}, recvbuf {r[DTYPE]}")


def _elements(e):
    """(count, meshmem dtype) moving the bytes of entry @p e: elements when meshmem knows
    the dtype, else bytes."""
    return (e[COUNT], e[CODE]) if e[CODE] is not None else (e[NBYTES], lib.MESHMEM_UINT8)


def _reduction_code(e, call: str) -> int:
    if e[CODE] is None:
        raise TypeError(f"{call}: dtype {e[DTYPE]} is not one meshmem reduces")
    return e[CODE]


def _sizes(values, n: int, call: str, name: str) -> np.ndarray:
    a = np.ascontiguousarray(values, dtype=np.uintp)
    if a.shape != (n,):
        raise ValueError(f"{call}: {name}: expected {n} values (one per member), got "
                         f"{a.size}")
    return a


def _size_ptr(a: np.ndarray):
    return ffi.cast("size_t *", a.ctypes.data)


class Team:
    """A team of ranks (meshmem_team_t). `rank` and `size` are this rank's number in it and
    its number of members (-1 on a rank outside it)."""

    __slots__ = ("_h", "_addr", "rank", "size", "_owned", "_name")

    def __init__(self, handle, owned: bool, name: str = "team"):
        self._h = handle
        self._addr = int(ffi.cast("uintptr_t", handle))  # for meshmem._fast
        self._owned = owned
        self._name = name
        valid = handle != ffi.NULL
        self.rank = lib.meshmem_team_rank(handle) if valid else -1
        self.size = lib.meshmem_team_size(handle) if valid else -1

    def __bool__(self) -> bool:
        return self._h != ffi.NULL

    def __repr__(self) -> str:
        return (f"<meshmem.Team {self._name}: rank {self.rank} of {self.size}>" if self
                else "<meshmem.Team invalid (this rank is not a member)>")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def _valid(self, call: str):
        if self._h == ffi.NULL:
            raise Error(call, "this rank is not a member of the team (or it was destroyed)",
                        lib.MESHMEM_ERR_TEAM)
        return self._h

    # ---- queries and splits -------------------------------------------------------------

    def translate(self, rank: int, other: "Team") -> int:
        """The number in @p other of this team's member @p rank (-1: not a member)."""
        return lib.meshmem_team_translate(self._valid("meshmem.Team.translate"), int(rank),
                                          other._h)

    def world_rank(self, rank: int) -> int:
        """The world rank of this team's member @p rank (-1 if there is none)."""
        return lib.meshmem_team_world_rank(self._valid("meshmem.Team.world_rank"), int(rank))

    def split_strided(self, start: int, stride: int, size: int) -> "Team":
        """The team of members start, start+stride, ... (@p size of them); collective over
        this team. Non-members get an invalid (falsy) team."""
        call = "meshmem.Team.split_strided"
        out = ffi.new("meshmem_team_t *")
        st = lib.meshmem_team_split_strided(self._valid(call), int(start), int(stride),
                                            int(size), out)
        if st != 0:
            raise status_error(call, st, f"start={start} stride={stride} size={size} of a team "
                                         f"of {self.size}")
        return Team(out[0], True, f"split_strided({start}, {stride}, {size})")

    def split_2d(self, xrange: int) -> tuple:
        """(row team, column team) of this team laid out as a grid @p xrange wide;
        collective over this team."""
        call = "meshmem.Team.split_2d"
        x, y = ffi.new("meshmem_team_t *"), ffi.new("meshmem_team_t *")
        st = lib.meshmem_team_split_2d(self._valid(call), int(xrange), x, y)
        if st != 0:
            raise status_error(call, st, f"xrange={xrange} for a team of {self.size}")
        return Team(x[0], True, f"split_2d({xrange}).x"), Team(y[0], True,
                                                               f"split_2d({xrange}).y")

    def destroy(self) -> None:
        """Destroy the team (collective over it); WORLD and SHARED stay."""
        if self._owned and self._h != ffi.NULL:
            lib.meshmem_team_destroy(self._h)
            self._h = ffi.NULL
            self._addr = 0
            self.rank = self.size = -1

    # ---- topology -------------------------------------------------------------------------

    @property
    def topology(self):
        """"fullmesh", or the GHC grid (kx, ky) the team's collectives run on."""
        kx, ky = ffi.new("int *"), ffi.new("int *")
        st = lib.meshmem_team_get_topology(self._valid("meshmem.Team.topology"), kx, ky)
        if st != 0:
            raise status_error("meshmem.Team.topology", st)
        return "fullmesh" if kx[0] == 0 else (kx[0], ky[0])

    def set_topology(self, topology) -> None:
        """Run this team's collectives on "fullmesh", "ghc" (the most square grid),
        "ghc:KXxKY" or (kx, ky): a 2-D generalized hypercube, per dimension (collective)."""
        call = "meshmem.Team.set_topology"
        kx, ky = _parse_topology(topology, call)
        st = lib.meshmem_team_set_topology(self._valid(call), kx, ky)
        if st != 0:
            raise status_error(call, st, f"topology={topology!r} for a team of {self.size}")

    def use_topology(self, topology) -> "_TopologyScope":
        """Context manager: the team's collectives run on @p topology inside the block, on
        the previous one after it (both collective)."""
        return _TopologyScope(self, topology)

    # ---- synchronisation ------------------------------------------------------------------

    def barrier(self) -> None:
        """Barrier, completing this rank's puts and atomics first (meshmem_barrier)."""
        st = lib.meshmem_barrier(self._valid("meshmem.barrier"))
        if st != 0:
            raise status_error("meshmem.barrier", st)

    def sync(self) -> None:
        """Barrier without completing outstanding puts (meshmem_coll_barrier)."""
        st = lib.meshmem_coll_barrier(self._valid("meshmem.sync"))
        if st != 0:
            raise status_error("meshmem.sync", st)

    # ---- collectives ----------------------------------------------------------------------

    def allreduce(self, sendbuf, recvbuf, op=_SUM, algo=_AUTO) -> None:
        """recvbuf = op over every member's sendbuf (IN_PLACE: over recvbuf). Bitwise the
        same result on every member."""
        # the common case in C (fast.c); anything else on the path below, which names the
        # argument at fault; a call that was made and failed is not made again
        st = _fast_allreduce(self._addr, sendbuf, recvbuf, op, algo)
        if st < 0:
            self._allreduce(sendbuf, recvbuf, op, algo)
        elif st != 0:
            raise status_error("meshmem.allreduce", st,
                               self._what(reduction=(recvbuf.dtype, op), algo=algo))

    def _allreduce(self, sendbuf, recvbuf, op, algo) -> None:
        call = "meshmem.allreduce"
        r = buffer(recvbuf, call, "recvbuf", writable=True)
        if sendbuf is IN_PLACE:
            saddr = _IN_PLACE_ADDR
        else:
            s = buffer(sendbuf, call, "sendbuf")
            _check_pair(s, r, call)
            saddr = s[ADDR]
        code = _reduction_code(r, call)
        op = _named(OPS, op, call, "op")
        algo = _named(ALGOS, algo, call, "algo")
        st = lib.mmpy_allreduce(self._valid(call), saddr, r[ADDR], r[COUNT], code, op, algo)
        if st != 0:
            raise status_error(call, st, self._what(reduction=(r[DTYPE], op), algo=algo))

    def reduce(self, sendbuf, recvbuf, op=_SUM, root: int = 0, algo=_AUTO) -> None:
        """recvbuf at member @p root = op over every member's sendbuf (recvbuf may be None
        elsewhere; IN_PLACE at the root: over recvbuf)."""
        call = "meshmem.reduce"
        if sendbuf is IN_PLACE:
            r = _recv(recvbuf, call)
            saddr, ref = _IN_PLACE_ADDR, r
        else:
            s = _send(sendbuf, call)
            saddr, ref = s[ADDR], s
            r = _recv(recvbuf, call) if recvbuf is not None else None
            if r is not None:
                _check_pair(s, r, call)
        op = _named(OPS, op, call, "op")
        st = lib.mmpy_reduce(self._valid(call), saddr, r[ADDR] if r else 0, ref[COUNT],
                             _reduction_code(ref, call), op, self._root(call, root),
                             _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what(root=root, reduction=(ref[DTYPE], op)))

    def reduce_scatter(self, sendbuf, recvbuf, op=_SUM, algo=_AUTO) -> None:
        """Block r (recvbuf's size) of op over every member's sendbuf (size x that) lands in
        member r's recvbuf."""
        call = "meshmem.reduce_scatter"
        s, r = _send(sendbuf, call), _recv(recvbuf, call)
        _same_type(s, r, call)
        if s[NBYTES] != r[NBYTES] * self.size:
            raise ValueError(f"{call}: sendbuf has {s[COUNT]} elements, expected size x "
                             f"recvbuf = {self.size} x {r[COUNT]}")
        op = _named(OPS, op, call, "op")
        st = lib.mmpy_reduce_scatter(self._valid(call), s[ADDR], r[ADDR], r[COUNT],
                                     _reduction_code(r, call), op,
                                     _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what(reduction=(r[DTYPE], op)))

    def bcast(self, buf, root: int = 0, algo=_AUTO) -> None:
        """buf of member @p root to buf of every member."""
        call = "meshmem.bcast"
        b = _recv(buf, call, "buf")
        count, code = _elements(b)
        st = lib.mmpy_bcast(self._valid(call), b[ADDR], count, code, self._root(call, root),
                            _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what(root=root))

    def scatter(self, sendbuf, recvbuf, root: int = 0, algo=_AUTO) -> None:
        """Block r (recvbuf's size) of sendbuf at @p root to member r's recvbuf (sendbuf
        may be None elsewhere)."""
        call = "meshmem.scatter"
        r = _recv(recvbuf, call)
        s = _send(sendbuf, call) if sendbuf is not None else None
        if s is not None and self.rank == root:
            _same_type(s, r, call)
            if s[NBYTES] != r[NBYTES] * self.size:
                raise ValueError(f"{call}: sendbuf has {s[COUNT]} elements, expected size x "
                                 f"recvbuf = {self.size} x {r[COUNT]}")
        count, code = _elements(r)
        st = lib.mmpy_scatter(self._valid(call), s[ADDR] if s else 0, r[ADDR], count, code,
                              self._root(call, root), _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what(root=root))

    def gather(self, sendbuf, recvbuf, root: int = 0, algo=_AUTO) -> None:
        """Every member's sendbuf as block r of recvbuf at @p root (recvbuf may be None
        elsewhere)."""
        call = "meshmem.gather"
        s = _send(sendbuf, call)
        r = _recv(recvbuf, call) if recvbuf is not None else None
        if r is not None and self.rank == root:
            _same_type(s, r, call)
            if r[NBYTES] != s[NBYTES] * self.size:
                raise ValueError(f"{call}: recvbuf has {r[COUNT]} elements, expected size x "
                                 f"sendbuf = {self.size} x {s[COUNT]}")
        count, code = _elements(s)
        st = lib.mmpy_gather(self._valid(call), s[ADDR], r[ADDR] if r else 0, count, code,
                             self._root(call, root), _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what(root=root))

    def allgather(self, sendbuf, recvbuf, algo=_AUTO) -> None:
        """Every member's sendbuf, in rank order, into every member's recvbuf (IN_PLACE:
        this member's block of recvbuf is already in place)."""
        call = "meshmem.allgather"
        r = _recv(recvbuf, call)
        if sendbuf is IN_PLACE:
            if r[NBYTES] % self.size:
                raise ValueError(f"{call}: recvbuf: {r[COUNT]} elements do not split into "
                                 f"{self.size} blocks")
            saddr, block = _IN_PLACE_ADDR, r[NBYTES] // self.size
        else:
            s = _send(sendbuf, call)
            _same_type(s, r, call)
            if r[NBYTES] != s[NBYTES] * self.size:
                raise ValueError(f"{call}: recvbuf has {r[COUNT]} elements, expected size x "
                                 f"sendbuf = {self.size} x {s[COUNT]}")
            saddr, block = s[ADDR], s[NBYTES]
        count, code = _per_block(r, block)
        st = lib.mmpy_allgather(self._valid(call), saddr, r[ADDR], count, code,
                                _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what())

    def allgatherv(self, sendbuf, recvbuf, counts, displs=None, algo=_AUTO) -> None:
        """Member r's sendbuf (counts[r] elements) at recvbuf[displs[r]:] on every member
        (displs: packed in rank order when None)."""
        call = "meshmem.allgatherv"
        s, r = _send(sendbuf, call), _recv(recvbuf, call)
        _same_type(s, r, call)
        n = self.size
        c = _sizes(counts, n, call, "counts")
        d = _sizes(np.concatenate(([0], np.cumsum(c)[:-1])) if displs is None else displs, n,
                   call, "displs")
        if c[self.rank] != s[COUNT]:
            raise ValueError(f"{call}: counts[{self.rank}]={c[self.rank]} but this member's "
                             f"sendbuf has {s[COUNT]} elements")
        if n and int((d + c).max()) > r[COUNT]:
            raise ValueError(f"{call}: recvbuf has {r[COUNT]} elements, the blocks need "
                             f"{int((d + c).max())}")
        count, code, c, d = _scaled(s, c, d)
        st = lib.mmpy_allgatherv(self._valid(call), s[ADDR], count, r[ADDR], _size_ptr(c),
                                 _size_ptr(d), code, _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what())

    def alltoall(self, sendbuf, recvbuf, algo=_AUTO) -> None:
        """Block j of sendbuf to block (this rank) of member j's recvbuf (IN_PLACE: recvbuf
        is the send buffer too)."""
        call = "meshmem.alltoall"
        r = _recv(recvbuf, call)
        if r[NBYTES] % max(self.size, 1):
            raise ValueError(f"{call}: recvbuf: {r[COUNT]} elements do not split into "
                             f"{self.size} blocks")
        if sendbuf is IN_PLACE:
            saddr = _IN_PLACE_ADDR
        else:
            s = _send(sendbuf, call)
            _check_pair(s, r, call)
            saddr = s[ADDR]
        count, code = _per_block(r, r[NBYTES] // max(self.size, 1))
        st = lib.mmpy_alltoall(self._valid(call), saddr, r[ADDR], count, code,
                               _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what())

    def alltoallv(self, sendbuf, sendcounts, recvbuf, recvcounts=None, sdispls=None,
                  rdispls=None, algo=_AUTO) -> np.ndarray:
        """sendcounts[j] elements from sendbuf[sdispls[j]:] to member j, which receives them
        at recvbuf[rdispls[me]:]. recvcounts None: each receiver learns its counts from the
        messages (OPTWEB sort's end of packet); rdispls then must leave room (None: blocks of
        len(recvbuf) / size). @return the counts received from each member."""
        call = "meshmem.alltoallv"
        s, r = _send(sendbuf, call), _recv(recvbuf, call)
        _same_type(s, r, call)
        n = self.size
        sc = _sizes(sendcounts, n, call, "sendcounts")
        sd = _sizes(np.concatenate(([0], np.cumsum(sc)[:-1])) if sdispls is None else sdispls,
                    n, call, "sdispls")
        if n and int((sd + sc).max()) > s[COUNT]:
            raise ValueError(f"{call}: sendbuf has {s[COUNT]} elements, the blocks need "
                             f"{int((sd + sc).max())}")
        rc = None if recvcounts is None else _sizes(recvcounts, n, call, "recvcounts")
        if rdispls is None:
            rd = (np.concatenate(([0], np.cumsum(rc)[:-1])) if rc is not None
                  else np.arange(n) * (r[COUNT] // max(n, 1)))
        else:
            rd = rdispls
        rd = _sizes(rd, n, call, "rdispls")
        out = np.zeros(n, np.uintp)
        scale = 1 if s[CODE] is not None else s[DTYPE].itemsize
        code = s[CODE] if s[CODE] is not None else lib.MESHMEM_UINT8
        sc_, sd_, rd_ = sc * scale, sd * scale, rd * scale
        rc_ = None if rc is None else rc * scale
        st = lib.mmpy_alltoallv(self._valid(call), s[ADDR], _size_ptr(sc_), _size_ptr(sd_),
                                r[ADDR], ffi.NULL if rc_ is None else _size_ptr(rc_),
                                _size_ptr(rd_), r[COUNT] * scale, _size_ptr(out), code,
                                _named(ALGOS, algo, call, "algo"))
        if st != 0:
            raise status_error(call, st, self._what())
        return out // scale

    # ---- OpenSHMEM-shaped collectives of meshmem.h (dest symmetric) -------------------

    def broadcast(self, dest, source, root: int = 0) -> None:
        """source at member @p root to symmetric dest on every member, the root's included
        (meshmem_broadcast, as shmem_broadcast)."""
        call = "meshmem.broadcast"
        d, s = _recv(dest, call, "dest"), _send(source, call, "source")
        _check_pair(s, d, call)
        st = lib.mmpy_broadcast(self._valid(call), d[ADDR], s[ADDR], d[NBYTES], self._root(call, root))
        if st != 0:
            raise status_error(call, st, self._what(root=root, dest=True))

    def fcollect(self, dest, source) -> None:
        """Every member's source, in rank order, into symmetric dest (shmem_fcollect)."""
        call = "meshmem.fcollect"
        d, s = _recv(dest, call, "dest"), _send(source, call, "source")
        _same_type(s, d, call)
        if d[NBYTES] != s[NBYTES] * self.size:
            raise ValueError(f"{call}: dest has {d[COUNT]} elements, expected size x source "
                             f"= {self.size} x {s[COUNT]}")
        st = lib.mmpy_fcollect(self._valid(call), d[ADDR], s[ADDR], s[NBYTES])
        if st != 0:
            raise status_error(call, st, self._what(dest=True))

    def collect(self, dest, source) -> int:
        """Every member's source (sizes may differ), concatenated in rank order into
        symmetric dest (shmem_collect). @return the number of elements collected."""
        call = "meshmem.collect"
        d, s = _recv(dest, call, "dest"), _send(source, call, "source")
        _same_type(s, d, call)
        sizes = np.zeros(self.size, np.uint64)
        mine = np.array([s[NBYTES]], np.uint64)
        self.allgather(mine, sizes)
        if int(sizes.sum()) > d[NBYTES]:
            raise ValueError(f"{call}: dest has {d[COUNT]} elements, the members send "
                             f"{int(sizes.sum()) // s[DTYPE].itemsize}")
        st = lib.mmpy_collect(self._valid(call), d[ADDR], s[ADDR], s[NBYTES])
        if st != 0:
            raise status_error(call, st, self._what(dest=True))
        return int(sizes.sum()) // s[DTYPE].itemsize

    def _root(self, call: str, root) -> int:
        """@p root as an int in 0..size-1 (the same on every member: each raises alike), or an
        Error naming @p call and the argument."""
        if not isinstance(root, (int, np.integer)) or not 0 <= root < self.size:
            raise Error(call, f"root={root!r}: not a member of team {self._name} "
                              f"(0..{self.size - 1})", lib.MESHMEM_ERR_RANK)
        return int(root)

    def _what(self, root=None, dest=False, reduction=None, algo=None) -> str:
        """What a failed call was asked to do, for its error message."""
        if self._h == ffi.NULL:
            return f"team {self._name}: this rank is not a member of the team (or it was destroyed)"
        parts = [f"team {self._name} of {self.size}"]
        if reduction is not None:
            dtype, op = reduction
            parts.append(f"op={_name_of(OPS, op)} on dtype {dtype}")
        if algo is not None:
            parts.append(f"algo={_name_of(ALGOS, algo)}")
        if root is not None:
            parts.append(f"root={root}")
        if dest:
            parts.append("dest must be a symmetric array")
        return ", ".join(parts)


_fast_allreduce = _fast.allreduce
_fast.set_in_place(IN_PLACE)


def _name_of(table: dict, code: int) -> str:
    return next((k for k, v in table.items() if v == code), str(code))


def _check_pair(s, r, call: str) -> None:
    _same_type(s, r, call)
    if s[NBYTES] != r[NBYTES]:
        raise ValueError(f"{call}: sendbuf has {s[COUNT]} elements, recvbuf {r[COUNT]}")


def _per_block(r, block_bytes: int):
    """(count, dtype) of one block of @p block_bytes of entry @p r's dtype."""
    if r[CODE] is not None:
        return block_bytes // r[DTYPE].itemsize, r[CODE]
    return block_bytes, lib.MESHMEM_UINT8


def _scaled(s, counts, displs):
    """Counts and displacements in the unit the call moves (elements, or bytes)."""
    if s[CODE] is not None:
        return s[COUNT], s[CODE], counts, displs
    k = s[DTYPE].itemsize
    return s[NBYTES], lib.MESHMEM_UINT8, counts * k, displs * k


def _parse_topology(topology, call: str) -> tuple:
    if topology in ("fullmesh", "full"):
        return 0, 0
    if topology == "ghc":
        return -1, -1
    if isinstance(topology, tuple) and len(topology) == 2:
        return int(topology[0]), int(topology[1])
    if isinstance(topology, str) and topology.startswith("ghc:"):
        try:
            kx, ky = (int(v) for v in topology[4:].lower().split("x"))
            return kx, ky
        except ValueError:
            pass
    raise ValueError(f"{call}: topology={topology!r}: expected fullmesh, ghc, ghc:KXxKY or "
                     f"(kx, ky)")


class _TopologyScope:
    def __init__(self, team: Team, topology):
        self.team = team
        self.previous = team.topology
        team.set_topology(topology)

    def __enter__(self):
        return self.team

    def __exit__(self, *exc):
        self.team.set_topology(self.previous)


WORLD = Team(lib.MESHMEM_TEAM_WORLD, False, "world")
SHARED = Team(lib.MESHMEM_TEAM_SHARED, False, "shared")

# the world's collectives and splits as functions: meshmem.allreduce(...) is
# meshmem.WORLD.allreduce(...)
barrier, sync = WORLD.barrier, WORLD.sync
allreduce, reduce, reduce_scatter = WORLD.allreduce, WORLD.reduce, WORLD.reduce_scatter
bcast, scatter, gather = WORLD.bcast, WORLD.scatter, WORLD.gather
allgather, allgatherv, alltoall, alltoallv = (WORLD.allgather, WORLD.allgatherv,
                                              WORLD.alltoall, WORLD.alltoallv)
broadcast, fcollect, collect = WORLD.broadcast, WORLD.fcollect, WORLD.collect
split_strided, split_2d = WORLD.split_strided, WORLD.split_2d
set_topology, use_topology = WORLD.set_topology, WORLD.use_topology
SUM, PROD, MIN, MAX, AND, OR, XOR = (OPS[n] for n in ("sum", "prod", "min", "max", "and", "or",
                                                      "xor"))
ALGO_AUTO, ALGO_ONESTEP, ALGO_NAIVE, ALGO_AGGRESSIVE, ALGO_RING, ALGO_RECDBL = (
    ALGOS[n] for n in ("auto", "onestep", "naive", "aggressive", "ring", "recdbl"))
