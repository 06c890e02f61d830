"""`meshmem conv`: FSHMEM's distributed convolution (§V, Fig. 6b) generalised to N ranks: the
kernels split in groups over the ranks, each output block streamed to every rank as soon as it
is computed (put with signal: FSHMEM's automatic result transfer) so that the concatenated maps
are everywhere when the layer ends, against the same algorithm on OpenMPI and one rank's
forward pass, in the same run, on the application harness (command.py). Local compute by
one gemm per kernel row over shifted copies of the input (OpenBLAS, one thread per rank).
Every run is checked by the program against the one-rank forward pass.
"""
from __future__ import annotations

import sys

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps import blas
from meshmem.cli.apps.command import (
    AppCommand,
    Launch,
    UsageError,
    add_prediction,
    alternate,
    measured_row,
    once,
    program_heap,
)
from meshmem.cli.apps.programs import counted
from meshmem.cli.apps.table import print_rate_table, rate_summary
from meshmem.cli.report import speedup_legend

# FSHMEM §V: 64 x 64 maps; "256, 3x3x256, 192, 5x5x192, and 128, 7x7x128"
PAPER_KERNELS = "256x3x3x256,192x5x5x192,128x7x7x128"
# the same three layers with an eighth of the channels: for tests and quick looks
SMALL_KERNELS = "32x3x3x32,24x5x5x24,16x7x7x16"
KERNEL_SETS = {"paper": PAPER_KERNELS, "small": SMALL_KERNELS}

DESCRIPTION = f"""\
The distributed convolution of FSHMEM (§V, Fig. 6b) generalised from two nodes to N ranks: the
kernels of a layer are split in groups over the ranks; each rank convolves the whole input with
its group's kernels (OpenBLAS sgemm or dgemm, one thread per rank), --chunk rows of
the maps at a time, and puts each block with a signal into every other rank's copy of the
layer's maps as soon as it is computed, while the next block is computed (FSHMEM's automatic
result transfer): when the layer ends, every rank holds the concatenated maps, the next
layer's input, without an all-gather. With --layers the next layer's blocks start as soon as
the rows they read have arrived. Verified against the one-rank forward pass, run alternately
with the same algorithm on OpenMPI (MPI_Isend/Irecv per block) and beside one rank's forward
pass in the same run; the speed-up is the peer's time / meshmem's time.
GOPS = 2 KH KW CIN KOUT H W per layer / time; 'same' padding.

kernel sets (--kernels):
  paper   {PAPER_KERNELS} (FSHMEM §V, on 64 x 64 maps)
  small   {SMALL_KERNELS}
  or a comma list of KOUTxKHxKWxCIN"""


def program_args(a, kernels: str, variant: str = "stream") -> list:
    """The command line of the conv program (or its twin) for one kernel shape."""
    return ["-v", variant, "-m", a.maps, "-k", kernels, "-l", a.layers, "-b", a.chunk,
            "-p", a.precision, "-i", a.iters]


def heap_for(a, kernels: str) -> int:
    """The symmetric heap of a run of @p kernels; UsageError with the program's reason."""
    return program_heap("conv", program_args(a, kernels), 1)


def measure(a, launch: Launch, log=print) -> tuple[list, list]:
    """Every (shape, rank count) against its MPI twin, and one rank's forward pass once per
    shape."""
    notes, rows = [], []
    if launch.fabric:
        notes.append(f"fabric s: one run per shape and rank count traced and replayed on "
                     f"{launch.fabric.rsplit('/', 1)[-1]} (the gemms at the fabric's [compute] "
                     "rates, the streamed blocks as its puts); OpenMPI is not modelled")
    for kernels in a.kernel_list:
        heap = heap_for(a, kernels)
        serial = None
        if "serial" in a.baselines:
            serial = launch.meshmem("conv", program_args(a, kernels, "serial"), "conv",
                                    heap=heap, ranks=1)[0]
        for ranks in a.scale:
            sides = {"conv": lambda: launch.meshmem("conv", program_args(a, kernels), "conv",
                                                    heap=heap, ranks=ranks)[0]}
            if "openmpi" in a.baselines:
                sides["mpi"] = lambda: launch.openmpi("conv_mpi", program_args(a, kernels),
                                                      "conv", ranks=ranks)[0]
            got = alternate(a.rounds, sides)
            log(f"  conv {kernels}: {counted(ranks, 'rank')}, {counted(a.rounds, 'round')} "
                f"done", file=sys.stderr)
            row = measured_row(got["conv"], ("kernels", "maps", "layers", "chunk", "prec",
                                             "ranks"), "GOPS", got.get("mpi"), serial)
            if launch.fabric and ranks <= a.fabric_nodes:
                fl = Launch(**{**launch.__dict__, "ranks": ranks})
                frows, pred = fl.on_fabric("conv", once(program_args(a, kernels)), "conv",
                                           heap=heap)
                add_prediction(row, pred, frows, phase="conv")
                row["predicted_GOPS"] = row["GOPS"] * row["seconds"] / row["predicted_s"]
            rows.append(row)
    return rows, notes


def print_table(rows: list, out=None):
    """One line per (shape, ranks): time, GOPS, the speed-ups over OpenMPI and one rank."""
    print_rate_table(rows, [("kernels", "kernels", -16), ("ranks", "ranks", 6)], out=out)


