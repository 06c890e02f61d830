// mm_xbar: the unidirectional N x N switch of the distributed switch (OPTWEB (JOCN 2022) §2.C:
// "used to route the communication data before forwarding the data to the M_DMAC"): it takes
// each lane's receive buffer head to
//   - the write section W#k whose source is that lane (`wsel`, the identity in every flow of the
//     paper: "each DMAC writes data from another FPGA into memory", §4.B.1), or
//   - the data processing core (lanes in `to_core`; the core's result then reaches W#`core_w`),
//     the path of the aggressive averaging (§3.C.2: "the distributed switch directly puts the
//     data into the averaging data circuit"), or
//   - for meshmem's one-sided extension, the active-message engine: each lane's second buffer
//     (mm_sync), one lane's packet at a time, round robin.
//
// Handshakes: each lane's sync IP drives valid and its beat; this switch drives the lane's ready
// from the ready of where the beat goes. The W sections, the core and the active-message engine
// drive their ready. Routes are the sequencer's, changed only while the lanes concerned are idle.
module mm_xbar #(
  parameter int N = 4,
  parameter int DW = 256
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [N*$clog2(N)-1:0] wsel,      // W#k's source lane
  input  logic [N-1:0]         to_core,
  input  logic                 core_w_en,   // W#core_w takes the core's result
  input  logic [$clog2(N)-1:0] core_w,
  // the lanes' raw receive buffers
  input  logic [N-1:0]         l_valid,
  output logic [N-1:0]         l_ready,
  input  logic [N*DW-1:0]      l_data,
  input  logic [N-1:0]         l_last,
  input  logic [N*($clog2(DW/8)+1)-1:0] l_bytes,
  // the lanes' active-message buffers
  input  logic [N-1:0]         la_valid,
  output logic [N-1:0]         la_ready,
  input  logic [N*DW-1:0]      la_data,
  input  logic [N-1:0]         la_last,
  // the write sections
  output logic [N-1:0]         w_valid,
  input  logic [N-1:0]         w_ready,
  output logic [N*DW-1:0]      w_data,
  output logic [N-1:0]         w_last,
  output logic [N*($clog2(DW/8)+1)-1:0] w_bytes,
  // the core: lanes' beats as they are (data on l_data), and its result
  output logic [N-1:0]         c_valid,
  input  logic [N-1:0]         c_ready,
  input  logic                 r_valid,
  output logic                 r_ready,
  input  logic [DW-1:0]        r_data,
  input  logic                 r_last,
  input  logic [$clog2(DW/8):0] r_bytes,
  // the active-message engine
  output logic                 a_valid,
  input  logic                 a_ready,
  output logic [DW-1:0]        a_data,
  output logic                 a_last,
  output logic [$clog2(N)-1:0] a_lane
);
  localparam int LW = $clog2(N);
  localparam int BWB = $clog2(DW/8) + 1;

  logic [N-1:0] raw;           // the lane's head is a raw beat for a W section
  logic         a_busy;        // a packet holds the engine's input
  logic [LW-1:0] a_cur, a_pick;
  logic         a_any;

  // forward (valid, data) and backward (ready) in separate blocks (Verilator orders blocks)
  always_comb begin
    raw = l_valid & ~to_core;
    c_valid = l_valid & to_core;
    for (int k = 0; k < N; k++) begin
      logic [LW-1:0] s;
      s = wsel[k*LW +: LW];
      if (core_w_en && LW'(k) == core_w) begin
        w_valid[k] = r_valid;
        w_data[k*DW +: DW] = r_data;
        w_last[k] = r_last;
        w_bytes[k*BWB +: BWB] = r_bytes;
      end else begin
        w_valid[k] = raw[s];
        w_data[k*DW +: DW] = l_data[s*DW +: DW];
        w_last[k] = l_last[s];
        w_bytes[k*BWB +: BWB] = l_bytes[s*BWB +: BWB];
      end
    end
    // active messages: the lane holding the engine, else the next lane after it with one
    a_pick = a_cur;
    a_any = 1'b0;
    for (int i = N; i >= 1; i--) begin
      logic [LW-1:0] c;
      c = a_cur + LW'(i);             // N is a power of two: wraps
      if (la_valid[c]) begin a_pick = c; a_any = 1'b1; end
    end
    a_lane  = a_busy ? a_cur : a_pick;
    a_valid = a_busy ? la_valid[a_cur] : a_any;
    a_data  = la_data[a_lane*DW +: DW];
    a_last  = la_last[a_lane];
  end

  always_comb begin
    l_ready = c_ready & to_core;
    la_ready = '0;
    r_ready = 1'b0;
    for (int k = 0; k < N; k++) begin
      logic [LW-1:0] s;
      s = wsel[k*LW +: LW];
      if (core_w_en && LW'(k) == core_w) r_ready = w_ready[k];
      else if (raw[s] && w_ready[k]) l_ready[s] = 1'b1;
    end
    if (a_valid && a_ready) la_ready[a_lane] = 1'b1;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      a_busy <= 1'b0; a_cur <= '0;
    end else if (a_valid && a_ready) begin
      a_busy <= !a_last;
      a_cur <= a_lane;
    end
  end
endmodule
