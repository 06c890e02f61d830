"""Started by Slurm's srun --mpi=pmix across virtual hosts (the promise that "the same
program also runs when started directly by mpirun, prterun or srun --mpi=pmix").

tools/meshrun-slurm puts a Slurm cluster on meshrun-vhosts' virtual hosts: munged and slurmctld
on the head, one slurmd per host (NodeName vhost<h>), everything in the cluster's directory. The
module's cluster has 2 hosts of 2 CPUs each, so that srun's block distribution is known: -n 4 is
2 + 2, -n 3 is 2 + 1, -n 2 is 1 + 1. The jobs run without meshrun: srun starts the ranks and
Slurm's PMIx plugin serves them; the runtime bootstraps from PMIx as under mpirun.

- tests/py/rank_progs/where.c, compiled with meshcc as a user would: where every PE runs, which
  peers it reaches by load/store (exactly those of its host), and a put, get, atomic and
  reduction between all PEs; with UCX's log, that every endpoint between hosts is TCP;
- tests/c/fault_prog: a rank that exits non-zero, or calls shmem_global_exit: the job ends at
  once with Slurm's line naming the task, no rank process is left, and nothing of the cluster
  is left after it (processes, namespaces, its directory).

Skips with one line where a cluster cannot be built: not root, no ip/unshare/nsenter/mpirun, or no
Slurm (scripts/install-deps.sh installs slurmctld, slurmd, slurm-client and munge).
"""
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import pid_alive

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "meshrun-slurm"
ROOT = Path(os.environ.get("MESHRUN_VHOSTS_ROOT", "/run/meshmem-vhosts"))
CPUS = 2  # per virtual host, in Slurm's view
WHERE = re.compile(r"^where: pe (\d+) of (\d+) on (\S+) shared (\d+) of (\d+) memory-peers (\d+)$",
                   re.M)
# srun -N 2 -n N, block distribution over 2 hosts of CPUS CPUs: the host of each rank
PLACEMENT = {4: [0, 0, 1, 1], 3: [0, 0, 1], 2: [0, 1]}


@pytest.fixture(scope="module")
def script():
    why = subprocess.run([str(SCRIPT), "check"], capture_output=True, text=True)
    if why.returncode:
        pytest.skip(f"no Slurm cluster here: {why.stdout.strip() or why.stderr.strip()}")
    return str(SCRIPT)


@pytest.fixture(scope="module")
def where(script, build_dir):
    """where.c built by meshcc into the build tree."""
    exe = build_dir / "tests" / "srun_where"
    cc = subprocess.run([str(build_dir / "bin" / "meshcc"), "-std=c11", "-Wall", "-Wextra",
                         "-Werror", str(Path(__file__).parent / "rank_progs" / "where.c"),
                         "-o", str(exe)], capture_output=True, text=True, timeout=120)
    assert cc.returncode == 0, cc.stderr
    return str(exe)


@pytest.fixture(scope="module")
def fault_prog(script, build_dir):
    prog = build_dir / "tests" / "fault_prog"
    if not prog.exists():
        pytest.skip("fault_prog not built")
    return str(prog)


def daemon_pids(d: str) -> list[int]:
    """The pids of the cluster's munged, slurmctld and slurmds, from their pid files."""
    s = Path(d, "slurm")
    files = [s / "munge" / "munged.pid", s / "state" / "slurmctld.pid", *s.glob("spool/*.pid")]
    return [int(f.read_text()) for f in files]


def leftovers(owner: int) -> list[str]:
    """What of the cluster of process @owner remains: namespaces, its directory, processes
    whose command line or environment names the directory (the daemons, the ranks)."""
    d = str(ROOT / str(owner))
    left = [n for n in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                      text=True).stdout.split() if n.startswith(f"meshmem-{owner}-")]
    if os.path.exists(d):
        left.append(d)
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or not pid_alive(int(p.name)):
            continue
        try:
            seen = (p / "cmdline").read_bytes() + (p / "environ").read_bytes()
        except OSError:
            continue
        if f"{d}/".encode() in seen:
            left.append(f"pid {p.name}: {(p / 'cmdline').read_bytes()[:80]!r}")
    return left


@pytest.fixture(scope="module")
def cluster(script):
    """A Slurm cluster of 2 virtual hosts owned by this process, for the module."""
    t0 = time.monotonic()
    up = subprocess.run([script, "up", "2", str(os.getpid()), str(CPUS)], capture_output=True,
                        text=True, timeout=120)
    assert up.returncode == 0, up.stderr
    d = up.stdout.strip()
    print(f"\nSlurm cluster up in {time.monotonic() - t0:.2f} s")
    daemons = daemon_pids(d)
    assert len(daemons) == 4 and all(pid_alive(p) for p in daemons), daemons
    try:
        yield d
    finally:
        subprocess.run([script, "down", d], check=True)
        assert not [p for p in daemons if pid_alive(p)]
        left = leftovers(os.getpid())
        assert not left, f"left behind: {left}"


class Done(NamedTuple):
    rc: int
    out: str
    err: str
    wall: float  # seconds
    pid: int


def run(command: list[str], env: dict | None = None, guard: float = 60) -> Done:
    """@command in a session of its own (killed whole on a hang)."""
    full = dict(os.environ, SHMEM_SYMMETRIC_SIZE="16M")
    full.update(env or {})
    t0 = time.monotonic()
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=full, start_new_session=True)
    try:
        out, err = p.communicate(timeout=guard)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"{command} still running after {guard} s\nstdout:\n{out}\nstderr:\n{err}")
    return Done(p.returncode, out, err, time.monotonic() - t0, p.pid)


