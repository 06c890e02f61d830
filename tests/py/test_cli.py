"""The `meshmem` tool as a user meets it: every user error one line and a non-zero exit,
checked before anything runs; one vocabulary across commands; help written for users.

These run the tool as a user would (build/bin/meshmem, a separate process), except where a
test needs to look inside (then through meshmem.cli.main).
"""
import os
import subprocess

import pytest


def meshmem(build_dir, *args, env=None, timeout=120):
    """Run build/bin/meshmem ARGS; return the completed process (text output)."""
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([str(build_dir / "bin" / "meshmem"), *args], capture_output=True,
                          text=True, env=full, timeout=timeout)


@pytest.mark.parametrize("var", ["SHMEM_SYMMETRIC_SIZE", "MESHMEM_HEAP_SIZE"])
def test_info_config_shows_the_heap_in_force(build_dir, var):
    """SHMEM_SYMMETRIC_SIZE sets the heap (and wins over MESHMEM_HEAP_SIZE): the table must
    show the value the runtime uses, not the default."""
    env = {"SHMEM_SYMMETRIC_SIZE": "", "MESHMEM_HEAP_SIZE": ""}
    env[var] = "1G"
    if var == "SHMEM_SYMMETRIC_SIZE":
        env["MESHMEM_HEAP_SIZE"] = "32M"
    res = meshmem(build_dir, "info", "--config", env=env)
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if line.startswith("MESHMEM_HEAP_SIZE"))
    assert row.split()[1:3] == ["1G", "256M"], row
    if var == "SHMEM_SYMMETRIC_SIZE":
        assert "(from SHMEM_SYMMETRIC_SIZE)" in row, row


# ---- every user error is one line and a non-zero exit, found before anything runs ----

BAD_OUTPUTS = [
    ("bench", "put", "--json", "/nonexistent/dir/r.json"),
    ("bench", "put", "--plot", "/tmp"),
    ("bench", "put", "--plot", "/tmp/r.txt"),
    ("sort", "--json", "/nonexistent/s.json"),
    ("sort", "--plot", "/nonexistent/s.png"),
    ("average", "--plot", "/proc/a.png"),
    ("demo", "--plot-dir", "/etc/passwd"),
    ("model", "validate", "--json", "/nonexistent/v.json"),
    ("model", "sweep", "--plot-dir", "/etc/passwd"),
]


@pytest.mark.parametrize("args", BAD_OUTPUTS, ids=lambda a: "-".join(a[:3]))
def test_bad_output_path_is_one_line_before_running(build_dir, args):
    """A path that cannot be written ended a finished run in a traceback: it is checked first."""
    res = meshmem(build_dir, *args, timeout=60)
    assert res.returncode == 2, res
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"meshmem {args[0]}: "), res.stderr
    assert args[-1] in lines[0], res.stderr
    assert res.stdout == "", res.stdout  # nothing ran


@pytest.mark.parametrize("args", [
    ("bench", "put", "--ranks", "two"),
    ("bench", "nosuchop"),
    ("bench",),
    ("bench", "put", "--python"),
    ("bench", "--python", "--ranks", "1"),
    ("bench", "allreduce", "--algo", "bogus"),
    ("bench", "alltoall", "--topology", "torus"),
    ("sort", "--variant", "quick"),
    ("sort", "--records", "lots"),
    ("sort", "--vs", "mpich"),
    ("average", "--sizes", "1K,big"),
    ("average", "--topology", "ghc:3x3"),
    ("demo", "--frobnicate"),
    ("model", "predict", "--fabric", "nosuchfabric", "--op", "alltoall", "--bytes", "8"),
    ("model",),
    ("nosuchcommand",),
], ids=lambda a: "-".join(a[:3]))
def test_user_errors_are_one_line(build_dir, args):
    res = meshmem(build_dir, *args, timeout=60)
    assert res.returncode == 2, res
    assert len(res.stderr.splitlines()) == 1, res.stderr
    assert res.stderr.startswith("meshmem"), res.stderr
    assert "Traceback" not in res.stderr


def test_progress_is_one_line_per_sweep_in_a_log(build_dir):
    """On a terminal the sweep redraws a bar; into a pipe or a file it writes one line per
    swept parameter, no carriage returns (a log filled with frames)."""
    res = meshmem(build_dir, "model", "sweep", "--param", "degree", "--param", "nodes")
    assert res.returncode == 0, res.stderr
    assert "\r" not in res.stderr, repr(res.stderr[:200])
    lines = res.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("sweep degree: ") and \
        lines[1].startswith("sweep nodes: "), res.stderr


def test_progress_bar_on_a_terminal(build_dir):
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(str(build_dir / "bin" / "meshmem"),
                 [str(build_dir / "bin" / "meshmem"), "model", "sweep", "--param", "nodes"])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    assert b"\rnodes      [" in out and b"100%" in out, out[:300]


# ---- one vocabulary: canonical names, old spellings accepted ----

