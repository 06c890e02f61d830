"""The table and summary lines of the applications that report a rate beside OpenMPI and one
rank (gemm, conv): the columns that name a row are the command's, the rest is shared."""
from __future__ import annotations

import sys

from meshmem.cli.report import fmt_optional, speedup_phrase


def print_rate_table(rows: list, first: list, rate: str = "GOPS", out=None) -> None:
    """One line per row: the naming columns @p first, [(header, key, width)], left-aligned
    when the width is negative, then time, @p rate (and the fabric's when predicted), the
    twin's time and speed-up, one rank's time and speed-up, the error and the verdict."""
    out = out or sys.stdout
    fabric = any("predicted_s" in r for r in rows)
    fw = 12 if fabric else 0
    head = ("".join(f"{h:{'<' if w < 0 else '>'}{abs(w)}}" for h, _, w in first)
            + f"{'meshmem s':>11}{rate:>8}{'fabric ' + rate if fabric else '':>{fw}}"
            f"{'MPI s':>10}{'× OpenMPI':>10}{'1 rank s':>10}{'× 1 rank':>9}{'error':>9}{'ok':>4}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        ok = all(r.get(k, 1) == 1 for k in ("verified", "mpi_verified", "serial_verified"))
        print("".join(f"{r[k]:{'<' if w < 0 else '>'}{abs(w)}}" for _, k, w in first)
              + f"{r['seconds']:>11.4f}{r[rate]:>8.2f}"
              f"{fmt_optional(r.get('predicted_' + rate), '.4g') if fabric else '':>{fw}}"
              f"{fmt_optional(r.get('mpi_seconds'), '.4f'):>10}"
              f"{fmt_optional(r.get('speedup_vs_openmpi'), '.2f'):>10}"
              f"{fmt_optional(r.get('serial_seconds'), '.4f'):>10}"
              f"{fmt_optional(r.get('speedup_vs_serial'), '.2f'):>9}"
              f"{r['max_err']:>9.1e}{'yes' if ok else 'NO':>4}", file=out)


def rate_summary(rows: list, label, rate: str = "GOPS") -> list[str]:
    """One line per row: label(row), its @p rate and the speed-ups over one rank and OpenMPI."""
    return [f"{label(r)}: {r[rate]:.2f} {rate}"
            + "".join(f", {speedup_phrase(r.get(k), peer)}" for k, peer in
                      (("speedup_vs_serial", "1 rank"), ("speedup_vs_openmpi", "OpenMPI"))
                      if r.get(k)) for r in rows]
