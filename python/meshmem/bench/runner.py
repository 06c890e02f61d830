"""Building and running the OSU-style benchmark programs of bench/ and reading what they print.

Five programs share one command line and one output format (bench/osu_common.h):
  osu_shmem         bench/osu_shmem.c on meshmem, started by meshrun
  osu_shmem_oshmem  the same source compiled by OpenMPI's oshcc, started by oshrun
  osu_mpi           bench/osu_mpi.c compiled by mpicc, started by mpirun
  osu_coll          bench/osu_coll.c (collectives, meshmem_coll.h), started by meshrun
  osu_coll_mpi      bench/osu_coll_mpi.c (its MPI_* twin) compiled by mpicc, started by mpirun
Each prints, per size, `@osu op=.. pes=.. bytes=.. us=.. iters=..` and for large sizes
`@memcpy bytes=.. all_GBps=.. one_GBps=..` (the collectives add `moved=..`: the bytes one rank
moves per call, which their reference copy copies).
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from meshmem.launch.commands import RUNTIMES, BenchError, LaunchOptions, Runtime, command
from meshmem.launch.paths import REPO, build_dir


def ensure_built(rt: Runtime) -> Path:
    """Return the executable of @p rt, compiling an OpenMPI twin on demand when CMake did not
    (e.g. the build tree was configured before OpenMPI was installed)."""
    exe = rt.exe()
    if exe.exists():
        return exe
    if rt.compiler is None:
        # built by CMake: try the one target before giving up (a tree configured earlier)
        cmake = shutil.which("cmake")
        if cmake and (build_dir() / "CMakeCache.txt").exists():
            subprocess.run([cmake, "--build", str(build_dir()), "--target", exe.name],
                           capture_output=True, text=True)
        if exe.exists():
            return exe
        raise BenchError(f"{exe} is missing: run `make` (the meshmem benchmark needs "
                         f"include/shmem.h and libmeshmem)")
    cc = shutil.which(rt.compiler)
    if cc is None:
        raise BenchError(f"{rt.compiler} not found: OpenMPI is not installed "
                         f"(scripts/install-deps.sh installs openmpi-bin and libopenmpi-dev)")
    exe.parent.mkdir(parents=True, exist_ok=True)
    # -falign-loops=64 as bench/CMakeLists.txt builds the others: the timed loops on a cache line
    cmd = [cc, "-std=gnu11", "-O2", "-falign-loops=64", "-Wall", "-Wextra", "-Werror",
           str(REPO / "bench" / rt.source), "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"building {exe.name} failed:\n{done.stderr.strip()}")
    return exe


@dataclass
class RunOutput:
    """What one benchmark run reported: latency per size and the memcpy reference."""
    latency_us: dict = field(default_factory=dict)   # bytes -> average us
    iters: dict = field(default_factory=dict)        # bytes -> timed iterations
    memcpy_all: dict = field(default_factory=dict)   # bytes -> GB/s, every rank at once
    memcpy_one: dict = field(default_factory=dict)   # bytes -> GB/s, rank 0 alone
    moved: dict = field(default_factory=dict)        # bytes -> bytes a rank moves (collectives)
    floor_us: dict = field(default_factory=dict)     # bytes -> us of the bare line pattern


def parse_output(text: str) -> RunOutput:
    """Read the @osu, @memcpy and @floor lines of a benchmark's stdout."""
    out = RunOutput()
    for line in text.splitlines():
        if not line.startswith(("@osu ", "@memcpy ", "@floor ")):
            continue
        kv = dict(item.split("=", 1) for item in line.split()[1:])
        size = int(kv["bytes"])
        if line.startswith("@osu "):
            out.latency_us[size] = float(kv["us"])
            out.iters[size] = int(kv["iters"])
        elif line.startswith("@floor "):
            out.floor_us[size] = float(kv["us"])
        else:
            out.memcpy_all[size] = float(kv["all_GBps"])
            out.memcpy_one[size] = float(kv["one_GBps"])
            if "moved" in kv:
                out.moved[size] = int(kv["moved"])
    return out


def run(rt: Runtime, opts: LaunchOptions, op: str, sizes: list[int], iters: int,
        iters_large: int, warmup: int | None, memcpy_min: int, extra_args=(),
        extra_env: dict | None = None) -> RunOutput:
    """Run @p op of the benchmark under @p rt once for every size; raise BenchError on failure.
    @p extra_args go to the program (the collectives' -a/-p/-d), @p extra_env to its ranks
    (None values remove a variable)."""
    exe = ensure_built(rt)
    args = ["-o", op, "-s", ",".join(str(s) for s in sizes), "-i", str(iters),
            "-I", str(iters_large), "-m", str(memcpy_min)] + list(extra_args)
    if warmup is not None:
        args += ["-w", str(warmup), "-W", str(warmup)]
    cmd, env = command(rt, exe, opts, args)
    for k, v in (extra_env or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=opts.timeout_s + 30)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{rt.label} {op}: no result within {opts.timeout_s + 30:.0f} s "
                         f"({' '.join(cmd)})") from None
    out = parse_output(done.stdout)
    complete = len(out.latency_us) == len(set(sizes))
    # Debian's OSHMEM over UCX may crash in shmem_finalize (ompi#11604), after the results
    if rt.key == "oshmem" and complete:
        return out
    if done.returncode != 0 or not complete:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise BenchError(f"{rt.label} {op} failed (exit {done.returncode}): {' '.join(cmd)}\n"
                         f"{tail}")
    return out


_probe_cache: dict = {}


def oshmem_works(opts: LaunchOptions) -> tuple[bool, str]:
    """Whether OpenMPI's OSHMEM runs here (a tiny barrier job), with the reason when it does
    not. Cached: asked once per process, rank count and hosts."""
    key = (opts.ranks, opts.vhosts, opts.hosts)
    if key not in _probe_cache:
        probe = LaunchOptions(ranks=opts.ranks, bind=opts.bind, heap_bytes=16 << 20,
                              timeout_s=60, vhosts=opts.vhosts, hosts=opts.hosts)
        try:
            run(RUNTIMES["oshmem"], probe, "barrier", [0], 10, 10, 2, 0)
            _probe_cache[key] = (True, "")
        except BenchError as e:
            _probe_cache[key] = (False, str(e).splitlines()[0])
    return _probe_cache[key]
