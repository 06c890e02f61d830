"""Tests of `meshmem conv`: a tiny verified run of two shapes with the MPI twin and one rank,
the JSON and the plot; bad arguments (one line, status 2). The program's own cases are
ctest's apps_conv_*."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run


def test_conv_cli_shapes_json_and_plot(built, tmp_path):
    if not apps_run.app_path("conv").exists():
        pytest.skip("OpenBLAS missing: conv not built")
    mpi = apps_run.openmpi_available()[0]
    out = tmp_path / "c.json"
    assert main(["conv", "--ranks", "3", "--kernels", "7x3x3x7,5x4x2x5", "--maps", "9x13",
                 "--layers", "2", "--chunk", "2", "--iters", "2", "--rounds", "1",
                 "--vs", "openmpi,serial" if mpi else "serial",
                 "--json", str(out), "--plot", str(tmp_path / "c.png")]) == 0
    rows = json.loads(out.read_text())["results"]
    assert [r["kernels"] for r in rows] == ["7x3x3x7", "5x4x2x5"]
    for r in rows:
        assert r["verified"] == 1 and r["serial_verified"] == 1 and r["GOPS"] > 0
        assert r["max_err"] <= 1e-5 and r["layers"] == 2 and r["maps"] == "9x13"
        if mpi:
            assert r["mpi_verified"] == 1 and r["speedup_vs_openmpi"] > 0
    assert (tmp_path / "c.png").stat().st_size > 0


@pytest.mark.parametrize("argv, says", [
    (["--kernels", "3x3x3"], "--kernels 3x3x3"),
    (["--kernels", "big"], "--kernels big"),
    (["--kernels", "8x0x3x8"], "8x0x3x8"),
    (["--maps", "0"], "-m 0"),
    (["--maps", "4x4x4"], "-m 4x4x4"),
    (["--layers", "2", "--kernels", "8x3x3x4"], "-l 2"),
    (["--layers", "0"], "--layers 0"),
    (["--chunk", "0"], "--chunk 0"),
    (["--precision", "half"], "half"),
    (["--scale", "0"], "--scale 0"),
    (["--vs", "fftw"], "--vs fftw"),
])
def test_conv_cli_bad_arguments(built, capsys, argv, says):
    assert main(["conv", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("meshmem conv: ") and says in err[0], err


def test_conv_program_serial_needs_one_rank(built):
    done = subprocess.run([str(apps_run.build_dir() / "bin" / "meshrun"), "-n", "2",
                           str(apps_run.app_path("conv")), "-v", "serial", "-m", "8",
                           "-k", "4x3x3x4"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "-v serial" in done.stderr
