"""Validation: recompute every figure of published.toml from the fabric files and compare.

Each row: id, what, source, prediction, published (both in the published unit), relative error
(prediction / published - 1), role and, for a figure outside +-TOLERANCE, the documented reason.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from meshmem.model.fabric import FabricError, load_fabric, resolve_fabric_path
from meshmem.model.quantities import QUANTITIES
from meshmem.model.units import from_si, to_si

TOLERANCE = 0.15
PUBLISHED = Path(__file__).with_name("published.toml")


@dataclass(frozen=True)
class Row:
    """One validated figure."""
    id: str
    what: str
    source: str
    unit: str
    published: float
    predicted: float
    role: str
    why: str

    @property
    def error(self) -> float:
        """Relative error prediction / published - 1."""
        return self.predicted / self.published - 1.0

    @property
    def reproduced(self) -> bool:
        """Within +-TOLERANCE."""
        return abs(self.error) <= TOLERANCE

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return {"id": self.id, "what": self.what, "source": self.source, "unit": self.unit,
                "published": self.published, "predicted": self.predicted, "error": self.error,
                "role": self.role, "reproduced": self.reproduced, "why": self.why}


def load_published(path: Path = PUBLISHED) -> list[dict]:
    """The [[figure]] entries of the published-figures file."""
    with open(path, "rb") as fh:
        return tomllib.load(fh)["figure"]


def evaluate(entry: dict, fabric_overrides: tuple[str, ...] = ()) -> Row:
    """Compute one figure; `fabric_overrides` apply on top of the entry's own overrides."""
    q = QUANTITIES.get(entry["quantity"])
    if q is None:
        raise FabricError(f"published figure {entry['id']}: unknown quantity {entry['quantity']!r}")
    overrides = tuple(entry.get("overrides", ())) + tuple(fabric_overrides)
    fabric = load_fabric(resolve_fabric_path(entry["fabric"]), overrides)
    fabric_b = load_fabric(resolve_fabric_path(entry["fabric_b"])) if "fabric_b" in entry else None
    value = q(fabric, dict(entry.get("args", {})), fabric_b)
    predicted = from_si(value, entry["unit"])
    to_si(entry["published"], entry["unit"])  # checks the unit
    return Row(entry["id"], entry["what"], entry["source"], entry["unit"], float(entry["published"]),
               predicted, entry.get("role", "prediction"), entry.get("why", ""))


def run_validation(path: Path = PUBLISHED) -> list[Row]:
    """All rows of the published-figures file, in file order."""
    return [evaluate(e) for e in load_published(path)]


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def format_table(rows: list[Row]) -> str:
    """Text table: reproduced figures first, then those the model does not reproduce, with reasons."""
    ok = [r for r in rows if r.reproduced]
    bad = [r for r in rows if not r.reproduced]
    head = f"{'id':30} {'predicted':>10} {'published':>10} {'unit':>6} {'error':>8}  {'role':11} source"
    lines = [f"Reproduced within +-{TOLERANCE:.0%} ({len(ok)} figures; "
             f"{sum(r.role == 'prediction' for r in ok)} predictions, "
             f"{sum(r.role == 'calibration' for r in ok)} calibrations):", head, "-" * len(head)]
    for r in ok:
        lines.append(f"{r.id:30} {_fmt(r.predicted):>10} {_fmt(r.published):>10} {r.unit:>6} "
                     f"{r.error:>+8.1%}  {r.role:11} {r.source}")
    if bad:
        lines += ["", f"NOT reproduced within +-{TOLERANCE:.0%} ({len(bad)} figures):", head, "-" * len(head)]
        for r in bad:
            lines.append(f"{r.id:30} {_fmt(r.predicted):>10} {_fmt(r.published):>10} {r.unit:>6} "
                         f"{r.error:>+8.1%}  {r.role:11} {r.source}")
            lines.append(f"{'':30} why: {r.why or 'UNEXPLAINED'}")
    return "\n".join(lines)


def passed(rows: list[Row]) -> bool:
    """True when every figure is within tolerance or carries a documented reason."""
    return all(r.reproduced or r.why for r in rows)
