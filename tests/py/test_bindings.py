"""The Python bindings (`import meshmem`) of the installed package, run under meshrun.

rank_progs/api_check.py exercises every part of the API at each rank count; the failure cases
check that a Python rank that fails ends the job as a failing C rank does: the job's status,
within seconds, nothing left in /dev/shm.
"""
import re
import subprocess
from pathlib import Path

import pytest

PROGS = Path(__file__).resolve().parent / "rank_progs"


def job(installed, launch, n, prog, *args, guard=120.0, via_run=False):
    """Run PROG on N ranks with the installed meshrun (or python -m meshmem.run)."""
    python = str(installed / "python")
    if via_run:
        cmd = [python, "-m", "meshmem.run", "-n", str(n), "--heap", "32M", str(PROGS / prog),
               *args]
    else:
        cmd = [str(installed / "meshrun"), "-n", str(n), "--heap", "32M", python,
               str(PROGS / prog), *args]
    return launch.run(cmd, guard=guard, direct=True)


def run_code(installed, launch, tmp_path, n, code: str):
    """@p code as a program, on @p n ranks with the installed meshrun and python."""
    prog = tmp_path / "prog.py"
    prog.write_text(code)
    return launch.run([str(installed / "meshrun"), "-n", str(n), "--heap", "32M",
                       str(installed / "python"), str(prog)], guard=60, direct=True)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8])
def test_api_check(installed, launch, n):
    r = job(installed, launch, n, "api_check.py", guard=240)
    assert r.rc == 0, r.err[-3000:]
    assert f"api_check: ok on {n} ranks" in r.out


def test_launch_with_meshmem_run(installed, launch):
    r = job(installed, launch, 3, "fail.py", "clean", via_run=True)
    assert r.rc == 0, r.err
    assert all(f"fail.py: rank {k} started" in r.out for k in range(3)), r.out


