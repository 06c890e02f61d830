"""Every part of the bindings on every rank count: run under meshrun, asserts, prints
"api_check: ok on N ranks" at rank 0 (tests/py/test_bindings.py)."""
import sys

import numpy as np

import meshmem

me, n = meshmem.rank(), meshmem.size()
right, left = (me + 1) % n, (me - 1) % n


def expect(exc_type, text, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc_type as e:
        assert text in str(e), f"{text!r} not in {str(e)!r}"
        return
    raise AssertionError(f"{fn.__name__} did not raise {exc_type.__name__}")


def check_memory():
    a = meshmem.zeros((3, 4), np.int32)
    assert a.shape == (3, 4) and a.dtype == np.int32 and not a.any()
    assert meshmem.is_symmetric(a) and meshmem.is_symmetric(a[1:, ::2])
    assert not meshmem.is_symmetric(np.zeros(3))
    assert (meshmem.full(5, 7.5) == 7.5).all()
    assert (meshmem.array(4, np.uint8, fill=3) == 3).all()
    b = meshmem.asarray([[1, 2], [3, 4]])
    assert b.tolist() == [[1, 2], [3, 4]] and meshmem.is_symmetric(b)
    assert meshmem.empty(0).size == 0
    meshmem.free(b)
    expect(meshmem.Error, "already freed", meshmem.free, b)
    expect(meshmem.Error, "not a symmetric array", meshmem.free, np.zeros(2))
    # blocks dropped on every rank are released at the next allocation: 400 x 1 MiB fits in
    # no heap of the test (32M), so this passes only if they are
    total, free0 = meshmem.heap_info()
    for _ in range(400):
        x = meshmem.empty(1 << 20, np.uint8)
        x[:] = 1
    del x
    meshmem.release_unreferenced()
    assert meshmem.heap_info()[1] >= free0 - 4096, (free0, meshmem.heap_info())
    expect(MemoryError, "symmetric heap", meshmem.empty, total + 1, np.uint8)
    peer = meshmem.ptr(a, right)
    assert peer is not None and peer.shape == a.shape


def check_rma():
    a = meshmem.zeros(8)
    meshmem.put(a, np.arange(8.0) + me, right)
    meshmem.barrier()
    assert (a == np.arange(8.0) + left).all()
    got = np.zeros(8)
    meshmem.get(got, a, right)
    assert (got == np.arange(8.0) + me).all()
    # slices, strided views, a column, scalars
    meshmem.barrier()
    a[:] = 0
    meshmem.barrier()
    meshmem.put(a[2:4], [10.0, 11.0], right)
    meshmem.put(a[4::2], np.array([1.0, 2.0]), right)
    m = meshmem.zeros((3, 3), np.int64)
    meshmem.put(m[:, 1], np.array([5, 6, 7]), right)
    meshmem.barrier()
    assert a.tolist() == [0, 0, 10, 11, 1, 0, 2, 0], a
    assert m[:, 1].tolist() == [5, 6, 7] and m[:, 0].sum() == 0
    col = np.zeros(3, np.int64)
    meshmem.get(col, m[:, 1], left)
    assert col.tolist() == [5, 6, 7]
    rev = np.zeros(4)
    meshmem.get(rev[::-1], a[2:6], right)
    assert rev.tolist() == [0, 1, 11, 10], rev
    meshmem.fence()
    meshmem.quiet()
    # errors name the call and the argument
    expect(meshmem.Error, "rank=", meshmem.put, a, np.zeros(8), n)
    expect(meshmem.Error, "not (wholly) in a symmetric array", meshmem.put, np.zeros(8),
           np.zeros(8), right)
    expect(TypeError, "dtype", meshmem.put, a, np.zeros(8, np.float32), right)
    expect(ValueError, "elements", meshmem.put, a, np.zeros(3), right)
    meshmem.barrier()


def check_atomics():
    c = meshmem.zeros(2, np.int64)
    f = meshmem.zeros(1, np.float64)
    meshmem.barrier()
    old = meshmem.atomic_fetch_add(c, me + 1, 0)
    assert 0 <= old < n * (n + 1) // 2
    meshmem.atomic_inc(c, 0, index=1)
    assert meshmem.atomic_swap(f, 0.5, right) in (0.0, 0.5)
    meshmem.barrier()
    if me == 0:
        assert c.tolist() == [n * (n + 1) // 2, n] and f[0] == 0.5, (c, f)
    assert meshmem.atomic_fetch(c, 0) == n * (n + 1) // 2
    meshmem.barrier()
    if me == 0:
        assert meshmem.atomic_compare_swap(c, n * (n + 1) // 2, -1, 0) == n * (n + 1) // 2
        assert meshmem.atomic_swap(c, 5, 0) == -1
        meshmem.atomic_or(c, 2, 0)
        assert meshmem.atomic_fetch_xor(c, 1, 0) == 7 and c[0] == 6
    expect(TypeError, "take integers", meshmem.atomic_and, f, 1, 0)
    expect(TypeError, "take integers", meshmem.atomic_add, f, 1.0, 0)
    expect(meshmem.Error, "rank=", meshmem.atomic_inc, c, -1)
    meshmem.barrier()


def check_signals_and_waits():
    data = meshmem.zeros(4, np.int32)
    sig = meshmem.zeros(1, np.uint64)
    flag = meshmem.zeros(1, np.int64)
    meshmem.barrier()
    meshmem.put_signal(data, np.full(4, me, np.int32), sig, 1, right, sig_op="add")
    assert meshmem.signal_wait_until(sig, ">=", 1) == 1
    assert (data == left).all()
    meshmem.atomic_set(flag, 42, right)
    meshmem.wait_until(flag, "==", 42)
    assert meshmem.test(flag, ">", 41) and not meshmem.test(flag, "!=", 42)
    expect(ValueError, "cmp=", meshmem.wait_until, flag, "~", 1)
    meshmem.barrier()


class SymmetricBuffers:
    """Symmetric arrays for check_collectives, allocated by every rank (allocation is
    collective over the world, so a sub-team's members cannot allocate on their own)."""

    def __init__(self):
        self.reduced = {dt: meshmem.zeros(5, dt) for dt in meshmem.DTYPES}
        self.bcast = meshmem.zeros(4, np.int8)
        self.fcollect = meshmem.zeros(n, np.int64)
        self.collect = meshmem.zeros(n * (n + 1) // 2, np.int16)


def check_collectives(team, label, sym):
    tn, tr = team.size, team.rank
    for dt in meshmem.DTYPES:
        for algo in ("auto", "onestep", "aggressive", "naive", "ring", "recdbl"):
            s = np.full(5, tr % 3 + 1, dt)
            r = sym.reduced[dt]
            team.allreduce(s, r, op="sum", algo=algo)
            want = sum(k % 3 + 1 for k in range(tn))
            assert (r == np.array(want, dt)).all(), (label, dt, algo, r)
        r[:] = tr + 1
        if dt.kind == "c":  # complex: sum and prod only
            expect(meshmem.Error, "op=max on dtype complex", team.allreduce, meshmem.IN_PLACE,
                   r, op="max")
            # the same as an int: made by the C fast path (fast.c), whose failure raises alike
            expect(meshmem.Error, "op=max on dtype complex", team.allreduce, meshmem.IN_PLACE,
                   r, op=meshmem.teams.OPS["max"])
            continue
        team.allreduce(meshmem.IN_PLACE, r, op="max")
        assert (r == np.array(tn, dt)).all(), (label, dt)
    ints = np.arange(6, dtype=np.uint32) + tr
    out = np.zeros(6, np.uint32)
    for op, ref in (("min", np.minimum.reduce), ("prod", np.multiply.reduce),
                    ("xor", np.bitwise_xor.reduce), ("or", np.bitwise_or.reduce),
                    ("and", np.bitwise_and.reduce)):
        team.allreduce(ints, out, op=op)
        assert (out == ref([np.arange(6, dtype=np.uint32) + k for k in range(tn)])).all(), op
    for root in range(tn):
        b = np.full(3, tr, np.int16)
        team.bcast(b, root)
        assert (b == root).all()
        send = np.arange(tn * 2, dtype=np.float32) if tr == root else None
        got = np.zeros(2, np.float32)
        team.scatter(send, got, root)
        assert got.tolist() == [2 * tr, 2 * tr + 1]
        gathered = np.zeros(tn * 2, np.float32) if tr == root else None
        team.gather(got, gathered, root)
        if tr == root:
            assert (gathered == np.arange(tn * 2)).all()
        red = np.zeros(3, np.int64) if tr == root else None
        team.reduce(np.full(3, tr, np.int64), red, "sum", root)
        if tr == root:
            assert (red == tn * (tn - 1) // 2).all()
        team.broadcast(sym.bcast, np.full(4, root, np.int8), root)
        assert (sym.bcast == root).all()
    ag = np.zeros(tn * 2, np.int32)
    team.allgather(np.array([tr, -tr], np.int32), ag)
    assert ag.reshape(tn, 2)[:, 0].tolist() == list(range(tn))
    ag[:] = 0
    ag[2 * tr:2 * tr + 2] = [tr, -tr]
    team.allgather(meshmem.IN_PLACE, ag)
    assert ag.reshape(tn, 2)[:, 1].tolist() == [-k for k in range(tn)]
    counts = [k % 3 for k in range(tn)]          # zero-sized blocks included
    agv = np.full(sum(counts), -1.0)
    team.allgatherv(np.full(counts[tr], float(tr)), agv, counts)
    assert agv.tolist() == [float(k) for k in range(tn) for _ in range(counts[k])]
    a2a = np.zeros(tn, np.int64)
    team.alltoall(np.arange(tn, dtype=np.int64) + 100 * tr, a2a)
    assert a2a.tolist() == [100 * k + tr for k in range(tn)]
    sc = [(tr + j) % 3 for j in range(tn)]       # tr sends (tr + j) % 3 elements to j
    send = np.concatenate([np.full(c, 10 * tr + j) for j, c in enumerate(sc)]).astype(np.int32)
    for known in (True, False):
        rc = [(k + tr) % 3 for k in range(tn)] if known else None
        recv = np.full(3 * tn, -1, np.int32)
        rdispls = [3 * k for k in range(tn)]
        got = team.alltoallv(send, sc, recv, rc, rdispls=rdispls)
        assert got.tolist() == [(k + tr) % 3 for k in range(tn)], got
        for k in range(tn):
            assert (recv[3 * k:3 * k + got[k]] == 10 * k + tr).all()
    rs = np.zeros(2, np.float64)
    team.reduce_scatter(np.ones(2 * tn), rs, "sum")
    assert (rs == tn).all()
    fc = sym.fcollect[:tn]
    team.fcollect(fc, np.array([tr], np.int64))
    assert fc.tolist() == list(range(tn))
    col = sym.collect[:tn * (tn + 1) // 2]
    assert team.collect(col, np.full(tr + 1, tr, np.int16)) == tn * (tn + 1) // 2
    assert col.tolist() == [k for k in range(tn) for _ in range(k + 1)]
    team.sync()
    team.barrier()
    expect(TypeError, "dtype", team.allreduce, np.zeros(2, np.int32), np.zeros(2))
    expect(ValueError, "op=", team.allreduce, np.zeros(2), np.zeros(2), op="mean")
    expect(ValueError, "algo=", team.allreduce, np.zeros(2), np.zeros(2), algo="fast")
    expect(ValueError, "not contiguous", team.allreduce, np.zeros(4)[::2], np.zeros(2))
    expect(TypeError, "reduces", team.allreduce, np.zeros(2, bool), np.zeros(2, bool))
    expect(meshmem.Error, f"root={tn}: not a member", team.bcast, np.zeros(2), tn)
    expect(meshmem.Error, "root=-1: not a member", team.reduce, np.zeros(2), np.zeros(2),
           "sum", -1)


def check_teams():
    world = meshmem.WORLD
    assert (world.rank, world.size) == (me, n)
    sym = SymmetricBuffers()
    check_collectives(world, "world", sym)
    with meshmem.split_strided(0, 2, (n + 1) // 2) as evens:
        assert bool(evens) == (me % 2 == 0)
        if evens:
            assert evens.rank == me // 2 and evens.world_rank(evens.rank) == me
            assert evens.translate(evens.rank, world) == me
            check_collectives(evens, "evens", sym)
        else:
            expect(meshmem.Error, "not a member", evens.allreduce, np.zeros(1), np.zeros(1))
    xr = 2 if n % 2 == 0 else 1
    row, col = meshmem.split_2d(xr)
    with row, col:
        assert row.size == xr and col.size == n // xr
        check_collectives(row, "row", sym)
    if n >= 4 and n % 2 == 0:
        with meshmem.use_topology("ghc") as w:
            assert w.topology != "fullmesh"
            check_collectives(w, "ghc", sym)
        assert world.topology == "fullmesh"
    expect(ValueError, "topology=", world.set_topology, "torus")


def check_active_messages():
    hits = []
    replies = []
    peer_rows = np.zeros(4)
    land = meshmem.zeros(4)

    def on_short(token, payload, a, b):
        hits.append((token.rank, a, b))
        token.reply(2, a + b)

    def on_medium(token, payload, tag):
        hits.append((token.rank, tag, bytes(payload)))

    def on_long(token, payload, tag):
        hits.append((token.rank, tag, np.frombuffer(payload, np.float64).sum()))

    def on_reply(token, payload, total):
        replies.append(total)

    meshmem.am.register(meshmem.am.Handler(1, on_short, "short", "request", 2),
                        meshmem.am.Handler(2, on_reply, "short", "reply"),
                        meshmem.am.Handler(3, on_medium, "medium"),
                        meshmem.am.Handler(4, on_long, "long"))
    meshmem.barrier()
    for r in range(n):
        meshmem.am.request(r, 1, me, 10)
        meshmem.am.request(r, 3, me, payload=b"hi %d" % me)
    meshmem.am.request(right, 4, 7, payload=np.arange(4.0), dest=land)
    meshmem.am.quiet()
    meshmem.barrier()
    meshmem.am.poll()
    assert sorted(replies) == sorted(me + 10 for _ in range(n)), replies
    shorts = sorted(h for h in hits if len(h) == 3 and isinstance(h[2], int))
    assert shorts == [(r, r, 10) for r in range(n)], shorts
    assert sorted(h for h in hits if isinstance(h[2], bytes)) == \
        [(r, r, b"hi %d" % r) for r in range(n)]
    assert (left, 7, 6.0) in hits and (land == np.arange(4.0)).all(), (hits, land)
    meshmem.barrier()
    meshmem.am.put(land, np.full(4, 9.0), right, frag=8)
    meshmem.am.quiet()
    meshmem.barrier()
    meshmem.am.get(peer_rows, land, left)
    assert (land == 9.0).all() and (peer_rows == 9.0).all()
    expect(meshmem.Error, "handler=", meshmem.am.request, right, 200, 1)
    expect(meshmem.Error, "rank=", meshmem.am.request, n, 1, 1, 2)
    meshmem.barrier()


def check_streams():
    if n < 2:
        return
    buf = meshmem.zeros(64, np.int32)
    sig = meshmem.zeros(1, np.uint64)
    meshmem.barrier()
    producer, consumer = 0, n - 1
    s = meshmem.Stream(buf, sig, 4, producer, consumer)
    if me == producer:
        with s:
            for k in range(10):
                s.push(np.arange(k * 5, k * 5 + 5, dtype=np.int32))
    elif me == consumer:
        got = []
        while True:
            part = s.pop()
            if part.size == 0:
                break
            got.extend(part.tolist())
        assert got == list(range(50)) and s.ended
    meshmem.barrier()


for check in (check_memory, check_rma, check_atomics, check_signals_and_waits, check_teams,
              check_active_messages, check_streams):
    check()
    meshmem.barrier()
if me == 0:
    print(f"api_check: ok on {n} ranks")
sys.stdout.flush()
