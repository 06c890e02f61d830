"""`meshmem amt`: the asynchronous many-task traffic of DataVortex §4 against MPI, in the same
run, on the application harness (command.py).

(a) Fig. 2: an all-to-all of 8-byte messages as the messages per rank grow, every message on
its own, no aggregation by the user: meshmem puts (one meshmem_put of 8 bytes each) and active
messages (one SHORT request each), against MPI_Alltoall of 8-byte blocks (one message to each
peer per call) and MPI_Isend/MPI_Irecv of single 8-byte messages (windows of 64, as OSU's
message-rate test). Message rate: the messages of all ranks per second; bandwidth: their bytes.
(b) A message-driven kernel: every arriving 8-byte task is counted and may spawn tasks on ranks
it picks; a counting termination detection ends it; the number of tasks run and their checksum
must equal the precomputed ones. meshmem sends tasks as active messages, MPI as MPI_Isend.
Every slot of (a) and the global counts of (b) are verified.
"""
from __future__ import annotations

import sys

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps.command import AppCommand, Launch, UsageError, add_prediction, alternate, median
from meshmem.cli.apps.programs import counted
from meshmem.cli.report import fmt_optional, format_size, speedup_legend, speedup_phrase

PARTS = ("fig2", "kernel")
MESH = ("put", "am")            # meshmem's forms of (a)
TWIN = ("alltoall", "isend")    # MPI's

DESCRIPTION = """\
The asynchronous many-task traffic of DataVortex (§4), verified, against MPI in the same run:

  fig2    Fig. 2: an all-to-all of 8-byte messages as the messages per rank grow, every message
          on its own, no aggregation by the user: meshmem puts (one meshmem_put of 8 bytes
          each) and active messages (one SHORT request each), against MPI_Alltoall of 8-byte
          blocks (one message to each peer per call) and MPI_Isend/MPI_Irecv of single
          messages (windows of 64, as OSU's message-rate test); every slot is checked
  kernel  a message-driven kernel: every arriving 8-byte task is counted and may spawn tasks
          on ranks it picks, until a counting termination detection ends it; the number of
          tasks run and their checksum must equal the precomputed ones (meshmem: active
          messages, MPI: MPI_Isend)

The speed-up is MPI's time / meshmem's time (above 1: meshmem is faster)."""


def measure(a, launch: Launch, log=print) -> tuple[list, list]:
    """(a) per message count, every meshmem form against every MPI form; (b) the kernel."""
    notes, rows = [], []
    common = ["-i", a.iters, "-s", a.seed]
    if "fig2" in a.parts:
        counts = ",".join(str(c) for c in a.counts)
        sides = {v: (lambda v=v: launch.meshmem("amt", ["-v", v, "-m", counts, *common], "amt"))
                 for v in MESH}
        if "openmpi" in a.baselines:
            for v in TWIN:
                sides[v] = (lambda v=v: launch.openmpi("amt_mpi", ["-v", v, "-m", counts,
                                                                  *common], "amt"))
        got = alternate(a.rounds, sides)
        log(f"  amt fig2: {counted(a.rounds, 'round')} done", file=sys.stderr)
        for v in MESH:
            for i in range(len(a.counts)):
                row = merge(got[v], i)
                for t in TWIN:
                    if t in got:
                        tw = merge(got[t], i)
                        row[f"{t}_seconds"] = tw["seconds"]
                        row[f"{t}_Mmsgs"] = tw["Mmsgs"]
                        row[f"{t}_verified"] = tw["verified"]
                        row[f"speedup_vs_{t}"] = tw["seconds"] / row["seconds"]
                rows.append(row)
    if "kernel" in a.parts:
        args = ["-v", "kernel", "-t", a.tasks, "-d", a.depth, *common]
        sides = {"kernel": lambda: launch.meshmem("amt", args, "amt")}
        if "openmpi" in a.baselines:
            sides["mpi"] = lambda: launch.openmpi("amt_mpi", args, "amt")
        got = alternate(a.rounds, sides)
        log(f"  amt kernel: {counted(a.rounds, 'round')} done", file=sys.stderr)
        row = merge(got["kernel"], 0)
        if "mpi" in got:
            tw = merge(got["mpi"], 0)
            row.update(mpi_seconds=tw["seconds"], mpi_Mtasks=tw["Mtasks"],
                       mpi_verified=tw["verified"], mpi_rounds=tw["rounds"],
                       speedup_vs_openmpi=tw["seconds"] / row["seconds"])
        if launch.fabric:
            frows, pred = launch.on_fabric("amt", ["-v", "kernel", "-t", a.tasks, "-d", a.depth,
                                                   "-i", 1, "-w", 0, "-s", a.seed], "amt")
            add_prediction(row, pred, frows, phase="kernel")
        rows.append(row)
    if launch.fabric and "fig2" in a.parts:
        frows, pred = launch.on_fabric("amt", ["-v", "put", "-m", ",".join(map(str, a.counts)),
                                               "-i", 1, "-w", 0, "-s", a.seed], "amt")
        for row in rows:
            if row["variant"] == "put":
                add_prediction(row, pred, frows, phase=f"amt-{row['messages']}")
        notes.append("fabric s: one traced run replayed on the modelled fabric (meshrun --fabric): "
                     "each 8-byte put as a put on the fabric, the kernel's requests as active "
                     "messages; MPI not modelled")
    return rows, notes


