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
import statistics
import sys
import time
from dataclasses import dataclass

from meshmem.bench import pybench, rtl, runner, ucx_floor
from meshmem.cli import options
from meshmem.cli.options import UserError, parse_size  # noqa: F401 (parse_size: used by scripts)
from meshmem.cli.plot import plot_latency
from meshmem.cli.report import fmt_optional, format_size, machine_info, machine_line, peer_name, speedup, speedup_legend
from meshmem.launch import commands
from meshmem.launch.commands import RUNTIMES, BenchError, LaunchOptions

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
    BenchOp("put_pingpong", "put_pingpong", "shmem_putmem whose last 8-byte word the partner "
            "waits for (shmem_long_wait_until), answered the same way; half round trip (as "
            "ucx_perftest's ucp_put_lat)",
            (("oshmem", "the same calls"),
             ("mpi", "MPI_Put + MPI_Win_flush, the partner polling with MPI_Win_sync")),
            (8, 64, 512, 4 * KiB)),
    BenchOp("put_bidir", "put_bidir", "shmem_putmem + shmem_quiet by both partners towards "
            "each other at once (as OSU's bibw, but the time of one iteration, each direction "
            "carrying SIZE bytes)",
            (("oshmem", "shmem_putmem + shmem_quiet by both partners"),
             ("mpi", "MPI_Put + MPI_Win_flush by both partners")),
            (8, 64, 512, 4 * KiB, 32 * KiB, 256 * KiB, 1 * MiB), bandwidth=True),
    BenchOp("barrier", "barrier", "shmem_barrier_all",
            (("oshmem", "shmem_barrier_all"), ("mpi", "MPI_Barrier")), (0,), sized=False),
)}

CORE_OPS = tuple(OPS)

# Collectives: 8 B to 16 MiB per rank (OSU's size: the block one rank sends to one peer)
COLL_SIZES = (8, 64, 512, 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB,
              16 * MiB)
