"""The base of every `meshmem APP` command (sort, average, fft, amt, ...): the shared command
line, the launch of the meshmem program and its baselines, alternating rounds, medians, the
table, JSON, plot and exit status. An application adds only what is its own.

A command is a subclass of AppCommand that sets its name, tag and baselines and overrides

    add_app_arguments(p)     its own options
    check(a)                 its own argument checks: raise UsageError("--opt VALUE: why")

and one instance of it, COMMAND in its module (meshmem.cli runs it), is made with the
application's own functions, which the demo calls too:

    measure(a, launch)       run everything, return (result rows, notes)
    print_table(rows, out)   one line per row
    plot(rows, path, title)  the figure of its paper

Shared arguments (one vocabulary for every command: meshmem.cli.options), old
spellings kept as aliases:
  --ranks N                         ranks (-n)
  --vhosts H | --hosts a:4,b:4 | --hostfile F
                                    run across (virtual) hosts: passed to meshrun, and --hosts /
                                    --hostfile to mpirun for the OpenMPI twin; with --vhosts the
                                    twin runs on a virtual cluster of the same shape
  --rtl CONFIG                      meshmem on the simulated OPTWEB engine (meshrun --rtl):
                                    simulated time, one round, no peer; --fabric defaults to the
                                    fabric the configuration names (the model's prediction of
                                    a traced run on the engine: the same calls)
  --rounds N                        alternating rounds: meshmem and each baseline in turn, the
                                    order flipped every round; medians over rounds
  --vs LIST                         baselines: a comma list of the command's (openmpi, serial),
                                    or none; exactly those run (--no-serial of sort: drop serial)
  --json FILE, --plot FILE.png      results as JSON {"results", "machine", "settings"}; the plot
  --fabric FILE, --compute-scale X, --fabric-set S.K=V (--set)
                                    also predict the meshmem run on a modelled fabric
                                    (meshrun --fabric; docs/model.md)
  --bind-to core|none               (--bind) pin ranks; default core, none when oversubscribed
  --timeout SEC                     per program run
Results as every command shows them (meshmem.cli.report): sizes as 8, 1K, 64K, 1M, µs, speed-ups
"× PEER" = peer time / meshmem time (above 1: meshmem is faster), explained under the table.
Exit status: 0 every result verified, 1 a run failed or a result did not verify, 2 bad
arguments (one line naming the option and its value, before anything runs).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from meshmem.cli import options
from meshmem.cli.apps import programs
from meshmem.cli.options import UserError
from meshmem.cli.report import machine_info, machine_line, speedup_legend
from meshmem.launch.commands import BenchError, LaunchOptions, twin_settings
from meshmem.launch.paths import bin_path

BASELINE_NAMES = {"openmpi": "OpenMPI", "serial": "serial"}

# under the table of a run on the simulated engine (--rtl), instead of the speed-ups' legend
RTL_FOOTER = ("# meshmem's time is simulated (meshmem_wtime: the engine's cycles; computation "
              "between meshmem calls costs none, docs/rtl-transport.md); the fabric column is "
              "the model's prediction of the same run (meshrun --rtl --fabric: the calls the "
              "engine ran, replayed on the fabric), its "
              "unannotated computation charged none as on the engine (--compute-scale 0 unless "
              "given) and its annotated computation at the fabric's [compute] rates",
              "# OpenMPI and serial: none: they do not run on simulated hardware, so no "
              "speed-up over them")

# a bad argument: its message names the option and the value (the name the apps use)
UsageError = UserError


def median(values) -> float:
    """The median of @p values (a list of numbers)."""
    return statistics.median(list(values))


def paired(num: list, den: list) -> float:
    """Median over rounds of num[i] / den[i] (both measured in round i): less sensitive to the
    load drifting between rounds than the ratio of the medians."""
    return statistics.median(x / y for x, y in zip(num, den))


def alternate(rounds: int, sides: dict, log=None) -> dict:
    """Run every callable of @p sides (name -> f() -> result) once per round, in the order of
    the dict in even rounds and reversed in odd ones, so that no side always runs on a warmer or
    quieter machine. Returns name -> [result of each round]."""
    out = {k: [] for k in sides}
    order = list(sides)
    for r in range(rounds):
        for name in (order if r % 2 == 0 else order[::-1]):
            out[name].append(sides[name]())
        if log:
            log(f"  round {r + 1}/{rounds} done")
    return out


_meshrun_help: str | None = None


def meshrun_accepts(option: str) -> bool:
    """Whether this build's meshrun lists @p option in its --help."""
    global _meshrun_help
    if _meshrun_help is None:
        try:
            done = subprocess.run([str(bin_path("meshrun")), "--help"], capture_output=True,
                                  text=True, timeout=30)
            _meshrun_help = done.stdout + done.stderr
        except OSError:
            _meshrun_help = ""
    return option in _meshrun_help.split()


