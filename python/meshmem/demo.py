"""`meshmem demo` (and `make demo`): the case studies of OPTWEB and DataVortex on this machine,
verified, against OpenMPI in the same run, with a summary and plots.

With as many ranks as cores, but at least 4 (oversubscribed on smaller machines):
  1. the distributed counting sort at every stage of the OPTWEB sort report (A = 11, 6, 3, 2, 1)
     and its 5-step GHC form, and the LSD radix sort of 32-bit keys, each against the same
     algorithm on OpenMPI (MPI_Alltoallv) and a serial sort of the same data;
  2. sharing averaged parameters, naive (3 steps) vs aggressive (2 steps), full mesh and GHC,
     against MPI_Allreduce;
  3. the distributed 3-D FFT (slab, transposes overlapped with the FFTs) against FFTW-MPI and
     serial FFTW (DataVortex §5);
  4. the all-to-all of 8-byte messages (puts, active messages) against MPI_Alltoall and
     MPI_Isend, and the message-driven kernel against the same on MPI (DataVortex §4).
Each section runs its command's own measurement (meshmem sort, average, fft, amt) on the
demo's settings, checked by that command's own checks. Sizes are chosen to finish in a few
minutes on a 2-core machine. Results go to --plot-dir (demo.json, sort.png, average.png,
fft.png, amt.png). Without OpenMPI the meshmem side still runs.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from meshmem import amt_cli, apps_run, average_cli, fft_cli, options, sort_cli
from meshmem.app_command import rows_verified
from meshmem.osu import BenchError
from meshmem.paths import REPO
from meshmem.report import format_count, machine_info, machine_line, speedup_phrase

DESCRIPTION = """\
The case studies of OPTWEB (JOCN 2022) and DataVortex on this machine, verified, each against
the same algorithm on OpenMPI in the same run: the distributed counting sort at every stage of
the OPTWEB sort report (IPSJ) with its GHC form and an LSD radix sort, beside a serial sort;
sharing averaged parameters, naive and aggressive, on the full mesh and a GHC, beside
MPI_Allreduce; the distributed 3-D FFT beside FFTW-MPI and serial FFTW; the all-to-all of
8-byte messages and a message-driven kernel beside MPI. A summary, demo.json and the plots
sort.png, average.png, fft.png and amt.png go to --plot-dir. A few minutes on a 2-core
machine."""


def add_arguments(p):
    """The `meshmem demo` command line."""
    p.formatter_class = options.HelpFormatter
    p.description = DESCRIPTION
    options.add_ranks(p, None, "ranks (processes) to start (default: the cores, at least 4)")
    p.add_argument("--records", default="2^21", metavar="N",
                   help="records the sort sorts, in the whole job (default 2^21)")
    p.add_argument("--plot-dir", "--out", dest="plot_dir", metavar="DIR",
                   default=str(REPO / "results" / "demo"),
                   help="directory for demo.json and the plots (default results/demo; --out "
                        "is the old name)")
    p.add_argument("--quick", action="store_true",
                   help="small sizes and one round: a check that everything runs")


def prepared(command, **settings):
    """@p command's settings: its defaults with @p settings, checked by the command itself
    (UserError naming the option): (settings, Launch)."""
    a = options.defaults(command.add_arguments, timeout=120, **settings)
    return a, command.prepare(a)


def sort_settings(ranks: int, records: str, quick: bool, mpi: bool):
    """The `meshmem sort` of the demo: every variant."""
    return prepared(sort_cli.COMMAND, ranks=ranks, records=records, variant="all",
                    iters=1 if quick else 2, rounds=1 if quick else 2,
                    vs="openmpi,serial" if mpi else "serial")


def average_settings(ranks: int, quick: bool, mpi: bool):
    """The `meshmem average` of the demo: three sizes, both approaches, both topologies."""
    return prepared(average_cli.COMMAND, ranks=ranks, sizes="1K,64K,1M",
                    topology="fullmesh,ghc", iters=50 if quick else 200,
                    rounds=1 if quick else 2, vs="openmpi" if mpi else "none")


def fft_settings(ranks: int, quick: bool, mpi: bool):
    """The `meshmem fft` of the demo: one slab FFT size, as DataVortex §5."""
    return prepared(fft_cli.COMMAND, ranks=ranks, size="32" if quick else "64", rounds=1,
                    vs="openmpi,serial" if mpi else "serial")


def amt_settings(ranks: int, quick: bool, mpi: bool):
    """The `meshmem amt` of the demo: DataVortex Fig. 2 at two sizes and the kernel."""
    return prepared(amt_cli.COMMAND, ranks=ranks, messages="256,1K" if quick else "256,4K",
                    tasks=100 if quick else 300, iters=3, rounds=1,
                    vs="openmpi" if mpi else "none")


def summary(srows: list, arows: list, frows: list, mrows: list) -> list[str]:
    """The lines a reader takes away, each with its unit."""
    lines = []
    a1 = next((r for r in srows if r["variant"] == "a1"), None)
    if a1:
        line = f"single-pass sort (A = 1): {a1['GBps']:.2f} key GB/s"
        if a1.get("speedup_vs_mpi"):
            line += (f", {speedup_phrase(a1['speedup_vs_mpi'], 'OpenMPI')} (the same sort on "
                     f"MPI_Alltoallv, {a1['mpi_seconds'] * 1e3:.1f} ms against "
                     f"{a1['seconds'] * 1e3:.1f} ms)")
        if a1.get("speedup_vs_serial"):
            line += f", {speedup_phrase(a1['speedup_vs_serial'], 'the serial counting sort')}"
        lines.append(line)
    lines.append("memory passes A -> throughput: " + ", ".join(
        f"A = {r['A']}: {r['GBps']:.2f} key GB/s" for r in srows
        if r["variant"] in ("a11", "a6", "a3", "a2", "a1")))
    lines += average_cli.summary(arows)
    lines += fft_cli.summary(frows)
    lines += amt_cli.summary(mrows)
    return lines


def run(args) -> int:
    """Entry point of `meshmem demo`."""
    options.check_output_dir("--plot-dir", args.plot_dir)
    records = "2^18" if args.quick else args.records
    ranks = args.ranks or max(4, apps_run.cores())
    options.at_least("--ranks", ranks, 1)
    mpi, why = apps_run.openmpi_available()
    with_fft = apps_run.app_path("fft").exists()
    # every command's own checks, before anything runs
    sa, slaunch = sort_settings(ranks, records, args.quick, mpi)
    aa, alaunch = average_settings(ranks, args.quick, mpi)
    fa, flaunch = fft_settings(ranks, args.quick, mpi) if with_fft else (None, None)
    ma, mlaunch = amt_settings(ranks, args.quick, mpi)
    t0 = time.monotonic()
    out = Path(args.plot_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = machine_info()
    print(f"# meshmem demo: the OPTWEB and DataVortex case studies, {machine_line(info, ranks)}")
    if not mpi:
        print(f"# OpenMPI is not available ({why}): meshmem runs alone, no OpenMPI column")
    quiet = lambda *a, **k: None  # noqa: E731 (the sections print their tables instead)
    frows, fnotes = [], []
    try:
        print(f"\n## 1. distributed counting sort (OPTWEB §3.B, the OPTWEB sort report) and LSD "
              f"radix sort, {format_count(sa.nrecords)} records")
        srows, snotes = sort_cli.COMMAND.measure(sa, slaunch)
        sort_cli.print_table(srows)
        print("\n## 2. sharing averaged parameters (OPTWEB §3.C)")
        arows, anotes = average_cli.COMMAND.measure(aa, alaunch)
        average_cli.print_table(arows)
        print(f"\n## 3. distributed 3-D FFT (DataVortex §5)")
        if fa:
            frows, fnotes = fft_cli.measure(fa, flaunch, log=quiet)
            fft_cli.print_table(frows)
        else:
            print("# not built: FFTW 3 is missing (scripts/install-deps.sh installs it)")
        print("\n## 4. 8-byte all-to-all and a message-driven kernel (DataVortex §4)")
        mrows, mnotes = amt_cli.measure(ma, mlaunch, log=quiet)
        amt_cli.print_table(mrows)
    except BenchError as e:
        print(f"meshmem demo: {e}", file=sys.stderr)
        return 1
    verified = rows_verified(srows + arows + frows + mrows)
    print("\n## summary")
    for line in summary(srows, arows, frows, mrows):
        print(line)
    print(f"every result verified: {'yes' if verified else 'NO'}")
    for n in dict.fromkeys(snotes + anotes + fnotes + mnotes):
        print(f"# note: {n}")
    plots = [("sort.png", sort_cli.COMMAND, sa, srows),
             ("average.png", average_cli.COMMAND, aa, arows),
             ("fft.png", fft_cli.COMMAND, fa, frows), ("amt.png", amt_cli.COMMAND, ma, mrows)]
    for name, command, a, rows in plots:
        if rows:
            command.plot(rows, str(out / name), command.title(a, rows))
    info["loadavg_end"] = list(os.getloadavg())
    with open(out / "demo.json", "w") as f:
        json.dump({"sort": srows, "average": arows, "fft": frows, "amt": mrows,
                   "machine": info, "ranks": ranks,
                   "seconds": time.monotonic() - t0}, f, indent=1)
    written = ", ".join(name for name, _, _, rows in plots if rows)
    print(f"# wrote {out}/demo.json, {written} in {time.monotonic() - t0:.0f} s")
    return 0 if verified else 1
