"""Launch a Python program on N ranks: `python3 -m meshmem.run -n 4 prog.py [args]`.

    python3 -m meshmem.run [meshrun options] [--] prog.py [args...]
    python3 -m meshmem.run [meshrun options] [--] -m module [args...]
    python3 -m meshmem.run [meshrun options] [--] -c "code" [args...]

The same as `meshrun [options] python3 prog.py`, with this interpreter (sys.executable) and
this package's meshrun. Every meshrun option takes a value (-n 4, --heap 64M, ...): the first
word that is neither an option nor its value, or what follows --, is the program.
"""
import os
import subprocess
import sys
from pathlib import Path


def launcher() -> Path:
    """The meshrun of this package: installed (meshmem/_runtime/bin), else the build tree's."""
    from meshmem.paths import bin_path
    from meshmem.tools import runtime_path
    installed = runtime_path("bin", "meshrun")
    return installed if installed.exists() else bin_path("meshrun")


def split_command(argv: list) -> tuple:
    """(meshrun options, python arguments) of the command line @p argv."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return argv[:i], argv[i + 1:]
        if a in ("-m", "-c") or not a.startswith("-"):
            return argv[:i], argv[i:]
        i += 1 if (a in ("-h", "--help") or "=" in a) else 2
    return argv, []


USAGE = """\
usage: python3 -m meshmem.run [meshrun options] [--] prog.py [args...]
       python3 -m meshmem.run [meshrun options] [--] -m module [args...]
       python3 -m meshmem.run [meshrun options] [--] -c "code" [args...]"""


def print_help(exe: Path) -> None:
    """This command's forms, then meshrun's options (from its own --help)."""
    print(f"{USAGE}\nRuns a Python program on N ranks: `meshrun [options] PYTHON ...` with this "
          f"interpreter\n({sys.executable}) and this package's meshrun ({exe}).\n")
    text = subprocess.run([str(exe), "--help"], capture_output=True, text=True).stdout
    start = text.find("\n  -n")
    print("meshrun's options:" + (text[start:] if start >= 0 else "\n" + text), end="")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    options, program = split_command(argv)
    asks_help = any(a in ("-h", "--help") for a in options)
    if not program and not asks_help:
        print(USAGE, file=sys.stderr)
        return 2
    exe = launcher()
    if not exe.exists():
        print(f"meshmem.run: no meshrun ({exe}): install the package (pip install .) or build "
              f"(make)", file=sys.stderr)
        return 127
    if asks_help:
        print_help(exe)
        return 0
    cmd = [str(exe), *options, "--", sys.executable, *program]
    os.execv(str(exe), cmd)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