def summary(rows: list) -> list[str]:
    """One line per row: GOPS and the speed-ups, with units."""
    return rate_summary(rows, lambda r: f"conv {r['kernels']} on {r['maps']} maps, {r['ranks']} ranks")


def plot(rows: list, path: str, title: str = ""):
    """FSHMEM's Fig. 7 for convolution: GOPS per kernel shape, meshmem and OpenMPI at each rank
    count beside one rank."""
    fig, ax = plots.pyplot().subplots(figsize=(6.5, 4))
    shapes = list(dict.fromkeys(r["kernels"] for r in rows))
    counts = sorted({r["ranks"] for r in rows})
    bars = [("1 rank", lambda r: r.get("serial_seconds"), counts[:1])]
    for n in counts:
        bars.append((f"meshmem, {n} ranks", lambda r: r["seconds"], [n]))
        bars.append((f"OpenMPI, {n} ranks", lambda r: r.get("mpi_seconds"), [n]))
    width = 0.8 / len(bars)
    for i, (label, seconds, at) in enumerate(bars):
        xs, ys = [], []
        for k, shape in enumerate(shapes):
            r = next((r for r in rows if r["kernels"] == shape and r["ranks"] in at), None)
            if r and seconds(r):
                xs.append(k + (i - (len(bars) - 1) / 2) * width)
                ys.append(r["GOPS"] * r["seconds"] / seconds(r))
        if ys:
            ax.bar(xs, ys, width, label=label)
    ax.set_xticks(range(len(shapes)), [s.replace("x", " of ", 1) for s in shapes], fontsize=8)
    ax.set_xlabel("kernels (KOUT of KH x KW x CIN)")
    ax.set_ylabel("GOPS (2 KH KW CIN KOUT H W / time)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    plots.finish(fig, path, title)


def kernel_list(text: str) -> list[str]:
    """The shapes of --kernels: a named set or a comma list of KOUTxKHxKWxCIN (UsageError
    naming the entry that is not one)."""
    shapes = options.comma_list(KERNEL_SETS.get(text, text))
    for s in shapes:
        parts = s.split("x")
        if len(parts) != 4 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise UsageError(f"--kernels {text}: {s} is not KOUTxKHxKWxCIN (e.g. 256x3x3x256), "
                             f"nor one of {', '.join(KERNEL_SETS)}")
    if not shapes:
        raise UsageError(f"--kernels {text}: no kernel shape")
    return shapes


class ConvCommand(AppCommand):
    """`meshmem conv` on the application harness."""
    name = "conv"
    baselines = ("openmpi", "serial")
    default_rounds = 3
    description = DESCRIPTION
    plot_what = "GOPS per kernel shape"
    examples = ("meshmem conv --ranks 2",
                "meshmem conv --ranks 2 --kernels small --maps 32 --layers 4",
                "meshmem conv --scale 1,2,4 --kernels 64x3x3x64 --plot conv.png",
                "meshmem conv --ranks 2 --kernels small --fabric datavortex-8node --vs none")

    def add_app_arguments(self, p):
        p.add_argument("--kernels", default="paper", metavar="SET|LIST",
                       help="paper, small, or a comma list of KOUTxKHxKWxCIN (default paper: "
                            f"{PAPER_KERNELS})")
        p.add_argument("--maps", default="64", metavar="N|HxW",
                       help="input maps, square or HxW (default 64, the paper's)")
        p.add_argument("--layers", type=int, default=1, metavar="N",
                       help="chained layers of each shape, each one's maps the next one's "
                            "input; needs KOUT = CIN (default 1)")
        p.add_argument("--chunk", type=int, default=8, metavar="ROWS",
                       help="rows of the maps per streamed block (default 8)")
        p.add_argument("--precision", default="single", metavar="single|double",
                       help="sgemm or dgemm (default single)")
        p.add_argument("--iters", type=int, default=3, metavar="N",
                       help="timed passes per program; the median is kept (default 3)")
        options.add_scale(p)

    def check(self, a):
        a.kernel_list = kernel_list(a.kernels)
        a.scale = options.rank_counts("--scale", a.scale, a.ranks)
        if a.precision not in ("single", "double"):
            raise UsageError(f"--precision {a.precision}: single or double")
        options.at_least("--layers", a.layers, 1)
        options.at_least("--chunk", a.chunk, 1)
        options.at_least("--iters", a.iters, 1)
        a.fabric_nodes = 0
        if a.fabric:
            from meshmem.model import load_fabric
            a.fabric_nodes = load_fabric(a.fabric).nodes
        for k in a.kernel_list:
            heap_for(a, k)

    def describe(self, a):
        return (f"; {a.maps} maps, {a.layers} layer(s) per shape, {a.precision} precision, "
                f"{blas.header('conv')}")

    def title(self, a, rows):
        return f"convolution on {rows[0]['maps']} maps: meshmem against OpenMPI and one rank"

    def settings(self, a):
        return {"kernels": a.kernel_list, "maps": a.maps, "layers": a.layers, "chunk": a.chunk,
                "precision": a.precision, "iters": a.iters, "scale": a.scale}

    def footer(self, rows):
        return [speedup_legend("× OpenMPI, × 1 rank",
                               "peer time (the same algorithm on OpenMPI, one rank's forward "
                               "pass)"),
                "# error: max |maps - one-rank maps| / max |one-rank maps|; "
                "GOPS = 2 KH KW CIN KOUT H W per layer / time"]


COMMAND = ConvCommand(measure, print_table, plot)
