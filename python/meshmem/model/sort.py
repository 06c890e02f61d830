"""Distributed counting sort throughput (OPTWEB sort (IPSJ) eq. 1) and its GHC extension
(OPTWEB (JOCN 2022) §4.C.2).

Per node, eq. (1): T_node = min(W*M*C / A, B / m); system T = N * T_node, measured ~ eta * T.
On a GHC (r dimensions) the passes of steps (a)+(b) repeat per dimension (OPTWEB (JOCN 2022) §4.C.2):
    A(r) = passes_fixed + r * passes_per_dimension       (11 -> 17 for the baseline)
and each dimension of k nodes exchanges over k channels: B_dim = k * link, m per dimension.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from meshmem.model.fabric import Fabric, SortVariant
from meshmem.model.topology import Dimension


@dataclass(frozen=True)
class SortThroughput:
    """Eq. (1) evaluated: per-node memory and network limits and the resulting system throughput."""
    variant: str
    passes: int
    memory_limit: float      # bytes/s per node: W*M*C/A
    network_limit: float     # bytes/s per node: min over dimensions of B_dim/m
    nodes: int
    efficiency: float

    @property
    def peak(self) -> float:
        """Theoretical system throughput N * min(...) in bytes/s (OPTWEB sort (IPSJ) 'theoretical peak')."""
        return self.nodes * min(self.memory_limit, self.network_limit)

    @property
    def expected(self) -> float:
        """Peak times the measured pipeline efficiency (OPTWEB sort (IPSJ) §4.3: ~80%)."""
        return self.peak * self.efficiency

    @property
    def bound(self) -> str:
        """'memory' or 'network', whichever limits."""
        return "memory" if self.memory_limit <= self.network_limit else "network"


def fabric_variant(fabric: Fabric) -> SortVariant:
    """The last listed design with the fabric's own clock ([memory]) and link rate ([link]): the
    variant to use when C and B are set as fabric parameters."""
    last = fabric.sort.variants[-1]
    return replace(last, name="fabric", clock_hz=fabric.memory.clock_hz, link_bytes_per_s=fabric.link.bytes_per_s)


def _variant(fabric: Fabric, name: str | None) -> SortVariant:
    if fabric.sort is None:
        raise ValueError(f"{fabric.path}: fabric has no [sort] section")
    return fabric_variant(fabric) if name in (None, "fabric") else fabric.sort.variant(name)


def throughput(fabric: Fabric, dims: tuple[Dimension, ...], variant: str | None = None) -> SortThroughput:
    """Eq. (1) for `variant` (None: fabric parameters) over the mesh dimensions `dims`."""
    v = _variant(fabric, variant)
    r = len(dims)
    passes = v.passes_fixed + r * v.passes_per_dimension
    mem = fabric.memory.channel_width_bytes * fabric.memory.channels * v.clock_hz / passes
    net = min(d.size * d.links * v.link_bytes_per_s / v.exchanges_per_dimension for d in dims)
    n = math.prod(d.size for d in dims)
    return SortThroughput(v.name, passes, mem, net, n, fabric.sort.pipeline_efficiency)


def crossover_clock_hz(fabric: Fabric, dims: tuple[Dimension, ...], variant: str | None = None) -> float:
    """Clock at which memory and network limits meet: C* = A * B / (m * W * M)
    (OPTWEB sort (IPSJ) §5.1: 195 MHz)."""
    t = throughput(fabric, dims, variant)
    v = _variant(fabric, variant)
    return v.clock_hz * t.network_limit / t.memory_limit


def radix_passes(fabric: Fabric, key_bits: int) -> int:
    """Counting-sort rounds an LSD radix sort of `key_bits`-bit keys needs
    (OPTWEB sort (IPSJ) §5.2: 32 bits -> 6)."""
    return math.ceil(key_bits / fabric.sort.radix_bits_per_pass)
