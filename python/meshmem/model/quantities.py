"""Named quantities the validation table (published.toml) asks for, each computed from a fabric.

Every function takes (fabric, args) and returns a value in SI units (s, bytes/s, bytes, Hz,
operations/s) or a plain ratio; `units.py` converts published values to the same units. The
quantity "ratio" (of two other quantities, each on its own fabric) is evaluated by validate.py.
"""
from __future__ import annotations

from meshmem.model import kernels, ops, pgas, sort, throughput
from meshmem.model.fabric import Fabric
from meshmem.model.topology import Dimension

COST_OPTIONS = ("variant", "packet_bytes", "algorithm", "src", "dst")


def _cost(f: Fabric, a: dict):
    return ops.cost(f, a["op"], a.get("bytes", 0), a.get("ranks"),
                    **{k: v for k, v in a.items() if k in COST_OPTIONS})


def q_time(f, a):
    """Seconds of one operation (args: op, bytes, and ranks, src, dst, variant, algorithm)."""
    return _cost(f, a).seconds


def q_throughput(f, a):
    """Bytes per node over time, bytes/s (OPTWEB (JOCN 2022) Figs 9 and 17's definition)."""
    return _cost(f, a).throughput


def q_per_link_throughput(f, a):
    """Node throughput shared over the node's memory channels (one per original mesh link, Fig. 11)."""
    return _cost(f, a).throughput / f.memory.channels


def q_utilization(f, a):
    """Node throughput over the node's network bandwidth (d + 1 channels incl. loopback)."""
    return _cost(f, a).throughput / ((f.topology.degree + 1) * f.link.bytes_per_s)


def q_ghc_over_fc_equal_nodes(f, a):
    """FPGA throughput of a kx x ky GHC over a full mesh of kx*ky nodes (OPTWEB (JOCN 2022) Table 2)."""
    return throughput.ghc_over_fc_equal_nodes(f, a["op"], a["kx"], a["ky"], a.get("doubled", "none"))


def q_ghc_over_fc_equal_degree(f, a):
    """Normalized system throughput of a balanced GHC over a full mesh of equal degree (Figs 12, 19)."""
    return throughput.ghc_over_fc_equal_degree(f, a["op"], a["degree"])


def q_sort_peak(f, a):
    """Eq. (1) theoretical system sort throughput, bytes/s."""
    return sort.throughput(f, f.topology.spanned_dims(None), a.get("variant")).peak


def q_sort_expected(f, a):
    """Eq. (1) times the pipeline efficiency, bytes/s."""
    return sort.throughput(f, f.topology.spanned_dims(None), a.get("variant")).expected


def q_sort_expected_kv(f, a):
    """Expected throughput counting keys and values (values as wide as keys: OPTWEB (JOCN 2022) §4.C.1)."""
    return 2 * q_sort_expected(f, a)


def q_sort_system_throughput(f, a):
    """Keys sorted per second by the whole system: nodes x key bytes per node / sort time."""
    c = _cost(f, dict(a, op="sort"))
    return c.ranks * c.nbytes / c.seconds


def q_sort_ghc_over_fc(f, a):
    """Sort throughput of a kx x ky GHC over a full mesh of the same N (OPTWEB (JOCN 2022) §4.C.2: 11/17)."""
    ghc = sort.throughput(f, (Dimension(a["kx"]), Dimension(a["ky"])), a.get("variant"))
    fc = sort.throughput(f, (Dimension(a["kx"] * a["ky"]),), a.get("variant"))
    return ghc.expected / fc.expected


def q_sort_crossover_clock(f, a):
    """Clock (Hz) where memory and network limits of eq. (1) meet."""
    return sort.crossover_clock_hz(f, f.topology.spanned_dims(None), a.get("variant"))


def q_radix_throughput(f, a):
    """LSD radix sort throughput: counting-sort throughput over the number of rounds."""
    return q_sort_expected(f, a) / sort.radix_passes(f, a["key_bits"])


def q_pgas_peak(f, a):
    """Streaming bandwidth for a packet size, bytes/s."""
    return pgas.peak_bandwidth(f, a["packet_bytes"])


def q_pgas_latency(f, a):
    """Put or get latency, seconds."""
    return pgas.latency(f, a["op"], a["bytes"])


def q_pgas_half_peak(f, a):
    """Transfer size (bytes) at which a put or get reaches half the peak bandwidth."""
    return pgas.half_peak_bytes(f, a["op"], a.get("packet_bytes"))


def q_pgas_get_over_put(f, a):
    """Get bandwidth over put bandwidth at one transfer size."""
    return pgas.bandwidth(f, "get", a["bytes"]) / pgas.bandwidth(f, "put", a["bytes"])


def q_pgas_fraction_of_peak(f, a):
    """Bandwidth of a put or get at one transfer size over the peak."""
    p = a.get("packet_bytes") or f.pgas["default_packet_bytes"]
    return pgas.bandwidth(f, a["op"], a["bytes"], p) / pgas.peak_bandwidth(f, p)


def q_compute_rate(f, a):
    """The node's [compute] arithmetic rate, operations/s (a fabric input)."""
    return f.compute.flops_per_s


def q_memory_rate(f, a):
    """The node's [compute] memory rate, bytes/s (a fabric input)."""
    return f.compute.memory_bytes_per_s


def q_link_aggregate(f, a):
    """Payload rate of all nodes' links together, each direction, bytes/s."""
    return f.nodes * f.link.bytes_per_s


def q_packet_rate(f, a):
    """Packets per second through one node's link for `payload_bytes` per packet."""
    return f.link.bytes_per_s / a["payload_bytes"]


def q_matmul_two_node_rate(f, a):
    """Two-node matrix multiplication, operations/s averaged over FSHMEM §V's three sizes."""
    return kernels.mean(kernels.matmul(f, n).two_node_rate for n in kernels.GEMM_SIZES)


def q_conv_two_node_rate(f, a):
    """Two-node convolution, operations/s averaged over FSHMEM §V's three kernel sets."""
    return kernels.mean(kernels.convolution(f, *c).two_node_rate for c in kernels.CONV_CASES)


def q_conv_speedup(f, a):
    """Two-node over one-node convolution, averaged over FSHMEM §V's three kernel sets."""
    return kernels.mean(kernels.convolution(f, *c).speedup for c in kernels.CONV_CASES)


def q_fft_flop_rate(f, a):
    """Flops/s of an n^3 complex 3-D FFT on `nodes` nodes (default: all)."""
    return kernels.fft3d(f, a["n"], a.get("nodes")).flop_rate


QUANTITIES = {name[2:]: fn for name, fn in globals().items() if name.startswith("q_")}
