"""meshrun --fabric: virtual-time runs of small programs (tests/c/model_prog.c) on small fabrics,
with the answers worked by hand below. Measured compute is scaled by 0 (--compute-scale 0), so
only the fabric's costs and the annotations count and the figures are exact.

The hand-made fabric: 2 nodes (or a 2 x 2 GHC), links of 8 Gbit/s at efficiency 1 (1e9 B/s, so
beta = 1 ns per byte), 1 us start-up per hop, no rendezvous extra, no sync, memory 1 GB/s.
"""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.model import load_fabric  # noqa: E402
from meshmem.model.replay import Replay, ReplayError  # noqa: E402

MIB = 1 << 20
US = 1e-6
BETA = 1e-9          # s per byte: 1e9 B/s
ALPHA = 1 * US       # hop start-up

FABRIC = """
[fabric]
name = "{name}"
engine = "onestep"
[topology]
{topology}
[link]
bandwidth_gbps = {gbps}
efficiency = 1.0
hop_latency_us = 1.0
[memory]
channels = 1
channel_width_bytes = 1
clock_mhz = 1000.0
[protocol]
eager_threshold_bytes = 4096
rendezvous_extra_us = 0.0
sync_us = 0.0
[compute]
memory_gbytes_per_s = 1.0
gflops = 1.0
"""
MESH2 = 'kind = "full_mesh"\nnodes = 2'
GHC22 = 'kind = "ghc"\nkx = 2\nky = 2'


def fabric_file(tmp_path: Path, topology: str = MESH2, gbps: float = 8.0, name: str = "hand") -> str:
    p = tmp_path / f"{name}-{gbps}.toml"
    p.write_text(FABRIC.format(name=name, topology=topology, gbps=gbps))
    return str(p)


def run_model(launch, tmp_path, prog_args, n=2, fabric=None, scale="0"):
    """Run model_prog under meshrun --fabric; return (job, prediction JSON)."""
    out = tmp_path / "prediction.json"
    fabric = fabric or fabric_file(tmp_path)
    job = launch.run(["-n", str(n), "--heap", "16M", "--fabric", fabric, "--compute-scale", scale,
                      "--fabric-json", str(out), str(launch.build / "tests" / "model_prog"),
                      *prog_args], guard=90)
    assert job.rc == 0, job.err
    assert f"model_prog {prog_args[0]} ok" in job.out  # the program's own check passed
    assert "predicted time" in job.out
    return job, json.loads(out.read_text())


def phase(pred: dict, name: str) -> float:
    return pred["phases"][name]["seconds"]


def test_put_then_barrier(launch, tmp_path):
    _, pred = run_model(launch, tmp_path, ["put"])
    # put of 1 MiB: alpha + beta L = 1 us + 1048.576 us; the barrier: one block-signal step, alpha
    assert phase(pred, "transfer") == pytest.approx(ALPHA + MIB * BETA + ALPHA, rel=1e-9)
    assert pred["phases"]["transfer"]["max_rank"] == 0


def test_compute_annotation(launch, tmp_path):
    _, pred = run_model(launch, tmp_path, ["compute"])
    # rank 0 reads 1e9 bytes at 1 GB/s: 1 s; rank 1 waits for it in the barrier (1 us)
    work = pred["phases"]["work"]
    assert work["compute_s"] == pytest.approx(1.0, rel=1e-9)
    assert work["seconds"] == pytest.approx(1.0 + ALPHA, rel=1e-9)
    assert pred["rank_end_s"][0] == pytest.approx(pred["rank_end_s"][1])  # the barrier joins them
    steps = pred["critical_path"]
    assert any(s["kind"] == "compute" and s["label"] == "work" and s["rank"] == 0 for s in steps)


def test_pingpong_waits_follow_the_stores(launch, tmp_path):
    rounds = 5
    _, pred = run_model(launch, tmp_path, ["pingpong", str(rounds)])
    # each leg: a put_signal of 8 data + 8 signal bytes: alpha + 16 beta; a round trip is two legs,
    # and each rank's wait ends when the other's store arrives (causality, not wall time)
    leg = ALPHA + 16 * BETA
    assert phase(pred, "pingpong") == pytest.approx(2 * rounds * leg, rel=1e-9)
    # rank 1 spends the first leg of every round waiting
    assert pred["phases"]["pingpong"]["wait_s"] > 0 or pred["phases"]["pingpong"]["max_rank"] == 0


