"""`meshmem fft`: the distributed 3-D complex FFT of DataVortex §5 (global transposes
overlapped with the 1-D FFTs) against FFTW's own MPI transform on OpenMPI and serial FFTW, in
the same run, on the application harness (command.py).

Variants (apps/fft/fft_engine.h): slab (one dimension distributed: per x-plane a 2-D FFT whose
rows go straight to their y owner, then the x-FFTs) and pencil (a pr x pc grid: z-FFTs, split
by z along the grid row, y-FFTs, rows to their y owner along the grid column, x-FFTs). The
transposes are one-step all-to-alls written by the senders, chunk by chunk (--chunk planes),
so that the transpose of a chunk overlaps the FFTs of the next. Output in FFTW-MPI's
transposed layout (FFTW_MPI_TRANSPOSED_OUT): one global transpose for the slab, as FFTW-MPI.
Every result is checked on rank 0 against serial FFTW (relative L2 error <= 1e-10 in double,
1e-5 in float) and by the round trip (inverse). GFlops = 5 N log2 N / time (the NAS FT and
heFFTe convention). --fabric FILE adds one traced meshmem run per rank count, replayed on the
modelled fabric.
"""
from __future__ import annotations

import math
import subprocess
import sys

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps import programs
from meshmem.cli.apps.command import AppCommand, Launch, UsageError, add_prediction, alternate, median
from meshmem.cli.apps.programs import counted
from meshmem.cli.report import fmt_optional, speedup_legend, speedup_phrase

VARIANTS = ("slab", "pencil")

DESCRIPTION = """\
The distributed 3-D FFT of DataVortex (§5): complex, double or float, any n0 x n1 x n2. The
global transposes are all-to-alls written by the senders, one chunk of planes at a time, so
that the transpose of one chunk overlaps the FFTs of the next. Verified against serial FFTW
and by the round trip, and run alternately with FFTW's own MPI transform on OpenMPI and beside
serial FFTW in the same run; the speed-up is the peer's time / meshmem's time. --scale 1,2,4,8
measures the strong scaling of DataVortex Figs. 4-5 (time to solution and speed-up against
ranks).

variants:
  slab    one dimension distributed: per x-plane a 2-D FFT whose rows go straight to their
          y owner, then the x-FFTs (one global transpose, as FFTW-MPI)
  pencil  a pr x pc grid (--grid pr): z-FFTs, rows split by z along the grid row, y-FFTs,
          rows to their y owner along the grid column, x-FFTs"""


def heap_for(args: list, ranks: int) -> int:
    """The symmetric heap the fft program needs for these arguments on @p ranks ranks."""
    exe = programs.ensure_app("fft")
    done = subprocess.run([str(exe), *map(str, args), "-H", str(ranks)], capture_output=True,
                          text=True)
    if done.returncode != 0:  # the program's own check: "fft: -N 0: a size n or ..."
        why = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1]
        raise UsageError(why.removeprefix("fft: "))
    return int(done.stdout.strip())


def program_args(a, variant: str) -> list:
    """The command line of the fft program (and, for slab, its twin)."""
    args = ["-v", variant, "-N", a.size, "-p", a.precision, "-f", a.planner, "-i", a.iters,
            "-s", a.seed]
    if variant in VARIANTS:
        args += ["-k", a.chunk]
    if variant == "pencil" and a.grid:
        args += ["-g", a.grid]
    return args


def measure(a, launch: Launch, log=print) -> tuple[list, list]:
    """Every (rank count, variant) against FFTW-MPI at the same count, and serial FFTW once."""
    notes = []
    rows = []
    serial = None
    if "serial" in a.baselines:
        sargs = program_args(a, "serial")
        serial = launch.meshmem("fft", sargs, "fft", heap=heap_for(sargs, 1), ranks=1)[0]
    if launch.fabric:
        notes.append(f"fabric s: one forward FFT per rank count traced and replayed on "
                     f"{launch.fabric.rsplit('/', 1)[-1]} (meshrun --fabric: the FFTs at the "
                     "fabric's [compute] rates, the transposes as its puts); FFTW-MPI and the "
                     "serial FFTW are not modelled")
    for ranks in a.scale:
        twin = ["-v", "slab", "-N", a.size, "-p", a.precision, "-f", a.planner, "-i", a.iters,
                "-s", a.seed]
        sides = {}
        for v in a.variants:
            args = program_args(a, v)
            heap = heap_for(args, ranks)
            sides[v] = (lambda args=args, heap=heap:
                        launch.meshmem("fft", args, "fft", heap=heap, ranks=ranks)[0])
        if "openmpi" in a.baselines:
            sides["openmpi"] = lambda: launch.openmpi("fft_mpi", twin, "fft", ranks=ranks)[0]
        got = alternate(a.rounds, sides)
        log(f"  fft: {counted(ranks, 'rank')}, {counted(a.rounds, 'round')} done", file=sys.stderr)
        mpi = got.pop("openmpi", None)
        for v, runs in got.items():
            row = dict(runs[0])
            row.update(seconds=median(r["seconds"] for r in runs),
                       rounds_s=[r["seconds"] for r in runs],
                       verified=int(all(r["verified"] == 1 for r in runs)))
            row["GFlops"] = flops(row["n"]) / row["seconds"] * 1e-9
            row["err_fwd"] = max(r["err_fwd"] for r in runs)
            if mpi:
                row["mpi_seconds"] = median(r["seconds"] for r in mpi)
                row["mpi_rounds_s"] = [r["seconds"] for r in mpi]
                row["mpi_GFlops"] = flops(row["n"]) / row["mpi_seconds"] * 1e-9
                row["mpi_verified"] = int(all(r["verified"] == 1 for r in mpi))
                row["speedup_vs_openmpi"] = row["mpi_seconds"] / row["seconds"]
            if serial:
                row["serial_seconds"] = serial["seconds"]
                row["serial_verified"] = serial["verified"]
                row["speedup_vs_serial"] = serial["seconds"] / row["seconds"]
            if launch.fabric and ranks <= a.fabric_nodes:
                args = program_args(a, v)
                fl = Launch(**{**launch.__dict__, "ranks": ranks})
                frows, pred = fl.on_fabric("fft", once(args), "fft", heap=heap_for(args, ranks))
                add_prediction(row, pred, frows)
            rows.append(row)
    return rows, notes


