#!/usr/bin/env python3
"""Read every routine of the OpenSHMEM 1.5 specification from its LaTeX sources and write them,
expanded to concrete names, as tests/spec/openshmem-1.5.json (the data the coverage check and
docs/openshmem-1.5.md are made from).

    git clone https://github.com/openshmem-org/specification && git -C specification checkout v1.5
    tests/spec/extract_routines.py specification > tests/spec/openshmem-1.5.json

Each synopsis line (\\FuncDecl) is one routine pattern, in its section (the .tex file), with its
binding (C11 generic or C; deprecated when inside a DeprecateBlock) and its prototype. A pattern
with TYPE/TYPENAME is expanded with the type table its "where" clause names (Table \\ref{...},
filtered by the operation for the reduction tables, or an inline list of C types), a pattern
with SIZE with the sizes its clause lists. A synopsis block without a clause of its own takes
the section's previous one (the typed team reductions, whose clause is their C11 form's).
"""
import json
import re
import sys
from pathlib import Path

ENVS = ("C11synopsis", "Csynopsis", "CsynopsisCol")


def unlatex(s: str) -> str:
    s = re.sub(r"@\\FuncDecl\{(.*?)\}@", r"\1", s)
    s = s.replace("\\FuncParam{TYPENAME}", "TYPENAME").replace("\\FuncParam{SIZE}", "SIZE")
    return s.replace("\\_", "_").strip()


def read_tables(content: Path) -> dict:
    """Every TYPE/TYPENAME table of the spec: label -> [(ctype, typename, ops)]."""
    tables = {}
    for tex in content.glob("*.tex"):
        text = tex.read_text()
        for m in re.finditer(r"\\begin\{tabular\}(.*?)\\end\{tabular\}.*?\\label\{(\w+)\}", text,
                             re.S):
            rows = []
            for line in m.group(1).split("\\hline"):
                cells = [c.strip().replace("\\_", "_") for c in line.split("&")]
                if len(cells) < 2 or "TYPE" in cells[0] or not cells[0] or cells[0].startswith("\\"):
                    continue
                ctype = re.sub(r"\s+", " ", cells[0].replace("\\\\", "")).strip()
                name = cells[1].replace("\\\\", "").strip()
                ops = " ".join(cells[2:]).replace("\\\\", "")
                if re.fullmatch(r"\w+", name):
                    rows.append((ctype, name, ops))
            if rows:
                tables[m.group(2)] = rows
    return tables


def typename_of(tables: dict) -> dict:
    names = {}
    for rows in tables.values():
        for ctype, name, _ in rows:
            names.setdefault(ctype, name)
    return names


def clause_types(clause: str, tables: dict, names: dict) -> list:
    """The (ctype, typename) pairs a "where" clause allows (deprecated extras included)."""
    types = []
    inline = re.findall(r"\\\{(.*?)\\\}", clause, re.S)
    # an inline list of C types names the types; its table then only gives their TYPENAMEs
    labels = [] if inline else re.findall(r"Table~?\s*\\ref\{(\w+)\}", clause)
    for label in labels:
        op = re.search(r"supported for the (\w+) operation", clause)
        for ctype, name, ops in tables[label]:
            if op is None or op.group(1) in ops:
                types.append((ctype, name))
    for group in inline:
        for ctype in re.findall(r"\\CTYPE\{(.*?)\}", group):
            types.append((ctype, names[ctype]))
    seen, out = set(), []
    for t in types:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def section_files(root: Path) -> list:
    order = []

    def walk(tex: Path):
        for inc in re.findall(r"\\input\{(content/[\w.]+?)(?:\.tex)?\}", tex.read_text()):
            f = root / (inc + ".tex")
            if f not in order and f.exists():
                order.append(f)
                walk(f)
    walk(root / "main_spec.tex")
    return order


def routines(root: Path) -> list:
    tables = read_tables(root / "content")
    names = typename_of(tables)
    out = []
    for tex in section_files(root):
        text = tex.read_text()
        # blocks: each synopsis environment, with where it starts, its lines and deprecation
        tokens = re.finditer(r"\\(begin|end)\{(DeprecateBlock|" + "|".join(ENVS) + r")\}", text)
        depth, blocks, cur = 0, [], None
        for t in tokens:
            kind, env = t.group(1), t.group(2)
            if env == "DeprecateBlock":
                depth += 1 if kind == "begin" else -1
            elif kind == "begin":
                cur = {"env": env, "start": t.end(), "deprecated": depth > 0}
            else:
                cur["body"] = text[cur["start"]:t.start()]
                cur["end"] = t.end()
                blocks.append(cur)
        last_clause = ("", "")
        for i, b in enumerate(blocks):
            nxt = blocks[i + 1]["start"] if i + 1 < len(blocks) else len(text)
            after = text[b["end"]:nxt]
            m = re.match(r"\s*(?:\\end\{DeprecateBlock\}\s*)?where (.*?)(?:\n\s*\n|\\begin\{api)",
                         after, re.S)
            clause = m.group(1) if m else ""
            if m and "TYPE" in clause:
                # a clause may go on in a DeprecateBlock ("or TYPE is one of ..."): the types
                # it adds are the deprecated ones
                main, _, extra = clause.partition("\\begin{DeprecateBlock}")
                if not extra:
                    more = re.match(r"\s*\\begin\{DeprecateBlock\}\s*(or .*?)\\end\{Deprecate",
                                    after[m.end(1):], re.S)
                    extra = more.group(1) if more else ""
                last_clause = (main, extra)
            sizes = re.search(r"\\SIZE\{\} is one of \\CONST\{([\d, ]+)\}", clause)
            # one declaration per statement: a long one goes on over several lines
            decls = [" ".join(d.split()) + ";" for d in b["body"].split(";") if "FuncDecl" in d]
            for line in decls:
                proto = unlatex(line)
                name = re.search(r"(\w+)\s*\(", proto).group(1)
                binding = ("C11" if b["env"] == "C11synopsis" else "C")
                r = {"section": tex.stem, "binding": binding, "deprecated": b["deprecated"],
                     "pattern": name, "proto": proto, "instances": []}
                if "TYPE" in proto:
                    types = clause_types(last_clause[0], tables, names)
                    old = [t for t in clause_types(last_clause[1], tables, names)
                           if t not in types]
                    assert types, f"{tex.name}: no types for {proto}"
                    for ctype, tname in types + old:
                        inst = {"name": name.replace("TYPENAME", tname), "TYPE": ctype}
                        if (ctype, tname) in old:
                            inst["deprecated"] = True
                        r["instances"].append(inst)
                elif "SIZE" in name:
                    assert sizes, f"{tex.name}: no sizes for {proto}"
                    for s in sizes.group(1).split(","):
                        r["instances"].append({"name": name.replace("SIZE", s.strip())})
                else:
                    r["instances"].append({"name": name})
                out.append(r)
    return out


def main() -> int:
    root = Path(sys.argv[1])
    data = {"spec": "OpenSHMEM Application Programming Interface, Version 1.5 (openshmem-org/"
                    "specification, tag v1.5), read by tests/spec/extract_routines.py",
            "routines": routines(root)}
    # one routine a line: diffs stay readable
    sys.stdout.write(f'{{"spec": {json.dumps(data["spec"])},\n "routines": [\n')
    sys.stdout.write(",\n".join("  " + json.dumps(r) for r in data["routines"]))
    sys.stdout.write("\n]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
