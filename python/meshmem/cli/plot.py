"""Plots of benchmark results (matplotlib, Agg backend: no display needed).

Every plot the tool draws follows the same rules: sizes on the axes as users write them (8, 1K,
64K, 1M), times in µs, one title over the figure, a legend that names each runtime, and
operations without a size (an atomic, a barrier) as bars on a panel of their own rather than as
points at "1 byte" of a log axis.
"""
from __future__ import annotations

from meshmem.cli.report import format_size, peer_name

MESHMEM_COLOR, PEER_COLOR = "tab:blue", "tab:orange"
# several meshmem series on one axis (algorithms, topologies): every colour but the peer's
MESHMEM_COLORS = ("tab:blue", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:cyan",
                  "tab:olive", "tab:pink")


def pyplot():
    """matplotlib.pyplot on the Agg backend."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def size_ticks(sizes) -> list[int]:
    """The ticks of a size axis: the measured @p sizes themselves when they are at most 8 and
    each at least 4 times the one before; else powers of two from the smallest to the largest,
    every 1st, 2nd, 3rd... exponent so that at most 8 remain (8, 64, 512, 4K, ..., 1M). Both
    ends labelled, never two labels on top of each other."""
    pos = sorted(set(s for s in sizes if s > 0))
    if not pos:
        return []
    if len(pos) <= 8 and all(b >= 4 * a for a, b in zip(pos, pos[1:])):
        return pos
    lo, hi = min(pos).bit_length() - 1, max(pos).bit_length() - 1
    if lo == hi:
        return [1 << lo]
    step = 1
    while (hi - lo) // step + 1 > 8:
        step += 1
    exps = list(range(lo, hi + 1, step))
    if exps[-1] != hi:  # the largest size is labelled too, in place of a tick too close to it
        exps[-1 if hi - exps[-1] < step / 2 else len(exps):] = [hi]
    return [1 << e for e in exps]


def size_axis(ax, sizes, label: str = "bytes") -> None:
    """A log2 x axis with sizes written as 8, 1K, 64K, 1M (size_ticks)."""
    from matplotlib.ticker import FixedLocator, NullLocator
    ticks = size_ticks(sizes)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([format_size(t) for t in ticks])
    ax.set_xlabel(label)


def _sized_panel(ax, op: str, mine: list) -> None:
    """Latency against size for one operation: one line per meshmem algorithm, one for the peer."""
    algos = list(dict.fromkeys(r.get("algo") for r in mine))
    for algo in algos:
        series = [r for r in mine if r.get("algo") == algo]
        label = "meshmem" if algo in (None, "auto") else f"meshmem, {algo}"
        ax.plot([r["bytes"] for r in series], [r["meshmem_us"] for r in series], "o-",
                label=label, markersize=4,
                color=MESHMEM_COLORS[algos.index(algo) % len(MESHMEM_COLORS)])
    first = [r for r in mine if r.get("algo") == algos[0]]
    base = [r for r in first if r["baseline_us"]]
    if base:
        ax.plot([r["bytes"] for r in base], [r["baseline_us"] for r in base], "s--",
                label=peer_name(base[0]["baseline"]), markersize=4, color=PEER_COLOR)
    size_axis(ax, [r["bytes"] for r in mine])
    ax.set_yscale("log")
    ax.set_title(op, fontsize=10)
    ax.set_ylabel("latency (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def _unsized_panel(ax, rows: list) -> None:
    """Operations without a size (atomic, barrier): meshmem's and the peer's time as bars."""
    names = [r["op"] for r in rows]
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], [r["meshmem_us"] for r in rows], 0.4, label="meshmem",
           color=MESHMEM_COLOR)
    peers = list(dict.fromkeys(r["baseline"] for r in rows if r["baseline_us"]))
    if peers:
        ax.bar([i + 0.2 for i in x], [r["baseline_us"] or 0 for r in rows], 0.4,
               label=" / ".join(peer_name(p) for p in peers), color=PEER_COLOR)
    for i, r in enumerate(rows):
        for dx, v in ((-0.2, r["meshmem_us"]), (0.2, r["baseline_us"])):
            if v:
                ax.annotate(f"{v:.3g}", (i + dx, v), ha="center", va="bottom", fontsize=7)
    values = [v for r in rows for v in (r["meshmem_us"], r["baseline_us"]) if v]
    if max(values) > 30 * min(values):  # both runtimes' bars stay visible
        ax.set_yscale("log")
        ax.set_ylim(min(values) / 4, max(values) * 3)
    ax.set_xticks(list(x))
    ax.set_xticklabels(names)
    ax.set_title("operations without a size", fontsize=10)
    ax.set_ylabel("time per call (µs)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)


def plot_latency(rows: list, path: str, title: str = "") -> None:
    """`meshmem bench` result rows as one figure: a latency-against-size panel per operation
    with sizes (one line per meshmem algorithm with `--algo a,b`, one for the peer), and one bar
    panel for the operations without a size."""
    plt = pyplot()
    unsized_ops = [op for op in dict.fromkeys(r["op"] for r in rows)
                   if all(r["op"] != op or not r.get("sized", r["bytes"] > 0) for r in rows)]
    sized_ops = [op for op in dict.fromkeys(r["op"] for r in rows) if op not in unsized_ops]
    panels = len(sized_ops) + (1 if unsized_ops else 0)
    ncols = min(3, panels)
    nrows = (panels + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.8 * ncols, 3.8 * nrows), squeeze=False)
    flat = list(axes.flat)
    for ax, op in zip(flat, sized_ops):
        _sized_panel(ax, op, sorted((r for r in rows if r["op"] == op),
                                    key=lambda r: r["bytes"]))
    if unsized_ops:
        _unsized_panel(flat[len(sized_ops)],
                       [next(r for r in rows if r["op"] == op) for op in unsized_ops])
    for ax in flat[panels:]:
        ax.set_visible(False)
    finish(fig, path, title)


def finish(fig, path: str, title: str = "", ax=None) -> None:
    """Title (on @p ax when given, else over the figure), tight layout, write @p path, close."""
    plt = pyplot()
    if title:
        if ax is not None:
            ax.set_title(title, fontsize=10)
        else:
            fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
