"""Tests of `meshmem bench`: parsing, the ops table, the plot, and tiny real runs.

The real runs use 2 ranks, 2 sizes and a few iterations: they check that the programs run and
that the JSON has its schema, not any performance figure. Parts that need OpenMPI or the meshmem
benchmark binary skip with the reason when those are absent.
"""
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem import bench, osu  # noqa: E402
from meshmem.cli import main  # noqa: E402
from meshmem.paths import bin_path  # noqa: E402

SCHEMA = {"op", "ranks", "bytes", "meshmem_us", "baseline", "baseline_us", "memcpy_GBps"}


def test_parse_size():
    assert bench.parse_size("8") == 8
    assert bench.parse_size("4K") == 4096
    assert bench.parse_size("4KiB") == 4096
    assert bench.parse_size("1m") == 1 << 20
    with pytest.raises(ValueError):
        bench.parse_size("eight")
    assert bench.format_size(1 << 20) == "1M"
    assert bench.format_size(3000) == "3000"


def test_parse_output_ignores_other_lines():
    out = osu.parse_output("hello\n@osu op=put pes=2 bytes=8 us=0.0400 iters=1000\n"
                           "@osu op=put pes=2 bytes=65536 us=1.5 iters=100\n"
                           "@memcpy bytes=65536 all_GBps=40.0 one_GBps=50.0\n")
    assert out.latency_us == {8: 0.04, 65536: 1.5}
    assert out.iters == {8: 1000, 65536: 100}
    assert out.memcpy_all == {65536: 40.0} and out.memcpy_one == {65536: 50.0}


def test_every_op_is_known_to_both_programs():
    shmem_src = (REPO / "bench" / "osu_shmem.c").read_text()
    mpi_src = (REPO / "bench" / "osu_mpi.c").read_text()
    for op in bench.OPS.values():
        assert f'"{op.mode}"' in shmem_src, op.name
        assert f'"{op.mode}"' in mpi_src, op.name
        assert op.twins and all(k in osu.RUNTIMES for k, _ in op.twins)
    # the pingpong target is stated against MPI_Send/MPI_Recv
    assert [k for k, _ in bench.OPS["pingpong"].twins] == ["mpi"]


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from meshmem.plot import plot_latency
    rows = [{"op": "put", "ranks": 2, "bytes": b, "meshmem_us": 0.01 * b, "baseline": "x",
             "baseline_us": 0.02 * b} for b in (8, 64, 512)]
    rows.append({"op": "barrier", "ranks": 2, "bytes": 0, "meshmem_us": 0.1,
                 "baseline": None, "baseline_us": None})
    path = tmp_path / "p.png"
    plot_latency(rows, str(path), title="test")
    assert path.stat().st_size > 1000


def _have_openmpi():
    return shutil.which("mpirun") is not None and shutil.which("mpicc") is not None


@pytest.mark.skipif(not _have_openmpi(), reason="OpenMPI (mpirun, mpicc) is not installed")
def test_mpi_twin_runs():
    opts = osu.LaunchOptions(ranks=2, heap_bytes=16 << 20, timeout_s=120)
    out = osu.run(osu.RUNTIMES["mpi"], opts, "put", [8, 65536], 20, 5, 2, 65536)
    assert set(out.latency_us) == {8, 65536}
    assert all(v > 0 for v in out.latency_us.values())
    assert out.memcpy_all[65536] > 0


def _meshmem_bench_available():
    if not bin_path("meshrun").exists():
        return False
    try:
        osu.ensure_built(osu.RUNTIMES["meshmem"])
    except osu.BenchError:
        return False
    return True


@pytest.mark.skipif(not _meshmem_bench_available(),
                    reason="build/bench/osu_shmem or meshrun missing (run make first)")
def test_tiny_run_json_schema(tmp_path, capsys):
    path = tmp_path / "r.json"
    vs = "openmpi" if _have_openmpi() else "none"
    rc = main(["bench", "put", "pingpong", "barrier", "--ranks", "2", "--sizes", "8,64K",
               "--rounds", "2", "--iters", "20", "--iters-large", "5", "--vs", vs,
               "--json", str(path)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "meshmem us" in printed and "ratio" in printed
    doc = json.loads(path.read_text())
    rows = doc["results"]
    assert {(r["op"], r["bytes"]) for r in rows} == {("put", 8), ("put", 65536),
                                                     ("pingpong", 8), ("pingpong", 65536),
                                                     ("barrier", 0)}
    for r in rows:
        assert SCHEMA <= set(r), r
        assert r["ranks"] == 2 and r["meshmem_us"] > 0
        if vs == "openmpi":
            assert r["baseline"].startswith("openmpi-") and r["baseline_us"] > 0
            assert r["ratio"] == pytest.approx(r["meshmem_us"] / r["baseline_us"])
        assert (r["memcpy_GBps"] is not None) == (r["bytes"] >= 65536)
    assert next(r for r in rows if r["op"] == "pingpong")["baseline"] in (None, "openmpi-mpi")
    put_large = next(r for r in rows if r["op"] == "put" and r["bytes"] == 65536)
    assert put_large["meshmem_GBps"] > 0
    assert doc["machine"]["nproc"] == os.cpu_count()


@pytest.mark.skipif(not _meshmem_bench_available(),
                    reason="build/bench/osu_shmem or meshrun missing (run make first)")
def test_oversubscribed_run_finishes(tmp_path):
    # 8 ranks on this machine's cores: the waits must yield, and the iteration counts drop
    ranks = max(8, 2 * (os.cpu_count() or 1))
    rc = main(["bench", "barrier", "pingpong", "--ranks", str(ranks), "--sizes", "8",
               "--rounds", "1", "--vs", "none", "--json", str(tmp_path / "o.json"),
               "--timeout", "120"])
    assert rc == 0
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["settings"]["oversubscribed"] == (ranks > (os.cpu_count() or 1))