def srun(script, cluster, *args, env=None):
    return run([script, "exec", cluster, "head", "srun", "--mpi=pmix", *args], env)


def check_where(out: str, err: str, n: int) -> None:
    """where's lines of an n-rank job on the module's cluster: ranks, sizes, hosts, peers."""
    found = {int(m[0]): m for m in WHERE.findall(out)}
    assert sorted(found) == list(range(n)), f"stdout:\n{out}\nstderr:\n{err}"
    hosts = [f"vhost{h}" for h in PLACEMENT[n]]
    for r, (_, size, host, shared, shared_size, peers) in found.items():
        assert (int(size), host) == (n, hosts[r]), found[r]
        on_host = [q for q in range(n) if hosts[q] == host]
        assert (int(shared), int(shared_size)) == (on_host.index(r), len(on_host)), found[r]
        assert int(peers) == len(on_host), found[r]  # shmem_ptr: its own host only
    assert f"where: ok {n} pes on 2 hosts\n" in out, f"stdout:\n{out}\nstderr:\n{err}"


@pytest.mark.parametrize("n", [4, 2, 3])
def test_srun_runs_a_job_across_hosts(script, cluster, where, n):
    done = srun(script, cluster, "-N", "2", "-n", str(n), where)
    assert done.rc == 0, f"stdout:\n{done.out}\nstderr:\n{done.err}"
    check_where(done.out, done.err, n)
    print(f"\nsrun -N 2 -n {n}: {done.wall:.2f} s")


def test_inter_host_path_is_ucx_tcp(script, cluster, where):
    """UCX's own account (UCX_LOG_LEVEL=info, "ep_cfg[..]: ...") of every endpoint the ranks
    opened: between hosts, TCP on the virtual link, never shared memory (the ranks of a host
    reach each other through meshmem's own shared memory: shmem_ptr above)."""
    done = srun(script, cluster, "-N", "2", "-n", "4", where, env={"UCX_LOG_LEVEL": "info"})
    assert done.rc == 0, f"stdout:\n{done.out}\nstderr:\n{done.err}"
    check_where(done.out, done.err, 4)
    log = done.out + done.err
    eps = re.findall(r"\[(vhost\d+):(\d+) *:\d+\].*ep_cfg\[\d+\]: (.*)$", log, re.M)
    assert len({pid for _, pid, _ in eps}) == 4, log  # every rank opened endpoints
    for _, _, ep in eps:
        assert "tcp/vheth0" in ep, ep
        assert not re.search(r"posix|sysv|cma|xpmem|knem", ep), ep


def fault_pids(out: str) -> list[int]:
    return [int(p) for p in re.findall(r"^fault_prog: rank \d+ pid (\d+)$", out, re.M)]


def check_job_gone(script, cluster, out: str) -> None:
    """No rank of the job is running once srun has returned, and Slurm has no job left."""
    pids = fault_pids(out)
    assert len(pids) == 4, out
    assert not [p for p in pids if pid_alive(p)]
    for _ in range(50):
        queue = run([script, "exec", cluster, "head", "squeue", "-h"]).out
        if not queue.strip():
            return
        time.sleep(0.1)
    pytest.fail(f"Slurm still has jobs 5 s after srun returned:\n{queue}")


@pytest.mark.parametrize("kill", [[], ["--kill-on-bad-exit=1"]], ids=["default", "kill-on-bad-exit"])
def test_rank_exiting_nonzero_ends_the_job(script, cluster, fault_prog, kill):
    """Rank 1 exits with status 3 after init while the others wait for a flag nobody sets: the
    job ends (its peers lose their connection and end it through PMIx, or Slurm does), srun
    names the task and exits non-zero."""
    done = srun(script, cluster, *kill, "-N", "2", "-n", "4", fault_prog, "exit3")
    assert done.rc != 0, f"stdout:\n{done.out}\nstderr:\n{done.err}"
    assert "srun: error: vhost0: task 1: Exited with exit code 3" in done.err, done.err
    assert done.wall < 15, f"srun took {done.wall:.1f} s"
    check_job_gone(script, cluster, done.out)
    print(f"\nexit 3: srun returned {done.rc} after {done.wall:.2f} s")


def test_global_exit_gives_the_job_its_status(script, cluster, fault_prog):
    """shmem_global_exit(7) on rank 2 (on vhost1): PMIx_Abort, srun exits 7, the runtime's line
    names the rank."""
    done = srun(script, cluster, "-N", "2", "-n", "4", fault_prog, "global-exit")
    assert done.rc == 7, f"stdout:\n{done.out}\nstderr:\n{done.err}"
    assert re.search(r"^meshmem\[2\] info: shmem_global_exit\(7\) on rank 2: ending the job "
                     r"with status 7$", done.err, re.M), done.err
    assert done.wall < 15, f"srun took {done.wall:.1f} s"
    check_job_gone(script, cluster, done.out)


def test_run_brings_slurm_up_and_down(script, where):
    """`meshrun-slurm run`: a cluster of its own for one command, nothing of it left after."""
    done = run([script, "run", "2", "--cpus", str(CPUS), "--", "srun", "--mpi=pmix", "-N", "2",
                "-n", "3", where], guard=120)
    assert done.rc == 0, f"stdout:\n{done.out}\nstderr:\n{done.err}"
    check_where(done.out, done.err, 3)
    left = leftovers(done.pid)  # the script's own pid owns its cluster
    assert not left, f"left behind: {left}"
    print(f"\nmeshrun-slurm run (up, srun, down): {done.wall:.2f} s")
