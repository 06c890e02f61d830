#!/usr/bin/env python3
"""Plots of `meshmem bench am --json FILE` results in FSHMEM's form (FSHMEM):

  am-fig5.png    put and get bandwidth (MB/s) against transfer size (4 B .. 2 MiB), one line per
                 fragment ("packet") size 128, 256, 512, 1024 B and unfragmented, with the
                 direct put/get of the same runs (FSHMEM Fig. 5)
  am-stream.png  stream throughput against N (elements per signal), one element per push and
                 N per push, with one put_signal of the same data, per transfer size

and prints the tables of docs/results-am.md (Markdown) computed from the same JSON, the
active messages' targets included (2 ranks, such as the short AM round trip against MPI's
ping-pong; median over rounds, the best round beside it).

usage: bench/am_plot.py RESULTS.json [MORE.json ...] OUTDIR
(rows of all files together; for the same op and size the earlier file's row is used)
"""
import json
import sys
from pathlib import Path


def _row(rows, op, size):
    for r in rows:
        if r["op"] == op and r["bytes"] == size:
            return r
    return None


def _best_ratio(r):
    """the lowest per-round ratio meshmem / baseline (rounds ran back to back in pairs)"""
    pairs = zip(r.get("meshmem_rounds_us", []), r.get("baseline_rounds_us", []))
    vals = [m / b for m, b in pairs if b > 0]
    return min(vals) if vals else None


def _stream_n(r):
    """N of a stream row (stream_nN or stream_nN_batch)"""
    return r.get("batch_n") or int(r["op"][8:].split("_")[0])


def _stream_form(r):
    """'element' (one per call) or 'batch' (N per call)"""
    return r.get("push") or ("batch" if r["op"].endswith("_batch") else "element")


