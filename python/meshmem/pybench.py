"""`meshmem bench --python`: the cost of calling meshmem from Python.

Measured in one run, on the same machine: an 8-byte and a 1 MiB all-reduce (float64, sum) and
an 8-byte put (rank 0 to rank 1), each
  - from Python (meshmem.allreduce / meshmem.put on symmetric NumPy arrays),
  - from C, in the same process on the same buffers (a timed loop in meshmem._ffi),
  - and with mpi4py on OpenMPI (Comm.Allreduce on NumPy arrays; for the put, Win.Put then
    Win.Flush in a passive epoch: a put complete at the target, as meshmem's is).
Methodology (OSU's): warm-up, then each call timed on its own with an untimed barrier between
calls; a figure is rank 0's mean over the iterations; in a run the Python and C loops
alternate (twice each, the better pass kept), and a figure is the best of --rounds runs.

The rank side of it is `python -m meshmem.pybench --rank meshmem|mpi4py`: it prints lines
"@py op=.. bytes=.. api=python|c|mpi4py us=..".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CASES = (("allreduce", 8), ("allreduce", 1 << 20), ("put", 8))


def _iters(nbytes: int, iters: int) -> int:
    return iters if nbytes <= 8192 else max(iters // 10, 10)


def _timed(call, sync, iters: int, warmup: int) -> float:
    """Mean µs of @p call over @p iters calls, each timed alone, @p sync between calls."""
    clock = time.perf_counter
    total = 0.0
    for i in range(warmup + iters):
        t0 = clock()
        call()
        t1 = clock()
        if i >= warmup:
            total += t1 - t0
        sync()
    return 1e6 * total / iters


def rank_meshmem(iters: int, warmup: int) -> None:
    import meshmem
    from meshmem._ffi import lib
    me = meshmem.rank()
    for op, nbytes in CASES:
        n = _iters(nbytes, iters)
        src = meshmem.full(nbytes // 8, 1.0)
        dst = meshmem.zeros(nbytes // 8)
        a, b = src.__array_interface__["data"][0], dst.__array_interface__["data"][0]
        # Python and C alternate, twice each, and each keeps its better pass: neither gets
        # the cold start or the warmer memory alone
        pys, cs = [], []
        for _ in range(2):
            if op == "allreduce":
                pys.append(_timed(lambda: meshmem.allreduce(src, dst), meshmem.sync, n, warmup))
                cs.append(lib.mmpy_bench_allreduce(a, b, nbytes // 8, lib.MESHMEM_FLOAT64, n,
                                                   warmup))
            else:
                put = (lambda: meshmem.put(dst, src, 1)) if me == 0 else (lambda: None)
                pys.append(_timed(put, meshmem.sync, n, warmup))
                cs.append(lib.mmpy_bench_put(b, a, nbytes, n, warmup))
        py, c = min(pys), min(cs)
        if me == 0:
            print(f"@py op={op} bytes={nbytes} api=python us={py:.4f}")
            print(f"@py op={op} bytes={nbytes} api=c us={c:.4f}", flush=True)
        meshmem.barrier()


def rank_mpi4py(iters: int, warmup: int) -> None:
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    me = comm.Get_rank()
    for op, nbytes in CASES:
        n = _iters(nbytes, iters)
        src, dst = np.ones(nbytes // 8), np.zeros(nbytes // 8)
        if op == "allreduce":
            us = _timed(lambda: comm.Allreduce(src, dst, op=MPI.SUM), comm.Barrier, n, warmup)
        else:
            win = MPI.Win.Create(dst, comm=comm)
            win.Lock_all()

            def put():
                win.Put(src, 1)
                win.Flush(1)
            us = _timed(put if me == 0 else (lambda: None), comm.Barrier, n, warmup)
            win.Unlock_all()
            win.Free()
        if me == 0:
            print(f"@py op={op} bytes={nbytes} api=mpi4py us={us:.4f}", flush=True)


# ------------------------------------------------------------------------------------------
# The driver
# ------------------------------------------------------------------------------------------

class PyBenchError(Exception):
    pass


def python_with_bindings() -> str:
    """An interpreter that has the installed package: this one, or make test's build/venv."""
    try:
        import meshmem._ffi  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    from meshmem.paths import build_dir
    venv = build_dir() / "venv" / "bin" / "python"
    if venv.exists():
        return str(venv)
    raise PyBenchError("the meshmem Python package is not installed for this python (pip "
                       "install ., or make python / make test, which install it into "
                       "build/venv)")


def parse(text: str) -> dict:
    """{(op, bytes, api): µs} from the @py lines of a run."""
    out = {}
    for line in text.splitlines():
        if line.startswith("@py "):
            kv = dict(item.split("=", 1) for item in line.split()[1:])
            out[(kv["op"], int(kv["bytes"]), kv["api"])] = float(kv["us"])
    return out


