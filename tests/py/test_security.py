"""Security of a job against the machine's other users.

A job's memory is memfds handed between its ranks over abstract Unix sockets
(src/transport/shm/mm_shm.h). These tests run a job as this user (root) and act as a second
user (meshmem-other, added here when missing): that user must not get the job's memory by any
way open to it, nor stop the job, nor disturb it:
  - a connection to a rank's socket while the ranks exchange their segments, sending a forged
    hello with a memfd of its own, is refused (the sender's credentials) and the job runs on;
  - signals to the ranks, their /proc/PID/fd, map_files and mem are refused;
  - every memfd of the job is 0600, owned by the job's user.
They need root (to add the user and to run as it); elsewhere they are skipped, saying why.
"""
import os
import pwd
import re
import shutil
import subprocess
import sys
import time

import pytest
from test_launcher import check_ended, read_until

pytestmark = pytest.mark.usefixtures("shm_snapshot")

OTHER = "meshmem-other"


@pytest.fixture(scope="module")
def other_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("needs root: adds a second user and runs as it")
    try:
        return pwd.getpwnam(OTHER)
    except KeyError:
        pass
    if shutil.which("useradd") is None:
        pytest.skip("no useradd on this machine to add a second user")
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                    OTHER], check=True, capture_output=True)
    return pwd.getpwnam(OTHER)


def other_python(user: pwd.struct_passwd) -> str:
    """A Python the second user may run (this one may live in root's home)."""
    for py in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            if subprocess.run([py, "-c", "pass"], user=user.pw_uid, group=user.pw_gid,
                              extra_groups=[], capture_output=True, cwd="/").returncode == 0:
                return py
        except OSError:  # not there, or not for this user (a Python in root's home)
            continue
    pytest.skip(f"no Python that {user.pw_name} may run")


def as_other(user: pwd.struct_passwd, code: str, *args: str,
             timeout: float = 20) -> subprocess.CompletedProcess:
    """Run Python @code as @user (its uid and gid, no supplementary groups)."""
    return subprocess.run([other_python(user), "-c", code, *args], user=user.pw_uid,
                          group=user.pw_gid, extra_groups=[], capture_output=True, text=True,
                          timeout=timeout, cwd="/")


# the second user: wait for the listening socket of rank 1 of the job of meshrun PID (its name
# is public: /proc/net/unix), connect, and send a hello as rank 0 with two memfds of its own
FORGE = r"""
import array, os, socket, struct, sys, time
prefix, end = "@meshmem." + sys.argv[1] + ".", time.monotonic() + 15
name = None
while name is None and time.monotonic() < end:
    with open("/proc/net/unix") as f:
        for line in f:
            path = line.split()[-1]
            if path.startswith(prefix) and path.endswith(".1"):
                name = path
    time.sleep(0.01)
if name is None:
    sys.exit("forge: no socket of the job appeared")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0" + name[1:])
fd = os.memfd_create("forged")
os.ftruncate(fd, 1 << 20)
hello = struct.pack("=Iii", 0x6d6d6664, 0, 2)  # mm_shm_hello_t: magic, rank 0, 2 descriptors
s.sendmsg([hello], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd, fd]))])
print("forge: sent to", name)
time.sleep(3)  # keep the connection open while the rank reads it
"""


def test_forged_segments_are_refused(launch, other_user):
    # rank 0 comes 2 s late: meanwhile the others listen, and the second user's hello is the
    # first connection rank 1 accepts
    p = launch.start(["-n", "3", "--heap", "16M", launch.fault_prog, "late-ok", "2"])
    t0 = time.monotonic()
    forge = as_other(other_user, FORGE, str(p.pid))
    res = launch.finish(p, t0, guard=30)
    assert forge.returncode == 0 and "forge: sent" in forge.stdout, forge.stderr
    check_ended(res, 0, limit=10)
    for r in range(3):
        assert f"ok rank {r} of 3\n" in res.out, res.out
    refused = re.search(r"^meshmem\[1\] warning: meshmem_init: refused a connection on this "
                        r"rank's socket \(pid (\d+), uid (\d+)\): not a rank of this job$",
                        res.err, re.M)
    assert refused, res.err
    assert int(refused.group(2)) == other_user.pw_uid


# the second user against a running rank: a signal, its descriptors, its mappings, its memory
PROBE = r"""
import os, signal, sys
pid = int(sys.argv[1])
def refused(what, f):
    try:
        f()
    except PermissionError:
        return
    print("NOT REFUSED:", what)
refused("kill", lambda: os.kill(pid, signal.SIGTERM))
refused("listdir fd", lambda: os.listdir(f"/proc/{pid}/fd"))
refused("listdir map_files", lambda: os.listdir(f"/proc/{pid}/map_files"))
refused("open mem", lambda: open(f"/proc/{pid}/mem", "rb"))
for n in range(3, 32):
    path = f"/proc/{pid}/fd/{n}"
    try:
        os.close(os.open(path, os.O_RDWR))
        print("NOT REFUSED: open", path)
    except (PermissionError, FileNotFoundError):
        pass
print("probe: done")
"""


def test_other_user_cannot_reach_a_running_job(launch, other_user):
    p = launch.start(["-n", "2", "--heap", "16M", launch.fault_prog, "hang"])
    t0 = time.monotonic()
    try:
        out = read_until(p, r"^ready$", timeout=20)
        ranks = {int(r): int(pid) for r, pid in
                 re.findall(r"^fault_prog: rank (\d+) pid (\d+)$", out, re.M)}
        assert sorted(ranks) == [0, 1], out
        memfds = 0
        for pid in ranks.values():
            probe = as_other(other_user, PROBE, str(pid))
            assert "probe: done" in probe.stdout and "NOT REFUSED" not in probe.stdout, (
                probe.stdout + probe.stderr)
            for n in os.listdir(f"/proc/{pid}/fd"):
                path = f"/proc/{pid}/fd/{n}"
                try:
                    target = os.readlink(path)
                except FileNotFoundError:
                    continue
                if target.startswith("/memfd:"):
                    st = os.stat(path)
                    assert st.st_mode & 0o777 == 0o600 and st.st_uid == os.geteuid(), (
                        f"{target} of pid {pid}: mode {st.st_mode & 0o777:o}, uid {st.st_uid}")
                    memfds += 1
        assert memfds >= 4, f"{memfds} memfds seen in the ranks (segment, static data, control)"
    finally:
        os.killpg(p.pid, 15)
    res = launch.finish(p, t0, guard=10)
    assert not res.alive()
