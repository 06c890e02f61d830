"""Tests of `meshmem fft`: a tiny verified run of every variant with its baselines and the JSON
schema, the strong-scaling sweep, and bad arguments (one line, status 2). The program's own
cases (sizes, ranks, chunks, the verifier) are ctest's apps_fft_*."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run

SCHEMA = {"variant", "ranks", "grid", "n", "prec", "chunk", "seconds", "GFlops", "verified",
          "err_fwd", "err_roundtrip", "serial_seconds", "speedup_vs_serial"}


@pytest.fixture
def fft_built(built):
    if not (built / "apps" / "bin" / "fft").exists():
        pytest.skip("fft not built (FFTW missing)")
    return built


def vs():
    return "openmpi,serial" if apps_run.openmpi_available()[0] else "serial"


def test_fft_cli_scaling_json_and_plot(fft_built, tmp_path):
    out = tmp_path / "f.json"
    rc = main(["fft", "--scale", "1,3", "--size", "9x8x7", "--variant", "slab,pencil",
               "--rounds", "1", "--iters", "1", "--planner", "estimate", "--vs", vs(),
               "--json", str(out), "--plot", str(tmp_path / "f.png")])
    assert rc == 0
    rows = json.loads(out.read_text())["results"]
    assert [(r["variant"], r["ranks"]) for r in rows] == [
        ("slab", 1), ("pencil", 1), ("slab", 3), ("pencil", 3)]
    for r in rows:
        assert SCHEMA <= set(r), SCHEMA - set(r)
        assert r["verified"] == 1 and r["err_fwd"] <= 1e-10
        if "mpi_seconds" in r:
            assert r["mpi_verified"] == 1 and r["speedup_vs_openmpi"] > 0
    assert (tmp_path / "f.png").stat().st_size > 0


def test_fft_cli_float_pencil_grid(fft_built, tmp_path):
    out = tmp_path / "f.json"
    assert main(["fft", "--ranks", "4", "--size", "8", "--variant", "pencil", "--grid", "4",
                 "--precision", "float", "--rounds", "1", "--iters", "1", "--vs", "none",
                 "--json", str(out)]) == 0
    r = json.loads(out.read_text())["results"][0]
    assert r["grid"] == "1x4" and r["prec"] == "float" and r["verified"] == 1


@pytest.mark.parametrize("argv, says", [
    (["--size", "0"], "-N 0"),
    (["--size", "8x8"], "-N 8x8"),
    (["--variant", "cube"], "--variant cube"),
    (["--chunk", "-1"], "--chunk -1"),
    (["--scale", "1,x"], "--scale 1,x"),
    (["--grid", "2"], "--grid 2"),
    (["--ranks", "3", "--variant", "pencil", "--grid", "2"], "--grid 2"),
])
def test_fft_cli_bad_arguments(fft_built, capsys, argv, says):
    assert main(["fft", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("meshmem fft: ") and says in err[0], err


def test_fft_program_rejects_bad_grid_at_run_time(fft_built):
    rows = apps_run.run_app("meshmem", "fft", 3, ["-v", "pencil", "-g", "2", "-N", "8"], "fft",
                            expect_fail=True)
    assert rows[0]["rc"] == 2
