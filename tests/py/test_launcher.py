"""meshrun and the failure behaviour of a job (the launcher's promises, and the fault tests).

Every fault test runs tests/fault_prog (tests/c/fault_prog.c) under meshrun at several rank
counts and checks what a user would see: the exit status, an error line naming the call and the
offending argument, that the whole job ended within a few seconds (a hang would be the failure:
the guard is 30 s, the limit 5 s, generous because this machine is shared and oversubscribed),
that no process of the job remains, and that /dev/shm holds nothing of the job (shm_snapshot).
"""
import os
import pty
import re
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import pid_alive

pytestmark = pytest.mark.usefixtures("shm_snapshot")

QUICK = 5.0     # seconds a failing job may take to end, start-up included
STOP = 3.0      # seconds from a signal to meshrun until the job has ended
RANKS = [2, 3, 8]


def check_ended(res, rc: int, limit: float = QUICK) -> None:
    detail = f"\nstdout:\n{res.out}\nstderr:\n{res.err}"
    assert res.rc == rc, f"exit status {res.rc}, expected {rc}{detail}"
    assert res.wall < limit, f"the job took {res.wall:.2f} s to end (limit {limit} s){detail}"
    assert not res.alive(), f"processes of the job still running: {res.alive()}{detail}"


def read_until(p: subprocess.Popen, pattern: str, timeout: float) -> str:
    """Read p's stdout (raw) until @pattern appears; return what was read."""
    fd, buf, end = p.stdout.fileno(), b"", time.monotonic() + timeout
    while not re.search(pattern.encode(), buf, re.M):
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            os.killpg(p.pid, signal.SIGKILL)
            pytest.fail(f"no {pattern!r} within {timeout} s; stdout so far:\n{buf.decode()}")
        chunk = os.read(fd, 65536)
        if not chunk:
            pytest.fail(f"stdout closed before {pattern!r}; got:\n{buf.decode()}")
        buf += chunk
    return buf.decode()


# ------------------------------------------------------------------------------------------
# jobs that succeed


@pytest.mark.parametrize("n", [1, 2, 3, 8])
def test_ok_job_exits_zero(launch, n):
    res = launch.fault(n, "ok")
    check_ended(res, 0)
    assert sorted(res.rank_pids) == list(range(n))
    for r in range(n):
        assert f"ok rank {r} of {n}\n" in res.out
    assert res.err == ""


def test_stdout_stderr_and_arguments_pass_through(launch):
    args = ["two words", "--", "-n", "5", ""]
    res = launch.run(["-n", "3", "--", launch.fault_prog, "echo", *args])
    check_ended(res, 0)
    want = "argc 5 [two words] [--] [-n] [5] []"
    for r in range(3):
        assert f"echo rank {r} {want}\n" in res.out
        assert f"stderr from rank {r}\n" in res.err


@pytest.mark.parametrize("how", ["option", "env"])
def test_heap_size(launch, how):
    size = {"option": 48 << 20, "env": 40 << 20}[how]
    text = f"{size >> 20}M"
    if how == "option":
        res = launch.run(["-n", "2", "--heap", text, launch.fault_prog, "heap"])
    else:
        res = launch.run(["-n", "2", launch.fault_prog, "heap"],
                         env={"SHMEM_SYMMETRIC_SIZE": text})
    check_ended(res, 0)
    for r in range(2):
        assert f"heap rank {r} total {size}\n" in res.out


@pytest.mark.parametrize("bind", ["core", "none"])
def test_ranks_know_the_cpus_of_the_job(launch, bind):
    """A rank bound to one core must still learn how many CPUs the job has: from its own mask
    it would think itself oversubscribed and yield in every wait (a regression once)."""
    job = len(os.sched_getaffinity(0))
    res = launch.run(["-n", "2", "--bind-to", bind, launch.fault_prog, "cpus"])
    check_ended(res, 0)
    mine = 1 if bind == "core" else job
    for r in range(2):
        assert f"cpus rank {r} affinity {mine} job {job}\n" in res.out, res.out


