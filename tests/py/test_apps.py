"""Tests of `meshmem sort` and `meshmem average` (the demo's are in test_demo.py): parsing, tiny
real runs and the JSON schema (no performance figure is checked). Parts needing OpenMPI run with
--vs none when it is absent."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run
from meshmem.cli.apps import sort as sort_cli

SORT_SCHEMA = {"variant", "runtime", "ranks", "records", "A", "m", "seconds", "GBps", "verified",
               "form", "serial_seconds", "speedup_vs_serial"}
AVG_SCHEMA = {"algo", "topology", "ranks", "bytes", "us", "GBps", "verified", "steps"}


def vs(serial=False):
    """--vs: OpenMPI where it is installed, and the serial baseline when asked."""
    names = (["openmpi"] if apps_run.openmpi_available()[0] else []) + (["serial"] if serial else [])
    return ",".join(names) or "none"


def test_parse_lines_and_values():
    rows = apps_run.parse_lines("x\n@sort variant=a1 A=1 seconds=0.5 dist=uniform\n", "sort")
    assert rows == [{"variant": "a1", "A": 1, "seconds": 0.5, "dist": "uniform"}]
    assert apps_run.parse_lines("@average us=2\n", "sort") == []


def test_variant_list():
    assert sort_cli.variant_list("single,3step,a1") == ["a1", "a3"]
    assert sort_cli.variant_list("all") == list(sort_cli.VARIANTS)
    with pytest.raises(ValueError):
        sort_cli.variant_list("quick")


def test_sort_cli_tiny_json(built, tmp_path):
    out = tmp_path / "s.json"
    rc = main(["sort", "--ranks", "2", "--records", "5000", "--variant", "a1,a11,radix",
               "--rounds", "1", "--iters", "1", "--vs", vs(serial=True), "--json", str(out),
               "--plot", str(tmp_path / "s.png")])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert [r["variant"] for r in doc["results"]] == ["a1", "a11", "radix"]
    for r in doc["results"]:
        assert SORT_SCHEMA <= set(r), SORT_SCHEMA - set(r)
        assert r["verified"] == 1
    assert {r["A"] for r in doc["results"]} == {1, 11, 4}
    assert (tmp_path / "s.png").stat().st_size > 0
    assert {"machine", "settings"} <= set(doc)


def test_sort_cli_bad_variant(built, capsys):
    assert main(["sort", "--variant", "bogus"]) == 2
    assert "unknown variant" in capsys.readouterr().err


def test_sort_program_rejects_too_many_key_types(built):
    rows = apps_run.run_app("meshmem", "sort", 2, ["-v", "a1", "-K", "100000", "-n", "10"],
                            "sort", expect_fail=True)
    assert rows[0]["rc"] == 2


def test_sort_verifier_fails_on_damage(built):
    rows = apps_run.run_app("meshmem", "sort", 2, ["-v", "a1", "-n", "1000", "-C", "-i", "1"],
                            "sort", expect_fail=True)
    assert rows[0]["rc"] == 1 and rows[0]["verified"] == 0


def test_average_cli_tiny_json(built, tmp_path):
    out = tmp_path / "a.json"
    rc = main(["average", "--ranks", "2", "--bytes", "4,1K", "--topology", "both",
               "--rounds", "1", "--iters", "10", "--vs", vs(), "--json", str(out),
               "--plot", str(tmp_path / "a.png")])
    assert rc == 0
    rows = json.loads(out.read_text())["results"]
    assert len(rows) == 2 * 2 * 2
    for r in rows:
        assert AVG_SCHEMA <= set(r)
        assert r["verified"] == 1
    assert any("aggressive_vs_naive" in r for r in rows)
    assert (tmp_path / "a.png").stat().st_size > 0


def test_average_paired_ratio():
    from meshmem.cli.apps import command as app_command
    assert app_command.paired([2.0, 9.0, 3.0], [1.0, 3.0, 1.0]) == 3.0


def test_average_cli_onestep_steps_and_pairs(built, tmp_path):
    out = tmp_path / "a.json"
    rc = main(["average", "--ranks", "2", "--bytes", "4,8K", "--onestep", "4K", "--rounds", "2",
               "--iters", "5", "--vs", vs(), "--json", str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    steps = {(r["algo"], r["bytes"]): r["steps"] for r in doc["results"]}
    # aggressive: one step up to the threshold, two above; naive: always three
    assert steps == {("naive", 4): 3, ("naive", 8192): 3, ("aggressive", 4): 1,
                     ("aggressive", 8192): 2}
    for r in doc["results"]:
        assert r["verified"] == 1
        if r["algo"] == "aggressive":
            assert r["aggressive_vs_naive_paired"] > 0
        if "mpi_us" in r:
            assert r["speedup_vs_openmpi_paired"] > 0
    assert doc["settings"]["onestep"] == "4K"


@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
@pytest.mark.parametrize("algo", ["naive", "aggressive", "alternate"])
def test_average_program_edge_sizes(built, ranks, algo):
    # empty, one element, odd counts, both sides of a 1 KiB threshold; fresh input and a check
    # against the float64 reference after every run
    rows = apps_run.run_app("meshmem", "average", ranks,
                            ["-a", algo, "-V", "-T", "1K", "-S", "0,4,12,1020,1K,1028",
                             "-i", "6"], "average")
    assert [r["bytes"] for r in rows] == [0, 4, 12, 1020, 1024, 1028]
    assert all(r["verified"] == 1 for r in rows)
    if algo == "aggressive":  # one step up to 1 KiB x ranks / 2 (at least 1 KiB)
        limit = 1024 * max(ranks, 2) // 2
        assert [r["steps"] for r in rows] == [1 if r["bytes"] <= limit else 2 for r in rows]


@pytest.mark.skipif(not apps_run.openmpi_available()[0], reason="OpenMPI is not installed")
def test_twins_built_on_demand(built, tmp_path, monkeypatch):
    """A tree configured before OpenMPI was installed has no twins: ensure_app compiles each one
    with mpicc from the sources apps_run names (they must be CMake's, and compile on their own:
    the harness's headers from src/util once went missing). The twins CMake built tell which
    libraries (FFTW-MPI, OpenBLAS) this machine has."""
    have = {name for name in apps_run.TWIN_SOURCES if (built / "apps" / "bin" / name).exists()}
    assert {"sort_mpi", "average_mpi", "amt_mpi", "shallow_mpi"} <= have
    monkeypatch.setattr(apps_run, "build_dir", lambda: tmp_path)
    for name in sorted(have):
        exe = apps_run.ensure_app(name)
        assert exe == tmp_path / "apps" / "bin" / name and exe.stat().st_size > 0
    # and one of them runs: the shallow twin on 2 ranks verifies against its serial run
    rows = apps_run.run_app("openmpi", "shallow_mpi", 2, ["-N", "16x16", "-t", "4", "-i", "1"],
                            "shallow")
    assert rows and all(r.get("verified") == 1 for r in rows), rows
