#!/usr/bin/env python3
"""Plots of `meshmem bench am --json FILE` results in FSHMEM's form (seed 003):

  am-fig5.png    put and get bandwidth (MB/s) against transfer size (4 B .. 2 MiB), one line per
                 fragment ("packet") size 128, 256, 512, 1024 B and unfragmented, with the
                 direct put/get of the same runs (FSHMEM Fig. 5)
  am-stream.png  stream throughput against N (elements per signal), with one put_signal of the
                 same data, per transfer size

usage: bench/am_plot.py RESULTS.json OUTDIR
"""
import json
import sys
from pathlib import Path


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = json.loads(Path(argv[1]).read_text())["results"]
    out = Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, kind in zip(axes, ("put", "get")):
        direct = None
        for frag in ("", "_f128", "_f256", "_f512", "_f1024"):
            mine = sorted((r for r in rows if r["op"] == f"am_{kind}{frag}"),
                          key=lambda r: r["bytes"])
            if not mine:
                continue
            x = [r["bytes"] for r in mine]
            ax.plot(x, [r["bytes"] / r["meshmem_us"] for r in mine], "o-", ms=3,
                    label=f"AM, {frag[2:] + ' B packets' if frag else 'unfragmented'}")
            if direct is None and mine[0]["baseline_us"]:
                direct = [(r["bytes"], r["bytes"] / r["baseline_us"]) for r in mine]
        if direct:
            ax.plot([d[0] for d in direct], [d[1] for d in direct], "k--", label=f"direct {kind}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("transfer size (bytes)")
        ax.set_ylabel("bandwidth (MB/s)")
        ax.set_title(f"{kind.upper()} via active messages (cf. FSHMEM Fig. 5)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "am-fig5.png", dpi=110)
    plt.close(fig)

    streams = [r for r in rows if r["op"].startswith("stream_n")]
    if streams:
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for size in sorted({r["bytes"] for r in streams}):
            pts = sorted(((int(r["op"][8:]), r) for r in streams if r["bytes"] == size),
                         key=lambda p: p[0])
            ax.plot([p[0] for p in pts], [size / p[1]["meshmem_us"] for p in pts], "o-",
                    label=f"stream, {size} B")
            base = [p[1]["baseline_us"] for p in pts if p[1]["baseline_us"]]
            if base:
                ax.axhline(size / sorted(base)[len(base) // 2], ls="--", lw=0.8,
                           color=ax.lines[-1].get_color(), label=f"one put_signal, {size} B")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("N (float32 elements per signal)")
        ax.set_ylabel("throughput (MB/s)")
        ax.set_title("Streams: throughput against N")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / "am-stream.png", dpi=110)
        plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
