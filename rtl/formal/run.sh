#!/bin/sh
# Bounded model checks of the handshakes (yosys-smtbmc with z3): the sync IP pair and the
# rendezvous gating. One line per result; exit 1 on a counterexample (its trace is kept).
#   run.sh RTL_DIR OUT_DIR [DEPTH]
set -u
rtl=$1 out=$2 depth=${3:-14}
hdl=$rtl/hdl
mkdir -p "$out"
rc=0
check() {  # NAME TOP FILES...
  name=$1 top=$2; shift 2
  if ! yosys -q -l "$out/$name.yosys.log" -p "read_verilog -sv -formal -I$hdl $*; \
        prep -top $top; flatten; opt; async2sync; dffunmap; write_smt2 -wires $out/$name.smt2" \
        > /dev/null 2>&1; then
    echo "formal $name: yosys failed ($(grep -m1 -i error "$out/$name.yosys.log"))"; rc=1; return
  fi
  # bounded in memory and time: a solver that wanders must not take the machine
  if (ulimit -v 3000000; timeout 600 yosys-smtbmc -s z3 -t "$depth" --dump-vcd "$out/$name.vcd" \
        "$out/$name.smt2" > "$out/$name.log" 2>&1); then
    echo "formal $name: no assertion fails in $depth cycles"
  else
    echo "formal $name: FAILED ($(grep -m1 -i 'assert failed\|error\|timeout' "$out/$name.log" ||
      echo "out of time or memory"); trace $out/$name.vcd)"; rc=1
  fi
}
check sync mm_sync_formal "$hdl/mm_pkg.sv" "$hdl/mm_fifo.sv" "$hdl/mm_sync.sv" "$rtl/formal/mm_sync_formal.sv"
check rndv mm_rndv_formal "$hdl/mm_pkg.sv" "$hdl/mm_mdmac.sv" "$rtl/formal/mm_rndv_formal.sv"
exit $rc
