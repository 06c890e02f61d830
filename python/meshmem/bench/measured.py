"""The model against this machine: the virtual cluster.

`fabrics/vcluster-tcp.toml` describes H virtual hosts of this machine (network namespaces joined
by veth, UCX over TCP between them, shared memory inside each) as a two-level GHC: x the R ranks
of one host ([link], shared memory), y the H hosts ([link_y], TCP). Its link figures and memory
rate are calibrations of this machine, each taken by one benchmark (CALIBRATIONS, `meshmem model
calibrate`); `meshmem model validate --measured` then runs the collectives and the sort on the
virtual cluster and prints, beside each measured time, the time the model predicts from the
fabric file (the sort through `meshrun --fabric`, a traced run replayed on the file).

Rows are classed as in the papers' table (validate.py): `calibration` (a figure a fabric value
was read off: shown with the file's value, not counted) and `measured` (a prediction). A
prediction is judged within +-TOLERANCE; the machine is shared and noisy, so the table's
verdicts are the figures of one run, to be read with the load printed beside them.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from meshmem.bench import osu as bench
from meshmem.cli.report import format_size
from meshmem.launch.commands import LaunchOptions, vhosts_script
from meshmem.launch.paths import bin_path
from meshmem.model.fabric import load_fabric, resolve_fabric_path
from meshmem.model.ops import cost

TOLERANCE = 0.25
FABRIC = "vcluster-tcp"
KiB = 1024


@dataclass(frozen=True)
class Calibration:
    """One fabric value read off one benchmark of this machine."""
    name: str       # as the fabric file's mark says: "CALIBRATED on this machine (NAME)"
    key: str        # section.key in the fabric file
    what: str       # what is measured, and how the value follows
    op: str         # the benchmark (meshmem bench OP)
    vhosts: int     # 0: one host, 2 ranks; 2: two virtual hosts, one rank each
    unit: str


CALIBRATIONS = (
    # a step's start-up (alpha) is what the model's barrier costs per dimension (a block-signal
    # exchange, no data: onestep.barrier); until 24 Nov it was read off the ping-pong, whose
    # benchmark then printed the whole round trip (16.5 us between virtual hosts, where the
    # barrier takes 11.5 and half the round trip 8.2)
    Calibration("shm-latency", "link.hop_latency_us",
                "meshmem bench coll_barrier (meshmem_coll_barrier: one flag exchange, no data), "
                "2 ranks on one host", "coll_barrier", 0, "µs"),
    Calibration("shm-bandwidth", "link.bandwidth_gbps",
                "meshmem bench put (+ quiet), 2 ranks on one host: 1 MiB / (t(1 MiB) - t(8))",
                "put", 0, "Gbit/s"),
    # between hosts, as inside one: meshmem's own transfers (its large puts and a collective's
    # large messages are UCX active messages; ucx_perftest's ucp_put_bw measures UCX's TCP
    # emulation of RMA, 10-25 x slower, which no collective uses)
    Calibration("net-latency", "link_y.hop_latency_us",
                "meshmem bench coll_barrier (meshmem_coll_barrier: one flag exchange, no data) "
                "between 2 virtual hosts (UCX over TCP)", "coll_barrier", 2, "µs"),
    Calibration("net-bandwidth", "link_y.bandwidth_gbps",
                "meshmem bench put (+ quiet) between 2 virtual hosts: 1 MiB / (t(1 MiB) - t(8))",
                "put", 2, "Gbit/s"),
    Calibration("net-duplex-bandwidth", "link_y.duplex_bandwidth_gbps",
                "meshmem bench put_bidir (both ranks put + quiet towards each other at once) "
                "between 2 virtual hosts: 1 MiB / (t(1 MiB) - t(8)), per direction",
                "put_bidir", 2, "Gbit/s"),
    Calibration("memory-bandwidth", "compute.memory_gbytes_per_s",
                "memcpy of 1 MiB by one rank, timed in the put runs on one host", "put", 0,
                "GB/s"),
)
CALIBRATION_NAMES = tuple(c.name for c in CALIBRATIONS)


@dataclass(frozen=True)
class MeasuredRow:
    """One row of the table: a calibration (the file's value against today's measurement) or a
    prediction against a measurement."""
    id: str
    cls: str          # "calibration" or "measured"
    what: str
    unit: str
    measured: float
    predicted: float  # calibration: the fabric file's value

    @property
    def error(self) -> float:
        """predicted / measured - 1."""
        return self.predicted / self.measured - 1.0 if self.measured > 0 else float("inf")

    @property
    def within(self) -> bool:
        """Within +-TOLERANCE."""
        return abs(self.error) <= TOLERANCE

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return {"id": self.id, "class": self.cls, "what": self.what, "unit": self.unit,
                "measured": self.measured, "predicted": self.predicted, "error": self.error,
                "within": self.within}


@dataclass(frozen=True)
class Shape:
    """H virtual hosts of R ranks each (ranks placed by slot: x local rank, y host)."""
    hosts: int
    per_host: int

    @property
    def ranks(self) -> int:
        return self.hosts * self.per_host

    @property
    def label(self) -> str:
        return f"{self.hosts}x{self.per_host}"

    def overrides(self) -> list[str]:
        """The fabric file's topology for this shape."""
        return [f"topology.kx={self.per_host}", f"topology.ky={self.hosts}"]


