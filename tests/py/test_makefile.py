"""The top-level Makefile: a build tree configured before scripts/install-deps.sh installed
packages is configured again, so that what CMake did not find then (OpenMPI's twins, OpenBLAS,
FFTW, UCX, PMIx) is built by the next `make` (they were silently left out until `make clean`)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned(build: Path, stamp: Path) -> str:
    """What `make build` would run for the tree @p build with the stamp @p stamp (dry run)."""
    done = subprocess.run(["make", "-n", "-C", str(REPO), "build", f"BUILD={build}",
                           f"DEPS_STAMP={stamp}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_configured_again_after_an_install(tmp_path):
    build, stamp = tmp_path / "build", tmp_path / "deps" / "installed"
    build.mkdir()
    (build / "build.ninja").touch()
    # no stamp yet (a tree from before it existed): it is made, and the tree configured once
    assert "cmake -S" in planned(build, stamp)
    stamp.parent.mkdir()
    stamp.touch()
    os.utime(stamp, (1_000_000, 1_000_000))
    assert "cmake -S" not in planned(build, stamp)  # configured after the last install
    os.utime(stamp, None)
    os.utime(build / "build.ninja", (1_000_000, 1_000_000))
    assert "cmake -S" in planned(build, stamp)      # packages installed since
