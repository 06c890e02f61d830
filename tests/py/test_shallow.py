"""Tests of `meshmem shallow`: a tiny verified run of both variants and both modes with the
MPI twin and one rank, the JSON and the plot; bad arguments (one line, status 2), including a
grid too small for the ranks (the program's own check). The program's own cases are ctest's
apps_shallow_*."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run


def vs():
    return "openmpi,serial" if apps_run.openmpi_available()[0] else "serial"


def test_shallow_cli_variants_modes_json_and_plot(built, tmp_path):
    out = tmp_path / "s.json"
    rc = main(["shallow", "--ranks", "3", "--size", "19x23", "--steps", "5", "--iters", "2",
               "--rounds", "1", "--vs", vs(), "--json", str(out),
               "--plot", str(tmp_path / "s.png")])
    assert rc == 0
    rows = json.loads(out.read_text())["results"]
    assert [(r["variant"], r["mode"]) for r in rows] == [
        ("buffered", "step"), ("streaming", "step"), ("buffered", "exchange"),
        ("streaming", "exchange")]
    for r in rows:
        assert r["verified"] == 1 and r["ranks"] == 3 and r["n"] == "19x23"
        assert r["us_step"] > 0
        if "openmpi" in vs():
            assert r["mpi_verified"] == 1 and r["speedup_vs_openmpi"] > 0
    assert rows[0]["serial_verified"] == 1 and "serial_us_step" not in rows[2]
    assert (tmp_path / "s.png").stat().st_size > 0


def test_shallow_cli_scale_1d(built, tmp_path):
    out = tmp_path / "s.json"
    assert main(["shallow", "--scale", "1,2", "--decomp", "1", "--size", "16x16", "--steps", "3",
                 "--iters", "1", "--rounds", "1", "--vs", "none", "--variant", "streaming",
                 "--modes", "step", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["results"]
    assert [(r["ranks"], r["grid"]) for r in rows] == [(1, "1x1"), (2, "1x2")]


@pytest.mark.parametrize("argv, says", [
    (["--variant", "eager"], "--variant eager"),
    (["--modes", "halo"], "--modes halo"),
    (["--size", "64"], "-N 64"),
    (["--size", "0x8"], "-N 0x8"),
    (["--ranks", "8", "--size", "8x8", "--decomp", "1"], "smallest block is 8x1"),
    (["--grid", "3", "--ranks", "4"], "-g 3"),
    (["--grid", "2", "--decomp", "1"], "--grid 2"),
    (["--steps", "0"], "--steps 0"),
    (["--scale", "1,x"], "--scale 1,x"),
    (["--vs", "fftw"], "--vs fftw"),
])
def test_shallow_cli_bad_arguments(built, capsys, argv, says):
    assert main(["shallow", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("meshmem shallow: ") and says in err[0], err


@pytest.mark.parametrize("args, says", [
    (["-v", "mpi"], "-v mpi: one of buffered,streaming"),
    (["-N", "7"], "-N 7"),
    (["-d", "3"], "-d 3"),
    (["-t", "0"], "-t 0"),
])
def test_shallow_program_bad_arguments(built, args, says):
    import subprocess
    exe = apps_run.app_path("shallow")
    done = subprocess.run([str(exe), *args], capture_output=True, text=True)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr


def test_shallow_program_grid_too_small_ends_every_rank(built):
    import subprocess
    done = subprocess.run([str(apps_run.build_dir() / "bin" / "meshrun"), "-n", "5", "--heap",
                           "32M", str(apps_run.app_path("shallow")), "-N", "9x9", "-d", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "smallest block is 9x1" in done.stderr
