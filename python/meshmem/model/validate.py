"""Validation: recompute every figure of published.toml from the fabric files and compare.

Every figure has a class (docs/model.md, "The validation table"):
  measured     an independent measurement in a paper that the model predicts from the fabric
               files: the only rows whose pass rate says anything about the model;
  calibration  a fabric parameter was fitted to this figure through other terms of the model
               (`calibrates` names it, and the fabric file marks the parameter "CALIBRATED on
               <id>"): counted apart;
  input        the figure is a fabric parameter as the paper prints it, the same quantity of the
               same machine with only units converted (`inputs` names it, the fabric file marks
               it "INPUT from <id>"): neither a fit nor a prediction, shown, not counted;
  derived      the paper's own formula, or a quantity computed from other rows (`derived_from`):
               shown, not counted.
A figure printed as a verbal range ("several hundred microseconds") has `range = [lo, hi]` and
is reproduced when the prediction lies inside it; any other within +-TOLERANCE. A figure outside
needs `why`, the reason found. `sensitivity` scales every float parameter of every fabric file by
1 -+ 10 % and lists the rows whose verdict flips.

The model's score is the count of independent reproductions: measured rows inside their
tolerance. A measured row marked `weak` (its prediction is another published figure, or the
paper's own closed form) counts, and is counted apart (issue 34's audit, docs/model.md).
"""
from __future__ import annotations

import math
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from meshmem.model.fabric import Fabric, FabricError, base_chain, load_fabric, resolve_fabric_path
from meshmem.model.quantities import QUANTITIES
from meshmem.model.units import from_si, shown, to_si

TOLERANCE = 0.15
PERTURBATION = 0.10
PUBLISHED = Path(__file__).with_name("published.toml")
CLASSES = ("measured", "calibration", "input", "derived")
NEEDS = {"derived": "derived_from", "calibration": "calibrates", "input": "inputs"}

Loader = Callable[[str, tuple], Fabric]


@dataclass(frozen=True)
class Row:
    """One validated figure."""
    id: str
    what: str
    source: str
    quote: str
    cls: str
    unit: str
    published: float | None
    lo: float | None
    hi: float | None
    predicted: float
    basis: str  # derived: what it is derived from; calibration, input: the parameters it sets
    why: str
    weak: str = ""  # measured: why its reproduction is weak (another figure, a closed form)

    @property
    def is_range(self) -> bool:
        """The published figure is a verbal range, not a number."""
        return self.lo is not None

    @property
    def error(self) -> float:
        """Relative error prediction / published - 1; for a range, to its nearer bound (0 inside)."""
        if not self.is_range:
            return self.predicted / self.published - 1.0
        if self.lo <= self.predicted <= self.hi:
            return 0.0
        bound = self.lo if self.predicted < self.lo else self.hi
        return self.predicted / bound - 1.0

    @property
    def reproduced(self) -> bool:
        """Inside the range, or within +-TOLERANCE of the published value."""
        if self.is_range:
            return self.lo <= self.predicted <= self.hi
        return abs(self.error) <= TOLERANCE

    @property
    def verdict(self) -> str:
        """'ok' or 'MISS', as the table prints it."""
        return "ok" if self.reproduced else "MISS"

    def error_text(self) -> str:
        """The error column: the relative error, or for a range where the prediction lies (a
        prediction just past a range's edge is a miss, however small the distance)."""
        if not self.is_range:
            return f"{self.error:+.1%}"
        return "inside" if self.reproduced else "outside"

    def published_text(self) -> str:
        """The published figure as printed in the table."""
        if not self.is_range:
            return _fmt(self.published)
        return f"> {_fmt(self.lo)}" if math.isinf(self.hi) else f"{_fmt(self.lo)}-{_fmt(self.hi)}"

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return {"id": self.id, "class": self.cls, "what": self.what, "source": self.source,
                "quote": self.quote, "unit": self.unit, "published": self.published,
                "range": None if not self.is_range else [self.lo, self.hi],
                "predicted": self.predicted,
                # a range has no relative error: its distance to the nearer bound is apart, so
                # that a small one is not read as a pass
                "error": None if self.is_range else self.error,
                "distance_to_range": self.error if self.is_range else None,
                "reproduced": self.reproduced, "verdict": self.verdict,
                "independent": self.cls == "measured" and self.reproduced,
                "weak": self.weak or None, "basis": self.basis, "why": self.why}


