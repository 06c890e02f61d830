"""`meshmem average`: sharing averaged parameters (seed 000 §3.C, §4.D), naive (3 steps) and
aggressive (2 steps), on the full mesh and on a GHC, against OpenMPI's MPI_Allreduce (+ the
scaling by 1/ranks, the paper's CPU-cluster method) in the same run.

For each size the meshmem program and the MPI twin run alternately (--rounds), each timing
many averagings after a warm-up (OSU-style: the mean per run, the slowest rank); the median
over rounds is reported, and the paired ratios: the median over rounds of the ratio of two
runs of the same round (MPI / meshmem, aggressive / naive), less sensitive to the load drifting
between rounds. Throughput as the paper's Fig. 17: bytes per rank / time. Every result
is checked against a float64 reference.
--fabric FILE adds, per algorithm and topology, one more meshmem run under `meshrun --fabric`
(one averaging per size, no warm-up; verified): its trace replayed on the modelled fabric gives
each size's predicted time (column "fabric us", JSON predicted_s). The OpenMPI twin is not
modelled.
"""
from __future__ import annotations

import os
import sys

from meshmem import apps_run, bench
from meshmem import plot as plots
from meshmem.app_command import AppCommand, Launch, UsageError, alternate, median, paired

DEFAULT_SIZES = "1K,4K,16K,64K,256K,1M"


def ghc_columns(ranks: int, want: int) -> int:
    """GHC columns: @p want, or the squarest grid with columns >= rows."""
    if want:
        return want
    d = max(i for i in range(1, int(ranks ** 0.5) + 1) if ranks % i == 0)
    return ranks // d


TOPOLOGIES = {"fullmesh": "full", "full": "full", "ghc": "ghc"}


def topology_list(text: str) -> list[str]:
    """--topology: fullmesh (alias full), ghc, a comma list of them, or both."""
    names = ["fullmesh", "ghc"] if text.strip() == "both" else \
        [t.strip() for t in text.split(",") if t.strip()]
    if not names or any(n not in TOPOLOGIES for n in names):
        raise UsageError(f"--topology {text}: fullmesh, ghc, or both comma-separated")
    return list(dict.fromkeys(TOPOLOGIES[n] for n in names))


