"""Shared fixtures of the Python tests.

- ``build_dir``: the CMake build directory under test, from the environment variable
  MESHMEM_BUILD (the top-level Makefile sets it), default the repository's own build/.
- ``shm_snapshot``: /dev/shm before a test; after it, fails the test when an object of a job the
  test started (registered with ``shm_snapshot.track(pid)``) is still there.
- ``launch``: runs meshrun (or a program directly) with a hang guard, and records what the
  launcher tests check: exit status, wall time, output, and the pids the job's ranks printed.
"""
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SHM = Path("/dev/shm")
DEFAULT_BUILD = Path(__file__).resolve().parents[2] / "build"  # this checkout's build/


@pytest.fixture(scope="session")
def build_dir() -> Path:
    b = Path(os.environ.get("MESHMEM_BUILD", DEFAULT_BUILD)).resolve()
    if not (b / "bin" / "meshrun").exists():
        pytest.fail(f"no meshrun in {b}/bin: build first (make BUILD=...) or set MESHMEM_BUILD")
    return b


@pytest.fixture
def built(build_dir, monkeypatch):
    """The build tree, with MESHMEM_BUILD pointing at it for the CLI; skips without the apps."""
    monkeypatch.setenv("MESHMEM_BUILD", str(build_dir))
    if not (build_dir / "apps" / "bin" / "sort").exists():
        pytest.skip("apps not built in this build tree")
    return build_dir


def shm_objects() -> set[str]:
    """Names of meshmem's objects now in /dev/shm."""
    return {p.name for p in SHM.glob("meshmem.*")}


class ShmSnapshot:
    def __init__(self) -> None:
        self.before = shm_objects()
        self.pids: list[int] = []

    def track(self, pid: int) -> None:
        """Objects of a job are named meshmem.<pid>.*: pid of meshrun, or of a singleton."""
        self.pids.append(pid)

    def leftovers(self) -> list[str]:
        # other engineers' jobs run on this machine too: only this test's jobs count
        prefixes = tuple(f"meshmem.{pid}." for pid in self.pids)
        return sorted(n for n in shm_objects() - self.before if n.startswith(prefixes))


@pytest.fixture
def shm_snapshot():
    snap = ShmSnapshot()
    yield snap
    left = snap.leftovers()
    assert not left, f"/dev/shm objects left behind by the job: {left}"


def pid_alive(pid: int) -> bool:
    """True while @pid exists and is not a zombie (a zombie holds nothing but its pid)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class JobResult:
    rc: int
    out: str
    err: str
    wall: float
    pid: int                                  # meshrun's (or the program's) pid
    rank_pids: dict[int, int] = field(default_factory=dict)

    def alive(self) -> list[int]:
        """Processes of the job still running (ranks, and children they announced)."""
        pids = list(self.rank_pids.values())
        pids += [int(p) for p in re.findall(r"^child (\d+)$", self.out, re.M)]
        return [p for p in pids if pid_alive(p)]


RANK_PID = re.compile(r"^fault_prog: rank (\d+) pid (\d+)$", re.M)


class Launcher:
    def __init__(self, build: Path, snap: ShmSnapshot) -> None:
        self.build = build
        self.meshrun = str(build / "bin" / "meshrun")
        self.fault_prog = str(build / "tests" / "fault_prog")
        self.snap = snap

    def start(self, args: list[str], env: dict | None = None, direct: bool = False):
        """Start meshrun ARGS (or ARGS alone when direct) in a session of its own."""
        full_env = dict(os.environ)
        # the heap of the caller's environment must not change what a test measures
        for k in ("SHMEM_SYMMETRIC_SIZE", "MESHMEM_HEAP_SIZE"):
            full_env.pop(k, None)
        full_env.update(env or {})
        cmd = args if direct else [self.meshrun, *args]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=full_env, start_new_session=True)
        self.snap.track(p.pid)
        return p

    def finish(self, p: subprocess.Popen, t0: float, guard: float) -> JobResult:
        try:
            out, err = p.communicate(timeout=guard)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # our session: meshrun and whatever it left
            out, err = p.communicate()
            pytest.fail(f"job still running after {guard} s (hang)\nstdout:\n{out}\nstderr:\n{err}")
        wall = time.monotonic() - t0
        pids = {int(r): int(pid) for r, pid in RANK_PID.findall(out)}
        return JobResult(p.returncode, out, err, wall, p.pid, pids)

    def run(self, args: list[str], env: dict | None = None, guard: float = 30.0,
            direct: bool = False) -> JobResult:
        t0 = time.monotonic()
        return self.finish(self.start(args, env, direct), t0, guard)

    def fault(self, n: int, *mode: str, heap: str = "16M", guard: float = 30.0,
              extra: tuple = ()) -> JobResult:
        return self.run(["-n", str(n), "--heap", heap, *extra, self.fault_prog, *mode],
                        guard=guard)


@pytest.fixture
def launch(build_dir, shm_snapshot) -> Launcher:
    return Launcher(build_dir, shm_snapshot)


# ---- the installed Python package (bindings, console scripts) -----------------------------
# `make test` installs the package into build/venv and runs pytest with that interpreter and
# MESHMEM_TEST_INSTALLED=1: the tests then import the installed package, and fail (instead of
# skipping) when it is missing. Elsewhere the tests of the bindings skip without it.

def _import_installed():
    try:
        import meshmem
        import meshmem._ffi  # noqa: F401  only an installed (built) package has it
        return meshmem
    except ImportError:
        return None


INSTALLED = _import_installed()
if os.environ.get("MESHMEM_TEST_INSTALLED") == "1":
    src = Path(__file__).resolve().parents[2] / "python"
    if INSTALLED is None or src in Path(INSTALLED.__file__).resolve().parents:
        raise RuntimeError("MESHMEM_TEST_INSTALLED=1 but meshmem is not installed for "
                           f"{sys.executable} (make test installs it into build/venv)")


@pytest.fixture(scope="session")
def installed() -> Path:
    """The bin/ directory of the environment holding the installed package (its python,
    meshrun, meshcc, meshmem); skips without it (fails under make test, see above)."""
    if INSTALLED is None:
        pytest.skip("the meshmem package is not installed for this python (pip install ., "
                    "or run make test)")
    return Path(sys.executable).parent
