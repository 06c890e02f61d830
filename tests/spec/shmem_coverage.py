#!/usr/bin/env python3
"""Every routine of OpenSHMEM 1.5 against meshmem: present, and called by a test.

    shmem_coverage.py BUILD_DIR            check; exit 1 and say why when something is missing
    shmem_coverage.py BUILD_DIR --write    also (re)write docs/openshmem-1.5.md

The routines are the specification's own synopses, expanded to concrete names
(tests/spec/openshmem-1.5.json, made by extract_routines.py from the spec's sources). A routine
is present when
  - C binding (shmem_int_put, shmem_put32, ...): libmeshmem.so exports every concrete name;
  - C11 binding (the type-generic shmem_put(dest, ...), and its context form): a call with
    arguments of each type of the routine's table compiles against shmem.h.
A routine is covered when a test calls it: a C routine's concrete names are looked for in the
tests after the preprocessor (the tests expand their type tables with macros), a generic one's
calls in their source, told apart from its other form by the number of arguments (shmem_put
with or without a context, shmem_sync(team) and the deprecated active-set shmem_sync).
The tests are tests/c/*.c and the spec's own example programs (tests/spec/examples).
"""
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "spec" / "openshmem-1.5.json"
DOC = REPO / "docs" / "openshmem-1.5.md"
TEST_SOURCES = ("tests/c/*.c", "tests/spec/examples/*.c", "tests/spec/*.c")
INCLUDES = ["include", "tests/c"] + [str(p.relative_to(REPO)) for p in (REPO / "src").glob("*")
                                      if p.is_dir()] + ["src/transport/shm", "tools",
                                                        "src/transport/rtl", "rtl/include"]
# routines meshmem has beyond 1.5 that programs written for later versions use; listed in the
# table too, with the version that brought them
BEYOND = [
    {"section": "shmem_team_ptr", "binding": "C", "deprecated": False,
     "pattern": "shmem_team_ptr", "proto": "void *shmem_team_ptr(shmem_team_t team, "
     "const void *dest, int pe);", "instances": [{"name": "shmem_team_ptr"}], "since": "1.6"},
]


def params(proto: str) -> list[str]:
    inside = proto[proto.index("(") + 1:proto.rindex(")")]
    return [] if inside.strip() in ("", "void") else [p.strip() for p in inside.split(",")]


def arity(proto: str) -> int:
    return len(params(proto))


