"""`meshmem info`: version, machine, build, the optional parts built and left out, and with
--config every tunable."""
import platform
import subprocess
from pathlib import Path

from meshmem import __version__
from meshmem.paths import bin_path, build_dir
from meshmem.report import machine_info
from meshmem.tools import runtime_path


def add_arguments(p):
    p.add_argument("--config", action="store_true",
                   help="print every MESHMEM_* tunable with its value, default and meaning")


def read_cache(build: Path) -> dict:
    """The variables of the build tree's CMakeCache.txt (what CMake found when it configured
    the tree); {} without one."""
    values = {}
    try:
        with open(build / "CMakeCache.txt") as f:
            for line in f:
                name, sep, value = line.rstrip("\n").partition("=")
                if sep and not line.startswith(("#", "//")):
                    values[name.split(":", 1)[0]] = value
    except OSError:
        pass
    return values


def _found(cache: dict, *names: str) -> bool:
    return all(cache.get(n) and not cache[n].endswith("NOTFOUND") for n in names)


def optional_parts(build: Path, cache: dict) -> list:
    """(name, built, what it gives or why it is missing) of each part the build builds only
    when its libraries are found: UCX, PMIx, OpenMPI's twins, FFTW, OpenBLAS."""
    def plugin(name: str) -> Path:
        # the build tree's, else the installed package's (pip install .)
        lib = build / "lib" / f"libmeshmem_{name}.so"
        return lib if lib.exists() else runtime_path("lib", f"libmeshmem_{name}.so")

    apps = build / "apps" / "bin"
    ucx, pmix = plugin("ucx"), plugin("pmix")
    parts = [
        (f"UCX {cache.get('UCX_VERSION', '')}".strip(), ucx.exists(),
         f"jobs across hosts ({ucx.name})" if ucx.exists()
         else "UCX (libucx-dev) was not found: jobs run on one host only"),
        (f"PMIx {cache.get('PMIX_VERSION', '')}".strip(), pmix.exists(),
         f"programs started by mpirun, prterun or srun ({pmix.name})" if pmix.exists()
         else "PMIx (libpmix-dev) was not found: mpirun, prterun and srun cannot start programs"),
    ]
    if not cache:  # an installed package without its build tree: the apps are make's
        return parts + [(name, False, "not in the installed package (make builds it)")
                        for name in ("OpenMPI twins", "FFTW 3", "OpenBLAS")]
    def app_part(name, names, program, gives, missing):
        found = _found(cache, *names)
        built = found and (apps / program).exists()
        return (name, built, gives if built else "found, not built yet (run make)" if found
                else missing)

    fft_mpi = " and its FFTW-MPI twin" if (apps / "fft_mpi").exists() else ""
    return parts + [
        app_part("OpenMPI twins", ["MESHMEM_APPS_MPICC"], "sort_mpi",
                 f"the MPI programs of every comparison (mpicc: "
                 f"{cache.get('MESHMEM_APPS_MPICC')})",
                 "mpicc (libopenmpi-dev) was not found: no comparison with OpenMPI"),
        app_part("FFTW 3", ["MESHMEM_FFTW", "MESHMEM_FFTWF", "MESHMEM_FFTW_INCLUDE"], "fft",
                 "meshmem fft" + fft_mpi,
                 "FFTW 3 (libfftw3-dev) was not found: meshmem fft is not built"),
        app_part("OpenBLAS", ["MESHMEM_OPENBLAS", "MESHMEM_CBLAS_INCLUDE"], "gemm",
                 "meshmem gemm and meshmem conv",
                 "OpenBLAS (libopenblas-dev) was not found: meshmem gemm and conv are not built"),
    ]


def run(args) -> int:
    if args.config:
        exe = build_dir() / "tests" / "print_config"
        if not exe.exists():
            print(f"meshmem info: {exe} is missing: run `make` first")
            return 1
        return subprocess.call([str(exe)])
    print(f"meshmem {__version__}")
    m = machine_info()
    print(f"machine   {platform.machine()}, {m['nproc']} cpus ({m['cpu']}), {m['platform']}, "
          f"load average {m['loadavg'][0]:.2f}")
    cache = read_cache(build_dir())
    if cache or not runtime_path("bin", "meshrun").exists():
        print(f"build     {build_dir()}")
        for tool in ("meshrun", "meshcc"):
            path = bin_path(tool)
            print(f"{tool:<9} {path if path.exists() else 'missing (run make)'}")
    else:  # pip install . without a build tree (MESHMEM_BUILD names one)
        print(f"runtime   {runtime_path()} (the installed package's)")
    parts = optional_parts(build_dir(), cache)
    print("optional parts (built when their libraries are found; scripts/install-deps.sh "
          "installs them, then make):")
    for name, built, what in parts:
        print(f"  {name:<16} {'built' if built else 'left out':<9} {what}")
    return 0
