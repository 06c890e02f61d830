"""The `meshmem` command: one argparse sub-parser per command, registered in COMMANDS.

Each command module exposes `add_arguments(parser)` and `run(args) -> int` (the exit status).
"""
import argparse
import importlib
import sys

# command name -> (module, one-line help)
COMMANDS = {
    "info": ("meshmem.info", "print the version, the machine and every tunable (--config)"),
    "bench": ("meshmem.bench", "OSU-style benchmarks, meshmem against OpenMPI in the same run"),
    "demo": ("meshmem.demo", "build-free demonstration of meshmem on this machine"),
    "sort": ("meshmem.sort_cli", "distributed counting sort and LSD radix sort vs OpenMPI and serial"),
    "average": ("meshmem.average_cli", "sharing averaged parameters, naive vs aggressive vs OpenMPI"),
    "fft": ("meshmem.fft_cli", "distributed 3-D FFT vs FFTW-MPI and serial FFTW"),
    "amt": ("meshmem.amt_cli", "8-byte all-to-all and message-driven kernel vs MPI"),
    "model": ("meshmem.model_cli", "fabric model: validate against the papers, predict, sweep designs"),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="meshmem", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = {}
    for name, (modname, help_text) in COMMANDS.items():
        try:
            mod = importlib.import_module(modname)
        except ImportError as e:  # a command whose module is missing must not hide the others
            print(f"meshmem: command {name} unavailable: {e}", file=sys.stderr)
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        mod.add_arguments(p)
        modules[name] = mod
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(modules[args.command].run(args) or 0)
    except KeyboardInterrupt:
        return 130
