"""The command-line vocabulary every `meshmem` command shares, in one place.

One name and one meaning per concept: --ranks N, --bind-to core|none, --topology
fullmesh|ghc|ghc:KXxKY, --algo, --json FILE, --plot FILE.png (--plot-dir DIR for several
plots), --fabric-set SECTION.KEY=VALUE, --vs, --rounds, --timeout. Old spellings stay accepted
as aliases, listed in each option's help.

Every user error is one line and exit status 2, found before anything runs: the parser's own
errors (Parser) and the checks here, which raise UserError naming the option and the value.
"""
from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

# file types matplotlib writes without extra packages
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


class UserError(ValueError):
    """A mistake in what the user asked for: printed as one line `meshmem COMMAND: message`."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `meshmem bench: argument --ranks: invalid int value: 'x'
    (see meshmem bench --help)`, exit status 2. Sub-command parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs keep their line breaks (examples, tables); defaults are in the
    help texts themselves, written for users."""


# a number or 2^N, then a binary unit with an optional i, then an optional B (src/util/mm_size.h)
_SIZE = re.compile(r"(?P<num>.*?)\s*(?:(?P<unit>[KMGT])I?)?B?", re.IGNORECASE)
_SHIFT = {"K": 10, "M": 20, "G": 30, "T": 40}
_INT64_MAX = (1 << 63) - 1


def _size_number(num: str, shift: int) -> int | None:
    """The value of @p num scaled by 2^@p shift, or None when @p num is not a number."""
    if num.startswith("2^") and num[2:].isdigit():
        return (1 << int(num[2:])) << shift if int(num[2:]) <= 62 else None
    try:
        return int(num, 16 if num[:2].lower() == "0x" else 10) << shift
    except ValueError:
        pass
    try:
        f = float(num)
    except ValueError:
        return None
    return int(f * (1 << shift)) if f >= 0 and f * (1 << shift) < 2.0 ** 63 else None


def parse_size(text: str, what: str = "size") -> int:
    """A size or count as users write it: '8', '4K', '4KiB', '1.5M', '2GB', '2^24', '16M' ->
    an int (binary units K, M, G, T in any case); the syntax of the runtime's mm_parse_size.
    UserError naming @p what and the value otherwise."""
    m = _SIZE.fullmatch(str(text).strip())
    value = _size_number(m["num"], _SHIFT[m["unit"].upper()] if m["unit"] else 0) if m else None
    if value is None or value < 0 or value > _INT64_MAX:
        raise UserError(f"{what} {text!r} is not a size or count (e.g. 8, 4K, 1.5M, 2^24)")
    return value


def parse_sizes(option: str, text: str) -> list[int]:
    """A comma list of sizes for @p option; UserError naming it."""
    try:
        sizes = [parse_size(t) for t in str(text).split(",") if t.strip()]
    except UserError as e:
        raise UserError(f"{option}: {e}") from None
    if not sizes:
        raise UserError(f"{option}: no size given")
    return sizes


def comma_list(text: str) -> list[str]:
    """'a, b,,c' -> ['a', 'b', 'c'], first occurrences kept in order."""
    return list(dict.fromkeys(t.strip() for t in str(text).split(",") if t.strip()))


# --vs words every command takes besides its own peers: "mpi" is OpenMPI's MPI (the twin of
# an application; bench's MPI twin), "none" no peer at all
VS_ALIASES = {"mpi": "openmpi"}


def vs_list(text: str, peers: tuple, several: bool = True, aliases: dict | None = None) -> list:
    """The peers --vs @p text names, [] for none: a comma list of @p peers (one of them when
    not @p several), a word of @p aliases standing for its peer, or none alone. The same words
    and the same error line for `meshmem bench` and the applications."""
    aliases = VS_ALIASES if aliases is None else aliases
    names = comma_list(text)
    if names == ["none"]:
        return []
    got = [n if n in peers else aliases.get(n) for n in names]
    if not got or None in got or (not several and len(got) > 1):
        words = ", ".join([*peers, *(a for a in aliases if a not in peers)])
        raise UserError(f"--vs {text}: choose from {words}"
                        f"{' (comma-separated)' if several else ''}, or none alone")
    return [p for p in peers if p in got]


def choices_list(option: str, text: str, allowed: tuple) -> list[str]:
    """The comma list @p text, every entry one of @p allowed (UserError naming @p option)."""
    got = comma_list(text)
    if not got or any(v not in allowed for v in got):
        raise UserError(f"{option} {text}: choose {', '.join(allowed[:-1])} or {allowed[-1]} "
                        "(comma-separated)")
    return got


def rank_counts(option: str, text: str | None, ranks: int) -> list[int]:
    """The rank counts of a strong-scaling list ('1,2,4,8'), or [@p ranks] when @p text is
    empty (UserError naming @p option)."""
    if not text:
        return [ranks]
    try:
        counts = [int(t) for t in comma_list(text)]
    except ValueError:
        raise UserError(f"{option} {text}: rank counts, e.g. 1,2,4,8") from None
    if not counts or min(counts) < 1:
        raise UserError(f"{option} {text}: rank counts of at least 1")
    return counts


