"""The symmetric heap as users expect it: SHMEM_SYMMETRIC_SIZE reserves, it
does not commit; memory that really runs out is a clear message once per job (a NULL from
shmem_malloc, or the end of the job for a page that cannot be given), never a bare SIGBUS.

heap_prog (tests/c/heap_prog.c) makes a small ring put, then its mode's allocation.
"""
import re
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("shm_snapshot")

CGROUP_V1 = Path("/sys/fs/cgroup/memory")


def mem_total() -> int:
    with open("/proc/meminfo") as f:
        return int(re.search(r"MemTotal:\s+(\d+) kB", f.read()).group(1)) * 1024


def gib(n: int) -> str:
    return f"{(n + (1 << 30) - 1) >> 30}G"


def heap_prog(build_dir) -> str:
    return str(build_dir / "tests" / "heap_prog")


def test_heap_larger_than_the_machine_runs_when_untouched(launch, build_dir):
    heap = gib(2 * mem_total())
    res = launch.run(["-n", "3", "--heap", heap, heap_prog(build_dir), "malloc", "1M"])
    assert res.rc == 0, res.err
    assert "malloc 1M: ok" in res.out


def test_allocation_past_the_machine_is_null_and_said_once(launch, build_dir):
    heap = gib(2 * mem_total())
    want = gib(mem_total() + mem_total() // 2)
    res = launch.run(["-n", "3", "--heap", heap, heap_prog(build_dir), "malloc", want])
    assert res.rc == 0, res.err
    assert f"malloc {want}: NULL" in res.out
    lines = [line for line in res.err.splitlines() if "no memory for" in line]
    assert len(lines) == 1, res.err  # once for the job, not once per PE
    assert re.match(rf"meshmem\[0\] error: shmem_malloc: no memory for {want} more of symmetric "
                    r"heap on PE 0's host \([0-9.]+[KMGT] available for its 3 PEs", lines[0])


@pytest.fixture
def memory_cgroup():
    """A memory cgroup (v1) of 256 MiB for the job, where this machine lets us make one."""
    cg = CGROUP_V1 / f"meshmem-test-{uuid.uuid4().hex[:8]}"
    try:
        cg.mkdir()
        (cg / "memory.limit_in_bytes").write_text(str(256 << 20))
    except OSError as e:
        pytest.skip(f"no memory cgroup can be made here ({e})")
    yield cg
    for _ in range(50):  # the job's processes leave it as they end
        try:
            cg.rmdir()
            break
        except OSError:
            time.sleep(0.1)


def test_allocation_past_a_memory_limit_is_null(launch, build_dir, memory_cgroup):
    meshrun = str(build_dir / "bin" / "meshrun")

    def in_cgroup(size):
        script = f"echo $$ > {memory_cgroup}/cgroup.procs && exec {meshrun} -n 2 --heap 1G " \
                 f"{heap_prog(build_dir)} malloc {size}"
        return launch.run(["sh", "-c", script], direct=True)

    res = in_cgroup("600M")  # more than the limit leaves: refused before a page is touched
    assert res.rc == 0, res.err
    assert "malloc 600M: NULL" in res.out
    assert res.err.count("no memory for 600M more of symmetric heap") == 1, res.err
    res = in_cgroup("64M")
    assert res.rc == 0 and "malloc 64M: ok" in res.out, res.err


def test_a_page_that_cannot_be_given_is_a_clear_error(launch, build_dir):
    res = launch.run(["-n", "3", "--heap", "64M", heap_prog(build_dir), "cut"])
    assert res.rc == 1, res.err
    assert re.search(r"meshmem\[0\] error: out of memory: page \d+ of PE 0's symmetric heap "
                     r"could not be allocated \(SIGBUS", res.err), res.err
    assert "Bus error" not in res.err and "signal 7" not in res.err
    assert "a write into a cut segment went through" not in res.err
    assert res.wall < 5
