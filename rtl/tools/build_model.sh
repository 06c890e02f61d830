#!/bin/sh
# Build one Verilated model of rtl/hdl/mm_system.sv into one relocatable object that exports a
# single symbol, its factory (mm_rtl_model_NAME), so that several models (their node blocks'
# classes may share names) live in one library.
#   build_model.sh NAME LANES WIDTH SRCDIR OUTDIR [gate|nogate]
# Hierarchical verilation (mm_node is a block of its own, built once and instantiated N times)
# keeps the C++ small: the flat build of 8 nodes is ~40 MB of C++ and minutes of compiling.
set -eu
name=$1 lanes=$2 width=$3 src=$4 out=$5 gate=${6:-gate}
hdl=$src/hdl
mdir=$out/$name
mkdir -p "$mdir"
defs="-DMM_DPI"
[ "$gate" = gate ] && defs="$defs -DMM_GATE"
cflags="-O2 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -w"
vinc=$(verilator --getenv VERILATOR_ROOT)/include
files="mm_pkg.sv mm_cg.sv mm_fifo.sv mm_hbm_pc.sv mm_mem_sw.sv mm_dmac_rd.sv mm_dmac_wr.sv
  mm_mdmac.sv mm_dist.sv mm_sel.sv mm_sync.sv mm_xbar.sv mm_core_avg.sv mm_seq.sv mm_host_if.sv
  mm_am.sv mm_node.sv mm_link.sv mm_system.sv"
srcs=""
for f in $files; do srcs="$srcs $hdl/$f"; done
cd "$mdir"
verilator --cc --build -j 1 -O3 --hierarchical --x-assign fast --x-initial fast --noassert \
  -Wno-fatal -Wno-lint -Wno-style $defs -I"$hdl" --top-module mm_system \
  -GN="$lanes" -GDW="$width" --prefix "Vm_$name" --Mdir obj -CFLAGS "$cflags" \
  "$src/tools/hier.vlt" $srcs > verilate.log 2>&1 || { cat verilate.log >&2; exit 1; }
# the factory (Verilator's runtime is compiled once, in the library)
g++ -std=c++17 $cflags -I"$src/include" -I"$src/sim" -Iobj -I"$vinc" -I"$vinc/vltstd" \
  -DMM_MODEL_CLASS="Vm_$name" -DMM_MODEL_HEADER="\"Vm_$name.h\"" -DMM_MODEL_LANES="$lanes" \
  -DMM_MODEL_WIDTH="$width" -DMM_MODEL_FACTORY="mm_rtl_model_$name" \
  -c "$src/sim/model_impl.cpp" -o factory.o
# the model's archive (it holds the node block's objects too) and the factory, linked into one
# object whose names are all local but the factory's
rm -rf x && mkdir x
(cd x && ar x "../obj/Vm_${name}__ALL.a")
ld -r -o "model_$name.all.o" factory.o x/*.o
# (the personality routine's reference is shared by every C++ object: it stays global and weak)
objcopy --localize-hidden "model_$name.all.o" "model_$name.loc.o"
objcopy --globalize-symbol=DW.ref.__gxx_personality_v0 --weaken-symbol=DW.ref.__gxx_personality_v0 \
  "model_$name.loc.o" "$out/model_$name.o"
rm -rf x
