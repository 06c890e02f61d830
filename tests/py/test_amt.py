"""Tests of `meshmem amt`: a tiny verified run of both parts with the MPI baseline and the JSON
schema, and bad arguments (one line, status 2). The program's own cases are ctest's
apps_amt_*."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run


def vs():
    return "openmpi" if apps_run.openmpi_available()[0] else "none"


def test_amt_cli_both_parts_json_and_plot(built, tmp_path):
    out = tmp_path / "a.json"
    rc = main(["amt", "--ranks", "3", "--messages", "5,100", "--tasks", "30", "--depth", "6",
               "--rounds", "1", "--iters", "2", "--vs", vs(), "--json", str(out),
               "--plot", str(tmp_path / "a.png")])
    assert rc == 0
    rows = json.loads(out.read_text())["results"]
    assert [(r["variant"], r.get("messages")) for r in rows[:4]] == [
        ("put", 5), ("put", 100), ("am", 5), ("am", 100)]
    kernel = rows[-1]
    assert kernel["variant"] == "kernel" and kernel["tasks"] > 3 * 30
    for r in rows:
        assert r["verified"] == 1 and r["ranks"] == 3
        if vs() == "openmpi":
            assert all(r.get(k, 1) == 1 for k in ("alltoall_verified", "isend_verified",
                                                  "mpi_verified"))
    if vs() == "openmpi":
        assert rows[0]["speedup_vs_isend"] > 0 and kernel["speedup_vs_openmpi"] > 0
    assert (tmp_path / "a.png").stat().st_size > 0


@pytest.mark.parametrize("argv, says", [
    (["--part", "fig3"], "--part fig3"),
    (["--messages", "lots"], "--messages lots"),
    (["--depth", "300"], "--depth 300"),
    (["--iters", "0"], "--iters 0"),
    (["--vs", "serial"], "--vs serial"),
])
def test_amt_cli_bad_arguments(built, capsys, argv, says):
    assert main(["amt", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("meshmem amt: ") and says in err[0], err
