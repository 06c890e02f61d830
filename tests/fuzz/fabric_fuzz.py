#!/usr/bin/env python3
"""Fuzzing the fabric files: the model's own loader (meshmem.model.fabric.load_fabric: TOML,
[fabric] base chains, every section's checks) and its overrides (parse_override, the
--fabric-set values) on files mutated from a corpus (tests/fuzz/corpus/fabric, the repository's
fabrics). A malformed file must end in FabricError, the one-line message the CLI prints, or load
into a fabric whose checked values hold (positive rates, node counts >= 1); any other exception
is a finding.

Mutations are of two kinds, so that both the TOML reader and the checks behind it are reached:
on the parsed table (a value replaced by one of another type or out of range, a key or section
dropped or added, a base that is missing, another fabric or the file itself) and on the text
(lines dropped, repeated or cut, bytes replaced, UTF-8 broken).

    fabric_fuzz.py SECONDS [SEED]
"""
import math
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "fabric"
sys.path.insert(0, str(HERE.parents[1] / "python"))
from meshmem.model import fabric

VALUES = [0, -1, 1, 2, 3, 7, 8, 65, 2**31, 2**63 - 1, -(2**63), 0.0, -0.5, 1e-300, 1e300,
          math.inf, -math.inf, math.nan, True, False, "", "x", "full_mesh", "ghc", "mpi", "pgas",
          "onestep", "optweb-fc8-45g", "fshmem-2node", "/nonexistent", "..", [], [1, 2],
          ["a"], {}, {"k": 1}]
EXTRA_KEYS = ["base", "engine", "kind", "nodes", "kx", "ky", "bandwidth_gbps", "efficiency",
              "hop_latency_us", "channels", "clock_mhz", "eager_threshold_bytes", "name",
              "variant", "unknown_key"]
SECTIONS = ["fabric", "topology", "link", "memory", "protocol", "mpi", "pgas", "sort",
            "compute", "replay", "fft", "gemm", "cpu_sort", "bogus"]


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_dumps(raw: dict) -> str:
    """A table of tables (and arrays of tables) written back as TOML."""
    out = []
    for section, table in raw.items():
        if isinstance(table, list) and table and all(isinstance(t, dict) for t in table):
            for t in table:
                out.append(f"[[{section}]]")
                out += [f"{k} = {toml_value(v)}" for k, v in t.items()]
        elif isinstance(table, dict):
            out.append(f"[{section}]")
            out += [f"{k} = {toml_value(v)}" for k, v in table.items()
                    if not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))]
            for k, v in table.items():  # arrays of tables inside a section: [[section.k]]
                if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                    for t in v:
                        out.append(f"[[{section}.{k}]]")
                        out += [f"{kk} = {toml_value(vv)}" for kk, vv in t.items()]
        else:
            out.insert(0, f"{section} = {toml_value(table)}")
    return "\n".join(out) + "\n"


def mutate_table(raw: dict, rng: random.Random, self_path: Path) -> dict:
    tables = [(s, t) for s, t in raw.items() if isinstance(t, dict)]
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(5)
        if not tables:
            raw[rng.choice(SECTIONS)] = {rng.choice(EXTRA_KEYS): rng.choice(VALUES)}
        elif op == 0:  # a value of another type or out of range
            s, t = rng.choice(tables)
            if t:
                t[rng.choice(list(t))] = rng.choice(VALUES)
        elif op == 1:  # a key dropped
            s, t = rng.choice(tables)
            if t:
                del t[rng.choice(list(t))]
        elif op == 2:  # a section dropped
            s, _ = rng.choice(tables)
            raw.pop(s, None)
        elif op == 3:  # a key added
            s, t = rng.choice(tables)
            t[rng.choice(EXTRA_KEYS)] = rng.choice(VALUES)
        else:  # a base: missing, another fabric, this very file
            raw.setdefault("fabric", {})["base"] = rng.choice(
                ["optweb-fc8-45g", "cpu-ib-100g", "no-such-fabric", str(self_path), 3])
        tables = [(s, t) for s, t in raw.items() if isinstance(t, dict)]
    return raw


def mutate_text(text: str, rng: random.Random) -> bytes:
    lines = text.encode().split(b"\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(4)
        if op == 0 and lines:
            del lines[rng.randrange(len(lines))]
        elif op == 1 and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
        elif op == 2 and lines:
            i = rng.randrange(len(lines))
            lines[i] = lines[i][:rng.randint(0, len(lines[i]))]  # may cut a UTF-8 sequence
        else:
            b = bytearray(b"\n".join(lines))
            if b:
                b[rng.randrange(len(b))] = rng.choice(b'=[]"\'#.\n\x00\xff\xc3\x800-')
            lines = bytes(b).split(b"\n")
    return b"\n".join(lines) + b"\n"


LOADED = [0]  # how many files loaded (the rest were refused): the mutations reach the checks


def check(path: Path, text: str | bytes, override: str) -> str | None:
    """None when the loader behaved, else what was wrong."""
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    try:
        f = fabric.load_fabric(path, [override] if override else [])
    except fabric.FabricError as e:
        msg = str(e)
        return None if msg and "\n" not in msg.strip() else f"FabricError of several lines: {msg!r}"
    except RecursionError:
        return "RecursionError (a base chain the loader does not stop)"
    except Exception:  # noqa: BLE001 - any other exception is what this test looks for
        return traceback.format_exc(limit=4)
    if not (f.link.bandwidth_gbps > 0 and f.link.efficiency > 0):
        return f"a fabric that loaded with link {f.link}"
    LOADED[0] += 1
    return None


# inputs that once failed, kept as regressions
REGRESSIONS = [("not UTF-8 (an ELF file given as --fabric: UnicodeDecodeError)",
                b"\x7fELF\x02\x01\x01\x00[link]\nbandwidth_gbps = \xe9\n")]

OVERRIDES = ["", "link.bandwidth_gbps=90", "link.bandwidth_gbps=-1", "link.efficiency=nan",
             "topology.nodes=0", "a.b=[1", "=", ".=", "x", "protocol.sync_us=inf",
             "fabric.base=\"optweb-fc8-45g\"", "memory.channels=\"two\""]


def main() -> int:
    seconds = float(sys.argv[1])
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    import tomllib
    seeds = [(p.name, p.read_text()) for p in sorted(CORPUS.glob("*.toml"))]
    tmp = Path(tempfile.mkdtemp(prefix="fabric_fuzz."))
    path = tmp / "f.toml"
    runs, findings, start = 0, [], time.monotonic()
    for name, text in seeds + REGRESSIONS:  # the corpus and past findings first
        if (why := check(path, text, "")) is not None:
            findings.append((name, text, "", why))
        runs += 1
    while time.monotonic() - start < seconds and not findings:
        name, text = rng.choice(seeds)
        if rng.random() < 0.6:
            text = toml_dumps(mutate_table(tomllib.loads(text), rng, path))
        else:
            text = mutate_text(text, rng)
        override = rng.choice(OVERRIDES)
        if (why := check(path, text, override)) is not None:
            findings.append((name, text, override, why))
        runs += 1
    for name, text, override, why in findings:
        shown = text.decode(errors="backslashreplace") if isinstance(text, bytes) else text
        print(f"fabric_fuzz: from {name}, override {override!r}:\n{why}\n--- the file:\n{shown}")
    print(f"fabric_fuzz: {runs} files in {time.monotonic() - start:.0f} s ({LOADED[0]} loaded, "
          f"the others refused in one line), {len(findings)} findings")
    for p in tmp.iterdir():
        p.unlink()
    tmp.rmdir()
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