def load_published(path: Path = PUBLISHED) -> list[dict]:
    """The [[figure]] entries of the published-figures file, each checked for its class's fields."""
    with open(path, "rb") as fh:
        entries = tomllib.load(fh)["figure"]
    for e in entries:
        cls = e.get("class")
        if cls not in CLASSES:
            raise FabricError(f"published figure {e.get('id')}: class must be one of {', '.join(CLASSES)} "
                              f"(got {cls!r})")
        need = NEEDS.get(cls)
        if need and not e.get(need):
            raise FabricError(f"published figure {e['id']}: class {cls} needs {need!r}")
        if e.get("weak") and cls != "measured":
            raise FabricError(f"published figure {e['id']}: only a measured row may be weak "
                              f"(class {cls})")
    return entries


def default_loader() -> Loader:
    """Fabric files by name, each read once."""
    cache: dict = {}

    def load(name: str, overrides: tuple) -> Fabric:
        key = (name, overrides)
        if key not in cache:
            cache[key] = load_fabric(resolve_fabric_path(name), overrides)
        return cache[key]
    return load


def _value(spec: dict, load: Loader, extra: tuple) -> float:
    """The SI value of one quantity spec {quantity, fabric, args, overrides, scale} (or a ratio of
    two specs, num / den); `scale` multiplies the value (eight nodes' worth of one node's)."""
    name = spec["quantity"]
    if name == "ratio":
        return _value(spec["num"], load, extra) / _value(spec["den"], load, extra)
    q = QUANTITIES.get(name)
    if q is None:
        raise FabricError(f"published figure: unknown quantity {name!r} (known: ratio, {', '.join(QUANTITIES)})")
    fabric = load(spec["fabric"], tuple(spec.get("overrides", ())) + tuple(extra))
    return q(fabric, dict(spec.get("args", {}))) * spec.get("scale", 1.0)


def evaluate(entry: dict, fabric_overrides: tuple[str, ...] = (), load: Loader | None = None) -> Row:
    """Compute one figure; `fabric_overrides` apply on top of the entry's own overrides."""
    value = _value(entry, load or default_loader(), tuple(fabric_overrides))
    unit = entry["unit"]
    lo, hi = entry.get("range", (None, None))
    published = entry.get("published")
    if published is None and lo is None:
        raise FabricError(f"published figure {entry['id']}: needs published or range")
    to_si(published if published is not None else lo, unit)  # checks the unit
    basis = entry.get("derived_from") or ", ".join(entry.get("calibrates", ()) or entry.get("inputs", ()))
    return Row(entry["id"], entry["what"], entry["source"], entry.get("quote", ""), entry["class"], unit,
               None if published is None else float(published), None if lo is None else float(lo),
               None if hi is None else float(hi), from_si(value, unit), basis, entry.get("why", ""),
               entry.get("weak", ""))


def run_validation(path: Path = PUBLISHED) -> list[Row]:
    """All rows of the published-figures file, in file order."""
    load = default_loader()
    return [evaluate(e, load=load) for e in load_published(path)]


def counts(rows: list[Row]) -> dict:
    """Rows per class, and how many of each are reproduced; for the measured rows the
    independent reproductions (the model's score), strong and weak."""
    out = {}
    for cls in CLASSES:
        mine = [r for r in rows if r.cls == cls]
        out[cls] = {"rows": len(mine), "reproduced": sum(r.reproduced for r in mine)}
    m = out["measured"]
    m["pass_rate"] = m["reproduced"] / m["rows"] if m["rows"] else 0.0
    m["independent"] = m["reproduced"]
    m["weak"] = sum(r.reproduced and bool(r.weak) for r in rows if r.cls == "measured")
    m["strong"] = m["independent"] - m["weak"]
    return out