@pytest.fixture(scope="module")
def parse():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    from meshmem.cli import build_parser
    parser, _ = build_parser()
    return parser.parse_args


@pytest.mark.parametrize("old,new,dest,value", [
    (["bench", "put", "--bind", "none"], ["bench", "put", "--bind-to", "none"], "bind_to", "none"),
    (["bench", "put", "--bind", "auto"], ["bench", "put", "--bind-to", "core"], "bind_to", "core"),
    (["sort", "--bind", "core"], ["sort", "--bind-to", "core"], "bind_to", "core"),
    (["average", "--bind", "none"], ["average", "--bind-to", "none"], "bind_to", "none"),
    (["bench", "allreduce", "--algorithm", "ring"], ["bench", "allreduce", "--algo", "ring"],
     "algo", "ring"),
    (["average", "--variant", "naive"], ["average", "--algo", "naive"], "algo", "naive"),
    (["average", "--bytes", "1K"], ["average", "--sizes", "1K"], "sizes", "1K"),
    (["sort", "--K", "64"], ["sort", "--key-types", "64"], "key_types", 64),
    (["demo", "--out", "d"], ["demo", "--plot-dir", "d"], "plot_dir", "d"),
    (["model", "predict", "--fabric", "f", "--op", "put", "--bytes", "8", "--set", "a.b=1"],
     ["model", "predict", "--fabric", "f", "--op", "put", "--bytes", "8", "--fabric-set",
      "a.b=1"], "fabric_set", ["a.b=1"]),
    (["model", "predict", "--fabric", "f", "--op", "put", "--bytes", "8", "--algorithm", "x"],
     ["model", "predict", "--fabric", "f", "--op", "put", "--bytes", "8", "--algo", "x"],
     "algo", "x"),
    (["model", "sweep", "--plot", "d"], ["model", "sweep", "--plot-dir", "d"], "plot_dir", "d"),
])
def test_old_spellings_are_aliases(parse, old, new, dest, value):
    assert getattr(parse(old), dest) == getattr(parse(new), dest) == value


def test_topology_lists_and_old_names():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    from meshmem.options import UserError, parse_topologies
    assert parse_topologies("both", 8) == ["fullmesh", "ghc"]
    assert parse_topologies("full,ghc:4x2", 8) == ["fullmesh", "ghc:4x2"]
    with pytest.raises(UserError, match="4 x 2 = 8 ranks, but --ranks is 4"):
        parse_topologies("ghc:4x2", 4)


def test_every_option_has_help_for_users(parse):
    """Every command and option explains itself; papers are cited by name, not by seed file."""
    import argparse
    from meshmem.cli import build_parser
    parser, _ = build_parser()
    todo = [parser]
    seen = 0
    while todo:
        p = todo.pop()
        text = p.format_help()
        assert "seed 0" not in text and "seeds 0" not in text, p.prog
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += list(action.choices.values())
                continue
            assert action.help and action.help != argparse.SUPPRESS, (p.prog, action.dest)
            seen += 1
    assert seen > 80
    top = parser.format_help()
    assert "{info," not in top and "OpenMPI" in top