def test_collective_waits_for_the_slowest_member(launch, tmp_path):
    _, pred = run_model(launch, tmp_path, ["skew"])
    # rank 0 computes 1 s, rank 1 nothing: both start the all-to-all at 1 s (max of entry clocks);
    # all-to-all of L = 1 MiB per rank on 2 nodes: alpha + beta L / 2
    a2a = ALPHA + MIB * BETA / 2
    assert pred["phases"]["skew"]["seconds"] == pytest.approx(1.0 + a2a, rel=1e-9)
    assert pred["rank_end_s"][0] == pytest.approx(pred["rank_end_s"][1])
    waits = [s for s in pred["critical_path"] if s["kind"] == "compute" and s["rank"] == 0]
    assert waits, pred["critical_path"]


def test_ghc_two_hop_put(launch, tmp_path):
    fab = fabric_file(tmp_path, GHC22, name="ghc")
    # rank 0 = (0, 0) to rank 3 = (1, 1): two hops, store and forward: 2 (alpha + beta L);
    # the barrier on the 2 x 2 GHC: one step per dimension, 2 alpha
    _, far = run_model(launch, tmp_path, ["far", "3"], n=4, fabric=fab)
    assert phase(far, "transfer") == pytest.approx(2 * (ALPHA + MIB * BETA) + 2 * ALPHA, rel=1e-9)
    _, near = run_model(launch, tmp_path, ["far", "1"], n=4, fabric=fab)
    assert phase(near, "transfer") == pytest.approx(ALPHA + MIB * BETA + 2 * ALPHA, rel=1e-9)


def test_faster_link_gives_a_smaller_time(launch, tmp_path):
    _, slow = run_model(launch, tmp_path, ["put"], fabric=fabric_file(tmp_path, gbps=8.0))
    _, fast = run_model(launch, tmp_path, ["put"], fabric=fabric_file(tmp_path, gbps=80.0))
    assert fast["predicted_s"] < slow["predicted_s"]


def test_measured_compute_is_scaled(launch, tmp_path):
    _, none = run_model(launch, tmp_path, ["put"], scale="0")
    _, some = run_model(launch, tmp_path, ["put"], scale="1000")
    assert some["predicted_s"] > none["predicted_s"]


@pytest.mark.parametrize("content, words", [
    (None, "cannot read fabric file"),
    ("[fabric]\nname = 'x'\nengine = 'onestep'\n", "[topology] kind"),
    ("not toml [", "not valid TOML"),
])
def test_bad_fabric_fails_before_launch(launch, tmp_path, content, words):
    f = tmp_path / "bad.toml"
    if content is not None:
        f.write_text(content)
    job = launch.run(["-n", "2", "--heap", "16M", "--fabric", str(f),
                      str(launch.build / "tests" / "model_prog"), "put"], guard=60)
    assert job.rc == 2
    assert words in job.err and str(f) in job.err
    assert "--fabric" in job.err and "nothing was started" in job.err
    assert "model_prog put ok" not in job.out  # never launched
    # shm_snapshot (through launch) checks that no /dev/shm object was left behind


def test_too_many_ranks_for_the_fabric(launch, tmp_path):
    job = launch.run(["-n", "4", "--heap", "16M", "--fabric", fabric_file(tmp_path),
                      str(launch.build / "tests" / "model_prog"), "put"], guard=60)
    assert job.rc == 2 and "4 ranks but the fabric has 2 nodes" in job.err


def test_replay_detects_an_impossible_trace(tmp_path):
    fab = load_fabric(fabric_file(tmp_path))
    # rank 1 waits for a store that rank 0 never made
    with pytest.raises(ReplayError, match="cannot be replayed"):
        Replay(fab, [[("coll", "barrier", 0, 0, 0, 1, 2)],
                     [("wait", 0, [(0, 1)]), ("coll", "barrier", 0, 0, 0, 1, 2)]], 0.0).run()