def score_line(c: dict) -> str:
    """The model's score in one line, as validate prints it and the README quotes it."""
    m = c["measured"]
    return (f"independent reproductions: {m['independent']} of {m['rows']} measured figures "
            f"within ±{TOLERANCE:.0%} ({m['strong']} strong, {m['weak']} weak: the prediction "
            f"is another published figure or the paper's own closed form)")


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _note(label: str, text: str) -> list[str]:
    """An indented, wrapped note under a row ("why: ...")."""
    return textwrap.wrap(f"{label}: {text}", width=110, initial_indent=" " * 31,
                         subsequent_indent=" " * 36, break_on_hyphens=False)


def _line(r: Row) -> str:
    return (f"{r.id:30} {_fmt(r.predicted):>10} {r.published_text():>11} {shown(r.unit):>10} "
            f"{r.error_text():>8}  {r.verdict:4}  {r.source}")


HEADS = {
    "measured": "MEASURED: independent measurements, predicted from the fabric files",
    "calibration": "CALIBRATION: a fabric parameter was fitted to the figure (not a prediction)",
    "input": "INPUT: the figure is a fabric parameter as printed (neither a fit nor a prediction)",
    "derived": "DERIVED: the papers' own formulas, or computed from other rows (shown, not counted)",
}


def format_table(rows: list[Row]) -> str:
    """Text table: the counts, then each class with its rows; misses carry their reason."""
    c = counts(rows)
    m = c["measured"]
    lines = [f"The model against the papers' published figures (tolerance ±{TOLERANCE:.0%}; a verbal range",
             "must contain the prediction):",
             f"  {score_line(c)}   <- the model's score",
             f"  measured     {m['rows']:3d} rows, {m['reproduced']} reproduced ({m['pass_rate']:.0%})",
             f"  calibration  {c['calibration']['rows']:3d} rows (a fabric parameter fitted to each)",
             f"  input        {c['input']['rows']:3d} rows (a fabric parameter as the paper prints it)",
             f"  derived      {c['derived']['rows']:3d} rows (shown, not counted)"]
    head = (f"{'id':30} {'predicted':>10} {'published':>11} {'unit':>10} {'error':>8}  {'':4}  source")
    for cls in CLASSES:
        mine = [r for r in rows if r.cls == cls]
        lines += ["", f"{HEADS[cls]} ({len(mine)} rows, {sum(r.reproduced for r in mine)} reproduced):",
                  head, "-" * len(head)]
        for r in mine:
            lines.append(_line(r))
            if cls == "calibration":
                lines += _note("fits", r.basis)
            elif cls == "input":
                lines += _note("sets", r.basis)
            elif cls == "derived":
                lines += _note("from", r.basis)
            if not r.reproduced:
                lines += _note("why", r.why or "UNEXPLAINED")
            elif r.why:  # inside, but by a margin that says nothing: the reader is told
                lines += _note("note", r.why)
            if r.weak:
                lines += _note("weak", r.weak)
    return "\n".join(lines)


def passed(rows: list[Row]) -> bool:
    """True when every figure is reproduced or carries a documented reason."""
    return all(r.reproduced or r.why for r in rows)


# ------------------------------------------------------------------ sensitivity

@dataclass(frozen=True)
class Parameter:
    """One float value of one fabric file: a section key, or a key of one [[sort.variant]]."""
    fabric: str
    path: Path
    keys: tuple  # ("link", "hop_latency_us") or ("sort", "variant", index, "clock_mhz")
    label: str
    value: float


def parameters(name: str) -> list[Parameter]:
    """The float values a fabric file sets itself (not those it inherits from its base)."""
    path = resolve_fabric_path(name)
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    out = []
    for section, table in raw.items():
        if not isinstance(table, dict):
            continue
        for key, v in table.items():
            if isinstance(v, float):
                out.append(Parameter(name, path, (section, key), f"{section}.{key}", v))
            elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                for i, item in enumerate(v):
                    for k2, v2 in item.items():
                        if isinstance(v2, float):
                            tag = item.get("name", str(i))
                            out.append(Parameter(name, path, (section, key, i, k2),
                                                 f"{section}.{key}[{tag}].{k2}", v2))
    return out


