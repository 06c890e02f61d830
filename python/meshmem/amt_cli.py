"""`meshmem amt`: the asynchronous many-task traffic of DataVortex §4 against MPI, in the same
run.

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

from meshmem import bench
from meshmem import plot as plots
from meshmem.app_command import AppCommand, Launch, UsageError, add_prediction, alternate, median

PARTS = ("fig2", "kernel")
MESH = ("put", "am")            # meshmem's forms of (a)
TWIN = ("alltoall", "isend")    # MPI's


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
        log(f"  amt fig2: {a.rounds} rounds done")
        for v in MESH:
            for i, m in enumerate(a.counts):
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
        log(f"  amt kernel: {a.rounds} rounds done")
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
    a2a = [r for r in rows if r["variant"] != "kernel"]
    fabric = any("predicted_s" in r for r in rows)
    if a2a:
        head = (f"{'variant':<8}{'ranks':>6}{'messages':>10}{'meshmem s':>11}{'Mmsg/s':>9}"
                f"{'fabric s' if fabric else '':>10}"
                f"{'Alltoall Mmsg/s':>16}{'× Alltoall':>11}{'Isend Mmsg/s':>13}{'× Isend':>9}"
                f"{'ok':>4}")
        print(head, file=out)
        print("-" * len(head), file=out)
        for r in a2a:
            ok = all(r.get(k, 1) == 1 for k in ("verified", "alltoall_verified",
                                               "isend_verified"))
            print(f"{r['variant']:<8}{r['ranks']:>6}{r['messages']:>10}{r['seconds']:>11.6f}"
                  f"{r['Mmsgs']:>9.2f}"
                  f"{bench.fmt_optional(r.get('predicted_s'), '.3g') if fabric else '':>10}"
                  f"{bench.fmt_optional(r.get('alltoall_Mmsgs'), '.2f'):>16}"
                  f"{bench.fmt_optional(r.get('speedup_vs_alltoall'), '.2f'):>11}"
                  f"{bench.fmt_optional(r.get('isend_Mmsgs'), '.2f'):>13}"
                  f"{bench.fmt_optional(r.get('speedup_vs_isend'), '.2f'):>9}"
                  f"{'yes' if ok else 'NO':>4}", file=out)
    for r in rows:
        if r["variant"] == "kernel":
            ok = r["verified"] == 1 and r.get("mpi_verified", 1) == 1
            line = (f"kernel: {r['tasks']} tasks ({r['messages']} messages) on {r['ranks']} ranks "
                    f"in {r['seconds'] * 1e3:.2f} ms, {r['Mtasks']:.2f} Mtasks/s, "
                    f"{r['rounds']} detection rounds")
            if "mpi_seconds" in r:
                line += (f"; MPI {r['mpi_seconds'] * 1e3:.2f} ms ({r['mpi_Mtasks']:.2f} Mtasks/s):"
                         f" {r['speedup_vs_openmpi']:.2f} × faster")
            if "predicted_s" in r:
                line += f"; fabric {r['predicted_s'] * 1e3:.3g} ms"
            print(f"{line}; verified: {'yes' if ok else 'NO'}", file=out)


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
    """'64,1K,16K' -> [64, 1024, 16384]."""
    return [bench.parse_size(t) for t in text.split(",") if t.strip()]


class AmtCommand(AppCommand):
    """`meshmem amt` on the application harness."""
    name = "amt"
    baselines = ("openmpi",)
    examples = ("meshmem amt --ranks 2",
                "meshmem amt --ranks 8 --messages 64,1K,16K,256K --plot amt.png",
                "meshmem amt --part kernel --tasks 10000 --depth 12")

    def add_app_arguments(self, p):
        p.add_argument("--part", default="fig2,kernel",
                       help="fig2 (the 8-byte all-to-all), kernel, or both (default both)")
        p.add_argument("--messages", default="64,1K,16K,64K",
                       help="fig2: 8-byte messages per rank, comma-separated (default "
                            "64,1K,16K,64K)")
        p.add_argument("--tasks", type=int, default=2000,
                       help="kernel: initial tasks per rank (default 2000)")
        p.add_argument("--depth", type=int, default=10,
                       help="kernel: their time to live, 0..255 (default 10)")
        p.add_argument("--iters", type=int, default=5, help="timed runs per program (median)")
        p.add_argument("--seed", type=int, default=1)

    def check(self, a):
        a.parts = [t.strip() for t in a.part.split(",") if t.strip()]
        if not a.parts or any(t not in PARTS for t in a.parts):
            raise UsageError(f"--part {a.part}: fig2, kernel or both comma-separated")
        try:
            a.counts = parse_counts(a.messages)
        except ValueError:
            raise UsageError(f"--messages {a.messages}: counts, e.g. 64,1K,16K") from None
        if not a.counts or min(a.counts) < 0:
            raise UsageError(f"--messages {a.messages}: counts of at least 0")
        if a.tasks < 0 or not 0 <= a.depth <= 255:
            raise UsageError(f"--tasks {a.tasks} --depth {a.depth}: tasks at least 0, depth "
                             "0..255")
        if a.iters < 1:
            raise UsageError(f"--iters {a.iters}: at least 1")

    def describe(self, a):
        return f", {'+'.join(a.parts)}"

    def settings(self, a):
        return {"parts": a.parts, "messages": a.counts, "tasks": a.tasks, "depth": a.depth,
                "iters": a.iters}

    def footer(self, rows):
        return ["# × Alltoall, × Isend, × faster: MPI time / meshmem time (speed-up: above 1 "
                "meshmem is faster); Mmsg/s: messages of all ranks per second / 1e6"]

    def measure(self, a, launch):
        return measure(a, launch)

    def print_table(self, rows, out=None):
        print_table(rows, out)

    def plot(self, rows, path, title=""):
        plot(rows, path, f"all-to-all of 8-byte messages, {rows[0]['ranks']} ranks")


COMMAND = AmtCommand()
add_arguments = COMMAND.add_arguments
run = COMMAND.run
