"""`meshmem average`: sharing averaged parameters (OPTWEB, JOCN 2022, §3.C and §4.D), naive
(3 steps) and aggressive (2 steps), on the full mesh and on a GHC, against OpenMPI's
MPI_Allreduce (+ the scaling by 1/ranks, the paper's CPU-cluster method) in the same run, on
the application harness (command.py).

For each size the meshmem program and the MPI twin run alternately (--rounds), each timing
many averagings after a warm-up (OSU-style: the mean per run, the slowest rank); the median
over rounds is reported, with the speed-ups: OpenMPI time / meshmem time, and naive time /
aggressive time, each also paired (the median over rounds of the same round's ratio, less
sensitive to the load drifting between rounds). Throughput as the paper's Fig. 17: bytes per
rank / time. Every result is checked against a float64 reference.
--fabric FILE adds, per algorithm and topology, one more meshmem run under `meshrun --fabric`
(one averaging per size, no warm-up; verified): its trace replayed on the modelled fabric gives
each size's predicted time (column "fabric µs", JSON predicted_s). OpenMPI is not modelled.
"""
from __future__ import annotations

import os
import sys

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps import programs
from meshmem.cli.apps.command import AppCommand, Launch, UsageError, alternate, median, paired
from meshmem.cli.report import fmt_optional, format_size, speedup_legend, speedup_phrase

DEFAULT_SIZES = "1K,4K,16K,64K,256K,1M"
ALGOS = ("naive", "aggressive")

DESCRIPTION = """\
Sharing averaged parameters (OPTWEB, JOCN 2022, §3.C): every rank holds a vector of float32
parameters and ends with the average over the ranks. naive: 3 steps (reduce-scatter, scale,
all-gather through memory); aggressive: 2 steps (the scaled slices go straight to every rank),
one step for small vectors. Each runs on the full mesh and/or a 2-D generalized hypercube (GHC:
the x dimension, then y), verified against a float64 reference, alternately with OpenMPI's
MPI_Allreduce + scaling in the same run; the speed-up is OpenMPI time / meshmem time."""


def grid_columns(a, topology: str) -> int:
    """The columns (KX) of a GHC topology: ghc:KXxKY's, --ghc's, or the most square grid's."""
    name, shape = options.parse_topology(topology, a.ranks)
    if shape:
        return shape[0]
    return getattr(a, "ghc", 0) or options.most_square(a.ranks)[0]


def program_extra(a, topology: str) -> list:
    """The average program's arguments for @p topology and --onestep."""
    extra = ["-g", grid_columns(a, topology)] if topology.startswith("ghc") else []
    if getattr(a, "onestep", None) is not None:
        extra += ["-T", options.parse_size(str(a.onestep), "--onestep")]
    return extra