def run_once(side: str, python: str, ranks: int, bind: str, iters: int, timeout: float) -> dict:
    from meshmem.osu import LaunchOptions, twin_command
    from meshmem.run import launcher
    args = [python, "-m", "meshmem.pybench", "--rank", side, "--iters", str(iters)]
    env = dict(os.environ)
    # build/bin/meshmem points PYTHONPATH at the source tree, which has no compiled bindings:
    # the ranks use the installed package of @p python
    env.pop("PYTHONPATH", None)
    if side == "meshmem":
        cmd = [str(launcher()), "-n", str(ranks), "--bind-to", bind, *args]
    else:
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            raise PyBenchError("mpirun not found: OpenMPI is not installed")
        cmd = twin_command(mpirun, "mpi", LaunchOptions(ranks=ranks, bind=bind), args, env)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        if side == "mpi4py" and "No module named 'mpi4py'" in r.stderr:
            tail = "mpi4py is not installed (pip install mpi4py; scripts/install-deps.sh does)"
        raise PyBenchError(f"the {side} run failed (status {r.returncode}): {tail}")
    return parse(r.stdout)


def best(runs: list) -> dict:
    keys = set().union(*runs)
    return {k: min(r[k] for r in runs if k in r) for k in keys}


def rows_of(fig: dict, ranks: int) -> list:
    rows = []
    for op, nbytes in CASES:
        py, c, mpi = (fig.get((op, nbytes, a)) for a in ("python", "c", "mpi4py"))
        rows.append({"op": op, "bytes": nbytes, "ranks": ranks, "c_us": c, "python_us": py,
                     "mpi4py_us": mpi,
                     "python_over_c": py / c if py and c else None,
                     "speedup_vs_mpi4py": mpi / py if py and mpi else None})
    return rows


def report(rows: list, out=sys.stdout) -> None:
    from meshmem.bench import format_size
    print(f"{'op':<10}{'bytes':>7}{'C µs':>10}{'Python µs':>11}{'Python/C':>10}"
          f"{'mpi4py µs':>11}{'× mpi4py (speed-up)':>21}", file=out)
    f = (lambda v, spec: "-" if v is None else format(v, spec))
    for r in rows:
        print(f"{r['op']:<10}{format_size(r['bytes']):>7}{f(r['c_us'], '.3f'):>10}"
              f"{f(r['python_us'], '.3f'):>11}{f(r['python_over_c'], '.2f'):>10}"
              f"{f(r['mpi4py_us'], '.3f'):>11}{f(r['speedup_vs_mpi4py'], '.2f'):>21}", file=out)


def run(args) -> int:
    """`meshmem bench --python` (the options of `meshmem bench` it uses: --ranks, --rounds,
    --iters, --bind-to, --vs, --json, --timeout)."""
    from meshmem.options import UserError, at_least, check_outputs
    from meshmem.osu import LaunchOptions, twin_settings
    ranks = args.ranks
    if ranks < 2:
        raise UserError(f"--ranks {ranks}: --python needs at least 2 (the put goes from rank 0 "
                        "to rank 1)")
    if args.ops:
        raise UserError(f"OP {args.ops[0]}: --python measures its own operations; name none")
    at_least("--rounds", args.rounds, 1)
    at_least("--iters", args.iters, 1)
    check_outputs(args)
    bind = args.bind_to
    iters = args.iters or 2000
    sides = ["meshmem"] + (["mpi4py"] if args.vs in ("openmpi", "mpi") else [])
    runs = {s: [] for s in sides}
    try:
        python = python_with_bindings()
        for _ in range(args.rounds):  # alternate, so that both see the same machine load
            for side in sides:
                runs[side].append(run_once(side, python, ranks, bind, iters, args.timeout))
    except (PyBenchError, subprocess.TimeoutExpired) as e:
        print(f"meshmem bench --python: {e}", file=sys.stderr)
        return 1
    fig = {}
    for side in sides:
        fig.update(best(runs[side]))
    rows = rows_of(fig, ranks)
    load = os.getloadavg()[0]
    print(f"meshmem bench --python: {ranks} ranks, bind {bind}, best of {args.rounds} rounds, "
          f"1-minute load {load:.2f}")
    report(rows)
    twin = twin_settings(LaunchOptions(ranks=ranks, bind=bind)) if "mpi4py" in sides else None
    if twin:
        print(f"# {twin.line()}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "load1": load, "ranks": ranks,
                                               "rounds": args.rounds,
                                               "openmpi": twin.as_dict() if twin else None},
                                              indent=2) + "\n")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m meshmem.pybench",
                                description="rank side of `meshmem bench --python`")
    p.add_argument("--rank", choices=("meshmem", "mpi4py"), required=True)
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=200)
    a = p.parse_args(argv)
    (rank_meshmem if a.rank == "meshmem" else rank_mpi4py)(a.iters, a.warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