@dataclass
class Launch:
    """How this command's programs are started: ranks, binding, hosts, time limit."""
    ranks: int
    bind: str = "core"                 # "core" or "none" (auto resolved)
    timeout: float = 300
    meshrun_hosts: list = field(default_factory=list)  # e.g. ["--hosts", "a:4,b:4"]
    mpirun_hosts: list = field(default_factory=list)   # e.g. ["--host", "a:4,b:4"]
    vhosts: int = 0                    # > 0: the twin's mpirun on a virtual cluster of its own
    fabric: str | None = None
    compute_scale: float | None = None
    fabric_set: list = field(default_factory=list)
    rtl: str | None = None             # a configuration: meshmem's runs on the simulated engine

    def meshmem(self, program: str, args: list, tag: str, heap: int = 64 << 20,
                ranks: int | None = None, expect_fail: bool = False) -> list[dict]:
        """The result lines of meshmem program @p program under meshrun."""
        return programs.run_app("meshmem", program, ranks or self.ranks, args, tag,
                                heap_bytes=heap, bind=self.bind, timeout_s=self.timeout,
                                expect_fail=expect_fail,
                                meshrun_args=self.meshrun_hosts + (["--rtl", self.rtl]
                                                                   if self.rtl else []))

    def twin_options(self, ranks: int | None = None) -> LaunchOptions:
        """How the OpenMPI twins of this command are started (osu.twin_command)."""
        where = dict(zip(self.mpirun_hosts[::2], self.mpirun_hosts[1::2]))
        return LaunchOptions(ranks=ranks or self.ranks, bind=self.bind, timeout_s=self.timeout,
                             vhosts=self.vhosts, hosts=where.get("--host"),
                             hostfile=where.get("--hostfile"))

    def openmpi(self, program: str, args: list, tag: str, ranks: int | None = None) -> list[dict]:
        """The result lines of OpenMPI twin @p program under mpirun."""
        o = self.twin_options(ranks)
        return programs.run_app("openmpi", program, o.ranks, args, tag, bind=o.bind,
                                timeout_s=o.timeout_s, meshrun_args=[], vhosts=o.vhosts,
                                hosts=o.hosts, hostfile=o.hostfile)

    def on_fabric(self, program: str, args: list, tag: str, heap: int = 64 << 20,
                  sort_variant: str | None = None) -> tuple[list[dict], dict]:
        """One run of @p program under meshrun --fabric: (result lines, prediction). With
        --rtl the traced run is on the engine too (meshrun --rtl --fabric): the program takes
        the same path as there (no peer reachable by load and store: gets, puts and the
        engine's collectives), so the model replays the calls the engine ran."""
        extra = [a for kv in self.fabric_set for a in ("--fabric-set", kv)]
        if self.rtl:
            extra += ["--rtl", self.rtl]
        return programs.run_on_fabric(program, self.ranks, args, tag, self.fabric,
                                      self.compute_scale, sort_variant, heap_bytes=heap,
                                      bind=self.bind, timeout_s=self.timeout,
                                      launcher_args=self.meshrun_hosts + extra)


