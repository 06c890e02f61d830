"""The Python bindings (`import meshmem`) of the installed package, run under meshrun.

rank_progs/api_check.py exercises every part of the API at each rank count; the failure cases
check that a Python rank that fails ends the job as a failing C rank does: the job's status,
within seconds, nothing left in /dev/shm.
"""
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


@pytest.mark.parametrize("n", [2, 3])
def test_uncaught_exception_ends_the_job(installed, launch, n):
    r = job(installed, launch, n, "fail.py", "raise", str(n - 1), guard=30)
    assert r.rc == 1
    assert f"RuntimeError: rank {n - 1} fails" in r.err
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
