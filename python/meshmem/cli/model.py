"""`meshmem model`: validate the fabric model against the papers, predict one operation, sweep designs.

    meshmem model validate [--sensitivity] [--json FILE]
    meshmem model validate --measured [--shapes 2x1,2x2,3x1] [--sizes 8,64K] [--records N] [--recalibrate] [--quick]
    meshmem model calibrate [--write]        (the virtual cluster's link figures, fabrics/vcluster-tcp.toml)
    meshmem model predict --fabric FILE --op OP --bytes L [--ranks N] [--fabric-set S.K=V] [--json FILE]
    meshmem model sweep [--param degree|bandwidth|nodes ...] [--plot-dir DIR] [--json FILE]
    meshmem model replay --fabric FILE --trace DIR [--compute-scale X] [--fabric-set S.K=V] [--json FILE]
    meshmem model replay --fabric FILE --check --ranks N     (meshrun --fabric, before launching)
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from meshmem.bench import measured
from meshmem.cli import model_plot, options
from meshmem.cli.options import UserError
from meshmem.model import FabricError, ModelError, cost, load_fabric, replay, resolve_fabric_path, sweep, validate

DESCRIPTION = """\
The model of the papers' hardware: fabric descriptions (fabrics/*.toml: OPTWEB's full mesh and
GHC, the OPTWEB sorter, FSHMEM, ACCL, DataVortex, CPU clusters on InfiniBand) and the cost of
every operation on them. validate recomputes the figures the papers publish; predict gives one
operation's time; sweep draws the throughput-against-design curves of OPTWEB (JOCN 2022);
replay predicts a traced run's time (what meshrun --fabric does)."""

FABRIC_HELP = "fabric file, or a name in fabrics/ (e.g. optweb-fc8-90g)"


