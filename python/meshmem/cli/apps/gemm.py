"""`meshmem gemm`: FSHMEM's distributed matrix multiply (§V, Fig. 6) generalised to N ranks:
row blocks of C whose partial products are streamed to their owners while the next chunk is
multiplied, and SUMMA, against the same algorithms on OpenMPI and one rank's dgemm, in the same
run, on the application harness (command.py). Local multiplies by OpenBLAS, one thread per
rank. Every run is checked by the program against the one-rank product (relative 1e-12).
"""
from __future__ import annotations

import sys

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps import blas
from meshmem.cli.apps.command import AppCommand, Launch, add_prediction, alternate, measured_row, once, program_heap
from meshmem.cli.apps.programs import counted
from meshmem.cli.apps.table import print_rate_table, rate_summary
from meshmem.cli.report import speedup_legend

VARIANTS = ("stream", "summa")

DESCRIPTION = """\
The distributed GEMM of FSHMEM (§V, Fig. 6), C = A B in double precision, generalised from two
nodes to N ranks. Verified against the one-rank product, run alternately with the same
algorithm on OpenMPI and beside one rank's dgemm in the same run; the speed-up is the peer's
time / meshmem's time. GOPS = 2 M N K / time.

variants:
  stream  K split over the ranks; each rank multiplies the partial product of every row block
          of C, --chunk rows at a time, each chunk written straight into its owner's memory
          (or put) with a signal while the next is multiplied; the owner sums the partials
          (FSHMEM's automatic result transfer)
  summa   2-D blocks on the most square grid; per panel of K the A panel is broadcast along
          the grid row and the B panel along the grid column, then multiplied locally"""


def program_args(a, variant: str) -> list:
    """The command line of the gemm program (or its twin)."""
    return ["-v", variant, "-N", a.size, "-b", a.chunk, "-k", a.panel, "-i", a.iters]


def heap_for(a, ranks: int) -> int:
    """The symmetric heap of a run on @p ranks ranks; UsageError with the program's reason."""
    return program_heap("gemm", program_args(a, "stream"), ranks)


def measure(a, launch: Launch, log=print) -> tuple[list, list]:
    """Every (rank count, variant) against its MPI twin, and one rank's dgemm once."""
    notes, rows = [], []
    serial = None
    if "serial" in a.baselines:
        serial = launch.meshmem("gemm", program_args(a, "serial"), "gemm", heap=heap_for(a, 1),
                                ranks=1)[0]
    if launch.fabric:
        notes.append(f"fabric s: one run per rank count traced and replayed on "
                     f"{launch.fabric.rsplit('/', 1)[-1]} (the multiplies at the fabric's "
                     "[compute] rates, the streamed chunks as its puts); OpenMPI is not modelled")
    for ranks in a.scale:
        heap = heap_for(a, ranks)
        sides = {}
        for v in a.variants:
            sides[v] = (lambda v=v: launch.meshmem("gemm", program_args(a, v), "gemm",
                                                   heap=heap, ranks=ranks)[0])
            if "openmpi" in a.baselines:
                sides[f"mpi_{v}"] = (lambda v=v: launch.openmpi("gemm_mpi", program_args(a, v),
                                                                "gemm", ranks=ranks)[0])
        got = alternate(a.rounds, sides)
        log(f"  gemm: {counted(ranks, 'rank')}, {counted(a.rounds, 'round')} done", file=sys.stderr)
        for v in a.variants:
            row = measured_row(got[v], ("variant", "n", "chunk", "ranks"), "GOPS",
                               got.get(f"mpi_{v}"), serial)
            if launch.fabric and ranks <= a.fabric_nodes:
                fl = Launch(**{**launch.__dict__, "ranks": ranks})
                frows, pred = fl.on_fabric("gemm", once(program_args(a, v)), "gemm", heap=heap)
                add_prediction(row, pred, frows, phase="gemm")
                row["predicted_GOPS"] = row["GOPS"] * row["seconds"] / row["predicted_s"]
            rows.append(row)
    return rows, notes