def _scaled_loader(param: Parameter, factor: float) -> Loader:
    target = param.path.resolve()

    def mutate(path: str, raw: dict) -> None:
        if Path(path).resolve() != target:
            return
        node = raw
        for k in param.keys[:-1]:
            node = node[k]
        node[param.keys[-1]] = node[param.keys[-1]] * factor

    cache: dict = {}

    def load(name: str, overrides: tuple) -> Fabric:
        key = (name, overrides)
        if key not in cache:
            cache[key] = load_fabric(resolve_fabric_path(name), overrides, mutate=mutate)
        return cache[key]
    return load


def _fabrics_of(spec: dict) -> set[str]:
    if spec["quantity"] == "ratio":
        return _fabrics_of(spec["num"]) | _fabrics_of(spec["den"])
    return {spec["fabric"]}


def _with_bases(name: str) -> set[str]:
    """The fabric file and every file it builds on, as resolved paths."""
    return {str(p.resolve()) for p in base_chain(resolve_fabric_path(name))}


def sensitivity(path: Path = PUBLISHED, factor: float = PERTURBATION) -> list[dict]:
    """For every float parameter of every fabric file the table uses: the rows whose verdict flips
    when the parameter is multiplied by 1 - factor ('minus') and by 1 + factor ('plus')."""
    entries = load_published(path)
    base = run_validation(path)
    depends = [set().union(*(_with_bases(n) for n in _fabrics_of(e))) for e in entries]
    names = sorted({n for e in entries for n in _fabrics_of(e)})
    files = {}
    for n in names:
        for p in _with_bases(n):
            files.setdefault(p, Path(p).stem)
    out = []
    for fpath, fname in sorted(files.items(), key=lambda kv: kv[1]):
        for param in parameters(fname):
            result = {"fabric": fname, "parameter": param.label, "value": param.value}
            for side, scale in (("minus", 1 - factor), ("plus", 1 + factor)):
                load = _scaled_loader(param, scale)
                flips = []
                try:
                    for e, b, dep in zip(entries, base, depends):
                        if fpath not in dep:
                            continue
                        r = evaluate(e, load=load)
                        if r.reproduced != b.reproduced:
                            flips.append({"id": r.id, "class": r.cls, "error_before": b.error,
                                          "error_after": r.error, "reproduced_after": r.reproduced})
                except FabricError as err:  # the scaled value leaves its valid range (an efficiency > 1)
                    result[f"{side}_skipped"] = str(err)
                    flips = []
                result[side] = flips
            out.append(result)
    return out


def format_sensitivity(results: list[dict], factor: float = PERTURBATION) -> str:
    """Text: the parameters whose ±factor change flips a verdict, with the rows; then a count of
    those that flip none."""
    def flips(items):
        return ", ".join(f"{f['id']} ({f['class']}: {'in' if f['reproduced_after'] else 'out'}, "
                         f"{f['error_after']:+.1%})" for f in items) or "-"
    def side(r, name):
        skipped = r.get(f"{name}_skipped")
        return "not scaled (out of its valid range)" if skipped else flips(r[name])
    moving = [r for r in results if r["minus"] or r["plus"]]
    lines = [f"Sensitivity: every float parameter of every fabric file x {1 - factor:g} and x {1 + factor:g};",
             f"rows whose verdict flips ({len(moving)} of {len(results)} parameters flip one):"]
    for r in moving:
        lines.append(f"  {r['fabric']} {r['parameter']} = {r['value']:g}")
        lines.append(f"      -{factor:.0%}: {side(r, 'minus')}")
        lines.append(f"      +{factor:.0%}: {side(r, 'plus')}")
    quiet = [r for r in results if not (r["minus"] or r["plus"])]
    lines.append(f"No verdict moves with ±{factor:.0%} on the other {len(quiet)}"
                 + "".join(f"; {r['fabric']} {r['parameter']} is not scaled up (it is at its bound)"
                           for r in quiet if r.get("plus_skipped") or r.get("minus_skipped")) + ".")
    return "\n".join(lines)