def add_arguments(p) -> None:
    """Sub-commands validate, predict, sweep and replay."""
    p.formatter_class = options.HelpFormatter
    p.description = DESCRIPTION
    sub = p.add_subparsers(dest="model_command", metavar="SUBCOMMAND", title="subcommands")
    v = sub.add_parser("validate", help="compare the model with the figures the papers publish",
                       description="Recompute every figure the papers publish from the fabric "
                                   "files and print prediction, published value and error, "
                                   "each row classed measured, calibration or derived "
                                   "(docs/model.md); the measured rows are the model's "
                                   "score.")
    v.add_argument("--sensitivity", action="store_true",
                   help="also scale every fabric parameter by 0.9 and 1.1 and list the rows "
                        "whose verdict flips")
    v.add_argument("--measured", action="store_true",
                   help="instead: run alltoall, allreduce and the sort on this machine's "
                        "virtual cluster (meshrun --vhosts; needs root) and compare each time "
                        "with the prediction of fabrics/vcluster-tcp.toml (±25 %%)")
    v.add_argument("--shapes", default="2x1,2x2,3x1", metavar="LIST",
                   help="--measured: virtual clusters HOSTSxRANKS-PER-HOST (default 2x1,2x2,3x1)")
    v.add_argument("--sizes", default="8,64K", metavar="LIST",
                   help="--measured: collective sizes, per peer for alltoall (default 8,64K)")
    v.add_argument("--records", default="2^20", metavar="N",
                   help="--measured: records of the sort, 0 for none (default 2^20)")
    v.add_argument("--variant", default="a3", metavar="NAME",
                   help="--measured: the sort's variant (default a3)")
    v.add_argument("--rounds", type=int, default=1, metavar="N",
                   help="--measured: rounds per benchmark, medians (default 1)")
    v.add_argument("--iters", type=int, default=1000, metavar="N",
                   help="--measured: iterations per size up to 8 KiB, a tenth above (default "
                        "1000: meshmem bench's; 200 left 20 above 8 KiB, whose first calls "
                        "set the figure)")
    v.add_argument("--recalibrate", action="store_true",
                   help="--measured: measure the link figures first, in the same run, and "
                        "predict with them instead of the file's")
    v.add_argument("--quick", action="store_true",
                   help="--measured: the fast form (2x1, 8 bytes, a sort of 2^14 records, "
                        "50 iterations): checks the machinery, not the model")
    options.add_json(v)
    ca = sub.add_parser("calibrate", help="measure the virtual cluster's link figures",
                        description="Measure the figures fabrics/vcluster-tcp.toml is calibrated "
                                    "on (a barrier, a put and puts both ways at once between 2 "
                                    "virtual hosts; a barrier, a put and a memcpy on one "
                                    "host): print them beside the file's values; --write puts "
                                    "them into the file. Needs root (virtual hosts).")
    ca.add_argument("--rounds", type=int, default=3, metavar="N",
                    help="rounds per benchmark, medians (default 3)")
    ca.add_argument("--iters", type=int, default=1000, metavar="N",
                    help="iterations of the 8-byte benchmarks, a tenth for 1 MiB (default 1000)")
    ca.add_argument("--write", action="store_true", help="write the values into the fabric file")
    options.add_json(ca)
    pr = sub.add_parser("predict", help="predict one operation on one fabric",
                        description="The time (and throughput) of one operation on a fabric, "
                                    "with the terms of the model that make it up.")
    pr.add_argument("--fabric", required=True, help=FABRIC_HELP)
    pr.add_argument("--op", required=True,
                    help="alltoall, allgather, bcast, allreduce, put, get, sort, ...")
    pr.add_argument("--bytes", required=True, metavar="SIZE",
                    help="bytes per rank, e.g. 4096, 64K, 2G")
    pr.add_argument("--ranks", type=int, metavar="N", help="the first N ranks only (default: "
                                                           "every node of the fabric)")
    options.add_fabric_set(pr, "for this prediction")
    pr.add_argument("--algo", "--algorithm", dest="algo", metavar="NAME",
                    help="force an MPI algorithm (fabrics of the mpi engine; default: the "
                         "fabric's rules; --algorithm is the old name)")
    pr.add_argument("--packet", type=int, metavar="BYTES",
                    help="packet size (fabrics of the pgas engine)")
    pr.add_argument("--variant", help="design variant of the sort (op sort)")
    options.add_json(pr)
    sw = sub.add_parser("sweep", help="sweep degree, link bandwidth or node count; PNG plots",
                        description="Throughput against degree, link rate or node count, the "
                                    "curves of OPTWEB's Figs. 9, 12 and 19; one PNG per "
                                    "figure with --plot-dir.")
    sw.add_argument("--param", action="append", choices=("degree", "bandwidth", "nodes"),
                    help="what to sweep (repeatable; default degree)")
    sw.add_argument("--fabric", default="optweb-fc8-45g",
                    help=FABRIC_HELP + " to start from (default optweb-fc8-45g)")
    sw.add_argument("--compare", action="append", default=None, metavar="FABRIC",
                    help="more fabrics for the bandwidth sweep (repeatable; default "
                         "cpu-ib-100g)")
    sw.add_argument("--links", default="45,90", metavar="LIST",
                    help="link rates in Gbps for the bandwidth sweep (default 45,90)")
    sw.add_argument("--max-degree", type=int, default=64, metavar="N",
                    help="the degree sweep's largest degree (default 64)")
    sw.add_argument("--max-nodes", type=int, default=4096, metavar="N",
                    help="the largest system of the degree and node sweeps (default 4096)")
    sw.add_argument("--min-bytes", default="1K", metavar="SIZE",
                    help="the bandwidth sweep's smallest size (default 1K)")
    sw.add_argument("--max-bytes", default="4G", metavar="SIZE",
                    help="the bandwidth sweep's largest size (default 4G)")
    sw.add_argument("--bytes", default="1M", metavar="SIZE",
                    help="bytes per node of the node sweep (default 1M)")
    sw.add_argument("--op", default="alltoall", help="the operation swept (default alltoall)")
    sw.add_argument("--plot-dir", "--plot", dest="plot_dir", metavar="DIR",
                    help="write one PNG per figure into DIR (--plot is the old name)")
    options.add_json(sw)
    rp = sub.add_parser("replay", help="predict a traced run's time on a fabric (meshrun "
                                       "--fabric)",
                        description="Replay the trace of a run (meshrun --fabric writes one) on "
                                    "a fabric: the predicted time, per phase, and its critical "
                                    "path.")
    rp.add_argument("--fabric", required=True, help=FABRIC_HELP)
    rp.add_argument("--trace", metavar="DIR", help="directory of rank-R.trace files")
    rp.add_argument("--compute-scale", type=float, metavar="X",
                    help="factor on measured compute time (default: the fabric's [compute] "
                         "measured_scale, else 1)")
    rp.add_argument("--check", action="store_true",
                    help="only check that the fabric loads and holds --ranks ranks")
    rp.add_argument("--ranks", type=int, metavar="N", help="ranks of the job (with --check)")
    options.add_json(rp)
    options.add_fabric_set(rp, "for this replay (meshrun --fabric-set)")


