"""Which kernels OpenBLAS chose, for the header of `meshmem gemm` and `meshmem conv`.

OpenBLAS picks its kernel set from the CPU's identity (CPUID family and model). A virtual
machine that hides the model can leave it on a kernel set far older than the CPU: on a lent
Xeon VM with AVX-512 the 2048-cube GEMM ran about 3 x slower than on 2 AMD cores
(docs/results-16core.md). The header names the set, and a warning says how to correct it.
"""
from __future__ import annotations

import ctypes
import functools
import sys
from pathlib import Path

# kernel sets that use AVX2 (OpenBLAS's x86-64 DYNAMIC_ARCH names, as openblas_get_corename
# spells them); SkylakeX and later also AVX-512
AVX2_KERNELS = frozenset({"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids",
                          "excavator"})
AVX512_KERNELS = frozenset({"skylakex", "cooperlake", "sapphirerapids"})


@functools.cache
def corename() -> str | None:
    """The kernel set of the OpenBLAS that the applications link (libopenblas.so.0, which
    honours OPENBLAS_CORETYPE as they do), or None where it cannot be loaded."""
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        name = lib.openblas_get_corename()
    except (OSError, AttributeError):
        return None
    return name.decode(errors="replace") if name else None


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The flags of the first processor in /proc/cpuinfo (or of the text given)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def mismatch(core: str | None, flags: set[str]) -> str | None:
    """A warning when OpenBLAS's kernels use less of the CPU than it has (AVX2 or AVX-512
    unused), naming the OPENBLAS_CORETYPE that corrects it; None when they match or nothing is
    known."""
    if not core:
        return None
    c = core.lower()
    if "avx512f" in flags and "avx2" in flags and c not in AVX2_KERNELS:
        want = "SkylakeX"
    elif "avx2" in flags and c not in AVX2_KERNELS:
        want = "Haswell"
    else:
        return None
    return (f"OpenBLAS chose its {core} kernels on a CPU with "
            f"{'AVX-512' if want == 'SkylakeX' else 'AVX2'} (it did not recognise the CPU's model, "
            f"or OPENBLAS_CORETYPE said so): local multiplies run several times slower; "
            f"OPENBLAS_CORETYPE={want} selects the right ones")


def header(command: str) -> str:
    """The header's words on the BLAS, "OpenBLAS one thread per rank" with its kernel set where
    it is known; mismatch()'s warning for this machine, if any, is printed first, as
    `meshmem COMMAND: warning: ...`."""
    core = corename()
    why = mismatch(core, cpu_flags())
    if why:
        print(f"meshmem {command}: warning: {why}", file=sys.stderr)
    return "OpenBLAS one thread per rank" + (f", {core} kernels" if core else "")