def add_scale(p) -> None:
    """--scale LIST: strong scaling over these rank counts (instead of --ranks)."""
    p.add_argument("--scale", metavar="LIST",
                   help="strong scaling: the rank counts to run, e.g. 1,2,4,8 (instead of "
                        "--ranks)")


def at_least(option: str, value, low) -> None:
    """UserError unless @p value >= @p low."""
    if value is not None and not value >= low:
        raise UserError(f"{option} {value}: at least {low}")


# meshrun's rank limit (tools/meshrun.c, MESHRUN_MAX_RANKS): a larger --ranks is refused before
# anything is computed or started
MAX_RANKS = 4096


def rank_count(value) -> None:
    """UserError unless --ranks @p value is a count meshrun starts (1..MAX_RANKS)."""
    at_least("--ranks", value, 1)
    if value is not None and value > MAX_RANKS:
        raise UserError(f"--ranks {value}: more than the {MAX_RANKS} ranks meshrun starts")


# --------------------------------------------------------------------------------------------
# the shared options


def _bind_value(default: str | None):
    """The type of --bind-to: core or none; 'auto' (the old default's name) means the default
    (@p default, or None: chosen at run time)."""
    def value(text: str) -> str | None:
        if text == "auto":
            return default
        if text not in ("core", "none"):
            raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose core or none)")
        return text
    return value


def add_ranks(p, default: int | None = 2, what: str = "ranks (processes) to start") -> None:
    """--ranks N (-n N)."""
    dflt = f" (default {default})" if default is not None else ""
    p.add_argument("--ranks", "-n", type=int, default=default, metavar="N", help=what + dflt)


def add_bind_to(p, default: str | None = "core", default_text: str | None = None) -> None:
    """--bind-to core|none (alias --bind): the same pinning for meshmem and its peer; a default
    of None is chosen at run time and described by @p default_text."""
    default_text = default_text or default
    p.add_argument("--bind-to", "--bind", dest="bind_to", type=_bind_value(default),
                   default=default, metavar="core|none",
                   help=f"pin rank r to the r-th CPU, round-robin when ranks outnumber CPUs, "
                        f"for meshmem and OpenMPI alike; none lets the scheduler place them "
                        f"(default {default_text}; --bind is the old name)")


def add_rounds(p, default: int) -> None:
    """--rounds N."""
    p.add_argument("--rounds", type=int, default=default, metavar="N",
                   help=f"meshmem and its peer run alternately N times each; medians are "
                        f"reported (default {default})")


def add_rtl(p) -> None:
    """--rtl CONFIG: the ranks as nodes of the simulated OPTWEB engine (meshrun --rtl)."""
    p.add_argument("--rtl", metavar="CONFIG",
                   help="run meshmem on the simulated OPTWEB engine (meshrun --rtl: each rank a "
                        "node, every peer through the engine; docs/rtl-transport.md): a "
                        "configuration of rtl/configs (optweb-fc8-45g, ...) or a file of their "
                        "form. Times are simulated, the same on every run; OpenMPI does not run "
                        "on simulated hardware")


def rtl_config(config: str | None, placement: dict) -> str | None:
    """The configuration file of --rtl @p config checked before anything runs (None without
    --rtl): a file, or a name of rtl/configs; the simulator built beside meshrun; no other
    placement (@p placement: option -> value, e.g. {"--hosts": None}). UserError, one line."""
    if config is None:
        return None
    from meshmem.launch.paths import bin_path, rtl_configs_dir
    configs = rtl_configs_dir()
    path = Path(config)
    if not path.is_file():
        path = configs / (config if config.endswith(".toml") else config + ".toml")
        if "/" in config or not path.is_file():
            names = ", ".join(sorted(f.stem for f in configs.glob("*.toml"))) or "none here"
            raise UserError(f"--rtl {config}: neither a file nor a configuration of {configs} "
                            f"({names})")
    sim = bin_path("meshmem-rtlsim")
    if not sim.exists():
        raise UserError(f"--rtl {config}: the simulator is not built (no {sim}: meshmem was "
                        "built without Verilator; scripts/install-deps.sh installs it, then make)")
    for option, value in placement.items():
        if value:
            raise UserError(f"--rtl {config} with {option} {value}: the simulated engine runs "
                            f"on this machine, every rank a node of it; leave out {option}")
    return str(path.resolve())


def add_timeout(p, default: float = 300) -> None:
    """--timeout SEC."""
    p.add_argument("--timeout", type=float, default=default, metavar="SEC",
                   help=f"stop a run that takes longer than SEC seconds (default {default:g})")


def add_json(p) -> None:
    """--json FILE."""
    p.add_argument("--json", metavar="FILE",
                   help="also write every result, the machine and the settings as JSON")


def add_plot(p, what: str) -> None:
    """--plot FILE.png."""
    p.add_argument("--plot", metavar="FILE.png",
                   help=f"also draw {what} (PNG; .pdf and .svg work too)")


