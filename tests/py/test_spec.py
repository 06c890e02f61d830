"""OpenSHMEM 1.5 coverage: every routine of the specification is in meshmem and called by a test,
and docs/openshmem-1.5.md (the table of routines and their tests) is up to date.

The check itself is tests/spec/shmem_coverage.py (its docstring says how a routine counts as
present and as tested); here it runs on the build under test, and is shown to fail when a
routine has no test or is missing.
"""
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tests" / "spec" / "shmem_coverage.py"


def load():
    spec = importlib.util.spec_from_file_location("shmem_coverage", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_routine_present_tested_and_tabled(build_dir):
    res = subprocess.run([sys.executable, str(SCRIPT), str(build_dir)], capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_routine_without_test_or_symbol_is_reported(build_dir):
    cov = load()
    cov.BUILD = build_dir
    untested = {"section": "x", "binding": "C", "deprecated": False,
                "pattern": "shmem_int_atomic_fetch_inc", "proto": "int f(int *d, int pe);",
                "instances": [{"name": "shmem_no_such_routine"}]}
    generic = {"section": "x", "binding": "C11", "deprecated": False, "pattern": "shmem_put",
               "proto": "void shmem_put(int a, int b, int c, int d, int e, int f);",
               "instances": [{"name": "shmem_put", "TYPE": "int"}]}
    assert cov.coverage([untested, generic]) == [{}, {}]  # nobody calls either
    assert "shmem_no_such_routine" not in cov.exported(build_dir)
    # a generic call with a type outside the routine's table does not compile: missing
    bad = dict(generic, proto="void shmem_put(TYPE *dest, const TYPE *source, size_t n, int pe);",
               instances=[{"name": "shmem_put", "TYPE": "struct probe"}])
    assert cov.c11_missing([bad], build_dir) == {(0, "struct probe")}
