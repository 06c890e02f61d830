#!/bin/sh
# Build one model of rtl/hdl/mm_system.sv into one relocatable object with its factory
# (mm_rtl_model_NAME): two Verilated models, the node (mm_node, class prefix Vn_NAME, instantiated
# N times by the factory) and the rest of the system (mm_fabric: the links, the cycle counter, the
# configuration; prefix Vm_NAME), which rtl/sim/model_impl.hpp wires together as mm_system does.
# The prefixes keep each model's classes apart from every other model's in the same library.
#   build_model.sh NAME LANES WIDTH SRCDIR OUTDIR [gate|nogate]
# (nogate: every unit on the one clock, for the test that holds gating to change nothing)
# Two models rather than one with mm_node as Verilator's hierarchical block: the block's ports
# cross its boundary as 4-state vectors, converted at every evaluation (the 2048-bit lanes, both
# ways, 3 times a cycle: 29 % of the time under all-to-all at 8 nodes), and one flat model of N
# nodes is N copies of the node's code (~40 MB of C++ at 8 nodes, minutes of compiling).
set -eu
name=$1 lanes=$2 width=$3 src=$4 out=$5 gate=${6:-gate}
hdl=${MM_HDL:-$src/hdl}
mdir=$out/$name
mkdir -p "$mdir"
defs="-DMM_DPI"
[ "$gate" = gate ] && defs="$defs -DMM_GATE"
cflags="-O2 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -w"
vinc=$(verilator --getenv VERILATOR_ROOT)/include
files="mm_pkg.sv mm_cg.sv mm_fifo.sv mm_hbm_pc.sv mm_mem_sw.sv mm_dmac_rd.sv mm_dmac_wr.sv
  mm_mdmac.sv mm_dist.sv mm_sel.sv mm_sync.sv mm_xbar.sv mm_core_avg.sv mm_seq.sv mm_host_if.sv
  mm_am.sv mm_node.sv mm_link.sv mm_fabric.sv"
cd "$mdir"
srcs=""
for f in $files; do srcs="$srcs $hdl/$f"; done
# verilate TOP PREFIX: one model into obj_PREFIX
verilate() {
  verilator --cc --build -j 1 -O3 --x-assign fast --x-initial fast --noassert \
    -Wno-fatal -Wno-lint -Wno-style $defs -I"$hdl" --top-module "$1" \
    -GN="$lanes" -GDW="$width" --prefix "$2" --Mdir "obj_$2" -CFLAGS "$cflags" \
    $srcs > "verilate_$2.log" 2>&1 || { cat "verilate_$2.log" >&2; exit 1; }
}
verilate mm_node "Vn_$name"
verilate mm_fabric "Vm_$name"
# the factory (Verilator's runtime is compiled once, in the library)
g++ -std=c++17 $cflags -I"$src/include" -I"$src/sim" -I"obj_Vn_$name" -I"obj_Vm_$name" -I"$vinc" \
  -I"$vinc/vltstd" -DMM_NODE_CLASS="Vn_$name" -DMM_NODE_HEADER="\"Vn_$name.h\"" \
  -DMM_FABRIC_CLASS="Vm_$name" -DMM_FABRIC_HEADER="\"Vm_$name.h\"" -DMM_MODEL_LANES="$lanes" \
  -DMM_MODEL_WIDTH="$width" -DMM_MODEL_FACTORY="mm_rtl_model_$name" \
  -c "$src/sim/model_impl.cpp" -o factory.o
# the two models' archives and the factory, in one object
rm -rf x && mkdir x
(cd x && ar x "../obj_Vn_$name/Vn_${name}__ALL.a" && ar x "../obj_Vm_$name/Vm_${name}__ALL.a")
ld -r -o "$out/model_$name.o" factory.o x/*.o
rm -rf x