def print_table(rows: list, out=None):
    """One line per (variant, ranks): time, GOPS, the speed-ups over OpenMPI and one rank."""
    print_rate_table(rows, [("variant", "variant", -8), ("ranks", "ranks", 6), ("n", "n", 16)], out=out)


def summary(rows: list) -> list[str]:
    """One line per row: GOPS and the speed-ups, with units."""
    return rate_summary(rows, lambda r: f"GEMM {r['n']}, {r['variant']}, {r['ranks']} ranks")


def plot(rows: list, path: str, title: str = ""):
    """FSHMEM's figure: GOPS against ranks, meshmem (each variant), MPI and one rank."""
    fig, ax = plots.pyplot().subplots(figsize=(6, 4))
    for v in dict.fromkeys(r["variant"] for r in rows):
        mine = sorted((r["ranks"], r) for r in rows if r["variant"] == v)
        ax.plot([p[0] for p in mine], [p[1]["GOPS"] for p in mine], "o-", label=f"meshmem {v}")
        mpi = [(k, r["GOPS"] * r["seconds"] / r["mpi_seconds"]) for k, r in mine
               if r.get("mpi_seconds")]
        if mpi:
            ax.plot([p[0] for p in mpi], [p[1] for p in mpi], "s--", label=f"OpenMPI {v}")
    one = next((r for r in rows if r.get("serial_seconds")), None)
    if one:
        ax.axhline(one["GOPS"] * one["seconds"] / one["serial_seconds"], color="gray", ls=":",
                   label="1 rank (dgemm)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ranks")
    ax.set_ylabel("GOPS (2 M N K / time)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    plots.finish(fig, path, title)


class GemmCommand(AppCommand):
    """`meshmem gemm` on the application harness."""
    name = "gemm"
    baselines = ("openmpi", "serial")
    default_rounds = 3
    description = DESCRIPTION
    plot_what = "GOPS against ranks"
    examples = ("meshmem gemm --ranks 2 --size 2048",
                "meshmem gemm --scale 1,2,4 --size 1024 --plot gemm.png",
                "meshmem gemm --ranks 2 --size 1024 --fabric datavortex-8node --vs none")

    def add_app_arguments(self, p):
        p.add_argument("--size", default="512", metavar="N|MxNxK",
                       help="C is MxN, A MxK, B KxN; one n for squares (default 512)")
        p.add_argument("--variant", "-v", default="stream,summa", metavar="LIST",
                       help="stream, summa or both comma-separated (default both)")
        p.add_argument("--chunk", type=int, default=256, metavar="ROWS",
                       help="stream: rows of C per streamed chunk (default 256)")
        p.add_argument("--panel", type=int, default=0, metavar="COLS",
                       help="summa: panel width; 0: one panel per rank (default 0)")
        p.add_argument("--iters", type=int, default=3, metavar="N",
                       help="timed products per program; the median is kept (default 3)")
        options.add_scale(p)

    def check(self, a):
        a.variants = options.choices_list("--variant", a.variant, VARIANTS)
        a.scale = options.rank_counts("--scale", a.scale, a.ranks)
        options.at_least("--chunk", a.chunk, 1)
        options.at_least("--panel", a.panel, 0)
        options.at_least("--iters", a.iters, 1)
        a.fabric_nodes = 0
        if a.fabric:
            from meshmem.model import load_fabric
            a.fabric_nodes = load_fabric(a.fabric).nodes
        for r in a.scale:
            heap_for(a, r)

    def describe(self, a):
        return f"; C = A B of {a.size} doubles, {blas.header('gemm')}"

    def title(self, a, rows):
        return f"GEMM {rows[0]['n']} (double): meshmem against OpenMPI and one rank"

    def settings(self, a):
        return {"size": a.size, "variants": a.variants, "chunk": a.chunk, "panel": a.panel,
                "iters": a.iters, "scale": a.scale}

    def footer(self, rows):
        return [speedup_legend("× OpenMPI, × 1 rank",
                               "peer time (the same algorithm on OpenMPI, one rank's dgemm)"),
                "# error: max |C - one-rank product| / max |product|; GOPS = 2 M N K / time"]


COMMAND = GemmCommand(measure, print_table, plot)
