"""`meshmem bench` across hosts (--vhosts, --hosts): the commands of each side, the UCX floor,
and a tiny real run of the baselines on a virtual cluster (meshmem's own side needs the runtime
to bootstrap from PMIx, and is not run here)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.bench import ucx_floor
from meshmem.cli import main
from meshmem.launch import commands
from meshmem.launch.paths import bin_path


@pytest.fixture
def in_build(build_dir, monkeypatch):
    monkeypatch.setenv("MESHMEM_BUILD", str(build_dir))
    return build_dir


def test_meshmem_side_runs_through_meshrun_across_hosts(in_build):
    opts = commands.LaunchOptions(ranks=4, vhosts=2)
    cmd, _ = commands.command(commands.RUNTIMES["meshmem"], Path("/x/osu_shmem"), opts, ["-o", "put"])
    assert cmd[0] == str(bin_path("meshrun"))
    assert cmd[cmd.index("--vhosts") + 1] == "2"
    assert cmd[-3:] == ["/x/osu_shmem", "-o", "put"]
    cmd, _ = commands.command(commands.RUNTIMES["meshmem"], Path("/x/p"),
                         commands.LaunchOptions(ranks=2, hosts="a:1,b:1"), [])
    assert cmd[cmd.index("--hosts") + 1] == "a:1,b:1"


def test_openmpi_side_on_a_virtual_cluster(in_build, monkeypatch):
    monkeypatch.setenv("UCX_LOG_LEVEL", "warn")
    for rt, mca in (("oshmem", ("spml", "ucx")), ("mpi", ("pml", "ucx"))):
        cmd, env = commands.command(commands.RUNTIMES[rt], Path("/x/prog"),
                               commands.LaunchOptions(ranks=4, vhosts=2, bind="core"), ["-o", "put"])
        # built for the run, 2 ranks a host as meshrun places them, then the launcher
        assert cmd[:6] == [str(bin_path("meshrun-vhosts")), "run", "2", "--slots", "2", "--"]
        assert cmd[6].endswith("oshrun" if rt == "oshmem" else "mpirun")
        # bound as meshrun --vhosts binds: rank r on the r-th CPU (a rankfile)
        rankfile = Path(cmd[cmd.index("--rankfile") + 1]).read_text().splitlines()
        cpus = sorted(os.sched_getaffinity(0))
        assert rankfile == [f"rank {r}=vhost{r // 2} slot={cpus[r % len(cpus)]}" for r in range(4)]
        assert "--bind-to" not in cmd
        text = " ".join(cmd)
        assert f"-mca {mca[0]} {mca[1]}" in text
        assert "-mca opal_common_ucx_opal_mem_hooks 0" in text
        for var in ("UCX_TLS", "UCX_NET_DEVICES", "UCX_LOG_LEVEL"):
            assert f"-x {var}" in text
        assert cmd[-3:] == ["/x/prog", "-o", "put"]
    assert "-x SHMEM_SYMMETRIC_SIZE" in " ".join(
        commands.command(commands.RUNTIMES["oshmem"], Path("/x"), commands.LaunchOptions(ranks=2, vhosts=2),
                    [])[0])


def test_openmpi_side_on_real_hosts(in_build):
    cmd, _ = commands.command(commands.RUNTIMES["mpi"], Path("/x/prog"),
                         commands.LaunchOptions(ranks=2, hosts="a:1,b:1", bind="core"), [])
    assert cmd[0].endswith("mpirun") and "meshrun-vhosts" not in " ".join(cmd)
    assert cmd[cmd.index("--map-by") + 1] == "slot" and cmd[cmd.index("--bind-to") + 1] == "core"
    assert cmd[cmd.index("--host") + 1] == "a:1,b:1"
    # other machines' cores are theirs: OpenMPI decides from its slots, and the JSON says so
    assert "mpi_yield_when_idle" not in " ".join(cmd)
    s = commands.twin_settings(commands.LaunchOptions(ranks=2, hosts="a:1,b:1"))
    assert s.shares_cores is None and "from its slots" in s.line()
    cmd, _ = commands.command(commands.RUNTIMES["mpi"], Path("/x/prog"),
                         commands.LaunchOptions(ranks=2, hostfile="/h", bind="core"), [])
    assert cmd[cmd.index("--hostfile") + 1] == "/h" and "--rankfile" not in cmd


def mca_of(cmd: list) -> dict:
    """The -mca NAME VALUE pairs of a command line."""
    return {cmd[i + 1]: cmd[i + 2] for i, a in enumerate(cmd) if a == "-mca"}


@pytest.mark.parametrize("opts, shares", [
    (dict(ranks=4), True), (dict(ranks=4, bind="none"), True), (dict(ranks=2), False),
    (dict(ranks=4, vhosts=2), True), (dict(ranks=2, vhosts=2), False),
], ids=["one-host-4", "one-host-4-unbound", "one-host-2", "vhosts-2x2", "vhosts-2x1"])
def test_twin_yields_exactly_when_its_ranks_share_cores(in_build, monkeypatch, opts, shares):
    """OpenMPI's documented setting for oversubscribed nodes, on one host and on
    virtual hosts (where mpirun's slots say each host has room), and not otherwise; its ranks
    bound as meshrun binds; the settings the command line carries are those recorded."""
    monkeypatch.setattr(commands, "cores", lambda: 2)
    o = commands.LaunchOptions(**{"bind": "core", **opts})
    for rt in ("mpi", "oshmem"):
        cmd, env = commands.command(commands.RUNTIMES[rt], Path("/x/prog"), o, [])
        assert (mca_of(cmd).get("mpi_yield_when_idle") == "1") == shares, cmd
        settings = commands.twin_settings(o, rt)
        assert settings.shares_cores == shares
        assert mca_of(cmd) == settings.mca and settings.as_dict()["mca"] == settings.mca
        assert ("mpi_yield_when_idle" in settings.line()) == shares
        assert env["OMPI_MCA_opal_common_ucx_opal_mem_hooks"] == "0"
        if o.bind == "core":
            lines = Path(cmd[cmd.index("--rankfile") + 1]).read_text().splitlines()
            cpus = sorted(os.sched_getaffinity(0))
            assert [x.split("slot=")[1] for x in lines] == [str(cpus[r % len(cpus)])
                                                             for r in range(o.ranks)]
            assert "--bind-to" not in cmd and "--oversubscribe" not in cmd
        else:
            assert cmd[cmd.index("--bind-to") + 1] == "none"
            assert ("--oversubscribe" in cmd) == (shares and not o.vhosts)


def test_floor_commands():
    t = ucx_floor.FLOOR_TESTS[0]
    cmd = ucx_floor.command(t, commands.LaunchOptions(ranks=2, hosts="a:4,b:4"), 100)
    text = " ".join(cmd)
    assert "--host a ucx_perftest -f -t ucp_put_lat -s 8 -n 100" in text
    assert " : -n 1 --host b sh -c" in text and "ucx_perftest" in cmd[-1] and " a && exit 0" in cmd[-1]
    cmd = ucx_floor.command(t, commands.LaunchOptions(ranks=2, vhosts=2), 100)
    assert cmd[1:4] == ["run", "2", "--"]
    assert f" {ucx_floor.VHOST_SERVER} && exit 0" in cmd[-1]
    with pytest.raises(commands.BenchError, match="two hosts"):
        ucx_floor.command(t, commands.LaunchOptions(ranks=2, vhosts=1), 100)


def test_floor_output_and_ratios():
    text = ("Waiting for connection...\n+---+\n|  Test | # iterations |\n"
            "                        5000    20.000    25.000    26.000        0.00       0.00"
            "        40000       38000\n")
    r = ucx_floor.parse_final(text)
    assert r == {"iters": 5000, "p50_us": 20.0, "avg_us": 25.0, "overall_us": 26.0,
                 "MBps": 0.0, "msg_rate": 38000.0}
    with pytest.raises(commands.BenchError):
        ucx_floor.parse_final("connect() failed\n")
    floor = {"put_lat": {"test": "ucp_put_lat", "overall_us": 10.0},
             "put_bw": {"test": "ucp_put_bw", "GBps": 2.0}}
    rows = [{"op": "put", "bytes": 8, "meshmem_us": 12.0, "baseline_us": 20.0},
            {"op": "put", "bytes": 1 << 20, "meshmem_us": None, "baseline_us": 700.0,
             "baseline_GBps": 1.5},
            {"op": "get", "bytes": 8, "meshmem_us": 1.0, "baseline_us": 1.0}]
    ucx_floor.attach(rows, floor)
    assert rows[0]["meshmem_vs_ucx_floor"] == pytest.approx(1.2)
    assert rows[0]["baseline_vs_ucx_floor"] == pytest.approx(2.0)
    assert rows[1]["baseline_vs_ucx_floor_bw"] == pytest.approx(0.75)
    assert "meshmem_vs_ucx_floor_bw" not in rows[1]
    assert "ucx_floor_us" not in rows[2]  # no get floor measured


def test_bad_arguments(in_build, capsys):
    assert main(["bench", "put", "--vhosts", "99"]) == 2
    assert "--vhosts 99" in capsys.readouterr().err
    assert main(["bench", "put", "--baselines-only", "--vs", "none"]) == 2
    assert "nothing to measure" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "put", "--vhosts", "2", "--hosts", "a,b"])


def test_baselines_on_a_virtual_cluster(in_build, tmp_path, capsys):
    """OSHMEM's put and MPI's ping-pong on 2 virtual hosts, and the UCX floor: each figure
    present, none meshmem's."""
    why = subprocess.run([str(bin_path("meshrun-vhosts")), "check"], capture_output=True,
                         text=True)
    if why.returncode:
        pytest.skip(f"no virtual cluster here: {why.stdout.strip()}")
    for tool in ("oshcc", "mpicc", "ucx_perftest"):
        if not any(os.access(os.path.join(d, tool), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":")):
            pytest.skip(f"no {tool}")
    out = tmp_path / "r.json"
    rc = main(["bench", "put", "pingpong", "--vhosts", "2", "--ranks", "2", "--baselines-only",
               "--rounds", "1", "--sizes", "8", "--iters", "50", "--iters-large", "5",
               "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    doc = json.loads(out.read_text())
    rows = {r["op"]: r for r in doc["results"]}
    assert rows["put"]["baseline"] == "openmpi-oshmem" and rows["put"]["baseline_us"] > 0
    assert rows["pingpong"]["baseline"] == "openmpi-mpi" and rows["pingpong"]["baseline_us"] > 0
    assert all(r["meshmem_us"] is None for r in doc["results"])
    assert set(doc["ucx_floor"]) == {t.key for t in ucx_floor.FLOOR_TESTS}
    assert doc["ucx_floor"]["put_bw"]["GBps"] > 0
    assert rows["put"]["baseline_vs_ucx_floor"] > 0
    assert doc["settings"]["vhosts"] == 2
    assert "# UCX floor (ucx_perftest between two hosts" in text


def test_mpi4py_twin_is_built_by_the_same_function(in_build, monkeypatch):
    """`meshmem bench --python`'s mpi4py side is an OpenMPI twin like the others."""
    import shutil

    from meshmem.bench import pybench
    if not shutil.which("mpirun"):
        pytest.skip("OpenMPI is not installed")
    monkeypatch.setattr(commands, "cores", lambda: 2)
    seen = []
    monkeypatch.setattr(pybench.subprocess, "run", lambda cmd, **kw: seen.append(cmd) or
                        subprocess.CompletedProcess(cmd, 0, "", ""))
    for ranks in (4, 2):
        pybench.run_once("mpi4py", "python3", ranks, "core", 10, 5)
        assert seen[-1] == commands.twin_command(shutil.which("mpirun"), "mpi",
                                            commands.LaunchOptions(ranks=ranks, bind="core"),
                                            seen[-1][seen[-1].index("python3"):], {})
        assert (mca_of(seen[-1]).get("mpi_yield_when_idle") == "1") == (ranks > 2)


def test_collective_twins_take_the_component_measured_best_across_hosts(in_build):
    """coll/han where it beat tuned across hosts (barrier, bcast, reduce), tuned elsewhere and
    on one host."""
    for op, where, han in (("barrier", dict(vhosts=2), True), ("bcast", dict(vhosts=2), True),
                           ("allreduce", dict(vhosts=2), False), ("barrier", {}, False),
                           (None, dict(vhosts=2), False)):
        o = commands.LaunchOptions(ranks=4, collective=op, **where)
        cmd, _ = commands.command(commands.RUNTIMES["mpi_coll"], Path("/x/prog"), o, [])
        assert (mca_of(cmd).get("coll_han_priority") == "100") == han, (op, where)
        assert ("coll/han" in commands.twin_settings(o, "mpi_coll").line()) == han