def _write_json(path: str, data) -> None:
    with open(path, "w") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")


def _measured(args) -> int:
    if args.sensitivity:
        raise UserError("--sensitivity is for the papers' table, not with --measured")
    try:
        shapes = measured.parse_shapes("2x1" if args.quick else args.shapes)
    except ValueError as e:
        raise UserError(str(e)) from None
    sizes = [8] if args.quick else options.parse_sizes("--sizes", args.sizes)
    records = 1 << 14 if args.quick else options.parse_size(args.records, "--records")
    options.at_least("--rounds", args.rounds, 1)
    options.at_least("--iters", args.iters, 10)
    why = measured.vhosts_unavailable()
    if why:
        print(f"meshmem model validate --measured: no virtual cluster here: {why}", file=sys.stderr)
        return 1
    result = measured.run(shapes, sizes, records=records, sort_variant=args.variant,
                          rounds=args.rounds, iters=50 if args.quick else args.iters,
                          recalibrate=args.recalibrate)
    print(measured.format_table(result))
    if args.json:
        _write_json(args.json, measured.as_json(result))
    return 0


def _calibrate(args) -> int:
    options.at_least("--rounds", args.rounds, 1)
    options.at_least("--iters", args.iters, 10)
    why = measured.vhosts_unavailable()
    if why:
        print(f"meshmem model calibrate: no virtual cluster here: {why}", file=sys.stderr)
        return 1
    load = os.getloadavg()[0]
    today = measured.measure_calibrations(rounds=args.rounds, iters=args.iters)
    old = measured.fabric_values()
    print(f"Calibrations of fabrics/{measured.FABRIC}.toml (load {load:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end):")
    for c in measured.CALIBRATIONS:
        print(f"  {c.key:30} {today[c.name]:>10.4g} {c.unit:7} (file: {old[c.name]:.4g})  "
              f"{c.name}: {c.what}")
    if args.write:
        path = resolve_fabric_path(measured.FABRIC)
        measured.write_calibrations(path, today)
        print(f"# wrote {path}")
    if args.json:
        _write_json(args.json, {"calibration": today, "file": old, "load_start": load,
                                "load_end": os.getloadavg()[0]})
    return 0


def _validate(args) -> int:
    if args.measured:
        return _measured(args)
    rows = validate.run_validation()
    print(validate.format_table(rows))
    data = {"tolerance": validate.TOLERANCE, "counts": validate.counts(rows),
            "rows": [r.as_dict() for r in rows]}
    if args.sensitivity:
        results = validate.sensitivity()
        print()
        print(validate.format_sensitivity(results))
        data["sensitivity"] = {"factor": validate.PERTURBATION, "parameters": results}
    if args.json:
        _write_json(args.json, data)
    ok = validate.passed(rows)
    if not ok:
        print("validate: a figure is outside tolerance without a documented reason", file=sys.stderr)
    return 0 if ok else 1


def _predict(args) -> int:
    fabric = load_fabric(resolve_fabric_path(args.fabric), args.fabric_set)
    opts = {k: v for k, v in (("algorithm", args.algo), ("packet_bytes", args.packet),
                              ("variant", args.variant)) if v is not None}
    c = cost(fabric, args.op, options.parse_size(args.bytes, "--bytes"), args.ranks, **opts)
    tput = c.throughput
    print(f"{c.fabric}: {c.op} of {int(c.nbytes)} B per rank on {c.ranks} ranks ({c.algorithm})")
    print(f"  time       {c.seconds * 1e6:.4g} µs")
    if tput:
        print(f"  throughput {tput * 8 / 1e9:.4g} Gbps per rank ({tput / 1e9:.4g} GB/s)")
    for k, v in c.terms.items():
        print(f"  {k:28} {v:.4g}" if isinstance(v, float) else f"  {k:28} {v}")
    if args.json:
        _write_json(args.json, c.as_dict())
    return 0