def tables(rows):
    """Markdown tables: Fig. 5 bandwidth, Table III latency, AM round trip and rate, streams,
    and the targets."""
    out = []
    sizes = sorted({r["bytes"] for r in rows if r["op"] == "am_put"})
    for kind in ("put", "get"):
        out.append(f"\n**{kind.upper()} bandwidth, MB/s (median of rounds)**\n")
        out.append("| bytes | direct | " + " | ".join(
            ["AM unfragmented"] + [f"AM {f} B" for f in (128, 256, 512, 1024)]) + " |")
        out.append("|---:" * 7 + "|")
        for s in sizes:
            base = _row(rows, f"am_{kind}", s)
            cells = [f"{s / base['baseline_us']:.0f}" if base and base["baseline_us"] else "-"]
            for f in ("", "_f128", "_f256", "_f512", "_f1024"):
                r = _row(rows, f"am_{kind}{f}", s)
                cells.append(f"{s / r['meshmem_us']:.0f}" if r else "-")
            out.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append("\n**Latency, us (Table III; median of rounds)**\n")
    out.append("| operation | 16 B (short) | 4 KiB | 1 MiB |")
    out.append("|---|---:|---:|---:|")
    for label, op, base in (("direct put + quiet", "am_put", True), ("AM put + quiet", "am_put",
                            False), ("direct get", "am_get", True), ("AM get", "am_get", False)):
        cells = []
        for s in (16, 4096, 1 << 20):
            r = _row(rows, op, s) or _row(rows, op, 4)
            v = None if r is None else (r["baseline_us"] if base else r["meshmem_us"])
            cells.append("-" if v is None else f"{v:.3f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("\n**AM round trip and rate**\n")
    out.append("| measure | bytes | meshmem us | MPI us | ratio (median) | best round ratio |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for r in sorted((r for r in rows if r["op"] == "am_pingpong"), key=lambda r: r["bytes"]):
        best = _best_ratio(r)
        out.append(f"| AM ping-pong, half round trip | {r['bytes']} | {r['meshmem_us']:.3f} | "
                   f"{r['baseline_us']:.3f} | {r['ratio']:.2f} | "
                   f"{'-' if best is None else format(best, '.2f')} |")
    rate = _row(rows, "am_rate", 8)
    if rate:
        out.append(f"| AM SHORT message rate | 8 | {rate['meshmem_us']:.3f} us/msg "
                   f"({1 / rate['meshmem_us']:.2f} M msg/s) | - | - | - |")
    streams = [r for r in rows if r["op"].startswith("stream_n")]
    ssz = sorted({r["bytes"] for r in streams})
    ns = sorted({_stream_n(r) for r in streams})
    forms = [f for f in ("element", "batch") if any(_stream_form(r) == f for r in streams)]
    for form in forms:
        what = ("one element per call (meshmem_stream_push1)" if form == "element"
                else "N elements per call (meshmem_stream_push)")
        sfx = "" if form == "element" else "_batch"
        out.append(f"\n**Streams, {what}: time per transfer, us (median), against one "
                   f"put_signal**\n")
        out.append("| bytes | one put_signal | " + " | ".join(f"N = {n}" for n in ns) + " |")
        out.append("|---:" * (2 + len(ns)) + "|")
        for s in ssz:
            base = next((r for r in streams if r["bytes"] == s and r["baseline_us"]), None)
            cells = [f"{base['baseline_us']:.2f}" if base else "-"]
            for n in ns:
                r = _row(rows, f"stream_n{n}{sfx}", s)
                cells.append(f"{r['meshmem_us']:.2f} ({r['ratio']:.1f}x)" if r and r["ratio"]
                             else "-")
            out.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append("\n**Targets (2 ranks)**\n")
    out.append("| target | measured (median) | best round | met |")
    out.append("|---|---:|---:|---|")
    pp = _row(rows, "am_pingpong", 8)
    if pp and pp["ratio"]:
        b = _best_ratio(pp)
        out.append(f"| short AM round trip <= 0.5 x MPI ping-pong (8 B) | {pp['ratio']:.2f} x | "
                   f"{b:.2f} x | {'yes' if pp['ratio'] <= 0.5 else 'no'} |")
    ap = _row(rows, "am_put", 1 << 20)
    if ap and ap["ratio"]:
        b = _best_ratio(ap)
        out.append(f"| AM put bandwidth at 1 MiB >= 50 % of direct put | {100 / ap['ratio']:.0f} %"
                   f" | {100 / b:.0f} % | {'yes' if 1 / ap['ratio'] >= 0.5 else 'no'} |")
    for sfx, what in (("_batch", "pushes of N"), ("", "one element per push")):
        for s in ssz:
            st = _row(rows, f"stream_n64{sfx}", s)
            if st and st["ratio"]:
                b = _best_ratio(st)
                out.append(f"| stream N = 64 float32 ({what}) within 2 x of one put ({s} B) | "
                           f"{st['ratio']:.1f} x | {b:.1f} x | "
                           f"{'yes' if st['ratio'] <= 2 else 'no'} |")
    return "\n".join(out)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, seen = [], set()
    for f in argv[1:-1]:  # a row of an earlier file wins over the same (op, bytes) later
        for r in json.loads(Path(f).read_text())["results"]:
            if (r["op"], r["bytes"]) not in seen:
                seen.add((r["op"], r["bytes"]))
                rows.append(r)
    out = Path(argv[-1])
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
            color = None
            for form, style in (("element", "o-"), ("batch", "s:")):
                pts = sorted(((_stream_n(r), r) for r in streams
                              if r["bytes"] == size and _stream_form(r) == form),
                             key=lambda p: p[0])
                if not pts:
                    continue
                line, = ax.plot([p[0] for p in pts], [size / p[1]["meshmem_us"] for p in pts],
                                style, color=color,
                                label=f"{size} B, {'1' if form == 'element' else 'N'} per push")
                color = line.get_color()
            base = [r["baseline_us"] for r in streams if r["bytes"] == size and r["baseline_us"]]
            if base:
                ax.axhline(size / sorted(base)[len(base) // 2], ls="--", lw=0.8,
                           color=color, label=f"one put_signal, {size} B")
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
    print(tables(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
