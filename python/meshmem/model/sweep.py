"""Parameter sweeps behind `meshmem model sweep`: degree (OPTWEB (JOCN 2022) Figs 12, 19), link bandwidth
(OPTWEB (JOCN 2022) Fig. 9 style: throughput against size per link rate) and node count (up to 4096).

Each sweep returns a list of series {label, x, y, x_label, y_label, figure}; `progress(done, total)`
is called after each point so the CLI can draw a progress bar.
"""
from __future__ import annotations

import math
from typing import Callable

from meshmem.model import ops, throughput
from meshmem.model.fabric import Fabric, fabric_from_dict

Progress = Callable[[int, int], None]


def _noop(done: int, total: int) -> None:
    return None


def degree_sweep(fabric: Fabric, max_degree: int = 64, max_nodes: int = 4096,
                 progress: Progress = _noop) -> list[dict]:
    """Normalized system throughput of all-to-all (Fig. 12) and averaging (Fig. 19) against degree,
    FC and balanced GHC, for degrees whose node count stays <= max_nodes."""
    degrees = list(range(1, max_degree + 1))
    series = []
    total, done = 4 * len(degrees), 0
    for op, fig in (("alltoall", "fig12"), ("averaging", "fig19")):
        for topo in ("full_mesh", "ghc"):
            xs, ys = [], []
            for d in degrees:
                pt = throughput.at_degree(fabric, op, topo, d)
                if pt.nodes <= max_nodes:
                    xs.append(d)
                    ys.append(pt.normalized_system)
                done += 1
                progress(done, total)
            series.append({"figure": fig, "label": f"{'FC' if topo == 'full_mesh' else 'GHC (r = 2)'}",
                           "op": op, "x": xs, "y": ys, "x_label": "degree d (transceivers per FPGA)",
                           "y_label": "normalized system throughput"})
    return series


def sizes(min_bytes: int = 1024, max_bytes: int = 4 << 30) -> list[int]:
    """Powers of two from min_bytes to max_bytes (the x axis of OPTWEB (JOCN 2022) Figs 8-9)."""
    out, b = [], min_bytes
    while b <= max_bytes:
        out.append(b)
        b *= 2
    return out


def with_link(fabric: Fabric, gbps: float) -> Fabric:
    """A copy of `fabric` whose links run at `gbps` physical."""
    raw = {k: (dict(v) if isinstance(v, dict) else v) for k, v in fabric.raw.items()}
    raw["link"]["bandwidth_gbps"] = float(gbps)
    return fabric_from_dict(raw, fabric.path + f" (link {gbps} Gbps)")


def bandwidth_sweep(fabrics: list[Fabric], link_gbps: list[float], op: str = "alltoall",
                    min_bytes: int = 1024, max_bytes: int = 4 << 30, progress: Progress = _noop) -> list[dict]:
    """Throughput (Gbps per node) against size per node: the first fabric at each physical link rate, then
    every other fabric as given (e.g. the CPU+IB baseline), as in OPTWEB (JOCN 2022) Fig. 9."""
    xs = sizes(min_bytes, max_bytes)
    variants = [(with_link(fabrics[0], g), f"{fabrics[0].name} @ {g * fabrics[0].link.efficiency:g} Gbps/link")
                for g in link_gbps]
    variants += [(f, f.name) for f in fabrics[1:]]
    total, done, series = len(xs) * len(variants), 0, []
    for fab, label in variants:
        ys = []
        for L in xs:
            ys.append(ops.cost(fab, op, L).throughput * 8 / 1e9)
            done += 1
            progress(done, total)
        series.append({"figure": "fig9", "label": label, "op": op, "x": xs, "y": ys,
                       "x_label": "data size per node (bytes)", "y_label": f"{op} throughput (Gbps per node)"})
    return series


def node_sweep(fabric: Fabric, nbytes: int, op: str = "alltoall", max_nodes: int = 4096,
               progress: Progress = _noop) -> list[dict]:
    """Time of `op` on `nbytes` per node against N = 4..max_nodes (powers of two): a full mesh of N
    and the most balanced GHC kx x ky = N, with the fabric's links."""
    ns = [1 << k for k in range(2, int(math.log2(max_nodes)) + 1)]
    total, done = 2 * len(ns), 0
    out = []
    for topo in ("full_mesh", "ghc"):
        xs, ys = [], []
        for n in ns:
            raw = {k: (dict(v) if isinstance(v, dict) else v) for k, v in fabric.raw.items()}
            if topo == "full_mesh":
                raw["topology"] = {"kind": "full_mesh", "nodes": n}
            else:
                kx = 1 << math.ceil(math.log2(n) / 2)
                raw["topology"] = {"kind": "ghc", "kx": kx, "ky": n // kx}
            fab = fabric_from_dict(raw, fabric.path + f" ({topo} N={n})")
            xs.append(n)
            ys.append(ops.cost(fab, op, nbytes).seconds * 1e6)
            done += 1
            progress(done, total)
        out.append({"figure": "nodes", "label": "FC" if topo == "full_mesh" else "GHC (r = 2)", "op": op,
                    "x": xs, "y": ys, "x_label": "nodes N", "y_label": f"{op} time of {nbytes} B per node (us)"})
    return out
