"""Named quantities the validation table (published.toml) asks for, each computed from fabrics.

Every function takes (fabric, args, fabric_b) and returns a value in SI units (s, bytes/s, bytes,
Hz) or a plain ratio; `units.py` converts published values to the same units.
"""
from __future__ import annotations

from meshmem.model import ops, pgas, sort, throughput
from meshmem.model.fabric import Fabric
from meshmem.model.topology import Dimension


def _cost(f: Fabric, a: dict, op_key: str = "op"):
    return ops.cost(f, a[op_key], a.get("bytes", 0), **{k: v for k, v in a.items()
                                                         if k in ("variant", "packet_bytes", "algorithm")})


def q_time(f, a, fb):
    """Seconds of one operation."""
    return _cost(f, a).seconds


def q_throughput(f, a, fb):
    """Bytes per node over time, bytes/s (000 Fig. 9 and 17's definition)."""
    return _cost(f, a).throughput


def q_per_link_throughput(f, a, fb):
    """Node throughput shared over the node's memory channels (one per original mesh link, 000 Fig. 11)."""
    return _cost(f, a).throughput / f.memory.channels


def q_utilization(f, a, fb):
    """Node throughput over the node's network bandwidth (d + 1 channels incl. loopback)."""
    return _cost(f, a).throughput / ((f.topology.degree + 1) * f.link.bytes_per_s)


def q_throughput_ratio(f, a, fb):
    """Throughput on fabric over throughput on fabric_b, same op and size."""
    return _cost(f, a).throughput / _cost(fb, a).throughput


def q_time_ratio(f, a, fb):
    """Time of op over time of op_b on the same fabric."""
    return _cost(f, a).seconds / _cost(f, a, "op_b").seconds


def q_ghc_over_fc_equal_nodes(f, a, fb):
    """FPGA throughput of a kx x ky GHC over a full mesh of kx*ky nodes (000 Table 2)."""
    return throughput.ghc_over_fc_equal_nodes(f, a["op"], a["kx"], a["ky"], a.get("doubled", "none"))


def q_ghc_over_fc_equal_degree(f, a, fb):
    """Normalized system throughput of a balanced GHC over a full mesh of equal degree (Figs 12, 19)."""
    return throughput.ghc_over_fc_equal_degree(f, a["op"], a["degree"])


def q_sort_peak(f, a, fb):
    """Eq. (1) theoretical system sort throughput, bytes/s."""
    return sort.throughput(f, f.topology.spanned_dims(None), a.get("variant")).peak


def q_sort_expected(f, a, fb):
    """Eq. (1) times the pipeline efficiency, bytes/s."""
    return sort.throughput(f, f.topology.spanned_dims(None), a.get("variant")).expected


def q_sort_expected_kv(f, a, fb):
    """Expected throughput counting keys and values (values as wide as keys: 000 §4.C.1)."""
    return 2 * q_sort_expected(f, a, fb)


def q_sort_time(f, a, fb):
    """Seconds to sort `bytes` of keys per node."""
    return sort.sort_time(f, a["bytes"], f.topology.spanned_dims(None), a.get("variant"))


def q_sort_ghc_over_fc(f, a, fb):
    """Sort throughput of a kx x ky GHC over a full mesh of the same N (000 §4.C.2: 11/17)."""
    ghc = sort.throughput(f, (Dimension(a["kx"]), Dimension(a["ky"])), a.get("variant"))
    fc = sort.throughput(f, (Dimension(a["kx"] * a["ky"]),), a.get("variant"))
    return ghc.expected / fc.expected


def q_sort_crossover_clock(f, a, fb):
    """Clock (Hz) where memory and network limits of eq. (1) meet."""
    return sort.crossover_clock_hz(f, f.topology.spanned_dims(None), a.get("variant"))


def q_radix_throughput(f, a, fb):
    """LSD radix sort throughput: counting-sort throughput over the number of rounds."""
    return q_sort_expected(f, a, fb) / sort.radix_passes(f, a["key_bits"])


def q_pgas_peak(f, a, fb):
    """Streaming bandwidth for a packet size, bytes/s."""
    return pgas.peak_bandwidth(f, a["packet_bytes"])


def q_pgas_latency(f, a, fb):
    """Put or get latency, seconds."""
    return pgas.latency(f, a["op"], a["bytes"])


def q_pgas_half_peak(f, a, fb):
    """Transfer size (bytes) reaching half the peak bandwidth."""
    return pgas.half_peak_bytes(f, a["op"], a.get("packet_bytes"))


def q_pgas_get_over_put(f, a, fb):
    """Get bandwidth over put bandwidth at one transfer size."""
    return pgas.bandwidth(f, "get", a["bytes"]) / pgas.bandwidth(f, "put", a["bytes"])


def q_pgas_fraction_of_peak(f, a, fb):
    """Bandwidth at one transfer size over the peak."""
    p = f.pgas["default_packet_bytes"]
    return pgas.bandwidth(f, a["op"], a["bytes"], p) / pgas.peak_bandwidth(f, p)


QUANTITIES = {name[2:]: fn for name, fn in globals().items() if name.startswith("q_")}
