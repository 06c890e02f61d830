"""Tests of `meshmem bench`: parsing, the ops table, the plot, and tiny real runs.

The real runs use 2 ranks, 2 sizes and a few iterations: they check that the programs run and
that the JSON has its schema, not any performance figure. Parts that need OpenMPI or the meshmem
benchmark binary skip with the reason when those are absent.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.bench import osu as bench
from meshmem.bench import runner
from meshmem.cli import main
from meshmem.launch import commands
from meshmem.launch.paths import bin_path

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
    out = runner.parse_output("hello\n@osu op=put pes=2 bytes=8 us=0.0400 iters=1000\n"
                           "@osu op=put pes=2 bytes=65536 us=1.5 iters=100\n"
                           "@memcpy bytes=65536 all_GBps=40.0 one_GBps=50.0\n")
    assert out.latency_us == {8: 0.04, 65536: 1.5}
    assert out.iters == {8: 1000, 65536: 100}
    assert out.memcpy_all == {65536: 40.0} and out.memcpy_one == {65536: 50.0}
    assert runner.parse_output("@floor bytes=8 us=0.0700\n").floor_us == {8: 0.07}


def test_every_op_is_known_to_both_programs():
    shmem_src = (REPO / "bench" / "osu_shmem.c").read_text()
    mpi_src = (REPO / "bench" / "osu_mpi.c").read_text()
    for op in (o for o in bench.OPS.values() if o.program == "core"):
        assert f'"{op.mode}"' in shmem_src, op.name
        assert f'"{op.mode}"' in mpi_src, op.name
        assert op.twins and all(k in commands.RUNTIMES for k, _ in op.twins)
    # the pingpong target is stated against MPI_Send/MPI_Recv
    assert [k for k, _ in bench.OPS["pingpong"].twins] == ["mpi"]


def test_memcpy_notes_explain_rows_above_their_reference():
    row = {"op": "put", "ranks": 2, "bytes": 65536, "memcpy_GBps": 2.5, "meshmem_GBps": 27.0,
           "meshmem_vs_memcpy": 10.8, "memcpy_one_rank_GBps": 2.6}
    others = [dict(row, bytes=b, memcpy_GBps=27.0, meshmem_GBps=20.0, meshmem_vs_memcpy=0.74,
                   memcpy_one_rank_GBps=30.0) for b in (1 << 20, 4 << 20)]
    notes = bench.memcpy_notes([row] + others)
    assert any(n.startswith("put 64K: the memcpy reference (2.50 GB/s) is under a third")
               for n in notes), notes
    assert any("put 64K: meshmem moves 1080 % of memcpy, above both references" in n
               for n in notes), notes
    assert bench.memcpy_notes(others) == []
    within_one = dict(others[0], meshmem_vs_memcpy=1.4, meshmem_GBps=28.0)
    assert "within the 1-rank memcpy" in bench.memcpy_notes([within_one])[0]


def test_table_leaves_out_the_columns_no_row_fills(capsys):
    """An 8-byte put has no bandwidth, memcpy reference or floor: its table printed 8 columns of
    "-" out of 14; now only the columns some row fills."""
    small = dict(op="put", ranks=2, bytes=8, meshmem_us=0.011, baseline_us=0.05,
                 speedup_vs_baseline=4.5, memcpy_GBps=None, baseline="openmpi-oshmem")
    big = dict(small, bytes=65536, meshmem_GBps=53.7, memcpy_GBps=53.2, meshmem_vs_memcpy=1.01,
               memcpy_one_rank_GBps=53.5)
    bench.print_table([small])
    head, _, row = capsys.readouterr().out.splitlines()
    assert head.split() == ["op", "ranks", "size", "meshmem", "µs", "peer", "µs", "×", "OpenMPI",
                            "peer"], head
    assert row.split() == ["put", "2", "8", "0.011", "0.050", "4.50", "OpenMPI", "(OSHMEM)"], row
    bench.print_table([small, big])
    head = capsys.readouterr().out.splitlines()[0]
    assert "memcpy GB/s" in head and "1-rank memcpy" in head and "floor" not in head, head


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from meshmem.cli.plot import plot_latency
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
    opts = commands.LaunchOptions(ranks=2, heap_bytes=16 << 20, timeout_s=120)
    out = runner.run(commands.RUNTIMES["mpi"], opts, "put", [8, 65536], 20, 5, 2, 65536)
    assert set(out.latency_us) == {8, 65536}
    assert all(v > 0 for v in out.latency_us.values())
    assert out.memcpy_all[65536] > 0


def _meshmem_bench_available():
    if not bin_path("meshrun").exists():
        return False
    try:
        runner.ensure_built(commands.RUNTIMES["meshmem"])
    except commands.BenchError:
        return False
    return True


@pytest.mark.skipif(not _meshmem_bench_available(),
                    reason="build/bench/osu_shmem or meshrun missing (run make first)")
def test_put_pingpong_refuses_sizes_that_do_not_end_in_a_word(capsys):
    prog = bin_path("meshrun").parent.parent / "bench" / "osu_shmem"
    done = subprocess.run([str(bin_path("meshrun")), "-n", "2", str(prog), "-o", "put_pingpong",
                           "-s", "8,12"], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "put_pingpong: size 12 is not a multiple of 8 bytes" in done.stderr
    assert main(["bench", "put_pingpong", "--sizes", "8,12", "--vs", "none"]) == 2
    assert "--sizes 12: put_pingpong's sizes are whole 8-byte words" in capsys.readouterr().err


@pytest.mark.skipif(not _meshmem_bench_available(),
                    reason="build/bench/osu_shmem or meshrun missing (run make first)")
@pytest.mark.parametrize("op", ["put_pingpong", "put_bidir", "pingpong"])
def test_paired_ops_finish_on_odd_ranks_and_falling_sizes(op):
    # 3 ranks: rank 2 has no partner; 64 then 8 bytes: put_pingpong's word must be the exact
    # sequence number, not whatever a larger size left there
    prog = bin_path("meshrun").parent.parent / "bench" / "osu_shmem"
    done = subprocess.run([str(bin_path("meshrun")), "-n", "3", "--heap", "16M", str(prog),
                           "-o", op, "-s", "64,8", "-i", "50", "-I", "10"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("@osu")]
    assert [r.split("bytes=")[1].split()[0] for r in rows] == ["64", "8"]
    assert all(float(r.split("us=")[1].split()[0]) > 0 for r in rows)


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
    assert "meshmem µs" in printed and ("× OpenMPI" in printed or vs == "none")
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
            assert r["speedup_vs_openmpi"] == pytest.approx(r["baseline_us"] / r["meshmem_us"])
        assert (r["memcpy_GBps"] is not None) == (r["bytes"] >= 65536)
    assert next(r for r in rows if r["op"] == "pingpong")["baseline"] in (None, "openmpi-mpi")
    put_large = next(r for r in rows if r["op"] == "put" and r["bytes"] == 65536)
    assert put_large["meshmem_GBps"] > 0
    assert doc["machine"]["nproc"] == os.cpu_count()


@pytest.mark.skipif(not _meshmem_bench_available(),
                    reason="build/bench/osu_shmem or meshrun missing (run make first)")
def test_memcpy_reference_is_sane_from_64k_to_128k(tmp_path):
    """Two malloc'ed buffers of these sizes land 64 KiB + 16 bytes apart, a slow case of
    glibc's copy on some CPUs: the reference read ~3 GB/s (every rank and rank 0 alone alike)
    where the other sizes read ~40, and put rows 1000 % of memcpy. With page-aligned buffers no
    size from 64K to 128K is a slow case. (A preemption on this shared machine can slow one of
    the two copies of a round; medians of 3 rounds and the faster of the two keep it out.)"""
    path = tmp_path / "m.json"
    rc = main(["bench", "put", "--sizes", "64K,96K,128K,256K,1M", "--rounds", "3", "--iters",
               "50", "--iters-large", "100", "--vs", "none", "--json", str(path)])
    assert rc == 0
    rows = json.loads(path.read_text())["results"]
    best = {r["bytes"]: max(r["memcpy_GBps"], r["memcpy_one_rank_GBps"]) for r in rows}
    typical = sorted(best.values())[len(best) // 2]
    for size in (64 << 10, 96 << 10, 128 << 10):
        assert best[size] > typical / 3, (size, best)


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


# ---- collectives (bench/osu_coll.c against bench/osu_coll_mpi.c) ----

COLLECTIVES = {"barrier", "bcast", "scatter", "gather", "allgather", "allgatherv", "alltoall",
               "alltoallv", "reduce", "allreduce", "reduce_scatter"}


def test_every_collective_is_in_the_table_and_the_programs():
    common = (REPO / "bench" / "osu_coll_common.h").read_text()
    coll = [o for o in bench.OPS.values() if o.program == "coll"]
    assert {o.mode for o in coll} == COLLECTIVES
    for op in coll:
        assert f'"{op.mode}"' in common, op.name
        assert [k for k, _ in op.twins] == ["mpi_coll"]
        assert set(op.algos) <= set(bench.ALGOS)
        if op.sized:
            assert min(op.sizes) == 8 and max(op.sizes) == 16 << 20
    # groups: the core operations keep their names; "all" is both
    assert set(bench.GROUPS["core"]) == set(bench.CORE_OPS)
    assert set(bench.GROUPS["all"]) == set(bench.OPS)


def test_select_ops_algorithms():
    notes = []
    sel = dict(bench.select_ops(["coll"], ["ring"], notes))
    assert set(sel) == {"coll_barrier", "allgather", "allgatherv", "alltoall", "alltoallv",
                        "allreduce"}
    assert sel["allreduce"] == ["ring"] and sel["coll_barrier"] == ["auto"]
    assert any(n.startswith("bcast has no algorithm ring") for n in notes)
    sel = dict(bench.select_ops(["allreduce"], ["naive", "aggressive", "auto"], []))
    assert sel["allreduce"] == ["naive", "aggressive", "auto"]
    with pytest.raises(ValueError, match="bcast has no algorithm ring"):
        bench.select_ops(["bcast"], ["ring"], [])
    with pytest.raises(ValueError, match="put has no algorithm"):
        bench.select_ops(["put"], ["ring"], [])


def test_bad_algo_and_topology_are_clear_errors(capsys):
    assert main(["bench", "allreduce", "--algo", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "--algo bogus: unknown algorithm" in err and "aggressive" in err
    assert main(["bench", "alltoall", "--algo", "naive"]) == 2
    assert "alltoall has no algorithm naive (it offers: onestep, ring, leader)" in capsys.readouterr().err
    assert main(["bench", "alltoall", "--ranks", "2", "--topology", "ghc:4x2"]) == 2
    assert "4 x 2 = 8 ranks, but --ranks is 2" in capsys.readouterr().err
    assert main(["bench", "alltoall", "--topology", "torus"]) == 2
    assert "expected fullmesh, ghc:KXxKY" in capsys.readouterr().err


def test_plot_algorithms(tmp_path):
    pytest.importorskip("matplotlib")
    from meshmem.cli.plot import plot_latency
    rows = [{"op": "allreduce", "ranks": 2, "bytes": b, "meshmem_us": k * b, "algo": a,
             "baseline": "openmpi-mpi", "baseline_us": 0.5 * b}
            for k, a in ((1, "naive"), (2, "ring")) for b in (8, 1024)]
    path = tmp_path / "a.png"
    plot_latency(rows, str(path))
    assert path.stat().st_size > 1000


def _coll_available():
    if not bin_path("meshrun").exists():
        return False
    try:
        runner.ensure_built(commands.RUNTIMES["meshmem_coll"])
    except commands.BenchError:
        return False
    return True


needs_coll = pytest.mark.skipif(not _coll_available(),
                                reason="build/bench/osu_coll or meshrun missing (run make first)")


@needs_coll
def test_coll_tiny_run_schema_and_algorithms(tmp_path, capsys):
    path = tmp_path / "c.json"
    vs = "openmpi" if _have_openmpi() else "none"
    rc = main(["bench", "allreduce", "--algo", "onestep,ring", "--ranks", "2", "--sizes",
               "8,64K", "--rounds", "2", "--iters", "20", "--iters-large", "5", "--vs", vs,
               "--json", str(path)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "allreduce/onestep" in printed and "allreduce/ring" in printed
    doc = json.loads(path.read_text())
    rows = doc["results"]
    assert {(r["algo"], r["bytes"]) for r in rows} == {("onestep", 8), ("onestep", 65536),
                                                      ("ring", 8), ("ring", 65536)}
    for r in rows:
        assert SCHEMA <= set(r), r
        assert r["op"] == "allreduce" and r["ranks"] == 2 and r["meshmem_us"] > 0
        assert r["topology"] == "fullmesh" and r["dtype"] == "float32"
        if vs == "openmpi":
            assert r["baseline"] == "openmpi-mpi" and r["baseline_us"] > 0
            assert r["ratio"] == pytest.approx(r["meshmem_us"] / r["baseline_us"])
            assert r["speedup_vs_openmpi"] == pytest.approx(r["baseline_us"] / r["meshmem_us"])
        assert (r["memcpy_GBps"] is not None) == (r["bytes"] >= 65536)
    # both algorithms were compared with the same OpenMPI runs
    by = {(r["algo"], r["bytes"]): r for r in rows}
    if vs == "openmpi":
        assert by["onestep", 8]["baseline_rounds_us"] == by["ring", 8]["baseline_rounds_us"]
    assert doc["settings"]["algo"] == ["onestep", "ring"]


@needs_coll
def test_coll_tiny_run_data_movement(tmp_path):
    # N blocks: the memcpy reference and the bandwidth count every block a rank moves
    path = tmp_path / "m.json"
    vs = "openmpi" if _have_openmpi() else "none"
    rc = main(["bench", "alltoall", "allgatherv", "coll_barrier", "--private", "--ranks", "2",
               "--sizes", "8,64K", "--rounds", "1", "--iters", "10", "--iters-large", "3",
               "--vs", vs, "--json", str(path)])
    assert rc == 0
    rows = json.loads(path.read_text())["results"]
    assert {(r["op"], r["bytes"]) for r in rows} == {
        ("alltoall", 8), ("alltoall", 65536), ("allgatherv", 8), ("allgatherv", 65536),
        ("coll_barrier", 0)}
    for r in rows:
        assert SCHEMA <= set(r) and r["private"] is True
        if r["bytes"] == 65536:
            assert r["moved_bytes"] == 2 * 65536
            assert r["meshmem_GBps"] == pytest.approx(2 * 65536 / r["meshmem_us"] * 1e-3)
            assert r["meshmem_vs_memcpy"] > 0
            assert "floor_us" not in r  # a 64 KiB block is not one line
        else:  # blocks of a flag line: the bare pattern of lines was timed too
            assert r["floor_us"] > 0 and len(r["floor_rounds_us"]) == 1
            assert r["meshmem_vs_floor"] == pytest.approx(r["meshmem_us"] / r["floor_us"])
            if vs == "openmpi":
                assert r["baseline_vs_floor"] == pytest.approx(r["baseline_us"] / r["floor_us"])


@needs_coll
@pytest.mark.parametrize("ranks", [3, 8])
def test_coll_floor_of_every_collective(ranks):
    # each collective's pattern of lines (exchange, from the root, to the root) completes, at
    # an odd size and oversubscribed (8 ranks: the floor's waits yield), for blocks up to 48 B
    opts = commands.LaunchOptions(ranks=ranks, heap_bytes=16 << 20, timeout_s=60)
    for op in sorted(COLLECTIVES):
        out = runner.run(commands.RUNTIMES["meshmem_coll"], opts, op, [1, 48, 56], 20, 5, 10, 1 << 30)
        want = {1, 48, 56} if op == "barrier" else {1, 48}  # the barrier: no blocks
        assert set(out.floor_us) == want and min(out.floor_us.values()) > 0, (op, out)


@needs_coll
def test_coll_algo_reaches_the_runtime():
    # the program passes -a to meshmem, whose refusal is the error the user sees
    opts = commands.LaunchOptions(ranks=2, heap_bytes=64 << 20, timeout_s=60)
    with pytest.raises(commands.BenchError, match="algorithm naive is not available"):
        runner.run(commands.RUNTIMES["meshmem_coll"], opts, "alltoall", [8], 5, 5, 1, 0,
                extra_args=["-a", "naive"])
    out = runner.run(commands.RUNTIMES["meshmem_coll"], opts, "allreduce", [8, 4096], 5, 5, 1, 0,
                  extra_args=["-a", "recdbl", "-d", "int64"])
    assert set(out.latency_us) == {8, 4096}


@needs_coll
def test_coll_topology_reaches_the_runtime(tmp_path):
    # GHC 2 x 2 on 4 ranks: the rows say so, and a shape the runtime refuses is its error
    path = tmp_path / "g.json"
    rc = main(["bench", "alltoall", "--ranks", "4", "--topology", "ghc:2x2", "--sizes", "8",
               "--rounds", "1", "--iters", "10", "--vs", "none", "--json", str(path),
               "--timeout", "120"])
    assert rc == 0
    rows = json.loads(path.read_text())["results"]
    assert [r["topology"] for r in rows] == ["ghc:2x2"]
    opts = commands.LaunchOptions(ranks=2, heap_bytes=64 << 20, timeout_s=60)
    with pytest.raises(commands.BenchError, match="MESHMEM_TOPOLOGY"):
        runner.run(commands.RUNTIMES["meshmem_coll"], opts, "alltoall", [8], 5, 5, 1, 0,
                extra_env={"MESHMEM_TOPOLOGY": "ghc:3x3"})