def parse_shapes(text: str) -> list[Shape]:
    """'2x2,3x1' -> shapes (H hosts x R ranks each); ValueError naming the bad entry."""
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*(\d+)x(\d+)\s*", item)
        if not m or int(m.group(1)) < 2 or int(m.group(2)) < 1:
            raise ValueError(f"--shapes entry {item!r} is not HOSTSxRANKS with 2 or more hosts "
                             f"(e.g. 2x2)")
        out.append(Shape(int(m.group(1)), int(m.group(2))))
    return out


def vhosts_unavailable() -> str | None:
    """Why no virtual cluster can be built here (meshrun-vhosts check), or None."""
    script = vhosts_script()
    if not script.exists():
        return f"{script} is not built"
    done = subprocess.run([str(script), "check"], capture_output=True, text=True)
    return (done.stdout.strip() or "meshrun-vhosts check failed") if done.returncode else None


# ------------------------------------------------------------------ running the benchmarks

def _bench(op_name: str, ranks: int, vhosts: int, sizes: list[int], rounds: int, iters: int,
           log) -> dict:
    """{bytes: (meshmem µs, one-rank memcpy GB/s or None)} of `meshmem bench OP`, meshmem alone."""
    op = bench.OPS[op_name]
    if op.program == "coll":
        heap = max(64 << 20, 2 * ranks * max(sizes) + (32 << 20))
        variants = [("auto", ["-a", "auto", "-p", "0", "-d", "float32"])]
    else:
        heap, variants = max(64 << 20, 2 * max(sizes) + (32 << 20)), None
    opts = LaunchOptions(ranks=ranks, bind="core", heap_bytes=heap, timeout_s=300, vhosts=vhosts)
    rows = bench.measure(op, sizes, opts, None, rounds, iters, max(iters // 10, 5), None,
                         log=log, variants=variants)
    return {r["bytes"]: (r["meshmem_us"], r.get("memcpy_one_rank_GBps")) for r in rows}


def measure_calibrations(sizes=(8, 1024 * KiB), rounds: int = 1, iters: int = 1000,
                         log=print) -> dict:
    """Today's value of every calibration, in the fabric file's units: {name: value}."""
    small, big = sizes
    runs = {}
    for c in CALIBRATIONS:
        key = (c.op, c.vhosts)
        if key not in runs:
            runs[key] = _bench(c.op, 2, c.vhosts,
                               [small, big] if bench.OPS[c.op].sized else [0], rounds, iters, log)
    out = {}
    for c in CALIBRATIONS:
        r = runs[(c.op, c.vhosts)]
        if c.unit == "µs":
            out[c.name] = r[min(r)][0]                                           # µs
        elif c.unit == "Gbit/s":
            out[c.name] = (big - small) * 8 / ((r[big][0] - r[small][0]) * 1e-6) / 1e9
        else:
            out[c.name] = r[big][1]                                              # GB/s
    return out


def fabric_values(path: Path | None = None) -> dict:
    """{calibration name: the fabric file's value}."""
    f = load_fabric(path or resolve_fabric_path(FABRIC))
    vals = {}
    for c in CALIBRATIONS:
        section, key = c.key.split(".")
        vals[c.name] = float(f.raw[section][key])
    return vals


def calibration_overrides(values: dict) -> list[str]:
    """--fabric-set overrides that put @p values {name: value} into the fabric."""
    by = {c.name: c for c in CALIBRATIONS}
    return [f"{by[n].key}={v:.6g}" for n, v in values.items()]


def write_calibrations(path: Path, values: dict) -> None:
    """Replace the calibrated values in the fabric file, keeping every comment."""
    text = path.read_text()
    section = None
    by_key = {c.key: values[c.name] for c in CALIBRATIONS if c.name in values}
    lines = []
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s.startswith("[") and not s.startswith("[["):
            section = s.split("]")[0].strip("[]")
        m = re.match(r"(\s*)([A-Za-z_]+)(\s*=\s*)([-0-9.eE+]+)(.*)", line, re.S)
        if m and f"{section}.{m.group(2)}" in by_key:
            v = by_key[f"{section}.{m.group(2)}"]
            old = m.group(4)
            new = f"{v:.4g}"
            if "." not in new and "e" not in new:
                new += ".0"
            rest = m.group(5)
            pad = len(old) + len(rest) - len(rest.lstrip(" "))  # keep the comment's column
            line = m.group(1) + m.group(2) + m.group(3) + new.ljust(pad - 1) + " " + rest.lstrip(" ")
        lines.append(line)
    path.write_text("".join(lines))


def _sort_run(shape: Shape, records: int, variant: str, overrides: list[str], log) -> dict:
    """`meshmem sort --vhosts H` of one variant, measured, and its prediction on the fabric
    (the sort's own --fabric: one more run under meshrun --fabric): the JSON row."""
    with tempfile.TemporaryDirectory(prefix="meshmem-measured-") as d:
        out = Path(d) / "sort.json"
        cmd = [str(bin_path("meshmem")), "sort", "--vhosts", str(shape.hosts),
               "--ranks", str(shape.ranks), "--records", str(records), "--variant", variant,
               "--vs", "none", "--rounds", "1", "--bind-to", "core", "--fabric", FABRIC,
               "--json", str(out)]
        for o in shape.overrides() + overrides:
            cmd += ["--fabric-set", o]
        log(f"  sort {variant} on {shape.label}: {records} records", file=sys.stderr)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if done.returncode != 0 or not out.exists():
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
            raise RuntimeError(f"meshmem sort on {shape.label} failed ({done.returncode}):\n{tail}")
        rows = json.loads(out.read_text())["results"]
    return next(r for r in rows if r.get("runtime") == "meshmem" and "predicted_s" in r)


def run(shapes: list[Shape], sizes: list[int], ops=("alltoall", "allreduce"),
        records: int = 1 << 20, sort_variant: str = "a3", rounds: int = 1, iters: int = 1000,
        recalibrate: bool = False, log=print) -> dict:
    """Measure and predict: {rows: [MeasuredRow], calibration: {name: value used}, load: ...}."""
    file_vals = fabric_values()
    rows, used = [], dict(file_vals)
    load_start = os.getloadavg()[0]
    if recalibrate:
        today = measure_calibrations(rounds=rounds, iters=iters, log=log)
        by = {c.name: c for c in CALIBRATIONS}
        for name, v in today.items():
            rows.append(MeasuredRow(f"cal-{name}", "calibration", by[name].what, by[name].unit,
                                    v, file_vals[name]))
        used = today
    overrides = calibration_overrides(used) if recalibrate else []
    for shape in shapes:
        fab = load_fabric(resolve_fabric_path(FABRIC), shape.overrides() + overrides)
        for op in ops:
            times = _bench(op, shape.ranks, shape.hosts, sizes, rounds, iters, log)
            for s in sizes:
                L = s * shape.ranks if op == "alltoall" else s  # the model's L: bytes per rank
                pred = cost(fab, op, L).seconds * 1e6
                size = format_size(s)
                rows.append(MeasuredRow(f"v{shape.label}-{op}-{size}", "measured",
                                        f"{op} {size} on {shape.hosts} vhosts x {shape.per_host}",
                                        "µs", times[s][0], pred))
        if records:
            r = _sort_run(shape, records, sort_variant, overrides, log)
            rows.append(MeasuredRow(f"v{shape.label}-sort-{sort_variant}", "measured",
                                    f"sort {sort_variant} of {records} records on {shape.hosts} "
                                    f"vhosts x {shape.per_host} (meshrun --fabric)", "ms",
                                    r["seconds"] * 1e3, r["predicted_s"] * 1e3))
    return {"rows": rows, "calibration": used, "fabric_values": file_vals,
            "recalibrated": recalibrate, "tolerance": TOLERANCE,
            "load": {"start": load_start, "end": os.getloadavg()[0]}}



def format_table(result: dict) -> str:
    """The table: one line per row with the verdict, then the counts and the load."""
    rows = result["rows"]
    head = f"{'id':28} {'measured':>10} {'predicted':>10} {'unit':>6} {'error':>8}  verdict"
    lines = [f"The model (fabrics/{FABRIC}.toml) against this machine's virtual cluster "
             f"(tolerance ±{TOLERANCE:.0%}); load {result['load']['start']:.1f} at the start, "
             f"{result['load']['end']:.1f} at the end:"]
    for cls, title in (("calibration", "CALIBRATION: today's measurement against the file's value "
                                       "(the file's value is the 'predicted' column)"),
                       ("measured", "MEASURED: predicted from the fabric file")):
        mine = [r for r in rows if r.cls == cls]
        if not mine:
            continue
        lines += ["", f"{title} ({len(mine)} rows):", head, "-" * len(head)]
        for r in mine:
            lines.append(f"{r.id:28} {r.measured:>10.4g} {r.predicted:>10.4g} {r.unit:>6} "
                         f"{r.error:>+8.1%}  {'ok' if r.within else 'MISS'}")
    m = [r for r in rows if r.cls == "measured"]
    lines.append(f"\nmeasured: {len(m)} rows, {sum(r.within for r in m)} within ±{TOLERANCE:.0%}"
                 f" ({'recalibrated in this run' if result['recalibrated'] else 'link figures from the fabric file'})")
    return "\n".join(lines)


def as_json(result: dict) -> dict:
    """The result as plain JSON."""
    return {**result, "rows": [r.as_dict() for r in result["rows"]]}
