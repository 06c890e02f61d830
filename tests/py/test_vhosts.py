"""meshrun across hosts: --hosts, --hostfile and the virtual cluster of --vhosts.

The jobs run tests/pmix_probe (tests/c/pmix_probe.c), a rank bootstrapped by PMIx alone, which
prints where each rank runs and can fail in chosen ways. Every fault test checks what a user
would see and what must not remain: the exit status, meshrun's line naming the rank and its host,
that every rank process has ended (timed from the fault: the target is 2 s, the limit here 5 s,
generous because this machine is shared and oversubscribed), and that nothing of the virtual
cluster is left (namespaces, links, its directory; /dev/shm of a virtual host is a private tmpfs
that goes with it).

Tests that need root, ip, unshare, nsenter or mpirun skip with the reason where they are missing.
"""
import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import pid_alive

LIMIT = 5.0          # seconds from a fault until every rank has ended (target: 2 s)
ROOT = Path(os.environ.get("MESHRUN_VHOSTS_ROOT", "/run/meshmem-vhosts"))
PROBE_LINE = re.compile(r"^pmix_probe: rank (\d+) of (\d+) on (\S+) pid (\d+) local (\d+)$", re.M)


@pytest.fixture(scope="module")
def tools(build_dir):
    probe = build_dir / "tests" / "pmix_probe"
    if not probe.exists():
        pytest.skip("pmix_probe not built (PMIx development files missing: libpmix-dev)")
    script = build_dir / "bin" / "meshrun-vhosts"
    why = subprocess.run([str(script), "check"], capture_output=True, text=True)
    return {"probe": str(probe), "script": str(script), "meshrun": str(build_dir / "bin" / "meshrun"),
            "no_cluster": why.stdout.strip() if why.returncode else None}


@pytest.fixture
def vtools(tools):
    if tools["no_cluster"]:
        pytest.skip(f"no virtual cluster here: {tools['no_cluster']}")
    return tools


def cluster_remains(owner: int) -> list[str]:
    """What of the cluster of meshrun (pid @owner) is still there."""
    left = []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    left += [n for n in re.findall(r"^(\S+)", netns, re.M) if n.startswith(f"meshmem-{owner}-")]
    if (ROOT / str(owner)).exists():
        left.append(str(ROOT / str(owner)))
    return left


