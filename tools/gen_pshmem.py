#!/usr/bin/env python3
"""Write pshmem.h, the profiling interface's header: every routine that shmem.h declares, under
its shifted name (pshmem_put for shmem_put, pstart_pes for start_pes), as OpenSHMEM 1.5's
profiling interface requires.

The prototypes come from the C compiler itself (gcc's -aux-info lists every function a
translation unit declares, with its file), so pshmem.h follows shmem.h with no second list to
keep: a routine added to shmem.h gets its shifted name here at the next build, and the library
defines it (src/shmem/shmem_profiled.h; tests/py/test_exports.py checks both sides).

    gen_pshmem.py CC INCLUDE_DIR OUTPUT
"""
import os
import re
import subprocess
import sys
import tempfile

HEADERS = ("shmem.h", "shmem_coll.h")
LINE = re.compile(r"^/\* (?P<file>[^:]+):\d+:NC \*/ extern (?P<ret>.+?)\b(?P<name>\w+) \((?P<args>.*)\);$")
NORETURN = {"shmem_global_exit"}
# declared, never defined: the C11 generic routines' "no such type" branch (shmem.h)
NOT_ROUTINES = {"shmem_c11_type_not_supported"}


def prototypes(cc: str, include: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.c")
        info = os.path.join(tmp, "p.info")
        with open(src, "w") as f:
            f.write("#include <shmem.h>\n")
        # -aux-info is gcc's: a build with another compiler (clang) asks gcc
        for compiler in (cc, "gcc"):
            done = subprocess.run([compiler, "-std=gnu11", "-I", include, "-aux-info", info,
                                   "-fsyntax-only", src], capture_output=True, text=True)
            if done.returncode == 0 and os.path.exists(info):
                break
        else:
            sys.exit(f"gen_pshmem.py: {cc} -aux-info failed: {done.stderr.strip()}")
        with open(info) as f:
            lines = f.read().splitlines()
    out = []
    for line in lines:
        m = LINE.match(line)
        if not m or os.path.basename(m["file"]) not in HEADERS or m["name"] in NOT_ROUTINES:
            continue
        # gcc spells complex types "complex double": the keyword is _Complex without <complex.h>
        ret, args = (re.sub(r"\bcomplex\b", "_Complex", t) for t in (m["ret"], m["args"]))
        attr = " __attribute__((noreturn))" if m["name"] in NORETURN else ""
        out.append(f"{ret}p{m['name']}({args}){attr};")
    return sorted(set(out), key=lambda p: re.search(r"(\w+)\(", p).group(1))


def main() -> int:
    cc, include, output = sys.argv[1:4]
    protos = prototypes(cc, include)
    if not protos:
        print("gen_pshmem.py: no prototype found in shmem.h", file=sys.stderr)
        return 1
    text = "\n".join([
        "/* pshmem.h: the OpenSHMEM 1.5 profiling interface of meshmem. Generated at build time by",
        " * tools/gen_pshmem.py from the prototypes of shmem.h; do not edit. Every routine",
        " * shmem_NAME (and start_pes, shmalloc, ...) has a second name pshmem_NAME (pstart_pes, ...):",
        " * a tool defines shmem_NAME itself and calls pshmem_NAME to reach the library. */",
        "#ifndef MESHMEM_PSHMEM_H",
        "#define MESHMEM_PSHMEM_H",
        "",
        "#include <shmem.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        *protos,
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        "#endif /* MESHMEM_PSHMEM_H */",
        ""])
    tmp = output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
