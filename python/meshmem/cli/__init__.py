"""The `meshmem` command: one argparse sub-parser per command, registered in COMMANDS.

Each command module exposes `add_arguments(parser)` and `run(args) -> int` (the exit status),
itself or as COMMAND (the application commands: an AppCommand of meshmem.cli.apps.command).
A user error is one line `meshmem COMMAND: message` and exit status 2: the parser's own errors
(options.Parser) and every UserError a command raises; a file that cannot be written is one
line and status 1.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from meshmem import __version__
from meshmem.cli.options import HelpFormatter, Parser, UserError

DESCRIPTION = """\
meshmem: benchmarks, case studies and a fabric model for the meshmem communication runtime.

Every measurement runs meshmem and the same program on OpenMPI alternately, in the same run on
the same machine, and reports the speed-up (OpenMPI time / meshmem time: above 1, meshmem is
faster), with JSON (--json FILE) and plots (--plot FILE.png) on request. Programs of your own
are built with meshcc and started with meshrun (see their --help)."""

EPILOG = """\
examples:
  meshmem info --config                        every tunable and its value here
  meshmem bench put get pingpong --ranks 2     OSU-style latency against OpenMPI
  meshmem bench coll --ranks 8 --plot c.png    every collective against MPI_*
  meshmem sort --records 2^24 --variant a1     the OPTWEB single-pass sort
  meshmem demo                                 the case studies, verified, with plots
  meshmem COMMAND --help                       a command's options"""

# command name -> (module, one-line help)
COMMANDS = {
    "info": ("meshmem.cli.info", "the version, this machine, and with --config every tunable"),
    "bench": ("meshmem.bench.osu", "OSU-style benchmarks: meshmem against OpenMPI in the same run"),
    "sort": ("meshmem.cli.apps.sort", "distributed counting and radix sorts against OpenMPI and a "
                                 "serial sort"),
    "average": ("meshmem.cli.apps.average", "sharing averaged parameters (naive, aggressive) against "
                                       "MPI_Allreduce"),
    "fft": ("meshmem.cli.apps.fft", "the distributed 3-D FFT of DataVortex against FFTW-MPI and serial "
                               "FFTW"),
    "amt": ("meshmem.cli.apps.amt", "8-byte all-to-all and a message-driven kernel (DataVortex) "
                               "against MPI"),
    "shallow": ("meshmem.cli.apps.shallow", "the shallow-water simulation of ACCL, buffered and "
                                       "streaming halo exchange, against MPI"),
    "gemm": ("meshmem.cli.apps.gemm", "FSHMEM's distributed GEMM (streamed row blocks, SUMMA) against "
                                 "MPI and one rank"),
    "conv": ("meshmem.cli.apps.conv", "FSHMEM's distributed convolution (kernel groups, output blocks "
                                 "streamed to every rank) against MPI and one rank"),
    "demo": ("meshmem.cli.demo", "the OPTWEB case studies on this machine, verified, with plots"),
    "model": ("meshmem.cli.model", "the fabric model: validate it against the papers, predict, "
                                   "sweep designs, replay a traced run"),
    "rtl": ("meshmem.cli.rtl", "the OPTWEB engine in SystemVerilog, simulated: validate its cycles "
                           "against the papers, its simulation speed"),
}


def build_parser() -> tuple[Parser, dict]:
    """The parser of every command, and what runs each (its module, or its COMMAND)."""
    parser = Parser(prog="meshmem", description=DESCRIPTION, epilog=EPILOG,
                    formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"meshmem {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    runners = {}
    for name, (modname, help_text) in COMMANDS.items():
        try:
            mod = importlib.import_module(modname)
        except ImportError as e:  # a command whose module is missing must not hide the others
            print(f"meshmem: command {name} unavailable: {e}", file=sys.stderr)
            continue
        p = sub.add_parser(name, help=help_text, description=help_text,
                           formatter_class=HelpFormatter)
        command = getattr(mod, "COMMAND", mod)
        command.add_arguments(p)
        runners[name] = command
    return parser, runners


def parser_of(parser: Parser, argv: list, end: int) -> Parser:
    """The (sub-)command parser that the words argv[:end] lead to ("meshmem model validate")."""
    for word in argv[:end]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs and word in subs[0].choices:
            parser = subs[0].choices[word]
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser, runners = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # the command's own parser names it: "meshmem bench: unrecognized arguments"
        first = next((i for i, a in enumerate(argv) if a == extra[0]), len(argv))
        parser_of(parser, argv, first).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        print("meshmem: no command given: name one of the commands above (meshmem COMMAND "
              "--help shows its options)", file=sys.stderr)
        return 2
    try:
        return int(runners[args.command].run(args) or 0)
    except UserError as e:
        print(f"meshmem {args.command}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:  # a file that cannot be written after all (disk full, ...)
        print(f"meshmem {args.command}: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
