"""`meshmem info`: version, machine, build, and with --config every tunable."""
import platform
import subprocess

from meshmem import __version__
from meshmem.paths import bin_path, build_dir
from meshmem.report import machine_info


def add_arguments(p):
    p.add_argument("--config", action="store_true",
                   help="print every MESHMEM_* tunable with its value, default and meaning")


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
    print(f"build     {build_dir()}")
    for tool in ("meshrun", "meshcc"):
        path = bin_path(tool)
        print(f"{tool:<9} {path if path.exists() else 'missing (run make)'}")
    return 0