def exported(build: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(build / "lib" / "libmeshmem.so")],
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def c11_missing(routines: list, build: Path) -> dict:
    """Generic calls that do not compile: {(routine index, TYPE)}."""
    lines, where = ["#include <shmem.h>", "void c11_calls(void);", "void c11_calls(void)", "{"], {}
    for i, r in enumerate(routines):
        if r["binding"] != "C11" or "..." in r["proto"]:
            continue
        for inst in r["instances"]:
            t = inst.get("TYPE")
            decls, args = [], []
            for k, p in enumerate(params(r["proto"])):
                ptype = re.sub(r"\bTYPE\b", t, p[:p.rindex(re.findall(r"\w+", p)[-1])]) if t \
                    else p[:p.rindex(re.findall(r"\w+", p)[-1])]
                decls.append(f"{ptype} a{k} = ({ptype})0;")
                args.append(f"a{k}")
            where[len(lines) + 1] = (i, t)
            lines.append("    { " + " ".join(decls) + f" (void){r['pattern']}({', '.join(args)}); }}")
    lines.append("}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "c11.c"
        src.write_text("\n".join(lines) + "\n")
        # errors at the line of the call, not inside shmem.h's macros
        res = subprocess.run(["cc", "-std=c11", "-fsyntax-only", "-fmax-errors=0",
                              "-ftrack-macro-expansion=0",
                              "-I", str(build / "include"), str(src)],
                             capture_output=True, text=True)
    bad = set()
    for m in re.finditer(r"c11\.c:(\d+):\d+: error", res.stderr):
        if int(m.group(1)) in where:
            bad.add(where[int(m.group(1))])
    if res.returncode != 0 and not bad:
        sys.exit("shmem_coverage: the C11 calls do not compile:\n" + res.stderr[-3000:])
    return bad


def test_files() -> list[Path]:
    files = []
    for pattern in TEST_SOURCES:
        files += sorted(REPO.glob(pattern))
    return files


def preprocessed(f: Path) -> str:
    """The test @p f after the preprocessor, without the library's headers (whose declarations
    name every routine): the lines that come from tests/ only."""
    # a test written for C99 (NAME_c99.c) is built so, and sees no generic routine
    std = "-std=c99" if f.stem.endswith("_c99") else "-std=gnu11"
    # the MPI hybrids: their compiler knows where mpi.h is
    text = f.read_text()
    cc = "mpicc" if "<mpi.h>" in text else "cc"
    # the PMIx probe: pkg-config knows where Debian puts pmix.h
    extra = subprocess.run(["pkg-config", "--cflags", "pmix"], capture_output=True,
                           text=True).stdout.split() if "<pmix.h>" in text else []
    res = subprocess.run([cc, std, "-E", "-D_GNU_SOURCE", *[f"-I{REPO / i}" for i in INCLUDES],
                          *extra, f"-I{BUILD / 'include'}", str(f)],  # (pshmem.h is generated)
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"shmem_coverage: cannot preprocess {f}:\n{res.stderr[-2000:]}")
    keep, out = True, []
    tests = str(REPO / "tests")
    for line in res.stdout.splitlines():
        m = re.match(r'^# \d+ "([^"]*)"', line)
        if m:
            keep = str(Path(m.group(1)).resolve()).startswith(tests)
        elif keep:
            out.append(line)
    return "\n".join(out)


def generic_calls(text: str, name: str) -> list[int]:
    """Argument counts of the calls of @p name in source @p text."""
    counts = []
    for m in re.finditer(r"\b" + name + r"\s*\(", text):
        depth, n, i, empty = 1, 1, m.end(), True
        while i < len(text) and depth:
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == "," and depth == 1:
                n += 1
            elif not c.isspace() and depth >= 1:
                empty = False
            i += 1
        counts.append(0 if empty else n)
    return counts


def coverage(routines: list) -> list:
    """For each routine: {test file: instances it calls}; a C routine's called names go to
    r["_called"]."""
    files = test_files()
    pre = {f: preprocessed(f) for f in files}
    raw = {f: f.read_text() for f in files}
    called = defaultdict(set)  # concrete C name -> files
    for f, text in pre.items():
        for name in set(re.findall(r"\b(\w+)\s*\(", text)):
            called[name].add(f)
    result = []
    for r in routines:
        by_file = defaultdict(int)
        if r["binding"] == "C11":
            for f, text in raw.items():
                if f.stem.endswith("_c99"):
                    continue
                if arity(r["proto"]) in generic_calls(text, r["pattern"]):
                    by_file[f] = len(r["instances"])
        else:
            r["_called"] = set()
            for inst in r["instances"]:
                for f in called.get(inst["name"], ()):
                    by_file[f] += 1
                    r["_called"].add(inst["name"])
        result.append(dict(by_file))
    return result


def rel(f: Path) -> str:
    return str(f.relative_to(REPO))


def render(routines: list, cov: list, missing: dict) -> str:
    out = ["# OpenSHMEM 1.5: every routine and the tests that call it", "",
           "Generated by `tests/spec/shmem_coverage.py BUILD --write` from the specification's "
           "synopses (`tests/spec/openshmem-1.5.json`, read from the spec's sources by "
           "`tests/spec/extract_routines.py`); `make test` fails when a routine is missing, has "
           "no test, or this page is stale (`tests/py/test_spec.py`).", "",
           "A C routine is present when libmeshmem.so exports each of its names (one per type "
           "of its table), a C11 generic one when a call with each type compiles. \"Names\" "
           "counts the concrete names (or the types of a generic routine); \"called\" how many "
           "of them the tests call. The spec's example programs are in `tests/spec/examples` "
           "(run at 1 to 8 PEs by `tests/c/spec.cmake`).", ""]
    nroutines = len(routines)
    names = sum(len(r["instances"]) for r in routines)
    out.append(f"{nroutines} routines, {names} names; missing: {sum(len(v) for v in missing.values())}; "
               f"without a test: {sum(1 for c in cov if not c)}.")
    section = None
    for i, (r, c) in enumerate(zip(routines, cov)):
        if r["section"] != section:
            section = r["section"]
            out += ["", f"## {section}" + (f" (OpenSHMEM {r['since']})" if "since" in r else ""),
                    "", "| binding | routine | names | called | tests |", "|---|---|---|---|---|"]
        binding = r["binding"] + (", deprecated" if r["deprecated"] else "")
        n = len(r["instances"])
        miss = missing.get(i, [])
        names_cell = f"{n - len(miss)}/{n}" + (f" (missing: {', '.join(miss)})" if miss else "")
        ncalled = max(c.values(), default=0) if r["binding"] == "C11" else len(r["_called"])
        files = sorted(c, key=lambda f: (-c[f], rel(f)))
        tests = ", ".join(f"`{Path(rel(f)).name}`" for f in files[:4])
        if len(files) > 4:
            tests += f" (+{len(files) - 4})"
        out.append(f"| {binding} | `{r['proto'].rstrip(';')}` | {names_cell} | "
                   f"{ncalled}/{n} | {tests or '**none**'} |")
    return "\n".join(out) + "\n"


BUILD = REPO / "build"


def main() -> int:
    global BUILD
    build = BUILD = Path(sys.argv[1]).resolve()
    write = "--write" in sys.argv[2:]
    routines = json.loads(DATA.read_text())["routines"] + BEYOND
    have = exported(build)
    bad11 = c11_missing(routines, build)
    missing = defaultdict(list)
    for i, r in enumerate(routines):
        for inst in r["instances"]:
            gone = (i, inst.get("TYPE")) in bad11 if r["binding"] == "C11" \
                else inst["name"] not in have
            if gone:
                missing[i].append(inst.get("TYPE") or inst["name"])
    cov = coverage(routines)
    text = render(routines, cov, missing)
    problems = []
    for i, m in missing.items():
        problems.append(f"missing: {routines[i]['pattern']} ({routines[i]['binding']}): "
                        f"{', '.join(m)}")
    for r, c in zip(routines, cov):
        if not c:
            problems.append(f"no test calls {r['pattern']} ({r['binding']}"
                            f"{', deprecated' if r['deprecated'] else ''}: {r['proto']})")
    if write:
        DOC.write_text(text)
    elif not DOC.exists() or DOC.read_text() != text:
        problems.append(f"{rel(DOC)} is stale: run tests/spec/shmem_coverage.py BUILD --write")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
