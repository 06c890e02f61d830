#!/bin/sh
# Lint the RTL: Verilator (-Wall, its waivers in hdl/lint.vlt) on every top as it is simulated
# and as it is synthesized, and Yosys on what it synthesizes, failing on the warnings that mean
# Yosys read something else than Verilator did (an implicitly declared net, a select out of
# range, a driver conflict). One line per failure. Used by ctest (rtl.lint).
#   lint.sh RTL_DIR
set -u
rtl=$1
hdl=$rtl/hdl
core="mm_pkg.sv mm_cg.sv mm_fifo.sv mm_hbm_pc.sv mm_mem_sw.sv mm_dmac_rd.sv mm_dmac_wr.sv
  mm_mdmac.sv mm_dist.sv mm_sel.sv mm_sync.sv mm_xbar.sv mm_core_avg.sv mm_seq.sv mm_host_if.sv
  mm_am.sv mm_node.sv mm_link.sv mm_fabric.sv mm_system.sv"
files=""
for f in $core; do files="$files $hdl/$f"; done
rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for defs in "-DMM_DPI -DMM_GATE" ""; do
  for n in 2 4; do
    if ! verilator --lint-only -Wall $defs -GN=$n -I"$hdl" "$hdl/lint.vlt" $files \
         --top-module mm_system > "$tmp/v.log" 2>&1; then
      echo "verilator -Wall mm_system N=$n $defs: $(grep -m1 '%' "$tmp/v.log")"; rc=1
    fi
  done
done
if ! verilator --lint-only -Wall -Wno-UNUSEDSIGNAL -Wno-PINCONNECTEMPTY -I"$hdl" "$hdl/lint.vlt" \
     $files "$rtl/tests/unit/mm_unit_tb.sv" --top-module mm_unit_tb > "$tmp/v.log" 2>&1; then
  echo "verilator mm_unit_tb: $(grep -m1 '%' "$tmp/v.log")"; rc=1
fi
# Yosys: the node as synthesized (no DPI: the pseudo-channels' stand-in arrays)
for top in mm_node; do
  yosys -q -l "$tmp/y.log" -p "read_verilog -sv -I$hdl $files; chparam -set N 4 $top; \
    hierarchy -check -top $top; proc" > /dev/null 2>&1 ||
    { echo "yosys $top: $(grep -m1 -i error "$tmp/y.log")"; rc=1; }
  if grep -E -i "implicitly declared|out of bounds|conflict|is used but has no driver|multiple drivers" \
       "$tmp/y.log" > "$tmp/bad"; then
    echo "yosys $top: $(head -1 "$tmp/bad")"; rc=1
  fi
done
[ $rc = 0 ] && echo "lint: verilator -Wall (mm_system at 2 and 4 nodes, simulated and synthesized; the unit bench) and yosys (mm_node): clean"
exit $rc
