"""Units of published figures and their conversion to the model's SI values."""

# unit -> factor to SI (seconds, bytes/s, bytes, Hz, operations/s, packets/s, or a plain ratio)
TO_SI = {
    "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9,
    "Gbps": 1e9 / 8, "GB/s": 1e9, "MB/s": 1e6,
    "B": 1.0, "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3,
    "MHz": 1e6, "GOPS": 1e9, "GFlops": 1e9, "Mpackets/s": 1e6, "ratio": 1.0,
}
# how a unit is printed in text (µs, not us)
SHOWN = {"us": "µs", "ratio": "×"}


def to_si(value: float, unit: str) -> float:
    """Value in `unit` expressed in SI; ValueError for an unknown unit."""
    if unit not in TO_SI:
        raise ValueError(f"unknown unit {unit!r} (known: {', '.join(TO_SI)})")
    return value * TO_SI[unit]


def from_si(value: float, unit: str) -> float:
    """SI value expressed in `unit`."""
    return value / TO_SI[unit]


def shown(unit: str) -> str:
    """The unit as printed in text tables."""
    return SHOWN.get(unit, unit)

