"""Plots of benchmark results (matplotlib, Agg backend: no display needed)."""
from __future__ import annotations


def plot_latency(rows: list, path: str, title: str = "") -> None:
    """Latency vs message size, log-log, meshmem against its baseline: one panel per operation.

    @p rows are `meshmem bench` result rows; operations with one size (atomic, barrier) show as
    single points, sizes of 0 bytes are drawn at 1 byte (a log axis has no 0). Rows of one op
    with several meshmem algorithms (collectives, `--algo a,b`) draw one line per algorithm
    against the one baseline."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops = list(dict.fromkeys(r["op"] for r in rows))
    ncols = min(3, len(ops))
    nrows = (len(ops) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.6 * nrows), squeeze=False)
    for ax, op in zip(axes.flat, ops):
        mine = sorted((r for r in rows if r["op"] == op), key=lambda r: r["bytes"])
        algos = list(dict.fromkeys(r.get("algo") for r in mine))
        for algo in algos:
            series = [r for r in mine if r.get("algo") == algo]
            label = "meshmem" if algo in (None, "auto") else f"meshmem {algo}"
            ax.plot([max(r["bytes"], 1) for r in series], [r["meshmem_us"] for r in series],
                    "o-", label=label)
        mine = [r for r in mine if r.get("algo") == algos[0]]
        x = [max(r["bytes"], 1) for r in mine]
        base = [(xx, r["baseline_us"]) for xx, r in zip(x, mine) if r["baseline_us"]]
        if base:
            ax.plot([b[0] for b in base], [b[1] for b in base], "s--",
                    label=mine[0]["baseline"])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{op} ({mine[0]['ranks']} ranks)")
        ax.set_xlabel("bytes")
        ax.set_ylabel("latency (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(ops):]:
        ax.set_visible(False)
    finish(fig, path, title)


def finish(fig, path: str, title: str = "", ax=None) -> None:
    """Title (on @p ax when given, else over the figure), tight layout, write @p path, close."""
    import matplotlib.pyplot as plt

    if title:
        if ax is not None:
            ax.set_title(title, fontsize=9)
        else:
            fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
