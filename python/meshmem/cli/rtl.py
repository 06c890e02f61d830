"""`meshmem rtl`: the OPTWEB node engine in SystemVerilog (rtl/), N nodes simulated cycle by
cycle under Verilator, against the papers and the analytic model.

    meshmem rtl validate [--calibrate] [--json FILE]   paper, model and RTL side by side
    meshmem rtl speed [--nodes 2,4,8,16] [--threads 1,2] [--seconds S] [--json FILE]
                                                       simulated cycles per second
    meshmem rtl configs                                the configurations, as the simulator reads them

validate runs the scenarios of build/bin/mm-rtl-measure (rtl/tools/rtl_measure.cpp) on the
configurations of rtl/configs/, converts each one's cycles to time at the paper's clock, and
prints it beside the published figure and the analytic model's prediction
(meshmem.model: the same row of published.toml, or the same operation's cost). docs/rtl.md,
"Validation".
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

from meshmem.cli import options
from meshmem.cli.options import UserError
from meshmem.launch import paths
from meshmem.model import cost, load_fabric, resolve_fabric_path
from meshmem.model import validate as mvalidate

TOLERANCE = mvalidate.TOLERANCE
CONFIGS = paths.rtl_configs_dir()
KIB = 1024
A2A_BYTES = 2 << 20        # the all-to-all size of the GHC rows: bandwidth-bound, seconds to simulate


@dataclass(frozen=True)
class Spec:
    """One row: what the RTL measures and how its cycles become the published figure's unit."""
    id: str                  # the published.toml row, or an rtl-only row (then `paper` is given)
    cls: str                 # measured, calibration, derived
    rtl: tuple               # scenario ids of mm-rtl-measure this row needs
    why: str = ""            # the reason a miss is a miss (the row is within tolerance otherwise)
    paper: dict | None = None   # rtl-only rows: what, source, value or range, unit


SPECS = (
    Spec("unicast-direct-small", "calibration", ("unicast-direct-small",)),
    Spec("a2a-45g-small-time", "measured", ("a2a-45g-small-time",),
         why="The RTL's all-to-all is one step, exactly as long as its unicast (0.8 µs, the "
             "calibration): every node's blocks leave at once on separate lanes. The paper's "
             "0.72 µs all-to-all is shorter than its own 0.8 µs unicast, which no one-step "
             "design reproduces with one latency."),
    Spec("a2a-90g-1k-time", "measured", ("a2a-90g-1k-time",)),
    Spec("a2a-45g-64k-time", "measured", ("a2a-45g-64k-time",)),
    Spec("unicast-direct-1m", "measured", ("unicast-direct-1m",),
         why="1 MiB at the 45 Gbps link rate is 186 µs; the RTL streams at the link rate, as the "
             "model does. The paper's 332.4 µs is 25.3 Gbps, half a memory channel: nothing "
             "published limits a unicast so, and the RTL adds no such limit (as the model, "
             "published.toml)."),
    Spec("unicast-indirect-small", "measured", ("unicast-indirect-small",),
         why="Store and forward through the middle node's memory: two unicasts of 0.8 µs, as "
             "in the model. The paper's 2.0 µs leaves 0.4 µs at the relay that it does not "
             "break down."),
    Spec("unicast-indirect-1m", "measured", ("unicast-indirect-1m",),
         why="Two hops of unicast-direct-1m: the same 25.3 Gbps the RTL does not reproduce."),
    Spec("unicast-indirect-over-direct", "derived", ("unicast-indirect-1m", "unicast-direct-1m")),
    Spec("block-signal-rtt", "measured", ("block-signal-rtt",),
         paper={"what": "OPTWEB block signal round trip", "source": "OPTWEB (JOCN 2022) §4.B.1",
                "range": (0.0, 1.0), "unit": "us"},
         why="Two crossings of the link, whose latency is what the 0.8 µs unicast leaves after "
             "the RTL's own data path (the HBM2 latencies assumed, 160 and 80 ns): 1.04 µs. "
             "HBM2 latencies 10 % longer, or a pulse path that skips the sync IP's register, "
             "would put it under 1 µs."),
    Spec("average-90g-1k-time", "measured", ("average-90g-1k-time",),
         why="The aggressive averaging is two dependent one-step collectives (the in-flight "
             "sum, then the all-gather), two start-ups of 0.8 µs, as in the model and the "
             "paper's own account ('almost the sum of the start-up latency of all-to-all "
             "communication and all-gather communication'); the paper's 2 µs is printed to the "
             "µs."),
    Spec("average-90g-32k-time", "measured", ("average-90g-32k-time",)),
    Spec("ghc-4x2-over-fc", "derived", ("a2a-fc8-2m", "a2a-ghc4x2-2m")),
    Spec("ghc-4x2-per-link", "measured", ("a2a-ghc4x2-2m",),
         why="Measured at 2 MiB per node, not the paper's 2 GiB (67 M beats a node: hours of "
             "simulation)."),
    Spec("ghc-fc-per-link", "derived", ("a2a-fc8-2m",),
         why="Measured at 2 MiB per node, not 2 GiB."),
    Spec("fshmem-put-short-latency", "calibration", ("fshmem-put-short-latency",)),
    Spec("fshmem-put-long-latency", "measured", ("fshmem-put-long-latency",)),
    Spec("fshmem-get-short-latency", "measured", ("fshmem-get-short-latency",)),
    Spec("fshmem-get-long-latency", "measured", ("fshmem-get-long-latency",)),
    Spec("fshmem-peak-1024", "measured", ("fshmem-peak-1024",),
         why="The RTL's one-sided engine fetches each packet's payload once the previous packet "
             "has left: every packet pays the memory latency (40 cycles) and its header. "
             "FSHMEM's core overlaps them (its per-packet cost is 67 bytes of data path, 4 "
             "cycles). A payload prefetch across packets is left to do (docs/rtl.md)."),
    Spec("fshmem-peak-512", "measured", ("fshmem-peak-512",), why="As fshmem-peak-1024."),
    Spec("fshmem-peak-256", "measured", ("fshmem-peak-256",), why="As fshmem-peak-1024."),
    Spec("fshmem-peak-128", "measured", ("fshmem-peak-128",), why="As fshmem-peak-1024."),
)

