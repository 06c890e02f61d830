"""Time models of the papers' application kernels on a fabric: FSHMEM's two-node matrix
multiplication and convolution on Intel's DLA, and DataVortex's 3-D FFT with rotations.

Both charge compute with the fabric's [compute] rates (a roofline: memory traffic at
memory_gbytes_per_s, arithmetic at gflops) and communication with the fabric's own cost of a put
(ops.cost), so that the same link figures that predict the papers' communication rows predict
the kernels. How the kernel overlaps the two is the fabric's [gemm] or [fft] section, each key
cited there. Derivations: docs/model.md, "Kernels".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from meshmem.model.fabric import Fabric

# FSHMEM §V: "three different matrix sizes: 256x256, 512x512, and 1024x1024"
GEMM_SIZES = (256, 512, 1024)
# FSHMEM §V: 64x64 input feature maps; kernels "256, 3x3x256, 192, 5x5x192, and 128, 7x7x128"
CONV_CASES = ((64, 256, 3, 256), (64, 192, 5, 192), (64, 128, 7, 128))
FFT_STAGES = 3  # DataVortex §5, Fig. 3: z, x and y 1-D FFTs


class KernelError(ValueError):
    """A kernel asked of a fabric that does not describe how to run it."""


@dataclass(frozen=True)
class TwoNode:
    """One kernel on one node and split over two: times in seconds, operations counted."""
    ops: float
    one_node_s: float
    two_node_s: float

    @property
    def speedup(self) -> float:
        """One-node time over two-node time."""
        return self.one_node_s / self.two_node_s

    @property
    def two_node_rate(self) -> float:
        """Operations per second of the two-node run."""
        return self.ops / self.two_node_s


def _rate(fabric: Fabric) -> float:
    if fabric.compute is None or not fabric.gemm:
        raise KernelError(f"{fabric.path}: gemm and conv need [compute] and [gemm] sections")
    return fabric.compute.flops_per_s


def _put(fabric: Fabric, nbytes: float) -> float:
    from meshmem.model import ops  # late: ops dispatches to this module
    return ops.cost(fabric, "put", nbytes, src=0, dst=1).seconds


def matmul(fabric: Fabric, n: int) -> TwoNode:
    """n x n matrix product, 2 n^3 operations (FSHMEM §V, Fig. 6a): each node computes half.

    A node first computes the two block products whose partial sums belong to the other node
    (n^3 / 2 operations, n^2 / 2 results it puts there), then, once they are transferred, the
    two for its own blocks, adding what it received. With [gemm] matmul_overlap the results are
    put while they are computed (ART), so the transfer hides behind the first half."""
    rate = _rate(fabric)
    ops_ = 2.0 * n ** 3
    half = ops_ / 2 / rate
    first, second = half / 2, half / 2
    send = _put(fabric, n * n / 2 * fabric.gemm["element_bytes"])
    exchange = max(first, send) if fabric.gemm["matmul_overlap"] else first + send
    return TwoNode(ops_, ops_ / rate, exchange + second)


def convolution(fabric: Fabric, maps: int, kernels: int, k: int, channels: int) -> TwoNode:
    """`kernels` kernels of k x k x channels over maps x maps inputs, outputs the same size
    (assumption: 'same' padding), 2 maps^2 kernels k^2 channels operations. Each node convolves
    half the kernels, then the nodes exchange their halves of the output (FSHMEM §V, Fig. 6b);
    with [gemm] conv_exchange_at_end the exchange follows the computation."""
    rate = _rate(fabric)
    ops_ = 2.0 * maps * maps * kernels * k * k * channels
    half = ops_ / 2 / rate
    send = _put(fabric, maps * maps * kernels / 2 * fabric.gemm["element_bytes"])
    two = half + send if fabric.gemm["conv_exchange_at_end"] else max(half, send)
    return TwoNode(ops_, ops_ / rate, two)


def mean(values) -> float:
    """Arithmetic mean (the papers' "average" over their problem sizes)."""
    values = list(values)
    return sum(values) / len(values)


@dataclass(frozen=True)
class FFT3D:
    """A distributed n^3 complex 3-D FFT: stage and rotation times, total, flop rate."""
    n: int
    nodes: int
    stage_s: float       # one 1-D FFT pass over a node's slab
    rotation_s: float    # one rotation of a node's slab through its network interface
    seconds: float

    @property
    def flops(self) -> float:
        """5 N log2 N, N = n^3 (the usual count, as heFFTe's speed3d reports)."""
        points = float(self.n) ** 3
        return 5.0 * points * math.log2(points)

    @property
    def flop_rate(self) -> float:
        """Flops per second."""
        return self.flops / self.seconds


def fft3d(fabric: Fabric, n: int, nodes: int | None = None) -> FFT3D:
    """n^3 complex FFT on `nodes` nodes with a 1-D (slab) decomposition (DataVortex §5): three
    1-D FFT passes over each node's slab, each reading and writing it once at the [compute]
    rates, and [fft] rotations, each passing the node's whole slab through its link (the
    network performs the rotation in its SRAM). With overlap_rotations the passes and
    rotations run at once ("entirely overlapped"): the slower of the two sets sets the time."""
    if not fabric.fft or fabric.compute is None:
        raise KernelError(f"{fabric.path}: fft3d needs [compute] and [fft] sections")
    p = nodes or fabric.nodes
    slab = float(n) ** 3 * fabric.fft["element_bytes"] / p
    points = float(n) ** 3
    stage_flops = 5.0 * points * math.log2(points) / FFT_STAGES / p
    stage = fabric.compute.seconds(slab, slab, stage_flops)
    rotation = _put(fabric, slab)
    rot_total = fabric.fft["rotations"] * rotation
    if fabric.fft["overlap_rotations"]:
        total = max(FFT_STAGES * stage, rot_total)
    else:
        total = FFT_STAGES * stage + rot_total
    return FFT3D(n, p, stage, rotation, total)
