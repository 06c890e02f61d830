"""`meshmem demo` (and `make demo`): the case studies and applications of the papers on this
machine, verified, against OpenMPI in the same run, with a summary and plots.

It shows the runtime, not the scheduler: every section runs as many ranks as cores (at least 2)
unless its algorithm needs more, and a section whose ranks share cores says, on its own line,
that its figure measures that sharing. The OpenMPI twins run as OpenMPI documents for their
shape (osu.twin_settings: they yield when their ranks share cores, and are bound as meshmem's).
  1. the distributed counting sort at every stage of the OPTWEB sort report (A = 11, 6, 3, 2, 1)
     and the LSD radix sort of 32-bit keys, each against the same algorithm on OpenMPI
     (MPI_Alltoallv) and a serial sort of the same data (a table); then its 5-step GHC form,
     which needs a 2-D grid of at least 4 ranks (one line);
  2. sharing averaged parameters, naive (3 steps) vs aggressive (2 steps), on the full mesh
     against MPI_Allreduce (a table), then on a GHC of at least 4 ranks (one line each);
  3.-7. the applications, one or two lines each: the 3-D FFT against FFTW-MPI and serial FFTW
     (DataVortex §5), the 8-byte all-to-all and the message-driven kernel against MPI
     (DataVortex §4), the shallow-water step against its MPI twin and one rank (ACCL), the GEMM
     and the convolution against their MPI twins and one rank (FSHMEM §V);
  8. the sort and the average on 2 virtual hosts of this machine (meshrun --vhosts), as many
     ranks as cores, against their OpenMPI twins on a virtual cluster of the same shape, where
     the machine can build one (root, network namespaces, UCX); else one line saying why not.
Each section runs its command's own measurement (meshmem sort, average, fft, ...) on the demo's
settings, checked by that command's own checks. A section is one entry of SECTIONS: its
heading, the command, its settings, and how its rows are printed. A section whose run fails
or does not verify makes the demo end with status 1 and one line naming it; the others still
run. Sizes are chosen so that the whole demo takes under 2 minutes on a 2-core machine. Results
go to --plot-dir (demo.json with the OpenMPI settings of every part, sort.png, average.png,
fft.png, amt.png). Without OpenMPI the meshmem side still runs.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from meshmem import (amt_cli, app_command, apps_run, average_cli, conv_cli, fft_cli, gemm_cli,
                     options, shallow_cli, sort_cli)
from meshmem.app_command import rows_verified
from meshmem.osu import BenchError, twin_settings
from meshmem.paths import REPO, build_dir
from meshmem.report import format_count, format_size, machine_info, machine_line, speedup_phrase

DESCRIPTION = """\
The case studies of OPTWEB (JOCN 2022) and the applications of DataVortex, ACCL and FSHMEM on
this machine, verified, each against the same algorithm on OpenMPI in the same run, OpenMPI run
as its documentation says for the shape (yielding where ranks share cores, bound as meshmem's
ranks): the distributed counting sort at every stage of the OPTWEB sort report (IPSJ) and an
LSD radix sort, beside a serial sort, then its GHC form; sharing averaged parameters, naive and
aggressive, on the full mesh and a GHC, beside MPI_Allreduce; then one or two lines each for the
3-D FFT (beside FFTW-MPI and serial FFTW), the 8-byte all-to-all and a message-driven kernel
(beside MPI), the shallow-water step, the GEMM and the convolution (beside their MPI twins and
one rank); and the sort and the average on 2 virtual hosts beside their OpenMPI twins on the
same virtual cluster, where this machine can build one (root, network namespaces, UCX). Every
section runs as many ranks as cores unless its algorithm needs more (a GHC: 4), and then says
that its figure measures ranks sharing cores. A summary, demo.json and the plots sort.png,
average.png, fft.png and amt.png go to --plot-dir. Under 2 minutes on a 2-core machine; exit
status 1 when a section fails or does not verify."""

VHOSTS = 2  # the virtual hosts of section 8
GHC_RANKS = 4  # the smallest 2-D grid (2 x 2): the GHC forms' ranks at least


def add_arguments(p):
    """The `meshmem demo` command line."""
    p.formatter_class = options.HelpFormatter
    p.description = DESCRIPTION
    options.add_ranks(p, None, "ranks (processes) to start (default: the cores, at least 2); "
                               "the GHC parts run at least 4")
    p.add_argument("--records", default="2^21", metavar="N",
                   help="records the sort sorts, in the whole job (default 2^21)")
    p.add_argument("--plot-dir", "--out", dest="plot_dir", metavar="DIR",
                   default=str(REPO / "results" / "demo"),
                   help="directory for demo.json and the plots (default results/demo; --out "
                        "is the old name)")
    p.add_argument("--quick", action="store_true",
                   help="small sizes and one round: a check that everything runs")


@dataclass
class Setup:
    """What every section's settings depend on."""
    ranks: int
    quick: bool
    mpi: bool          # OpenMPI can run the twins here
    records: str       # the sort's records (--records)
    cores: int = 2     # CPUs this process may run on

    def ghc_ranks(self) -> int:
        """Ranks of the GHC parts: the demo's, and at least a 2 x 2 grid."""
        return max(GHC_RANKS, self.ranks)

    def vhosts_ranks(self) -> int:
        """Ranks on the virtual cluster: as many as cores (all its hosts share them), an even
        number per host, at least one."""
        return VHOSTS * max(1, min(self.ranks, self.cores) // VHOSTS)


def sharing(ranks: int, cores: int) -> str:
    """The phrase a line carries when its @p ranks share @p cores (empty when they do not)."""
    if ranks <= cores:
        return ""
    return f"{ranks} ranks share {cores} cores: this measures the sharing, not the runtime alone"


def quiet(*_args, **_kwargs):
    """A log that drops the commands' progress lines (the sections print their own)."""


@dataclass
class Part:
    """One command's measurement inside a section: @p settings(setup) gives the command's
    options (its defaults otherwise; --ranks the demo's unless set); @p lines(rows) the one or
    two lines printed, or None for the command's own table (whose summary then closes the
    demo)."""
    key: str                          # its rows' name in demo.json
    command: app_command.AppCommand
    settings: Callable[[Setup], dict]
    measure: Callable                 # (settings, Launch) -> (rows, notes)
    lines: Callable[[list], list[str]] | None = None
    plot: bool = False                # KEY.png in --plot-dir


@dataclass
class Section:
    """A heading and the parts run under it; @p unavailable() says why the section cannot run
    here (None: it can), as one line."""
    heading: str
    parts: list[Part]
    unavailable: Callable[[], str | None] = lambda: None


# ------------------------------------------------------------------ the sections' settings
FULL_MESH_SORTS = "a11,a6,a3,a2,a1,radix"  # every variant of the sort but the GHC's


def sort_settings(s: Setup) -> dict:
    """Every full-mesh variant of the sort, against OpenMPI and the serial sort."""
    return dict(records="2^18" if s.quick else s.records, variant=FULL_MESH_SORTS,
                iters=1 if s.quick else 3, rounds=1, vs="openmpi,serial" if s.mpi else "serial")


def ghc_sort_settings(s: Setup) -> dict:
    """The GHC sort (x, then y) on a grid of at least 2 x 2."""
    return {**sort_settings(s), "variant": "ghc", "ranks": s.ghc_ranks()}


def average_settings(s: Setup) -> dict:
    """Three sizes, both approaches, on the full mesh."""
    return dict(sizes="1K,64K,1M", topology="fullmesh", iters=50 if s.quick else 200,
                rounds=1 if s.quick else 2, vs="openmpi" if s.mpi else "none")


def ghc_average_settings(s: Setup) -> dict:
    """Both approaches on a GHC of at least 2 x 2, at 1 KiB and 1 MiB."""
    return {**average_settings(s), "sizes": "1K,1M", "topology": "ghc",
            "ranks": s.ghc_ranks()}


def fft_settings(s: Setup) -> dict:
    """One slab FFT size, as DataVortex §5."""
    return dict(size="32" if s.quick else "64", rounds=1 if s.quick else 2,
                vs="openmpi,serial" if s.mpi else "serial")


def amt_settings(s: Setup) -> dict:
    """DataVortex Fig. 2 at two sizes and the kernel."""
    return dict(messages="256,1K" if s.quick else "256,4K", tasks=100 if s.quick else 300,
                iters=3, rounds=1, vs="openmpi" if s.mpi else "none")


def shallow_settings(s: Setup) -> dict:
    """The whole step, streaming, on a 64 x 64 grid (ACCL's latency-bound case)."""
    return dict(size="32x32" if s.quick else "64x64", variant="streaming", modes="step",
                steps=20 if s.quick else 100, iters=1 if s.quick else 3,
                rounds=1 if s.quick else 3, vs="openmpi,serial" if s.mpi else "serial")


def gemm_settings(s: Setup) -> dict:
    """FSHMEM's streamed row blocks."""
    return dict(size="128" if s.quick else "512", variant="stream", iters=1 if s.quick else 3,
                rounds=1 if s.quick else 3, vs="openmpi,serial" if s.mpi else "serial")


def conv_settings(s: Setup) -> dict:
    """FSHMEM's three convolution layers (the paper's shapes; an eighth of the channels when
    quick)."""
    return dict(kernels="small" if s.quick else "paper", iters=1 if s.quick else 2, rounds=1,
                vs="openmpi,serial" if s.mpi else "serial")


def compute_settings(settings: Callable[[Setup], dict]) -> Callable[[Setup], dict]:
    """@p settings of a compute-bound section, run on at most as many ranks as cores (at least
    2): with more, its figure would measure the scheduler sharing cores between its ranks."""
    return lambda s: {"ranks": max(2, min(s.ranks, s.cores)), **settings(s)}


def vhosts_sort_settings(s: Setup) -> dict:
    """The GHC sort (x within a host, y across hosts) on the virtual cluster."""
    return dict(vhosts=VHOSTS, ranks=s.vhosts_ranks(), records="2^14" if s.quick else "2^18",
                variant="ghc", iters=1 if s.quick else 2, rounds=1,
                vs="openmpi" if s.mpi else "none")


def vhosts_average_settings(s: Setup) -> dict:
    """The aggressive average of 1 KiB on the virtual cluster."""
    return dict(vhosts=VHOSTS, ranks=s.vhosts_ranks(), sizes="1K", algo="aggressive",
                iters=10 if s.quick else 50, rounds=1, vs="openmpi" if s.mpi else "none")


# ------------------------------------------------------------------ how the parts measure
def sort_measure(a, launch):
    return sort_cli.measure(a, launch, a.variants, a.nrecords, log=quiet)


def average_measure(a, launch):
    return average_cli.measure(a, launch, a.byte_sizes, a.algos, a.topos, log=quiet)


def measure_of(module):
    """The command module's measurement, its progress lines dropped."""
    return lambda a, launch: module.measure(a, launch, log=quiet)


# ------------------------------------------------------------------ the lines of short parts
def across_line(what: str, r: dict, mine: str, peer: str, theirs: str) -> str:
    """One line of section 7: @p what ran on the virtual hosts in @p mine, against OpenMPI's
    @p peer on the same cluster in @p theirs when it ran."""
    line = f"{what}, {VHOSTS} virtual hosts, {r['ranks']} ranks: {mine}"
    if r.get("speedup_vs_openmpi"):
        line += (f", {speedup_phrase(r['speedup_vs_openmpi'], 'OpenMPI')} on the same cluster "
                 f"({peer}, {theirs})")
    return line


def ghc_sort_lines(rows: list) -> list[str]:
    """One line for the GHC sort: its time and speed-ups."""
    lines = []
    for r in rows:
        parts = [f"{r['seconds'] * 1e3:.1f} ms"]
        parts += [speedup_phrase(r.get(k), peer) for k, peer in
                  (("speedup_vs_mpi", "OpenMPI (MPI_Alltoallv)"),
                   ("speedup_vs_serial", "the serial sort")) if r.get(k)]
        lines.append(f"sort ghc (x, then y), {format_count(r['records'])} records, "
                     f"{r['ranks']} ranks: " + ", ".join(parts))
    return lines


def ghc_average_lines(rows: list) -> list[str]:
    """One line per (algorithm, size) of the average on a GHC."""
    return [f"averaging {format_size(r['bytes'])} bytes per rank, {r['algo']}, GHC, "
            f"{r['ranks']} ranks: {r['us']:.1f} µs"
            + (f", {speedup_phrase(r['speedup_vs_openmpi'], 'OpenMPI')} (MPI_Allreduce, "
               f"{r['mpi_us']:.1f} µs)" if r.get("speedup_vs_openmpi") else "")
            for r in rows]


def vhosts_sort_lines(rows: list) -> list[str]:
    """One line per variant: the sort across hosts against its OpenMPI twin there."""
    return [across_line(f"sort {r['variant']}, {format_count(r['records'])} records", r,
                        f"{r['seconds'] * 1e3:.1f} ms", "MPI_Alltoallv",
                        f"{r.get('mpi_seconds', 0) * 1e3:.1f} ms") for r in rows]


def vhosts_average_lines(rows: list) -> list[str]:
    """One line per (algorithm, size): the average across hosts against MPI_Allreduce there."""
    return [across_line(f"averaging {format_size(r['bytes'])} bytes per rank, {r['algo']}", r,
                        f"{r['us']:.1f} µs", "MPI_Allreduce", f"{r.get('mpi_us', 0):.1f} µs")
            for r in rows]


# ------------------------------------------------------------------ why a section cannot run
def not_built(program: str, needs: str) -> Callable[[], str | None]:
    """A section's unavailable(): @p program is not built (the build found no @p needs)."""
    def why():
        if apps_run.app_path(program).exists():
            return None
        return f"not built: {needs} is missing (scripts/install-deps.sh installs it)"
    return why


def vhosts_unavailable() -> str | None:
    """Why this machine cannot run jobs on a virtual cluster (as tests/py/test_vhosts.py
    decides), or None: meshrun with --vhosts, meshmem's UCX and PMIx plugins, OpenMPI, and
    `meshrun-vhosts check` (root, ip, unshare, nsenter, mpirun)."""
    if not app_command.meshrun_accepts("--vhosts"):
        return "this meshrun does not run across hosts (meshrun --help lists no --vhosts)"
    for plugin, package in (("ucx", "libucx-dev"), ("pmix", "libpmix-dev")):
        if not (build_dir() / "lib" / f"libmeshmem_{plugin}.so").exists():
            return (f"meshmem was built without {plugin.upper()} ({package}: "
                    f"scripts/install-deps.sh installs it)")
    ok, why = apps_run.openmpi_available()
    if not ok:
        return why
    return apps_run.vhosts_unavailable()


# The demo, in order. An application's section is its settings function above and one entry
# here (as conv's below).
SECTIONS = [
    Section("distributed counting sort (OPTWEB §3.B, the OPTWEB sort report) and LSD radix "
            "sort", [Part("sort", sort_cli.COMMAND, sort_settings, sort_measure, plot=True),
                     Part("sort_ghc", sort_cli.COMMAND, ghc_sort_settings, sort_measure,
                          ghc_sort_lines)]),
    Section("sharing averaged parameters (OPTWEB §3.C)",
            [Part("average", average_cli.COMMAND, average_settings, average_measure,
                  plot=True),
             Part("average_ghc", average_cli.COMMAND, ghc_average_settings, average_measure,
                  ghc_average_lines)]),
    Section("distributed 3-D FFT (DataVortex §5)",
            [Part("fft", fft_cli.COMMAND, compute_settings(fft_settings), measure_of(fft_cli),
                  fft_cli.summary, plot=True)], not_built("fft", "FFTW 3")),
    Section("8-byte all-to-all and a message-driven kernel (DataVortex §4)",
            [Part("amt", amt_cli.COMMAND, amt_settings, measure_of(amt_cli), amt_cli.summary,
                  plot=True)]),
    Section("shallow water, streaming halo exchange (ACCL)",
            [Part("shallow", shallow_cli.COMMAND, compute_settings(shallow_settings),
                  measure_of(shallow_cli), shallow_cli.summary)]),
    Section("GEMM with streamed partial results (FSHMEM §V)",
            [Part("gemm", gemm_cli.COMMAND, compute_settings(gemm_settings),
                  measure_of(gemm_cli), gemm_cli.summary)], not_built("gemm", "OpenBLAS")),
    Section("convolution with streamed results (FSHMEM §V)",
            [Part("conv", conv_cli.COMMAND, compute_settings(conv_settings),
                  measure_of(conv_cli), conv_cli.summary)], not_built("conv", "OpenBLAS")),
    Section(f"sort and average across {VHOSTS} virtual hosts (meshrun --vhosts), OpenMPI on "
            "the same virtual cluster",
            [Part("sort_vhosts", sort_cli.COMMAND, vhosts_sort_settings, sort_measure,
                  vhosts_sort_lines),
             Part("average_vhosts", average_cli.COMMAND, vhosts_average_settings,
                  average_measure, vhosts_average_lines)], vhosts_unavailable),
]


# ------------------------------------------------------------------ running them
@dataclass
class Outcome:
    """What the sections gave: rows and notes per part, why a section did not run, what
    failed, and each section's seconds."""
    rows: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    openmpi: dict = field(default_factory=dict)  # part -> osu.TwinSettings of its twins
    skipped: dict = field(default_factory=dict)
    failed: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


def prepared(command, **settings):
    """@p command's settings: its defaults with @p settings, checked by the command itself
    (UserError naming the option): (settings, Launch)."""
    a = options.defaults(command.add_arguments, timeout=120, **settings)
    return a, command.prepare(a)


def one_line(e: Exception) -> str:
    """A run's failure in one line: its first line (what failed, how) and, when the output's
    tail follows, that tail's last line (the program's own reason)."""
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    if not lines:
        return type(e).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"


def run_part(part: Part, a, launch, out: Outcome) -> None:
    """Measure @p part and print it: its table, or its lines with the verification; a part
    whose ranks share cores says so on its line (above its table)."""
    try:
        rows, notes = part.measure(a, launch)
    except BenchError as e:
        out.failed[part.key] = one_line(e)
        print(f"meshmem demo: {part.key} failed: {out.failed[part.key]}", file=sys.stderr)
        return
    out.rows[part.key] = rows
    out.notes += [f"{part.key}: {n}" for n in notes]
    if "openmpi" in a.baselines:
        out.openmpi[part.key] = twin_settings(launch.twin_options())
    ok = rows_verified(rows)
    shared = sharing(launch.ranks, apps_run.cores())
    if part.lines is None:
        if shared:
            print(f"# {shared}")
        part.command.print_table(rows)
    else:
        for line in part.lines(rows):
            print(f"{line}; {shared + '; ' if shared else ''}verified: {'yes' if ok else 'NO'}")
    if not ok:
        out.failed[part.key] = "a result did not verify"


def summary(out: Outcome) -> list[str]:
    """The lines a reader takes away from the tables, each with its unit."""
    lines = []
    srows = out.rows.get("sort", [])
    a1 = next((r for r in srows if r["variant"] == "a1"), None)
    if a1:
        line = f"single-pass sort (A = 1): {a1['GBps']:.2f} key GB/s"
        if a1.get("speedup_vs_mpi"):
            line += (f", {speedup_phrase(a1['speedup_vs_mpi'], 'OpenMPI')} (the same sort on "
                     f"MPI_Alltoallv, {a1['mpi_seconds'] * 1e3:.1f} ms against "
                     f"{a1['seconds'] * 1e3:.1f} ms)")
        if a1.get("speedup_vs_serial"):
            line += f", {speedup_phrase(a1['speedup_vs_serial'], 'the serial counting sort')}"
        shared = sharing(a1["ranks"], apps_run.cores())
        lines.append(line + (f" ({shared})" if shared else ""))
    if srows:
        lines.append("memory passes A -> throughput: " + ", ".join(
            f"A = {r['A']}: {r['GBps']:.2f} key GB/s" for r in srows
            if r["variant"] in ("a11", "a6", "a3", "a2", "a1")))
    if out.rows.get("average"):
        shared = sharing(out.rows["average"][0]["ranks"], apps_run.cores())
        lines += [line + (f" ({shared})" if shared else "")
                  for line in average_cli.summary(out.rows["average"])]
    return lines


def run(args) -> int:
    """Entry point of `meshmem demo`."""
    options.check_output_dir("--plot-dir", args.plot_dir)
    ranks = args.ranks or max(2, apps_run.cores())
    options.rank_count(ranks)
    mpi, why = apps_run.openmpi_available()
    setup = Setup(ranks=ranks, quick=args.quick, mpi=mpi, records=args.records,
                  cores=apps_run.cores())
    out = Outcome()
    # every command's own checks, before anything runs
    plan = []
    for section in SECTIONS:
        skip = section.unavailable()
        parts = [] if skip else [(p, *prepared(p.command, **{"ranks": ranks, **p.settings(setup)}))
                                 for p in section.parts]
        plan.append((section, skip, parts))
    t0 = time.monotonic()
    outdir = Path(args.plot_dir)
    outdir.mkdir(parents=True, exist_ok=True)
    info = machine_info()
    print(f"# meshmem demo: the case studies of OPTWEB, DataVortex, ACCL and FSHMEM, "
          f"{machine_line(info, ranks)}")
    if not mpi:
        print(f"# OpenMPI is not available ({why}): meshmem runs alone, no OpenMPI column")
    for n, (section, skip, parts) in enumerate(plan, 1):
        print(f"\n## {n}. {section.heading}")
        ts = time.monotonic()
        if skip:
            print(f"# not run: {skip}")
            out.skipped.update({p.key: skip for p in section.parts})
        for part, a, launch in parts:
            run_part(part, a, launch, out)
        out.seconds[n] = round(time.monotonic() - ts, 1)
    print("\n## summary")
    for line in summary(out):
        print(line)
    print(f"every section verified: {'yes' if not out.failed else 'NO'}")
    for note in dict.fromkeys(out.notes):
        print(f"# note: {note}")
    for line in dict.fromkeys(t.line() for t in out.openmpi.values()):
        print(f"# {line}")
    written = []
    for _, _, parts in plan:
        for part, a, _ in parts:
            rows = out.rows.get(part.key)
            if part.plot and rows:
                part.command.plot(rows, str(outdir / f"{part.key}.png"),
                                  part.command.title(a, rows))
                written.append(f"{part.key}.png")
    info["loadavg_end"] = list(os.getloadavg())
    with open(outdir / "demo.json", "w") as f:
        json.dump({**out.rows, "openmpi": {k: t.as_dict() for k, t in out.openmpi.items()},
                   "skipped": out.skipped,
                   "failed": out.failed,
                   "section_seconds": out.seconds, "machine": info, "ranks": ranks,
                   "seconds": time.monotonic() - t0}, f, indent=1)
    print("# seconds per section: " + ", ".join(f"{n}: {s:.0f}" for n, s in out.seconds.items()))
    print(f"# wrote {outdir}/demo.json, {', '.join(written)} in {time.monotonic() - t0:.0f} s")
    if out.failed:
        print("meshmem demo: failed: " + "; ".join(f"{k}: {v}" for k, v in out.failed.items()),
              file=sys.stderr)
        return 1
    return 0
