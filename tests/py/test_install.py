"""`make install`: the installed tree builds programs without the build tree.

One install per module, staged as a package would be (DESTDIR + PREFIX), then moved away from
the build tree: the pkg-config file, the CMake package and the installed meshcc must each give a
program that builds against the installed headers and library and runs under the installed
meshrun, and the profiling interface (pshmem.h) must be there.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROG = r"""
#include <shmem.h>
#include <stdio.h>

static long ring; /* a global: symmetric */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&ring, 100 + me, (me + 1) % n);
    shmem_barrier_all();
    printf("PE %d of %d got %ld\n", me, n, ring);
    shmem_finalize();
    return 0;
}
"""

CMAKELISTS = """
cmake_minimum_required(VERSION 3.20)
project(uses_meshmem C)
find_package(meshmem 0.1 CONFIG REQUIRED)
add_executable(ring ring.c)
target_link_libraries(ring PRIVATE meshmem::meshmem)
add_executable(ring_static ring.c)
target_link_libraries(ring_static PRIVATE meshmem::meshmem_static)
"""


def clean_env() -> dict:
    env = dict(os.environ)
    for k in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "MESHMEM_PLUGIN_DIR"):
        env.pop(k, None)
    return env


def run(cmd, cwd=None, env=None, timeout=300):
    res = subprocess.run(cmd, cwd=cwd, env=env or clean_env(), capture_output=True, text=True,
                         timeout=timeout)
    assert res.returncode == 0, f"{cmd}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
    return res


@pytest.fixture(scope="module")
def prefix(build_dir, tmp_path_factory) -> Path:
    """make install PREFIX=/opt/meshmem DESTDIR=stage, then the tree moved elsewhere."""
    base = tmp_path_factory.mktemp("install")
    stage = base / "stage"
    run(["make", "-s", "-C", str(REPO), "install", f"BUILD={build_dir}", "PREFIX=/opt/meshmem",
         f"DESTDIR={stage}"])
    moved = base / "elsewhere"
    shutil.move(str(stage / "opt" / "meshmem"), str(moved))  # relocatable: no path baked in
    return moved


def check_ring(prefix: Path, exe: Path, n: int = 3):
    res = run([str(prefix / "bin" / "meshrun"), "-n", str(n), "--heap", "8M", str(exe)])
    for pe in range(n):
        assert f"PE {pe} of {n} got {100 + (pe + n - 1) % n}\n" in res.stdout, res.stdout


def test_installed_tree(prefix):
    inc = prefix / "include" / "meshmem"
    for h in ("shmem.h", "shmem_coll.h", "shmem_types.h", "meshmem.h", "meshmem_coll.h",
              "meshmem_am.h", "pshmem.h"):
        assert (inc / h).is_file(), h
    lib = prefix / "lib"
    assert (lib / "libmeshmem.a").is_file()
    assert os.path.realpath(lib / "libmeshmem.so").endswith(".so.0.1.0")
    soname = run(["objdump", "-p", str(lib / "libmeshmem.so")]).stdout
    assert "SONAME               libmeshmem.so.0" in soname
    assert (prefix / "bin" / "meshrun").is_file() and (prefix / "bin" / "meshcc").is_file()


def test_pkg_config(prefix, tmp_path):
    env = clean_env()
    env["PKG_CONFIG_PATH"] = str(prefix / "lib" / "pkgconfig")
    flags = run(["pkg-config", "--cflags", "--libs", "meshmem"], env=env).stdout.split()
    assert [Path(f[2:]).resolve() for f in flags if f.startswith("-I")] == \
        [(prefix / "include" / "meshmem").resolve()], flags
    (tmp_path / "ring.c").write_text(PROG)
    run(["cc", "-std=c11", "-Wall", "-Werror", "ring.c", "-o", "ring", *flags], cwd=tmp_path)
    check_ring(prefix, tmp_path / "ring")


def test_cmake_package(prefix, tmp_path):
    (tmp_path / "ring.c").write_text(PROG)
    (tmp_path / "CMakeLists.txt").write_text(CMAKELISTS)
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b"), "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", str(tmp_path / "b")])
    check_ring(prefix, tmp_path / "b" / "ring")
    check_ring(prefix, tmp_path / "b" / "ring_static", n=2)


def test_installed_meshcc(prefix, tmp_path):
    meshcc = str(prefix / "bin" / "meshcc")
    (tmp_path / "ring.c").write_text(PROG)
    run([meshcc, "-std=c11", "-Wall", "-Werror", "ring.c", "-o", "ring"], cwd=tmp_path)
    check_ring(prefix, tmp_path / "ring")
    # the flags oshcc users script with: the installed tree's, nothing of the build tree
    compile_flags = run([meshcc, "--showme:compile"]).stdout.split()
    link_flags = run([meshcc, "--showme:link"]).stdout.split()
    assert [Path(f[2:]).resolve() for f in compile_flags if f.startswith("-I")] == \
        [(prefix / "include" / "meshmem").resolve()]
    assert "-lmeshmem" in link_flags
    assert any(f.startswith("-L") and Path(f[2:]).resolve() == (prefix / "lib").resolve()
               for f in link_flags), link_flags
    full = run([meshcc, "--showme", "ring.c", "-o", "ring"]).stdout.split()
    assert full[0] == "cc" and "ring.c" in full and "-lmeshmem" in full
    assert not os.path.exists(tmp_path / "ring.o")