def add_prediction(row: dict, pred: dict, fabric_rows: list, phase: str | None = None) -> None:
    """Put a replay's prediction into result @p row: predicted_s (of @p phase when given, else
    the whole run), fabric, its phases; verified stays 1 only if the traced run verified too."""
    row.update(fabric=pred["fabric"],
               predicted_s=pred["phases"][phase]["seconds"] if phase else pred["predicted_s"],
               fabric_phases={k: v["seconds"] for k, v in pred["phases"].items()},
               fabric_compute_scale=pred["compute_scale"])
    row["fabric_verified"] = int(all(x.get("verified", 0) == 1 for x in fabric_rows))
    row["verified"] = int(row.get("verified", 1) and row["fabric_verified"])


def once(args: list) -> list:
    """A program's @p args with one timed run (-i 1) and no warm-up (-w 0): the traced run of
    --fabric."""
    out = list(args)
    out[out.index("-i") + 1] = 1
    return out + ["-w", 0]


def program_heap(program: str, args: list, ranks: int) -> int:
    """The symmetric heap a run of @p program with @p args on @p ranks ranks needs, as the
    program prints it with -H RANKS; UsageError with the program's reason for refusing @p args
    (a bad size, say) before anything is started."""
    exe = programs.ensure_app(program)
    done = subprocess.run([str(exe), *[str(v) for v in args], "-H", str(ranks)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        why = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1]
        raise UsageError(why.removeprefix(f"{program}: "))
    return int(done.stdout.strip())


def measured_row(runs: list, keys, rate: str | None = None, mpi: list | None = None,
                 serial: dict | None = None) -> dict:
    """One row of a table from the result lines of a program's rounds @p runs: the fields
    @p keys of the first, the median time and every round's, verified only when every round
    was, the largest error, and the rate @p rate (e.g. GOPS) at the median time. With the
    twin's rounds @p mpi: its median time, verdict and speedup_vs_openmpi; with the one-rank
    result @p serial: its time, verdict and speedup_vs_serial."""
    row = {k: runs[0][k] for k in keys}
    row.update(seconds=median(r["seconds"] for r in runs), rounds_s=[r["seconds"] for r in runs],
               verified=int(all(r["verified"] == 1 for r in runs)),
               max_err=max(r["max_err"] for r in runs))
    if rate:
        row[rate] = runs[0][rate] * runs[0]["seconds"] / row["seconds"]
    if mpi:
        row.update(mpi_seconds=median(r["seconds"] for r in mpi),
                   mpi_verified=int(all(r["verified"] == 1 for r in mpi)))
        row["speedup_vs_openmpi"] = row["mpi_seconds"] / row["seconds"]
    if serial:
        row.update(serial_seconds=serial["seconds"], serial_verified=serial["verified"],
                   speedup_vs_serial=serial["seconds"] / row["seconds"])
    return row


class AppCommand:
    """The shared part of `meshmem APP` (see the module comment)."""
    name = "app"                   # the command's name
    baselines: tuple = ("openmpi",)  # what --vs may name, in the order they run
    default_vs: str | None = None  # default --vs (None: every baseline)
    default_ranks = 2
    default_rounds = 3
    description = ""               # the --help text, written for users
    plot_what = "the results"      # what --plot draws, for its help
    examples: tuple = ()           # lines of the epilog

    def __init__(self, measure: Callable[..., tuple[list, list]], print_table: Callable[..., None],
                 plot: Callable[..., None]):
        """The application's functions: @p measure(a, launch) runs the programs and returns
        (rows, notes); @p print_table(rows, out=None) prints the rows; @p plot(rows, path,
        title="") writes the plot."""
        self.measure, self.print_table, self.plot = measure, print_table, plot

    # ---------------------------------------------------------------- to be provided
    def add_app_arguments(self, p: argparse.ArgumentParser) -> None:
        """The command's own options."""

    def check(self, a) -> None:
        """The command's own checks; raise UsageError naming the option and value."""

    def describe(self, a) -> str:
        """What runs, for the first line of the output (after the machine)."""
        return ""

    def title(self, a, rows: list) -> str:
        """The one title of the plot."""
        return f"{self.name}: {a.ranks} ranks"

    def settings(self, a) -> dict:
        """The command's own settings, for the JSON document."""
        return {}

    def footer(self, rows: list) -> list[str]:
        """Lines printed after the notes (how to read the ratios)."""
        names = [BASELINE_NAMES[b] for b in self.baselines]
        return [speedup_legend(", ".join(f"× {n}" for n in names),
                               f"{names[0]} time" if len(names) == 1 else "peer time")]

    # ---------------------------------------------------------------- shared
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        """The whole command line: the shared arguments, then the command's own."""
        p.formatter_class = options.HelpFormatter
        p.description = self.description or (sys.modules[type(self).__module__].__doc__ or
                                             "").strip()
        if self.examples:
            p.epilog = "examples:\n" + "\n".join(f"  {e}" for e in self.examples)
        g = p.add_argument_group("shared by every application command")
        options.add_ranks(g, self.default_ranks)
        hosts = g.add_mutually_exclusive_group()
        hosts.add_argument("--vhosts", type=int, metavar="H",
                           help="run on H virtual hosts of this machine (meshrun --vhosts)")
        hosts.add_argument("--hosts", metavar="a:4,b:4",
                           help="run across these hosts (meshrun --hosts, mpirun --host)")
        hosts.add_argument("--hostfile", metavar="FILE",
                           help="run across the hosts of FILE (meshrun and mpirun --hostfile)")
        options.add_rounds(g, self.default_rounds)
        vs_default = self.default_vs or ",".join(self.baselines)
        g.add_argument("--vs", default=vs_default, metavar="LIST",
                       help=f"the peers run beside meshmem, exactly those: a comma list of "
                            f"{', '.join(self.baselines)} (mpi: openmpi, as in meshmem bench), "
                            f"or none (default {vs_default})")
        options.add_json(g)
        options.add_plot(g, self.plot_what)
        g.add_argument("--fabric", metavar="FILE",
                       help="also predict the meshmem run on this modelled fabric (a file, or a "
                            "name in fabrics/): one more run under meshrun --fabric")
        g.add_argument("--compute-scale", type=float, metavar="X",
                       help="with --fabric: factor on measured, unannotated compute time "
                            "(default: the fabric's [compute] measured_scale)")
        options.add_fabric_set(g, "of --fabric")
        options.add_bind_to(g, None, "core; none when ranks outnumber cores")
        options.add_timeout(g)
        options.add_rtl(g)
        self.add_app_arguments(p.add_argument_group(f"{self.name}"))

    def baselines_of(self, a) -> list[str]:
        """The baselines --vs names, checked; 'none' gives []."""
        return options.vs_list(a.vs, tuple(self.baselines))

    def hosts_of(self, a) -> tuple[list, list]:
        """meshrun's and mpirun's host arguments; UsageError while meshrun lacks the option.
        --vhosts gives mpirun none: the twin runs on a virtual cluster of the same shape, built
        for it (Launch.vhosts, commands.command)."""
        for opt, value, mpi in (("--vhosts", a.vhosts, None), ("--hosts", a.hosts, "--host"),
                                ("--hostfile", a.hostfile, "--hostfile")):
            if value is None:
                continue
            if not meshrun_accepts(opt):
                raise UsageError(f"{opt} {value}: this meshrun does not run across hosts yet "
                                 f"(meshrun --help lists no {opt})")
            return [opt, str(value)], ([mpi, str(value)] if mpi else [])
        return [], []

    def launch_of(self, a) -> Launch:
        """Check the shared arguments and resolve them into a Launch (UsageError if bad)."""
        options.rank_count(a.ranks)
        options.at_least("--rounds", a.rounds, 1)
        if not a.timeout > 0:
            raise UsageError(f"--timeout {a.timeout:g}: a number of seconds above 0")
        options.check_outputs(a)
        a.baselines = self.baselines_of(a)
        a.rtl = options.rtl_config(getattr(a, "rtl", None),
                                   {"--vhosts": a.vhosts, "--hosts": a.hosts,
                                    "--hostfile": a.hostfile})
        if a.rtl:
            # no peer runs on simulated hardware, and the simulated time is the same every run;
            # the model predicts the same run on the fabric the configuration names
            # (computation charged none there: so in the model's replay, unless told otherwise)
            a.baselines, a.rounds = [], 1
            if not a.fabric:
                from meshmem.bench.rtl import fabric_of
                a.fabric = fabric_of(a.rtl) and str(fabric_of(a.rtl))
            if a.fabric and a.compute_scale is None:
                a.compute_scale = 0.0
        mesh_hosts, mpi_hosts = self.hosts_of(a)
        if a.fabric:
            try:
                a.fabric = programs.check_fabric(a.fabric, a.ranks, a.compute_scale)
            except BenchError as e:
                raise UsageError(str(e)) from None
        bind = a.bind_to or ("none" if a.ranks > programs.cores() else "core")
        return Launch(ranks=a.ranks, bind=bind, timeout=a.timeout, meshrun_hosts=mesh_hosts,
                      mpirun_hosts=mpi_hosts, vhosts=a.vhosts or 0, fabric=a.fabric,
                      compute_scale=a.compute_scale, fabric_set=list(a.fabric_set), rtl=a.rtl)

    def prepare(self, a) -> Launch:
        """Every check of the command line, shared and the command's own, before anything
        runs (UsageError naming the option): the Launch to measure with. How another command
        (the demo) runs this one's measurement on settings of its own."""
        launch = self.launch_of(a)
        self.check(a)
        return launch

    def run(self, args) -> int:
        """Entry point of `meshmem NAME`: check, measure, print, write, exit status."""
        try:
            launch = self.prepare(args)
        except UserError as e:
            print(f"meshmem {self.name}: {e}", file=sys.stderr)
            return 2
        if "openmpi" in args.baselines:
            ok, why = programs.openmpi_available()
            if not ok:
                print(f"# OpenMPI baseline skipped: {why}")
                args.baselines.remove("openmpi")
        info = machine_info()
        where = (f"; on the simulated OPTWEB engine ({Path(launch.rtl).stem}, meshrun --rtl): "
                 f"{args.ranks} nodes, simulated seconds, one round" if launch.rtl else "")
        print(f"# meshmem {self.name}: {machine_line(info, args.ranks)}{self.describe(args)}"
              f"{where}")
        try:
            rows, notes = self.measure(args, launch)
        except BenchError as e:
            print(f"meshmem {self.name}: {e}", file=sys.stderr)
            return 1
        self.print_table(rows)
        for n in notes:
            print(f"# note: {n}")
        for line in self.footer(rows) if not launch.rtl else RTL_FOOTER:
            print(line)
        twin = twin_settings(launch.twin_options()) if "openmpi" in args.baselines else None
        if twin:
            print(f"# {twin.line()}")
        info["loadavg_end"] = list(os.getloadavg())
        settings = {"ranks": args.ranks, "rounds": args.rounds, "vs": args.baselines,
                    "openmpi": twin.as_dict() if twin else None,
                    "bind": launch.bind, "hosts": launch.meshrun_hosts, "fabric": args.fabric,
                    "rtl": launch.rtl,
                    "compute_scale": args.compute_scale, "fabric_set": args.fabric_set,
                    "notes": notes, "date": time.strftime("%Y-%m-%d %H:%M:%S"),
                    **self.settings(args)}
        if args.json:
            Path(args.json).write_text(json.dumps({"results": rows, "machine": info,
                                                   "settings": settings}, indent=1))
            print(f"# wrote {args.json}")
        if args.plot and rows:
            self.plot(rows, args.plot, self.title(args, rows))
            print(f"# wrote {args.plot}")
        return 0 if rows_verified(rows) else 1


def rows_verified(rows: list) -> bool:
    """Every row verified, and each of its baselines (keys ending in _verified)."""
    return all(r.get("verified") == 1 and all(v == 1 for k, v in r.items()
                                              if k.endswith("_verified")) for r in rows)
