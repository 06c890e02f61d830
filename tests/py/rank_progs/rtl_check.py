"""The bindings on the simulated OPTWEB engine: run under meshrun --rtl (every peer through the
engine), puts and gets around the ring, an atomic at rank 0, then collectives: an offloaded
broadcast and all-to-all (one engine command each) and an all-reduce (the runtime's algorithm
over the engine's RMA). Asserts; prints "rtl_check: ok on N ranks" at rank 0
(tests/py/test_rtl.py)."""
import numpy as np

import meshmem

me, n = meshmem.rank(), meshmem.size()
right, left = (me + 1) % n, (me - 1) % n

# put and get: 64 KiB, more than one of the engine's packets, from a private buffer
a = meshmem.zeros(8192)
meshmem.put(a, np.arange(8192.0) * (me + 1), right)
meshmem.barrier()
assert (a == np.arange(8192.0) * (left + 1)).all(), a[:4]
got = np.zeros(8192)
meshmem.get(got, a, right)
assert (got == np.arange(8192.0) * (me + 1)).all(), got[:4]

# an atomic at rank 0 from every rank: each previous value once
c = meshmem.zeros(1, np.int64)
meshmem.barrier()
old = meshmem.atomic_fetch_add(c, me + 1, 0)
mine, olds = meshmem.full(1, old, np.int64), meshmem.zeros(n, np.int64)
meshmem.allgather(mine, olds)
meshmem.barrier()
if me == 0:
    assert c[0] == n * (n + 1) // 2, c[0]
assert len(set(olds.tolist())) == n, olds

# collectives
b = meshmem.full(16, float(me))
meshmem.bcast(b, root=n - 1)
assert (b == n - 1).all(), b
send = meshmem.asarray(np.arange(n, dtype=np.int32) + 100 * me)
recv = meshmem.zeros(n, np.int32)
meshmem.alltoall(send, recv)
assert recv.tolist() == [100 * j + me for j in range(n)], recv
v = meshmem.full(1000, float(me + 1), np.float32)
meshmem.allreduce(meshmem.IN_PLACE, v)
assert (v == n * (n + 1) / 2).all(), v[:4]
meshmem.barrier()
if me == 0:
    print(f"rtl_check: ok on {n} ranks", flush=True)