def test_meshmem_run_usage(installed):
    r = subprocess.run([str(installed / "python"), "-m", "meshmem.run", "-n", "2"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "usage: python3 -m meshmem.run" in r.stderr


def test_meshmem_run_help_shows_its_own_forms(installed):
    """--help: the .py, -m and -c forms first (it printed meshrun's help alone), then meshrun's
    options."""
    r = subprocess.run([str(installed / "python"), "-m", "meshmem.run", "--help"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(
        "usage: python3 -m meshmem.run [meshrun options] [--] prog.py [args...]\n"
        "       python3 -m meshmem.run [meshrun options] [--] -m module [args...]\n"
        "       python3 -m meshmem.run [meshrun options] [--] -c \"code\" [args...]\n"), r.stdout
    assert "\nmeshrun's options:\n  -n, --np, --ranks N  number of ranks to start\n" in r.stdout


def test_meshmem_run_across_virtual_hosts_from_the_package(installed, launch):
    """The installed package carries meshrun-vhosts beside its meshrun: `python3 -m meshmem.run
    --vhosts 2` runs (it said "meshrun-vhosts is missing next to meshrun")."""
    runtime = Path(subprocess.run([str(installed / "python"), "-c",
                                   "import meshmem.launch.tools as t; print(t.RUNTIME)"],
                                  capture_output=True, text=True, timeout=30).stdout.strip())
    script = runtime / "bin" / "meshrun-vhosts"
    assert script.exists(), f"{script} is not installed"
    why = subprocess.run([str(script), "check"], capture_output=True, text=True)
    if why.returncode:
        pytest.skip(f"no virtual cluster here: {why.stdout.strip()}")
    r = launch.run([str(installed / "python"), "-m", "meshmem.run", "--vhosts", "2", "--heap",
                    "32M", str(PROGS / "fail.py"), "clean"], guard=90, direct=True)
    assert r.rc == 0, r.err
    assert sorted(r.out.split("\n")) == ["", "fail.py: rank 0 started", "fail.py: rank 1 started"]


def test_freed_array_is_refused(installed, launch, tmp_path):
    """A put into an array meshmem.free released: an error naming the call and the array (it
    wrote into the array allocated next: b was [7, 7, 7, 7])."""
    r = run_code(installed, launch, tmp_path, 2, "import numpy as np, meshmem\n"
                 "a = meshmem.zeros(4, np.int64)\n"
                 "meshmem.free(a)\n"
                 "b = meshmem.zeros(4, np.int64)\n"
                 "try:\n"
                 "    meshmem.put(a, np.full(4, 7, np.int64), 1 - meshmem.rank())\n"
                 "except meshmem.Error as e:\n"
                 "    print(e)\n"
                 "meshmem.barrier()\n"
                 "print('b', b.tolist())\n")
    assert r.rc == 0, r.err
    assert r.out.count("meshmem.put: dest: the symmetric array (int64, shape (4,)) was released "
                       "by meshmem.free and may not be used any more\n") == 2, r.out
    assert r.out.count("b [0, 0, 0, 0]\n") == 2, r.out


def test_view_of_a_freed_array_is_refused(installed, launch, tmp_path):
    """A view made before meshmem.free stays writable (the free makes only the array it is given
    read-only): a put into it is the same error, from the fast path too, which reads the block's
    freed flag in C (it wrote into the array allocated next: b was [0, 7, 7, 0])."""
    r = run_code(installed, launch, tmp_path, 2, "import numpy as np, meshmem\n"
                 "a = meshmem.zeros(4, np.int64)\n"
                 "v = a[1:3]\n"
                 "meshmem.free(a)\n"
                 "b = meshmem.zeros(4, np.int64)\n"
                 "for dest in (v, v.reshape(2, 1)):\n"
                 "    try:\n"
                 "        meshmem.put(dest, np.full(dest.shape, 7, np.int64), 1 - meshmem.rank())\n"
                 "    except meshmem.Error as e:\n"
                 "        print(e)\n"
                 "meshmem.barrier()\n"
                 "print('b', b.tolist())\n")
    assert r.rc == 0, r.err
    for shape in ("(2,)", "(2, 1)"):
        assert r.out.count(f"meshmem.put: dest: the symmetric array (int64, shape {shape}) was "
                           "released by meshmem.free and may not be used any more\n") == 2, r.out
    assert r.out.count("b [0, 0, 0, 0]\n") == 2, r.out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_allocation_on_some_ranks_is_named_in_python_terms(installed, launch, tmp_path, n):
    """A symmetric array allocated on rank 0 alone, then meshmem.alltoall: one line naming both
    calls as Python knows them (it said "meshmem_coll_alltoall: team rank 0 sent 8 bytes where
    4 were expected", naming a C function and the collective that was right)."""
    r = run_code(installed, launch, tmp_path, n, "import numpy as np, meshmem\n"
                 "send = meshmem.zeros(meshmem.size(), np.int32)\n"
                 "recv = meshmem.zeros(meshmem.size(), np.int32)\n"
                 "if meshmem.rank() == 0:\n"
                 "    extra = meshmem.zeros(4, np.int64)\n"
                 "meshmem.alltoall(send, recv)\n"
                 "print('unnoticed')\n")
    assert r.rc == 1, r.err
    lines = [line for line in r.err.splitlines() if re.match(r"meshmem\[\d+\] error: ", line)]
    assert len(lines) == 1, r.err
    assert re.fullmatch(r"meshmem\[\d\] error: ranks are in different collectives: rank 0 is in "
                        r"meshmem\.zeros, rank \d in meshmem\.alltoall", lines[0]), r.err


def test_whole_lines_of_print(installed, launch, tmp_path):
    """4 ranks printing 200 lines each with print(): every line whole (they were cut inside,
    "rank 3 line 5rank 2 line 0")."""
    r = run_code(installed, launch, tmp_path, 4, "import meshmem\n"
                 "r = meshmem.rank()\n"
                 "for i in range(200):\n"
                 "    print(f'rank {r} line {i}')\n")
    assert r.rc == 0, r.err
    assert sorted(r.out.splitlines()) == sorted(f"rank {k} line {i}" for k in range(4)
                                                for i in range(200)), r.out


@pytest.mark.parametrize("n", [2, 3])
def test_uncaught_exception_ends_the_job(installed, launch, n):
    r = job(installed, launch, n, "fail.py", "raise", str(n - 1), guard=30)
    assert r.rc == 1
    assert f"RuntimeError: rank {n - 1} fails" in r.err
    # in the Python API's terms: the program never called shmem_init
    assert re.search(rf"^meshrun: rank {n - 1} \(pid \d+\) exited with status 1 \(after "
                     r"meshmem.init, without meshmem.finalize\): stopping the job$", r.err,
                     re.M), r.err
    assert "passed the barrier" not in r.out
    assert r.wall < 20


def test_sys_exit_status_ends_the_job(installed, launch):
    r = job(installed, launch, 3, "fail.py", "exit", "0", "7", guard=30)
    assert r.rc == 7 and "passed the barrier" not in r.out
    assert r.wall < 20


def test_exception_in_a_handler_ends_the_job(installed, launch):
    r = job(installed, launch, 2, "fail.py", "handler", "1", guard=30)
    assert r.rc == 1
    assert "an active-message handler raised" in r.err and "a handler fails" in r.err
    assert r.wall < 20


def test_clean_exit_finalizes(installed, launch):
    r = job(installed, launch, 4, "fail.py", "clean")
    assert r.rc == 0, r.err


def test_package_alone_starts_nothing(installed, launch):
    r = job(installed, launch, 2, "fail.py", "unused")
    assert r.rc == 0 and r.out.count("unused: done") == 2, r.err


def test_single_rank_without_meshrun(installed, tmp_path):
    prog = tmp_path / "solo.py"
    prog.write_text("import meshmem\nx = meshmem.zeros(3)\nmeshmem.allreduce(meshmem.IN_PLACE, x)\n"
                    "print(meshmem.rank(), meshmem.size(), x.sum())\n")
    r = subprocess.run([str(installed / "python"), str(prog)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.split() == ["0", "1", "0.0"], r.stderr


def test_names_are_the_binding_modules_all(installed, tmp_path):
    """`import meshmem` offers the names of the binding modules' __all__, listed before any
    of them is imported (the runtime not started), each the module's own object."""
    prog = tmp_path / "names.py"
    prog.write_text(
        "import sys\nimport meshmem\nlisted = set(dir(meshmem))\n"
        "assert not [m for m in sys.modules if m.startswith('meshmem.')], sorted(sys.modules)\n"
        "from meshmem import am, core, memory, rma, teams\n"
        "mods = (core, memory, rma, teams, am)\n"
        "every = [n for m in mods for n in m.__all__]\n"
        "assert len(every) == len(set(every)) and set(every) <= listed, every\n"
        "assert all(getattr(meshmem, n) is getattr(m, n) for m in mods for n in m.__all__)\n"
        "print(len(every))\n")
    r = subprocess.run([str(installed / "python"), str(prog)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.split() == ["80"], r.stderr


def test_console_scripts(installed, tmp_path):
    """meshcc and meshrun of the installed package compile and run an OpenSHMEM program."""
    src = tmp_path / "hello.c"
    src.write_text('#include <shmem.h>\n#include <stdio.h>\nint main(void) { shmem_init();\n'
                   'printf("pe %d of %d\\n", shmem_my_pe(), shmem_n_pes()); shmem_finalize(); }\n')
    cc = subprocess.run([str(installed / "meshcc"), str(src), "-o", str(tmp_path / "hello")],
                        capture_output=True, text=True, timeout=120)
    assert cc.returncode == 0, cc.stderr
    run = subprocess.run([str(installed / "meshrun"), "-n", "2", str(tmp_path / "hello")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "pe 0 of 2" in run.stdout and "pe 1 of 2" in run.stdout
    show = subprocess.run([str(installed / "meshcc"), "--showme:compile"], capture_output=True,
                          text=True, timeout=30)
    assert show.stdout.strip().endswith("_runtime/include")


def test_cli_of_installed_package(installed):
    r = subprocess.run([str(installed / "meshmem"), "model", "validate"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


def test_readme_says_which_python(installed, launch, tmp_path):
    """The README's command for a Python program runs: it names the python that has the
    package (it said `meshrun -n 4 python3 prog.py`: ModuleNotFoundError with the system's)."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    m = re.search(r"^    make python && (build/venv/bin/meshrun -n 4 build/venv/bin/python "
                  r"prog\.py)$", text, re.M)
    assert m, "README.md does not show which python runs an `import meshmem` program"
    prog = tmp_path / "prog.py"
    prog.write_text("import meshmem\nprint('rank', meshmem.rank(), 'of', meshmem.size())\n")
    cmd = m.group(1).replace("build/venv/bin/", f"{installed}/").replace("prog.py", str(prog))
    r = launch.run(cmd.split(), guard=60, direct=True)
    assert r.rc == 0, r.err
    assert sorted(r.out.splitlines()) == [f"rank {k} of 4" for k in range(4)], r.out



def test_rtl_configs_in_installed_package(installed):
    """The installed package carries the simulated engine's configurations beside the simulator
    (meshmem/_runtime/rtl-configs: meshrun --rtl NAME and the CLI look there where no checkout
    is at hand), the same files as rtl/configs."""
    sims = list(installed.parent.glob("lib/python3*/site-packages/meshmem/_runtime/bin/meshmem-rtlsim"))
    if not sims:
        pytest.skip("the simulated engine is not built here (no Verilator)")
    carried = sims[0].parent.parent / "rtl-configs"
    source = Path(__file__).resolve().parents[2] / "rtl" / "configs"
    names = sorted(f.name for f in source.glob("*.toml"))
    assert names and sorted(f.name for f in carried.glob("*.toml")) == names
    assert all((carried / n).read_bytes() == (source / n).read_bytes() for n in names)
