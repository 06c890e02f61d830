"""`meshmem sort`: the distributed counting sort of OPTWEB (JOCN 2022) and of the OPTWEB sort
report (IPSJ), and the LSD radix sort, each against the same algorithm on OpenMPI and a serial
sort of the same data, in the same run, on the application harness (command.py).

Baselines: OpenMPI runs the a3 flow (MPI_Alltoallv; radix: once per digit); the single pass has
no MPI form, since MPI_Alltoallv needs every count first. The serial baseline is a counting sort
(histogram + scatter) for K key types, an 11-bit LSD radix sort for full-width keys.
--fabric FILE adds one more meshmem run of each variant under `meshrun --fabric` (one timed
sort, no warm-up): the program runs for real and verifies, and its trace is replayed on the
modelled fabric: the predicted time of one sort (column "fabric s", JSON predicted_s).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from meshmem.cli import options
from meshmem.cli import plot as plots
from meshmem.cli.apps import programs
from meshmem.cli.apps.command import AppCommand, Launch, UsageError, add_prediction, alternate, median
from meshmem.cli.apps.programs import counted
from meshmem.cli.report import fmt_optional, format_count
from meshmem.launch.commands import BenchError

VARIANTS = ("a11", "a6", "a3", "a2", "a1", "ghc", "radix")
ALIASES = {"3step": "a3", "single": "a1", "singlepass": "a1"}

DESCRIPTION = """\
The distributed counting sort of OPTWEB (JOCN 2022, §3.B) at every stage of the OPTWEB sort
report (IPSJ), and an LSD radix sort, each verified and run against the same sort on OpenMPI
(MPI_Alltoallv, the 3-step flow: the single pass has no MPI form) and a serial sort of the same
data, alternately, in the same run. Throughput is key bytes sorted per second, as in the report.

