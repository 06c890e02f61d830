"""Normalized FPGA and system throughput against degree (OPTWEB (JOCN 2022) §4.B.2, Figs 12 and 19).

FPGA throughput = L / T for large L (start-ups vanish); FPGA bandwidth = (d + 1) links (the d peers
plus the loopback channel, as OPTWEB (JOCN 2022) counts 8 x 45 = 360 Gbps on 8 FPGAs); normalized
FPGA throughput = their ratio; normalized system throughput = N times that. FC: N = d + 1. GHC (r = 2): d = dx + dy with
dx = ceil(d/2), dy = floor(d/2), N = (dx + 1)(dy + 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from meshmem.model import onestep
from meshmem.model.fabric import Fabric
from meshmem.model.topology import Dimension

LARGE = 1.0  # per-byte transfer time: the alpha terms are dropped, so any L gives the same ratio


@dataclass(frozen=True)
class DegreePoint:
    """One point of Fig. 12/19: a topology at degree d."""
    topology: str
    degree: int
    nodes: int
    fpga_throughput: float          # bytes/s
    normalized_fpga: float
    normalized_system: float


def dims_for_degree(topology: str, d: int, doubled: str = "none") -> tuple[Dimension, ...]:
    """Mesh dimensions of a full mesh or a balanced GHC (|dx - dy| <= 1) of degree d."""
    if topology == "full_mesh":
        return (Dimension(d + 1),)
    if topology == "ghc":
        dx, dy = math.ceil(d / 2), d // 2
        return (Dimension(dx + 1, 2 if doubled == "x" else 1), Dimension(dy + 1, 2 if doubled == "y" else 1))
    raise ValueError(f"degree sweep supports full_mesh and ghc (got {topology!r})")


def _transfer_per_byte(fabric: Fabric, op: str, dims: tuple[Dimension, ...]) -> float:
    if op == "alltoall":
        return onestep.alltoall(fabric, LARGE, dims).transfer_s
    if op == "averaging":
        return onestep.averaging_mesh(fabric, LARGE, dims).transfer_s
    raise ValueError(f"degree throughput: op must be 'alltoall' or 'averaging' (got {op!r})")


def at_dims(fabric: Fabric, op: str, dims: tuple[Dimension, ...], topology: str) -> DegreePoint:
    """Normalized throughputs of `op` over explicit mesh dimensions."""
    d = sum(x.degree for x in dims)
    n = math.prod(x.size for x in dims)
    fpga = 1.0 / _transfer_per_byte(fabric, op, dims)
    norm = fpga / ((d + 1) * fabric.link.bytes_per_s)
    return DegreePoint(topology, d, n, fpga, norm, n * norm)


def at_degree(fabric: Fabric, op: str, topology: str, d: int, doubled: str = "none") -> DegreePoint:
    """Normalized throughputs of `op` ('alltoall' or 'averaging') on `topology` at degree d."""
    return at_dims(fabric, op, dims_for_degree(topology, d, doubled), topology)


def ghc_over_fc_equal_nodes(fabric: Fabric, op: str, kx: int, ky: int, doubled: str = "none") -> float:
    """FPGA throughput of a kx x ky GHC over that of a full mesh of the same N = kx * ky nodes
    (OPTWEB (JOCN 2022) §4.B.2: 1/(d + 2) = 1/6 for 4 x 2; 2/(d + dy + 3) = 1/4 with doubled y links)."""
    ghc = at_dims(fabric, op, (Dimension(kx, 2 if doubled == "x" else 1),
                               Dimension(ky, 2 if doubled == "y" else 1)), "ghc")
    fc = at_dims(fabric, op, (Dimension(kx * ky),), "full_mesh")
    return ghc.fpga_throughput / fc.fpga_throughput


def ghc_over_fc_equal_degree(fabric: Fabric, op: str, d: int) -> float:
    """Normalized system throughput of a balanced GHC over a full mesh of the same degree d
    (OPTWEB (JOCN 2022) §4.D.2: up to 4.2 at d = 64)."""
    return at_degree(fabric, op, "ghc", d).normalized_system / at_degree(fabric, op, "full_mesh", d).normalized_system
