"""How every `meshmem` command shows its results: sizes as users write them (8, 1K, 64K, 1M),
µs, speed-ups in one direction with their label, the machine the figures depend on.

A speed-up is the peer's time over meshmem's ("2.3 × faster than OpenMPI": above 1, meshmem is
faster); tables label that column "× PEER" and explain it once, in the line speedup_legend()
prints under them.
"""
from __future__ import annotations

import os
import platform

from meshmem.launch import commands

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def format_size(n: int) -> str:
    """Bytes in the shortest exact unit: 512, 4K, 1M, 1G."""
    for unit, mult in (("G", GiB), ("M", MiB), ("K", KiB)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return str(n)


def format_count(n: int) -> str:
    """A record count: 2^21 for powers of two from 1024 on, else the number."""
    if n >= 1024 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def fmt_optional(v, spec: str) -> str:
    """@p v formatted with @p spec, or "-" for a missing value."""
    return "-" if v is None else format(v, spec)


def speedup(peer_time: float | None, meshmem_time: float | None) -> float | None:
    """The peer's time over meshmem's (above 1: meshmem is faster); None when either is
    missing or zero."""
    if not peer_time or not meshmem_time:
        return None
    return peer_time / meshmem_time


def speedup_phrase(x: float | None, peer: str) -> str:
    """'2.3 × faster than OpenMPI', '1.4 × slower than serial', or '' without a figure."""
    if x is None:
        return ""
    fast, factor = (True, x) if x >= 1 else (False, 1 / x)
    digits = 2 if factor < 2 else 1 if factor < 10 else 0
    return f"{factor:.{digits}f} × {'faster' if fast else 'slower'} than {peer}"


def speedup_legend(columns: str, peer_time: str) -> str:
    """The one line that explains the speed-up columns under a table."""
    return (f"# {columns} (speed-up) = {peer_time} / meshmem time: above 1, meshmem is faster")


PEER_NAMES = {"openmpi-oshmem": "OpenMPI (OSHMEM)", "openmpi-mpi": "OpenMPI (MPI)",
              "meshmem-direct": "meshmem, direct put/get"}


def peer_name(label: str | None) -> str:
    """A baseline's label as a legend says it: openmpi-mpi -> 'OpenMPI (MPI)'."""
    return PEER_NAMES.get(label or "", label or "none")


def machine_info() -> dict:
    """What the numbers depend on: cores, CPU model, load, OpenMPI version."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "platform": platform.platform(),
            "loadavg": list(os.getloadavg()), "openmpi": commands.openmpi_version()}


def machine_line(info: dict, ranks: int) -> str:
    """'8 ranks on 2 cores (AMD EPYC ...), oversubscribed; load average 1.20'."""
    over = ", oversubscribed" if ranks > (info.get("nproc") or ranks) else ""
    return (f"{ranks} ranks on {info['nproc']} cores ({info['cpu']}){over}; "
            f"load average {info['loadavg'][0]:.2f}")