variants (A: memory passes, m: all-to-all passes; the report's eq. 1):
  a11    key+value, every step a pass (the report's Fig. 2)         A=11 m=2
  a6     keys only, the same flow (Fig. 4)                           A=6  m=1
  a3     3-step: classify (histogram fused), all-to-all-v, place     A=3  m=1  (alias 3step)
  a2     end-of-data marks: classify into the receiver, place        A=2  m=1
  a1     single pass into the destination's key regions              A=1  m=1  (alias single)
  ghc    5-step on a 2-D generalized hypercube, x then y (OPTWEB §4.C.2)  A=5 m=2
  radix  LSD radix sort of --keybits 32|64 keys, one a1 pass per digit

--vs names exactly the peers that run (default openmpi,serial): --vs openmpi runs OpenMPI
alone, --vs serial the serial sort alone, --vs none neither; --no-serial leaves serial out of
whatever --vs names (an old option, from when --vs openmpi also ran the serial sort)."""


def variant_list(text: str) -> list[str]:
    """The variants named by --variant, in order, aliases resolved."""
    out = []
    for v in (t.strip() for t in text.split(",") if t.strip()):
        if v == "all":
            out += [x for x in VARIANTS if x not in out]
            continue
        v = ALIASES.get(v, v)
        if v not in VARIANTS:
            raise UsageError(f"--variant: unknown variant {v!r} (choose from "
                             f"{', '.join(VARIANTS)}, all)")
        if v not in out:
            out.append(v)
    return out


def program_args(v: str, records: int, a, form_keys: bool) -> list[str]:
    """The command line shared by the meshmem program and its twin for variant @p v."""
    args = ["-v", v, "-n", records, "-c", a.channels, "-d", a.dist, "-s", a.seed,
            "-i", a.iters, "-w", 1]
    if v == "radix":
        args += ["-b", a.keybits]
    elif a.key_types:
        args += ["-K", a.key_types]
    if form_keys:
        args.append("-k")
    if v == "ghc" and a.ghc:
        args += ["-g", a.ghc]
    return args


def heap_for(args: list, ranks: int) -> int:
    """Ask the sort program how much symmetric heap these arguments need."""
    exe = programs.ensure_app("sort")
    done = subprocess.run([str(exe), *map(str, args), "-H", str(ranks)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise BenchError(f"sort: {done.stderr.strip() or done.stdout.strip()}")
    return int(done.stdout.strip())


def once(args: list) -> list:
    """@p args with one timed run and no warm-up (the traced run of --fabric)."""
    out = list(args)
    for flag, value in (("-i", 1), ("-w", 0)):
        out[out.index(flag) + 1] = value
    return out


# the [[sort.variant]] (name or name prefix) each variant implements, for its replay's rates: the
# GHC flow is the 11-pass design per dimension (OPTWEB §4.C.2), the radix sort one A = 1 pass per digit
DESIGNS = {"a11": "A11", "a6": "A6", "a3": "A3", "a2": "A2", "a1": "A1", "ghc": "A11",
           "radix": "A1"}


def measure(a, launch: Launch, variants: list[str], records: int,
            log=print) -> tuple[list, list]:
    """Run every variant with the baselines of a.baselines; returns (result rows, notes)."""
    notes = []
    fabric = launch.fabric
    if fabric:
        notes.append(f"fabric s: one sort predicted on {Path(fabric).stem} by meshrun --fabric "
                     "(a traced run of the meshmem program, replayed on the modelled fabric); "
                     "the OpenMPI twin and the serial baseline are not modelled; a variant "
                     "whose design the fabric's [sort] section describes is replayed at that "
                     "design's clock, link rate and pipeline efficiency")
    rows = []
    serial_done = {}
    for v in variants:
        keys_only = v == "a6" or (a.keys_only and v != "a11")
        args = program_args(v, records, a, keys_only)
        heap = heap_for(args, a.ranks)
        twin = None
        if "openmpi" in a.baselines:
            twin = program_args("radix" if v == "radix" else "a3", records, a, keys_only)
        sides = {"meshmem": lambda: launch.meshmem("sort", args, "sort", heap=heap)}
        if twin:
            sides["openmpi"] = lambda: launch.openmpi("sort_mpi", twin, "sort")
        got = alternate(a.rounds, sides)
        mm = [x for run in got["meshmem"] for x in run]
        mp = [x for run in got.get("openmpi", []) for x in run]
        fab = None
        design = programs.sort_design(fabric, DESIGNS.get(v, "")) if fabric else None
        if fabric:
            fab = launch.on_fabric("sort", once(args), "sort", heap=heap, sort_variant=design)
        log(f"  sort {v}: {counted(a.rounds, 'round')} done", file=sys.stderr)
        row = dict(mm[0])
        row.update(runtime="meshmem", seconds=median(x["seconds"] for x in mm),
                   rounds_s=[x["seconds"] for x in mm],
                   verified=int(all(x["verified"] == 1 for x in mm)))
        row["GBps"] = records * (8 if row.get("keybits") == 64 else 4) / row["seconds"] * 1e-9
        if fab:
            add_prediction(row, fab[1], fab[0])
            row["fabric_design"] = design or ""  # the [[sort.variant]] whose rates were used
        if mp:
            row["mpi_variant"] = mp[0]["variant"]
            row["mpi_seconds"] = median(x["seconds"] for x in mp)
            row["mpi_rounds_s"] = [x["seconds"] for x in mp]
            row["mpi_verified"] = int(all(x["verified"] == 1 for x in mp))
            row["speedup_vs_mpi"] = row["mpi_seconds"] / row["seconds"]
            row["speedup_vs_openmpi"] = row["speedup_vs_mpi"]
        if "serial" in a.baselines:
            skey = ("radix" if v == "radix" else "counting", keys_only)
            if skey not in serial_done:
                sargs = ["-v", "serial", "-n", records, "-d", a.dist, "-s", a.seed, "-i",
                         max(a.iters, 3), "-w", 1, "-p", a.ranks]
                sargs += ["-b", a.keybits] if v == "radix" else ["-K", row["K"]]
                if keys_only:
                    sargs.append("-k")
                serial_done[skey] = launch.meshmem("sort", sargs, "sort",
                                                   heap=heap_for(sargs, 1), ranks=1)[0]
            sr = serial_done[skey]
            row["serial_seconds"] = sr["seconds"]
            row["serial_verified"] = sr["verified"]
            row["serial_sort"] = ("LSD radix, 11-bit digits" if v == "radix"
                                  else "counting sort (histogram + scatter)")
            row["speedup_vs_serial"] = sr["seconds"] / row["seconds"]
        rows.append(row)
    return rows, notes


def print_table(rows: list, out=None):
    """One line per variant: passes, times, throughput, speed-ups over the peers."""
    out = out or sys.stdout  # looked up now: a default bound at import goes stale
    fabric = any("predicted_s" in r for r in rows)
    fw = 10 if fabric else 0  # the fabric column only when a fabric was given
    head = (f"{'variant':<8}{'form':>5}{'ranks':>6}{'records':>10}{'A':>4}{'m':>3}"
            f"{'meshmem s':>11}{'fabric s' if fabric else '':>{fw}}{'key GB/s':>10}"
            f"{'OpenMPI s':>11}{'× OpenMPI':>11}{'serial s':>10}{'× serial':>10}{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = all(r.get(k, 1) == 1 for k in ("verified", "mpi_verified", "serial_verified"))
        print(f"{r['variant']:<8}{r['form']:>5}{r['ranks']:>6}{format_count(r['records']):>10}"
              f"{r['A']:>4}{r['m']:>3}{r['seconds']:>11.4g}"
              f"{fmt_optional(r.get('predicted_s'), '.3g') if fabric else '':>{fw}}"
              f"{r['GBps']:>10.2f}"
              f"{fmt_optional(r.get('mpi_seconds'), '.4f'):>11}"
              f"{fmt_optional(r.get('speedup_vs_mpi'), '.2f'):>11}"
              f"{fmt_optional(r.get('serial_seconds'), '.4f'):>10}"
              f"{fmt_optional(r.get('speedup_vs_serial'), '.2f'):>10}{'yes' if ok else 'NO':>4}",
              file=out)


def plot(rows: list, path: str, title: str = ""):
    """Throughput (key GB/s) of every variant, beside the same sort on OpenMPI and the serial
    sort of the same data."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(rows) + 2), 4))
    names = [f"{r['variant']} ({r['form']})\nA = {r['A']}" for r in rows]
    x = range(len(rows))
    kb = [r["records"] * (8 if r.get("keybits") == 64 else 4) * 1e-9 for r in rows]
    series = [("meshmem", [r["GBps"] for r in rows], plots.MESHMEM_COLOR),
              ("OpenMPI, the same sort (MPI_Alltoallv)",
               [k / r["mpi_seconds"] if r.get("mpi_seconds") else 0 for k, r in zip(kb, rows)],
               plots.PEER_COLOR),
              ("serial sort", [k / r["serial_seconds"] if r.get("serial_seconds") else 0
                               for k, r in zip(kb, rows)], "tab:green")]
    series = [s for s in series if any(s[1])]
    width = 0.8 / len(series)
    for k, (label, values, color) in enumerate(series):
        ax.bar([i + (k - (len(series) - 1) / 2) * width for i in x], values, width,
               label=label, color=color)
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, fontsize=8)
    ax.set_xlabel("variant (form), A = memory passes")
    ax.set_ylabel("throughput (key GB/s)")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    plots.finish(fig, path, title, ax)


class SortCommand(AppCommand):
    """`meshmem sort` on the application harness."""
    name = "sort"
    baselines = ("openmpi", "serial")
    description = DESCRIPTION
    plot_what = "the throughput of every variant beside its peers"
    examples = ("meshmem sort --ranks 2 --records 2^24 --variant a1",
                "meshmem sort --variant all --records 1M --json s.json --plot s.png",
                "meshmem sort --variant radix --keybits 64 --records 4M --vs serial",
                "meshmem sort --ranks 8 --records 2^22 --variant a11 --fabric optweb-sort8")

    def add_app_arguments(self, p):
        size = p.add_mutually_exclusive_group()
        size.add_argument("--records", default="1M", metavar="N",
                          help="records in the whole job, shared by the ranks: 2^24, 16M, 1000 "
                               "(default 1M)")
        size.add_argument("--bytes", metavar="SIZE",
                          help="key bytes in the whole job instead of --records (e.g. 64M)")
        p.add_argument("--variant", "-v", default="a1", metavar="LIST",
                       help="comma-separated variants (listed above), or all (default a1)")
        p.add_argument("--keys-only", action="store_true",
                       help="sort keys without values (a6 always does)")
        p.add_argument("--key-types", "--K", dest="key_types", type=int, metavar="K",
                       help="distinct keys of the counting sorts (default ranks x channels; "
                            "--K is the old name)")
        p.add_argument("--channels", type=int, default=128, metavar="N",
                       help="key regions per rank (default 128)")
        p.add_argument("--keybits", type=int, default=32, choices=(32, 64),
                       help="key width of the radix sort (default 32)")
        p.add_argument("--dist", default="uniform",
                       choices=("uniform", "skew", "equal", "sorted", "reverse", "top"),
                       help="how the keys are drawn (default uniform)")
        p.add_argument("--seed", type=int, default=1,
                       help="seed of the key generator (default 1)")
        p.add_argument("--ghc", type=int, default=0, metavar="KX",
                       help="columns of the ghc variant's grid (default: the most square)")
        p.add_argument("--iters", type=int, default=3, metavar="N",
                       help="timed sorts per run; the median is kept (default 3)")
        p.add_argument("--no-serial", action="store_true",
                       help="leave the serial sort out of --vs (an old option)")

    def check(self, a):
        a.variants = variant_list(a.variant)
        if a.bytes:
            width = 8 if "radix" in a.variants and a.keybits == 64 else 4
            a.nrecords = options.parse_size(a.bytes, "--bytes") // width
        else:
            a.nrecords = options.parse_size(a.records, "--records")
        options.at_least("--records", a.nrecords, 1)
        options.at_least("--iters", a.iters, 1)
        if a.no_serial and "serial" in a.baselines:
            a.baselines.remove("serial")

    def describe(self, a):
        return f"; {format_count(a.nrecords)} records, {a.dist} keys"

    def title(self, a, rows):
        return f"sort: {a.ranks} ranks, {format_count(a.nrecords)} records, {a.dist} keys"

    def settings(self, a):
        return {"records": a.nrecords, "variants": a.variants, "iters": a.iters,
                "dist": a.dist}


COMMAND = SortCommand(lambda a, launch: measure(a, launch, a.variants, a.nrecords),
                      print_table, plot)
