"""meshrun --fabric: virtual-time runs of small programs (tests/c/model_prog.c) on small fabrics,
with the answers worked by hand below. Measured compute is scaled by 0 (--compute-scale 0), so
only the fabric's costs and the annotations count and the figures are exact.

The hand-made fabric: 2 nodes (or a 2 x 2 GHC), links of 8 Gbit/s at efficiency 1 (1e9 B/s, so
beta = 1 ns per byte), 1 us start-up per hop, no rendezvous extra, no sync, memory 1 GB/s.
"""
import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import programs as apps_run
from meshmem.model import FabricError, load_fabric
from meshmem.model.replay import Replay, ReplayError

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
memory_gbytes_per_s = {mem}
gflops = 1.0
"""
MESH2 = 'kind = "full_mesh"\nnodes = 2'
GHC22 = 'kind = "ghc"\nkx = 2\nky = 2'


def fabric_file(tmp_path: Path, topology: str = MESH2, gbps: float = 8.0, name: str = "hand",
                mem: float = 1.0) -> str:
    p = tmp_path / f"{name}-{gbps}-{mem}.toml"
    p.write_text(FABRIC.format(name=name, topology=topology, gbps=gbps, mem=mem))
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


def test_report_says_how_much_is_compute_between_calls(launch, tmp_path):
    """The prediction is often mostly the program's compute between calls, measured on this
    machine: the report says how much (a first reader took it all for the fabric's)."""
    job, pred = run_model(launch, tmp_path, ["compute"])
    m = re.search(r"^  of which ([0-9.]+ (?:s|ms|us)) \((\d+) %\) is the program's compute "
                  r"between calls \(this machine's own time, measured here x 0, or the fabric's "
                  r"price of its annotations\), the rest the modelled fabric's communication and "
                  r"waits$", job.out, re.M)
    assert m, job.out
    own = sum(s["end_s"] - s["start_s"] for s in pred["critical_path"] if s["kind"] == "compute")
    assert int(m.group(2)) == round(100 * own / pred["predicted_s"])
    assert int(m.group(2)) >= 99  # 1 s of annotated work against a 1 us barrier


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


def test_fabric_set_overrides_a_value_for_the_replay(launch, tmp_path):
    """meshrun --fabric-set S.K=V: the replay's fabric with one value replaced (8 -> 80 Gbps:
    the 1 MiB put's beta L shrinks tenfold); a bad override stops the job before launch."""
    out = tmp_path / "set.json"
    job = launch.run(["-n", "2", "--heap", "16M", "--fabric", fabric_file(tmp_path),
                      "--fabric-set", "link.bandwidth_gbps=80.0", "--compute-scale", "0",
                      "--fabric-json", str(out), str(launch.build / "tests" / "model_prog"), "put"],
                     guard=90)
    assert job.rc == 0, job.err
    pred = json.loads(out.read_text())
    assert phase(pred, "transfer") == pytest.approx(ALPHA + MIB * BETA / 10 + ALPHA, rel=1e-9)
    bad = launch.run(["-n", "2", "--heap", "16M", "--fabric", fabric_file(tmp_path),
                      "--fabric-set", "link.bandwidth_gbps=-1",
                      str(launch.build / "tests" / "model_prog"), "put"], guard=60)
    assert bad.rc == 2 and "nothing was started" in bad.err
    assert "model_prog put ok" not in bad.out
    alone = launch.run(["-n", "2", "--fabric-set", "link.bandwidth_gbps=80.0",
                        str(launch.build / "tests" / "model_prog"), "put"], guard=60)
    assert alone.rc != 0 and "need --fabric" in alone.err


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


def test_setup_phase_is_free_and_left_out(tmp_path):
    fab = load_fabric(fabric_file(tmp_path))
    # rank 0 spends 5 s (measured) in setup, then 1 GB of annotated work (1 s at 1 GB/s); rank 1
    # only the setup; both meet in a barrier in setup: neither setup's time nor the wait counts
    t0 = [("phase", 0, "setup"), ("phase", 5_000_000_000, "work"), ("compute", 10**9, 0, 0),
          ("phase", 0, "setup"), ("coll", "barrier", 0, 0, 0, 1, 2)]
    t1 = [("phase", 0, "setup"), ("coll", "barrier", 7_000_000_000, 0, 0, 1, 2)]
    res = Replay(fab, [t0, t1], 1.0).run()
    assert res.phases["work"]["seconds"] == pytest.approx(1.0)
    assert res.phases["setup"]["compute_s"] == 0  # measured time in setup is not charged
    assert res.total_s == pytest.approx(1.0)  # the barrier and rank 1's wait are setup's
    assert res.setup_s > 0 and "setup" in res.as_dict()["excluded_phases"]
    assert all(s["label"] != "setup" for s in res.critical_path)


def test_measured_charge_ignores_annotations(tmp_path):
    # the same trace: 2 s measured around 1 GB of annotated work (1 s at 1 GB/s); charged by its
    # annotation unless the fabric says charge = "measured" (this machine's own compute)
    path = fabric_file(tmp_path)
    trace = [("phase", 0, "work"), ("compute", 10**9, 0, 0), ("phase", 2_000_000_000, "setup")]
    annotated = Replay(load_fabric(path), [trace], 1.0).run()
    measured = Replay(load_fabric(path, ['compute.charge="measured"']), [trace], 1.0).run()
    assert annotated.phases["work"]["seconds"] == pytest.approx(1.0)
    assert measured.phases["work"]["seconds"] == pytest.approx(2.0)
    with pytest.raises(FabricError, match=r"\[compute\] charge: must be one of"):
        load_fabric(path, ['compute.charge="guessed"'])


def test_measured_charge_lands_direct_stores_with_their_interval(tmp_path):
    # rank 0's direct write into rank 1 sits in an interval measured at 2 s: with the measured
    # charge it costs no modelled transfer and arrives when the interval ends, not before
    fab = load_fabric(fabric_file(tmp_path), ['compute.charge="measured"'])
    t0 = [("compute", 10**9, 0, 0), ("xfer", MIB, 0, 1, 1), ("phase", 2_000_000_000, "after")]
    t1 = [("wait", 0, [(0, 1)])]
    res = Replay(fab, [t0, t1], 1.0).run()
    assert res.rank_end_s[1] == pytest.approx(2.0, rel=1e-9)  # not ALPHA + MIB * BETA
    assert res.phases["main"]["comm_s"] == 0  # its time is in the measured 2 s
    assert all(s["label"] != "direct-put" for s in res.critical_path)


# --- the apps under --fabric: meshmem sort / meshmem average ----------------------------------

def sort_on(tmp_path, fabric, variants="a11,a3,a1", scale=None):
    out = tmp_path / f"sort-{Path(fabric).stem}.json"
    args = ["sort", "--ranks", "2", "--records", "20000", "--variant", variants, "--rounds", "1",
            "--iters", "1", "--vs", "none", "--no-serial", "--fabric", fabric, "--json", str(out)]
    assert main(args + (["--compute-scale", scale] if scale else [])) == 0
    return json.loads(out.read_text())["results"]


def test_sort_cli_predicts_on_a_fabric(built, tmp_path, capsys):
    rows = sort_on(tmp_path, fabric_file(tmp_path))  # the fabric's default compute scale (1)
    assert [r["variant"] for r in rows] == ["a11", "a3", "a1"]
    for r in rows:
        assert r["verified"] == 1 and r["fabric_verified"] == 1
        assert r["fabric"] == "hand" and r["predicted_s"] > 0 and r["seconds"] > 0
    # a11's nine memory passes of 4-byte columns over 10000 records per rank at 1 GB/s
    assert rows[0]["fabric_phases"]["classify"] >= 5 * 10000 * 4 * 1e-9
    assert rows[0]["fabric_phases"]["place"] >= 4 * 10000 * 4 * 1e-9
    out = capsys.readouterr().out
    assert "fabric s" in out and "not modelled" in out


def test_sort_faster_fabric_predicts_less(built, tmp_path):
    # measured intervals scaled by 0: only the fabric's costs, so the comparison is exact
    slow = sort_on(tmp_path, fabric_file(tmp_path, gbps=8.0, mem=1.0), "a11,a1", scale="0")
    fast = sort_on(tmp_path, fabric_file(tmp_path, gbps=80.0, mem=10.0), "a11,a1", scale="0")
    for s, f in zip(slow, fast):
        assert 0 < f["predicted_s"] < s["predicted_s"], (s["variant"], s, f)


def test_average_cli_predicts_on_a_fabric(built, tmp_path):
    out = tmp_path / "avg.json"
    fabric = fabric_file(tmp_path)
    assert main(["average", "--ranks", "2", "--bytes", "1K,64K", "--rounds", "1", "--iters", "3",
                 "--vs", "none", "--fabric", fabric, "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["results"]
    assert len(rows) == 4
    for r in rows:
        assert r["verified"] == 1 and r["fabric"] == "hand" and r["predicted_s"] > 0
    big = {r["algo"]: r["predicted_s"] for r in rows if r["bytes"] == 65536}
    small = {r["algo"]: r["predicted_s"] for r in rows if r["bytes"] == 1024}
    assert all(big[a] > small[a] for a in big)  # more parameters, more memory traffic
    # the sliced naive form reads every member's slice, then copies: at least 64 KiB at 1 GB/s
    assert big["naive"] >= 65536 * 1e-9


@pytest.mark.parametrize("command", ["sort", "average"])
def test_app_bad_fabric_fails_before_anything_runs(built, tmp_path, capsys, monkeypatch, command):
    def never(*a, **k):
        raise AssertionError("a program was started")
    monkeypatch.setattr(apps_run, "run_app", never)
    bad = tmp_path / "bad.toml"
    bad.write_text("not toml [")
    assert main([command, "--ranks", "2", "--vs", "none", "--fabric", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"--fabric {bad}" in err and "not valid TOML" in err
    assert main([command, "--ranks", "4", "--vs", "none", "--fabric", fabric_file(tmp_path)]) == 2
    assert "4 ranks but the fabric has 2 nodes" in capsys.readouterr().err


# --- direct loads/stores through meshmem_ptr (meshmem_model_transfer) ---------------------------

def test_direct_transfer_is_charged_like_get_and_put(launch, tmp_path):
    length = 100000
    _, pred = run_model(launch, tmp_path, ["direct", str(length)])
    # rank 0 reads L bytes of rank 1 through meshmem_ptr: a get, the request first: 2 alpha + beta L
    assert phase(pred, "direct-get") == pytest.approx(2 * ALPHA + length * BETA, rel=1e-9)
    # then 1 GB annotated (1 s at 1 GB/s) and a direct write of L bytes and the 8-byte flag: a put
    put = ALPHA + (length + 8) * BETA
    p = pred["phases"]["direct-put"]
    assert p["seconds"] == pytest.approx(1.0 + put, rel=1e-9)
    # causality: rank 1's wait on the flag ends when rank 0's direct write arrives, so both ranks
    # spend the same time in the phase (without it rank 1's wait would cost nothing)
    assert p["mean_s"] == pytest.approx(p["seconds"], rel=1e-9)


def test_replay_wait_depends_on_a_direct_write(tmp_path):
    fab = load_fabric(fabric_file(tmp_path))
    # rank 0: 1 GB annotated, then a direct write of 1 MiB into rank 1 (its store #1); rank 1
    # waits for that store: its clock moves to 1 s + alpha + beta L
    t0 = [("compute", 10**9, 0, 0), ("xfer", MIB, 0, 1, 1), ("coll", "barrier", 0, 0, 0, 1, 2)]
    t1 = [("wait", 0, [(0, 1)]), ("coll", "barrier", 0, 0, 0, 1, 2)]
    res = Replay(fab, [t0, t1], 0.0).run()
    arrival = 1.0 + ALPHA + MIB * BETA
    assert res.phases["main"]["seconds"] == pytest.approx(arrival + ALPHA, rel=1e-9)
    assert res.rank_end_s[1] == pytest.approx(arrival + ALPHA, rel=1e-9)
    labels = [(s["rank"], s["label"]) for s in res.critical_path]
    assert (0, "direct-put") in labels  # the wait's store is on the critical path
    # a read only (no store): rank 1's wait would have nothing to wait for
    with pytest.raises(ReplayError, match="cannot be replayed"):
        Replay(fab, [[("xfer", 0, MIB, 1, 0), ("coll", "barrier", 0, 0, 0, 1, 2)], t1], 0.0).run()


# --- the sort at its design's own rates ([replay] sort_variant) ------------------------------------

SORT_SECTION = """
[sort]
key_bytes = 4
pipeline_efficiency = {eff}
radix_bits_per_pass = 6
[[sort.variant]]
name = "A11-baseline"
passes_fixed = 5
passes_per_dimension = 6
exchanges_per_dimension = 2
clock_mhz = {clock}
link_gbytes_per_s = 0.5
[[sort.variant]]
name = "A1-single-pass"
passes_fixed = 0
passes_per_dimension = 1
exchanges_per_dimension = 1
clock_mhz = {clock}
link_gbytes_per_s = 0.5
"""


def sort_fabric(tmp_path, clock: float, eff: float = 0.8) -> str:
    p = tmp_path / f"sortfab-{clock}-{eff}.toml"
    p.write_text(Path(fabric_file(tmp_path)).read_text() + SORT_SECTION.format(clock=clock, eff=eff))
    return str(p)


def test_replay_design_rates(tmp_path):
    from meshmem.model.fabric import replay_design
    base = load_fabric(sort_fabric(tmp_path, 125.0))
    assert replay_design(base) is base  # no [replay]: the fabric's own rates
    fab = load_fabric(sort_fabric(tmp_path, 125.0), ["replay.sort_variant='A11-baseline'"])
    d = replay_design(fab)
    # W*M*C of the design's clock (1 B x 1 channel x 125 MHz) times the efficiency; its links
    assert d.compute.memory_bytes_per_s == pytest.approx(1 * 1 * 125e6 * 0.8)
    assert d.link.bytes_per_s == pytest.approx(0.5e9)
    with pytest.raises(Exception, match="no sort variant"):
        load_fabric(sort_fabric(tmp_path, 125.0), ["replay.sort_variant='A7'"])


def test_sort_prediction_follows_the_design_clock(built, tmp_path):
    slow = sort_on(tmp_path, sort_fabric(tmp_path, 100.0), "a11,a1", scale="0")
    fast = sort_on(tmp_path, sort_fabric(tmp_path, 400.0), "a11,a1", scale="0")
    for s, f in zip(slow, fast):
        assert s["fabric_design"] and s["fabric_design"] == f["fabric_design"]
        assert 0 < f["predicted_s"] < s["predicted_s"], (s["variant"], s, f)
        # the memory passes are charged at the design's clock: 4 x the clock, 1/4 the time
        for ph in ("classify", "place", "single-pass"):
            if ph in s["fabric_phases"] and s["fabric_phases"][ph] > 0:
                assert f["fabric_phases"][ph] < s["fabric_phases"][ph]
    # and the pipeline efficiency: a lower one predicts more
    worse = sort_on(tmp_path, sort_fabric(tmp_path, 400.0, eff=0.4), "a11", scale="0")
    assert worse[0]["predicted_s"] > fast[0]["predicted_s"]


# --- links, not ranks: transfers issued together overlap on different links --------------------

MESH3 = 'kind = "full_mesh"\nnodes = 3'
SWITCH3 = 'kind = "switch"\nnodes = 3'
GET = 2 * ALPHA  # a get of L bytes: the request (alpha), then the data (alpha + beta L)


def reads(peers, length=MIB):
    """Rank 0 reads `length` bytes from each of `peers` with consecutive xfer annotations."""
    t0 = [("xfer", 0, length, p, 0) for p in peers] + [("coll", "barrier", 0, 0, 0, 1, 3)]
    return [t0] + [[("coll", "barrier", 0, 0, 0, 1, 3)] for _ in range(2)]


def test_transfers_to_two_peers_overlap_on_a_full_mesh(tmp_path):
    fab = load_fabric(fabric_file(tmp_path, MESH3))
    # two reads on two links (0-1 and 0-2) start together: the slower one, 2 alpha + beta L, not
    # the sum; then the barrier (alpha)
    res = Replay(fab, reads([1, 2]), 0.0).run()
    assert res.total_s == pytest.approx(GET + MIB * BETA + ALPHA, rel=1e-9)
    assert res.phases["main"]["comm_s"] == pytest.approx(GET + MIB * BETA + ALPHA, rel=1e-9)


def test_transfers_share_a_switch_node_link(tmp_path):
    # the MPI engine (a switch has no direct links); no software latency, so alpha is the one
    # hop's 1 us and a get is 2 alpha + beta L as on the mesh (no rendezvous extra)
    p = tmp_path / "switch3.toml"
    p.write_text(Path(fabric_file(tmp_path, SWITCH3, name="hand-switch")).read_text()
                 .replace('engine = "onestep"', 'engine = "mpi"')
                 + '[mpi]\nsoftware_latency_us = 0.0\nreduce_gbytes_per_s = 1.0\n'
                 '[mpi.algorithms]\nbarrier = [ { algorithm = "recursive_doubling" } ]\n')
    fab = load_fabric(str(p))
    # one link per node: the two reads serialize on it, 2 (2 alpha + beta L)
    t0 = [("xfer", 0, MIB, 1, 0), ("xfer", 0, MIB, 2, 0)]
    res = Replay(fab, [t0, [], []], 0.0).run()
    assert res.total_s == pytest.approx(2 * (GET + MIB * BETA), rel=1e-9)


def test_transfers_to_the_same_peer_serialize(tmp_path):
    fab = load_fabric(fabric_file(tmp_path, MESH3))
    res = Replay(fab, reads([1, 1]), 0.0).run()
    assert res.total_s == pytest.approx(2 * (GET + MIB * BETA) + ALPHA, rel=1e-9)
    # a write and a read with one peer share the pair's link too; with two peers they overlap
    t = [("xfer", MIB, MIB, 1, 1)]
    res = Replay(fab, [t, [("wait", 0, [(0, 1)])], []], 0.0).run()
    assert res.total_s == pytest.approx(ALPHA + MIB * BETA + GET + MIB * BETA, rel=1e-9)
    # rank 1's wait sees the write's own completion (the first on the link), not the batch's end
    assert res.rank_end_s[1] == pytest.approx(ALPHA + MIB * BETA, rel=1e-9)


def test_batch_ends_at_the_next_other_record(tmp_path):
    fab = load_fabric(fabric_file(tmp_path, MESH3))
    # xfer to 1, a compute annotation (1 MB at 1 GB/s = 1 ms), xfer to 2: two batches, in turn
    t0 = [("xfer", 0, MIB, 1, 0), ("compute", 10**6, 0, 0), ("xfer", 0, MIB, 2, 0)]
    res = Replay(fab, [t0, [], []], 0.0).run()
    assert res.total_s == pytest.approx(2 * (GET + MIB * BETA) + 1e-3, rel=1e-9)


def test_ghc_transfers_share_the_links_of_their_hops(tmp_path):
    fab = load_fabric(fabric_file(tmp_path, GHC22))
    # rank 0 = (0,0) writes 1 MiB to 1 = (1,0) and to 3 = (1,1), whose route is 0-1 then 1-3:
    # both use the link 0-1, so they serialize: (alpha + beta L) + 2 (alpha + beta L) (two hops,
    # store and forward, as in test_ghc_two_hop_put)
    one, two = ALPHA + MIB * BETA, 2 * (ALPHA + MIB * BETA)
    t0 = [("xfer", MIB, 0, 1, 1), ("xfer", MIB, 0, 3, 1)]
    res = Replay(fab, [t0, [], [], []], 0.0).run()
    assert res.total_s == pytest.approx(one + two, rel=1e-9)
    # to 1 and to 2 = (0,1): links 0-1 and 0-2, they overlap
    t0 = [("xfer", MIB, 0, 1, 1), ("xfer", MIB, 0, 2, 1)]
    res = Replay(fab, [t0, [], [], []], 0.0).run()
    assert res.total_s == pytest.approx(one, rel=1e-9)
