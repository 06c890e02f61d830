"""Sharing averaged parameters (OPTWEB (JOCN 2022) §3.C): every rank trains its own copy of a
model on its own data, and after each step all copies are replaced by their average.

    meshrun -n 4 python3 average.py [--elements 1000000] [--steps 5] [--algo aggressive]
                                    [--dtype float32|float16|bfloat16]

The parameters live in one symmetric array (a flat buffer the layers are views of, as
frameworks' bucketed all-reduce does), so the all-reduce reads peers' copies directly:
OPTWEB's naive (3 passes) and aggressive (2 passes) averaging are the "naive" and
"aggressive" algorithm hints. Each step checks that every rank holds the same average.
"""
import argparse
import time

import numpy as np

import meshmem

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--elements", type=int, default=1 << 16, help="parameters per model copy")
p.add_argument("--steps", type=int, default=5)
p.add_argument("--algo", default="aggressive",
               choices=("auto", "onestep", "naive", "aggressive", "ring", "recdbl"))
p.add_argument("--dtype", default="float32", choices=("float32", "float64", "float16",
                                                      "bfloat16"))
args = p.parse_args()
dtype = np.dtype(args.dtype) if args.dtype != "bfloat16" else np.dtype(
    __import__("ml_dtypes").bfloat16)

me, n = meshmem.rank(), meshmem.size()
params = meshmem.zeros(args.elements, dtype)           # the model: one flat buffer
layers = np.array_split(params, 4)                      # its layers are views of it
rng = np.random.default_rng(1234 + me)
times = []
for step in range(args.steps):
    for layer in layers:                                # a local "training step"
        layer += rng.standard_normal(layer.size).astype(dtype) * 0.01
    expected = np.zeros(args.elements, np.float64)
    meshmem.allreduce(params.astype(np.float64), expected)    # reference, in float64
    expected /= n
    meshmem.barrier()
    t0 = time.perf_counter()
    meshmem.allreduce(meshmem.IN_PLACE, params, op="sum", algo=args.algo)
    times.append(time.perf_counter() - t0)
    params /= np.array(n, dtype)
    meshmem.barrier()                                   # every rank has divided
    # every rank the same bits, and the average within the dtype's rounding
    first = np.empty_like(params)
    meshmem.get(first, params, 0)
    assert np.array_equal(first.view(np.uint8), params.view(np.uint8)), "ranks differ"
    tol = {2: 5e-2, 4: 1e-5, 8: 1e-12}[dtype.itemsize] * max(1.0, float(np.abs(expected).max()))
    err = float(np.abs(params.astype(np.float64) - expected).max())
    assert err <= tol * n, (step, err, tol)
    meshmem.barrier()
if me == 0:
    print(f"average: {n} ranks, {args.elements} {args.dtype} parameters, {args.steps} steps "
          f"({args.algo}): {1e6 * min(times):.1f} µs per all-reduce (best step), verified")