class ProgressBar:
    """Progress of one sweep on stderr: a bar redrawn in place on a terminal; one line when the
    sweep is done anywhere else (a log gets no frames)."""

    def __init__(self, label: str, width: int = 30, stream=None):
        self.label, self.width, self.last = label, width, -1
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        if not self.tty:
            if done >= total:
                self.stream.write(f"sweep {self.label}: {total} points in "
                                  f"{time.monotonic() - self.t0:.1f} s\n")
                self.stream.flush()
            return
        pct = int(100 * done / max(total, 1))
        if pct == self.last:
            return
        self.last = pct
        fill = self.width * done // max(total, 1)
        self.stream.write(f"\r{self.label:10} [{'#' * fill}{' ' * (self.width - fill)}] "
                          f"{pct:3d}%")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _sweep(args) -> int:
    base = load_fabric(resolve_fabric_path(args.fabric))
    series = []
    for param in args.param or ["degree"]:
        bar = ProgressBar(param)
        if param == "degree":
            if base.engine != "onestep":
                raise ModelError(f"{base.path}: the degree sweep needs a onestep (OPTWEB) fabric")
            series += sweep.degree_sweep(base, args.max_degree, args.max_nodes, bar)
        elif param == "bandwidth":
            others = [load_fabric(resolve_fabric_path(f)) for f in (args.compare or ["cpu-ib-100g"])]
            links = [float(x) / base.link.efficiency for x in args.links.split(",") if x.strip()]
            lo = options.parse_size(args.min_bytes, "--min-bytes")
            hi = options.parse_size(args.max_bytes, "--max-bytes")
            series += sweep.bandwidth_sweep([base] + others, links, args.op, lo, hi, bar)
        else:
            nbytes = options.parse_size(args.bytes, "--bytes")
            series += sweep.node_sweep(base, nbytes, args.op, args.max_nodes, bar)
    for s in series:
        last = f"{s['y'][-1]:.4g} at x = {s['x'][-1]}" if s["x"] else "no points"
        print(f"{s['figure']:6} {s['op']:10} {s['label']:32} {len(s['x']):4d} points, {last}")
    if args.plot_dir:
        for path in model_plot.write_plots(series, args.plot_dir):
            print(f"wrote {path}")
    if args.json:
        _write_json(args.json, series)
    return 0


def _replay(args) -> int:
    fabric = load_fabric(resolve_fabric_path(args.fabric), args.fabric_set)
    if args.compute_scale is not None and not args.compute_scale >= 0:
        raise ValueError(f"--compute-scale must be a number >= 0 (got {args.compute_scale})")
    if args.check:
        if args.ranks is not None and args.ranks > fabric.nodes:
            raise ValueError(f"{fabric.path}: the job has {args.ranks} ranks but the fabric has "
                             f"{fabric.nodes} nodes")
        return 0
    if not args.trace:
        raise ValueError("replay needs --trace DIR (or --check)")
    res = replay.replay(fabric, args.trace, args.compute_scale)
    print(replay.format_report(res))
    if args.json:
        _write_json(args.json, res.as_dict())
    return 0


def run(args) -> int:
    """Dispatch to the sub-command; fabric and model errors print one clear line and return 2."""
    handlers = {"validate": _validate, "predict": _predict, "sweep": _sweep, "replay": _replay,
                "calibrate": _calibrate}
    if args.model_command not in handlers:
        raise UserError("a subcommand is needed: validate, predict, sweep, replay or calibrate (see "
                        "meshmem model --help)")
    options.check_outputs(args)
    if getattr(args, "plot_dir", None) and Path(args.plot_dir).suffix.lower() == ".png":
        raise UserError(f"--plot-dir {args.plot_dir}: the sweep writes one PNG per figure "
                        f"into a directory")
    try:
        return handlers[args.model_command](args)
    except (FabricError, ModelError, ValueError, KeyError) as e:
        print(f"meshmem model: {e}", file=sys.stderr)
        return 2
