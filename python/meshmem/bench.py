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

Collectives (bench/osu_coll.c on meshmem_coll.h, against MPI_* in bench/osu_coll_mpi.c): every
call timed on its own, a barrier between iterations (OSU's osu_alltoall etc.); buffers in the
symmetric heap (--private: malloc); --algo picks meshmem's algorithm (a comma list measures
several against the same OpenMPI runs); --topology sets MESHMEM_TOPOLOGY for the meshmem side.
Their memcpy reference copies the bytes a rank moves per call (N blocks for all-to-all and
all-gather), so "% memcpy" is the memcpy's time over the collective's. For blocks that fit in a
flag line (48 bytes) the meshmem runs also time the floor: the same one-step pattern of cache
lines written by the benchmark itself, with no runtime, timed the same way ("floor us"; "x floor"
is meshmem's time over it): what line transfers (and, oversubscribed, context switches) cost on
this machine, whatever the runtime.
"""
from __future__ import annotations

import json
import os
import platform
import re
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
    program: str = "core"     # "core": osu_shmem & twins; "coll": osu_coll & osu_coll_mpi
    algos: tuple = ()         # meshmem algorithms the collective implements (besides auto)
    row_fields: tuple = ()    # (key, value) pairs copied into every JSON row of the op


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

CORE_OPS = tuple(OPS)

# Collectives: 8 B to 16 MiB per rank (OSU's size: the block one rank sends to one peer)
COLL_SIZES = (8, 64, 512, 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB,
              16 * MiB)
_MESH_PAIR = ("onestep", "ring")
for _op in (
    BenchOp("coll_barrier", "barrier", "meshmem_coll_barrier",
            (("mpi_coll", "MPI_Barrier"),), (0,), sized=False),
    BenchOp("bcast", "bcast", "meshmem_coll_bcast (root 0)",
            (("mpi_coll", "MPI_Bcast"),), COLL_SIZES, algos=("onestep",)),
    BenchOp("scatter", "scatter", "meshmem_coll_scatter (root 0)",
            (("mpi_coll", "MPI_Scatter"),), COLL_SIZES, algos=("onestep",)),
    BenchOp("gather", "gather", "meshmem_coll_gather (root 0)",
            (("mpi_coll", "MPI_Gather"),), COLL_SIZES, algos=("onestep",)),
    BenchOp("allgather", "allgather", "meshmem_coll_allgather",
            (("mpi_coll", "MPI_Allgather"),), COLL_SIZES, algos=_MESH_PAIR),
    BenchOp("allgatherv", "allgatherv", "meshmem_coll_allgatherv (equal counts)",
            (("mpi_coll", "MPI_Allgatherv"),), COLL_SIZES, algos=_MESH_PAIR),
    BenchOp("alltoall", "alltoall", "meshmem_coll_alltoall",
            (("mpi_coll", "MPI_Alltoall"),), COLL_SIZES, algos=_MESH_PAIR),
    BenchOp("alltoallv", "alltoallv", "meshmem_coll_alltoallv (equal counts, known)",
            (("mpi_coll", "MPI_Alltoallv"),), COLL_SIZES, algos=_MESH_PAIR),
    BenchOp("reduce", "reduce", "meshmem_coll_reduce (SUM, root 0)",
            (("mpi_coll", "MPI_Reduce (SUM)"),), COLL_SIZES, algos=("aggressive",)),
    BenchOp("allreduce", "allreduce", "meshmem_coll_allreduce (SUM)",
            (("mpi_coll", "MPI_Allreduce (SUM)"),), COLL_SIZES,
            algos=("onestep", "naive", "aggressive", "ring", "recdbl")),
    BenchOp("reduce_scatter", "reduce_scatter", "meshmem_coll_reduce_scatter (SUM, block)",
            (("mpi_coll", "MPI_Reduce_scatter_block (SUM)"),), COLL_SIZES,
            algos=("aggressive",)),
):
    OPS[_op.name] = BenchOp(**{**_op.__dict__, "program": "coll",
                               "bandwidth": _op.sized})
COLL_OPS = tuple(n for n in OPS if n not in CORE_OPS)
GROUPS = {"core": CORE_OPS, "coll": COLL_OPS, "all": tuple(OPS)}

# Active messages (bench/osu_am.c, native API): FSHMEM's Fig. 5 (put/get bandwidth against
# transfer size, per fragment size), Table III (latency), AM round trip and rate, streams.
# Their baselines: direct put/get in the same program (twins with a third element: the mode
# the twin runs), MPI's ping-pong for the AM round trip. Group "am" (in "all" too).
osu.RUNTIMES.setdefault("meshmem_am", osu.Runtime("meshmem_am", "meshmem", "osu_am",
                                                  "osu_am.c", None, "meshrun"))
osu.RUNTIMES.setdefault("meshmem_direct", osu.Runtime("meshmem_direct", "meshmem-direct",
                                                      "osu_am", "osu_am.c", None, "meshrun"))
AM_FIG5_SIZES = (4, 16, 64, 256, 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB,
                 2 * MiB)
AM_FRAGS = ("", "_f128", "_f256", "_f512", "_f1024")
AM_STREAM_N = (1, 8, 64, 512)
_am_ops = [BenchOp(f"am_put{f}", f"am_put{f}",
                   f"meshmem_am_put ({'fragments of ' + f[2:] + ' B' if f else 'unfragmented'})"
                   " + meshmem_am_quiet",
                   (("meshmem_direct", "meshmem_put + meshmem_quiet (direct)", "put"),),
                   AM_FIG5_SIZES, bandwidth=True, program="am") for f in AM_FRAGS]
_am_ops += [BenchOp(f"am_get{f}", f"am_get{f}",
                    f"meshmem_am_get ({'fragments of ' + f[2:] + ' B' if f else 'unfragmented'}"
                    ": SHORT requests, LONG replies)",
                    (("meshmem_direct", "meshmem_get (direct)", "get"),),
                    AM_FIG5_SIZES, bandwidth=True, program="am") for f in AM_FRAGS]
_am_ops += [
    BenchOp("am_pingpong", "am_pingpong", "SHORT request (one 8-byte argument; MEDIUM above 8 "
            "bytes) answered by a reply; half round trip",
            (("mpi", "MPI_Send/MPI_Recv ping-pong, half round trip", "pingpong"),),
            (8, 64, 512, 4 * KiB), program="am"),
    BenchOp("am_rate", "am_rate", "windows of 64 SHORT requests + meshmem_am_quiet; us per "
            "message", (), (8,), sized=False, program="am"),
]
# streams in two forms, separate rows: one element per call (meshmem_stream_push1, FSHMEM's
# Automatic Result Transfer) and N elements per call (meshmem_stream_push); JSON: push, batch_n
_am_ops += [BenchOp(f"stream_n{n}{form}", f"stream_n{n}{form}",
                    f"float32 pushed {what}, signal every {n}; closed, acknowledged",
                    (("meshmem_direct", "one put_signal of the same data, acknowledged",
                      "stream_put"),), (4 * KiB, 64 * KiB, 1 * MiB), bandwidth=True,
                    program="am", row_fields=(("push", push), ("batch_n", n)))
            for n in AM_STREAM_N
            for form, what, push in (("", "one at a time (meshmem_stream_push1)", "element"),
                                     ("_batch", f"{n} per call (meshmem_stream_push)", "batch"))]
for _op in _am_ops:
    OPS[_op.name] = _op
AM_OPS = tuple(o.name for o in _am_ops)
GROUPS["am"] = AM_OPS
GROUPS["all"] = tuple(OPS)
ALGOS = ("auto", "onestep", "naive", "aggressive", "ring", "recdbl")
DTYPES = ("float32", "float64", "int32", "int64")
_GHC = re.compile(r"^ghc:(\d+)x(\d+)$")

BANDWIDTH_MIN = 64 * KiB
MEMCPY_MIN = 64 * KiB
# iteration counts when ranks outnumber cores: every wait there costs a scheduler round trip,
# so large sizes take fewer; small ones keep OSU's 1000 (with 100 a single preemption by another
# job moved the average by a factor of several)
OVERSUB_ITERS, OVERSUB_ITERS_LARGE = 1000, 10


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
                  "  meshmem bench core --ranks 2 --json r.json --plot r.png\n"
                  "  meshmem bench alltoall allreduce --ranks 8 --sizes 8,1K,1M\n"
                  "  meshmem bench allreduce --algo naive,aggressive,onestep,ring,recdbl\n"
                  "  meshmem bench coll --ranks 8 --topology ghc:4x2\n\n"
                  "groups: core (" + ", ".join(CORE_OPS) + "), coll (the collectives), "
                  "all (both)")
    p.add_argument("ops", nargs="+", metavar="OP", choices=list(OPS) + list(GROUPS),
                   help="operation(s) to measure: " + ", ".join(OPS)
                        + ", or a group: core, coll, all")
    p.add_argument("--ranks", "-n", type=int, default=2, help="number of ranks (default 2)")
    p.add_argument("--sizes", help="comma-separated message sizes, e.g. 8,1K,64K,1M "
                                   "(default: per operation; ignored by atomic and barrier)")
    p.add_argument("--vs", choices=("openmpi", "oshmem", "mpi", "none"), default="openmpi",
                   help="baseline: openmpi (OSHMEM where it runs, else MPI; default), oshmem, "
                        "mpi, or none")
    p.add_argument("--rounds", type=int, default=5,
                   help="alternating meshmem/baseline rounds; the median is reported "
                        "(default 5)")
    p.add_argument("--iters", type=int, help="timed iterations up to 8 KiB (default 1000, "
                                             "also when ranks outnumber cores)")
    p.add_argument("--iters-large", type=int, help="timed iterations above 8 KiB (default "
                                                   f"100; {OVERSUB_ITERS_LARGE} oversubscribed)")
    p.add_argument("--warmup", type=int, help="untimed iterations before them "
                                              "(default 10%% of them, at least 10)")
    p.add_argument("--bind", choices=("auto", "core", "none"), default="auto",
                   help="pin ranks to cores, the same for both sides (auto: core; ranks "
                        "beyond the cores go round-robin, OpenMPI told overload-allowed)")
    p.add_argument("--algo", default="auto",
                   help="collectives: meshmem algorithm(s), comma-separated, each measured "
                        "against the same OpenMPI runs: " + ", ".join(ALGOS) + " (default "
                        "auto; an op that lacks one is an error when named, skipped when it "
                        "comes from a group)")
    p.add_argument("--topology", default="fullmesh",
                   help="collectives: fullmesh (default), ghc:KXxKY (KX*KY = ranks) or ghc "
                        "(the runtime's most square grid), set as MESHMEM_TOPOLOGY for the "
                        "meshmem side")
    p.add_argument("--private", action="store_true",
                   help="collectives: buffers from malloc on both sides (default: the "
                        "symmetric heap for meshmem, MPI_Alloc_mem for OpenMPI)")
    p.add_argument("--dtype", choices=DTYPES, default="float32",
                   help="collectives: element type of reduce/allreduce/reduce_scatter "
                        "(default float32, as OSU)")
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
    if vs == "none" or not op.twins:
        return None
    twins = [t for t in op.twins if vs == "openmpi" or t[0].split("_")[0] == vs]
    if not twins:
        notes.append(f"{op.name}: no {vs} twin; compared with {op.twins[0][0]} instead")
        twins = list(op.twins)
    for twin in twins:
        key = twin[0]
        if key == "oshmem":
            ok, why = osu.oshmem_works(opts)
            if not ok:
                msg = f"OpenMPI OSHMEM does not run here ({why}); using MPI one-sided instead"
                if msg not in notes:
                    notes.append(msg)
                continue
        return tuple(twin)
    raise BenchError(f"{op.name}: no OpenMPI twin runs here")


def measure(op: BenchOp, sizes: list, opts: LaunchOptions, twin: tuple | None, rounds: int,
            iters: int, iters_large: int, warmup: int | None, log=print,
            variants: list | None = None, twin_args=(), mesh_env: dict | None = None) -> list:
    """Run @p op on meshmem and its twin alternately for @p rounds; return the result rows.

    @p variants: meshmem runs measured against the same twin runs, as (algo or None, extra
    program arguments); default one plain run. @p twin_args go to the twin's program,
    @p mesh_env to the meshmem ranks' environment."""
    variants = variants or [(None, [])]
    mesh_rt = RUNTIMES[{"coll": "meshmem_coll", "am": "meshmem_am"}.get(op.program, "meshmem")]
    sides = [(("meshmem", algo), mesh_rt, list(args), mesh_env) for algo, args in variants]
    if twin:
        sides.append((("baseline", None), RUNTIMES[twin[0]], list(twin_args), None))
    per_side = {name: [] for name, _, _, _ in sides}
    memcpy_all, memcpy_one, moved, floor = {}, {}, {}, {}
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        for name, rt, args, env in order:
            mode = twin[2] if name[0] == "baseline" and len(twin) > 2 else op.mode
            out = osu.run(rt, opts, mode, sizes, iters, iters_large, warmup, MEMCPY_MIN,
                          extra_args=args, extra_env=env)
            per_side[name].append(out)
            for s, v in out.memcpy_all.items():
                memcpy_all.setdefault(s, []).append(v)
            for s, v in out.memcpy_one.items():
                memcpy_one.setdefault(s, []).append(v)
            moved.update(out.moved)
            for s, v in out.floor_us.items():
                floor.setdefault(s, []).append(v)
        log(f"  {op.name}: round {r + 1}/{rounds} done", file=sys.stderr)
    rows = []
    for algo, _ in variants:
        mine = per_side[("meshmem", algo)]
        for s in sizes:
            mm = [o.latency_us[s] for o in mine]
            row = {"op": op.name, "ranks": opts.ranks, "bytes": s,
                   "meshmem_us": statistics.median(mm),
                   "baseline": RUNTIMES[twin[0]].label if twin else None,
                   "baseline_us": None,
                   "memcpy_GBps": statistics.median(memcpy_all[s]) if s in memcpy_all else None,
                   "ratio": None,
                   "iters": mine[0].iters[s],
                   "meshmem_call": op.meshmem_call,
                   "baseline_call": twin[1] if twin else None,
                   "meshmem_rounds_us": mm,
                   "memcpy_one_rank_GBps": (statistics.median(memcpy_one[s])
                                            if s in memcpy_one else None)}
            if s in floor:
                row["floor_us"] = statistics.median(floor[s])
                row["floor_rounds_us"] = floor[s]
                row["meshmem_vs_floor"] = row["meshmem_us"] / row["floor_us"]
            row.update(dict(op.row_fields))
            if algo is not None:
                row["algo"] = algo
            if twin:
                bl = [o.latency_us[s] for o in per_side[("baseline", None)]]
                row["baseline_us"] = statistics.median(bl)
                row["baseline_rounds_us"] = bl
                if row["baseline_us"] > 0:
                    row["ratio"] = row["meshmem_us"] / row["baseline_us"]
                # each round's pair ran back to back: the median of their ratios is less
                # sensitive to the machine's load drifting between rounds
                if all(b > 0 for b in bl):
                    row["paired_ratio"] = statistics.median(m / b for m, b in zip(mm, bl))
                if row.get("floor_us"):
                    row["baseline_vs_floor"] = row["baseline_us"] / row["floor_us"]
            if op.bandwidth and s >= BANDWIDTH_MIN:
                nbytes = moved.get(s, s)
                if op.program == "coll":
                    row["moved_bytes"] = nbytes
                row["meshmem_GBps"] = nbytes / row["meshmem_us"] * 1e-3
                if row["baseline_us"]:
                    row["baseline_GBps"] = nbytes / row["baseline_us"] * 1e-3
                if row["memcpy_GBps"]:
                    row["meshmem_vs_memcpy"] = row["meshmem_GBps"] / row["memcpy_GBps"]
                    if row.get("baseline_GBps"):
                        row["baseline_vs_memcpy"] = row["baseline_GBps"] / row["memcpy_GBps"]
            rows.append(row)
    return rows


def fmt_optional(v, spec: str) -> str:
    """@p v formatted with @p spec, or "-" for a missing value."""
    return "-" if v is None else format(v, spec)


def row_label(r: dict) -> str:
    """op, with the algorithm when one was chosen: allreduce/ring."""
    algo = r.get("algo")
    return f"{r['op']}/{algo}" if algo and algo != "auto" else r["op"]


def print_table(rows: list, out=None):
    """The OSU-style table: latency of both sides, their ratio, and bandwidths for large sizes."""
    out = out or sys.stdout
    head = (f"{'op':<22}{'ranks':>6}{'bytes':>9}{'meshmem us':>12}{'baseline us':>13}"
            f"{'ratio':>8}{'meshmem GB/s':>14}{'memcpy GB/s':>13}{'% memcpy':>10}"
            f"{'1-rank memcpy':>15}{'floor us':>10}{'x floor':>9}  baseline")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        pct = r.get("meshmem_vs_memcpy")
        print(f"{row_label(r):<22}{r['ranks']:>6}{format_size(r['bytes']):>9}"
              f"{r['meshmem_us']:>12.3f}{fmt_optional(r['baseline_us'], '.3f'):>13}"
              f"{fmt_optional(r['ratio'], '.2f'):>8}{fmt_optional(r.get('meshmem_GBps'), '.2f'):>14}"
              f"{fmt_optional(r['memcpy_GBps'], '.2f'):>13}"
              f"{'-' if pct is None else format(100 * pct, '.0f') + '%':>10}"
              f"{fmt_optional(r.get('memcpy_one_rank_GBps'), '.2f'):>15}"
              f"{fmt_optional(r.get('floor_us'), '.3f'):>10}"
              f"{fmt_optional(r.get('meshmem_vs_floor'), '.2f'):>9}"
              f"  {r['baseline'] or 'none'}", file=out)


def topology_env(topology: str, ranks: int) -> dict:
    """The environment that selects @p topology for the meshmem ranks (BenchError when it
    is malformed, does not fit @p ranks, or this build of meshmem does not know topologies)."""
    if topology == "fullmesh":
        return {"MESHMEM_TOPOLOGY": None}  # the runtime's default, whatever the caller's env
    m = _GHC.match(topology)
    if not m and topology != "ghc":
        raise BenchError(f"--topology {topology!r}: expected fullmesh, ghc:KXxKY (e.g. ghc:4x2) "
                         f"or ghc (the most square grid)")
    kx, ky = (int(m.group(1)), int(m.group(2))) if m else (1, ranks)
    if kx < 1 or ky < 1 or kx * ky != ranks:
        raise BenchError(f"--topology {topology}: {kx} x {ky} = {kx * ky} ranks, but "
                         f"--ranks is {ranks}")
    lib = osu.build_dir() / "lib" / "libmeshmem.so"
    try:
        known = b"TOPOLOGY" in lib.read_bytes()
    except OSError:
        known = True  # cannot tell: let the runtime accept or reject it
    if not known:
        raise BenchError(f"--topology {topology}: this build of meshmem ({lib}) does not read "
                         f"MESHMEM_TOPOLOGY (GHC is not in it yet): it would silently run the "
                         f"full mesh, so nothing was measured")
    return {"MESHMEM_TOPOLOGY": topology}


def select_ops(requested: list, algos: list, notes: list) -> list:
    """(op name, algorithms to run) for the operations asked for, groups expanded. An
    algorithm the op lacks is an error for an op named alone and skips an op from a group."""
    names, explicit = [], set()
    for name in requested:
        if name in GROUPS:
            names += GROUPS[name]
        else:
            names.append(name)
            explicit.add(name)
    out = []
    for name in dict.fromkeys(names):
        op = OPS[name]
        if algos == ["auto"] or (op.program == "coll" and not op.sized):
            out.append((name, ["auto"] if op.program == "coll" else []))
            continue
        have = [a for a in algos if a == "auto" or a in op.algos]
        lacking = [a for a in algos if a not in have]
        if lacking:
            offer = ", ".join(op.algos) or "no algorithm choice"
            msg = f"{name} has no algorithm {', '.join(lacking)} (it offers: {offer})"
            if name in explicit:
                raise ValueError(msg)
            notes.append(msg + "; " + ("skipped" if not have else
                                       "measured with " + ", ".join(have)))
        if have:
            out.append((name, have))
    return out


def run(args) -> int:
    """Entry point of `meshmem bench`."""
    notes = []
    algos = [a.strip() for a in args.algo.split(",") if a.strip()] or ["auto"]
    bad = [a for a in algos if a not in ALGOS]
    if bad:
        print(f"meshmem bench: --algo {', '.join(bad)}: unknown algorithm (choose from "
              f"{', '.join(ALGOS)})", file=sys.stderr)
        return 2
    try:
        selected = select_ops(args.ops, list(dict.fromkeys(algos)), notes)
    except ValueError as e:
        print(f"meshmem bench: --algo: {e}", file=sys.stderr)
        return 2
    if not selected:
        print(f"meshmem bench: no operation offers --algo {args.algo}", file=sys.stderr)
        return 2
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
    try:
        mesh_env = topology_env(args.topology, args.ranks)
    except BenchError as e:
        print(f"meshmem bench: {e}", file=sys.stderr)
        return 2
    ncpu = osu.cores()
    oversub = args.ranks > ncpu
    iters = args.iters or (OVERSUB_ITERS if oversub else 1000)
    iters_large = args.iters_large or (OVERSUB_ITERS_LARGE if oversub else 100)
    if oversub and not args.iters_large:
        notes.append(f"{args.ranks} ranks on {ncpu} cores (oversubscribed): {iters_large} "
                     f"iterations above 8 KiB instead of OSU's 100")
    # pinned even when oversubscribed: unpinned, the scheduler's placement of 8 ranks on 2
    # cores (4+4 or 5+3) changed the per-call time of either runtime by up to 1.7x from one
    # run to the next; pinned round-robin, every run has 4 ranks per core on both sides
    bind = args.bind if args.bind != "auto" else "core"
    info = machine_info()
    coll_note = (f"; collectives: topology {args.topology}, "
                 f"{'private (malloc)' if args.private else 'symmetric-heap'} buffers"
                 if any(OPS[n].program == "coll" for n, _ in selected) else "")
    print(f"# meshmem bench: {args.ranks} ranks on {info['nproc']} cores ({info['cpu']}), "
          f"bind {bind}, {args.rounds} alternating rounds, median reported; "
          f"load average {info['loadavg'][0]:.2f}{coll_note}")
    rows = []
    try:
        for name, op_algos in selected:
            op = OPS[name]
            if op.sized and args.ranks < 2:
                raise BenchError(f"{name} needs at least 2 ranks")
            sizes = list(user_sizes) if (user_sizes and op.sized) else list(op.sizes)
            if op.program == "coll":
                # send and receive buffers of N blocks each, and room for the runtime
                heap = max(64 * MiB, 2 * args.ranks * max(sizes) + 32 * MiB)
            else:
                heap = max(64 * MiB, 2 * max(sizes) + 32 * MiB)
            opts = LaunchOptions(ranks=args.ranks, bind=bind, heap_bytes=heap,
                                 timeout_s=args.timeout)
            twin = choose_twin(op, args.vs, opts, notes)
            if op.program == "coll":
                common = ["-p", "1" if args.private else "0", "-d", args.dtype]
                variants = [(a, ["-a", a] + common) for a in op_algos]
                rows += measure(op, sizes, opts, twin, args.rounds, iters, iters_large,
                                args.warmup, variants=variants, twin_args=common,
                                mesh_env=mesh_env)
                for r in rows:
                    if r["op"] == name:
                        r.update(topology=args.topology, private=args.private,
                                 dtype=args.dtype if name in ("reduce", "allreduce",
                                                              "reduce_scatter") else None)
            else:
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
          "memcpy of that size by every rank at once, in the same runs (1-rank: rank 0 alone); "
          "collectives: of the bytes a rank moves per call (N blocks for alltoall/allgather); "
          "floor us: the collective's pattern of cache lines with no runtime, timed the same "
          "way in the meshmem runs; x floor = meshmem us / floor us")
    info["loadavg_end"] = list(os.getloadavg())
    doc = {"results": rows, "machine": info,
           "settings": {"ranks": args.ranks, "rounds": args.rounds, "iters": iters,
                        "algo": algos, "topology": args.topology, "private": args.private,
                        "dtype": args.dtype,
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
