"""OPTWEB one-step collectives on a full mesh and on a 2-D GHC (OPTWEB (JOCN 2022) §2.C-D, §4.B,
Tables 2, 4).

Notation (OPTWEB (JOCN 2022) Appendix A): L is the message size per FPGA (bytes each node holds
and exchanges), alpha the start-up of one direct (1-hop) step, beta = 1 / (effective link rate). Every node owns one
memory channel M#n per peer plus one for itself (loopback), so on a dimension of k nodes a node moves
L/k bytes over each of its k channels at once: one step costs alpha + beta * L / k.

A GHC collective runs per dimension, x then y; the second step depends on the first, and the
fabric's `sync_us` is charged between them (and between the two collectives of sharing averaged
parameters). OPTWEB's files set it to 0: the ready notifications of the FPGAs differ by at most
0.4 us and "this time difference can be compensated by the receive buffer" (OPTWEB (JOCN 2022)
§3.C.2). Derivations: docs/model.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from meshmem.model.fabric import Fabric
from meshmem.model.topology import Dimension


@dataclass(frozen=True)
class StepCost:
    """Time of one collective, split into start-up, bandwidth and synchronisation terms (seconds)."""
    startup_s: float
    transfer_s: float
    sync_s: float

    @property
    def seconds(self) -> float:
        """Total time."""
        return self.startup_s + self.transfer_s + self.sync_s

    def __add__(self, other: StepCost) -> StepCost:
        return StepCost(self.startup_s + other.startup_s, self.transfer_s + other.transfer_s,
                        self.sync_s + other.sync_s)


ZERO = StepCost(0.0, 0.0, 0.0)


def _beta(fabric: Fabric, dim: Dimension, both_ways: bool = False) -> float:
    """Seconds per byte on one node pair of a dimension (doubled links halve it); @p both_ways:
    while the pair's other direction carries data too (every node sends and receives: the
    link's duplex rate)."""
    link = fabric.link_of(dim.axis)
    return 1.0 / ((link.duplex_bytes_per_s if both_ways else link.bytes_per_s) * dim.links)


def _alpha(fabric: Fabric, per_peer_bytes: float, axis: int = 0) -> float:
    """Start-up of one step on an axis; rendezvous adds the fabric's extra above the eager threshold."""
    extra = fabric.protocol.rendezvous_extra_s if per_peer_bytes > fabric.protocol.eager_threshold_bytes else 0.0
    return fabric.link_of(axis).hop_latency_s + extra


def _members(dims: tuple[Dimension, ...]) -> int:
    """The nodes the dimensions span (the product of their sizes)."""
    return math.prod(d.size for d in dims)


def _chain(fabric: Fabric, steps: list[StepCost]) -> StepCost:
    """Steps run one after the other with a sync between dependent steps."""
    total = ZERO
    for i, s in enumerate(steps):
        total = total + s
        if i:
            total = total + StepCost(0.0, 0.0, fabric.protocol.sync_s)
    return total


