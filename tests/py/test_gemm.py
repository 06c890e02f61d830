"""Tests of `meshmem gemm`: a tiny verified run of both variants with the MPI twin and one
rank, the JSON and the plot; bad arguments (one line, status 2). The program's own cases are
ctest's apps_gemm_*."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run


def test_gemm_cli_variants_json_and_plot(built, tmp_path):
    if not apps_run.app_path("gemm").exists():
        pytest.skip("OpenBLAS missing: gemm not built")
    mpi = apps_run.openmpi_available()[0]
    out = tmp_path / "g.json"
    assert main(["gemm", "--ranks", "3", "--size", "37x29x41", "--chunk", "5", "--iters", "2",
                 "--rounds", "1", "--vs", "openmpi,serial" if mpi else "serial",
                 "--json", str(out), "--plot", str(tmp_path / "g.png")]) == 0
    rows = json.loads(out.read_text())["results"]
    assert [r["variant"] for r in rows] == ["stream", "summa"]
    for r in rows:
        assert r["verified"] == 1 and r["serial_verified"] == 1 and r["GOPS"] > 0
        assert r["max_err"] <= 1e-12
        if mpi:
            assert r["mpi_verified"] == 1 and r["speedup_vs_openmpi"] > 0
    assert (tmp_path / "g.png").stat().st_size > 0


@pytest.mark.parametrize("argv, says", [
    (["--variant", "cannon"], "--variant cannon"),
    (["--size", "0"], "-N 0"),
    (["--size", "4x4"], "-N 4x4"),
    (["--chunk", "0"], "--chunk 0"),
    (["--scale", "0"], "--scale 0"),
    (["--vs", "fftw"], "--vs fftw"),
])
def test_gemm_cli_bad_arguments(built, capsys, argv, says):
    assert main(["gemm", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("meshmem gemm: ") and says in err[0], err


def test_gemm_program_serial_needs_one_rank(built):
    done = subprocess.run([str(apps_run.build_dir() / "bin" / "meshrun"), "-n", "2",
                           str(apps_run.app_path("gemm")), "-v", "serial", "-N", "8"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "-v serial" in done.stderr