# the figures of published.toml whose RTL value is not a time: how the cycles become one
FSHMEM_STREAM_BYTES = 1 << 18


def _rtl_value(spec: Spec, m: dict) -> float:
    """The RTL's value of a row, in SI units, from the measured scenarios `m` (id -> record)."""
    def seconds(sid):
        r = m[sid]
        return r["cycles"] / (r["clock_mhz"] * 1e6)
    if spec.id == "unicast-indirect-over-direct":
        return seconds("unicast-indirect-1m") / seconds("unicast-direct-1m")
    if spec.id == "ghc-4x2-over-fc":
        return seconds("a2a-fc8-2m") / seconds("a2a-ghc4x2-2m")
    if spec.id == "ghc-4x2-per-link":  # node throughput over its 8 channels (quantities.py)
        return A2A_BYTES / seconds("a2a-ghc4x2-2m") / 8
    if spec.id == "ghc-fc-per-link":
        return A2A_BYTES / seconds("a2a-fc8-2m") / 8
    if spec.id.startswith("fshmem-peak-"):
        return FSHMEM_STREAM_BYTES / seconds(spec.rtl[0])
    if spec.id == "block-signal-rtt":
        return seconds(spec.rtl[0])
    return seconds(spec.rtl[0])


def _model_value(spec: Spec, entry: dict | None, load) -> float | None:
    """The analytic model's value in SI units: its own row of published.toml, or for an rtl-only
    row the same operation's cost (a block-signal round trip: two 2-node barriers)."""
    if entry is not None:
        row = mvalidate.evaluate(entry, load=load)
        return mvalidate.to_si(row.predicted, row.unit)
    if spec.id == "block-signal-rtt":
        fab = load_fabric(resolve_fabric_path("optweb-fc8-45g"))
        return 2 * cost(fab, "barrier", 0, ranks=2).seconds
    return None


@dataclass
class Row:
    spec: Spec
    what: str
    source: str
    unit: str
    published: float | None
    lo: float | None
    hi: float | None
    model: float | None      # in the row's unit
    rtl: float               # in the row's unit
    cycles: str

    @property
    def error(self) -> float:
        if self.lo is not None:
            if self.lo <= self.rtl <= self.hi:
                return 0.0
            bound = self.lo if self.rtl < self.lo else self.hi
            return self.rtl / bound - 1.0
        return self.rtl / self.published - 1.0

    @property
    def reproduced(self) -> bool:
        if self.lo is not None:
            return self.lo <= self.rtl <= self.hi
        return abs(self.error) <= TOLERANCE

    def as_dict(self) -> dict:
        return {"id": self.spec.id, "class": self.spec.cls, "what": self.what, "source": self.source,
                "unit": self.unit, "published": self.published,
                "range": None if self.lo is None else [self.lo, self.hi], "model": self.model,
                "rtl": self.rtl, "rtl_cycles": self.cycles, "error": self.error,
                "reproduced": self.reproduced, "why": self.spec.why}


