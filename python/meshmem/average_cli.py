"""`meshmem average`: sharing averaged parameters (seed 000 §3.C, §4.D), naive (3 steps) and
aggressive (2 steps), on the full mesh and on a GHC, against OpenMPI's MPI_Allreduce (+ the
scaling by 1/ranks, the paper's CPU-cluster method) in the same run.

For each size the meshmem program and the MPI twin run alternately (--rounds), each timing
many averagings after a warm-up (OSU-style: the mean per run, the slowest rank); the median
over rounds is reported, and the paired ratios: the median over rounds of the ratio of two
runs of the same round (meshmem / MPI, aggressive / naive), less sensitive to the load drifting
between rounds. Throughput as the paper's Fig. 17: bytes per rank / time. Every result
is checked against a float64 reference.
--fabric FILE adds, per algorithm and topology, one more meshmem run under `meshrun --fabric`
(one averaging per size, no warm-up; verified): its trace replayed on the modelled fabric gives
each size's predicted time (column "fabric us", JSON predicted_s). The OpenMPI twin is not
modelled.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time

from meshmem import apps_run, bench, sort_cli
from meshmem import plot as plots
from meshmem.osu import BenchError

DEFAULT_SIZES = "1K,4K,16K,64K,256K,1M"


def add_arguments(p):
    """The `meshmem average` command line."""
    p.formatter_class = __import__("argparse").RawDescriptionHelpFormatter
    p.description = (__doc__ or "").strip()
    p.epilog = ("examples:\n  meshmem average --ranks 2 --bytes 1K --vs openmpi\n"
                "  meshmem average --ranks 4 --topology both --json a.json --plot a.png")
    p.add_argument("--ranks", "-n", type=int, default=2, help="ranks (default 2)")
    p.add_argument("--bytes", "--sizes", dest="sizes", default=DEFAULT_SIZES,
                   help=f"bytes per rank, comma-separated (default {DEFAULT_SIZES})")
    p.add_argument("--records", help="parameters (float32) per rank instead of --bytes")
    p.add_argument("--variant", "-v", default="naive,aggressive",
                   help="naive, aggressive, or both comma-separated (default both)")
    p.add_argument("--topology", choices=("full", "ghc", "both"), default="full",
                   help="full mesh, GHC (x then y), or both (default full)")
    p.add_argument("--ghc", type=int, default=0, help="GHC columns (default: near square)")
    p.add_argument("--onestep", metavar="BYTES",
                   help="aggressive: one-step form up to BYTES per rank (default: the "
                        "program's, 2K; 0 never)")
    p.add_argument("--iters", type=int, default=1000, help="averagings per run up to 64 KiB "
                                                           "(default 1000; 100 above)")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    p.add_argument("--vs", choices=("openmpi", "none"), default="openmpi")
    p.add_argument("--bind", choices=("auto", "core", "none"), default="auto")
    p.add_argument("--json", metavar="FILE")
    p.add_argument("--plot", metavar="FILE.png")
    p.add_argument("--timeout", type=float, default=300)
    sort_cli.add_fabric_arguments(p)


def ghc_columns(ranks: int, want: int) -> int:
    """GHC columns: @p want, or the squarest grid with columns >= rows."""
    if want:
        return want
    d = max(i for i in range(1, int(ranks ** 0.5) + 1) if ranks % i == 0)
    return ranks // d


def paired(num: list, den: list) -> float:
    """Median over rounds of num[i] / den[i] (both measured in round i)."""
    return statistics.median(x / y for x, y in zip(num, den))


def measure(a, sizes: list[int], algos: list[str], topos: list[str], log=print):
    """Run every (algorithm, topology) and the MPI twin; returns (rows, notes)."""
    notes = []
    ncpu = apps_run.cores()
    oversub = a.ranks > ncpu
    bind = a.bind if a.bind != "auto" else ("none" if oversub else "core")
    iters = a.iters if not oversub else min(a.iters, 100)
    large = max(1, iters // 10)
    if oversub:
        notes.append(f"{a.ranks} ranks on {ncpu} cores (oversubscribed): {iters} averagings "
                     f"per run up to 64 KiB, {large} above")
    mpi_ok, why = apps_run.openmpi_available()
    use_mpi = a.vs == "openmpi" and mpi_ok
    if a.vs == "openmpi" and not mpi_ok:
        notes.append(f"OpenMPI baseline skipped: {why}")
    size_arg = ",".join(str(s) for s in sizes)
    common = ["-S", size_arg, "-i", iters, "-I", large]
    heap = max(64 << 20, 5 * max(sizes) + (32 << 20))
    configs = [(al, tp) for tp in topos for al in algos]
    results = {c: [] for c in configs}
    predicted = {}
    fabric = getattr(a, "fabric", None)  # argument sets built by callers (demo) have none
    if fabric:
        notes.append(f"fabric us: one averaging predicted on {os.path.basename(fabric)} by "
                     "meshrun --fabric (the annotated reduction at the fabric's [compute] "
                     "rates; each peer's vector or slice read and each block signal written through "
                     "meshmem_ptr charged as a get or put of its bytes on the links of its route, "
                     "transfers on different links at once); OpenMPI not modelled")
    mpi = []
    for r in range(a.rounds):
        order = configs + (["mpi"] if use_mpi else [])
        if r % 2:
            order = order[::-1]
        for c in order:
            if c == "mpi":
                mpi.append(apps_run.run_app("openmpi", "average_mpi", a.ranks, common,
                                            "average", bind=bind, timeout_s=a.timeout))
                continue
            al, tp = c
            extra = ["-g", ghc_columns(a.ranks, a.ghc)] if tp == "ghc" else []
            if getattr(a, "onestep", None) is not None:
                extra += ["-T", bench.parse_size(str(a.onestep))]
            results[c].append(apps_run.run_app("meshmem", "average", a.ranks,
                                               ["-a", al, *common, *extra], "average",
                                               heap_bytes=heap, bind=bind,
                                               timeout_s=a.timeout))
        log(f"  average: round {r + 1}/{a.rounds} done", file=sys.stderr)
    for al, tp in configs if fabric else ():
        extra = ["-g", ghc_columns(a.ranks, a.ghc)] if tp == "ghc" else []
        if getattr(a, "onestep", None) is not None:
            extra += ["-T", bench.parse_size(str(a.onestep))]
        runs, pred = apps_run.run_on_fabric(
            "average", a.ranks, ["-a", al, "-S", size_arg, "-i", 1, "-I", 1, "-w", 0, *extra],
            "average", fabric, getattr(a, "compute_scale", None), heap_bytes=heap, bind=bind,
            timeout_s=a.timeout)
        predicted[(al, tp)] = (pred, all(x["verified"] == 1 for x in runs))
    rows = []
    for (al, tp), runs in results.items():
        for i, s in enumerate(sizes):
            us = [run[i]["us"] for run in runs]
            row = {"algo": al, "topology": tp, "ranks": a.ranks, "bytes": s,
                   "us": statistics.median(us), "rounds_us": us,
                   "verified": int(all(run[i]["verified"] == 1 for run in runs)),
                   # the program's own count (1 for the aggressive one-step form)
                   "steps": runs[0][i].get("steps", (2 if al == "aggressive" else 3) *
                                           (2 if tp == "ghc" and a.ranks > 1 else 1))}
            row["GBps"] = s / row["us"] * 1e-3
            if (al, tp) in predicted:  # average_main.c names each size's phase by its bytes
                pred, ok = predicted[(al, tp)]
                row.update(fabric=pred["fabric"],
                           predicted_s=pred["phases"][f"average-{s // 4 * 4}"]["seconds"],
                           fabric_compute_scale=pred["compute_scale"])
                row["verified"] = int(row["verified"] and ok)
            if mpi:
                mus = [run[i]["us"] for run in mpi]
                row["mpi_us"] = statistics.median(mus)
                row["mpi_rounds_us"] = mus
                row["mpi_verified"] = int(all(run[i]["verified"] == 1 for run in mpi))
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
    return rows, notes


def print_table(rows: list, out=None):
    """One line per (algorithm, topology, size)."""
    out = out or sys.stdout  # looked up now: a default bound at import goes stale
    fabric = any("predicted_s" in r for r in rows)
    head = (f"{'algo':<11}{'topo':>5}{'ranks':>6}{'bytes':>9}{'steps':>6}{'meshmem us':>12}"
            f"{'fabric us' if fabric else '':>10}{'GB/s':>7}{'MPI us':>10}{'ratio':>7}{'paired':>7}{'aggr/naive':>11}{'paired':>7}"
            f"{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = r["verified"] and r.get("mpi_verified", 1)
        an = r.get("aggressive_vs_naive")
        anp = r.get("aggressive_vs_naive_paired")
        pr = r.get("paired_ratio")
        print(f"{r['algo']:<11}{r['topology']:>5}{r['ranks']:>6}"
              f"{bench.format_size(r['bytes']):>9}{r['steps']:>6}{r['us']:>12.3f}"
              f"{bench.fmt_optional(r['predicted_s'] * 1e6 if 'predicted_s' in r else None, '.3f') if fabric else '':>10}"
              f"{r['GBps']:>7.2f}{'-' if r.get('mpi_us') is None else format(r['mpi_us'], '.3f'):>10}"
              f"{'-' if r.get('ratio_vs_mpi') is None else format(r['ratio_vs_mpi'], '.2f'):>7}"
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
    ax.set_ylabel("time per averaging (us)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    plots.finish(fig, path, title, ax)


def run(args) -> int:
    """Entry point of `meshmem average`."""
    try:
        if args.records:
            sizes = [4 * bench.parse_size(t) for t in args.records.split(",") if t.strip()]
        else:
            sizes = [bench.parse_size(t) for t in args.sizes.split(",") if t.strip()]
    except ValueError as e:
        print(f"meshmem average: {e}", file=sys.stderr)
        return 2
    algos = [t.strip() for t in args.variant.split(",") if t.strip()]
    if not sizes or any(s < 4 for s in sizes) or not algos or \
            any(al not in ("naive", "aggressive") for al in algos):
        print("meshmem average: sizes of at least 4 bytes; variants naive and/or aggressive",
              file=sys.stderr)
        return 2
    if args.ranks < 1 or args.rounds < 1:
        print("meshmem average: --ranks and --rounds must be at least 1", file=sys.stderr)
        return 2
    if not apps_run.fabric_ok(args, "average"):  # a bad fabric: before anything runs
        return 2
    topos = ["full", "ghc"] if args.topology == "both" else [args.topology]
    info = bench.machine_info()
    print(f"# meshmem average: {args.ranks} ranks on {info['nproc']} cores ({info['cpu']}); "
          f"load average {info['loadavg'][0]:.2f}")
    try:
        rows, notes = measure(args, sizes, algos, topos)
    except BenchError as e:
        print(f"meshmem average: {e}", file=sys.stderr)
        return 1
    print_table(rows)
    for n in notes:
        print(f"# note: {n}")
    print("# ratio = meshmem us / MPI_Allreduce us (below 1: meshmem faster); aggr/naive below "
          "1: the aggressive approach is faster; paired: median over rounds of the same-round "
          "ratio")
    info["loadavg_end"] = list(os.getloadavg())
    doc = {"results": rows, "machine": info,
           "settings": {"ranks": args.ranks, "sizes": sizes, "algos": algos, "topologies": topos,
                        "rounds": args.rounds, "vs": args.vs, "notes": notes,
                        "onestep": args.onestep, "fabric": args.fabric,
                        "compute_scale": args.compute_scale,
                        "date": time.strftime("%Y-%m-%d %H:%M:%S")}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"# wrote {args.json}")
    if args.plot:
        plot(rows, args.plot, f"sharing averaged parameters, {args.ranks} ranks")
        print(f"# wrote {args.plot}")
    return 0 if all(r["verified"] and r.get("mpi_verified", 1) for r in rows) else 1
