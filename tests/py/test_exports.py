"""libmeshmem.so and libmeshmem.a export their API and nothing else; each plugin exports its one
entry point.

The API is what the installed headers declare (include/*.h, and pshmem.h generated from shmem.h),
read by the C compiler itself: gcc's -aux-info lists every function a translation unit declares
with the file that declares it. The library is built with hidden visibility (the headers mark
what they declare as exported), so an internal function cannot leak into the ABI, and a routine
declared but never defined cannot hide either: both directions are compared here.
"""
import re
import subprocess
from pathlib import Path

import pytest

PUBLIC = ("meshmem.h", "meshmem_am.h", "meshmem_coll.h", "shmem.h", "shmem_coll.h", "pshmem.h")
# declared and never defined, on purpose: the C11 generic routines' "no such type" branch
NOT_ROUTINES = {"shmem_c11_type_not_supported"}
PLUGINS = {"libmeshmem_ucx.so": "meshmem_net_plugin", "libmeshmem_pmix.so": "meshmem_boot_plugin"}
AUX = re.compile(r"^/\* (?P<file>[^:]+):\d+:N[CF] \*/ extern .*?\b(?P<name>\w+) \(")
EXTERN_VAR = re.compile(r"^extern (?!\"C\")[^(;]*?\b(\w+);", re.M)


def declared(build_dir: Path, tmp_path: Path) -> set[str]:
    """Functions and variables the public headers declare."""
    inc = build_dir / "include"
    src = tmp_path / "api.c"
    src.write_text("".join(f"#include <{h}>\n" for h in PUBLIC))
    info = tmp_path / "api.info"
    subprocess.run(["gcc", "-std=gnu11", "-I", str(inc), "-aux-info", str(info), "-fsyntax-only",
                    str(src)], check=True)
    names = set()
    for line in info.read_text().splitlines():
        m = AUX.match(line)
        if m and Path(m["file"]).name in PUBLIC:
            names.add(m["name"])
    for h in PUBLIC:
        names |= set(EXTERN_VAR.findall((inc / h).read_text()))
    return names - NOT_ROUTINES


def dynamic_symbols(lib: Path, defined: bool = True) -> set[str]:
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-D", flag, str(lib)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def test_library_exports_exactly_the_headers(build_dir, tmp_path):
    exported = dynamic_symbols(build_dir / "lib" / "libmeshmem.so")
    api = declared(build_dir, tmp_path)
    assert len(api) > 1000, "the headers' declarations were not read"
    assert sorted(exported - api) == [], "exported but not declared in a public header"
    assert sorted(api - exported) == [], "declared in a public header but not exported"


def archive_symbols(lib: Path) -> set[str]:
    """The global symbols the members of an archive define."""
    out = subprocess.run(["nm", "-g", "--defined-only", str(lib)], capture_output=True, text=True,
                         check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3}


def test_static_library_exports_exactly_the_headers(build_dir, tmp_path):
    archive = build_dir / "lib" / "libmeshmem.a"
    api = declared(build_dir, tmp_path)
    defined = archive_symbols(archive)
    assert sorted(defined - api) == [], "libmeshmem.a defines a global name no header declares"
    assert sorted(api - defined) == [], "declared in a public header but not in libmeshmem.a"


def test_static_library_leaves_internal_names_to_the_program(build_dir, tmp_path):
    """A program may name its own things as the library names its internals: linked statically,
    its mm_boot and mm_g are its own, and the library still runs (here as a single PE)."""
    prog = tmp_path / "clash.c"
    prog.write_text("#include <shmem.h>\n#include <stdio.h>\n"
                    "int mm_g = 41;\n"
                    "int mm_boot(void) { return mm_g + 1; }\n"
                    "int main(void) { shmem_init(); printf(\"%d %d\\n\", mm_boot(), shmem_n_pes());\n"
                    "  shmem_finalize(); return 0; }\n")
    exe = tmp_path / "clash"
    subprocess.run(["gcc", "-std=gnu11", "-I", str(build_dir / "include"), str(prog), "-o", str(exe),
                    str(build_dir / "lib" / "libmeshmem.a"), "-lpthread", "-lm", "-ldl"], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out == "42 1\n"


def test_every_routine_has_its_profiling_name(build_dir):
    exported = dynamic_symbols(build_dir / "lib" / "libmeshmem.so")
    routines = {n for n in exported if not n.startswith(("meshmem_", "MESHMEM_", "p"))}
    assert len(routines) > 1000
    assert sorted(n for n in routines if "p" + n not in exported) == []


@pytest.mark.parametrize("plugin", sorted(PLUGINS))
def test_plugin_exports_its_entry_only(build_dir, plugin):
    lib = build_dir / "lib" / plugin
    if not lib.exists():
        pytest.skip(f"{plugin} not built (its library is not installed)")
    assert dynamic_symbols(lib) == {PLUGINS[plugin]}
    # a plugin reaches the runtime only through the host table it is given (mm_plugin.h):
    # a reference to a library symbol would not resolve, libmeshmem exporting only its API
    runtime_refs = {s for s in dynamic_symbols(lib, defined=False)
                    if s.startswith(("mm_", "meshmem_", "shmem_"))}
    assert runtime_refs == set()