def measure(scenarios, overrides: str = "") -> dict:
    """Run mm-rtl-measure; its JSON records by scenario id."""
    exe = paths.bin_path("mm-rtl-measure")
    if not exe.exists():
        raise UserError(f"{exe} is not built: the RTL needs Verilator (scripts/install-deps.sh "
                        "installs it; then make)")
    cmd = [str(exe), str(CONFIGS)] + (["--set", overrides] if overrides else []) + list(scenarios)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise UserError(f"mm-rtl-measure failed: {r.stderr.strip() or r.returncode}")
    return {rec["id"]: rec for rec in map(json.loads, r.stdout.splitlines())}


def rows() -> list[Row]:
    """Every row: the paper's figure, the model's prediction and the RTL's measurement."""
    published = {e["id"]: e for e in mvalidate.load_published()}
    need = sorted({s for spec in SPECS for s in spec.rtl})
    m = measure(need)
    load = mvalidate.default_loader()
    out = []
    for spec in SPECS:
        entry = published.get(spec.id)
        p = spec.paper or entry
        unit = p["unit"]
        lo, hi = p.get("range", (None, None))
        model = _model_value(spec, entry, load)
        cycles = " + ".join(str(m[s]["cycles"]) for s in spec.rtl)
        out.append(Row(spec, p["what"], p["source"], unit, p.get("published"), lo, hi,
                       None if model is None else mvalidate.from_si(model, unit),
                       mvalidate.from_si(_rtl_value(spec, m), unit), cycles))
    return out


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.4g}"


def format_table(rs: list[Row]) -> str:
    head = f"{'id':28} {'paper':>9} {'model':>9} {'RTL':>9} {'unit':>6} {'error':>7}  {'':4} RTL cycles"
    lines = ["The RTL against the papers' figures and the analytic model (error: RTL / paper - 1; "
             f"tolerance ±{TOLERANCE:.0%}):", "", head, "-" * len(head)]
    for r in rs:
        paper = _fmt(r.published) if r.lo is None else f"{_fmt(r.lo)}-{_fmt(r.hi)}"
        mark = "ok" if r.reproduced else "MISS"
        cls = {"calibration": " (calibration)", "derived": " (derived)"}.get(r.spec.cls, "")
        lines.append(f"{r.spec.id:28} {paper:>9} {_fmt(r.model):>9} {_fmt(r.rtl):>9} {r.unit:>6} "
                     f"{r.error:+7.1%}  {mark:4} {r.cycles}{cls}")
        if not r.reproduced or (r.spec.why and r.spec.cls == "measured"):
            for i, chunk in enumerate(_wrap(r.spec.why or "UNEXPLAINED", 88)):
                lines.append(f"{'':8}{'why: ' if i == 0 else '     '}{chunk}")
    m = [r for r in rs if r.spec.cls == "measured"]
    lines += ["", f"measured rows: {sum(r.reproduced for r in m)} of {len(m)} within ±{TOLERANCE:.0%}; "
              "calibrations: the link latency of each configuration (rtl/configs/*.toml)"]
    return "\n".join(lines)


def _wrap(text: str, width: int) -> list[str]:
    import textwrap
    return textwrap.wrap(text, width) or [""]


# ------------------------------------------------------------------ calibration
CALIBRATIONS = (  # row, scenario, the configurations whose link latency it sets
    ("unicast-direct-small", "unicast-direct-small",
     ("optweb-fc8-45g.toml", "optweb-fc8-90g.toml", "optweb-ghc4x2-45g.toml")),
    ("fshmem-put-short-latency", "fshmem-put-short-latency", ("fshmem-2node.toml",)),
)


def _configured_latency(name: str) -> int:
    for line in (CONFIGS / name).read_text().splitlines():
        if line.startswith("link_latency_cycles"):
            return int(line.split("=", 1)[1].split("#", 1)[0])
    raise UserError(f"{CONFIGS / name}: no link_latency_cycles")


def calibrate() -> list[dict]:
    """The link latency each calibration row asks for: the time is the link latency plus the
    RTL's own path, so one run at the configured latency gives it."""
    published = {e["id"]: e for e in mvalidate.load_published()}
    out = []
    for row, sid, configs in CALIBRATIONS:
        rec = measure([sid])[sid]
        target = mvalidate.to_si(published[row]["published"], published[row]["unit"])
        target_cycles = target * rec["clock_mhz"] * 1e6
        current = _configured_latency(configs[0])
        want = round(current + target_cycles - rec["cycles"])
        out.append({"row": row, "target_cycles": target_cycles, "measured_cycles": rec["cycles"],
                    "configured": current, "calibrated": want, "configs": list(configs),
                    "consistent": all(_configured_latency(c) == want for c in configs)})
    return out


