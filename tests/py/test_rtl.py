"""Real programs on the simulated OPTWEB engine (meshrun --rtl, docs/rtl-transport.md): `meshmem
sort` and `meshmem average --rtl` verified at 2, 3, 4 and 8 nodes, `meshmem bench put --rtl`'s
lines (the engine's simulated time, the model's prediction, the paper's figure, no OpenMPI), a
Python program (`import meshmem`) under meshrun --rtl, and the bad input of --rtl, one line each;
`meshmem rtl speed` with one thread and two, and its bad --threads.

The runs need the simulator (build/bin/meshmem-rtlsim, built where Verilator is), as the rtl
tests of ctest (tests/c/rtl.cmake); the bad input's tests run everywhere. Sizes are small: the
simulation clocks every cycle that moves data (tens of thousands of cycles per second).
"""
import json
import os
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.bench import rtl as bench_rtl  # noqa: E402
from meshmem.cli import main  # noqa: E402
from meshmem.model import cost, load_fabric  # noqa: E402

CONFIG = "optweb-fc8-45g"
CONFIG_FILE = REPO / "rtl" / "configs" / f"{CONFIG}.toml"
PROGS = Path(__file__).resolve().parent / "rank_progs"


@pytest.fixture
def engine(built):
    """The build tree with the simulator; skips where meshmem was built without Verilator."""
    if not (built / "bin" / "meshmem-rtlsim").exists():
        pytest.skip("the simulated engine is not built here (no Verilator)")
    return built


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_sort_on_the_engine(engine, tmp_path, capsys, n):
    """The single-pass sort on n simulated nodes, verified, in simulated seconds, beside the
    model's prediction of the same sort (meshrun --rtl --fabric, the fabric the configuration
    names): the replay of the engine's own calls, within a factor of 2 of the engine's time
    (both simulated, the same on every run; the replay of a shared-memory run, whose fetch-add
    per region block does not happen on the engine, predicted 72 times the engine's time)."""
    out = tmp_path / "s.json"
    assert main(["sort", "--rtl", CONFIG, "--ranks", str(n), "--records", "16K", "--iters", "1",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"on the simulated OPTWEB engine ({CONFIG}, meshrun --rtl): {n} nodes" in text
    assert "# OpenMPI and serial: none: they do not run on simulated hardware" in text
    doc = json.loads(out.read_text())
    [row] = doc["results"]
    assert row["verified"] == 1 and row["fabric_verified"] == 1 and row["ranks"] == n
    assert row["seconds"] > 0 and 0.5 < row["predicted_s"] / row["seconds"] < 2
    assert "mpi_seconds" not in row and "serial_seconds" not in row
    assert doc["settings"]["rtl"] == str(CONFIG_FILE.resolve())
    assert doc["settings"]["fabric"].endswith("fabrics/optweb-fc8-45g.toml")


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_average_on_the_engine(engine, tmp_path, capsys, n):
    """Both averagings on n simulated nodes, verified against float64, simulated µs beside the
    model's prediction: each step one of the engine's collectives, within a factor of 2 of the
    model's (the program's gets of every peer's slice, one after another, took 7 to 20 times
    the model's time)."""
    out = tmp_path / "a.json"
    assert main(["average", "--rtl", CONFIG, "--ranks", str(n), "--sizes", "1K,16K",
                 "--iters", "2", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["results"]
    assert [(r["algo"], r["bytes"]) for r in rows] == [
        ("naive", 1024), ("naive", 16384), ("aggressive", 1024), ("aggressive", 16384)]
    for r in rows:
        assert r["verified"] == 1 and r["us"] > 0 and 0.5 < r["predicted_s"] * 1e6 / r["us"] < 2
        assert "mpi_us" not in r
    assert "OpenMPI µs" in capsys.readouterr().out


def test_bench_put_on_the_engine(engine, capsys):
    """Each size's line: the engine's simulated time, the model's prediction on the fabric the
    configuration names (computed here again), engine / model, and for 128 B the paper's
    unicast (the figure `meshmem rtl validate` uses); no OpenMPI, said so."""
    assert main(["bench", "put", "--rtl", CONFIG, "--sizes", "8,128"]) == 0
    out = capsys.readouterr().out
    fab = load_fabric(bench_rtl.fabric_of(str(CONFIG_FILE)))
    for size, paper in ((8, "-"), (128, "0.800  unicast-direct-small")):
        model = cost(fab, "put", size, 2, src=0, dst=1).seconds * 1e6
        m = re.search(rf"^put\s+2\s+{size}\s+(\d+\.\d+)\s+{model:.3f}\s+(\d+\.\d+)\s*(.*)$", out,
                      re.M)
        assert m, out
        engine_us, ratio = float(m.group(1)), float(m.group(2))
        assert engine_us > 0 and ratio == pytest.approx(engine_us / model, abs=0.006)
        assert m.group(3) == paper, m.group(0)
    assert "# OpenMPI: none: OpenMPI does not run on simulated hardware" in out
    assert "# note: put is timed with its quiet" in out


@pytest.mark.parametrize("n", [2, 3, 8])
def test_python_program_on_the_engine(engine, installed, launch, n):
    """`import meshmem` under meshrun --rtl: put/get, an atomic and collectives, asserted by the
    program (rank_progs/rtl_check.py), with the installed package's meshrun and python."""
    r = launch.run([str(installed / "meshrun"), "--rtl", CONFIG, "-n", str(n), "--heap", "32M",
                    str(installed / "python"), str(PROGS / "rtl_check.py")], guard=240,
                   direct=True)
    assert r.rc == 0, r.err[-3000:]
    assert f"rtl_check: ok on {n} ranks" in r.out


# ---- bad input: one line each, before anything runs ----------------------------------------
def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.strip()


@pytest.mark.parametrize("cmd", [["bench", "put"], ["sort"], ["average"]])
def test_unknown_configuration(built, capsys, cmd):
    assert main([*cmd, "--rtl", "no-such-engine"]) == 2
    assert re.fullmatch(rf"meshmem {cmd[0]}: --rtl no-such-engine: neither a file nor a "
                        r"configuration of \S+/rtl/configs \(fshmem-2node, optweb-fc8-45g, .*\)",
                        one_line(capsys))


@pytest.mark.parametrize("cmd", [["bench", "put"], ["sort"]])
def test_simulator_not_built(built, tmp_path, monkeypatch, capsys, cmd):
    """A build tree without the simulator (built without Verilator)."""
    monkeypatch.setenv("MESHMEM_BUILD", str(tmp_path))
    assert main([*cmd, "--rtl", str(CONFIG_FILE)]) == 2
    assert one_line(capsys) == (
        f"meshmem {cmd[0]}: --rtl {CONFIG_FILE}: the simulator is not built (no "
        f"{tmp_path}/bin/meshmem-rtlsim: meshmem was built without Verilator; "
        "scripts/install-deps.sh installs it, then make)")


@pytest.mark.parametrize("cmd,where", [
    (["bench", "put"], ["--hosts", "a:1,b:1"]), (["bench", "put"], ["--vhosts", "2"]),
    (["sort"], ["--hosts", "a:1,b:1"]), (["average"], ["--vhosts", "2"]),
    (["average"], ["--hostfile", "hosts.txt"])])
def test_rtl_with_hosts(engine, capsys, cmd, where):
    assert main([*cmd, "--rtl", CONFIG, *where]) == 2
    assert one_line(capsys) == (
        f"meshmem {cmd[0]}: --rtl {CONFIG} with {where[0]} {where[1]}: the "
        f"simulated engine runs on this machine, every rank a node of it; leave out {where[0]}")


@pytest.mark.parametrize("extra", [["--python"], ["put", "--baselines-only"]])
def test_rtl_with_an_openmpi_only_mode(engine, capsys, extra):
    """bench --python and --baselines-only measure OpenMPI, which does not run there."""
    assert main(["bench", *extra, "--rtl", CONFIG]) == 2
    assert one_line(capsys).startswith(f"meshmem bench: --rtl {CONFIG} with {extra[-1]}: ")



# ---- meshmem rtl speed: the simulator's own speed, with one thread and two --------------------
def test_rtl_speed_threads(engine, tmp_path, capsys):
    """8 nodes, one thread and two (MM_RTL_THREADS): each load's row says which it used (two
    where this process may run on 2 CPUs), and both simulate cycles."""
    out = tmp_path / "speed.json"
    assert main(["rtl", "speed", "--nodes", "8", "--threads", "1,2", "--seconds", "0.2",
                 "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [(r["nodes"], r["load"]) for r in rows] == [(8, "alltoall-4k"), (8, "unicast-barrier")] * 2
    two = 2 if len(os.sched_getaffinity(0)) >= 2 else 1
    assert [r["threads"] for r in rows] == [1, 1, two, two]
    assert all(r["cycles"] > 0 and r["cycles_per_s"] > 0 for r in rows)
    assert re.search(r"^\s+8\s+1 alltoall-4k", capsys.readouterr().out, re.M)


@pytest.mark.parametrize("threads", ["3", "0", "x", ""])
def test_rtl_speed_bad_threads(built, capsys, threads):
    assert main(["rtl", "speed", "--threads", threads]) == 2
    assert one_line(capsys) == f"meshmem rtl: --threads {threads}: thread counts 1 or 2"
