#!/bin/sh
# Build one Verilated model of rtl/hdl/mm_system.sv into one relocatable object with its factory
# (mm_rtl_model_NAME). The node block is renamed mm_node_NAME for the model, so that its classes
# (the top's carry the prefix Vm_NAME) differ from every other model's in the same library.
#   build_model.sh NAME LANES WIDTH SRCDIR OUTDIR [gate|nogate] [hier|flat]
# (nogate: every unit on the one clock, for the test that holds gating to change nothing;
# flat: no hierarchical block, for debugging)
# Hierarchical verilation (mm_node is a block of its own, built once and instantiated N times)
# keeps the C++ small: the flat build of 8 nodes is ~40 MB of C++ and minutes of compiling.
set -eu
name=$1 lanes=$2 width=$3 src=$4 out=$5 gate=${6:-gate} hier=${7:-hier}
hdl=${MM_HDL:-$src/hdl}
mdir=$out/$name
mkdir -p "$mdir"
defs="-DMM_DPI"
[ "$gate" = gate ] && defs="$defs -DMM_GATE"
cflags="-O2 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -w"
vinc=$(verilator --getenv VERILATOR_ROOT)/include
files="mm_pkg.sv mm_cg.sv mm_fifo.sv mm_hbm_pc.sv mm_mem_sw.sv mm_dmac_rd.sv mm_dmac_wr.sv
  mm_mdmac.sv mm_dist.sv mm_sel.sv mm_sync.sv mm_xbar.sv mm_core_avg.sv mm_seq.sv mm_host_if.sv
  mm_am.sv mm_node.sv mm_link.sv mm_system.sv"
cd "$mdir"
mkdir -p hdl
srcs=""
for f in $files; do
  case $f in
    mm_node.sv) sed "s/^module mm_node /module mm_node_$name /" "$hdl/$f" > hdl/$f ;;
    mm_system.sv) sed "s/^    mm_node #(/    mm_node_$name #(/" "$hdl/$f" > hdl/$f ;;
    *) cp "$hdl/$f" hdl/$f ;;
  esac
  srcs="$srcs hdl/$f"
done
grep -q "^module mm_node_$name " hdl/mm_node.sv && grep -q "mm_node_$name #(" hdl/mm_system.sv ||
  { echo "build_model.sh: could not rename mm_node for model $name" >&2; exit 1; }
printf '`verilator_config\nhier_block -module "mm_node_%s"\n' "$name" > hier.vlt
hflag=--hierarchical
[ "$hier" = flat ] && { hflag=; : > hier.vlt; }
verilator --cc --build -j 1 -O3 $hflag --x-assign fast --x-initial fast --noassert \
  -Wno-fatal -Wno-lint -Wno-style $defs -I"$hdl" --top-module mm_system \
  -GN="$lanes" -GDW="$width" --prefix "Vm_$name" --Mdir obj -CFLAGS "$cflags" \
  hier.vlt $srcs > verilate.log 2>&1 || { cat verilate.log >&2; exit 1; }
# the factory (Verilator's runtime is compiled once, in the library)
g++ -std=c++17 $cflags -I"$src/include" -I"$src/sim" -Iobj -I"$vinc" -I"$vinc/vltstd" \
  -DMM_MODEL_CLASS="Vm_$name" -DMM_MODEL_HEADER="\"Vm_$name.h\"" -DMM_MODEL_LANES="$lanes" \
  -DMM_MODEL_WIDTH="$width" -DMM_MODEL_FACTORY="mm_rtl_model_$name" \
  -c "$src/sim/model_impl.cpp" -o factory.o
# the model's archive (it holds the node block's objects too) and the factory, in one object
rm -rf x && mkdir x
(cd x && ar x "../obj/Vm_${name}__ALL.a")
ld -r -o "$out/model_$name.o" factory.o x/*.o
rm -rf x
