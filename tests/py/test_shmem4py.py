"""shmem4py (OpenSHMEM for Python, from the package registry) built against meshmem's shmem.h
with the installed package's meshcc, and its own test suite run under meshrun at 1 to 4 ranks.

scripts/install-deps.sh downloads shmem4py's source release and its build requirements
(shmem4py-requirements.txt) into a wheelhouse; the first run here builds it from there, without
the network, into a venv of its own in build/shmem4py/ (half a minute); later runs reuse it while
meshmem's headers are unchanged. Without the wheelhouse the tests skip, saying so in one line.
"""
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

REQUIREMENTS = Path(__file__).with_name("shmem4py-requirements.txt")
# where scripts/install-deps.sh puts them
WHEELHOUSE = Path(os.environ.get("MESHMEM_CACHE") or
                  Path(os.environ.get("XDG_CACHE_HOME") or
                       Path(os.environ.get("HOME") or "/tmp") / ".cache") / "meshmem"
                  ) / "shmem4py"


def requirements() -> tuple[str, list[str]]:
    """(shmem4py's requirement, the others) from shmem4py-requirements.txt."""
    reqs = [line.strip() for line in REQUIREMENTS.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "-"))]
    return next(r for r in reqs if r.startswith("shmem4py")), \
        [r for r in reqs if not r.startswith("shmem4py")]


def pip(python: Path, *args, env=None):
    env = dict(env or os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_ROOT_USER_ACTION="ignore")
    r = subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode == 0, f"pip {' '.join(args)}:\n{r.stderr[-4000:]}"


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
    shmem4py_req, others = requirements()
    version = shmem4py_req.split("==")[1]
    sdist = WHEELHOUSE / f"shmem4py-{version}.tar.gz"
    if not (WHEELHOUSE / "complete").exists() or not sdist.exists():
        pytest.skip(f"{shmem4py_req} is not in {WHEELHOUSE}: scripts/install-deps.sh downloads "
                    f"it from the package registry, which it could not reach")
    home.mkdir(exist_ok=True)
    if not python.exists():
        subprocess.run([str(installed / "python"), "-m", "venv", str(venv)], check=True,
                       capture_output=True)
    offline = ["--no-index", "--find-links", str(WHEELHOUSE)]
    pip(python, "install", "-q", *offline, *others)
    # a fresh tree: setuptools builds in it and would keep an object built on older headers
    shutil.rmtree(home / "src", ignore_errors=True)
    with tarfile.open(sdist) as t:
        t.extractall(home / "src", filter="data")
    src = home / "src" / f"shmem4py-{version}"
    # -O0: the suite tests the bindings, not their speed, and its cffi module compiles in a
    # third of the time it takes at the interpreter's -O3
    env = dict(os.environ, OSHCC=f"{installed / 'meshcc'} -include shmem4py_config.h",
               CFLAGS="-O0 -g0")
    pip(python, "install", "-q", *offline, "--no-build-isolation", "--force-reinstall",
        "--no-deps", str(src), env=env)
    stamp.write_text(digest)
    return python, src / "test"


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_shmem4py_suite(installed, launch, shmem4py, n):
    python, tests = shmem4py
    r = launch.run([str(installed / "meshrun"), "-n", str(n), "--heap", "64M", "--tag-output",
                    str(python), "-m", "unittest", "discover", "-q", "-s", str(tests)],
                   guard=280, direct=True)
    assert r.rc == 0, (r.out + r.err)[-4000:]
    # unittest's verdict, one per rank (whole lines, each tagged with its rank)
    for rank in range(n):
        assert re.search(rf"^\[{rank}\] OK( \(skipped=\d+\))?$", r.err, re.M), r.err[-2000:]
