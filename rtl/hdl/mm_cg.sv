// mm_cg: a clock gate for simulation speed. With MM_GATE (the Verilator builds) a unit's clock
// stops in every cycle its enable is low, and Verilator then runs none of its sequential logic:
// an idle channel, lane or link costs no simulation time. The enable must be high in every cycle
// the unit's state could change (its own pending work, or an input that starts some); the
// enable is held through the high phase, as an integrated clock-gating cell does, so the enable's
// own change at the edge cannot clock the unit twice. (A flop on the falling edge rather than a
// latch: the same function, and Verilator then computes the enable with the rest of the logic
// after the rising edge, not again at every evaluation as it does a latch's, which depends on
// the clock.) Without MM_GATE (Yosys, Icarus) the clock
// passes through: the design is the same, and a test runs a model built each way and holds their
// cycles and memory equal (rtl/tests).
module mm_cg (
  input  logic clk,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic en,              // (unused without MM_GATE)
  /* verilator lint_on UNUSEDSIGNAL */
  output logic gclk
);
`ifdef MM_GATE
  logic en_l;
  always_ff @(negedge clk) en_l <= en;
  assign gclk = clk & en_l;
`else
  assign gclk = clk;
`endif
endmodule