def measure(a, launch: Launch, sizes: list[int], algos: list[str], topos: list[str],
            log=print):
    """Run every (algorithm, topology) and the MPI twin; returns (rows, notes)."""
    notes = []
    ncpu = apps_run.cores()
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
        notes.append(f"fabric us: one averaging predicted on {os.path.basename(fabric)} by "
                     "meshrun --fabric (the annotated reduction at the fabric's [compute] "
                     "rates; each peer's vector or slice read and each block signal written through "
                     "meshmem_ptr charged as a get or put of its bytes on the links of its route, "
                     "transfers on different links at once); OpenMPI not modelled")

    def extra(tp):
        out = ["-g", ghc_columns(a.ranks, a.ghc)] if tp == "ghc" else []
        if getattr(a, "onestep", None) is not None:
            out += ["-T", bench.parse_size(str(a.onestep))]
        return out

    sides = {(al, tp): (lambda al=al, tp=tp: launch.meshmem(
        "average", ["-a", al, *common, *extra(tp)], "average", heap=heap))
        for tp in topos for al in algos}
    if "openmpi" in a.baselines:
        sides["mpi"] = lambda: launch.openmpi("average_mpi", common, "average")
    results = alternate(a.rounds, sides, log=lambda m: log(f"  average:{m}", file=sys.stderr))
    mpi = results.pop("mpi", [])
    predicted = {}
    for al, tp in results if fabric else ():
        runs, pred = launch.on_fabric(
            "average", ["-a", al, "-S", size_arg, "-i", 1, "-I", 1, "-w", 0, *extra(tp)],
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
                row["ratio_vs_mpi"] = row["us"] / row["mpi_us"]  # the old direction, kept
            rows.append(row)
    for tp in topos:
        for s in sizes:
            pair = {r["algo"]: r for r in rows if r["topology"] == tp and r["bytes"] == s}
            if "naive" in pair and "aggressive" in pair:
                pair["aggressive"]["aggressive_vs_naive"] = (pair["aggressive"]["us"] /
                                                             pair["naive"]["us"])
                pair["aggressive"]["aggressive_vs_naive_paired"] = paired(
                    pair["aggressive"]["rounds_us"], pair["naive"]["rounds_us"])
    return rows, notes


def print_table(rows: list, out=None):
    """One line per (algorithm, topology, size)."""
    out = out or sys.stdout  # looked up now: a default bound at import goes stale
    fabric = any("predicted_s" in r for r in rows)
    head = (f"{'algo':<11}{'topo':>5}{'ranks':>6}{'bytes':>9}{'steps':>6}{'meshmem us':>12}"
            f"{'fabric us' if fabric else '':>10}{'GB/s':>7}{'MPI us':>10}{'× OpenMPI':>10}{'paired':>7}{'aggr/naive':>11}{'paired':>7}"
            f"{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = r["verified"] and r.get("mpi_verified", 1)
        an = r.get("aggressive_vs_naive")
        anp = r.get("aggressive_vs_naive_paired")
        pr = r.get("speedup_vs_openmpi_paired")
        print(f"{r['algo']:<11}{r['topology']:>5}{r['ranks']:>6}"
              f"{bench.format_size(r['bytes']):>9}{r['steps']:>6}{r['us']:>12.3f}"
              f"{bench.fmt_optional(r['predicted_s'] * 1e6 if 'predicted_s' in r else None, '.3f') if fabric else '':>10}"
              f"{r['GBps']:>7.2f}{'-' if r.get('mpi_us') is None else format(r['mpi_us'], '.3f'):>10}"
              f"{'-' if r.get('speedup_vs_openmpi') is None else format(r['speedup_vs_openmpi'], '.2f'):>10}"
              f"{'-' if pr is None else format(pr, '.2f'):>7}"
              f"{'-' if an is None else format(an, '.2f'):>11}"
              f"{'-' if anp is None else format(anp, '.2f'):>7}{'yes' if ok else 'NO':>4}",
              file=out)


def plot(rows: list, path: str, title: str = ""):
    """Time per averaging vs size, log-log: every (algorithm, topology) and MPI_Allreduce."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for key in dict.fromkeys((r["algo"], r["topology"]) for r in rows):
        mine = sorted((r for r in rows if (r["algo"], r["topology"]) == key),
                      key=lambda r: r["bytes"])
        ax.plot([r["bytes"] for r in mine], [r["us"] for r in mine], "o-",
                label=f"meshmem {key[0]} ({key[1]})")
    base = sorted({r["bytes"]: r["mpi_us"] for r in rows if r.get("mpi_us")}.items())
    if base:
        ax.plot([b[0] for b in base], [b[1] for b in base], "s--", label="OpenMPI MPI_Allreduce")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel("time per averaging (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    plots.finish(fig, path, title, ax)


class AverageCommand(AppCommand):
    """`meshmem average` on the application harness."""
    name = "average"
    baselines = ("openmpi",)
    examples = ("meshmem average --ranks 2 --bytes 1K --vs openmpi",
                "meshmem average --ranks 4 --topology fullmesh,ghc --json a.json --plot a.png")

    def add_app_arguments(self, p):
        size = p.add_mutually_exclusive_group()
        size.add_argument("--bytes", "--sizes", dest="sizes", default=DEFAULT_SIZES,
                          help=f"bytes per rank, comma-separated (default {DEFAULT_SIZES})")
        size.add_argument("--elements", "--records", dest="elements",
                          help="the vector length (float32) each rank averages, comma-separated, "
                               "instead of --bytes")
        p.add_argument("--variant", "-v", default="naive,aggressive",
                       help="naive, aggressive, or both comma-separated (default both)")
        p.add_argument("--topology", default="fullmesh",
                       help="fullmesh (alias full), ghc (x then y), or both comma-separated "
                            "(default fullmesh)")
        p.add_argument("--ghc", type=int, default=0, help="GHC columns (default: near square)")
        p.add_argument("--onestep", metavar="BYTES",
                       help="aggressive: one-step form up to BYTES per rank (default: the "
                            "program's, 2K; 0 never)")
        p.add_argument("--iters", type=int, default=1000,
                       help="averagings per run up to 64 KiB (default 1000; a tenth above)")

    def check(self, a):
        if a.elements:
            a.byte_sizes = [4 * bench.parse_size(t) for t in a.elements.split(",") if t.strip()]
        else:
            a.byte_sizes = [bench.parse_size(t) for t in a.sizes.split(",") if t.strip()]
        a.algos = [t.strip() for t in a.variant.split(",") if t.strip()]
        if not a.byte_sizes or any(s < 4 for s in a.byte_sizes):
            raise UsageError(f"--bytes {a.sizes}: sizes of at least 4 bytes")
        if not a.algos or any(al not in ("naive", "aggressive") for al in a.algos):
            raise UsageError(f"--variant {a.variant}: naive and/or aggressive")
        if a.iters < 1:
            raise UsageError(f"--iters {a.iters}: at least 1")
        a.topos = topology_list(a.topology)

    def settings(self, a):
        return {"sizes": a.byte_sizes, "algos": a.algos, "topologies": a.topos,
                "onestep": a.onestep, "iters": a.iters}

    def measure(self, a, launch):
        return measure(a, launch, a.byte_sizes, a.algos, a.topos)

    def print_table(self, rows, out=None):
        print_table(rows, out)

    def plot(self, rows, path, title=""):
        plot(rows, path, f"sharing averaged parameters, {rows[0]['ranks']} ranks")

    def footer(self, rows):
        return ["# × OpenMPI = MPI_Allreduce us / meshmem us (speed-up: above 1 meshmem is "
                "faster); aggr/naive below 1: the aggressive approach is faster; paired: median "
                "over rounds of the same-round ratio"]


COMMAND = AverageCommand()
add_arguments = COMMAND.add_arguments
run = COMMAND.run
