"""Tests of the application harness: the shared command line of `meshmem APP`
(python/meshmem/cli/apps/command.py) and the C harness's option table and exit statuses
(apps/common/app_harness.c), through sort and average."""
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from meshmem.cli import main
from meshmem.cli.apps import command as app_command


@pytest.mark.parametrize("argv, says", [
    (["sort", "--ranks", "0"], "--ranks 0"),
    (["average", "--rounds", "0"], "--rounds 0"),
    (["sort", "--vs", "mpich"], "--vs mpich"),
    (["average", "--vs", "serial"], "--vs serial"),
    (["sort", "--timeout", "0"], "--timeout 0"),
    (["average", "--topology", "ring"], "--topology ring"),
    (["average", "--sizes", "2"], "--sizes 2"),
    (["sort", "--fabric", "no-such-fabric"], "--fabric no-such-fabric"),
])
def test_bad_shared_argument_is_one_line_and_status_2(built, capsys, argv, says):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"meshmem {argv[0]}: ") and says in err[0]


def test_vs_words_and_errors_are_bench_s(capsys):
    """--vs takes the same words in meshmem bench and the applications (mpi: OpenMPI's MPI,
    none alone) and words its error alike (bench's came from argparse: "invalid choice")."""
    assert main(["sort", "--vs", "mpich"]) == 2
    app = capsys.readouterr().err.strip()
    assert app == ("meshmem sort: --vs mpich: choose from openmpi, serial, mpi "
                   "(comma-separated), or none alone"), app
    assert main(["bench", "put", "--vs", "mpich"]) == 2
    bench = capsys.readouterr().err.strip()
    assert bench == "meshmem bench: --vs mpich: choose from openmpi, oshmem, mpi, or none alone", \
        bench
    from meshmem.cli import options
    assert options.vs_list("mpi,serial", ("openmpi", "serial")) == ["openmpi", "serial"]
    assert options.vs_list("none", ("openmpi", "serial")) == []


def test_hosts_fail_clearly_while_meshrun_lacks_them(built, capsys, monkeypatch):
    monkeypatch.setattr(app_command, "_meshrun_help", "usage: meshrun -n N --heap SIZE")
    assert main(["sort", "--vhosts", "2"]) == 2
    err = capsys.readouterr().err
    assert "--vhosts 2: this meshrun does not run across hosts yet" in err


def test_hosts_pass_through_when_meshrun_has_them(monkeypatch):
    monkeypatch.setattr(app_command, "_meshrun_help", "  --vhosts H  --hosts LIST  --hostfile F")
    cmd = app_command.AppCommand.hosts_of
    ns = type("A", (), {"vhosts": None, "hosts": "a:4,b:4", "hostfile": None})
    assert cmd(None, ns) == (["--hosts", "a:4,b:4"], ["--host", "a:4,b:4"])
    ns.hosts, ns.vhosts = None, 2
    assert cmd(None, ns) == (["--vhosts", "2"], [])


def test_vhosts_twin_runs_on_a_virtual_cluster_of_the_same_shape(built, monkeypatch):
    from meshmem.cli.apps import programs as apps_run
    from meshmem.cli.apps import sort as sort_cli
    monkeypatch.setattr(app_command, "_meshrun_help", "  --vhosts H")
    a = app_command.options.defaults(sort_cli.COMMAND.add_arguments, vhosts=2, ranks=4)
    launch = sort_cli.COMMAND.launch_of(a)
    seen = {}
    monkeypatch.setattr(apps_run, "run_app", lambda runtime, *args, **kw: seen.update(
        {runtime: kw}) or [{}])
    launch.meshmem("sort", [], "sort")
    launch.openmpi("sort_mpi", [], "sort")
    # meshrun gets --vhosts; mpirun none, but the cluster (commands.command wraps it)
    assert seen["meshmem"]["meshrun_args"] == ["--vhosts", "2"]
    assert seen["meshmem"].get("vhosts", 0) == 0
    assert seen["openmpi"]["meshrun_args"] == [] and seen["openmpi"]["vhosts"] == 2


def test_alternate_flips_the_order_every_round():
    seen = []
    out = app_command.alternate(3, {"a": lambda: seen.append("a") or 1,
                                    "b": lambda: seen.append("b") or 2})
    assert seen == ["a", "b", "b", "a", "a", "b"]
    assert out == {"a": [1, 1, 1], "b": [2, 2, 2]}


def test_rows_verified_needs_every_baseline():
    assert app_command.rows_verified([{"verified": 1, "mpi_verified": 1}])
    assert not app_command.rows_verified([{"verified": 1, "serial_verified": 0}])
    assert not app_command.rows_verified([{"verified": 0}])


@pytest.mark.parametrize("args, says", [
    (["-i", "0"], "sort: -i 0: ITERS must be an integer of at least 1"),
    (["-n", "lots"], "sort: -n lots: RECORDS must be a count"),
    (["-q"], "sort: unknown option -q"),
    (["-v"], "sort: option -v needs a value"),
    (["-v", "quick"], "sort: -v quick: unknown variant"),
    (["extra"], "sort: unexpected argument extra"),
])
def test_c_harness_rejects_bad_options_once(built, args, says):
    # 3 ranks: the message comes from rank 0 only, every rank exits with 2 before init
    done = subprocess.run([str(built / "bin" / "meshrun"), "-n", "3", "--timeout", "60",
                           str(built / "apps" / "bin" / "sort"), *args],
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("sort:")]
    assert len(lines) == 1 and lines[0].startswith(says), done.stderr


def test_c_harness_usage_lists_common_options(built):
    done = subprocess.run([str(built / "apps" / "bin" / "average"), "-h"], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0
    for opt in ("-a ALGO", "-i ITERS", "-w WARMUP", "-s SEED", "-C"):
        assert opt in done.stdout


def test_c_harness_result_line_has_the_common_fields(built):
    from meshmem.cli.apps import programs as apps_run
    row = apps_run.run_app("meshmem", "average", 2, ["-S", "1K", "-i", "7", "-w", "1"],
                           "average")[0]
    assert {"runtime", "ranks", "seconds", "best", "iters", "times", "verified",
            "max_err"} <= set(row)
    assert row["runtime"] == "meshmem" and row["iters"] == 7 and row["verified"] == 1