# "leader": the node-leader form across hosts (as auto on one host), docs/collectives.md
_MESH_PAIR = ("onestep", "ring", "leader")
for _op in (
    BenchOp("coll_barrier", "barrier", "meshmem_coll_barrier",
            (("mpi_coll", "MPI_Barrier"),), (0,), sized=False),
    BenchOp("bcast", "bcast", "meshmem_coll_bcast (root 0)",
            (("mpi_coll", "MPI_Bcast"),), COLL_SIZES, algos=("onestep", "leader")),
    BenchOp("scatter", "scatter", "meshmem_coll_scatter (root 0)",
            (("mpi_coll", "MPI_Scatter"),), COLL_SIZES, algos=("onestep",)),
    BenchOp("gather", "gather", "meshmem_coll_gather (root 0)",
            (("mpi_coll", "MPI_Gather"),), COLL_SIZES, algos=("onestep",)),
    BenchOp("allgather", "allgather", "meshmem_coll_allgather",
            (("mpi_coll", "MPI_Allgather"),), COLL_SIZES, algos=_MESH_PAIR),
    BenchOp("allgatherv", "allgatherv", "meshmem_coll_allgatherv (equal counts)",
            (("mpi_coll", "MPI_Allgatherv"),), COLL_SIZES, algos=("onestep", "ring")),
    BenchOp("alltoall", "alltoall", "meshmem_coll_alltoall",
            (("mpi_coll", "MPI_Alltoall"),), COLL_SIZES, algos=_MESH_PAIR),
    BenchOp("alltoallv", "alltoallv", "meshmem_coll_alltoallv (equal counts, known)",
            (("mpi_coll", "MPI_Alltoallv"),), COLL_SIZES, algos=("onestep", "ring")),
    BenchOp("reduce", "reduce", "meshmem_coll_reduce (SUM, root 0)",
            (("mpi_coll", "MPI_Reduce (SUM)"),), COLL_SIZES, algos=("aggressive",)),
    BenchOp("allreduce", "allreduce", "meshmem_coll_allreduce (SUM)",
            (("mpi_coll", "MPI_Allreduce (SUM)"),), COLL_SIZES,
            algos=("onestep", "naive", "aggressive", "ring", "recdbl", "leader")),
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
commands.RUNTIMES.setdefault("meshmem_am", commands.Runtime("meshmem_am", "meshmem", "osu_am",
                                                  "osu_am.c", None, "meshrun"))
commands.RUNTIMES.setdefault("meshmem_direct", commands.Runtime("meshmem_direct", "meshmem-direct",
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
    BenchOp("am_rate", "am_rate", "windows of 64 SHORT requests + meshmem_am_quiet; µs per "
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
ALGOS = ("auto", "onestep", "naive", "aggressive", "ring", "recdbl", "leader")
# the operations whose element type --dtype sets
REDUCTIONS = ("reduce", "allreduce", "reduce_scatter")
DTYPES = ("float32", "float64", "int32", "int64")

BANDWIDTH_MIN = 64 * KiB
MEMCPY_MIN = 64 * KiB
# iteration counts when ranks outnumber cores: every wait there costs a scheduler round trip,
# so large sizes take fewer; small ones keep OSU's 1000 (with 100 a single preemption by another
# job moved the average by a factor of several)
OVERSUB_ITERS, OVERSUB_ITERS_LARGE = 1000, 10


DESCRIPTION = """\
OSU-style benchmarks of meshmem, each against OpenMPI in the same run: the meshmem program and
its OpenMPI twin run alternately (--rounds), the median of each side's average latency is
reported per size, with the speed-up (OpenMPI time / meshmem time). The twin runs the same
OpenSHMEM source under OpenMPI's OSHMEM where that works here, else the MPI equivalent
(MPI_Put + MPI_Win_flush, ...); collectives run against MPI_*; each row names its twin.

Methodology: untimed warm-up, then 1000 timed iterations up to 8 KiB and 100 above, average
latency per size; a barrier between the calls of a collective; SIZE is the block one rank sends
to one peer. With more than 2 ranks, point-to-point operations pair each rank of the lower half
with one of the upper half, all pairs at once. From 64 KiB on, each size also reports the
bandwidth of a plain memcpy of the same bytes by every rank at once, measured in the same runs:
the limit of one copy on this machine."""


def add_arguments(p):
    """The `meshmem bench` command line."""
    p.formatter_class = options.HelpFormatter
    p.description = DESCRIPTION
    width = max(len(name) for name in OPS)
    p.epilog = ("operations:\n" + "\n".join(f"  {o.name:<{width}}  {o.meshmem_call}"
                                             for o in OPS.values())
                + "\n\ngroups: core (" + ", ".join(CORE_OPS) + "), coll (the collectives), am "
                  "(active messages and streams), all"
                  "\n\nexamples:\n"
                  "  meshmem bench put --ranks 2\n"
                  "  meshmem bench put get pingpong --sizes 8,1K,1M --json out.json\n"
                  "  meshmem bench core --ranks 2 --json r.json --plot r.png\n"
                  "  meshmem bench alltoall allreduce --ranks 8 --sizes 8,1K,1M\n"
                  "  meshmem bench allreduce --algo naive,aggressive,onestep,ring,recdbl\n"
                  "  meshmem bench coll --ranks 8 --topology ghc:4x2\n"
                  "  meshmem bench --python --ranks 2")
    # no choices=: argparse checks an empty list against them (--python takes no OP); check()
    # names an unknown one
    p.add_argument("ops", nargs="*", metavar="OP",
                   help="what to measure: an operation or a group (listed below)")
    p.add_argument("--python", action="store_true",
                   help="instead: the cost of calling meshmem from Python (8-byte and 1 MiB "
                        "allreduce, 8-byte put) against C and mpi4py on OpenMPI "
                        "(meshmem/bench/pybench.py)")
    options.add_ranks(p)
    p.add_argument("--sizes", metavar="LIST",
                   help="message sizes, comma-separated, e.g. 8,1K,64K,1M (default: per "
                        "operation; operations without a size ignore it)")
    p.add_argument("--vs", default="openmpi", metavar="{openmpi,oshmem,mpi,none}",
                   help="the peer: openmpi (its OSHMEM where it runs here, else MPI; default), "
                        "oshmem or mpi to insist on one, none for meshmem alone")
    options.add_rounds(p, 5)
    p.add_argument("--iters", type=int, metavar="N",
                   help="timed iterations per size up to 8 KiB (default 1000)")
    p.add_argument("--iters-large", type=int, metavar="N",
                   help=f"timed iterations per size above 8 KiB (default 100; "
                        f"{OVERSUB_ITERS_LARGE} when ranks outnumber cores)")
    p.add_argument("--warmup", type=int, metavar="N",
                   help="untimed iterations before them (default 10%% of them, at least 10)")
    options.add_bind_to(p)
    options.add_algo(p, ", ".join(ALGOS), "auto",
                     "collectives: meshmem's algorithm, or several comma-separated, each "
                     "measured against the same OpenMPI runs (an operation that lacks one is "
                     "an error when named alone, skipped when it comes from a group)")
    p.add_argument("--topology", default="fullmesh", metavar="T",
                   help="collectives: fullmesh (default), ghc:KXxKY with KX * KY = ranks, or "
                        "ghc (the most square grid); meshmem's side only")
    p.add_argument("--private", action="store_true",
                   help="collectives: buffers from malloc on both sides (default: meshmem's "
                        "symmetric heap, OpenMPI's MPI_Alloc_mem)")
    p.add_argument("--dtype", choices=DTYPES, default="float32",
                   help="collectives: element type of reduce, allreduce and reduce_scatter "
                        "(default float32, as OSU)")
    options.add_json(p)
    options.add_plot(p, "latency against size, one panel per operation")
    options.add_timeout(p)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--vhosts", type=int, metavar="H", default=0,
                       help="run across H virtual hosts of this machine (meshrun --vhosts; the "
                            "OpenMPI peers on the same kind of cluster; needs root); adds "
                            "the UCX floor, ucx_perftest between two hosts")
    where.add_argument("--hosts", metavar="LIST",
                       help="run across these hosts, e.g. a:1,b:1 (meshrun --hosts, mpirun "
                            "--host); adds the UCX floor")
    options.add_rtl(p)
    p.add_argument("--baselines-only", action="store_true",
                   help="measure the peers (OpenMPI, and the UCX floor across hosts) "
                        "without meshmem")


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
            ok, why = runner.oshmem_works(opts)
            if not ok:
                msg = f"OpenMPI OSHMEM does not run here ({why}); using MPI one-sided instead"
                if msg not in notes:
                    notes.append(msg)
                continue
        return tuple(twin)
    raise BenchError(f"{op.name}: no OpenMPI twin runs here")


def measure(op: BenchOp, sizes: list, opts: LaunchOptions, twin: tuple | None, rounds: int,
            iters: int, iters_large: int, warmup: int | None, log=print,
            variants: list | None = None, twin_args=(), mesh_env: dict | None = None,
            mesh: bool = True, memcpy_min: int = MEMCPY_MIN) -> list:
    """Run @p op on meshmem and its twin alternately for @p rounds; return the result rows.

    @p variants: meshmem runs measured against the same twin runs, as (algo or None, extra
    program arguments); default one plain run. @p twin_args go to the twin's program,
    @p mesh_env to the meshmem ranks' environment. @p mesh False: the twin alone (the rows'
    meshmem values are None). @p memcpy_min: the smallest size with a memcpy reference (0:
    none; on the engine a copy costs no simulated time)."""
    variants = variants or [(None, [])]
    mesh_rt = RUNTIMES[{"coll": "meshmem_coll", "am": "meshmem_am"}.get(op.program, "meshmem")]
    sides = [(("meshmem", algo), mesh_rt, list(args), mesh_env) for algo, args in variants
             if mesh]
    if twin:
        sides.append((("baseline", None), RUNTIMES[twin[0]], list(twin_args), None))
    per_side = {name: [] for name, _, _, _ in sides}
    memcpy_all, memcpy_one, moved, floor = {}, {}, {}, {}
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        for name, rt, args, env in order:
            mode = twin[2] if name[0] == "baseline" and len(twin) > 2 else op.mode
            out = runner.run(rt, opts, mode, sizes, iters, iters_large, warmup, memcpy_min,
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
    for algo, _ in variants if mesh else variants[:1]:
        mine = per_side.get(("meshmem", algo)) or per_side[("baseline", None)]
        for s in sizes:
            mm = [o.latency_us[s] for o in mine] if mesh else None
            row = {"op": op.name, "ranks": opts.ranks, "bytes": s, "sized": op.sized,
                   "meshmem_us": statistics.median(mm) if mesh else None,
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
            if s in floor and mesh:
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
                if row["baseline_us"] > 0 and mesh:
                    row["ratio"] = row["meshmem_us"] / row["baseline_us"]
                row["speedup_vs_baseline"] = speedup(row["baseline_us"], row["meshmem_us"])
                if row["baseline"].startswith("openmpi"):
                    row["speedup_vs_openmpi"] = row["speedup_vs_baseline"]
                # each round's pair ran back to back: the median of their ratios is less
                # sensitive to the machine's load drifting between rounds
                if mesh and all(b > 0 for b in bl) and all(m > 0 for m in mm):
                    row["paired_ratio"] = statistics.median(m / b for m, b in zip(mm, bl))
                    row["paired_speedup"] = statistics.median(b / m for m, b in zip(mm, bl))
                if row.get("floor_us"):
                    row["baseline_vs_floor"] = row["baseline_us"] / row["floor_us"]
            if op.bandwidth and s >= BANDWIDTH_MIN:
                nbytes = moved.get(s, s)
                if op.program == "coll":
                    row["moved_bytes"] = nbytes
                if mesh:
                    row["meshmem_GBps"] = nbytes / row["meshmem_us"] * 1e-3
                if row["baseline_us"]:
                    row["baseline_GBps"] = nbytes / row["baseline_us"] * 1e-3
                if row["memcpy_GBps"] and mesh:
                    row["meshmem_vs_memcpy"] = row["meshmem_GBps"] / row["memcpy_GBps"]
                    if row.get("baseline_GBps"):
                        row["baseline_vs_memcpy"] = row["baseline_GBps"] / row["memcpy_GBps"]
            rows.append(row)
    return rows


def row_label(r: dict) -> str:
    """op, with the algorithm when one was chosen: allreduce/ring."""
    algo = r.get("algo")
    return f"{r['op']}/{algo}" if algo and algo != "auto" else r["op"]


def peer_column(rows: list) -> str:
    """The speed-up column's label: "× OpenMPI" when every peer is OpenMPI, else "× peer"."""
    peers = {r["baseline"] for r in rows if r["baseline"]}
    return "× OpenMPI" if peers and all(p.startswith("openmpi") for p in peers) else "× peer"


def table_columns(rows: list) -> list:
    """The table's columns, (header, width, cell of a row): op, ranks, size and meshmem's time
    always, the others where some row has a value (an 8-byte put has no bandwidth, memcpy
    reference nor floor: its table printed 8 columns of "-" out of 14)."""
    def pct(r):
        p = r.get("meshmem_vs_memcpy")
        return "-" if p is None else format(100 * p, ".0f") + " %"
    cols = [
        ("op", -22, row_label),
        ("ranks", 6, lambda r: str(r["ranks"])),
        ("size", 7, lambda r: format_size(r["bytes"]) if r.get("sized", True) else "-"),
        ("meshmem µs", 12, lambda r: fmt_optional(r["meshmem_us"], ".3f")),
        ("peer µs", 11, lambda r: fmt_optional(r["baseline_us"], ".3f")),
        (peer_column(rows), 11, lambda r: fmt_optional(r.get("speedup_vs_baseline"), ".2f")),
        ("meshmem GB/s", 14, lambda r: fmt_optional(r.get("meshmem_GBps"), ".2f")),
        ("memcpy GB/s", 13, lambda r: fmt_optional(r["memcpy_GBps"], ".2f")),
        ("% memcpy", 10, pct),
        ("1-rank memcpy", 15, lambda r: fmt_optional(r.get("memcpy_one_rank_GBps"), ".2f")),
        ("floor µs", 10, lambda r: fmt_optional(r.get("floor_us"), ".3f")),
        ("× floor", 9, lambda r: fmt_optional(r.get("meshmem_vs_floor"), ".2f")),
    ]
    return [c for i, c in enumerate(cols) if i < 4 or any(c[2](r) != "-" for r in rows)]


def print_table(rows: list, out=None):
    """The OSU-style table: latency of both sides, the speed-up, and bandwidths for large sizes
    (the columns no row fills left out)."""
    out = out or sys.stdout
    cols = table_columns(rows)

    def line(cells):
        return "".join(f"{c:<{-w}}" if w < 0 else f"{c:>{w}}" for c, (_, w, _) in zip(cells, cols))
    head = line([h for h, _, _ in cols]) + "  peer"
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        print(line([cell(r) for _, _, cell in cols]) +
              f"  {peer_name(r['baseline']) if r['baseline'] else 'none'}", file=out)


# how far a measurement may pass its own memcpy reference before it needs a word of explanation
MEMCPY_NOISE = 1.25


def memcpy_notes(rows: list) -> list[str]:
    """The notes a table needs where memcpy does not bound a row: a reference far below the
    others (a slow case of memcpy, not a fair limit), or a row faster than its reference by more
    than noise (fewer ranks copying at once than in the reference, or a suspect reference)."""
    notes = []
    refs = [r["memcpy_GBps"] for r in rows if r.get("memcpy_GBps")]
    typical = statistics.median(refs) if refs else None
    for r in rows:
        ref, pct = r.get("memcpy_GBps"), r.get("meshmem_vs_memcpy")
        where = f"{row_label(r)} {format_size(r['bytes'])}"
        if ref and ref < typical / 3:
            notes.append(f"{where}: the memcpy reference ({ref:.2f} GB/s) is under a third of "
                         f"the table's median ({typical:.2f} GB/s): a slow case of memcpy, not "
                         f"the limit of a copy")
        if pct and pct > MEMCPY_NOISE:
            one = r.get("memcpy_one_rank_GBps")
            if one and r["meshmem_GBps"] <= one * MEMCPY_NOISE:
                notes.append(f"{where}: meshmem moves {100 * pct:.0f} % of the every-rank memcpy "
                             f"but stays within the 1-rank memcpy ({one:.2f} GB/s): fewer ranks "
                             f"copy at once than in the reference")
            else:
                notes.append(f"{where}: meshmem moves {100 * pct:.0f} % of memcpy, above both "
                             f"references: the reference is suspect")
    return notes


def topology_env(topology: str, ranks: int) -> dict:
    """The environment that selects @p topology for the meshmem ranks (UserError when it is
    malformed, does not fit @p ranks, or this build of meshmem does not know topologies)."""
    name, _ = options.parse_topology(topology, ranks)
    if name == "fullmesh":
        return {"MESHMEM_TOPOLOGY": None}  # the runtime's default, whatever the caller's env
    lib = commands.build_dir() / "lib" / "libmeshmem.so"
    try:
        known = b"TOPOLOGY" in lib.read_bytes()
    except OSError:
        known = True  # cannot tell: let the runtime accept or reject it
    if not known:
        raise UserError(f"--topology {topology}: this build of meshmem ({lib}) does not read "
                        f"MESHMEM_TOPOLOGY (GHC is not in it yet): it would silently run the "
                        f"full mesh, so nothing was measured")
    return {"MESHMEM_TOPOLOGY": name}


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


def check(args) -> tuple[list, list, list | None, dict]:
    """Every user error of the command line, before anything runs (UserError, one line):
    returns (operations with their algorithms, algorithms, sizes or None, meshmem's env)."""
    options.check_outputs(args)
    options.rank_count(args.ranks)
    if args.rtl and args.baselines_only:
        raise UserError(f"--rtl {args.rtl} with --baselines-only: OpenMPI does not run on "
                        "simulated hardware, which leaves nothing to measure")
    args.rtl = options.rtl_config(args.rtl, {"--vhosts": args.vhosts, "--hosts": args.hosts})
    options.at_least("--rounds", args.rounds, 1)
    for opt in ("iters", "iters_large"):
        options.at_least(f"--{opt.replace('_', '-')}", getattr(args, opt), 1)
    options.at_least("--warmup", args.warmup, 0)
    if not args.ops:
        raise UserError("name at least one operation OP (or --python)")
    unknown = [o for o in args.ops if o not in OPS and o not in GROUPS]
    if unknown:
        raise UserError(f"OP {unknown[0]}: unknown operation (choose from "
                        f"{', '.join([*OPS, *GROUPS])})")
    algos = options.comma_list(args.algo) or ["auto"]
    bad = [a for a in algos if a not in ALGOS]
    if bad:
        raise UserError(f"--algo {', '.join(bad)}: unknown algorithm (choose from "
                        f"{', '.join(ALGOS)})")
    try:
        selected = select_ops(args.ops, algos, args.notes)
    except ValueError as e:
        raise UserError(f"--algo: {e}") from None
    if not selected:
        raise UserError(f"no operation offers --algo {args.algo}")
    for name, _ in selected:
        if OPS[name].sized and args.ranks < 2:
            raise UserError(f"{name} needs at least 2 ranks (--ranks)")
    # the words and the error line of the applications' --vs (bench's mpi is its own twin)
    args.vs = (options.vs_list(args.vs, ("openmpi", "oshmem", "mpi"), several=False,
                               aliases={}) or ["none"])[0]
    if args.baselines_only and args.vs == "none":
        raise UserError("--baselines-only with --vs none leaves nothing to measure")
    if args.vhosts < 0 or args.vhosts > 64:
        raise UserError(f"--vhosts {args.vhosts}: expected a host count in 1..64")
    sizes = options.parse_sizes("--sizes", args.sizes) if args.sizes else None
    odd = [s for s in sizes or () if s < 8 or s % 8]
    if odd and any(name == "put_pingpong" for name, _ in selected):
        raise UserError(f"--sizes {odd[0]}: put_pingpong's sizes are whole 8-byte words (its "
                        "partner waits for the last one)")
    return selected, algos, sizes, topology_env(args.topology, args.ranks)


def heap_for(op: BenchOp, sizes: list, ranks: int) -> int:
    """The symmetric heap a run of @p op at @p sizes on @p ranks ranks needs."""
    if op.program == "coll":
        # send and receive buffers of N blocks each, and room for the runtime
        return max(64 * MiB, 2 * ranks * max(sizes) + 32 * MiB)
    return max(64 * MiB, 2 * max(sizes) + 32 * MiB)


def run(args) -> int:
    """Entry point of `meshmem bench`."""
    if args.python:
        if args.rtl:
            raise UserError(f"--rtl {args.rtl} with --python: the Python calls are measured "
                            "against mpi4py on OpenMPI, which does not run on simulated "
                            "hardware (run a Python program with meshrun --rtl instead)")
        return pybench.run(args)
    args.notes = notes = []
    selected, algos, user_sizes, mesh_env = check(args)
    if args.rtl:
        return rtl.run(args, selected, user_sizes, mesh_env)
    ncpu = commands.cores()
    oversub = args.ranks > ncpu
    iters = args.iters or (OVERSUB_ITERS if oversub else 1000)
    iters_large = args.iters_large or (OVERSUB_ITERS_LARGE if oversub else 100)
    if oversub and not args.iters_large:
        notes.append(f"{args.ranks} ranks on {ncpu} cores (oversubscribed): {iters_large} "
                     f"iterations above 8 KiB instead of OSU's 100")
    # pinned even when oversubscribed: unpinned, the scheduler's placement of 8 ranks on 2
    # cores (4+4 or 5+3) changes the per-call time of either runtime from one run to the next;
    # pinned round-robin, every run has the same ranks per core on both sides (on virtual
    # hosts too: meshrun and the OpenMPI peers place rank r on the r-th CPU by a rankfile)
    bind = args.bind_to
    info = machine_info()
    coll_note = (f"; collectives: topology {args.topology}, "
                 f"{'private (malloc)' if args.private else 'symmetric-heap'} buffers"
                 if any(OPS[n].program == "coll" for n, _ in selected) else "")
    where = (f" on {args.vhosts} virtual hosts" if args.vhosts
             else f" on hosts {args.hosts}" if args.hosts else "")
    print(f"# meshmem bench: {machine_line(info, args.ranks)}{where}; bind-to {bind}; "
          f"{args.rounds} alternating rounds, medians{coll_note}")
    rows = []
    twins = {}  # operation -> the OpenMPI settings its twin's runs had
    try:
        for name, op_algos in selected:
            op = OPS[name]
            sizes = list(user_sizes) if (user_sizes and op.sized) else list(op.sizes)
            opts = LaunchOptions(ranks=args.ranks, bind=bind,
                                 heap_bytes=heap_for(op, sizes, args.ranks),
                                 timeout_s=args.timeout, vhosts=args.vhosts, hosts=args.hosts,
                                 collective=op.mode if op.program == "coll" else None)
            twin = choose_twin(op, args.vs, opts, notes)
            if twin and RUNTIMES[twin[0]].launcher != "meshrun":  # an OpenMPI twin
                twins[name] = commands.twin_settings(opts, twin[0])
            if op.program == "coll":
                common = ["-p", "1" if args.private else "0", "-d", args.dtype]
                variants = [(a, ["-a", a] + common) for a in op_algos]
                rows += measure(op, sizes, opts, twin, args.rounds, iters, iters_large,
                                args.warmup, variants=variants, twin_args=common,
                                mesh_env=mesh_env, mesh=not args.baselines_only)
                for r in rows:
                    if r["op"] == name:
                        r.update(topology=args.topology, private=args.private,
                                 dtype=args.dtype if name in REDUCTIONS else None)
            else:
                rows += measure(op, sizes, opts, twin, args.rounds, iters, iters_large,
                                args.warmup, mesh=not args.baselines_only)
        floor = None
        if opts.across():
            floor = ucx_floor.measure(LaunchOptions(ranks=2, timeout_s=args.timeout,
                                                    vhosts=args.vhosts, hosts=args.hosts),
                                      iters, iters_large, rounds=args.rounds,
                                      log=lambda m: print(m, file=sys.stderr))
            ucx_floor.attach(rows, floor)
    except BenchError as e:
        print(f"meshmem bench: {e}", file=sys.stderr)
        return 1
    print_table(rows)
    if floor:
        ucx_floor.print_floor(floor, rows, sys.stdout)
    seen = set()
    for r in rows:
        if r["baseline"] and (r["op"], r["baseline"]) not in seen:
            seen.add((r["op"], r["baseline"]))
            print(f"# {r['op']}: meshmem times {r['meshmem_call']}; "
                  f"{peer_name(r['baseline'])} times {r['baseline_call']}")
    notes += memcpy_notes(rows)
    for n in notes:
        print(f"# note: {n}")
    for line in dict.fromkeys(t.line() for t in twins.values()):
        print(f"# {line}")
    col = peer_column(rows)
    print(speedup_legend(col, "OpenMPI time" if col == "× OpenMPI" else "peer time"))
    print("# memcpy GB/s: a plain memcpy of the bytes a rank moves per call (N blocks for "
          "alltoall and allgather) by every rank at once, in the same runs; 1-rank: by rank 0 "
          "alone; floor µs: the collective's pattern of cache lines written with no runtime, "
          "timed the same way in the meshmem runs; × floor = meshmem time / floor time")
    info["loadavg_end"] = list(os.getloadavg())
    doc = {"results": rows, "machine": info, "ucx_floor": floor,
           "settings": {"ranks": args.ranks, "rounds": args.rounds, "iters": iters,
                        "algo": algos, "topology": args.topology, "private": args.private,
                        "dtype": args.dtype,
                        "iters_large": iters_large, "bind": bind, "vs": args.vs,
                        "vhosts": args.vhosts, "hosts": args.hosts,
                        "baselines_only": args.baselines_only,
                        "oversubscribed": oversub, "notes": notes,
                        "openmpi": {k: t.as_dict() for k, t in twins.items()},
                        "date": time.strftime("%Y-%m-%d %H:%M:%S")}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"# wrote {args.json}")
    if args.plot:
        plot_latency(rows, args.plot, title=f"meshmem against its peer: {args.ranks} ranks on "
                                            f"{info['nproc']} cores, {info['cpu']}")
        print(f"# wrote {args.plot}")
    return 0
