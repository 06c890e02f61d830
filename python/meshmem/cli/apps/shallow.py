"""`meshmem shallow`: ACCL's shallow-water simulation (SHALLOW's scheme: Sadourny's finite
differences on a C grid, leapfrog steps, periodic) with its halo exchange buffered or
streaming, against the same code on OpenMPI (MPI_Isend/Irecv) and on one rank, in the same run,
on the application harness (command.py).

Every run is checked by the program: each owned value bitwise equal to the serial run's, the
mass conserved to 1e-12; with the exchange alone, every halo cell equal to its neighbour's.
Rows: per rank count and variant, the whole step (µs per step, the exchange's share of it) and,
with --modes exchange, the halo exchange timed on its own (-E: the exchange of every step with
no computation), each beside the MPI twin's. --fabric FILE adds one traced run per rank count,
replayed on the modelled fabric (docs/model.md).
"""
from __future__ import annotations

import subprocess
import sys

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps import programs
from meshmem.cli.apps.command import AppCommand, Launch, UsageError, add_prediction, alternate, median, once
from meshmem.cli.apps.programs import counted
from meshmem.cli.report import fmt_optional, speedup_legend, speedup_phrase

VARIANTS = ("buffered", "streaming")
MODES = ("step", "exchange")

DESCRIPTION = """\
The shallow-water simulation of ACCL (Figs. 2, 6 and its scaling figures) on SHALLOW's scheme:
an M x N periodic grid split into blocks of rows (--decomp 1) or 2-D blocks (--decomp 2), a halo
of two cells exchanged every step. Verified bitwise against the serial run and by the mass,
run alternately with the same program on OpenMPI (MPI_Isend/Irecv, pack and unpack) and
beside one rank in the same run; the speed-up is the peer's time / meshmem's time.
--modes exchange also times the halo exchange on its own (ACCL's latency-bound case).

variants:
  buffered   per step and peer: pack the strips, one put-with-signal into the peer's slot,
             wait for the peers' signals, unpack (ACCL's buffered mode, no collective)
  streaming  each boundary row put into the peers' halos with a signal as soon as it is
             computed, while the inner rows are computed (ACCL's streaming mode); the side
             columns of 2-D blocks follow in one message per peer"""


def program_args(a, variant: str, exchange_only: bool = False) -> list:
    """The command line of the shallow program (or its twin, variant 'mpi')."""
    args = ["-v", variant, "-N", a.size, "-d", a.decomp, "-t", a.steps, "-i", a.iters]
    if a.grid:
        args += ["-g", a.grid]
    return args + (["-E"] if exchange_only else [])


def heap_for(a, ranks: int) -> int:
    """The symmetric heap the shallow program needs on @p ranks ranks; UsageError with the
    program's own reason when the grid does not suit the rank count."""
    exe = programs.ensure_app("shallow")
    args = [str(v) for v in program_args(a, "buffered")]
    done = subprocess.run([str(exe), *args, "-H", str(ranks)], capture_output=True, text=True)
    if done.returncode != 0:  # "shallow: -N 8x8: on a 1x8 grid of ranks ..."
        why = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1]
        raise UsageError(why.removeprefix("shallow: ") + f" (at {ranks} ranks)")
    return int(done.stdout.strip())


def _merge(runs: list, prefix: str = "") -> dict:
    """Medians over the rounds' result lines of one side, keys prefixed by @p prefix."""
    out = {f"{prefix}us_step": median(r["us_step"] for r in runs),
           f"{prefix}us_exchange": median(r["us_exchange"] for r in runs),
           f"{prefix}rounds_us_step": [r["us_step"] for r in runs],
           f"{prefix}verified": int(all(r["verified"] == 1 for r in runs))}
    out[f"{prefix}exchange_share"] = (out[f"{prefix}us_exchange"] / out[f"{prefix}us_step"]
                                      if out[f"{prefix}us_step"] > 0 else 0.0)
    return out


