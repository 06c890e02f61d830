#!/usr/bin/env python3
"""Generate rtl/hdl/mm_defs.svh from rtl/include/mm_rtl_desc.h, the single source of the host
interface's opcodes, flags, status codes and register offsets.

    gen_defs.py HEADER OUT      write OUT
    gen_defs.py HEADER OUT --check   exit 1 (one line) when OUT differs from what HEADER gives
"""
import re
import sys

WIDTH = {"OP": 8, "F": 8, "AMO": 4, "SIG": 4, "ST": 4, "REG": 12, "ID": 32}


def generate(header_text: str) -> str:
    out = ["// Generated from rtl/include/mm_rtl_desc.h by rtl/tools/gen_defs.py: do not edit.",
           "// Included inside package mm_pkg."]
    for m in re.finditer(r"^#define MM_RTL_([A-Z]+)_(\w+)\s+(0x[0-9A-Fa-f]+)u?", header_text, re.M):
        group, name, value = m.group(1), m.group(2), int(m.group(3), 16)
        if group not in WIDTH:
            continue
        w = WIDTH[group]
        out.append(f"localparam logic [{w - 1}:0] {group}_{name} = {w}'h{value:0{(w + 3) // 4}X};")
    return "\n".join(out) + "\n"


def main(argv) -> int:
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--check"):
        print("usage: gen_defs.py HEADER OUT [--check]", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        text = generate(f.read())
    if len(argv) == 4:
        try:
            with open(argv[2]) as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            print(f"{argv[2]} is not what {argv[1]} gives: run rtl/tools/gen_defs.py {argv[1]} {argv[2]}")
            return 1
        return 0
    with open(argv[2], "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
