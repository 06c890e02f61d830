"""Tests of the active-message benchmarks of `meshmem bench` (group "am", bench/osu_am.c):
the ops table against the program, the FSHMEM plots, and a tiny real run's JSON (no
performance figure is checked)."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.bench import osu as bench
from meshmem.cli import main
from meshmem.launch import commands


def test_am_ops_table():
    src = (REPO / "bench" / "osu_am.c").read_text()
    am = [o for o in bench.OPS.values() if o.program == "am"]
    assert {o.name for o in am} == set(bench.GROUPS["am"])
    for op in am:
        base = op.mode.split("_f")[0] if op.mode.startswith("am_") else op.mode
        assert f'"{base}"' in src or op.mode.startswith("stream_n"), op.name
        for twin in op.twins:
            assert twin[0] in commands.RUNTIMES and len(twin) == 3
            assert f'"{twin[2]}"' in src or twin[0] == "mpi", op.name
    # FSHMEM Fig. 5: every fragment size, put and get, 4 B to 2 MiB
    for kind in ("put", "get"):
        for frag in ("", "_f128", "_f256", "_f512", "_f1024"):
            op = bench.OPS[f"am_{kind}{frag}"]
            assert min(op.sizes) == 4 and max(op.sizes) == 2 << 20
    assert [t[0] for t in bench.OPS["am_pingpong"].twins] == ["mpi"]
    # every stream N in both forms: one element per push and N per push
    for n in bench.AM_STREAM_N:
        assert dict(bench.OPS[f"stream_n{n}"].row_fields) == {"push": "element", "batch_n": n}
        assert dict(bench.OPS[f"stream_n{n}_batch"].row_fields) == {"push": "batch",
                                                                    "batch_n": n}
    assert bench.choose_twin(bench.OPS["am_rate"], "openmpi", None, []) is None


def _have_binary():
    return commands.RUNTIMES["meshmem_am"].exe().exists()


@pytest.mark.skipif(not _have_binary(), reason="build/bench/osu_am not built")
def test_am_tiny_run_and_plots(tmp_path, capsys):
    out = tmp_path / "am.json"
    rc = main(["bench", "am_put_f128", "am_get", "stream_n8", "stream_n8_batch", "am_rate",
               "--ranks", "2",
               "--sizes", "64,4096", "--rounds", "1", "--iters", "20", "--iters-large", "5",
               "--vs", "none", "--json", str(out)])
    assert rc == 0
    rows = json.loads(out.read_text())["results"]
    assert {r["op"] for r in rows} == {"am_put_f128", "am_get", "stream_n8", "stream_n8_batch",
                                       "am_rate"}
    assert all(r["meshmem_us"] > 0 for r in rows)
    # the two stream forms are separate rows, told apart by their JSON fields
    forms = {(r["push"], r["batch_n"]) for r in rows if r["op"].startswith("stream_")}
    assert forms == {("element", 8), ("batch", 8)}
    sys.path.insert(0, str(REPO / "bench"))
    import am_plot
    assert am_plot.main(["am_plot", str(out), str(tmp_path)]) == 0
    assert (tmp_path / "am-fig5.png").stat().st_size > 0
    assert (tmp_path / "am-stream.png").stat().st_size > 0