@pytest.mark.parametrize("n", [1, 3, 8])
def test_tag_output_prefixes_whole_lines(launch, n):
    """--tag-output: every line carries its rank, and arrives whole although the rank wrote it
    a character at a time; a last line without a newline is passed on too."""
    lines = 20
    res = launch.run(["-n", str(n), "--tag-output", launch.fault_prog, "pieces", str(lines)])
    res.rank_pids = {int(r): int(pid) for r, pid in
                     re.findall(r"^\[\d+\] fault_prog: rank (\d+) pid (\d+)$", res.out, re.M)}
    check_ended(res, 0)
    assert len(res.rank_pids) == n, res.out
    got = res.out.splitlines()
    want = {f"[{r}] fault_prog: rank {r} pid {pid}" for r, pid in res.rank_pids.items()}
    for r in range(n):
        want |= {f"[{r}] rank {r} line {k}: " + "x" * 300 for k in range(lines)}
        want.add(f"[{r}] rank {r} unfinished")
    assert sorted(got) == sorted(want)
    res = launch.run(["-n", "2", "--tag-output", launch.fault_prog, "echo", "a"])
    assert sorted(res.err.splitlines()) == ["[0] stderr from rank 0", "[1] stderr from rank 1"]


@pytest.mark.parametrize("n", [2, 4])
def test_whole_lines_by_default(launch, n):
    """Without --tag-output too, lines arrive whole although each rank wrote them a character
    at a time (they were cut inside: "ranrank 0 line 0"); a rank's last line without a newline
    goes on as it is, on a line of its own when another rank's output follows it."""
    lines = 30
    res = launch.run(["-n", str(n), launch.fault_prog, "pieces", str(lines)])
    check_ended(res, 0)
    got = res.out.split("\n")
    assert res.out.count("unfinished") == n and not res.out.endswith("\n"), res.out
    want = [f"fault_prog: rank {r} pid {res.rank_pids[r]}" for r in range(n)]
    want += [f"rank {r} line {k}: " + "x" * 300 for r in range(n) for k in range(lines)]
    want += [f"rank {r} unfinished" for r in range(n)]
    assert sorted(got) == sorted(want), res.out


