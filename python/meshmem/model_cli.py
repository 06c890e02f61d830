"""`meshmem model`: validate the fabric model against the papers, predict one operation, sweep designs.

    meshmem model validate [--sensitivity] [--json FILE]
    meshmem model predict --fabric FILE --op OP --bytes L [--ranks N] [--set sec.key=val] [--json FILE]
    meshmem model sweep [--param degree|bandwidth|nodes ...] [--plot DIR] [--json FILE]
    meshmem model replay --fabric FILE --trace DIR [--compute-scale X] [--set sec.key=val] [--json FILE]
    meshmem model replay --fabric FILE --check --ranks N     (meshrun --fabric, before launching)
"""
from __future__ import annotations

import json
import sys

from meshmem.model import FabricError, ModelError, cost, load_fabric, resolve_fabric_path
from meshmem.model.units import parse_bytes


def add_arguments(p) -> None:
    """Sub-commands validate, predict, sweep and replay."""
    sub = p.add_subparsers(dest="model_command", metavar="SUBCOMMAND")
    v = sub.add_parser("validate", help="compare the model with the figures the papers publish")
    v.add_argument("--sensitivity", action="store_true",
                   help="also scale every fabric parameter by 0.9 and 1.1 and list the rows whose verdict flips")
    v.add_argument("--json", metavar="FILE", help="also write the counts, rows (and sensitivity) as JSON")
    pr = sub.add_parser("predict", help="predict one operation on one fabric")
    pr.add_argument("--fabric", required=True, help="fabric file or name in fabrics/")
    pr.add_argument("--op", required=True, help="alltoall, allgather, bcast, allreduce, put, get, sort, ...")
    pr.add_argument("--bytes", required=True, help="size per rank, e.g. 4096, 64K, 2G")
    pr.add_argument("--ranks", type=int, help="first N ranks only (default: all)")
    pr.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="override a fabric parameter, e.g. link.bandwidth_gbps=90 (repeatable)")
    pr.add_argument("--algorithm", help="force an MPI algorithm (mpi engine)")
    pr.add_argument("--packet", type=int, help="packet size in bytes (pgas engine)")
    pr.add_argument("--variant", help="sort design variant (sort op)")
    pr.add_argument("--json", metavar="FILE", help="also write the prediction as JSON")
    sw = sub.add_parser("sweep", help="sweep degree, link bandwidth or node count; optional PNG plots")
    sw.add_argument("--param", action="append", choices=("degree", "bandwidth", "nodes"),
                    help="what to sweep (repeatable; default: degree)")
    sw.add_argument("--fabric", default="optweb-fc8-45g", help="base fabric (default optweb-fc8-45g)")
    sw.add_argument("--compare", action="append", default=None,
                    help="extra fabrics for the bandwidth sweep (default cpu-ib-100g)")
    sw.add_argument("--links", default="45,90", help="link rates in Gbps for the bandwidth sweep")
    sw.add_argument("--max-degree", type=int, default=64)
    sw.add_argument("--max-nodes", type=int, default=4096)
    sw.add_argument("--min-bytes", default="1K")
    sw.add_argument("--max-bytes", default="4G")
    sw.add_argument("--bytes", default="1M", help="size per node for the nodes sweep")
    sw.add_argument("--op", default="alltoall")
    sw.add_argument("--plot", metavar="DIR", help="write PNG plots into DIR")
    sw.add_argument("--json", metavar="FILE", help="write the series as JSON")
    rp = sub.add_parser("replay", help="predict a traced run's time on a fabric (meshrun --fabric)")
    rp.add_argument("--fabric", required=True, help="fabric file or name in fabrics/")
    rp.add_argument("--trace", metavar="DIR", help="directory of rank-R.trace files")
    rp.add_argument("--compute-scale", type=float, metavar="X",
                    help="factor on measured compute time (default: the fabric's [compute] "
                         "measured_scale, else 1)")
    rp.add_argument("--check", action="store_true",
                    help="only check that the fabric loads and holds --ranks ranks")
    rp.add_argument("--ranks", type=int, help="ranks of the job (with --check)")
    rp.add_argument("--json", metavar="FILE", help="also write the prediction as JSON")
    rp.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="replace a value of the fabric file (repeatable; meshrun --fabric-set)")


def _write_json(path: str, data) -> None:
    with open(path, "w") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")


def _validate(args) -> int:
    from meshmem.model import validate
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
    fabric = load_fabric(resolve_fabric_path(args.fabric), args.set)
    opts = {k: v for k, v in (("algorithm", args.algorithm), ("packet_bytes", args.packet),
                              ("variant", args.variant)) if v is not None}
    c = cost(fabric, args.op, parse_bytes(args.bytes), args.ranks, **opts)
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
    """A one-line progress bar on stderr."""

    def __init__(self, label: str, width: int = 30):
        self.label, self.width, self.last = label, width, -1

    def __call__(self, done: int, total: int) -> None:
        pct = int(100 * done / max(total, 1))
        if pct == self.last:
            return
        self.last = pct
        fill = self.width * done // max(total, 1)
        sys.stderr.write(f"\r{self.label:10} [{'#' * fill}{' ' * (self.width - fill)}] {pct:3d}%")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _sweep(args) -> int:
    from meshmem.model import plot, sweep
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
            series += sweep.bandwidth_sweep([base] + others, links, args.op, parse_bytes(args.min_bytes),
                                            parse_bytes(args.max_bytes), bar)
        else:
            series += sweep.node_sweep(base, parse_bytes(args.bytes), args.op, args.max_nodes, bar)
    for s in series:
        last = f"{s['y'][-1]:.4g} at x = {s['x'][-1]}" if s["x"] else "no points"
        print(f"{s['figure']:6} {s['op']:10} {s['label']:32} {len(s['x']):4d} points, {last}")
    if args.plot:
        for path in plot.write_plots(series, args.plot):
            print(f"wrote {path}")
    if args.json:
        _write_json(args.json, series)
    return 0


def _replay(args) -> int:
    from meshmem.model import replay
    fabric = load_fabric(resolve_fabric_path(args.fabric), args.set)
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
    handlers = {"validate": _validate, "predict": _predict, "sweep": _sweep, "replay": _replay}
    if args.model_command not in handlers:
        print("usage: meshmem model {validate,predict,sweep,replay} ... (see --help)", file=sys.stderr)
        return 2
    try:
        return handlers[args.model_command](args)
    except (FabricError, ModelError, ValueError, KeyError) as e:
        print(f"meshmem model: {e}", file=sys.stderr)
        return 2
