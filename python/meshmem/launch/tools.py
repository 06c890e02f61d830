"""The console scripts meshrun and meshcc of an installed meshmem package, and the meshrun that
`python -m meshmem.run` and `meshmem bench --python` start (launcher).

The package carries its runtime in meshmem/_runtime (lib/, include/, bin/meshrun; see
python/CMakeLists.txt). `meshrun` runs that launcher; `meshcc` is the compiler wrapper of
tools/meshcc.in with this package's include and library directories.
"""
import os
import shlex
import sys
from pathlib import Path

from meshmem.launch.paths import bin_path

RUNTIME = Path(__file__).resolve().parents[1] / "_runtime"  # meshmem/_runtime, above launch/


def runtime_path(*parts: str) -> Path:
    """A file of the installed runtime (bin/meshrun, lib/libmeshmem.so, include/...)."""
    return RUNTIME.joinpath(*parts)


def launcher() -> Path:
    """The meshrun of this package: installed (meshmem/_runtime/bin), else the build tree's."""
    installed = runtime_path("bin", "meshrun")
    return installed if installed.exists() else bin_path("meshrun")


def meshrun() -> int:
    """`meshrun ARGS`: the installed launcher, with the same arguments."""
    exe = runtime_path("bin", "meshrun")
    if not exe.exists():
        print(f"meshrun: {exe} is missing: this meshmem package was installed without its "
              f"runtime (reinstall with pip install .)", file=sys.stderr)
        return 127
    os.execv(str(exe), [str(exe), *sys.argv[1:]])
    return 127  # not reached


def meshcc_flags(link: bool) -> tuple[list, list]:
    """(compile flags, link flags) for a program using the installed runtime."""
    inc, lib = runtime_path("include"), runtime_path("lib")
    libs = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-lmeshmem", "-lpthread", "-lm"] if link else []
    return [f"-I{inc}"], libs


def meshcc() -> int:
    """`meshcc ARGS`: cc with meshmem's flags; --showme[:compile|:link] prints them."""
    args = sys.argv[1:]
    show = None
    for a in ("--showme", "-showme", "--showme:compile", "-showme:compile", "--showme:link",
              "-showme:link"):
        if a in args:
            show = a.lstrip("-")
            args = [x for x in args if x != a]
    link = not any(a in ("-c", "-E", "-S", "-M", "-MM") for a in args)
    cflags, libs = meshcc_flags(link)
    cc = shlex.split(os.environ.get("MESHCC_CC", "cc"))
    if show == "showme:compile":
        print(" ".join(cflags))
        return 0
    if show == "showme:link":
        print(" ".join(meshcc_flags(True)[1]))
        return 0
    cmd = [*cc, *cflags, *args, *libs]
    if show == "showme":
        print(" ".join(cmd))
        return 0
    os.execvp(cmd[0], cmd)
    return 127  # not reached
