"""Running the case-study programs of apps/ (sort, average) and their OpenMPI twins.

Programs live in <build>/apps/bin/: `sort` and `average` (meshmem, started by meshrun) and
`sort_mpi`, `average_mpi` (built by mpicc, started by mpirun). Each prints one line per result,
`@sort key=value ...` or `@average key=value ...`, which parse_lines() turns into dicts. Launch
lines and OpenMPI's environment come from meshmem.osu, as for `meshmem bench`.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from meshmem import osu
from meshmem.osu import BenchError, LaunchOptions
from meshmem.paths import REPO, build_dir

# the flags of every twin, as apps/CMakeLists.txt's MESHMEM_APPS_TWIN_CFLAGS: src/util holds the
# runtime-free headers (sizes, the most square grid) both sides include
TWIN_CFLAGS = ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{REPO / 'src' / 'util'}"]
# the application harness as every twin compiles it (apps/common, on MPI)
TWIN_HARNESS = ["apps/common/app_harness.c", "apps/common/app_rt_mpi.c"]
TWIN_BLAS = ["apps/common/app_blas.c"]  # the twins that multiply with OpenBLAS
# twin -> the sources mpicc builds it from (the same runtime-independent files as CMake uses)
TWIN_SOURCES = {
    "sort_mpi": ["apps/sort/sort_mpi.c", "apps/sort/sort_data.c", "apps/sort/sort_local.c",
                 *TWIN_HARNESS],
    "average_mpi": ["apps/average/average_mpi.c", *TWIN_HARNESS],
    "fft_mpi": ["apps/fft/fft_mpi.c", "apps/fft/fft_data.c", *TWIN_HARNESS],
    "amt_mpi": ["apps/amt/amt_mpi.c", *TWIN_HARNESS],
    "gemm_mpi": ["apps/gemm/gemm_mpi.c", "apps/gemm/gemm_data.c", *TWIN_BLAS, *TWIN_HARNESS],
    "conv_mpi": ["apps/conv/conv_mpi.c", "apps/conv/conv_data.c", *TWIN_BLAS, *TWIN_HARNESS],
    "shallow_mpi": ["apps/shallow/shallow_mpi.c", "apps/shallow/sw_scheme.c",
                    "apps/shallow/sw_halo.c", "apps/shallow/sw_app.c", *TWIN_HARNESS],
}
# libraries (and compiler flags) a twin needs beyond libm
TWIN_LIBS = {"fft_mpi": ["-lfftw3_mpi", "-lfftw3f_mpi", "-lfftw3", "-lfftw3f"],
             "shallow_mpi": ["-ffp-contract=off"], "gemm_mpi": ["-lopenblas"],
             "conv_mpi": ["-lopenblas"]}


def counted(n: int, noun: str) -> str:
    """"1 round", "3 rounds": @p n and @p noun, plural unless one."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def app_path(name: str) -> Path:
    """The program @p name in the build tree's apps/bin."""
    return build_dir() / "apps" / "bin" / name


