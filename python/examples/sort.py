"""A distributed sort driver: OPTWEB's 3-step parallel counting sort, from Python.

    meshrun -n 4 python3 sort.py [--records 1000000] [--seed 1]

1. every rank counts its random 32-bit keys per destination (rank r owns the keys whose top
   bits select r) and the counts are exchanged (alltoall);
2. the keys are sent to their owners in one step (alltoallv);
3. every rank sorts what it received.
The result is verified: each rank's keys are sorted and within its range, the ranges follow
each other, and no key was lost (the sums and counts over the job match the input's).
"""
import argparse
import time

import numpy as np

import meshmem

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--records", type=int, default=1 << 20, help="keys in the whole job")
p.add_argument("--seed", type=int, default=1)
args = p.parse_args()

me, n = meshmem.rank(), meshmem.size()
mine = args.records // n + (1 if me < args.records % n else 0)
keys = np.random.default_rng(args.seed * 1000 + me).integers(0, 1 << 32, mine, dtype=np.uint32)
meshmem.barrier()
t0 = time.perf_counter()
owner = (keys.astype(np.uint64) * n >> 32).astype(np.int64)      # rank r owns [r, r+1) / n
order = np.argsort(owner, kind="stable")
send = keys[order]
sendcounts = np.bincount(owner, minlength=n).astype(np.int64)
recvcounts = np.zeros(n, np.int64)
meshmem.alltoall(sendcounts, recvcounts)                        # step 1: counts
recv = np.empty(int(recvcounts.sum()), np.uint32)
meshmem.alltoallv(send, sendcounts, recv, recvcounts)           # step 2: keys, one step
recv.sort()                                                     # step 3: local sort
elapsed = time.perf_counter() - t0

# verification
lo, hi = (me << 32) // n, ((me + 1) << 32) // n
assert recv.size == 0 or (int(recv[0]) >= lo and int(recv[-1]) < hi), "key out of range"
assert np.all(recv[:-1] <= recv[1:]), "not sorted"
totals = np.array([keys.size, int(keys.astype(np.uint64).sum()), recv.size,
                   int(recv.astype(np.uint64).sum())], np.uint64)
meshmem.allreduce(meshmem.IN_PLACE, totals)
assert totals[0] == totals[2] == args.records and totals[1] == totals[3], "keys lost"
if me == 0:
    print(f"sort: {args.records} keys on {n} ranks sorted and verified in "
          f"{1e3 * elapsed:.1f} ms")
