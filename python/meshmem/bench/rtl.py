"""`meshmem bench OP --rtl CONFIG`: the benchmarks on the simulated OPTWEB engine (meshrun --rtl),
beside the analytic model's prediction for the configuration's fabric and the paper's figure
where one exists.

The benchmark programs read meshmem_wtime, which on the rtl transport is the engine's cycle
count over its clock: the times are simulated, the same on every run, so each operation runs
once (no rounds, no medians) with few iterations (the simulation clocks every cycle that moves
data). OpenMPI does not run on simulated hardware: there is no twin and no ratio to one; the
references are the model (meshmem.model.cost on the fabric the configuration names, [rtl]
fabric) and the published figures of the same fabric, operation and size per rank
(meshmem/model/published.toml, the figures `meshmem rtl validate` compares the engine with).
docs/rtl-transport.md, "Simulated figures".
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import tomllib

from meshmem.cli.report import fmt_optional, format_size, machine_info, machine_line
from meshmem.launch.commands import BenchError, LaunchOptions
from meshmem.model import ModelError, cost, load_fabric
from meshmem.model import validate as mvalidate

# iterations on the engine (tools/rtl_bench.sh's): up to 8 KiB, above, and untimed before them
RTL_ITERS, RTL_ITERS_LARGE, RTL_WARMUP = 20, 3, 2

# benchmark operation -> (the model's operation, how the model's size per rank follows from the
# benchmark's SIZE and the rank count: "block" = SIZE, "all" = SIZE x ranks); None: not modelled
# (put_signal, atomics, active messages: no operation of the model; reduce: the one-step engine
# has none)
MODEL_OPS = {
    "put": ("put", "block"), "get": ("get", "block"),
    # a half round trip: one put and the partner's wait for its last word (or signal)
    "put_pingpong": ("put", "block"), "pingpong": ("put", "block"),
    "barrier": ("barrier", "block"), "coll_barrier": ("barrier", "block"),
    "bcast": ("bcast", "block"), "allreduce": ("allreduce", "block"),
    "scatter": ("scatter", "all"), "gather": ("gather", "all"),
    "allgather": ("allgather", "all"), "allgatherv": ("allgather", "all"),
    "alltoall": ("alltoall", "all"), "alltoallv": ("alltoall", "all"),
    "reduce_scatter": ("reduce_scatter", "all"),
}
# what the benchmark times where the model and the paper time something shorter
TIMED_WITH = {
    "put": "put is timed with its quiet (shmem_putmem + shmem_quiet: the PUT, then the QUIET "
           "that waits for its acknowledgement, a round trip); the model's and the paper's "
           "unicast are one way",
    "put_pingpong": "put_pingpong is half a round trip, comparable with a one-way unicast",
    "pingpong": "pingpong is half a round trip of put with signal, compared with a one-way "
                "unicast",
}
TIME_UNITS = ("ns", "us", "ms", "s")


def fabric_of(config: str) -> Path | None:
    """The fabric file the configuration @p config names ([rtl] fabric, relative to the
    configuration's directory), or None when it names none that exists."""
    with open(config, "rb") as f:
        name = tomllib.load(f).get("rtl", {}).get("fabric")
    if not name:
        return None
    path = (Path(config).parent / name).resolve()
    return path if path.is_file() else None


def partner(ranks: int) -> int:
    """Rank 0's partner in the point-to-point benchmarks: the first of the upper half."""
    return max(1, ranks // 2)


def model_size(op: str, nbytes: int, ranks: int) -> tuple[str, int] | None:
    """(the model's operation, its size per rank L) for benchmark @p op of SIZE @p nbytes on
    @p ranks ranks, or None when the model has no such operation."""
    if op not in MODEL_OPS:
        return None
    mop, form = MODEL_OPS[op]
    return mop, nbytes * (ranks if form == "all" else 1)


def predict(fabric, op: str, nbytes: int, ranks: int) -> float | None:
    """The model's seconds for benchmark @p op on @p fabric (a Fabric), or None."""
    m = model_size(op, nbytes, ranks)
    if fabric is None or m is None or ranks > fabric.nodes:
        return None
    mop, L = m
    opts = {"src": 0, "dst": partner(ranks)} if mop in ("put", "get") else {}
    try:
        return cost(fabric, mop, L, ranks, **opts).seconds
    except ModelError:
        return None


def paper_figures(fabric, op: str, nbytes: int, ranks: int,
                  figures: list | None = None) -> list[tuple[str, float]]:
    """(id, µs) of every published time of @p fabric (a Fabric) for the same operation and size
    per rank as benchmark @p op of SIZE @p nbytes on @p ranks ranks: for put and get a route of
    the same hops as rank 0's to its partner, for a collective the whole fabric."""
    m = model_size(op, nbytes, ranks)
    if m is None:
        return []
    mop, L = m
    out = []
    for e in figures if figures is not None else mvalidate.load_published():
        args = e.get("args") or {}
        if (e.get("fabric") != Path(fabric.path).stem or e.get("unit") not in TIME_UNITS
                or e.get("published") is None or args.get("bytes") != L
                or args.get("op") != mop or "packet_bytes" in args):
            continue
        if mop in ("put", "get"):
            hops = fabric.topology.hop_axes
            if hops(args.get("src", 0), args.get("dst", 1)) != hops(0, partner(ranks)):
                continue
        elif ranks != fabric.nodes:
            continue
        out.append((e["id"], mvalidate.to_si(e["published"], e["unit"]) * 1e6))
    return out


def attach_references(rows: list, config: str) -> str | None:
    """Put the model's prediction (model_us, model_op, model_bytes) and the paper's figures
    (paper: [[id, µs], ...]) into @p rows; returns the fabric's name, or None without one."""
    path = fabric_of(config)
    fabric = load_fabric(path) if path else None
    name = path.stem if path else None
    for r in rows:
        m = model_size(r["op"], r["bytes"], r["ranks"])
        s = predict(fabric, r["op"], r["bytes"], r["ranks"])
        r.update(model_op=m[0] if m else None, model_bytes=m[1] if m else None,
                 model_us=None if s is None else s * 1e6,
                 paper=[list(p) for p in paper_figures(fabric, r["op"], r["bytes"],
                                                       r["ranks"])] if fabric else [])
        r["engine_vs_model"] = (r["meshmem_us"] / r["model_us"] if r["model_us"] else None)
    return name


def print_table(rows: list, out=None) -> None:
    """op, ranks, size, the engine's simulated time, the model's, engine / model, the paper's."""
    out = out or sys.stdout
    head = (f"{'op':<16}{'ranks':>6}{'size':>7}{'engine µs':>12}{'model µs':>11}"
            f"{'× model':>9}{'paper µs':>10}  paper figure")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        papers = r["paper"] or [("-", None)]
        size = format_size(r["bytes"]) if r.get("sized", True) else "-"
        for i, (pid, us) in enumerate(papers):
            lead = (f"{r['op']:<16}{r['ranks']:>6}{size:>7}{r['meshmem_us']:>12.3f}"
                    f"{fmt_optional(r['model_us'], '.3f'):>11}"
                    f"{fmt_optional(r['engine_vs_model'], '.2f'):>9}") if i == 0 else " " * 45
            print(f"{lead}{fmt_optional(us, '.3f'):>10}  {pid if us is not None else ''}".rstrip(),
                  file=out)



def run(args, selected: list, user_sizes: list | None, mesh_env: dict) -> int:
    """`meshmem bench --rtl`: each selected operation (osu.check's) once on the engine, then
    the table."""
    from meshmem.bench.osu import OPS, REDUCTIONS, heap_for, measure  # osu runs this module
    info = machine_info()
    config = args.rtl
    print(f"# meshmem bench on the simulated OPTWEB engine ({Path(config).stem}, meshrun --rtl): "
          f"{args.ranks} nodes, simulated time (meshmem_wtime), the same on every run; "
          f"the simulation: {machine_line(info, args.ranks)}")
    iters = args.iters or RTL_ITERS
    iters_large = args.iters_large or RTL_ITERS_LARGE
    warmup = RTL_WARMUP if args.warmup is None else args.warmup
    rows = []
    t0 = time.monotonic()
    try:
        for name, op_algos in selected:
            op = OPS[name]
            sizes = list(user_sizes) if (user_sizes and op.sized) else list(op.sizes)
            opts = LaunchOptions(ranks=args.ranks, bind="none", heap_bytes=heap_for(op, sizes, args.ranks),
                                 timeout_s=args.timeout, rtl=config)
            variants = None
            if op.program == "coll":
                common = ["-p", "1" if args.private else "0", "-d", args.dtype]
                variants = [(a, ["-a", a] + common) for a in op_algos]
            rows += measure(op, sizes, opts, None, 1, iters, iters_large, warmup,
                            variants=variants, mesh_env=mesh_env, memcpy_min=0)
    except BenchError as e:
        print(f"meshmem bench: {e}", file=sys.stderr)
        return 1
    wall = time.monotonic() - t0
    fabric = attach_references(rows, config)
    print_table(rows)
    print(f"# engine µs: simulated, {iters} timed iterations up to 8 KiB and {iters_large} above "
          f"after {warmup} untimed, one run ({wall:.1f} s of wall time)")
    if fabric:
        print(f"# model µs: meshmem.model on {fabric} (the fabric {Path(config).name} names), "
              "the benchmark's SIZE as the model's size per rank (SIZE x ranks for all-to-all, "
              "all-gather, scatter, gather, reduce-scatter); × model = engine / model")
    else:
        print(f"# model µs: none: {config} names no fabric file ([rtl] fabric)")
    print("# paper µs: the published figure of the same fabric, operation and size per rank "
          "(meshmem/model/published.toml, as meshmem rtl validate), where there is one")
    if any(r["op"] in REDUCTIONS for r in rows):
        print(f"# reductions: SUM of {args.dtype} elements (--dtype); the engine's averaging core "
              "takes integer sums, other types run as the runtime's algorithm over the engine")
    for name in dict.fromkeys(r["op"] for r in rows):
        if name in TIMED_WITH:
            print(f"# note: {TIMED_WITH[name]}")
    print("# OpenMPI: none: OpenMPI does not run on simulated hardware, so no ratio to it; "
          "meshmem bench without --rtl measures meshmem against OpenMPI on this machine")
    if args.json:
        info["loadavg_end"] = list(os.getloadavg())
        doc = {"results": rows, "machine": info,
               "settings": {"rtl": config, "fabric": fabric, "ranks": args.ranks,
                            "iters": iters, "iters_large": iters_large, "warmup": warmup,
                            "wall_s": wall, "date": time.strftime("%Y-%m-%d %H:%M:%S")}}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"# wrote {args.json}")
    return 0
