"""shmem4py (OpenSHMEM for Python, from the package registry) built against meshmem's shmem.h
with the installed package's meshcc, and its own test suite run under meshrun at 1 to 4 ranks.

The first run downloads shmem4py's source release and builds it into a venv of its own in
build/shmem4py/ (about a minute); later runs reuse it while meshmem's headers are unchanged.
shmem4py 1.0.0 needs NumPy 1.x (its code and tests predate NumPy 2), so that venv has its own
NumPy. Without the package registry the tests skip, saying so in one line.
"""
import hashlib
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

SHMEM4PY = "shmem4py==1.0.0"
BUILD_DEPS = ["numpy<2", "cffi", "setuptools", "wheel"]


def pip(python: Path, *args, timeout=600):
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_ROOT_USER_ACTION="ignore")
    return subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def headers_digest(include: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(include.glob("*.h")):
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def shmem4py(installed, build_dir) -> tuple:
    """(python with shmem4py built on meshmem, shmem4py's test directory)."""
    home = build_dir / "shmem4py"
    venv, python = home / "venv", home / "venv" / "bin" / "python"
    include = next(installed.parent.glob("lib/python3*/site-packages/meshmem/_runtime/include"))
    stamp = home / "built-with"
    digest = headers_digest(include)
    tests = next(iter(sorted(home.glob("src/shmem4py-*/test"))), None)
    if stamp.exists() and stamp.read_text() == digest and python.exists() and tests:
        return python, tests
    home.mkdir(exist_ok=True)
    if not python.exists():
        subprocess.run([str(installed / "python"), "-m", "venv", str(venv)], check=True,
                       capture_output=True)
    got = pip(python, "download", "-q", "--no-deps", "--no-binary", ":all:", "-d",
              str(home / "dist"), SHMEM4PY)
    if got.returncode != 0:
        pytest.skip(f"shmem4py cannot be fetched from the package registry: "
                    f"{(got.stderr.strip().splitlines() or ['no answer'])[-1]}")
    deps = pip(python, "install", "-q", *BUILD_DEPS)
    if deps.returncode != 0:
        pytest.skip(f"shmem4py's build requirements cannot be fetched: "
                    f"{deps.stderr.strip().splitlines()[-1]}")
    sdist = next((home / "dist").glob("shmem4py-*.tar.gz"))
    with tarfile.open(sdist) as t:
        t.extractall(home / "src", filter="data")
    src = next((home / "src").glob("shmem4py-*/"))
    env = dict(os.environ, OSHCC=f"{installed / 'meshcc'} -include shmem4py_config.h")
    built = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-build-isolation",
                            "--force-reinstall", "--no-deps", str(src)], capture_output=True,
                           text=True, timeout=900, env=env)
    assert built.returncode == 0, built.stderr[-4000:]
    stamp.write_text(digest)
    return python, src / "test"


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_shmem4py_suite(installed, launch, shmem4py, n):
    python, tests = shmem4py
    r = launch.run([str(installed / "meshrun"), "-n", str(n), "--heap", "64M", str(python),
                    "-m", "unittest", "discover", "-q", "-s", str(tests)], guard=280,
                   direct=True)
    assert r.rc == 0, (r.out + r.err)[-4000:]
    assert r.err.count("\nOK") + r.err.startswith("OK") == n, r.err[-2000:]
