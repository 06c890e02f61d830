"""`meshmem bench`: OSU-style benchmarks of meshmem, each against its OpenMPI twin in the same run.

For every operation the meshmem program and its OpenMPI twin run alternately, several rounds
(the order flips every round, so neither side always runs on a warmer or quieter machine);
the median over rounds of each side's average latency is reported per size, with the ratio
meshmem / OpenMPI (below 1: meshmem is faster). Sizes of 64 KiB and more also report the
bandwidth of a plain memcpy of the same size run by every rank at once, measured inside the
same runs: the physical limit of one copy on this machine.

Methodology (OSU micro-benchmarks): untimed warm-up, then 1000 timed iterations up to 8 KiB and
100 above, average latency per size; `bytes` is the block one rank sends to one peer; with more
than 2 ranks the lower half of the ranks each work with a partner in the upper half, at once.

Twins: OpenMPI's OSHMEM (the same OpenSHMEM source compiled with oshcc) where it runs, otherwise
MPI one-sided (MPI_Put + MPI_Win_flush, ...); pingpong is always against an MPI_Send/MPI_Recv
ping-pong. Each row says which twin it was measured against.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass

from meshmem import osu
from meshmem.osu import RUNTIMES, BenchError, LaunchOptions

KiB, MiB = 1 << 10, 1 << 20


@dataclass(frozen=True)
class BenchOp:
    """One benchmarked operation: the program mode on each side and how to report it.

    A new operation (e.g. a collective) is one more row of OPS naming its meshmem program mode,
    the twins it may be compared with (in order of preference) and its default sizes."""
    name: str
    mode: str                 # -o argument of the benchmark programs
    meshmem_call: str         # what the meshmem side times
    twins: tuple              # ((runtime key, what that twin times), ...), preferred first
    sizes: tuple              # default sizes in bytes
    sized: bool = True        # False: the size is fixed (atomic: 8, barrier: 0)
    bandwidth: bool = False   # also report GB/s at sizes >= BANDWIDTH_MIN


OPS = {op.name: op for op in (
    BenchOp("put", "put", "shmem_putmem + shmem_quiet",
            (("oshmem", "shmem_putmem + shmem_quiet"), ("mpi", "MPI_Put + MPI_Win_flush")),
            (8, 64, 512, 4 * KiB, 32 * KiB, 256 * KiB, 1 * MiB), bandwidth=True),
    BenchOp("get", "get", "shmem_getmem",
            (("oshmem", "shmem_getmem"), ("mpi", "MPI_Get + MPI_Win_flush")),
            (8, 64, 512, 4 * KiB, 32 * KiB, 256 * KiB, 1 * MiB), bandwidth=True),
    BenchOp("atomic", "atomic", "shmem_long_atomic_fetch_add",
            (("oshmem", "shmem_long_atomic_fetch_add"),
             ("mpi", "MPI_Fetch_and_op(SUM) + MPI_Win_flush")), (8,), sized=False),
    BenchOp("put_signal", "put_signal", "shmem_putmem_signal + shmem_quiet",
            (("oshmem", "shmem_putmem + shmem_fence + atomic set + shmem_quiet (1.4 has no "
                        "signals)"),
             ("mpi", "MPI_Put + flush + MPI_Accumulate(REPLACE) + flush")),
            (8, 64, 512, 4 * KiB, 64 * KiB, 1 * MiB), bandwidth=True),
    BenchOp("pingpong", "pingpong", "put_signal, signal_wait_until, answered the same way; "
            "half round trip",
            (("mpi", "MPI_Send/MPI_Recv ping-pong, half round trip"),),
            (8, 64, 512, 4 * KiB)),
    BenchOp("barrier", "barrier", "shmem_barrier_all",
            (("oshmem", "shmem_barrier_all"), ("mpi", "MPI_Barrier")), (0,), sized=False),
)}

BANDWIDTH_MIN = 64 * KiB
MEMCPY_MIN = 64 * KiB
# iteration counts when ranks outnumber cores: every wait there costs a scheduler round trip
OVERSUB_ITERS, OVERSUB_ITERS_LARGE = 100, 10


def parse_size(text: str) -> int:
    """'8', '4K', '4KiB', '1M' -> bytes."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = {"K": KiB, "M": MiB, "G": 1 << 30}.get(t[-1:], 1)
    if mult != 1:
        t = t[:-1]
    try:
        value = int(t) * mult
    except ValueError:
        raise ValueError(f"size {text!r} is not a number of bytes (e.g. 8, 4K, 1M)") from None
    if value < 0:
        raise ValueError(f"size {text!r} is negative")
    return value