# ------------------------------------------------------------------ speed
def speed(nodes, seconds: float, threads=(1,)) -> list[dict]:
    """Each node count with each thread count asked (MM_RTL_THREADS; a result's `threads` says
    how many the library used: two only from 8 nodes on, with 2 CPUs)."""
    exe = paths.bin_path("rtl_speed")
    if not exe.exists():
        raise UserError(f"{exe} is not built: the RTL needs Verilator")
    out = []
    for n in nodes:
        for t in threads:
            r = subprocess.run([str(exe), str(CONFIGS / "optweb-fc8-45g.toml"), str(n), str(seconds)],
                               capture_output=True, text=True,
                               env={**os.environ, "MM_RTL_THREADS": str(t)})
            if r.returncode:
                raise UserError(f"rtl_speed {n}: {r.stderr.strip()}")
            out += [json.loads(line) for line in r.stdout.splitlines()]
    return out


# ------------------------------------------------------------------ command line
def add_arguments(p) -> None:
    p.formatter_class = options.HelpFormatter
    p.description = __doc__.split("\n\n", 1)[0]
    sub = p.add_subparsers(dest="rtl_command", metavar="SUBCOMMAND", title="subcommands")
    v = sub.add_parser("validate", help="the RTL's cycles beside the paper and the model",
                       description="Run the RTL on the papers' scenarios and print paper, "
                                   "model and RTL side by side (docs/rtl.md).")
    v.add_argument("--calibrate", action="store_true",
                   help="instead: derive each configuration's link latency from its calibration "
                        "row again, and say whether the configured value is it")
    v.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    s = sub.add_parser("speed", help="simulated cycles per second (a benchmark)")
    s.add_argument("--nodes", default="2,4,8,16", metavar="LIST", help="node counts (default 2,4,8,16)")
    s.add_argument("--threads", default="1,2", metavar="LIST",
                   help="threads evaluating the model, each measured (MM_RTL_THREADS; default 1,2: "
                        "two are used from 8 nodes on, on 2 CPUs or more)")
    s.add_argument("--seconds", type=float, default=3.0, metavar="S",
                   help="wall time per load and node count (default 3)")
    s.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    sub.add_parser("configs", help="the configurations of rtl/configs, as the simulator reads them")


def _write_json(path: str, data) -> None:
    with open(path, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")


def run(args) -> int:
    if args.rtl_command == "validate":
        if args.calibrate:
            res = calibrate()
            for c in res:
                state = "as configured" if c["consistent"] else f"configured {c['configured']}"
                print(f"{c['row']}: {c['target_cycles']:.1f} cycles wanted, {c['measured_cycles']} "
                      f"measured at {c['configured']}: link_latency_cycles = {c['calibrated']} "
                      f"({state}) in {', '.join(c['configs'])}")
            if args.json:
                _write_json(args.json, res)
            return 0 if all(c["consistent"] for c in res) else 1
        rs = rows()
        print(format_table(rs))
        if args.json:
            _write_json(args.json, {"tolerance": TOLERANCE, "rows": [r.as_dict() for r in rs]})
        ok = all(r.reproduced or r.spec.why for r in rs)
        if not ok:
            print("rtl validate: a row is outside tolerance without a documented reason", file=sys.stderr)
        return 0 if ok else 1
    if args.rtl_command == "speed":
        nodes = [int(x) for x in args.nodes.split(",") if x]
        if not nodes or any(n < 1 or n > 16 for n in nodes):
            raise UserError(f"--nodes {args.nodes}: node counts 1..16")
        try:
            threads = [int(x) for x in args.threads.split(",") if x]
        except ValueError:
            threads = []
        if not threads or any(t not in (1, 2) for t in threads):
            raise UserError(f"--threads {args.threads}: thread counts 1 or 2")
        res = speed(nodes, args.seconds, threads)
        print(f"{'nodes':>5} {'threads':>7} {'load':18} {'cycles/s':>10} {'clocked/s':>10} {'cycles':>10} "
              f"{'clocked':>9}")
        for r in res:
            print(f"{r['nodes']:>5} {r['threads']:>7} {r['load']:18} {r['cycles_per_s']:>10.0f} "
                  f"{r['clocked_per_s']:>10.0f} {r['cycles']:>10} {r['cycles_clocked']:>9}")
        if args.json:
            _write_json(args.json, res)
        return 0
    if args.rtl_command == "configs":
        for f in sorted(CONFIGS.glob("*.toml")):
            print(f"{f.name}:")
            for line in f.read_text().splitlines():
                if line and not line.startswith("#") and not line.startswith(" "):
                    print(f"  {line.split('#', 1)[0].rstrip()}")
        return 0
    print("meshmem rtl: a subcommand: validate, speed or configs (see meshmem rtl --help)",
          file=sys.stderr)
    return 2