def once(args: list) -> list:
    """@p args with one timed run and no warm-up (the traced run of --fabric)."""
    out = list(args)
    out[out.index("-i") + 1] = 1
    return out + ["-w", 0]


def flops(n: str) -> float:
    """5 N log2 N for the size text '64x64x64' of a result line."""
    N = math.prod(int(v) for v in str(n).split("x"))
    return 5.0 * N * math.log2(N) if N > 1 else 0.0


def print_table(rows: list, out=None):
    """One line per (variant, ranks): times, GFlops, the speed-ups over FFTW-MPI and serial
    FFTW, the error against serial FFTW."""
    out = out or sys.stdout  # looked up now: a default bound at import goes stale
    fabric = any("predicted_s" in r for r in rows)
    fw = 10 if fabric else 0  # the fabric column only when a fabric was given
    head = (f"{'variant':<8}{'ranks':>6}{'grid':>6}{'n':>14}{'prec':>7}{'chunk':>6}"
            f"{'meshmem s':>11}{'GFlops':>8}{'fabric s' if fabric else '':>{fw}}"
            f"{'FFTW-MPI s':>11}{'× FFTW-MPI':>11}{'serial s':>10}{'× serial':>9}{'error':>9}"
            f"{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = all(r.get(k, 1) == 1 for k in ("verified", "mpi_verified", "serial_verified"))
        print(f"{r['variant']:<8}{r['ranks']:>6}{r['grid']:>6}{r['n']:>14}{r['prec']:>7}"
              f"{r['chunk']:>6}{r['seconds']:>11.4f}{r['GFlops']:>8.2f}"
              f"{fmt_optional(r.get('predicted_s'), '.3g') if fabric else '':>{fw}}"
              f"{fmt_optional(r.get('mpi_seconds'), '.4f'):>11}"
              f"{fmt_optional(r.get('speedup_vs_openmpi'), '.2f'):>11}"
              f"{fmt_optional(r.get('serial_seconds'), '.4f'):>10}"
              f"{fmt_optional(r.get('speedup_vs_serial'), '.2f'):>9}"
              f"{r['err_fwd']:>9.1e}{'yes' if ok else 'NO':>4}", file=out)


def summary(rows: list) -> list[str]:
    """One line per (variant, ranks): GFlops and the speed-ups, with units."""
    lines = []
    for r in rows:
        parts = [f"{r['GFlops']:.2f} GFlops"]
        parts += [speedup_phrase(r.get(k), peer) for k, peer in
                  (("speedup_vs_openmpi", "FFTW-MPI"), ("speedup_vs_serial", "serial FFTW"))
                  if r.get(k)]
        lines.append(f"3-D FFT {r['n']} {r['prec']}, {r['variant']}, {r['ranks']} ranks: "
                     + ", ".join(parts))
    return lines


def plot(rows: list, path: str, title: str = ""):
    """DataVortex Figs 4-5: time to solution and strong-scaling speed-up against ranks,
    meshmem (each variant) and FFTW-MPI."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
    series = {f"meshmem {v}": sorted((r["ranks"], r["seconds"]) for r in rows
                                      if r["variant"] == v) for v in
              dict.fromkeys(r["variant"] for r in rows)}
    mpi = sorted({r["ranks"]: r["mpi_seconds"] for r in rows if r.get("mpi_seconds")}.items())
    if mpi:
        series["FFTW-MPI (OpenMPI)"] = mpi
    for label, pts in series.items():
        style = "s--" if "FFTW" in label else "o-"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        base = pts[0][1] * pts[0][0]  # speed-up against the series' smallest count
        bx.plot([p[0] for p in pts], [base / p[1] for p in pts], style, label=label)
    serial = next((r["serial_seconds"] for r in rows if r.get("serial_seconds")), None)
    if serial:
        ax.axhline(serial, color="gray", ls=":", label="serial FFTW")
    counts = sorted({r["ranks"] for r in rows})
    bx.plot(counts, counts, color="gray", ls=":", label="linear")
    for a_, lab in ((ax, "time to solution (s)"), (bx, "speed-up (T(1 rank) / T)")):
        a_.set_xscale("log", base=2)
        a_.set_xlabel("ranks")
        a_.set_ylabel(lab)
        a_.grid(True, which="both", alpha=0.3)
        a_.legend(fontsize=8)
    ax.set_yscale("log")
    plots.finish(fig, path, title)


class FftCommand(AppCommand):
    """`meshmem fft` on the application harness."""
    name = "fft"
    baselines = ("openmpi", "serial")
    default_rounds = 3
    description = DESCRIPTION
    plot_what = "the time to solution and the strong-scaling speed-up against ranks"
    examples = ("meshmem fft --ranks 2 --size 256",
                "meshmem fft --scale 1,2,4,8 --size 128 --variant slab,pencil --plot fft.png",
                "meshmem fft --ranks 2 --size 64 --precision float --vs openmpi",
                "meshmem fft --ranks 8 --size 128 --fabric cpu-ib-100g --vs none")

    def add_app_arguments(self, p):
        p.add_argument("--size", default="64", metavar="N|N0xN1xN2",
                       help="the grid: n points a side (a cube), or n0xn1xn2 (default 64)")
        p.add_argument("--variant", "-v", default="slab", metavar="LIST",
                       help="slab, pencil or both comma-separated (listed above; default slab)")
        p.add_argument("--precision", default="double", choices=("double", "float"),
                       help="complex double or float (default double)")
        p.add_argument("--chunk", type=int, default=1, metavar="PLANES",
                       help="planes per pipeline chunk; 0: every plane, then the transpose "
                            "(default 1)")
        p.add_argument("--grid", type=int, default=0, metavar="PR",
                       help="pencil: ranks per grid row (default: the most square grid)")
        p.add_argument("--planner", default="measure", choices=("estimate", "measure", "patient"),
                       help="FFTW planner flags, the same on every side (default measure)")
        p.add_argument("--iters", type=int, default=3, metavar="N",
                       help="timed transforms per run; the median is kept (default 3)")
        p.add_argument("--seed", type=int, default=1, help="seed of the input (default 1)")
        p.add_argument("--scale", metavar="LIST",
                       help="strong scaling: the rank counts to run, e.g. 1,2,4,8 (instead of "
                            "--ranks)")

    def check(self, a):
        a.variants = options.comma_list(a.variant)
        if not a.variants or any(v not in VARIANTS for v in a.variants):
            raise UsageError(f"--variant {a.variant}: choose slab, pencil or both")
        try:
            a.scale = ([int(t) for t in options.comma_list(a.scale)] if a.scale
                       else [a.ranks])
        except ValueError:
            raise UsageError(f"--scale {a.scale}: rank counts, e.g. 1,2,4,8") from None
        if not a.scale or min(a.scale) < 1:
            raise UsageError(f"--scale {a.scale}: rank counts of at least 1")
        options.at_least("--chunk", a.chunk, 0)
        options.at_least("--grid", a.grid, 0)
        options.at_least("--iters", a.iters, 1)
        if a.grid and "pencil" not in a.variants:
            raise UsageError(f"--grid {a.grid}: a grid is for --variant pencil")
        for r in a.scale if a.grid else ():
            if r % a.grid:
                raise UsageError(f"--grid {a.grid}: ranks per grid row must divide the {r} ranks")
        a.fabric_nodes = 0
        if a.fabric:
            from meshmem.model import load_fabric
            a.fabric_nodes = load_fabric(a.fabric).nodes
        # the program checks the size (and the grid against each rank count) itself
        for r in a.scale:
            for v in a.variants:
                heap_for(program_args(a, v), r)

    def describe(self, a):
        return f"; {a.size} complex {a.precision}"

    def title(self, a, rows):
        ranks = ", ".join(str(r) for r in a.scale)
        return (f"3-D FFT {rows[0]['n']}, complex {rows[0]['prec']}: {ranks} ranks, meshmem "
                f"against FFTW-MPI")

    def settings(self, a):
        return {"size": a.size, "variants": a.variants, "precision": a.precision,
                "chunk": a.chunk, "planner": a.planner, "iters": a.iters, "scale": a.scale}

    def footer(self, rows):
        return [speedup_legend("× FFTW-MPI, × serial",
                               "peer time (FFTW-MPI on OpenMPI, serial FFTW)"),
                "# error: relative L2 error of the forward transform against serial FFTW; "
                "GFlops: 5 N log2 N / time"]


COMMAND = FftCommand(measure, print_table, plot)