def measure(a, launch: Launch, log=print) -> tuple[list, list]:
    """Every (rank count, mode, variant) against the MPI twin at the same count; one rank
    (buffered, whole steps) once as the serial reference."""
    notes = []
    rows = []
    serial = None
    if "serial" in a.baselines:
        serial = _merge(launch.meshmem("shallow", program_args(a, "buffered"), "shallow",
                                       heap=heap_for(a, 1), ranks=1))
    if launch.fabric:
        notes.append(f"fabric µs/step: one run per rank count traced and replayed on "
                     f"{launch.fabric.rsplit('/', 1)[-1]} (meshrun --fabric: the steps at the "
                     "fabric's [compute] rates, the halo messages as its puts); OpenMPI is not "
                     "modelled")
    for ranks in a.scale:
        heap = heap_for(a, ranks)
        for mode in a.modes:
            ex = mode == "exchange"
            sides = {}
            for v in a.variants:
                args = program_args(a, v, ex)
                sides[v] = (lambda args=args:
                            launch.meshmem("shallow", args, "shallow", heap=heap, ranks=ranks)[0])
            if "openmpi" in a.baselines:
                margs = program_args(a, "mpi", ex)
                sides["openmpi"] = (lambda margs=margs:
                                    launch.openmpi("shallow_mpi", margs, "shallow", ranks=ranks)[0])
            got = alternate(a.rounds, sides)
            log(f"  shallow: {counted(ranks, 'rank')}, {mode}, {counted(a.rounds, 'round')} "
                f"done", file=sys.stderr)
            mpi = got.pop("openmpi", None)
            for v, runs in got.items():
                row = {k: runs[0][k] for k in ("variant", "n", "grid", "steps", "ranks")}
                row["mode"] = mode
                row.update(_merge(runs))
                if mpi:
                    row.update(_merge(mpi, "mpi_"))
                    row["speedup_vs_openmpi"] = row["mpi_us_step"] / row["us_step"]
                if serial and not ex:
                    row["serial_us_step"] = serial["us_step"]
                    row["serial_verified"] = serial["verified"]
                    row["speedup_vs_serial"] = serial["us_step"] / row["us_step"]
                if launch.fabric and ranks <= a.fabric_nodes:
                    fl = Launch(**{**launch.__dict__, "ranks": ranks})
                    frows, pred = fl.on_fabric("shallow", once(program_args(a, v, ex)),
                                               "shallow", heap=heap)
                    add_prediction(row, pred, frows, phase="step")
                    row["predicted_us_step"] = row["predicted_s"] / row["steps"] * 1e6
                rows.append(row)
    return rows, notes


