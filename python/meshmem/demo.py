"""`meshmem demo` (and `make demo`): the OPTWEB case studies on this machine, verified, against
OpenMPI in the same run, with a summary table and plots.

With as many ranks as cores, but at least 4 (oversubscribed on smaller machines):
  1. the distributed counting sort at every stage of seed 004 (A = 11, 6, 3, 2, 1) and its
     5-step GHC form, and the LSD radix sort of 32-bit keys, each against the same algorithm on
     OpenMPI (MPI_Alltoallv) and a serial sort of the same data;
  2. sharing averaged parameters, naive (3 steps) vs aggressive (2 steps), full mesh and GHC,
     against MPI_Allreduce;
  3. the distributed 3-D FFT (slab, transposes overlapped with the FFTs) against FFTW-MPI and
     serial FFTW (DataVortex §5);
  4. the all-to-all of 8-byte messages (puts, active messages) against MPI_Alltoall and
     MPI_Isend, and the message-driven kernel against the same on MPI (DataVortex §4).
Sizes are chosen to finish in under 2 minutes on a 2-core machine. Results go to
results/demo/ (demo.json, sort.png, average.png, fft.png, amt.png). Without OpenMPI the meshmem side still runs.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from meshmem import amt_cli, apps_run, average_cli, bench, fft_cli, sort_cli
from meshmem.app_command import Launch, rows_verified
from meshmem.osu import BenchError
from meshmem.paths import REPO


def add_arguments(p):
    """The `meshmem demo` command line."""
    p.add_argument("--ranks", type=int, help="ranks (default: cores, at least 4)")
    p.add_argument("--records", default="2^21", help="sort records (default 2^21)")
    p.add_argument("--out", default=str(REPO / "results" / "demo"),
                   help="directory for demo.json and the plots (default results/demo)")
    p.add_argument("--quick", action="store_true", help="smaller sizes, one round (a smoke run)")


def sort_args(ranks: int, records: str, quick: bool) -> argparse.Namespace:
    """The `meshmem sort` settings of the demo."""
    return argparse.Namespace(ranks=ranks, records=records, bytes=None, variant="all",
                              keys_only=False, K=None, channels=128, keybits=32, dist="uniform",
                              seed=1, ghc=0, iters=1 if quick else 2, rounds=1 if quick else 2,
                              baselines=["openmpi", "serial"])


def average_args(ranks: int, quick: bool) -> argparse.Namespace:
    """The `meshmem average` settings of the demo."""
    return argparse.Namespace(ranks=ranks, ghc=0, onestep=None, iters=50 if quick else 200,
                              rounds=1 if quick else 2, baselines=["openmpi"])


def fft_args(ranks: int, quick: bool, baselines: list) -> argparse.Namespace:
    """The `meshmem fft` settings of the demo: one slab FFT size, as DataVortex §5."""
    return argparse.Namespace(size="32" if quick else "64", variants=["slab"],
                              precision="double", chunk=1, grid=0, planner="measure",
                              iters=3, seed=1, scale=[ranks], rounds=1, fabric_nodes=0,
                              baselines=baselines)


def amt_args(quick: bool, baselines: list) -> argparse.Namespace:
    """The `meshmem amt` settings of the demo: DataVortex Fig. 2 at two sizes and the kernel."""
    return argparse.Namespace(parts=["fig2", "kernel"], counts=[256, 1024 if quick else 4096],
                              tasks=100 if quick else 300, depth=10, iters=3, seed=1, rounds=1,
                              baselines=baselines)


def run(args) -> int:
    """Entry point of `meshmem demo`."""
    t0 = time.monotonic()
    ncpu = apps_run.cores()
    ranks = args.ranks or max(4, ncpu)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    info = bench.machine_info()
    print(f"# meshmem demo: the OPTWEB case studies, {ranks} ranks on {ncpu} cores "
          f"({info['cpu']}){' (oversubscribed)' if ranks > ncpu else ''}; "
          f"load average {info['loadavg'][0]:.2f}")
    ok, why = apps_run.openmpi_available()
    if not ok:
        print(f"# OpenMPI is not available ({why}): meshmem runs alone, no baseline column")
    records = "2^18" if args.quick else args.records
    sa, aa = sort_args(ranks, records, args.quick), average_args(ranks, args.quick)
    if not ok:
        sa.baselines, aa.baselines = ["serial"], []
    launch = Launch(ranks=ranks, bind="none" if ranks > ncpu else "core", timeout=120)
    try:
        print("\n## 1. distributed counting sort (seed 000 §3.B, seed 004) and LSD radix sort")
        srows, snotes = sort_cli.measure(sa, launch, list(sort_cli.VARIANTS),
                                         sort_cli.parse_records(records))
        sort_cli.print_table(srows)
        print("\n## 2. sharing averaged parameters (seed 000 §3.C)")
        arows, anotes = average_cli.measure(aa, launch, [1024, 65536, 1 << 20],
                                            ["naive", "aggressive"], ["full", "ghc"])
        average_cli.print_table(arows)
        frows, fnotes = [], []
        print("\n## 3. distributed 3-D FFT (DataVortex §5)")
        if apps_run.app_path("fft").exists():
            frows, fnotes = fft_cli.measure(fft_args(ranks, args.quick, sa.baselines), launch,
                                            log=lambda *a, **k: None)
            fft_cli.print_table(frows)
        else:
            print("# not built: FFTW 3 is missing (scripts/install-deps.sh installs it)")
        print("\n## 4. 8-byte all-to-all and a message-driven kernel (DataVortex §4)")
        mrows, mnotes = amt_cli.measure(amt_args(args.quick, aa.baselines), launch,
                                        log=lambda *a, **k: None)
        amt_cli.print_table(mrows)
    except BenchError as e:
        print(f"meshmem demo: {e}", file=sys.stderr)
        return 1
    verified = rows_verified(srows + arows + frows + mrows)
    print("\n## summary")
    a1 = next(r for r in srows if r["variant"] == "a1")
    line = f"single-pass sort (A=1): {a1['GBps']:.2f} key GB/s"
    if a1.get("speedup_vs_mpi"):
        line += f", {a1['speedup_vs_mpi']:.2f}x the OpenMPI version of the same sort"
    if a1.get("speedup_vs_serial"):
        line += f", {a1['speedup_vs_serial']:.2f}x the serial counting sort"
    print(line)
    print("memory passes A -> throughput: " + ", ".join(
        f"A={r['A']}: {r['GBps']:.2f} GB/s" for r in srows if r["variant"] in
        ("a11", "a6", "a3", "a2", "a1")))
    k1 = [r for r in arows if r["bytes"] == 1024 and r["topology"] == "full"]
    for r in k1:
        if r.get("mpi_us"):
            print(f"averaging 1 KiB, {r['algo']}: {r['us']:.2f} µs vs MPI_Allreduce "
                  f"{r['mpi_us']:.2f} µs ({r['speedup_vs_openmpi']:.2f} × faster)")
    faster = sum(1 for r in arows if r.get("aggressive_vs_naive", 2) < 1)
    pairs = sum(1 for r in arows if "aggressive_vs_naive" in r)
    print(f"aggressive faster than naive at {faster} of {pairs} (size, topology) points")
    for r in frows:
        print(f"3-D FFT {r['n']} on {r['ranks']} ranks: {r['GFlops']:.2f} GFlops"
              + (f", {r['speedup_vs_openmpi']:.2f} × FFTW-MPI" if "speedup_vs_openmpi" in r
                 else "") + (f", {r['speedup_vs_serial']:.2f} × serial FFTW"
                             if "speedup_vs_serial" in r else ""))
    for r in mrows:
        if r["variant"] == "put" and "speedup_vs_isend" in r:
            print(f"{r['messages']} 8-byte puts per rank: {r['Mmsgs']:.1f} Mmsg/s, "
                  f"{r['speedup_vs_isend']:.1f} × MPI_Isend, "
                  f"{r['speedup_vs_alltoall']:.1f} × MPI_Alltoall")
        if r["variant"] == "kernel" and "speedup_vs_openmpi" in r:
            print(f"message-driven kernel: {r['Mtasks']:.2f} Mtasks/s, "
                  f"{r['speedup_vs_openmpi']:.1f} × the same kernel on MPI")
    print(f"every result verified: {'yes' if verified else 'NO'}")
    for n in dict.fromkeys(snotes + anotes + fnotes + mnotes):
        print(f"# note: {n}")
    sort_cli.plot(srows, str(out / "sort.png"), f"sort, {ranks} ranks, {records} records")
    average_cli.plot(arows, str(out / "average.png"),
                     f"sharing averaged parameters, {ranks} ranks")
    if frows:
        fft_cli.plot(frows, str(out / "fft.png"), f"3-D FFT {frows[0]['n']}, {ranks} ranks")
    amt_cli.plot(mrows, str(out / "amt.png"), f"8-byte all-to-all, {ranks} ranks")
    info["loadavg_end"] = list(os.getloadavg())
    with open(out / "demo.json", "w") as f:
        json.dump({"sort": srows, "average": arows, "fft": frows, "amt": mrows,
                   "machine": info, "ranks": ranks,
                   "seconds": time.monotonic() - t0}, f, indent=1)
    print(f"# wrote {out}/demo.json, sort.png, average.png, fft.png, amt.png in "
          f"{time.monotonic() - t0:.0f} s")
    return 0 if verified else 1