def ensure_app(name: str) -> Path:
    """The executable of @p name; an OpenMPI twin missing from the build is compiled on demand
    (a tree configured before OpenMPI was installed). Raises BenchError with the reason."""
    exe = app_path(name)
    if exe.exists():
        return exe
    if name not in TWIN_SOURCES:
        raise BenchError(f"{exe} is missing: build first (make, or make BUILD=...)")
    cc = shutil.which("mpicc")
    if cc is None:
        raise BenchError("mpicc not found: OpenMPI is not installed (scripts/install-deps.sh)")
    exe.parent.mkdir(parents=True, exist_ok=True)
    cmd = [cc, *TWIN_CFLAGS, *[str(REPO / s) for s in TWIN_SOURCES[name]],
           *TWIN_LIBS.get(name, []), "-lm", "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"building {name} failed:\n{done.stderr.strip()}")
    return exe


def openmpi_available() -> tuple[bool, str]:
    """Whether the OpenMPI twins can be built and started here, with the reason if not."""
    for tool in ("mpicc", "mpirun"):
        if shutil.which(tool) is None:
            return False, f"{tool} not found (OpenMPI is not installed)"
    return True, ""


def vhosts_unavailable() -> str | None:
    """Why no virtual cluster can be built here (`meshrun-vhosts check`: root, ip, unshare,
    nsenter, mpirun), or None when one can."""
    script = osu.vhosts_script()
    if not script.exists():
        return f"{script} is missing (build with make)"
    done = subprocess.run([str(script), "check"], capture_output=True, text=True)
    if done.returncode == 0:
        return None
    return (done.stdout.strip() or done.stderr.strip() or
            f"meshrun-vhosts check failed (status {done.returncode})")


def parse_value(text: str):
    """'12' -> 12, '0.5' -> 0.5, anything else stays a string."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_lines(text: str, tag: str) -> list[dict]:
    """Every `@tag key=value ...` line of @p text as a dict."""
    rows = []
    for line in text.splitlines():
        if line.startswith(f"@{tag} "):
            rows.append({k: parse_value(v) for k, v in
                         (item.split("=", 1) for item in line.split()[1:] if "=" in item)})
    return rows


def run_app(runtime: str, name: str, ranks: int, args: list[str], tag: str,
            heap_bytes: int = 64 << 20, bind: str = "none", timeout_s: float = 300,
            expect_fail: bool = False, meshrun_args: list[str] = (),
            vhosts: int = 0, hosts: str | None = None,
            hostfile: str | None = None) -> list[dict]:
    """Run app @p name (runtime "meshmem" or "openmpi") on @p ranks ranks; return its result
    lines. A failed run (or a verifier's rejection) raises BenchError with the output's tail,
    unless @p expect_fail (then the rows are returned and the exit status is in row 'rc').
    @p meshrun_args go to the launcher (meshrun, or mpirun for "openmpi") before the program;
    @p vhosts > 0 runs the job on a virtual cluster of that many hosts (meshrun --vhosts, or
    mpirun under meshrun-vhosts run: osu.command); @p hosts and @p hostfile place an OpenMPI
    twin on other machines (mpirun --host, --hostfile: osu.twin_command)."""
    exe = ensure_app(name)
    rt = osu.RUNTIMES["meshmem" if runtime == "meshmem" else "mpi"]
    opts = LaunchOptions(ranks=ranks, bind=bind, heap_bytes=heap_bytes, timeout_s=timeout_s,
                         vhosts=vhosts, hosts=hosts, hostfile=hostfile)
    cmd, env = osu.command(rt, exe, opts, [str(a) for a in args])
    if meshrun_args:
        at = cmd.index(str(exe))
        cmd = cmd[:at] + [str(a) for a in meshrun_args] + cmd[at:]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=timeout_s + 30)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{name}: no result within {timeout_s + 30:.0f} s "
                         f"({' '.join(cmd)})") from None
    rows = parse_lines(done.stdout, tag)
    if expect_fail:
        for r in rows:
            r["rc"] = done.returncode
        return rows or [{"rc": done.returncode}]
    if done.returncode != 0 or not rows:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-12:])
        raise BenchError(f"{name} on {ranks} ranks failed (exit {done.returncode}): "
                         f"{' '.join(cmd)}\n{tail}")
    return rows


def check_fabric(fabric: str, ranks: int, compute_scale: float | None) -> str:
    """The fabric file of `--fabric` (a path, or a name in fabrics/) checked for a job of
    @p ranks ranks before anything runs; returns its path. BenchError naming --fabric when it
    does not load, is too small, or @p compute_scale is negative."""
    from meshmem.model import FabricError, load_fabric, resolve_fabric_path
    if compute_scale is not None and not compute_scale >= 0:
        raise BenchError(f"--compute-scale must be a number >= 0 (got {compute_scale})")
    path = resolve_fabric_path(fabric)
    try:
        fab = load_fabric(path)
    except (FabricError, OSError, ValueError) as e:
        raise BenchError(f"--fabric {fabric}: {e}") from None
    if ranks > fab.nodes:
        raise BenchError(f"--fabric {fabric}: the job has {ranks} ranks but the fabric has "
                         f"{fab.nodes} nodes")
    return str(Path(path).resolve())


def sort_design(fabric: str, prefix: str) -> str | None:
    """The name of @p fabric's [[sort.variant]] called @p prefix or starting with "@p prefix-"
    (A11 -> A11-baseline); None when the fabric has no such design or already names one in
    its own [replay] section."""
    from meshmem.model import load_fabric
    fab = load_fabric(fabric)
    if fab.sort is None or "replay" in fab.raw:
        return None
    for v in fab.sort.variants:
        if v.name == prefix or v.name.startswith(prefix + "-"):
            return v.name
    return None


def run_on_fabric(name: str, ranks: int, args: list[str], tag: str, fabric: str,
                  compute_scale: float | None = None, sort_variant: str | None = None,
                  launcher_args=(), **launch) -> tuple[list[dict], dict]:
    """One run of meshmem app @p name under `meshrun --fabric` (the program runs for real and
    verifies its result; its trace is replayed on @p fabric): (result lines, the replay's
    prediction as meshrun --fabric-json writes it: predicted_s, phases, ...). With
    @p sort_variant (a [[sort.variant]] of the fabric), the replay runs with
    `[replay] sort_variant = NAME` set (meshrun --fabric-set): at that design's own rates
    (fabric.replay_design)."""
    with tempfile.TemporaryDirectory(prefix="meshmem-fabric-") as d:
        out = Path(d) / "prediction.json"
        extra = ["--fabric", fabric, "--fabric-json", str(out), *launcher_args]
        if sort_variant:
            extra += ["--fabric-set", f'replay.sort_variant="{sort_variant}"']
        if compute_scale is not None:
            extra += ["--compute-scale", repr(float(compute_scale))]
        rows = run_app("meshmem", name, ranks, args, tag, meshrun_args=extra, **launch)
        if not out.exists():
            raise BenchError(f"{name}: meshrun --fabric {fabric} wrote no prediction")
        return rows, json.loads(out.read_text())


cores = osu.cores  # CPUs this process may run on
