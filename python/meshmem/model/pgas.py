"""FSHMEM-style PGAS put/get on FPGAs (FSHMEM §III-A, §IV-C, §IV-D, Table III, Fig. 5).

A put is one long active message; a get is a short request answered by a long reply, so
    latency_put(payload) = a_short + (a_long_extra if payload else 0)
    latency_get(payload) = a_short + latency_put(payload)
A transfer of L bytes in packets of P bytes streams at the packet-limited peak of the core's data
path (R_dp = W * C, FSHMEM Table IV's "theoretical maximum"; h the per-packet overhead in bytes
of data-path time, [pgas] packet_overhead_bytes)
    peak(P) = R_dp * P / (P + h)
after the start-up:
    t(L) = latency(L) + L / peak(P),   bandwidth(L) = L / t(L),   half peak at L = latency * peak(P).
"""
from __future__ import annotations

from meshmem.model.fabric import Fabric


def put_latency(fabric: Fabric, payload_bytes: float) -> float:
    """Seconds from the put command to the message header arriving remotely (FSHMEM Table III)."""
    extra = fabric.pgas["long_message_extra_s"] if payload_bytes > 0 else 0.0
    return fabric.link.hop_latency_s + extra


def get_latency(fabric: Fabric, payload_bytes: float) -> float:
    """Seconds from the get command to the reply header returning: short request + put reply."""
    return fabric.link.hop_latency_s + put_latency(fabric, payload_bytes)


def peak_bandwidth(fabric: Fabric, packet_bytes: float) -> float:
    """Streaming rate (bytes/s) with packets of `packet_bytes`: the data path less each packet's
    overhead (FSHMEM §IV-C: smaller packets "need to generate more packets for the same transfer
    size, causing network overhead")."""
    overhead = fabric.pgas["packet_overhead_bytes"]
    return fabric.memory.bytes_per_s * packet_bytes / (packet_bytes + overhead)


def latency(fabric: Fabric, op: str, payload_bytes: float) -> float:
    """put_latency or get_latency by name."""
    if op == "put":
        return put_latency(fabric, payload_bytes)
    if op == "get":
        return get_latency(fabric, payload_bytes)
    raise ValueError(f"pgas latency: op must be 'put' or 'get' (got {op!r})")


def transfer_time(fabric: Fabric, op: str, nbytes: float, packet_bytes: float | None = None) -> float:
    """Seconds to complete a put or get of `nbytes` in packets of `packet_bytes`."""
    p = packet_bytes or fabric.pgas["default_packet_bytes"]
    return latency(fabric, op, nbytes) + nbytes / peak_bandwidth(fabric, p)


def bandwidth(fabric: Fabric, op: str, nbytes: float, packet_bytes: float | None = None) -> float:
    """Achieved bandwidth (bytes/s) of one put or get of `nbytes` (the curves of FSHMEM Fig. 5)."""
    return nbytes / transfer_time(fabric, op, nbytes, packet_bytes)


def half_peak_bytes(fabric: Fabric, op: str, packet_bytes: float | None = None) -> float:
    """Transfer size at which bandwidth reaches half the peak: latency * peak."""
    p = packet_bytes or fabric.pgas["default_packet_bytes"]
    return latency(fabric, op, 1) * peak_bandwidth(fabric, p)
