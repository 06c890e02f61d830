"""meshcc, the compiler wrapper: compile with it, run with meshrun.

The program uses the native API and a global array as a put target, so the test also checks
that an executable built by meshcc (not by the project's CMake) gets its static data made
symmetric. The OpenSHMEM-program test lives with the shmem layer's tests.
"""
import os
import subprocess

import pytest

pytestmark = pytest.mark.usefixtures("shm_snapshot")

PROG = r"""
#include <meshmem.h>
#include <stdio.h>

static long ring[4]; /* a global: symmetric, a put lands in the peer's copy */

int main(void)
{
    if (meshmem_init(MESHMEM_THREAD_SINGLE, NULL) != MESHMEM_OK)
        return 1;
    int me = meshmem_rank(), n = meshmem_nranks();
    long v = 100 + me;
    meshmem_put(&ring[1], &v, sizeof v, (me + 1) % n);
    meshmem_barrier(MESHMEM_TEAM_WORLD);
    printf("rank %d of %d got %ld\n", me, n, ring[1]);
    meshmem_finalize();
    return 0;
}
"""


def meshcc_env() -> dict:
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)  # the rpath alone must find libmeshmem
    return env


def meshcc(build_dir, *args, cwd):
    return subprocess.run([str(build_dir / "bin" / "meshcc"), *args], cwd=cwd, env=meshcc_env(),
                          capture_output=True, text=True, timeout=120)


def check_ring(launch, exe, n=3):
    res = launch.run(["-n", str(n), "--heap", "8M", str(exe)])
    assert res.rc == 0, res.err
    for r in range(n):
        assert f"rank {r} of {n} got {100 + (r + n - 1) % n}\n" in res.out, res.out


def test_compile_and_run(build_dir, launch, tmp_path):
    (tmp_path / "ring.c").write_text(PROG)
    cc = meshcc(build_dir, "-std=c11", "-Wall", "-Wextra", "-Werror", "ring.c", "-o", "ring",
                cwd=tmp_path)
    assert cc.returncode == 0, cc.stderr
    check_ring(launch, tmp_path / "ring")


def test_compile_only_then_link(build_dir, launch, tmp_path):
    (tmp_path / "ring.c").write_text(PROG)
    cc = meshcc(build_dir, "-c", "ring.c", "-o", "ring.o", cwd=tmp_path)
    assert cc.returncode == 0, cc.stderr
    assert (tmp_path / "ring.o").exists() and not (tmp_path / "a.out").exists()
    cc = meshcc(build_dir, "ring.o", "-o", "ring linked", cwd=tmp_path)  # a space in the name
    assert cc.returncode == 0, cc.stderr
    check_ring(launch, tmp_path / "ring linked", n=2)


def test_showme(build_dir, tmp_path):
    inc, lib = build_dir / "include", build_dir / "lib"
    show = meshcc(build_dir, "--showme", "x.c", "-o", "x", cwd=tmp_path)
    assert show.returncode == 0, show.stderr
    words = show.stdout.split()
    assert f"-I{inc}" in words and f"-L{lib}" in words, show.stdout
    assert f"-Wl,-rpath,{lib}" in words and "-lmeshmem" in words, show.stdout
    assert words.index("x.c") < words.index("-lmeshmem"), show.stdout  # libraries after objects
    assert not (tmp_path / "x").exists()  # --showme runs nothing
    compile_only = meshcc(build_dir, "--showme", "-c", "x.c", cwd=tmp_path).stdout.split()
    assert f"-I{inc}" in compile_only and "-lmeshmem" not in compile_only
    assert meshcc(build_dir, "--showme:compile", cwd=tmp_path).stdout.split()[-1] == f"-I{inc}"
    assert "-lmeshmem" in meshcc(build_dir, "--showme:link", cwd=tmp_path).stdout.split()
    assert (inc / "meshmem.h").exists()


def readme_examples() -> list[tuple[str, str]]:
    """The C and C++ examples of README.md, as (language, source)."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    return re.findall(r"^```(c|cpp)\n(.*?)^```$", text, re.M | re.S)


@pytest.mark.parametrize("n", [1, 3])
def test_readme_examples_build_and_run(build_dir, launch, tmp_path, n):
    """Every program README.md shows compiles with meshcc or meshc++ (warnings as errors) and
    runs to completion."""
    examples = readme_examples()
    assert {lang for lang, _ in examples} == {"c", "cpp"} and len(examples) >= 4
    for k, (lang, source) in enumerate(examples):
        src = tmp_path / f"example{k}.{lang}"
        src.write_text(source)
        tool, std = ("meshcc", "-std=c11") if lang == "c" else ("meshc++", "-std=c++11")
        cc = subprocess.run([str(build_dir / "bin" / tool), std, "-Wall", "-Werror",
                             src.name, "-o", f"example{k}"], cwd=tmp_path, env=meshcc_env(),
                            capture_output=True, text=True, timeout=120)
        assert cc.returncode == 0, f"README example {k}:\n{source}\n{cc.stderr}"
        res = launch.run(["-n", str(n), "--heap", "8M", str(tmp_path / f"example{k}")])
        assert res.rc == 0 and res.err == "", f"README example {k}:\n{res.out}\n{res.err}"