def measure(a, launch: Launch, sizes: list[int], algos: list[str], topos: list[str],
            log=print):
    """Run every (algorithm, topology) and the MPI twin; returns (rows, notes)."""
    notes = []
    ncpu = programs.cores()
    oversub = a.ranks > ncpu
    iters = a.iters if not oversub else min(a.iters, 100)
    large = max(1, iters // 10)
    if oversub:
        notes.append(f"{a.ranks} ranks on {ncpu} cores (oversubscribed): {iters} "
                     f"averagings per run up to 64 KiB, {large} above")
    size_arg = ",".join(str(s) for s in sizes)
    common = ["-S", size_arg, "-i", iters, "-I", large]
    heap = max(64 << 20, 5 * max(sizes) + (32 << 20))
    fabric = launch.fabric
    if fabric:
        notes.append(f"fabric µs: one averaging predicted on {os.path.basename(fabric)} by "
                     "meshrun --fabric (the annotated reduction at the fabric's [compute] "
                     "rates; each peer's vector or slice read and each block signal written through "
                     "meshmem_ptr charged as a get or put of its bytes on the links of its route, "
                     "transfers on different links at once); OpenMPI not modelled")

    sides = {(al, tp): (lambda al=al, tp=tp: launch.meshmem(
        "average", ["-a", al, *common, *program_extra(a, tp)], "average", heap=heap))
        for tp in topos for al in algos}
    if "openmpi" in a.baselines:
        sides["mpi"] = lambda: launch.openmpi("average_mpi", common, "average")
    results = alternate(a.rounds, sides, log=lambda m: log(f"  average:{m}", file=sys.stderr))
    mpi = results.pop("mpi", [])
    predicted = {}
    for al, tp in results if fabric else ():
        runs, pred = launch.on_fabric(
            "average", ["-a", al, "-S", size_arg, "-i", 1, "-I", 1, "-w", 0, *program_extra(a, tp)],
            "average", heap=heap)
        predicted[(al, tp)] = (pred, all(x["verified"] == 1 for x in runs))
    rows = []
    for (al, tp), runs in results.items():
        for i, s in enumerate(sizes):
            us = [run[i]["us"] for run in runs]
            row = {"algo": al, "topology": tp, "ranks": a.ranks, "bytes": s,
                   "us": median(us), "rounds_us": us,
                   "verified": int(all(run[i]["verified"] == 1 for run in runs)),
                   # the program's own count (1 for the aggressive one-step form)
                   "steps": runs[0][i]["steps"]}
            row["GBps"] = s / row["us"] * 1e-3
            if (al, tp) in predicted:  # average_main.c names each size's phase by its bytes
                pred, ok = predicted[(al, tp)]
                row.update(fabric=pred["fabric"],
                           predicted_s=pred["phases"][f"average-{s // 4 * 4}"]["seconds"],
                           fabric_compute_scale=pred["compute_scale"])
                row["verified"] = int(row["verified"] and ok)
            if mpi:
                mus = [run[i]["us"] for run in mpi]
                row["mpi_us"] = median(mus)
                row["mpi_rounds_us"] = mus
                row["mpi_verified"] = int(all(run[i]["verified"] == 1 for run in mpi))
                row["speedup_vs_openmpi"] = row["mpi_us"] / row["us"]
                row["speedup_vs_openmpi_paired"] = paired(mus, us)
                # the old direction (meshmem / OpenMPI), kept for scripts that read it
                row["ratio_vs_mpi"] = row["us"] / row["mpi_us"]
                row["paired_ratio"] = paired(us, mus)
            rows.append(row)
    for tp in topos:
        for s in sizes:
            pair = {r["algo"]: r for r in rows if r["topology"] == tp and r["bytes"] == s}
            if "naive" in pair and "aggressive" in pair:
                pair["aggressive"]["aggressive_vs_naive"] = (pair["aggressive"]["us"] /
                                                             pair["naive"]["us"])
                pair["aggressive"]["aggressive_vs_naive_paired"] = paired(
                    pair["aggressive"]["rounds_us"], pair["naive"]["rounds_us"])
                pair["aggressive"]["speedup_vs_naive"] = (pair["naive"]["us"] /
                                                          pair["aggressive"]["us"])
                pair["aggressive"]["speedup_vs_naive_paired"] = paired(
                    pair["naive"]["rounds_us"], pair["aggressive"]["rounds_us"])
    return rows, notes


def print_table(rows: list, out=None):
    """One line per (algorithm, topology, size), with the speed-ups over OpenMPI and, for the
    aggressive approach, over the naive one."""
    out = out or sys.stdout  # looked up now: a default bound at import goes stale
    fabric = any("predicted_s" in r for r in rows)
    fw = 11 if fabric else 0  # the fabric column only when a fabric was given
    tw = max([9] + [len(r["topology"]) + 1 for r in rows])
    head = (f"{'algo':<11}{'topology':>{tw}}{'ranks':>6}{'size':>7}{'steps':>6}"
            f"{'meshmem µs':>12}{'fabric µs' if fabric else '':>{fw}}{'GB/s':>7}"
            f"{'OpenMPI µs':>12}{'× OpenMPI':>11}{'paired':>8}{'× naive':>9}{'paired':>8}"
            f"{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = r["verified"] and r.get("mpi_verified", 1)
        pred = r["predicted_s"] * 1e6 if "predicted_s" in r else None
        print(f"{r['algo']:<11}{r['topology']:>{tw}}{r['ranks']:>6}"
              f"{format_size(r['bytes']):>7}{r['steps']:>6}{r['us']:>12.3f}"
              f"{fmt_optional(pred, '.3f') if fabric else '':>{fw}}{r['GBps']:>7.2f}"
              f"{fmt_optional(r.get('mpi_us'), '.3f'):>12}"
              f"{fmt_optional(r.get('speedup_vs_openmpi'), '.2f'):>11}"
              f"{fmt_optional(r.get('speedup_vs_openmpi_paired'), '.2f'):>8}"
              f"{fmt_optional(r.get('speedup_vs_naive'), '.2f'):>9}"
              f"{fmt_optional(r.get('speedup_vs_naive_paired'), '.2f'):>8}"
              f"{'yes' if ok else 'NO':>4}", file=out)


def plot(rows: list, path: str, title: str = ""):
    """Time of one averaging against the vector size, log-log: every (algorithm, topology)
    and OpenMPI's MPI_Allreduce."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, key in enumerate(dict.fromkeys((r["algo"], r["topology"]) for r in rows)):
        mine = sorted((r for r in rows if (r["algo"], r["topology"]) == key),
                      key=lambda r: r["bytes"])
        ax.plot([r["bytes"] for r in mine], [r["us"] for r in mine],
                "o-" if key[1] == "fullmesh" else "^:", markersize=4,
                color=plots.MESHMEM_COLORS[i % len(plots.MESHMEM_COLORS)],
                label=f"meshmem, {key[0]}, {key[1]}")
    base = sorted({r["bytes"]: r["mpi_us"] for r in rows if r.get("mpi_us")}.items())
    if base:
        ax.plot([b[0] for b in base], [b[1] for b in base], "s--", markersize=4,
                color=plots.PEER_COLOR, label="OpenMPI, MPI_Allreduce + scaling")
    plots.size_axis(ax, [r["bytes"] for r in rows], "vector bytes per rank")
    ax.set_yscale("log")
    ax.set_ylabel("time of one averaging (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    plots.finish(fig, path, title, ax)


def summary(rows: list) -> list[str]:
    """The 1 KiB (else smallest) full-mesh averaging of each algorithm against OpenMPI, and how
    often the aggressive approach beats the naive one, with units."""
    full = [r for r in rows if r["topology"] == "fullmesh"] or rows
    size = 1024 if any(r["bytes"] == 1024 for r in full) else min(r["bytes"] for r in full)
    lines = []
    for r in (r for r in full if r["bytes"] == size):
        line = f"averaging {format_size(size)} bytes per rank, {r['algo']}: {r['us']:.2f} µs"
        if r.get("mpi_us"):
            line += (f", MPI_Allreduce {r['mpi_us']:.2f} µs: "
                     f"{speedup_phrase(r['speedup_vs_openmpi'], 'OpenMPI')}")
        lines.append(line)
    pairs = [r for r in rows if "speedup_vs_naive" in r]
    if pairs:
        faster = sum(1 for r in pairs if r["speedup_vs_naive"] > 1)
        lines.append(f"aggressive faster than naive at {faster} of {len(pairs)} "
                     f"(size, topology) points")
    return lines


class AverageCommand(AppCommand):
    """`meshmem average` on the application harness."""
    name = "average"
    baselines = ("openmpi",)
    description = DESCRIPTION
    plot_what = "the time of one averaging against the vector size"
    examples = ("meshmem average --ranks 2 --sizes 1K",
                "meshmem average --ranks 4 --topology fullmesh,ghc --json a.json --plot a.png",
                "meshmem average --ranks 8 --topology ghc:4x2 --algo aggressive")

    def add_app_arguments(self, p):
        size = p.add_mutually_exclusive_group()
        size.add_argument("--sizes", "--bytes", dest="sizes", default=DEFAULT_SIZES,
                          metavar="LIST",
                          help=f"vector bytes per rank, comma-separated (default {DEFAULT_SIZES};"
                               f" --bytes is the old name)")
        size.add_argument("--elements", "--records", dest="elements", metavar="LIST",
                          help="vector length per rank in float32 elements instead of --sizes, "
                               "comma-separated (e.g. 256,16K; --records is the old name: a "
                               "count per rank, unlike --records of the other commands)")
        options.add_algo(p, "naive, aggressive, or both comma-separated", "naive,aggressive",
                         "how the average is shared", aliases=("--variant", "-v"))
        p.add_argument("--topology", default="fullmesh", metavar="LIST",
                       help="fullmesh, ghc (the most square grid), ghc:KXxKY (KX * KY = ranks), "
                            "or several comma-separated, each measured against the same OpenMPI "
                            "runs (default fullmesh; full and both are the old names of fullmesh "
                            "and fullmesh,ghc)")
        p.add_argument("--ghc", type=int, default=0, metavar="KX",
                       help="columns of the grid of --topology ghc (default: the most square)")
        p.add_argument("--onestep", metavar="BYTES",
                       help="aggressive: the one-step form up to BYTES per rank (default: the "
                            "program's, 2K x ranks / 2; 0 never)")
        p.add_argument("--iters", type=int, default=1000, metavar="N",
                       help="averagings per run up to 64 KiB (default 1000; a tenth above)")

    def check(self, a):
        if a.elements:
            a.byte_sizes = [4 * n for n in options.parse_sizes("--elements", a.elements)]
        else:
            a.byte_sizes = options.parse_sizes("--sizes", a.sizes)
            if any(s < 4 for s in a.byte_sizes):
                raise UsageError(f"--sizes {a.sizes}: every vector needs at least 4 bytes "
                                 "(one float32)")
        if any(s < 4 for s in a.byte_sizes):
            raise UsageError(f"--elements {a.elements}: every vector needs at least one element")
        a.algos = options.comma_list(a.algo)
        if not a.algos or any(al not in ALGOS for al in a.algos):
            raise UsageError(f"--algo {a.algo}: choose naive, aggressive or both")
        options.at_least("--iters", a.iters, 1)
        if a.onestep is not None:
            options.parse_size(a.onestep, "--onestep")
        a.topos = options.parse_topologies(a.topology, a.ranks)
        if a.ghc and a.ranks % a.ghc:
            raise UsageError(f"--ghc {a.ghc}: does not divide --ranks {a.ranks}")

    def title(self, a, rows):
        return f"sharing averaged parameters: {a.ranks} ranks"

    def settings(self, a):
        return {"sizes": a.byte_sizes, "algos": a.algos, "topologies": a.topos,
                "onestep": a.onestep, "iters": a.iters}

    def footer(self, rows):
        return [speedup_legend("× OpenMPI, × naive", "peer time (MPI_Allreduce, naive)"),
                "# paired: the median over rounds of the same round's speed-up"]


COMMAND = AverageCommand(lambda a, launch: measure(a, launch, a.byte_sizes, a.algos, a.topos),
                         print_table, plot)
