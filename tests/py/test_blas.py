"""meshmem.cli.apps.blas: the OpenBLAS kernel set in the headers of `meshmem gemm` and `meshmem conv`,
and the warning when OpenBLAS did not recognise the CPU (docs/results-16core.md)."""
import os
import subprocess
import sys

import pytest

from meshmem.cli.apps import blas

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512bw
processor\t: 1
flags\t\t: fpu
"""


def test_cpu_flags_of_the_first_processor():
    assert blas.cpu_flags(CPUINFO) == {"fpu", "sse", "sse2", "avx", "avx2", "fma", "avx512f",
                                       "avx512bw"}
    assert blas.cpu_flags("no flags here") == set()


@pytest.mark.parametrize("core,flags,want", [
    ("Prescott", {"avx2", "avx512f"}, "OPENBLAS_CORETYPE=SkylakeX"),
    ("Sandybridge", {"avx", "avx2"}, "OPENBLAS_CORETYPE=Haswell"),
    ("Nehalem", {"avx2"}, "OPENBLAS_CORETYPE=Haswell"),
    ("Haswell", {"avx2", "avx512f"}, None),   # AVX2 kernels on an AVX-512 CPU: acceptable
    ("SkylakeX", {"avx2", "avx512f"}, None),
    ("Zen", {"avx2"}, None),
    ("Prescott", {"sse2"}, None),              # an old CPU: nothing better to choose
    (None, {"avx2"}, None),                    # OpenBLAS not loadable: nothing said
])
def test_mismatch(core, flags, want):
    got = blas.mismatch(core, flags)
    if want is None:
        assert got is None
    else:
        assert want in got and core in got


def test_header_names_the_kernels_of_this_machine():
    core = blas.corename()
    text = blas.header("gemm")
    assert text.startswith("OpenBLAS one thread per rank")
    if core:
        assert f"{core} kernels" in text


def test_coretype_reaches_the_kernel_choice():
    """OPENBLAS_CORETYPE is read when the library loads: a fresh interpreter sees it."""
    if blas.corename() is None:
        pytest.skip("no libopenblas.so.0 here")
    out = subprocess.run([sys.executable, "-c", "from meshmem.cli.apps import blas; print(blas.corename())"],
                         env={**os.environ, "OPENBLAS_CORETYPE": "Haswell"},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "Haswell"