def merge(runs: list, i: int) -> dict:
    """Row @p i of each round's run, medians over the rounds."""
    rs = [run[i] for run in runs]
    row = dict(rs[0])
    row.update(seconds=median(r["seconds"] for r in rs), rounds_s=[r["seconds"] for r in rs],
               verified=int(all(r["verified"] == 1 for r in rs)))
    for k in ("Mmsgs", "Mtasks", "MBps"):
        if k in row:
            row[k] = median(r[k] for r in rs)
    return row


def print_table(rows: list, out=None):
    """(a) one line per (form, count), the MPI forms beside; (b) the kernel."""
    out = out or sys.stdout  # looked up now: a default bound at import goes stale
    a2a = [r for r in rows if r["variant"] != "kernel"]
    fabric = any("predicted_s" in r for r in rows)
    fw = 11 if fabric else 0  # the fabric column only when a fabric was given
    if a2a:
        head = (f"{'variant':<8}{'ranks':>6}{'messages':>10}{'meshmem µs':>12}{'Mmsg/s':>9}"
                f"{'fabric µs' if fabric else '':>{fw}}"
                f"{'Alltoall Mmsg/s':>16}{'× Alltoall':>11}{'Isend Mmsg/s':>13}{'× Isend':>9}"
                f"{'ok':>4}")
        print(head, file=out)
        print("-" * len(head), file=out)
        for r in a2a:
            ok = all(r.get(k, 1) == 1 for k in ("verified", "alltoall_verified",
                                               "isend_verified"))
            pred = r["predicted_s"] * 1e6 if "predicted_s" in r else None
            print(f"{r['variant']:<8}{r['ranks']:>6}{format_size(r['messages']):>10}"
                  f"{r['seconds'] * 1e6:>12.1f}{r['Mmsgs']:>9.2f}"
                  f"{fmt_optional(pred, '.1f') if fabric else '':>{fw}}"
                  f"{fmt_optional(r.get('alltoall_Mmsgs'), '.2f'):>16}"
                  f"{fmt_optional(r.get('speedup_vs_alltoall'), '.2f'):>11}"
                  f"{fmt_optional(r.get('isend_Mmsgs'), '.2f'):>13}"
                  f"{fmt_optional(r.get('speedup_vs_isend'), '.2f'):>9}"
                  f"{'yes' if ok else 'NO':>4}", file=out)
    for r in rows:
        if r["variant"] == "kernel":
            ok = r["verified"] == 1 and r.get("mpi_verified", 1) == 1
            line = (f"kernel: {r['tasks']} tasks ({r['messages']} messages) on {r['ranks']} ranks "
                    f"in {r['seconds'] * 1e3:.2f} ms, {r['Mtasks']:.2f} Mtasks/s, "
                    f"{r['rounds']} detection rounds")
            if "mpi_seconds" in r:
                line += (f"; MPI {r['mpi_seconds'] * 1e3:.2f} ms ({r['mpi_Mtasks']:.2f} Mtasks/s):"
                         f" {speedup_phrase(r['speedup_vs_openmpi'], 'MPI')}")
            if "predicted_s" in r:
                line += f"; fabric {r['predicted_s'] * 1e3:.3g} ms"
            print(f"{line}; verified: {'yes' if ok else 'NO'}", file=out)


def summary(rows: list) -> list[str]:
    """The largest count's puts against MPI, and the kernel against MPI, with units."""
    lines = []
    puts = [r for r in rows if r["variant"] == "put"]
    if puts:
        r = max(puts, key=lambda r: r["messages"])
        parts = [speedup_phrase(r.get(f"speedup_vs_{t}"), peer) for t, peer in
                 (("isend", "MPI_Isend"), ("alltoall", "MPI_Alltoall"))
                 if r.get(f"speedup_vs_{t}")]
        lines.append(f"{format_size(r['messages'])} 8-byte puts per rank: {r['Mmsgs']:.1f} "
                     f"Mmsg/s" + "".join(f", {p}" for p in parts))
    for r in rows:
        if r["variant"] == "kernel":
            line = f"message-driven kernel: {r['Mtasks']:.2f} Mtasks/s"
            if r.get("speedup_vs_openmpi"):
                line += (f", {speedup_phrase(r['speedup_vs_openmpi'], 'the same kernel on MPI')}")
            lines.append(line)
    return lines