class Job:
    """meshrun --vhosts (or --hosts) running pmix_probe, started in a session of its own; or
    another @command in meshrun's place."""

    def __init__(self, tools, args: list[str], env: dict | None = None, prefix=(),
                 command: list[str] | None = None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.p = subprocess.Popen(command or [*prefix, tools["meshrun"], *args],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=full_env,
                                  start_new_session=True)
        self.out = ""
        self.err = ""

    def read_until(self, pattern: str, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while not re.search(pattern, self.out, re.M):
            if time.monotonic() > end:
                self.kill()
                pytest.fail(f"no {pattern!r} within {timeout} s; stdout:\n{self.out}")
            line = self.p.stdout.readline()
            if not line:
                self.finish(10)
                pytest.fail(f"stdout closed before {pattern!r}\nstdout:\n{self.out}\n"
                            f"stderr:\n{self.err}")
            self.out += line

    def ranks(self) -> dict[int, tuple[str, int]]:
        """rank -> (host, pid), from the probe's lines so far."""
        return {int(r): (h, int(pid)) for r, _, h, pid, _ in PROBE_LINE.findall(self.out)}

    def finish(self, guard: float = 60) -> int:
        try:
            out, err = self.p.communicate(timeout=guard)
        except subprocess.TimeoutExpired:
            self.kill()
            out, err = self.p.communicate()
            pytest.fail(f"job still running after {guard} s (hang)\nstdout:\n{self.out}{out}\n"
                        f"stderr:\n{self.err}{err}")
        self.out += out
        self.err += err
        return self.p.returncode

    def kill(self) -> None:
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def wait_ranks_gone(job: Job, since: float, limit: float = LIMIT) -> float:
    """Seconds from @since (time.time(): the ranks stamp their failure with the same clock)
    until every rank process of @job has ended; fails past @limit."""
    pids = [pid for _, pid in job.ranks().values()]
    while any(pid_alive(p) for p in pids):
        if time.time() - since > limit:
            pytest.fail(f"ranks still running {limit} s after the fault: "
                        f"{[p for p in pids if pid_alive(p)]}\nstdout:\n{job.out}")
        time.sleep(0.005)
    return time.time() - since


def check_clean(job: Job) -> None:
    left = cluster_remains(job.p.pid)
    assert not left, f"left behind: {left}\nstderr:\n{job.err}"
    alive = [pid for _, pid in job.ranks().values() if pid_alive(pid)]
    assert not alive, f"rank processes still running: {alive}"


def start_ready(tools, args: list[str], env: dict | None = None) -> Job:
    job = Job(tools, args, env)
    job.read_until(r"^pmix_probe: ready$")
    n = int(PROBE_LINE.search(job.out).group(2))
    job.read_until(rf"(?s)(^pmix_probe: rank \d+ of .*){{{n}}}")
    return job


# ------------------------------------------------------------------------------------------
# where the ranks run


def expected_hosts(nhosts: int, n: int, by: str) -> list[str]:
    per = -(-n // nhosts)
    return [f"vhost{r // per if by == 'slot' else r % nhosts}" for r in range(n)]


@pytest.mark.parametrize("nhosts,n,by", [(2, 4, "slot"), (3, 3, "slot"), (2, 3, "slot"),
                                         (2, 6, "slot"), (3, 5, "node"), (1, 2, "slot")])
def test_ranks_land_on_their_hosts(vtools, nhosts, n, by):
    job = Job(vtools, ["--vhosts", str(nhosts), "-n", str(n), "--map-by", by, vtools["probe"],
                       "where", by, str(min(nhosts, n))])
    rc = job.finish()
    assert rc == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    assert f"pmix_probe: {n} ranks on {min(nhosts, n)} hosts: ok" in job.out
    got = [job.ranks()[r][0] for r in range(n)]
    assert got == expected_hosts(nhosts, n, by)
    check_clean(job)


def test_default_rank_count_is_one_per_virtual_host(vtools):
    job = Job(vtools, ["--vhosts", "3", vtools["probe"]])
    assert job.finish() == 0, job.err
    assert [job.ranks()[r][0] for r in range(3)] == ["vhost0", "vhost1", "vhost2"]


def test_hosts_on_this_machine(tools):
    """--hosts without namespaces: mpirun on this machine, "localhost" as its name."""
    if not shutil.which("mpirun"):
        pytest.skip("no mpirun")
    job = Job(tools, ["--hosts", "localhost:2", tools["probe"]])
    assert job.finish() == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    assert "pmix_probe: 2 ranks on 1 hosts: ok" in job.out


def test_hostfile(tools, tmp_path):
    if not shutil.which("mpirun"):
        pytest.skip("no mpirun")
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# this machine\n\nlocalhost slots=2 max_slots=4  # two ranks\n"
                        "localhost\n")
    job = Job(tools, ["--hostfile", str(hostfile), tools["probe"]])
    assert job.finish() == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    assert "pmix_probe: 3 ranks on 1 hosts: ok" in job.out


@pytest.mark.parametrize("bind", ["core", "none"])
def test_binding_on_virtual_hosts(vtools, bind):
    """--bind-to core: rank r on the r-th CPU, as on one machine (the virtual hosts share its
    cores; mpirun's own binding would put the first rank of every host on one core)."""
    job = Job(vtools, ["--vhosts", "2", "-n", "4", "--bind-to", bind, "/bin/sh", "-c",
                       'echo "rank $PMIX_RANK cpus $(grep Cpus_allowed_list /proc/self/status'
                       ' | cut -f2)"'])
    assert job.finish() == 0, job.err
    got = dict(re.findall(r"^rank (\d+) cpus (\S+)$", job.out, re.M))
    cpus = sorted(os.sched_getaffinity(0))
    if bind == "core":
        assert got == {str(r): str(cpus[r % len(cpus)]) for r in range(4)}, job.out
    else:
        assert len(got) == 4 and all(len(v) > 1 or len(cpus) == 1 for v in got.values()), got


def test_bound_ranks_sharing_cores_complete_collectives(vtools, build_dir):
    """2 virtual hosts x 2 ranks bound to the 2 cores (each core holds a rank of each host with
    its UCX progress and async threads): alltoall at 8 B and 64 KiB completes, every time. With
    the progress thread bound to its rank's core, about 2 jobs in 5 stalled at their first
    flush; three runs catch that most of the time."""
    osu = build_dir / "bench" / "osu_coll"
    if not osu.exists():
        pytest.skip("osu_coll not built")
    for _ in range(3):
        job = Job(vtools, ["--vhosts", "2", "-n", "4", "--bind-to", "core", "--timeout", "40",
                           str(osu), "-o", "alltoall", "-s", "8,65536", "-i", "100", "-I", "5",
                           "-w", "2", "-W", "2"])
        assert job.finish(90) == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
        assert "bytes=65536" in job.out, job.out
        check_clean(job)


def test_environment_reaches_the_ranks(vtools):
    """meshmem's variables (MESHMEM_*, SHMEM_*, UCX_*, --heap) reach ranks on other hosts; others
    do not, as over ssh; UCX goes over TCP on the host's veth unless the user chose otherwise."""
    env = {"MESHMEM_PROBE_VALUE": "a b", "SHMEM_PROBE": "1", "UCX_PROBE": "2",
           "NOT_FORWARDED": "3", "UCX_TLS": "tcp,self"}
    job = Job(vtools, ["--vhosts", "2", "--heap", "48M", "/usr/bin/env"], env)
    assert job.finish() == 0, job.err
    for want in ("MESHMEM_PROBE_VALUE=a b", "SHMEM_PROBE=1", "UCX_PROBE=2",
                 "SHMEM_SYMMETRIC_SIZE=48M", "UCX_TLS=tcp,self", "UCX_NET_DEVICES=vheth0"):
        assert job.out.count(want + "\n") == 2, (want, job.out)
    assert "NOT_FORWARDED" not in job.out
    assert "MESHMEM_CTL_FD" not in job.out


# ------------------------------------------------------------------------------------------
# a rank fails on a remote host


# mode of pmix_probe (the faulty rank: 3, on vhost1), exit status, meshrun's line
FAILURES = {
    "exit": (["exit", "3", "5"], 5, r"rank 3 on vhost1 exited with status 5"),
    "finalize-exit": (["finalize-exit", "3", "6"], 6, r"rank 3 on vhost1 exited with status 6"),
    "exit0": (["exit0", "3"], 1, r"rank 3 on vhost1 \(pid \d+\) exited with status 0 after init "
                                 r"without finalize"),
    "kill": (["kill", "3", "11"], 139, r"rank 3 on vhost1 \(pid \d+\) was killed by signal 11 "
                                      r"\(Segmentation fault\)"),
    # PMIx_Abort: mpirun names no rank; the status is the rank's
    "abort": (["abort", "3", "4"], 4, r"mpirun ended with status 4"),
}


@pytest.mark.parametrize("mode", FAILURES)
def test_rank_fails_on_remote_host(vtools, mode):
    """One line, meshrun's, as on one machine: mpirun's blocks of text are kept back."""
    args, rc, pattern = FAILURES[mode]
    job = start_ready(vtools, ["--vhosts", "2", "-n", "4", vtools["probe"], *args])
    job.read_until(r"^pmix_probe: rank 3 failing at")
    t0 = float(re.search(r"^pmix_probe: rank 3 failing at ([0-9.]+)$", job.out, re.M).group(1))
    gone = wait_ranks_gone(job, t0)
    assert job.finish() == rc, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    assert re.fullmatch("meshrun: " + pattern + ": the job was stopped on every host\n",
                        job.err), job.err
    check_clean(job)
    print(f"\n{mode}: every rank ended {gone:.2f} s after the fault, meshrun {time.time() - t0:.2f} s")


def test_rank_killed_from_outside_on_remote_host(vtools):
    job = start_ready(vtools, ["--vhosts", "2", "-n", "4", vtools["probe"], "hang"])
    host, pid = job.ranks()[2]
    assert host == "vhost1"
    t0 = time.time()
    os.kill(pid, signal.SIGKILL)
    gone = wait_ranks_gone(job, t0)
    assert job.finish() == 137, job.err
    assert f"meshrun: rank 2 on vhost1 (pid {pid}) was killed by signal 9 (Killed)" in job.err
    check_clean(job)
    print(f"\nkilled: every rank ended {gone:.2f} s after the kill")


# ------------------------------------------------------------------------------------------
# meshmem programs (the runtime bootstraps from PMIx under mpirun)


@pytest.fixture
def fault_prog(vtools, build_dir):
    prog = build_dir / "tests" / "fault_prog"
    if not prog.exists():
        pytest.skip("fault_prog not built")
    return str(prog)


def fault_pids(job: Job) -> list[int]:
    return [int(p) for p in re.findall(r"^fault_prog: rank \d+ pid (\d+)$", job.out, re.M)]


@pytest.mark.parametrize("shape", ["2x2", "3x1", "2x3"])
def test_meshmem_job_across_hosts(vtools, fault_prog, shape):
    nhosts, per = (int(x) for x in shape.split("x"))
    n = nhosts * per
    job = Job(vtools, ["--vhosts", str(nhosts), "-n", str(n), "--heap", "16M", fault_prog, "ok"])
    assert job.finish() == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    for r in range(n):
        assert f"ok rank {r} of {n}\n" in job.out
    check_clean(job)


def test_transport_names_the_ucx_library_it_runs_on(vtools, fault_prog):
    """At debug level each rank names the UCX release and the libucp file it loaded: where a
    machine's own UCX is found before the one meshmem was built for, that line (a warning when
    the releases differ) and every transport failure message say which library ran."""
    job = Job(vtools, ["--vhosts", "2", "-n", "2", "--heap", "16M", fault_prog, "ok"],
              env={"MESHMEM_DEBUG": "3"})
    assert job.finish() == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    found = re.findall(r"^meshmem\[(\d)\] debug: transport: UCX (\d+)\.(\d+)\.\d+, (\S+)$",
                       job.err, re.M)
    assert sorted(f[0] for f in found) == ["0", "1"], job.err
    for _, _, _, path in found:
        assert Path(path).exists() and "libucp" in path, path
    assert "built for UCX" not in job.err  # the release meshmem was built for ran
    check_clean(job)


@pytest.mark.skipif(not os.environ.get("MESHMEM_TEST_UCX_LIB"),
                    reason="MESHMEM_TEST_UCX_LIB (the lib folder of another UCX release) not set")
def test_amos_between_hosts_on_another_ucx_release(build_dir):
    """On a UCX other than the one meshmem was built for (1.16 and later select protocols anew,
    and over TCP found none for a fetching AMO), every AMO between hosts works, and each rank
    warns which library it runs on. Set MESHMEM_TEST_UCX_LIB to that UCX's lib folder (a
    release built from source; Debian bookworm packages only 1.13)."""
    lib = os.environ["MESHMEM_TEST_UCX_LIB"]
    env = dict(os.environ, LD_LIBRARY_PATH=lib, MESHMEM_SHM="0", UCX_TLS="tcp,self")
    env.pop("UCX_PROTO_ENABLE", None)
    p = subprocess.run([str(build_dir / "bin" / "meshrun"), "-n", "3", "--timeout", "120",
                        str(build_dir / "tests" / "shmem_amo")],
                       capture_output=True, text=True, env=env, timeout=180)
    assert p.returncode == 0, f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    assert len(re.findall(rf"warning: transport: built for UCX \S+, running on UCX \S+, "
                          rf"{re.escape(lib)}", p.stderr)) == 3, p.stderr


def test_whole_lines_across_hosts(vtools, fault_prog):
    """Without --tag-output too, a rank's lines arrive whole across hosts, although it wrote
    them a character at a time (mpirun passes on pieces: they were cut by other ranks')."""
    lines = 20
    job = Job(vtools, ["--vhosts", "2", "-n", "4", "--heap", "16M", fault_prog, "pieces",
                       str(lines)])
    assert job.finish() == 0, job.err
    # (fault_prog's "rank" is MESHMEM_RANK's, which a PMIx launch does not set: 0 for all)
    got = [line for line in job.out.split("\n") if not line.startswith("fault_prog: rank ")]
    want = [f"rank 0 line {k}: " + "x" * 300 for k in range(lines)] + ["rank 0 unfinished"]
    assert sorted(got) == sorted(want * 4), job.out


def test_tag_output_across_hosts(vtools, fault_prog):
    """--tag-output marks lines "[RANK] " across hosts as on one machine (mpirun's own marks,
    rewritten), on both streams; meshrun still reads the ranks' reports behind the marks."""
    job = Job(vtools, ["--vhosts", "2", "-n", "3", "--tag-output", "--heap", "16M", fault_prog,
                       "echo", "a"])
    assert job.finish() == 0, job.err
    for r in range(3):
        assert job.out.count(f"[{r}] echo rank ") == 1, job.out
        assert f"[{r}] stderr from rank" in job.err, job.err
    assert "<stdout>" not in job.out and "<stderr>" not in job.err
    job = Job(vtools, ["--vhosts", "2", "-n", "4", "--tag-output", "--heap", "16M", fault_prog,
                       "global-exit"])
    assert job.finish() == 7, job.err
    assert job.err == "meshrun: rank 2 on vhost1 called shmem_global_exit(7): the job was " \
                      "stopped on every host\n", job.err


# mode of fault_prog, the job's exit status, what it prints on stderr: as on one machine, the
# rank, its host and what ended it in one line, whatever the peers or mpirun reported
MESHMEM_FAULTS = {
    "bad-pe": (1, r"meshmem\[0\] error: meshmem_put: PE argument \(4\) is invalid: the job "
                  r"has PEs 0\.\.3\nmeshrun: rank 0 on vhost0 reported a fatal error"),
    "global-exit": (7, r"meshrun: rank 2 on vhost1 called shmem_global_exit\(7\)"),
    # its peers on vhost1 lose their connection to it before mpirun hears of its end: their
    # lines are kept back, and the job's end waits for mpirun's report (mm_boot_pmix.c)
    "kill-self": (137, r"meshrun: rank 1 on vhost0 \(pid \d+\) was killed by signal 9 "
                       r"\(Killed\)"),
    "kill-self SIGSEGV": (139, r"meshrun: rank 1 on vhost0 \(pid \d+\) was killed by signal "
                               r"11 \(Segmentation fault\)"),
    "exit3": (3, r"meshrun: rank 1 on vhost0 exited with status 3"),
}
# UCX 1.13 may fail an assertion in a peer whose connection to the dead rank was still being
# set up (wireup_ep.c:241, pending_count == 0; seen once, in a make test on a loaded machine):
# when mpirun hears of that abort first, meshrun names the rank the peers lost, not its signal
UCX_ABORT = (1, r"meshrun: rank 1 on vhost0 ended unexpectedly \(its peers lost their connection "
                r"to it: [^;]+; rank \d then failed inside UCX\)")


@pytest.mark.parametrize("mode", MESHMEM_FAULTS)
def test_meshmem_job_fails_across_hosts(vtools, fault_prog, mode):
    rc, pattern = MESHMEM_FAULTS[mode]
    job = Job(vtools, ["--vhosts", "2", "-n", "4", "--heap", "16M", fault_prog, *mode.split()])
    status = job.finish()
    if mode.startswith("kill-self") and status == UCX_ABORT[0]:
        rc, pattern = UCX_ABORT
    assert status == rc, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    assert re.fullmatch(f"{pattern}: the job was stopped on every host\n", job.err), job.err
    assert not [p for p in fault_pids(job) if pid_alive(p)]
    assert not cluster_remains(job.p.pid)


# arguments or calls that differ between ranks on different hosts, by ranks per host: one line,
# said by the rank that claims the report (an atomic on rank 0's word), the others end quietly
# (each rank that found it said its own line before)
ACROSS_DIFFERS = {
    # one rank per host: each learns of the other by network gets alone
    2: {
        # the peer's call record is read by a get (every 0.25 s of a wait): it waited for
        # --timeout
        "malloc-barrier": r"PEs are in different collectives: PE 0 is in shmem_malloc, PE 1 in "
                          r"shmem_barrier_all",
        "malloc-alltoall": r"PEs are in different collectives: PE 0 is in shmem_malloc, PE 1 in "
                           r"shmem_int_alltoall",
        # each PE took itself for the root: the room check reads the peer's "completed" line by
        # a get, now with its tags (the job ended with status 99, the root's difference
        # unnoticed)
        "root-differs": r"shmem_long_broadcast: PE_root differs between PEs \(PE 0: 0, PE 1: 1\)",
        "op-differs": r"shmem_int_(sum|max)_reduce: the operation differs between PEs \(PE 0: "
                      r"shmem_int_sum_reduce, PE 1: shmem_int_max_reduce\)",
    },
    # two ranks per host: the smallest collectives take the node-leader form
    # (mm_coll_leader.c), whose leaders compare the tags (the call, its operator and type) that
    # ride in the blocks they gather anyway
    4: {
        "malloc-barrier": r"PEs are in different collectives: PE 0 is in shmem_malloc, "
                          r"PE [123] in shmem_barrier_all",
        "malloc-alltoall": r"PEs are in different collectives: PE 0 is in shmem_malloc, "
                           r"PE [123] in shmem_int_alltoall",
        "root-differs": r"shmem_long_broadcast: PE_root differs between PEs \(PE 0: 0, "
                        r"PE [123]: 1\)",
        # unnoticed before (status 99); every leader holds every tag, and the leader of PE 0's
        # host says it (the call it names is PE 0's), naming PE 0 and the first other
        "op-differs": r"shmem_int_sum_reduce: the operation differs between PEs \(PE 0: "
                      r"shmem_int_sum_reduce, PE 1: shmem_int_max_reduce\)",
        # every rank finds it in the split's exchange: 4 lines before
        "split-differs": r"shmem_team_split_strided: arguments differ between PEs \(PE 0: size 2, "
                         r"PE [123]: size 3\)",
    },
}


@pytest.mark.parametrize("n,mode", [(n, m) for n in ACROSS_DIFFERS for m in ACROSS_DIFFERS[n]])
def test_arguments_that_differ_across_hosts(vtools, fault_prog, n, mode):
    job = Job(vtools, ["--vhosts", "2", "-n", str(n), "--heap", "16M", "--timeout", "30",
                       fault_prog, mode])
    assert job.finish() == 1, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    m = re.fullmatch(r"meshmem\[(\d)\] error: " + ACROSS_DIFFERS[n][mode] + r"\nmeshrun: rank "
                     r"\1 on vhost(\d) reported a fatal error: the job was stopped on every "
                     r"host\n", job.err)
    assert m, job.err
    assert int(m[m.re.groups]) == int(m[1]) * 2 // n, job.err  # n / 2 ranks per host, in order
    check_clean(job)


def test_error_every_rank_reports_is_said_once(vtools, fault_prog):
    """Each rank finds the environment's bad value and says so under mpirun; the job says it
    once, as on one machine."""
    job = Job(vtools, ["--vhosts", "2", "-n", "4", fault_prog, "ok"],
              env={"SHMEM_SYMMETRIC_SIZE": "12Q"})
    assert job.finish() == 1, job.err
    assert re.fullmatch(r'meshmem\[(\d)\] error: meshmem_init: SHMEM_SYMMETRIC_SIZE="12Q" is not '
                        r'a valid size \(such as 64M or 1G\)\nmeshrun: rank \1 on vhost\d reported '
                        r'a fatal error: the job was stopped on every host\n', job.err), job.err


def test_mpirun_reports_shown_when_asked(vtools, fault_prog):
    """MESHMEM_DEBUG=1 keeps nothing back: mpirun's own report and the peers' lines too."""
    job = Job(vtools, ["--vhosts", "2", "-n", "4", "--heap", "16M", fault_prog, "exit3"],
              env={"MESHMEM_DEBUG": "1"})
    assert job.finish() == 3, job.err
    assert "  Exit code:    3\n" in job.err, job.err
    assert job.err.endswith("meshrun: rank 1 on vhost0 exited with status 3: the job was "
                            "stopped on every host\n"), job.err


# ------------------------------------------------------------------------------------------
# meshmem programs started by mpirun itself (PMIx), without meshrun


def mpirun_command(n: int, *prog: str) -> list[str]:
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    return ["mpirun", *root, "-n", str(n), "--oversubscribe", "-x", "SHMEM_SYMMETRIC_SIZE=16M",
            *prog]


def new_meshmem_shm(before: set[str]) -> list[str]:
    """meshmem's objects in /dev/shm that were not there before: a job bootstrapped by PMIx
    keeps its segments in memfds, so it leaves none, running or not."""
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith("meshmem.px")
                  and n not in before)


def test_started_by_mpirun_on_this_machine(tools, build_dir):
    if not shutil.which("mpirun"):
        pytest.skip("no mpirun")
    before = set(os.listdir("/dev/shm"))
    p = subprocess.run(mpirun_command(3, str(build_dir / "tests" / "fault_prog"), "ok"),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    for r in range(3):
        assert f"ok rank {r} of 3\n" in p.stdout, p.stdout
    assert not new_meshmem_shm(before)


def run_on_cluster(vtools, nhosts: int, slots: int, command: list[str]) -> Job:
    """@command on the head of a fresh virtual cluster (meshrun-vhosts run: up, the command with
    the cluster's environment, down), in a session of its own; its stdout and stderr piped."""
    return Job(vtools, [], command=[vtools["script"], "run", str(nhosts), "--slots", str(slots),
                                    "--", *command])


@pytest.mark.parametrize("shape", ["2x2", "3x1"])
def test_started_by_mpirun_across_virtual_hosts(vtools, fault_prog, shape):
    nhosts, per = (int(x) for x in shape.split("x"))
    n = nhosts * per
    before = set(os.listdir("/dev/shm"))
    job = run_on_cluster(vtools, nhosts, per, mpirun_command(
        n, "-x", "UCX_TLS", "-x", "UCX_NET_DEVICES", fault_prog, "ok"))
    assert job.finish() == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    for r in range(n):
        assert f"ok rank {r} of {n}\n" in job.out
    assert not cluster_remains(job.p.pid)
    assert not new_meshmem_shm(before)


def test_launcher_preset_by_the_environment_is_overridden(vtools):
    """Container images preset OMPI_MCA_plm=isolated (every process beside mpirun, on the head):
    a virtual cluster starts its daemons through its rsh agent, so it names the launcher itself,
    for meshrun and for a plain mpirun on the cluster alike."""
    env = {"OMPI_MCA_plm": "isolated"}
    for job in (Job(vtools, ["--vhosts", "2", "-n", "2", "hostname"], env),
                Job(vtools, [], env, command=[vtools["script"], "run", "2", "--",
                                              *mpirun_command(2, "hostname")])):
        assert job.finish() == 0, f"stdout:\n{job.out}\nstderr:\n{job.err}"
        assert sorted(job.out.split()) == ["vhost0", "vhost1"], job.out


# mode of fault_prog under plain mpirun (2 hosts of 2 ranks), exit status, a line naming the rank
MPIRUN_FAULTS = {
    "global-exit": (7, r"^meshmem\[2\] info: shmem_global_exit\(7\) on rank 2: ending the job "
                       r"with status 7$"),
    # mpirun's report, or the runtime's when the peers notice first
    "kill-self": (None, r"process rank 1 with PID \d+ on node vhost0 exited on signal 9|"
                        r"lost the connection to rank 1 \(host vhost0\)"),
    "bad-pe": (1, r"^meshmem\[0\] error: .*\b4\b"),
}


@pytest.mark.parametrize("mode", MPIRUN_FAULTS)
def test_started_by_mpirun_fault_names_the_rank(vtools, fault_prog, mode):
    rc, pattern = MPIRUN_FAULTS[mode]
    before = set(os.listdir("/dev/shm"))
    job = run_on_cluster(vtools, 2, 2, mpirun_command(
        4, "-x", "UCX_TLS", "-x", "UCX_NET_DEVICES", fault_prog, mode))
    t0 = time.monotonic()
    status = job.finish()
    ended = time.monotonic() - t0
    assert status == rc if rc is not None else status != 0, job.err
    assert re.search(pattern, job.err, re.M), job.err
    assert not [p for p in fault_pids(job) if pid_alive(p)]
    assert not cluster_remains(job.p.pid)
    assert not new_meshmem_shm(before)
    print(f"\n{mode}: mpirun ended {ended:.2f} s after it started")


# ------------------------------------------------------------------------------------------
# a host goes away


@pytest.mark.parametrize("shape,host,ranks", [("2x2", 1, "ranks 2, 3"), ("3x1", 2, "rank 2")])
def test_link_down(vtools, shape, host, ranks):
    """The link of a host taken down mid-job (its veth on the cluster's bridge): nothing closes
    the connections; the keepalives meshrun sets notice an idle one, the cluster's short TCP
    retransmission limit one with data in flight."""
    nhosts, per = (int(x) for x in shape.split("x"))
    job = start_ready(vtools, ["--vhosts", str(nhosts), "-n", str(nhosts * per), vtools["probe"],
                               "hang"])
    t0 = time.time()
    subprocess.run(["ip", "-n", f"meshmem-{job.p.pid}-head", "link", "set", f"vh{host}", "down"],
                   check=True)
    gone = wait_ranks_gone(job, t0)
    assert job.finish() == 1, job.err
    assert f"meshrun: lost contact with host vhost{host} ({ranks}): the job was stopped on " \
           f"every host" in job.err, job.err
    check_clean(job)
    print(f"\nlink down: every rank ended {gone:.2f} s after it")


def test_host_stopped_then_killed(vtools):
    job = start_ready(vtools, ["--vhosts", "2", "-n", "4", vtools["probe"], "hang"])
    ns = f"meshmem-{job.p.pid}-1"
    pids = [int(p) for p in subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                           text=True, check=True).stdout.split()]
    assert len(pids) >= 3, pids  # its daemon and two ranks
    for p in pids:
        os.kill(p, signal.SIGSTOP)
    time.sleep(1.0)
    assert job.p.poll() is None, "a stopped host is not a lost one (its kernel still answers)"
    t0 = time.time()
    for p in pids:
        os.kill(p, signal.SIGKILL)
    gone = wait_ranks_gone(job, t0)
    assert job.finish() == 1, job.err
    assert "meshrun: lost contact with host vhost1 (ranks 2, 3)" in job.err, job.err
    check_clean(job)
    print(f"\nhost stopped, then killed: every rank ended {gone:.2f} s after the kill")


# ------------------------------------------------------------------------------------------
# the job is stopped from outside


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_the_job(vtools, sig):
    job = start_ready(vtools, ["--vhosts", "2", "-n", "4", vtools["probe"], "hang"])
    t0 = time.time()
    os.killpg(job.p.pid, sig)  # meshrun's session: what a terminal's Ctrl-C reaches
    gone = wait_ranks_gone(job, t0)
    assert job.finish() == 128 + sig, job.err
    assert f"meshrun: {signal.strsignal(sig)}: stopping the job" in job.err, job.err
    check_clean(job)
    print(f"\n{sig.name}: every rank ended {gone:.2f} s after it")


def test_timeout_names_the_ranks_still_running(vtools):
    job = Job(vtools, ["--vhosts", "2", "-n", "3", "--timeout", "2", vtools["probe"], "hang"])
    t0 = time.monotonic()
    assert job.finish() == 124, job.err
    assert time.monotonic() - t0 >= 2.0
    assert job.err == ("meshrun: the job ran past --timeout 2 s: stopped it; still running then: "
                       "rank 0 on vhost0, rank 1 on vhost0, rank 2 on vhost1\n"), job.err
    check_clean(job)


def test_meshrun_killed_outright(vtools):
    """SIGKILL leaves meshrun no chance: mpirun (its parent-death signal) still stops the ranks,
    and the next meshrun --vhosts removes the cluster left behind."""
    job = start_ready(vtools, ["--vhosts", "2", "-n", "2", vtools["probe"], "hang"])
    owner = job.p.pid
    t0 = time.time()
    os.kill(owner, signal.SIGKILL)
    wait_ranks_gone(job, t0)
    job.finish()
    assert cluster_remains(owner), "nothing to sweep: the test proves nothing"
    nxt = Job(vtools, ["--vhosts", "1", vtools["probe"]])
    assert nxt.finish() == 0, nxt.err
    assert f"removed the virtual cluster {ROOT}/{owner}, left by an ended job" in nxt.err
    assert not cluster_remains(owner)
    check_clean(nxt)


# ------------------------------------------------------------------------------------------
# bad input, missing prerequisites


@pytest.mark.parametrize("args,msg", [
    (["--hosts", "a b", "prog"], '--hosts entry "a b" is not HOST or HOST:SLOTS'),
    (["--hosts", "a:0", "prog"], '--hosts entry "a:0"'),
    (["--hosts", "a:2,b", "-n", "4", "prog"], "-n 4 is more ranks than the 3 slots of --hosts"),
    (["--hostfile", "/no/such/file", "prog"], '--hostfile "/no/such/file": No such file'),
    (["--vhosts", "0", "prog"], '--vhosts argument "0" is not a host count in 1..64'),
    (["--vhosts", "65", "prog"], '--vhosts argument "65"'),
    (["--vhosts", "2", "--hosts", "a", "prog"], "give one of --hosts, --hostfile and --vhosts"),
    (["--vhosts", "2", "--map-by", "socket", "prog"], '--map-by argument "socket"'),
    (["-n", "2", "--map-by", "node", "prog"], "--map-by needs --hosts, --hostfile or --vhosts"),
    (["--hosts", "a:2", "--fabric", "optweb", "prog"], "--fabric across machines needs --vhosts"),
    (["--vhosts", "2", "--fabric-json", "x.json", "prog"], "--fabric-json and --fabric-set need --fabric"),
])
def test_bad_arguments(tools, args, msg):
    job = Job(tools, args)
    assert job.finish() == 2, job.err
    assert msg in job.err, job.err
    assert job.out == ""


def test_bad_hostfile_line(tools, tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("a slots=2\nb cpus=4\n")
    job = Job(tools, ["--hostfile", str(hostfile), "prog"])
    assert job.finish() == 2
    assert f'--hostfile "{hostfile}" line 2 "b cpus=4" has a field other than slots=N' in job.err


def test_without_root_says_so_in_one_line(tools):
    prefix = ()
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("no setpriv to drop root")
        prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    job = Job(tools, ["--vhosts", "2", tools["probe"]], prefix=prefix)
    assert job.finish() == 1
    assert job.err == ("meshrun: --vhosts cannot run here: needs root (network namespaces, veth "
                       "links and mounts)\n"), job.err


def test_without_mpirun_says_so_in_one_line(vtools, tmp_path):
    """PATH holds every tool the cluster needs but mpirun."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("bash", "env", "ip", "unshare", "nsenter", "flock", "findmnt", "id", "sh",
                 "readlink", "cat", "basename", "mkdir", "grep", "awk", "sed"):
        path = shutil.which(tool)
        if path:
            (bindir / tool).symlink_to(path)
    job = Job(vtools, ["--vhosts", "2", vtools["probe"]], env={"PATH": str(bindir)})
    assert job.finish() == 1
    assert job.err == ("meshrun: --vhosts cannot run here: needs mpirun, which is not installed "
                       "(scripts/install-deps.sh installs it)\n"), job.err


# ------------------------------------------------------------------------------------------
# the inter-host path is TCP


@contextlib.contextmanager
def cluster(tools, nhosts: int):
    """A virtual cluster of @nhosts owned by this process: (directory, subnet prefix)."""
    up = subprocess.run([tools["script"], "up", str(nhosts), str(os.getpid())],
                        capture_output=True, text=True)
    assert up.returncode == 0, up.stderr
    d = up.stdout.strip()
    try:
        yield d, Path(d, "subnet").read_text().strip()
    finally:
        subprocess.run([tools["script"], "down", d], check=True)


def perftest_transports(tools, server: int, client: int) -> list[str]:
    """UCX's own account (UCX_LOG_LEVEL=info: "ep_cfg[..]: ...") of the transports that a put
    latency test between virtual hosts @server and @client of a fresh cluster used, both sides;
    UCX_TLS and UCX_NET_DEVICES as meshrun --vhosts sets them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("UCX_")}
    env.update(UCX_LOG_LEVEL="info", UCX_TLS="tcp,sm,self", UCX_NET_DEVICES="vheth0")
    with cluster(tools, 2) as (d, subnet):
        test = ["ucx_perftest", "-p", "13337", "-t", "ucp_put_lat", "-s", "8", "-n", "100"]
        srv = subprocess.Popen([tools["script"], "exec", d, str(server), *test],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        time.sleep(1.0)  # the server listens by then
        cli = subprocess.run([tools["script"], "exec", d, str(client), *test, f"{subnet}.{10 + server}"],
                             capture_output=True, text=True, env=env, timeout=60)
        srv_out = srv.communicate(timeout=60)[0]
    log = cli.stdout + cli.stderr + srv_out
    assert cli.returncode == 0 and srv.returncode == 0, log
    return re.findall(r"ep_cfg\[\d+\]: (.*)$", log, re.M)


def test_inter_host_path_is_tcp(vtools):
    if not shutil.which("ucx_perftest"):
        pytest.skip("no ucx_perftest (ucx-utils)")
    eps = perftest_transports(vtools, 0, 1)
    assert len(eps) >= 2, eps  # one line per side at least
    for ep in eps:
        assert "tcp/vheth0" in ep, ep
        assert not re.search(r"posix|sysv|cma|xpmem|knem", ep), ep
    # the same test within one host does use shared memory: the log would show it
    same = perftest_transports(vtools, 0, 0)
    assert same and all(re.search(r"posix|sysv|cma", ep) for ep in same), same


# ------------------------------------------------------------------------------------------
# started by PRRTE's prterun (OpenMPI 5's launcher), where one is installed: Debian bookworm
# packages no PRRTE, so this runs only with MESHMEM_TEST_PRTE set to a PRRTE prefix (3.0 is
# the last release that builds against bookworm's PMIx 4.2.2) or prterun on PATH


def prte_prefix() -> str | None:
    if os.environ.get("MESHMEM_TEST_PRTE"):
        return os.environ["MESHMEM_TEST_PRTE"]
    found = shutil.which("prterun")
    return str(Path(found).resolve().parent.parent) if found else None


@pytest.mark.skipif(prte_prefix() is None,
                    reason="no PRRTE (Debian packages none): set MESHMEM_TEST_PRTE to a prefix")
@pytest.mark.parametrize("mode,status,says", [
    ("ok", 0, None),
    ("global-exit", 7, None),
    ("bad-pe", 1, r"meshmem_put: PE argument \(4\) is invalid"),
])
def test_started_by_prterun_across_virtual_hosts(vtools, fault_prog, tmp_path, mode, status, says):
    """prterun starts its daemons on the virtual hosts through tools/meshrun-vhosts-prte-ssh
    (PRRTE 3.0 runs the first ssh on PATH whatever plm_ssh_agent says); the ranks bootstrap from
    its PMIx server: results, the job's status, the error line, and nothing left behind."""
    prefix = prte_prefix()
    (tmp_path / "ssh").symlink_to(Path(__file__).resolve().parents[2] / "tools" /
                                  "meshrun-vhosts-prte-ssh")
    script = ('exec prterun --prefix "$1" --hostfile "$MESHRUN_VHOSTS_DIR/hostfile" '
              '--prtemca plm_ssh_no_tree_spawn 1 '
              '--prtemca oob_tcp_if_include "$OMPI_MCA_oob_tcp_if_include" '
              '-x UCX_TLS -x UCX_NET_DEVICES -n 4 "$2" "$3"')
    env = ["env", f"PATH={tmp_path}:{prefix}/bin:{os.environ['PATH']}",
           "PRTE_ALLOW_RUN_AS_ROOT=1", "PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1"]
    job = run_on_cluster(vtools, 2, 2, [*env, "sh", "-c", script, "sh", prefix, fault_prog, mode])
    assert job.finish() == status, f"stdout:\n{job.out}\nstderr:\n{job.err}"
    if mode == "ok":
        for r in range(4):
            assert f"ok rank {r} of 4\n" in job.out
    if says:
        assert re.search(says, job.err), job.err
    check_clean(job)