def add_fabric_set(p, what: str) -> None:
    """--fabric-set SECTION.KEY=VALUE (alias --set), repeatable."""
    p.add_argument("--fabric-set", "--set", dest="fabric_set", action="append", default=[],
                   metavar="SECTION.KEY=VALUE",
                   help=f"replace one value of the fabric file {what}, e.g. "
                        f"link.bandwidth_gbps=90 (repeatable; --set is the old name)")


def add_algo(p, choices: str, default: str, what: str, aliases: tuple = ()) -> None:
    """--algo NAME[,NAME...] (alias --algorithm, and @p aliases where a command had others)."""
    old = ", ".join(("--algorithm",) + tuple(a for a in aliases if a.startswith("--")))
    p.add_argument("--algo", "--algorithm", *aliases, dest="algo", default=default,
                   metavar="NAME",
                   help=f"{what}: {choices} (default {default}; {old}: old names)")


def defaults(add_arguments, **overrides) -> argparse.Namespace:
    """The settings a command has when given no option (its parser's defaults), with
    @p overrides: how one command runs another's measurement (the demo runs sort and average)."""
    p = Parser()
    add_arguments(p)
    args = p.parse_args([])
    for k, v in overrides.items():
        if not hasattr(args, k):
            raise AttributeError(f"no setting {k!r}")
        setattr(args, k, v)
    return args


# --------------------------------------------------------------------------------------------
# checks made before anything runs


def _can_create_in(directory: Path) -> bool:
    """Whether a file can be made in @p directory, tried (permission bits do not tell for root,
    nor for /proc and read-only mounts)."""
    import tempfile
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".meshmem-check-"):
            return True
    except OSError:
        return False


def check_output_file(option: str, path: str | None, suffixes: tuple = ()) -> None:
    """UserError unless @p path can be written: its directory exists and is writable, it is not
    a directory, and (for a plot) its suffix is one of @p suffixes."""
    if not path:
        return
    p = Path(path)
    if suffixes and p.suffix.lower() not in suffixes:
        raise UserError(f"{option} {path}: the file name must end in "
                        f"{' or '.join(suffixes)}")
    if p.is_dir():
        raise UserError(f"{option} {path}: is a directory, a file name is needed")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(f"{option} {path}: directory {parent} does not exist")
    if (p.exists() and not os.access(p, os.W_OK)) or not _can_create_in(parent):
        raise UserError(f"{option} {path}: not writable")


def check_output_dir(option: str, path: str | None) -> None:
    """UserError unless @p path is a writable directory or one that can be made (its nearest
    existing ancestor is a writable directory)."""
    if not path:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UserError(f"{option} {path}: is a file, a directory is needed")
    ancestor = p
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir() or not _can_create_in(ancestor):
        raise UserError(f"{option} {path}: cannot write into {ancestor}")


def check_outputs(args) -> None:
    """The output options a command has (--json, --plot, --plot-dir), checked."""
    check_output_file("--json", getattr(args, "json", None))
    check_output_file("--plot", getattr(args, "plot", None), PLOT_SUFFIXES)
    check_output_dir("--plot-dir", getattr(args, "plot_dir", None))


_GHC = re.compile(r"^ghc:(\d+)[xX](\d+)$")
TOPOLOGY_ALIASES = {"full": "fullmesh", "both": "fullmesh,ghc"}


def parse_topology(text: str, ranks: int) -> tuple[str, tuple[int, int] | None]:
    """One --topology value for a job of @p ranks ranks: ('fullmesh', None), ('ghc', None)
    (the most square grid) or ('ghc:KXxKY', (KX, KY)); UserError when malformed or when
    KX * KY is not @p ranks."""
    t = TOPOLOGY_ALIASES.get(text, text)
    if t in ("fullmesh", "ghc"):
        return t, None
    m = _GHC.match(t)
    if not m:
        raise UserError(f"--topology {text}: expected fullmesh, ghc:KXxKY (e.g. ghc:4x2) or "
                        f"ghc (the most square grid)")
    kx, ky = int(m.group(1)), int(m.group(2))
    if kx < 1 or ky < 1 or kx * ky != ranks:
        raise UserError(f"--topology {t}: {kx} x {ky} = {kx * ky} ranks, but --ranks is {ranks}")
    return f"ghc:{kx}x{ky}", (kx, ky)


def parse_topologies(text: str, ranks: int) -> list[str]:
    """A comma list of --topology values ('both' and 'full' as their aliases), checked."""
    out = []
    for item in comma_list(text):
        for t in comma_list(TOPOLOGY_ALIASES.get(item, item)):
            name, _ = parse_topology(t, ranks)
            if name not in out:
                out.append(name)
    if not out:
        raise UserError("--topology: no topology given")
    return out


def most_square(ranks: int) -> tuple[int, int]:
    """The most square KX x KY = @p ranks with KX >= KY: KY the largest divisor at most
    sqrt(ranks), as the runtime's ghc and the apps' grids (src/util/mm_grid.h)."""
    ky = max(d for d in range(1, math.isqrt(ranks) + 1) if ranks % d == 0)
    return ranks // ky, ky