def plot(rows: list, path: str, title: str = ""):
    """DataVortex Fig. 2: all-to-all bandwidth of 8-byte messages against the messages per
    rank, and the message rate; meshmem's forms against MPI's."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    a2a = [r for r in rows if r["variant"] != "kernel" and r["messages"] > 0]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
    series = {}
    for v in MESH:
        pts = [(r["messages"], r["Mmsgs"]) for r in a2a if r["variant"] == v]
        if pts:
            series[f"meshmem {'put' if v == 'put' else 'active message'}"] = pts
    for t, label in (("alltoall", "MPI_Alltoall (8-byte blocks)"),
                     ("isend", "MPI_Isend/Irecv")):
        pts = [(r["messages"], r[f"{t}_Mmsgs"]) for r in a2a
               if r["variant"] == "put" and f"{t}_Mmsgs" in r]
        if pts:
            series[label] = pts
    for label, pts in series.items():
        style = "o-" if label.startswith("meshmem") else "s--"
        ax.plot([p[0] for p in pts], [8 * p[1] for p in pts], style, label=label)
        bx.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    for a_, lab in ((ax, "all-to-all bandwidth (MB/s)"), (bx, "message rate (Mmsg/s)")):
        a_.set_xscale("log", base=2)
        a_.set_yscale("log")
        a_.set_xlabel("8-byte messages per rank")
        a_.set_ylabel(lab)
        a_.grid(True, which="both", alpha=0.3)
        a_.legend(fontsize=8)
    plots.finish(fig, path, title)


def parse_counts(text: str) -> list[int]:
    """--messages '64,1K,16K' -> [64, 1024, 16384]; UsageError naming the option."""
    try:
        return [options.parse_size(t, "--messages") for t in options.comma_list(text)]
    except UsageError:
        raise UsageError(f"--messages {text}: counts, e.g. 64,1K,16K") from None


class AmtCommand(AppCommand):
    """`meshmem amt` on the application harness."""
    name = "amt"
    baselines = ("openmpi",)
    description = DESCRIPTION
    plot_what = "DataVortex Fig. 2: the all-to-all's bandwidth and message rate"
    examples = ("meshmem amt --ranks 2",
                "meshmem amt --ranks 8 --messages 64,1K,16K,256K --plot amt.png",
                "meshmem amt --part kernel --tasks 10000 --depth 12")

    def add_app_arguments(self, p):
        p.add_argument("--part", default="fig2,kernel", metavar="LIST",
                       help="fig2, kernel, or both comma-separated (listed above; default both)")
        p.add_argument("--messages", default="64,1K,16K,64K", metavar="LIST",
                       help="fig2: 8-byte messages per rank, comma-separated (default "
                            "64,1K,16K,64K)")
        p.add_argument("--tasks", type=int, default=2000, metavar="N",
                       help="kernel: initial tasks per rank (default 2000)")
        p.add_argument("--depth", type=int, default=10, metavar="TTL",
                       help="kernel: the tasks' time to live, 0..255 (default 10)")
        p.add_argument("--iters", type=int, default=5, metavar="N",
                       help="timed runs per program; the median is kept (default 5)")
        p.add_argument("--seed", type=int, default=1, help="seed of the kernel's choices "
                                                           "(default 1)")

    def check(self, a):
        a.parts = options.comma_list(a.part)
        if not a.parts or any(t not in PARTS for t in a.parts):
            raise UsageError(f"--part {a.part}: fig2, kernel or both comma-separated")
        a.counts = parse_counts(a.messages)
        if not a.counts:
            raise UsageError(f"--messages {a.messages}: no count given")
        options.at_least("--tasks", a.tasks, 0)
        if not 0 <= a.depth <= 255:
            raise UsageError(f"--depth {a.depth}: 0 to 255")
        options.at_least("--iters", a.iters, 1)

    def describe(self, a):
        return f"; {' and '.join(a.parts)}"

    def title(self, a, rows):
        return f"all-to-all of 8-byte messages (DataVortex Fig. 2): {a.ranks} ranks"

    def settings(self, a):
        return {"parts": a.parts, "messages": a.counts, "tasks": a.tasks, "depth": a.depth,
                "iters": a.iters}

    def footer(self, rows):
        return [speedup_legend("× Alltoall, × Isend", "MPI time (MPI_Alltoall, MPI_Isend)"),
                "# the kernel's speed-up likewise: MPI time / meshmem time",
                "# Mmsg/s: the messages of all ranks per second / 1e6"]


COMMAND = AmtCommand(measure, print_table, plot)