def print_table(rows: list, out=None):
    """One line per (ranks, mode, variant): µs per step, the exchange's share, the MPI twin's,
    the speed-ups over it and over one rank."""
    out = out or sys.stdout
    fabric = any("predicted_us_step" in r for r in rows)
    fw = 11 if fabric else 0
    head = (f"{'variant':<10}{'mode':<9}{'ranks':>5}{'grid':>6}{'n':>11}{'µs/step':>10}"
            f"{'halo %':>7}{'fabric µs' if fabric else '':>{fw}}{'MPI µs':>10}{'MPI halo %':>11}"
            f"{'× OpenMPI':>10}{'× 1 rank':>9}{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = all(r.get(k, 1) == 1 for k in ("verified", "mpi_verified", "serial_verified"))
        step = r["mode"] == "step"
        share = f"{100 * r['exchange_share']:.0f}" if step else "-"
        mpi_share = (f"{100 * r['mpi_exchange_share']:.0f}" if "mpi_exchange_share" in r
                     and step else "-")
        print(f"{r['variant']:<10}{r['mode']:<9}{r['ranks']:>5}{r['grid']:>6}{r['n']:>11}"
              f"{r['us_step']:>10.2f}"
              f"{share:>7}"
              f"{fmt_optional(r.get('predicted_us_step'), '.3g') if fabric else '':>{fw}}"
              f"{fmt_optional(r.get('mpi_us_step'), '.2f'):>10}{mpi_share:>11}"
              f"{fmt_optional(r.get('speedup_vs_openmpi'), '.2f'):>10}"
              f"{fmt_optional(r.get('speedup_vs_serial'), '.2f'):>9}"
              f"{'yes' if ok else 'NO':>4}", file=out)


def summary(rows: list) -> list[str]:
    """One line per row: µs per step and the speed-ups, with units."""
    lines = []
    for r in rows:
        what = "halo exchange alone" if r["mode"] == "exchange" else "step"
        parts = [f"{r['us_step']:.1f} µs per {what}"]
        if r["mode"] == "step":
            parts.append(f"halo {100 * r['exchange_share']:.0f} %")
        parts += [speedup_phrase(r.get(k), peer) for k, peer in
                  (("speedup_vs_openmpi", "OpenMPI"), ("speedup_vs_serial", "1 rank"))
                  if r.get(k)]
        lines.append(f"shallow water {r['n']}, {r['variant']}, {r['ranks']} ranks "
                     f"({r['grid']}): " + ", ".join(parts))
    return lines


def plot(rows: list, path: str, title: str = ""):
    """ACCL's figures: µs per step against ranks (meshmem variants and MPI), and the halo
    exchange alone when it was measured."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    modes = [m for m in MODES if any(r["mode"] == m for r in rows)]
    fig, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes), 4), squeeze=False)
    for ax, mode in zip(axes[0], modes):
        mine = [r for r in rows if r["mode"] == mode]
        series = {f"meshmem {v}": sorted((r["ranks"], r["us_step"]) for r in mine
                                         if r["variant"] == v)
                  for v in dict.fromkeys(r["variant"] for r in mine)}
        mpi = sorted({r["ranks"]: r["mpi_us_step"] for r in mine if "mpi_us_step" in r}.items())
        if mpi:
            series["MPI_Isend/Irecv (OpenMPI)"] = mpi
        fab = sorted((r["ranks"], r["predicted_us_step"]) for r in mine
                     if "predicted_us_step" in r and r["variant"] == mine[0]["variant"])
        if fab:
            series[f"{mine[0]['variant']} on {mine[0]['fabric'].rsplit('/', 1)[-1]} (model)"] = fab
        for label, pts in series.items():
            style = "s--" if "MPI" in label else "d:" if "model" in label else "o-"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("ranks")
        ax.set_ylabel("µs per step" if mode == "step" else "µs per halo exchange (alone)")
        ax.set_title("whole step" if mode == "step" else "halo exchange alone", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    plots.finish(fig, path, title)


class ShallowCommand(AppCommand):
    """`meshmem shallow` on the application harness."""
    name = "shallow"
    baselines = ("openmpi", "serial")
    default_rounds = 3
    description = DESCRIPTION
    plot_what = "µs per step against ranks, and the halo exchange alone"
    examples = ("meshmem shallow --ranks 2 --size 32x64 --decomp 1",
                "meshmem shallow --scale 1,2,4,8 --size 128x128 --plot shallow.png",
                "meshmem shallow --ranks 4 --size 64x64 --modes exchange --vs openmpi",
                "meshmem shallow --ranks 2 --fabric datavortex-8node --vs none")

    def add_app_arguments(self, p):
        p.add_argument("--size", default="64x64", metavar="MxN",
                       help="the grid: M cells in x, N in y (default 64x64)")
        p.add_argument("--variant", "-v", default="buffered,streaming", metavar="LIST",
                       help="buffered, streaming or both comma-separated (listed above; "
                            "default both)")
        p.add_argument("--decomp", type=int, default=2, choices=(1, 2),
                       help="1: blocks of rows; 2: 2-D blocks (default 2)")
        p.add_argument("--grid", type=int, default=0, metavar="PX",
                       help="--decomp 2: ranks per grid row, in x (default: the most square)")
        p.add_argument("--modes", default="step,exchange", metavar="LIST",
                       help="step (the whole step), exchange (the halo exchange alone), or "
                            "both (default both)")
        p.add_argument("--steps", type=int, default=100, metavar="N",
                       help="time steps per timed run (default 100)")
        p.add_argument("--iters", type=int, default=3, metavar="N",
                       help="timed runs per program; the median is kept (default 3)")
        options.add_scale(p)

    def check(self, a):
        a.variants = options.choices_list("--variant", a.variant, VARIANTS)
        a.modes = options.choices_list("--modes", a.modes, MODES)
        a.scale = options.rank_counts("--scale", a.scale, a.ranks)
        options.at_least("--steps", a.steps, 1)
        options.at_least("--iters", a.iters, 1)
        options.at_least("--grid", a.grid, 0)
        if a.grid and a.decomp != 2:
            raise UsageError(f"--grid {a.grid}: a grid of ranks is for --decomp 2")
        a.fabric_nodes = 0
        if a.fabric:
            from meshmem.model import load_fabric
            a.fabric_nodes = load_fabric(a.fabric).nodes
        for r in a.scale:  # the program checks the size and the grid against each count
            heap_for(a, r)

    def describe(self, a):
        return f"; {a.size} grid, {a.decomp}-D blocks, {a.steps} steps"

    def title(self, a, rows):
        ranks = ", ".join(str(r) for r in a.scale)
        return (f"shallow water {rows[0]['n']} ({a.decomp}-D blocks): {ranks} ranks, meshmem "
                f"against MPI_Isend/Irecv")

    def settings(self, a):
        return {"size": a.size, "variants": a.variants, "decomp": a.decomp, "grid": a.grid,
                "modes": a.modes, "steps": a.steps, "iters": a.iters, "scale": a.scale}

    def footer(self, rows):
        return [speedup_legend("× OpenMPI, × 1 rank",
                               "peer time (the MPI twin, the same program on one rank)"),
                "# µs/step: median run / steps; halo %: the exchange calls' share of the step "
                "(waits included); mode exchange: the halo exchange alone, no computation"]


COMMAND = ShallowCommand(measure, print_table, plot)