def alltoall(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """All-to-all of L bytes per node: per dimension of k nodes, L/k bytes to every peer at once.

    FC: alpha + beta L / N.  GHC (r = 2): 2 alpha + sync + beta L (1/kx + 1/ky)
    (OPTWEB (JOCN 2022) Table 2)."""
    return _chain(fabric, [StepCost(_alpha(fabric, L / d.size, d.axis),
                                    _beta(fabric, d, both_ways=True) * L / d.size, 0.0)
                           for d in dims])


def reduce_scatter(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """All-to-all with the reduction applied in flight (OPTWEB (JOCN 2022) §3.C.2, aggressive approach).

    On a GHC each dimension moves the full L, as OPTWEB (JOCN 2022) Table 4 assumes (averaging
    throughput is half the all-to-all throughput on both FC and GHC)."""
    return alltoall(fabric, L, dims)


def allgather(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """All-gather ending with L bytes per node (each contributes L/N), dimensions in reverse order.

    A node sends what it holds to every peer of the dimension; after a dimension of k nodes it holds
    k times more. FC: alpha + beta L / N."""
    held = L / _members(dims)
    steps = []
    for d in reversed(dims):
        steps.append(StepCost(_alpha(fabric, held, d.axis), _beta(fabric, d, both_ways=True) * held,
                              0.0))
        held *= d.size
    return _chain(fabric, steps)


def averaging_mesh(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """Sharing averaged parameters, the paper's GHC schedule (OPTWEB (JOCN 2022) Table 4):
    reduce-scatter then all-gather, each moving L per dimension, a sync in between.
    FC: 2 alpha + sync + 2 beta L / N."""
    rs = reduce_scatter(fabric, L, dims)
    ag = alltoall(fabric, L, dims) if len(dims) > 1 else allgather(fabric, L, dims)
    return _chain(fabric, [rs, ag])


def allreduce_onestep(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """meshmem's all-reduce of small vectors (its runtime, up to the eager size): every whole
    vector to every rank, an all-gather ending with N L bytes per node, then each rank folds
    the N - 1 received vectors into its own, reading each once."""
    n = _members(dims)
    fold = StepCost(0.0, (n - 1) * L / fabric.memory.bytes_per_s, 0.0)
    return _chain(fabric, [allgather(fabric, n * L, dims), fold])


def averaging_naive(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """Naive approach (OPTWEB (JOCN 2022) §3.C.2, Fig. 6a): all-to-all, then an averaging pass that reads the L
    received bytes from memory (W*M*C) and writes L/N, then all-gather: three dependent steps."""
    a2a = alltoall(fabric, L, dims)
    mem = fabric.memory.bytes_per_s
    average = StepCost(0.0, L / mem, 0.0)  # reads overlap the L/N writes on separate channels
    ag = alltoall(fabric, L, dims) if len(dims) > 1 else allgather(fabric, L, dims)
    return _chain(fabric, [a2a, average, ag])


def bcast(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """Broadcast of L bytes: the distributor replicates the root's stream to every link
    (OPTWEB (JOCN 2022) §2.C); on a GHC the root's row first, then every column."""
    return _chain(fabric, [StepCost(_alpha(fabric, L, d.axis), _beta(fabric, d) * L, 0.0) for d in dims])


def bcast_pieces(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """Broadcast of L bytes on a two-level team in pieces, as meshmem's runtime does across
    hosts above `bcast_pieces_bytes`: member x of the root's row (x) takes piece x (L / kx)
    from the root, pushes it down its column (y), and every other row shares the kx pieces
    along the row (an all-gather ending with L). The network carries L / kx per column where
    the row-then-column form carries L; the root's row copies the rest while its pieces
    travel, which costs nothing here."""
    x, y = dims
    piece = L / x.size
    return _chain(fabric, [StepCost(_alpha(fabric, piece, x.axis), _beta(fabric, x) * piece, 0.0),
                           StepCost(_alpha(fabric, piece, y.axis), _beta(fabric, y) * piece, 0.0),
                           allgather(fabric, L, (x,))])


def scatter(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """Scatter of L bytes from the root (L/N each). On a GHC the root sends each column its share
    (L/kx per x peer), then each row member forwards L/N to each y peer."""
    steps, share = [], L
    for d in dims:
        share /= d.size
        steps.append(StepCost(_alpha(fabric, share, d.axis), _beta(fabric, d) * share, 0.0))
    return _chain(fabric, steps)


def gather(fabric: Fabric, L: float, dims: tuple[Dimension, ...]) -> StepCost:
    """Gather of L bytes at the root (mirror of scatter; each root channel receives its share)."""
    return scatter(fabric, L, tuple(reversed(dims)))


def barrier(fabric: Fabric, dims: tuple[Dimension, ...]) -> StepCost:
    """Barrier: one block-signal exchange per dimension (OPTWEB (JOCN 2022) §2.C sync IP), no data."""
    return _chain(fabric, [StepCost(fabric.link_of(d.axis).hop_latency_s, 0.0, 0.0) for d in dims])


def unicast(fabric: Fabric, L: float, hops: int | tuple[int, ...]) -> StepCost:
    """Put of L bytes over direct links, store-and-forward through memory at each hop
    (OPTWEB (JOCN 2022) §2.D: an indirect 2-hop transfer of 1024 KiB took 2.0 x the direct one).
    `hops`: a hop count on [link], or the axis of each hop (Topology.hop_axes)."""
    axes = (0,) * max(hops, 1) if isinstance(hops, int) else (hops or (0,))
    return _chain(fabric, [StepCost(_alpha(fabric, L, a), L / fabric.link_of(a).bytes_per_s, 0.0)
                           for a in axes])
