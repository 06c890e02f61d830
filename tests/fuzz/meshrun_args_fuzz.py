#!/usr/bin/env python3
"""Fuzzing meshrun's arguments: the real binary, run on argument vectors mutated from a corpus
(tests/fuzz/corpus/meshrun_args: one JSON list of arguments per file) with options, values,
sizes and garbage. meshrun parses them before it starts anything, so each run either starts a
tiny job (fault_prog echo) or refuses with a one-line error; a crash (a signal), a hang, a
Python-style traceback or an error that is not one "meshrun: ..." line is a finding.

    meshrun_args_fuzz.py BUILD_DIR SECONDS [SEED]
"""
import json
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "meshrun_args"
TOKENS = ["-n", "-np", "--np", "--ranks", "--heap", "--bind-to", "--bind", "--timeout", "--fabric",
          "--compute-scale", "--fabric-json", "--fabric-set", "--", "-h", "--help", "--version",
          "--tag-output", "core", "none", "0", "1", "2", "3", "-1", "4097", "1e9", "nan", "inf",
          "64M", "1G", "2^24", "12Q", "", " ", "1.5k", "999999999999999999999", "-0", "0x10",
          "K", "MiB", "--heap=8M", "--np=2", "link.bandwidth_gbps=90", "a.b=[1", "=", "\x01",
          "ghc:2x2", "/nonexistent", "ééé", "%s%n%x"]


def mutate(args: list, rng: random.Random) -> list:
    args = list(args)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if op == 0 or not args:
            args.insert(rng.randint(0, len(args)), rng.choice(TOKENS))
        elif op == 1:
            del args[rng.randrange(len(args))]
        elif op == 2:
            i = rng.randrange(len(args))
            s = args[i]
            j = rng.randint(0, len(s))
            args[i] = s[:j] + rng.choice(TOKENS) + s[j + 1:]
        elif op == 3:
            args[rng.randrange(len(args))] = rng.choice(TOKENS)
        else:
            i = rng.randrange(len(args))
            args[i] = args[i] * rng.randint(2, 3)
    return args


def few_ranks(args: list) -> list:
    """The vector with every count meshrun would accept above 16 (a mutation can make "222" of
    "2") raised past its limit, so that the refusal is tested and no job of hundreds starts."""
    def cap(a: str) -> str:
        head, eq, num = a.rpartition("=")
        return f"{head}{eq}{MAX_RANKS + 1}" if num.isdigit() and 16 < int(num) <= MAX_RANKS else a
    return [cap(a) for a in args]


MAX_RANKS = 4096  # meshrun's (MESHRUN_MAX_RANKS)


def usage_error_ok(stderr: str, args: list) -> bool:
    """A refusal is meshrun's one line, after (for --fabric) the model's one line naming the
    file it could not use; anything else (a library's message, a traceback) is a finding."""
    lines = stderr.splitlines()
    if not lines or not lines[-1].startswith("meshrun: "):
        return False
    # the model names the file: an argument, or the value of an --option=VALUE one
    named = [*args, *(a.split("=", 1)[1] for a in args if a.startswith("--") and "=" in a)]
    for line in lines[:-1]:
        said = line.removeprefix("meshmem model: ")
        if said == line or not any(a and said.startswith(f"{a}: ") for a in named):
            return False
    return True


def check(build: Path, args: list) -> str | None:
    """None when meshrun behaved, else what was wrong."""
    args = few_ranks(args)
    prog = str(build / "tests" / "fault_prog")
    # the program goes last unless the vector already ends the options with "--"
    cmd = [str(build / "bin" / "meshrun"), *args, prog, "echo"]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=20,
                             errors="replace", env={"PATH": "/usr/bin:/bin"})
    except subprocess.TimeoutExpired:
        return "hang (20 s)"
    if res.returncode < 0:
        return f"killed by signal {-res.returncode}"
    if res.returncode not in (0, 1, 2, 124, 126, 127):
        return f"exit status {res.returncode}"
    if res.returncode == 2 and not usage_error_ok(res.stderr, cmd):
        return f"a usage error not in meshrun's words: {res.stderr[:300]!r}"
    if "Traceback" in res.stderr or "Sanitizer" in res.stderr:
        return f"a report: {res.stderr[:300]!r}"
    return None


def main() -> int:
    build, seconds = Path(sys.argv[1]), float(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    corpus = [json.loads(p.read_text()) for p in sorted(CORPUS.glob("*.json"))]
    runs, findings, start = 0, [], time.monotonic()
    for seed in corpus:  # the corpus itself first: regressions
        if (why := check(build, seed)) is not None:
            findings.append((seed, why))
        runs += 1
    while time.monotonic() - start < seconds and not findings:
        args = mutate(rng.choice(corpus), rng)
        if (why := check(build, args)) is not None:
            findings.append((args, why))
        runs += 1
    for args, why in findings:
        print(f"meshrun_args_fuzz: {why}: meshrun {json.dumps(args)}")
    print(f"meshrun_args_fuzz: {runs} runs in {time.monotonic() - start:.0f} s, "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
