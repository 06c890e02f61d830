#!/usr/bin/env python3
"""What the OPTWEB engine costs in logic: Yosys synthesis of each block and of the node.

    rtl/synth/synth.py [--nodes 2,4,8,16] [--blocks] [--intel] [--timeout S] [--out DIR]
                       [--doc FILE]

Each run is one Yosys process (`synth_xilinx -flatten -noiopad`, and with --intel
`synth_intel_alm -family cyclonev` as an ALM proxy: Yosys has no Stratix 10 target). The node
(mm_node) is synthesized without its HBM2 pseudo-channels (mm_hbm_pc, a model of Intel's HBM2
controller: it is read as a black box, as the vendor IP it stands for would be); the blocks are
synthesized alone, at N = 8 where they have an N, 256-bit lanes. mm_hbm_pc and mm_link (the link,
SerialLite III and the optics) are models of vendor IP and are listed apart.

Results go to OUT/results.json as each run ends (a run that times out is recorded as such), and
the table to --doc (docs/rtl-synth.md with `make rtl-synth`). Not part of `make test`: the node
at N = 2 takes minutes, and each doubling of N several times more.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

RTL = Path(__file__).resolve().parent.parent
HDL = RTL / "hdl"
NODE_FILES = ("mm_pkg mm_cg mm_fifo mm_mem_sw mm_dmac_rd mm_dmac_wr mm_mdmac mm_dist mm_sel "
              "mm_sync mm_xbar mm_core_avg mm_seq mm_host_if mm_am mm_node").split()

# block: (files beyond mm_pkg, parameters, what it is in Fig. 2)
BLOCKS = {
    "mm_host_if": (["mm_fifo"], {}, "host interface: AXI4-Lite, descriptor and completion queues"),
    "mm_seq": ([], {"N": 8}, "command sequencer"),
    "mm_mdmac": ([], {"N": 8, "SW": 3}, "M_DMAC"),
    "mm_dmac_rd": (["mm_fifo"], {}, "DMAC read section R#n (one)"),
    "mm_dmac_wr": (["mm_fifo"], {}, "DMAC write section W#n (one)"),
    "mm_mem_sw": (["mm_fifo"], {}, "2x1 memory-mapped switch (one)"),
    "mm_dist": ([], {"N": 8}, "distributor (1 to N)"),
    "mm_sel": ([], {}, "N x 1 selector (one)"),
    "mm_xbar": ([], {"N": 8}, "N x N unidirectional switch"),
    "mm_sync": (["mm_fifo"], {}, "sync IP with its receive buffer (one lane)"),
    "mm_core_avg": ([], {"N": 8}, "averaging core (data processing core)"),
    "mm_am": (["mm_fifo"], {"N": 8}, "one-sided engine (meshmem's extension)"),
}
MODELS = {
    "mm_hbm_pc": (["mm_fifo"], {}, "model of an HBM2 pseudo-channel (vendor IP; a 32 KiB stand-in array)"),
    "mm_link": (["mm_fifo"], {}, "model of the link (SerialLite III and optics; 256 beats in flight)"),
}

# 7-series cells: logic LUTs, LUTs used as memory (LUTs per cell), flip-flops, 36 Kb block RAMs
XLUT = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV"}
XLUTRAM = {"RAM32M": 4, "RAM64M": 4, "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4, "RAM256X1S": 4,
           "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "SRL16E": 1, "SRLC32E": 1}
XFF = {"FDRE", "FDSE", "FDCE", "FDPE"}
XBRAM = {"RAMB36E1": 1.0, "RAMB18E1": 0.5}


def xilinx_counts(cells: dict) -> dict:
    return {"lut": sum(v for k, v in cells.items() if k in XLUT),
            "lutram": sum(v * XLUTRAM[k] for k, v in cells.items() if k in XLUTRAM),
            "ff": sum(v for k, v in cells.items() if k in XFF),
            "bram36": sum(v * XBRAM[k] for k, v in cells.items() if k in XBRAM),
            "dsp": cells.get("DSP48E1", 0), "carry4": cells.get("CARRY4", 0)}


def intel_counts(cells: dict) -> dict:
    aluts = sum(v for k, v in cells.items()
                if k.startswith("MISTRAL_ALUT") or k == "MISTRAL_NOT")
    return {"alut": aluts, "ff": cells.get("MISTRAL_FF", 0),
            "m10k": cells.get("MISTRAL_M10K", 0), "mlab": cells.get("MISTRAL_MLAB", 0),
            "dsp": sum(v for k, v in cells.items() if k.startswith("MISTRAL_MUL"))}


def script(top: str, files: list[str], params: dict, target: str, blackbox: bool, out: Path) -> str:
    paths = " ".join(str(HDL / f"{f}.sv") for f in files)
    s = [f"read_verilog -sv -I{HDL} {paths}"]
    if blackbox:
        s.append(f"read_verilog -sv -lib -I{HDL} {HDL / 'mm_hbm_pc.sv'}")
    s += [f"chparam -set {k} {v} {top}" for k, v in params.items()]
    s.append(f"hierarchy -check -top {top}")
    if target == "xilinx":
        s.append(f"synth_xilinx -flatten -noiopad -top {top}")
    else:
        s.append(f"synth_intel_alm -family cyclonev -noiopad -top {top}")
    s.append(f"tee -q -o {out} stat -json")
    return "; ".join(s)


def run_one(key: str, top: str, files, params, target, blackbox, out: Path, timeout: float,
            wrap: list[str]) -> dict:
    js = out / f"{key}.stat.json"
    log = out / f"{key}.log"
    cmd = wrap + ["yosys", "-q", "-l", str(log), "-p", script(top, files, params, target, blackbox, js)]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"key": key, "top": top, "target": target, "params": params,
                "status": f"not finished in {timeout:.0f} s", "seconds": timeout}
    dt = time.monotonic() - t0
    if r.returncode:
        err = (r.stderr.strip().splitlines() or ["yosys failed"])[-1]
        return {"key": key, "top": top, "target": target, "params": params, "status": err,
                "seconds": dt}
    cells = json.loads(js.read_text())["design"]["num_cells_by_type"]
    counts = xilinx_counts(cells) if target == "xilinx" else intel_counts(cells)
    return {"key": key, "top": top, "target": target, "params": params, "status": "ok",
            "seconds": round(dt, 1), "cells": cells, **counts}


def jobs(args):
    """(key, top, files, params, target, blackbox) in the order they run: blocks first (short),
    then the node by growing N, each N on Xilinx then (with --intel) Intel."""
    out = []
    if args.blocks:
        for name, (extra, params, _) in {**BLOCKS, **MODELS}.items():
            out.append((f"{name}-xilinx", name, ["mm_pkg", *extra, name], params, "xilinx", False))
    for n in args.nodes:
        targets = ["xilinx"] + (["intel"] if args.intel else [])
        for t in targets:
            out.append((f"mm_node-n{n}-{t}", "mm_node", NODE_FILES, {"N": n}, t, True))
    return out


def fmt(v) -> str:
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.1f}"
    return f"{int(v):,}"


def table(results: dict) -> str:
    """The Markdown tables: the node against N, then the blocks."""
    lines = []
    nodes = sorted((r for r in results.values() if r["top"] == "mm_node" and r["target"] == "xilinx"),
                   key=lambda r: r["params"]["N"])
    lines += ["### The node (mm_node, its HBM2 pseudo-channels excluded), Xilinx 7-series "
              "(`synth_xilinx`)", "",
              "| N | LUT (logic) | LUT as RAM | flip-flops | BRAM36 | CARRY4 | LUT+FF | vs N/2 | Yosys time |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    prev = {}
    for r in nodes:
        n = r["params"]["N"]
        if r["status"] != "ok":
            lines.append(f"| {n} | – | – | – | – | – | – | – | {r['status']} |")
            continue
        total = r["lut"] + r["lutram"] + r["ff"]
        grow = f"×{total / prev[n // 2]:.2f}" if n // 2 in prev else "–"
        prev[n] = total
        lines.append(f"| {n} | {fmt(r['lut'])} | {fmt(r['lutram'])} | {fmt(r['ff'])} | "
                     f"{fmt(r['bram36'])} | {fmt(r['carry4'])} | {fmt(total)} | {grow} | {r['seconds']:.0f} s |")
    intel = sorted((r for r in results.values() if r["top"] == "mm_node" and r["target"] == "intel"),
                   key=lambda r: r["params"]["N"])
    if intel:
        lines += ["", "### The node, Intel ALM proxy (`synth_intel_alm -family cyclonev`)", "",
                  "| N | ALUTs | flip-flops | M10K | MLAB | ALMs (ALUTs/2 .. ALUTs) | Yosys time |",
                  "|---:|---:|---:|---:|---:|---:|---:|"]
        for r in intel:
            n = r["params"]["N"]
            if r["status"] != "ok":
                lines.append(f"| {n} | – | – | – | – | – | {r['status']} |")
                continue
            lines.append(f"| {n} | {fmt(r['alut'])} | {fmt(r['ff'])} | {fmt(r['m10k'])} | "
                         f"{fmt(r['mlab'])} | {fmt(r['alut'] // 2)} .. {fmt(r['alut'])} | {r['seconds']:.0f} s |")
    blocks = [r for r in results.values() if r["top"] != "mm_node"]
    if blocks:
        lines += ["", "### The blocks alone (256-bit lanes; N = 8 where a block has an N), "
                  "`synth_xilinx`", "",
                  "| block | what | LUT (logic) | LUT as RAM | flip-flops | BRAM36 | LUT+FF |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for name, (_, _, what) in {**BLOCKS, **MODELS}.items():
            r = results.get(f"{name}-xilinx")
            if r is None:
                continue
            if r["status"] != "ok":
                lines.append(f"| {name} | {what} | – | – | – | – | {r['status']} |")
                continue
            lines.append(f"| {name} | {what} | {fmt(r['lut'])} | {fmt(r['lutram'])} | {fmt(r['ff'])} | "
                         f"{fmt(r['bram36'])} | {fmt(r['lut'] + r['lutram'] + r['ff'])} |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", default="2,4,8,16", help="node counts of the node's runs (default 2,4,8,16)")
    p.add_argument("--blocks", action="store_true", help="also each block alone")
    p.add_argument("--intel", action="store_true", help="also synth_intel_alm for the node")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per Yosys run (default 3600)")
    p.add_argument("--out", default="build/rtl-synth", help="results directory (default build/rtl-synth)")
    p.add_argument("--doc", help="write the tables to this Markdown file")
    p.add_argument("--again", action="store_true", help="run again what OUT/results.json has")
    p.add_argument("--wrap", default="", help="a command each Yosys run is started under "
                   "(e.g. nice -n 10)")
    p.add_argument("--table-only", action="store_true", help="print the tables of OUT/results.json, run nothing")
    args = p.parse_args()
    raw = args.nodes
    try:
        args.nodes = [int(x) for x in raw.split(",") if x]
    except ValueError:
        print(f"synth.py: --nodes {raw}: a list of node counts", file=sys.stderr)
        return 2
    if not args.nodes or any(n < 2 or n > 16 for n in args.nodes):
        print(f"synth.py: --nodes {raw}: node counts 2..16", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res_file = out / "results.json"
    results = json.loads(res_file.read_text()) if res_file.exists() else {}
    if not args.table_only:
        if not any(os.access(Path(d) / "yosys", os.X_OK) for d in os.environ["PATH"].split(":")):
            print("synth.py: yosys not found (scripts/install-deps.sh installs it)", file=sys.stderr)
            return 1
        for key, top, files, params, target, bb in jobs(args):
            if not args.again and results.get(key, {}).get("status") == "ok":
                continue
            print(f"synth: {key} ...", end="", flush=True)
            r = run_one(key, top, files, params, target, bb, out, args.timeout, args.wrap.split())
            results[key] = r
            res_file.write_text(json.dumps(results, indent=1) + "\n")
            print(f" {r['status']} ({r['seconds']:.0f} s)", flush=True)
    text = table(results)
    print(text)
    if args.doc:
        Path(args.doc).write_text(
            "<!-- written by rtl/synth/synth.py (make rtl-synth); docs/rtl.md explains it -->\n"
            "# What the OPTWEB engine costs in logic (Yosys 0.23)\n\n" + text + "\n")
    return 0 if all(r["status"] == "ok" for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
