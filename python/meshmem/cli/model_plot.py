"""PNG plots of sweeps in the style of OPTWEB (JOCN 2022): log-log throughput against size
(Fig. 9), normalized system throughput against degree (Figs 12, 19), time against node count.
Sizes on the axes and in the labels as users write them (8, 1K, 64K, 1M), times in µs."""
from __future__ import annotations

import re
from pathlib import Path

from meshmem.cli.plot import size_axis
from meshmem.cli.report import format_size

TITLES = {
    "fig9": "All-to-all aggregate throughput (cf. OPTWEB (JOCN 2022) Fig. 9)",
    "fig12": "Normalized system throughput for all-to-all, FC and GHC "
             "(cf. OPTWEB (JOCN 2022) Fig. 12)",
    "fig19": "Normalized system throughput for sharing averaged parameters "
             "(cf. OPTWEB (JOCN 2022) Fig. 19)",
    "nodes": "Collective time against network size",
}
SIZE_X = {"fig9"}  # figures whose x axis is a size in bytes


def _label(text: str) -> str:
    """An axis label as users read it: '(us)' -> '(µs)', '1048576 B' -> '1M bytes'."""
    text = text.replace("(us)", "(µs)")
    return re.sub(r"\b(\d+) B\b", lambda m: f"{format_size(int(m.group(1)))} bytes", text)


LOG_X = {"fig9": True, "fig12": False, "fig19": False, "nodes": True}
LOG_Y = {"fig9": True, "fig12": False, "fig19": False, "nodes": True}


def write_plots(series: list[dict], outdir: str | Path) -> list[Path]:
    """One PNG per figure key found in `series`; returns the written paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for fig in dict.fromkeys(s["figure"] for s in series):
        group = [s for s in series if s["figure"] == fig]
        f, ax = plt.subplots(figsize=(6.4, 4.4))
        markers = "os^dvx+*"
        for i, s in enumerate(group):
            ax.plot(s["x"], s["y"], marker=markers[i % len(markers)], markersize=3.5, linewidth=1.2,
                    label=s["label"])
        if fig in SIZE_X:
            size_axis(ax, [x for s in group for x in s["x"]], _label(group[0]["x_label"]))
        else:
            if LOG_X.get(fig):  # node counts written out: 4, 16, 64, ...
                from matplotlib.ticker import FuncFormatter
                ax.set_xscale("log", base=2)
                ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}"))
            ax.set_xlabel(_label(group[0]["x_label"]))
        if LOG_Y.get(fig):
            ax.set_yscale("log")
        ax.set_ylabel(_label(group[0]["y_label"]))
        ax.set_title(TITLES.get(fig, fig), fontsize=9)
        ax.grid(True, which="both", linewidth=0.3, alpha=0.6)
        ax.legend(fontsize=8)
        f.tight_layout()
        path = out / f"{fig}.png"
        f.savefig(path, dpi=120)
        plt.close(f)
        written.append(path)
    return written
