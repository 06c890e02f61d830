"""Where things are: the source checkout, the build tree ($MESHMEM_BUILD or ./build) and the
runtime an installed package carries (meshmem/_runtime, python/CMakeLists.txt).

The package runs from the checkout (build/bin/meshmem puts python/ on PYTHONPATH) or installed
(pip install .). Installed, the checkout is the one the build tree was configured from
(CMakeCache.txt), so that the commands that compile the benchmarks' OpenMPI twins find their
sources.
"""
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # meshmem/, above launch/


def _checkout_of_package():
    root = PACKAGE.parents[1]
    return root if (root / "CMakeLists.txt").exists() and (root / "python" / "meshmem").is_dir() \
        else None


def _checkout_of_build():
    env = os.environ.get("MESHMEM_BUILD")
    try:
        with open(Path(env) / "CMakeCache.txt") as f:
            for line in f:
                if line.startswith("meshmem_SOURCE_DIR:"):
                    return Path(line.split("=", 1)[1].strip())
    except (OSError, TypeError):
        pass
    return None


REPO = _checkout_of_package() or _checkout_of_build() or PACKAGE.parents[1]


def build_dir() -> Path:
    """The CMake build directory holding bin/, lib/ and the compiled benchmarks and tests."""
    env = os.environ.get("MESHMEM_BUILD")
    return Path(env) if env else REPO / "build"


def bin_path(name: str) -> Path:
    """A program in build/bin (meshrun, meshcc, ...)."""
    return build_dir() / "bin" / name


def fabrics_dir() -> Path:
    """The fabric descriptions: the checkout's fabrics/, else the installed package's copy."""
    src = REPO / "fabrics"
    return src if src.is_dir() else PACKAGE / "_runtime" / "fabrics"


def rtl_configs_dir() -> Path:
    """The simulated engine's configurations (meshrun --rtl NAME): the checkout's rtl/configs,
    else the installed package's copy."""
    src = REPO / "rtl" / "configs"
    return src if src.is_dir() else PACKAGE / "_runtime" / "rtl-configs"
