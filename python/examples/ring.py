"""A token goes around the ring of ranks, each hop one put-with-signal into the next rank.

    meshrun -n 4 python3 ring.py [--laps 10]

Rank r waits on its signal word for the token, adds its number, and puts it into rank r+1
with a signal: OPTWEB's data and flag in one write. After the laps, rank 0 checks the sum.
"""
import argparse

import numpy as np

import meshmem

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--laps", type=int, default=10)
args = p.parse_args()

me, n = meshmem.rank(), meshmem.size()
token = meshmem.zeros(1, np.int64)      # where the token arrives
arrived = meshmem.zeros(1, np.uint64)   # signal word: tokens arrived here so far
meshmem.barrier()
right = (me + 1) % n
for lap in range(args.laps):
    if me != 0 or lap > 0:  # rank 0 starts the first lap
        meshmem.signal_wait_until(arrived, ">=", lap + (1 if me != 0 else 0))
    value = token + me
    meshmem.put_signal(token, value, arrived, 1, right, sig_op="add")
if me == 0:
    meshmem.signal_wait_until(arrived, ">=", args.laps)
    expected = args.laps * n * (n - 1) // 2
    print(f"ring: {args.laps} laps over {n} ranks, token {token[0]} (expected {expected})")
    assert token[0] == expected
meshmem.barrier()