def format_size(n: int) -> str:
    """Bytes in the shortest exact unit: 512, 4K, 1M."""
    for unit, mult in (("M", MiB), ("K", KiB)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return str(n)


def add_arguments(p):
    """The `meshmem bench` command line."""
    p.formatter_class = __import__("argparse").RawDescriptionHelpFormatter
    p.description = (__doc__ or "").strip()
    p.epilog = ("operations:\n" + "\n".join(f"  {o.name:<11} {o.meshmem_call}"
                                             for o in OPS.values())
                + "\n\nexamples:\n"
                  "  meshmem bench put --ranks 2\n"
                  "  meshmem bench put get pingpong --ranks 2 --sizes 8,1K,1M --json out.json\n"
                  "  meshmem bench all --ranks 2 --json r.json --plot r.png")
    p.add_argument("ops", nargs="+", metavar="OP", choices=list(OPS) + ["all"],
                   help="operation(s) to measure: " + ", ".join(OPS) + ", or all")
    p.add_argument("--ranks", "-n", type=int, default=2, help="number of ranks (default 2)")
    p.add_argument("--sizes", help="comma-separated message sizes, e.g. 8,1K,64K,1M "
                                   "(default: per operation; ignored by atomic and barrier)")
    p.add_argument("--vs", choices=("openmpi", "oshmem", "mpi", "none"), default="openmpi",
                   help="baseline: openmpi (OSHMEM where it runs, else MPI; default), oshmem, "
                        "mpi, or none")
    p.add_argument("--rounds", type=int, default=5,
                   help="alternating meshmem/baseline rounds; the median is reported "
                        "(default 5)")
    p.add_argument("--iters", type=int, help="timed iterations up to 8 KiB (default 1000; "
                                             f"{OVERSUB_ITERS} when ranks outnumber cores)")
    p.add_argument("--iters-large", type=int, help="timed iterations above 8 KiB (default "
                                                   f"100; {OVERSUB_ITERS_LARGE} oversubscribed)")
    p.add_argument("--warmup", type=int, help="untimed iterations before them "
                                              "(default 10%% of them, at least 10)")
    p.add_argument("--bind", choices=("auto", "core", "none"), default="auto",
                   help="pin ranks to cores, the same for both sides (auto: core unless "
                        "oversubscribed)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="plot latency vs size, log-log")
    p.add_argument("--timeout", type=float, default=300, help="seconds allowed per run "
                                                              "(default 300)")


def machine_info() -> dict:
    """What the numbers depend on: cores, CPU model, load, OpenMPI version."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "platform": platform.platform(),
            "loadavg": list(os.getloadavg()), "openmpi": osu.openmpi_version()}


def choose_twin(op: BenchOp, vs: str, opts: LaunchOptions, notes: list) -> tuple | None:
    """The (runtime key, description) of the baseline for @p op, or None for --vs none."""
    if vs == "none":
        return None
    twins = [t for t in op.twins if vs == "openmpi" or t[0] == vs]
    if not twins:
        notes.append(f"{op.name}: no {vs} twin; compared with {op.twins[0][0]} instead")
        twins = list(op.twins)
    for key, desc in twins:
        if key == "oshmem":
            ok, why = osu.oshmem_works(opts)
            if not ok:
                msg = f"OpenMPI OSHMEM does not run here ({why}); using MPI one-sided instead"
                if msg not in notes:
                    notes.append(msg)
                continue
        return key, desc
    raise BenchError(f"{op.name}: no OpenMPI twin runs here")


def measure(op: BenchOp, sizes: list, opts: LaunchOptions, twin: tuple | None, rounds: int,
            iters: int, iters_large: int, warmup: int | None, log=print) -> list:
    """Run @p op on meshmem and its twin alternately for @p rounds; return the result rows."""
    sides = [("meshmem", RUNTIMES["meshmem"])]
    if twin:
        sides.append(("baseline", RUNTIMES[twin[0]]))
    per_side = {name: [] for name, _ in sides}
    memcpy_all, memcpy_one = {}, {}
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        for name, rt in order:
            out = osu.run(rt, opts, op.mode, sizes, iters, iters_large, warmup, MEMCPY_MIN)
            per_side[name].append(out)
            for s, v in out.memcpy_all.items():
                memcpy_all.setdefault(s, []).append(v)
            for s, v in out.memcpy_one.items():
                memcpy_one.setdefault(s, []).append(v)
        log(f"  {op.name}: round {r + 1}/{rounds} done", file=sys.stderr)
    rows = []
    for s in sizes:
        mm = [o.latency_us[s] for o in per_side["meshmem"]]
        row = {"op": op.name, "ranks": opts.ranks, "bytes": s,
               "meshmem_us": statistics.median(mm),
               "baseline": RUNTIMES[twin[0]].label if twin else None,
               "baseline_us": None,
               "memcpy_GBps": statistics.median(memcpy_all[s]) if s in memcpy_all else None,
               "ratio": None,
               "iters": per_side["meshmem"][0].iters[s],
               "meshmem_call": op.meshmem_call,
               "baseline_call": twin[1] if twin else None,
               "meshmem_rounds_us": mm,
               "memcpy_one_rank_GBps": (statistics.median(memcpy_one[s])
                                        if s in memcpy_one else None)}
        if twin:
            bl = [o.latency_us[s] for o in per_side["baseline"]]
            row["baseline_us"] = statistics.median(bl)
            row["baseline_rounds_us"] = bl
            if row["baseline_us"] > 0:
                row["ratio"] = row["meshmem_us"] / row["baseline_us"]
        if op.bandwidth and s >= BANDWIDTH_MIN:
            row["meshmem_GBps"] = s / row["meshmem_us"] * 1e-3
            if row["baseline_us"]:
                row["baseline_GBps"] = s / row["baseline_us"] * 1e-3
            if row["memcpy_GBps"]:
                row["meshmem_vs_memcpy"] = row["meshmem_GBps"] / row["memcpy_GBps"]
        rows.append(row)
    return rows


def _fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_table(rows: list, out=sys.stdout):
    """The OSU-style table: latency of both sides, their ratio, and bandwidths for large sizes."""
    head = (f"{'op':<11}{'ranks':>6}{'bytes':>9}{'meshmem us':>12}{'baseline us':>13}"
            f"{'ratio':>8}{'meshmem GB/s':>14}{'memcpy GB/s':>13}{'% memcpy':>10}"
            f"{'1-rank memcpy':>15}  baseline")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        pct = r.get("meshmem_vs_memcpy")
        print(f"{r['op']:<11}{r['ranks']:>6}{format_size(r['bytes']):>9}"
              f"{r['meshmem_us']:>12.3f}{_fmt(r['baseline_us'], '.3f'):>13}"
              f"{_fmt(r['ratio'], '.2f'):>8}{_fmt(r.get('meshmem_GBps'), '.2f'):>14}"
              f"{_fmt(r['memcpy_GBps'], '.2f'):>13}"
              f"{'-' if pct is None else format(100 * pct, '.0f') + '%':>10}"
              f"{_fmt(r.get('memcpy_one_rank_GBps'), '.2f'):>15}"
              f"  {r['baseline'] or 'none'}", file=out)


def run(args) -> int:
    """Entry point of `meshmem bench`."""
    names = list(OPS) if "all" in args.ops else list(dict.fromkeys(args.ops))
    if args.ranks < 1:
        print("meshmem bench: --ranks must be at least 1", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("meshmem bench: --rounds must be at least 1", file=sys.stderr)
        return 2
    try:
        user_sizes = ([parse_size(t) for t in args.sizes.split(",") if t.strip()]
                      if args.sizes else None)
    except ValueError as e:
        print(f"meshmem bench: --sizes: {e}", file=sys.stderr)
        return 2
    ncpu = os.cpu_count() or 1
    oversub = args.ranks > ncpu
    notes = []
    iters = args.iters or (OVERSUB_ITERS if oversub else 1000)
    iters_large = args.iters_large or (OVERSUB_ITERS_LARGE if oversub else 100)
    if oversub and not (args.iters and args.iters_large):
        notes.append(f"{args.ranks} ranks on {ncpu} cores (oversubscribed): {iters} iterations "
                     f"up to 8 KiB and {iters_large} above instead of OSU's 1000/100")
    bind = args.bind if args.bind != "auto" else ("none" if oversub else "core")
    info = machine_info()
    print(f"# meshmem bench: {args.ranks} ranks on {info['nproc']} cores ({info['cpu']}), "
          f"bind {bind}, {args.rounds} alternating rounds, median reported; "
          f"load average {info['loadavg'][0]:.2f}")
    rows = []
    try:
        for name in names:
            op = OPS[name]
            if name != "barrier" and args.ranks < 2:
                raise BenchError(f"{name} needs at least 2 ranks")
            sizes = list(user_sizes) if (user_sizes and op.sized) else list(op.sizes)
            heap = max(64 * MiB, 2 * max(sizes) + 32 * MiB)
            opts = LaunchOptions(ranks=args.ranks, bind=bind, heap_bytes=heap,
                                 timeout_s=args.timeout)
            twin = choose_twin(op, args.vs, opts, notes)
            rows += measure(op, sizes, opts, twin, args.rounds, iters, iters_large,
                            args.warmup)
    except BenchError as e:
        print(f"meshmem bench: {e}", file=sys.stderr)
        return 1
    print_table(rows)
    seen = set()
    for r in rows:
        if r["baseline"] and (r["op"], r["baseline"]) not in seen:
            seen.add((r["op"], r["baseline"]))
            print(f"# {r['op']}: meshmem times {r['meshmem_call']}; "
                  f"{r['baseline']} times {r['baseline_call']}")
    for n in notes:
        print(f"# note: {n}")
    print("# ratio = meshmem us / baseline us (below 1: meshmem faster); memcpy GB/s: a plain "
          "memcpy of that size by every rank at once, in the same runs (1-rank: rank 0 alone)")
    info["loadavg_end"] = list(os.getloadavg())
    doc = {"results": rows, "machine": info,
           "settings": {"ranks": args.ranks, "rounds": args.rounds, "iters": iters,
                        "iters_large": iters_large, "bind": bind, "vs": args.vs,
                        "oversubscribed": oversub, "notes": notes,
                        "date": time.strftime("%Y-%m-%d %H:%M:%S")}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"# wrote {args.json}")
    if args.plot:
        from meshmem.plot import plot_latency
        plot_latency(rows, args.plot, title=f"{args.ranks} ranks, {info['cpu']}")
        print(f"# wrote {args.plot}")
    return 0