def test_install_deps_installs_nothing_when_told(tmp_path):
    """make test / make demo run scripts/install-deps.sh, which installs with apt-get and pip;
    MESHMEM_NO_INSTALL=1 only says what is missing."""
    import shutil
    from pathlib import Path
    script = Path(__file__).resolve().parents[2] / "scripts" / "install-deps.sh"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("id",):  # a machine with nothing else on its PATH
        (bindir / tool).symlink_to(shutil.which(tool))
    marker = tmp_path / "installed"
    for tool in ("apt-get", "sudo", "pip", "python3"):  # would record any install
        (bindir / tool).write_text(f"#!/bin/sh\necho {tool} \"$@\" >> {marker}\nexit 1\n")
        (bindir / tool).chmod(0o755)
    env = {"PATH": str(bindir), "MESHMEM_NO_INSTALL": "1"}
    res = subprocess.run([shutil.which("bash"), str(script)], capture_output=True, text=True,
                         env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "not installing the Debian packages" in res.stdout and "cmake" in res.stdout
    assert "not installing the Python packages" in res.stdout
    calls = marker.read_text() if marker.exists() else ""
    assert "apt-get" not in calls and "install" not in calls, calls


def test_readme_configuration_table_matches_info_config(build_dir):
    """README.md's table of tunables lists what `meshmem info --config` prints, defaults
    included, and nothing else."""
    import re
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = dict(re.findall(r"^\| `(MESHMEM_\w+)` \| (\S+) \|", section, re.M))
    res = meshmem(build_dir, "info", "--config",
                  env={"SHMEM_SYMMETRIC_SIZE": "", **{k: "" for k in documented}})
    assert res.returncode == 0, res.stderr
    printed = {line.split()[0]: line.split()[2] for line in res.stdout.splitlines()[1:]}
    assert documented == printed


# ---- the tool alone, unknown options, counts, what was built --------------------------------


def test_no_command_says_why(build_dir):
    """`meshmem` alone: the help, then why it exits 2 (it exited 2 saying nothing)."""
    res = meshmem(build_dir)
    assert res.returncode == 2 and res.stdout == "", res
    assert res.stderr.startswith("usage: meshmem"), res.stderr
    assert res.stderr.endswith("\nmeshmem: no command given: name one of the commands above "
                               "(meshmem COMMAND --help shows its options)\n"), res.stderr


@pytest.mark.parametrize("args,says", [
    (("bench", "put", "--frob"), "meshmem bench: unrecognized arguments: --frob (see meshmem "
                                 "bench --help)"),
    (("model", "validate", "--frob", "1"), "meshmem model validate: unrecognized arguments: "
                                           "--frob 1 (see meshmem model validate --help)"),
    (("--frob", "info"), "meshmem: unrecognized arguments: --frob (see meshmem --help)"),
])
def test_unknown_option_names_its_command(build_dir, args, says):
    """An option a command does not know is named with the command (it said `meshmem:`)."""
    res = meshmem(build_dir, *args)
    assert res.returncode == 2 and res.stderr == says + "\n", res.stderr


def test_one_round_is_singular(built):
    res = meshmem(built, "sort", "--ranks", "2", "--records", "1000", "--rounds", "1", "--vs",
                  "none")
    assert res.returncode == 0, res.stderr
    assert "  sort a1: 1 round done\n" in res.stderr, res.stderr  # "1 rounds done"


PARTS = ["UCX", "PMIx", "OpenMPI twins", "FFTW 3", "OpenBLAS"]


def info_parts(res) -> dict:
    """name -> (state, what) of `meshmem info`'s optional parts."""
    head = "optional parts (built when their libraries are found; scripts/install-deps.sh " \
           "installs them, then make):\n"
    assert res.returncode == 0 and head in res.stdout, res.stdout
    rows = res.stdout.split(head, 1)[1].splitlines()
    return {row[2:19].strip(): (row[19:28].strip(), row[29:]) for row in rows}


def test_info_says_which_optional_parts_were_built(build_dir):
    parts = info_parts(meshmem(build_dir, "info", env={"MESHMEM_BUILD": str(build_dir)}))
    names = [n.split(" ")[0] if n.startswith(("UCX", "PMIx")) else n for n in parts]
    assert names == PARTS, parts
    artifacts = [build_dir / "lib" / "libmeshmem_ucx.so", build_dir / "lib" / "libmeshmem_pmix.so",
                 build_dir / "apps" / "bin" / "sort_mpi", build_dir / "apps" / "bin" / "fft",
                 build_dir / "apps" / "bin" / "gemm"]
    for (name, (state, what)), path in zip(parts.items(), artifacts):
        assert state == ("built" if path.exists() else "left out"), (name, state, what)


def test_info_says_what_was_left_out(build_dir, tmp_path):
    """A tree configured without the optional libraries: each part says what was missing."""
    (tmp_path / "CMakeCache.txt").write_text(
        "MESHMEM_APPS_MPICC:FILEPATH=MESHMEM_APPS_MPICC-NOTFOUND\n"
        "MESHMEM_FFTW:FILEPATH=MESHMEM_FFTW-NOTFOUND\n"
        "MESHMEM_OPENBLAS:FILEPATH=MESHMEM_OPENBLAS-NOTFOUND\n")
    parts = info_parts(meshmem(build_dir, "info", env={"MESHMEM_BUILD": str(tmp_path)}))
    assert parts == {
        "UCX": ("left out", "UCX (libucx-dev) was not found: jobs run on one host only"),
        "PMIx": ("left out", "PMIx (libpmix-dev) was not found: mpirun, prterun and srun cannot "
                             "start programs"),
        "OpenMPI twins": ("left out", "mpicc (libopenmpi-dev) was not found: no comparison with "
                                      "OpenMPI"),
        "FFTW 3": ("left out", "FFTW 3 (libfftw3-dev) was not found: meshmem fft is not built"),
        "OpenBLAS": ("left out", "OpenBLAS (libopenblas-dev) was not found: meshmem gemm and "
                                 "conv are not built")}, parts


@pytest.mark.parametrize("args", [("sort", "--ranks", "5000"), ("bench", "put", "--ranks", "5000"),
                                  ("demo", "--ranks", "4097")])
def test_more_ranks_than_meshrun_starts_is_refused_first(build_dir, args):
    """--ranks above meshrun's limit is one line before anything runs (the sort computed a heap
    for 5000 ranks, then meshrun refused them)."""
    res = meshmem(build_dir, *args)
    assert res.returncode == 2 and res.stdout == "", res
    assert res.stderr == (f"meshmem {args[0]}: --ranks {args[-1]}: more than the 4096 ranks "
                          f"meshrun starts\n"), res.stderr
