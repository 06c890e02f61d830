"""Where the build tree is: $MESHMEM_BUILD (set by build/bin/meshmem) or ./build."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def build_dir() -> Path:
    """The CMake build directory holding bin/, lib/ and the compiled benchmarks and tests."""
    env = os.environ.get("MESHMEM_BUILD")
    return Path(env) if env else REPO / "build"


def bin_path(name: str) -> Path:
    """A program in build/bin (meshrun, meshcc, ...)."""
    return build_dir() / "bin" / name