def test_reader_gone_is_the_ranks_sigpipe(launch):
    """`meshrun ... | head -1`: the ranks get SIGPIPE as they would writing there themselves,
    and meshrun says so (it died of SIGPIPE itself, without a word)."""
    t0 = time.monotonic()
    p = subprocess.Popen(["sh", "-c", f"{launch.meshrun} -n 2 yes | head -n 1; exit 0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    launch.snap.track(p.pid)
    out, err = p.communicate(timeout=30)
    assert out == "y\n" and time.monotonic() - t0 < QUICK, (out, err)
    assert re.fullmatch(r"meshrun: rank \d \(pid \d+\) was killed by signal 13 \(Broken pipe\) "
                        r"\(before shmem_init\): stopping the job\n", err), err


def test_rank_stdout_is_a_terminal_where_meshrun_writes_to_one(launch):
    """On a terminal, a rank's stdout is a terminal too (a pseudo terminal meshrun reads): its
    stdio stays line-buffered, so a line printed is seen at once, as without meshrun."""
    pid, master = pty.fork()
    if pid == 0:
        os.execv(launch.meshrun, [launch.meshrun, "-n", "2", "python3", "-c",
                                  "import os, sys, time\n"
                                  "print('tty' if os.isatty(1) else 'pipe', os.environ['MESHMEM_RANK'])\n"
                                  "time.sleep(3 if os.environ['MESHMEM_RANK'] == '0' else 0)"])
    launch.snap.track(pid)
    buf, t0 = b"", time.monotonic()
    while buf.count(b"tty") < 2 and time.monotonic() - t0 < 20:
        if select.select([master], [], [], 0.5)[0]:
            try:
                buf += os.read(master, 65536)
            except OSError:
                break
    seen = time.monotonic() - t0
    _, status = os.waitpid(pid, 0)
    os.close(master)
    assert sorted(buf.decode().split()) == ["0", "1", "tty", "tty"], buf
    assert seen < 2.5, f"rank 0's line came {seen:.2f} s after the start: it was buffered"
    assert os.waitstatus_to_exitcode(status) == 0


def test_options_take_values_after_equals(launch):
    res = launch.run(["--ranks=2", "--heap=48M", "--bind-to=none", launch.fault_prog, "heap"])
    check_ended(res, 0)
    for r in range(2):
        assert f"heap rank {r} total {48 << 20}\n" in res.out


def test_version(launch):
    res = launch.run(["--version"])
    check_ended(res, 0)
    assert re.fullmatch(r"meshrun \(meshmem\) \d+\.\d+\.\d+\n", res.out), res.out


def test_without_meshrun_runs_as_one_pe(launch):
    res = launch.run([launch.fault_prog, "ranks"], direct=True, env={"MESHMEM_HEAP_SIZE": "8M"})
    check_ended(res, 0)
    assert "rank 0 of 1\n" in res.out


def test_oversubscribed_barriers(launch):
    """8 ranks on this machine's 2 cores: waits must yield, or this takes minutes."""
    iters = 2000
    res = launch.run(["-n", "8", "--heap", "8M", launch.fault_prog, "barriers", str(iters)],
                     guard=120)
    check_ended(res, 0, limit=120)
    m = re.search(rf"^barriers {iters} seconds ([0-9.]+)$", res.out, re.M)
    assert m, res.out
    secs = float(m.group(1))
    print(f"\n8 ranks on {os.cpu_count()} cores: {iters} barriers in {secs:.3f} s "
          f"({secs / iters * 1e6:.1f} us each), job {res.wall:.2f} s")


# ------------------------------------------------------------------------------------------
# a rank fails: the job ends, quickly and cleanly, with the right status and message


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("sig,name", [(9, "SIGKILL"), (11, "SIGSEGV")])
def test_rank_killed(launch, n, sig, name):
    res = launch.fault(n, "kill-self", name)
    check_ended(res, 128 + sig)
    assert re.search(rf"meshrun: rank 1 \(pid \d+\) was killed by signal {sig} ", res.err), res.err


# mode of fault_prog, exit status of the job, what stderr must say
FAILURES = {
    # the others wait in init's barrier with their segments named in /dev/shm: removed
    "die-in-init": (137, r"rank 1 \(pid \d+\) was killed by signal 9 .*\(before shmem_init\)"),
    "exit-early": (1, r"rank 1 \(pid \d+\) exited with status 0 after shmem_init without "
                      r"shmem_finalize"),
    # exit(3) runs atexit handlers: they must not wait in finalize for the others
    "exit3": (3, r"rank 1 \(pid \d+\) exited with status 3"),
    # exit(0) mid-job: peers waiting for rank 1 notice it finalized instead of hanging
    "exit0-barrier": (1, r"waits for rank 1 in a collective, but rank 1 has finalized.*\n"
                         r"meshrun: rank 1 \(pid \d+\) finalized and exited while its peers still "
                         r"needed it: stopping the job\n"),
    # (its finalize's barrier may meet the first step of the all-reduce: then it has finalized)
    "exit0-coll": (1, r"waits for rank 1 in a collective, but rank 1 "
                      r"(is in shmem_finalize|has finalized)"),
    "not-symmetric": (1, r"meshmem\[0\] error: meshmem_put: dest argument \(0x[0-9a-f]+, "
                         r"8 bytes\) is not in symmetric memory"),
    "asym-malloc": (1, r"error: shmem_malloc: arguments differ between PEs: PE \d+ asked for "
                       r"1\d\d bytes"),
}


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("mode", FAILURES)
def test_rank_fails(launch, n, mode):
    rc, pattern = FAILURES[mode]
    res = launch.fault(n, mode)
    check_ended(res, rc)
    assert re.search(pattern, res.err), res.err


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("mode", ["exit0-barrier", "exit0-coll"])
def test_a_rank_that_left_is_named_once(launch, n, mode):
    """Rank 1 leaves main by exit(0) while the others need it: one line naming rank 1 as the
    one that left (every waiting rank printed its own)."""
    res = launch.fault(n, mode)
    check_ended(res, 1)
    lines = error_lines(res.err)
    assert len(lines) == 1, res.err
    assert re.search(r"waits for rank 1 in a collective, but rank 1 (is in shmem_finalize|has "
                     r"finalized) \(did it leave main", lines[0]), res.err


@pytest.mark.parametrize("n", RANKS)
@pytest.mark.parametrize("block", [8, 48, 200])  # in a flag line, at its edge, eager
@pytest.mark.parametrize("op", ["alltoall", "bcast", "gather", "reduce"])
def test_collective_counts_differ(launch, n, block, op):
    """Ranks passing different counts to one collective: an error naming the call, no hang;
    gather and reduce get less than the root expects, bcast's root sends less than the others
    expect (a short message is as wrong as a long one)."""
    res = launch.fault(n, "count-mismatch", str(block), op)
    check_ended(res, 1)
    assert re.search(rf"error: meshmem_coll_{op}: team rank \d+ sent \d+ bytes where \d+ "
                     r"were expected \(counts differ between ranks\)", res.err), res.err
    assert "went unnoticed" not in res.err, res.err


def error_lines(err: str) -> list[str]:
    """The runtime's error lines in @p err (meshrun's own lines and others left out)."""
    return [line for line in err.splitlines() if re.match(r"meshmem\[\d+\] error: ", line)]


def the_error_line(res) -> str:
    """The one error line of a job that failed with status 1 (an error printed once)."""
    check_ended(res, 1)
    lines = error_lines(res.err)
    assert len(lines) == 1, res.err
    return lines[0]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("mode", ["clear-free-lock", "clear-held-lock"])
def test_clear_lock_not_held(launch, n, mode):
    """shmem_clear_lock of a lock this PE does not hold: one line naming the call, no hang
    (it waited forever for a successor that never comes, even on one PE)."""
    if mode == "clear-held-lock" and n == 1:
        pytest.skip("needs another PE to hold the lock")
    line = the_error_line(launch.fault(n, mode))
    assert re.fullmatch(rf"meshmem\[{n - 1}\] error: shmem_clear_lock: lock argument "
                        r"\(0x[0-9a-f]+\) is not held by this PE", line), line


@pytest.mark.parametrize("n", [1, 3, 8])
def test_error_before_init_names_its_rank(launch, n):
    """A call before shmem_init on the last rank: its line names that rank (it said 0)."""
    res = launch.fault(n, "before-init")
    check_ended(res, 1)
    assert error_lines(res.err) == [
        f"meshmem[{n - 1}] error: shmem_malloc: called before meshmem_init/shmem_init (or after "
        "finalize)"], res.err


@pytest.mark.parametrize("n", [1, 2, 8])
def test_free_of_a_private_pointer(launch, n):
    """shmem_free of memory that is not symmetric says so, once, as for a freed pointer."""
    line = the_error_line(launch.fault(n, "free-private"))
    assert re.fullmatch(r"meshmem\[\d+\] error: shmem_free: ptr argument \(0x[0-9a-f]+\) is "
                        r"not a live symmetric allocation", line), line


@pytest.mark.parametrize("n", [1, 3])
def test_malloc_that_does_not_fit_says_so_once(launch, n):
    res = launch.fault(n, "malloc-too-big")
    check_ended(res, 0)
    assert res.out.count("too big: NULL NULL\n") == n, res.out
    hints = [line for line in res.err.splitlines() if "SHMEM_SYMMETRIC_SIZE" in line]
    assert len(hints) == 1, res.err
    assert re.fullmatch(r"meshmem\[0\] warning: shmem_malloc: \d+ bytes do not fit in the "
                        r"symmetric heap \(\d+ free of \d+\); raise SHMEM_SYMMETRIC_SIZE "
                        r"\(meshrun --heap\)", hints[0]), res.err


@pytest.mark.parametrize("n", [2, 3, 8])
def test_reduce_mismatch_names_the_openshmem_call_once(launch, n):
    """Counts that differ in shmem_long_sum_reduce: one line, naming shmem_long_sum_reduce."""
    line = the_error_line(launch.fault(n, "reduce-mismatch"))
    assert re.search(r"error: shmem_long_sum_reduce: team rank \d+ sent \d+ bytes where \d+ "
                     r"were expected \(counts differ between ranks\)", line), line


@pytest.mark.parametrize("n", [3, 8])
def test_asymmetric_malloc_is_one_line_without_internals(launch, n):
    line = the_error_line(launch.fault(n, "asym-malloc"))
    assert "block" not in line, line
    assert re.search(r"shmem_malloc: arguments differ between PEs: PE \d+ asked for 1\d\d bytes "
                     r"\(align 64\), PE \d+ asked for 1\d\d bytes", line), line


def test_readme_example_of_a_fatal_error(launch):
    """README.md shows what a bad PE argument prints: it must be what the job prints."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    m = re.search(r"^    (meshmem\[2\] error: shmem_int_put: .*)\n    (meshrun: .*)$", text, re.M)
    assert m, "README.md has no example of a fatal error"
    res = launch.fault(4, "shmem-bad-pe")
    check_ended(res, 1)
    got = [line for line in res.err.splitlines() if line.startswith(("meshmem[", "meshrun:"))]
    assert got == [m.group(1), m.group(2)], res.err


@pytest.mark.parametrize("n", RANKS)
def test_bad_pe(launch, n):
    res = launch.fault(n, "bad-pe")
    check_ended(res, 1)
    assert (f"meshmem[0] error: meshmem_put: PE argument ({n}) is invalid: the job has PEs "
            f"0..{n - 1}") in res.err, res.err
    assert "meshrun: rank 0 reported a fatal error" in res.err, res.err


@pytest.mark.parametrize("n", RANKS)
def test_global_exit(launch, n):
    res = launch.fault(n, "global-exit")
    check_ended(res, 7)
    caller = 2 if n > 2 else n - 1
    assert f"meshrun: rank {caller} called shmem_global_exit(7)" in res.err, res.err


def test_rank_with_a_child_of_its_own(launch):
    """What a rank forked is stopped with the job (it would also hold the output pipes)."""
    res = launch.fault(3, "fork-child")
    check_ended(res, 137)
    assert re.search(r"^child \d+$", res.out, re.M), res.out


@pytest.mark.parametrize("n", [1, 3, 8])
@pytest.mark.parametrize("var,value,says", [
    ("SHMEM_SYMMETRIC_SIZE", "12Q", 'SHMEM_SYMMETRIC_SIZE="12Q" is not a valid size (such as 64M '
                                    'or 1G)'),
    ("MESHMEM_SPIN_US", "soon", 'MESHMEM_SPIN_US="soon" is not a valid integer'),
])
def test_invalid_environment_value_is_one_line_per_job(launch, n, var, value, says):
    """Every rank reads the same environment: the job says so once (it said it twice a rank:
    the value, then "meshmem_init failed (see above)")."""
    res = launch.run(["-n", str(n), launch.fault_prog, "ok"], env={var: value})
    check_ended(res, 1)
    assert [re.sub(r"^meshmem\[\d+\]", "meshmem[R]", line) for line in error_lines(res.err)] == \
        [f"meshmem[R] error: meshmem_init: {says}"], res.err


@pytest.mark.parametrize("n", [1, 3])
def test_misspelt_variable_is_named_once_per_job(launch, n):
    res = launch.run(["-n", str(n), "--heap", "16M", launch.fault_prog, "ok"],
                     env={"MESHMEM_HEAP_SZIE": "1G", "MESHMEM_NOT_A_SETTING": "1",
                          "MESHMEM_TEST_ANYTHING": "1"})
    check_ended(res, 0)
    assert sorted(res.err.splitlines()) == [
        "meshmem[0] warning: MESHMEM_HEAP_SZIE is not a meshmem variable: ignored (did you mean "
        "MESHMEM_HEAP_SIZE?)",
        "meshmem[0] warning: MESHMEM_NOT_A_SETTING is not a meshmem variable: ignored (meshmem "
        "info --config lists them)"], res.err


def test_debug_level_2_prints_info(launch):
    """MESHMEM_DEBUG=2 (info) says how each rank started (it printed nothing)."""
    res = launch.run(["-n", "2", "--heap", "16M", launch.fault_prog, "ok"],
                     env={"MESHMEM_DEBUG": "2"})
    check_ended(res, 0)
    got = sorted(re.sub(r"static data \d+[KMG]?", "static data D", line)
                 for line in res.err.splitlines())
    assert got == [f"meshmem[{r}] info: meshmem_init: rank {r} of 2 on 1 host (2 ranks here), "
                   f"heap 16M, static data D, bootstrap meshrun, network none"
                   for r in range(2)], res.err


@pytest.mark.parametrize("heap,msg", [
    ("200T", "cannot reserve a symmetric heap of 200T"),  # more than an address space
    ("12Q", 'SHMEM_SYMMETRIC_SIZE="12Q" is not a valid size'),  # garbage
])
def test_impossible_heap(launch, heap, msg):
    # through the environment: meshrun --heap refuses garbage itself (test_bad_arguments)
    res = launch.run(["-n", "3", launch.fault_prog, "ok"], env={"SHMEM_SYMMETRIC_SIZE": heap})
    check_ended(res, 1)
    assert msg in res.err, res.err
    if heap == "200T":
        res = launch.run(["-n", "3", "--heap", heap, launch.fault_prog, "ok"])
        check_ended(res, 1)
        assert msg in res.err, res.err


@pytest.mark.parametrize("nets,msg", [
    ("tcp", 'MESHMEM_NET="tcp" is not a valid list of networks (a comma list of ucx, rtl'),
    ("ucx,ucx", 'MESHMEM_NET="ucx,ucx" is not a valid list of networks'),  # named twice
    ("rtl", None),  # known: not built, or built but started without meshrun --rtl
])
def test_bad_network_list(launch, nets, msg):
    """MESHMEM_NET names networks meshmem knows and has built, or the job ends with one line."""
    env = {"MESHMEM_NET": nets}
    if nets == "rtl":
        # the rtl network is built with rtl/ where Verilator is; built, it needs its simulator,
        # which only meshrun --rtl starts (on one machine without MESHMEM_SHM=0 the node's
        # shared memory reaches every peer and no network is opened)
        built = (Path(launch.meshrun).parent.parent / "lib" / "libmeshmem_rtl.so").exists()
        msg = ("MESHMEM_NET=rtl: no simulator: start the job with meshrun --rtl" if built else
               "MESHMEM_NET=rtl: network rtl is not built into this meshmem")
        env["MESHMEM_SHM"] = "0"
    res = launch.run(["-n", "2", launch.fault_prog, "ok"], env=env)
    check_ended(res, 1)
    assert msg in res.err, res.err


# ------------------------------------------------------------------------------------------
# the job is stopped from outside


@pytest.mark.parametrize("n", [2, 8])
@pytest.mark.parametrize("mode,ready", [("hang", r"^ready$"),
                                        ("hang-init", r"^fault_prog: rank 0 pid")])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_job(launch, n, mode, ready, sig):
    t0 = time.monotonic()
    p = launch.start(["-n", str(n), "--heap", "16M", launch.fault_prog, mode])
    head = read_until(p, ready, timeout=20)
    if mode == "hang-init":
        time.sleep(0.3)  # let the other ranks reach the init barrier
    t_sig = time.monotonic()
    os.killpg(p.pid, sig)  # meshrun's session: what a terminal's Ctrl-C reaches
    res = launch.finish(p, t0, guard=30)
    res.out = head + res.out
    res.rank_pids.update({int(r): int(x) for r, x in
                          re.findall(r"^fault_prog: rank (\d+) pid (\d+)$", res.out, re.M)})
    res.wall = time.monotonic() - t_sig
    check_ended(res, 128 + sig, limit=STOP)
    assert f"meshrun: {signal.strsignal(sig)}: stopping the job" in res.err, res.err


def test_ctrl_c_on_a_terminal(launch):
    """meshrun in the foreground of a terminal, Ctrl-C typed: every rank stops, status 130."""
    pid, master = pty.fork()
    if pid == 0:  # the child: a session leader whose terminal is the pty
        env = {k: v for k, v in os.environ.items() if k != "SHMEM_SYMMETRIC_SIZE"}
        os.execve(launch.meshrun, [launch.meshrun, "-n", "3", "--heap", "16M",
                                   launch.fault_prog, "hang"], env)
    launch.snap.track(pid)
    buf, t_sig = b"", None
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if t_sig is None and b"ready" in buf:
            os.write(master, b"\x03")
            t_sig = time.monotonic()
        if not select.select([master], [], [], 0.5)[0]:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every process holding the terminal is gone
            break
        if not chunk:
            break
        buf += chunk
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(master)
    out = buf.decode().replace("\r\n", "\n")
    assert t_sig is not None, out
    wall = time.monotonic() - t_sig
    assert os.waitstatus_to_exitcode(status) == 130, out
    assert wall < STOP, f"{wall:.2f} s\n{out}"
    pids = [int(x) for x in re.findall(r"^fault_prog: rank \d+ pid (\d+)$", out, re.M)]
    assert len(pids) == 3, out
    assert not [p for p in pids if pid_alive(p)]


def test_timeout(launch):
    """The ranks still running are named, with what they were doing."""
    res = launch.fault(3, "hang", extra=("--timeout", "1"))
    check_ended(res, 124, limit=1 + STOP)
    assert res.wall >= 1.0
    assert ("meshrun: the job ran past --timeout 1 s: stopping it; still running: ranks 0-2 "
            "(after shmem_init, without shmem_finalize)") in res.err, res.err



def test_timeout_names_the_call_each_rank_waits_in(launch):
    """PE 0 outside any call, the others in shmem_barrier_all: the --timeout line says which
    call the waiting ranks are in (it named no call)."""
    res = launch.fault(3, "barrier-alone", extra=("--timeout", "2"))
    check_ended(res, 124, limit=2 + STOP)
    assert ("meshrun: the job ran past --timeout 2 s: stopping it; still running: ranks 0-2 "
            "(after shmem_init, without shmem_finalize); rank 1 waits in shmem_barrier_all, "
            "rank 2 in shmem_barrier_all\n") in res.err, res.err

# ------------------------------------------------------------------------------------------
# bad input to meshrun


def test_program_not_found(launch, tmp_path):
    res = launch.run(["-n", "2", str(tmp_path / "no-such-program")])
    check_ended(res, 127)
    assert "meshrun: cannot run" in res.err and "no-such-program" in res.err, res.err
    assert res.err.count("cannot run") == 1, res.err  # once, not once per rank
    res = launch.run(["-n", "2", "no-such-program-in-path"])
    check_ended(res, 127)
    assert "no-such-program-in-path" in res.err
    plain = tmp_path / "not-executable"
    plain.write_text("data\n")
    plain.chmod(0o644)
    res = launch.run(["-n", "2", str(plain)])
    check_ended(res, 126)
    assert "Permission denied" in res.err, res.err


@pytest.mark.parametrize("args,msg", [
    (["-n", "0", "prog"], '-n argument "0"'),
    (["-n", "abc", "prog"], '-n argument "abc"'),
    (["-n", "99999", "prog"], '-n argument "99999"'),
    (["-n"], "option -n needs a rank count"),
    (["-n", "2"], "no program given"),
    (["prog"], "-n N is required"),
    ([], "-n N is required"),
    (["-n", "2", "--heap", "12Q", "prog"], '--heap argument "12Q"'),
    (["-n", "2", "--timeout", "soon", "prog"], '--timeout argument "soon"'),
    (["-n", "2", "--bind-to", "socket", "prog"], '--bind-to argument "socket"'),
    (["-n", "2", "--frobnicate", "prog"], 'unknown option "--frobnicate"'),
    (["-n", "2", "--heap=", "prog"], '--heap argument ""'),
    (["-n", "2", "--tag-output=yes", "prog"], "option --tag-output takes no value"),
])
def test_bad_arguments(launch, args, msg):
    """One line naming the option, with a hint; not the whole usage."""
    res = launch.run(args)
    check_ended(res, 2)
    assert res.err.count("\n") == 1 and msg in res.err, res.err
    assert res.err.startswith("meshrun: ") and res.err.endswith(" (see meshrun --help)\n")
    assert res.out == ""


def test_help(launch):
    res = launch.run(["--help"])
    check_ended(res, 0)
    assert res.out.startswith("usage: meshrun -n N")
    assert "MESHMEM_RANK" in res.out and "MESHMEM_NRANKS" in res.out


def test_stale_objects_of_a_killed_launcher_are_swept(launch):
    """A launcher killed outright cannot clean up; the next meshrun removes what its job left,
    and only that: objects of a job whose launcher still runs are kept."""
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid names no process any more
    stale = f"/dev/shm/meshmem.{dead.pid}.beef.0.heap"
    live = f"/dev/shm/meshmem.{os.getpid()}.beef.0.heap"  # this test's own pid: alive
    for path in (stale, live):
        with open(path, "wb") as f:
            f.write(b"x")
    try:
        res = launch.fault(2, "ok")
        check_ended(res, 0)
        assert not os.path.exists(stale), "the dead job's object is still there"
        assert os.path.exists(live), "an object of a live launcher was removed"
        assert f"removed /meshmem.{dead.pid}.beef.0.heap" in res.err, res.err
    finally:
        for path in (stale, live):
            if os.path.exists(path):
                os.unlink(path)


# ------------------------------------------------------------------------------------------
# arguments that must be equal on every PE, and are not: one line naming the call, the
# argument and its values on two PEs (the call's tag in the lines the collective posts anyway)

DIFFERS = {
    "root-differs": r"shmem_long_broadcast: PE_root differs between PEs \(PE 0: 0, PE (\d+): 1\)",
    "op-differs": r"shmem_int_(sum|max)_reduce: the operation differs between PEs \(PE 0: "
                  r"shmem_int_sum_reduce, PE \d+: shmem_int_max_reduce\)",
    "split-differs": r"shmem_team_split_strided: arguments differ between PEs \(PE 0: size 2, "
                     r"PE \d+: size 3\)",
    "malloc-barrier": r"PEs are in different collectives: PE 0 is in shmem_malloc, PE \d+ in "
                      r"shmem_barrier_all",
    # it hung until --timeout: both sides wait for a line of another kind
    "malloc-alltoall": r"PEs are in different collectives: PE 0 is in shmem_malloc, PE \d+ in "
                       r"shmem_int_alltoall",
}


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("mode", DIFFERS)
def test_arguments_that_differ_between_pes(launch, n, mode):
    line = the_error_line(launch.fault(n, mode))
    assert re.fullmatch(r"meshmem\[\d\] error: " + DIFFERS[mode], line), line


def test_root_differing_above_the_header_bits(launch):
    """A reduce's root differing by 32 between ranks (33 ranks: roots 0 and 32): the 16 bits of
    the tag a line's header carries are alike (the root's low 5 bits), the whole tag in the
    call records is not; the job hung until --timeout before."""
    line = the_error_line(launch.fault(33, "root-far", "32", heap="4M", guard=60.0))
    assert re.fullmatch(r"meshmem\[(0|32)\] error: meshmem_coll_reduce: root differs between "
                        r"ranks \(rank 0: 0, rank 32: 32\)", line), line


# handles and pointers that are not what they claim: one line, no SIGSEGV
HANDLES = {
    "dead-team": r"shmem_team_sync: team argument \(0x[0-9a-f]+\) is not a team: destroyed "
                 r"already, or never made by a split",
    "madeup-team": r"shmem_team_my_pe: team argument \(0x[0-9a-f]+\) is not a team: destroyed "
                   r"already, or never made by a split",
    "dead-ctx": r"shmem_ctx_int_put: ctx argument \(0x[0-9a-f]+\) is a context "
                r"shmem_ctx_destroy destroyed already",
    # a made-up pointer was read as a context: SIGSEGV
    "madeup-ctx": r"shmem_ctx_long_put: ctx argument \(0x1234\) is not a context: never made "
                  r"by shmem_ctx_create or shmem_team_create_ctx",
    "stray-ctx": r"shmem_ctx_int_get: ctx argument \(0x[0-9a-f]+\) is not a context: never "
                 r"made by shmem_ctx_create or shmem_team_create_ctx",
    "null-put": r"shmem_int_put: source argument is NULL for 4 bytes",
    "null-put-nbi": r"shmem_int_put_nbi: source argument is NULL for 4 bytes",
    "null-get": r"shmem_int_get: dest argument is NULL for 4 bytes",
    "null-iput": r"shmem_int_iput: source argument is NULL for 8 bytes",
}


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("mode", HANDLES)
def test_handles_and_pointers_that_are_not_valid(launch, n, mode):
    line = the_error_line(launch.fault(n, mode))
    assert re.fullmatch(rf"meshmem\[{n - 1}\] error: " + HANDLES[mode], line), line


@pytest.mark.parametrize("n", [1, 3])
def test_null_with_no_elements_is_legal(launch, n):
    res = launch.fault(n, "null-zero")
    check_ended(res, 0)
    assert res.out.count("NULL with 0 elements passed\n") == n, res.out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_split_that_leaves_the_parent_returns_invalid(launch, n):
    """A split the spec answers with SHMEM_TEAM_INVALID is an error returned, not a fatal one:
    no error line, the program goes on and ends with status 0."""
    res = launch.fault(n, "split-invalid")
    check_ended(res, 0)
    assert res.out.count("split returned -1, SHMEM_TEAM_INVALID\n") == n, res.out
    assert not error_lines(res.err), res.err
