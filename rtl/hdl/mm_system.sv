// mm_system: N nodes and the links between them, one clock, one cycle counter (OPTWEB (JOCN
// 2022) §2.D: a full mesh, or a 2-D generalized hypercube of kx x ky nodes linked only along rows
// and columns, "formed ... by disabling some of the links in the fully connected network
// topology", §4.B.2). The model is built for up to N nodes; `nodes`, the coordinates and the
// topology are data, loaded from a configuration file by the simulator, so one model serves every
// size up to N and both topologies.
//
// The cycle counter `now` times everything: the links' and memories' due times, the completion
// entries' start and end. When nothing moves anywhere (`act` low) the simulator may set `now`
// forward to the earliest due time (`wake`) instead of clocking idle cycles one by one
// (`skip`): a run then takes the same cycles either way, and a test holds it to that.
//
// The counter, the configuration's registers and the links are mm_fabric's; the simulator
// library evaluates the nodes and mm_fabric as separate Verilated models and wires them as here
// (rtl/sim/model_impl.hpp).
module mm_system #(
  parameter int N = 4,
  parameter int DW = 256,
  parameter int RB = 256,
  parameter int LD = 256
) (
  input  logic           clk,
  input  logic           rst,
  input  mm_pkg::cfg_t   cfg,         // the configuration: read while rst is high
  input  logic [4:0]     nodes,
  input  logic           ghc,
  input  logic           gate,        // simulation: stop idle units' clocks (mm_cg); 0 runs all
  input  logic [N*8-1:0] xy,          // node c's {y, x}
  input  logic           skip,
  input  logic [63:0]    skip_to,
  output logic [63:0]    now,
  // per node: AXI4-Lite
  input  logic [N-1:0]    s_awvalid,
  output logic [N-1:0]    s_awready,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [N*32-1:0] s_awaddr,    // a word per node (12 bits used): simple to drive
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [N-1:0]    s_wvalid,
  output logic [N-1:0]    s_wready,
  input  logic [N*32-1:0] s_wdata,
  output logic [N-1:0]    s_bvalid,
  input  logic [N-1:0]    s_bready,
  input  logic [N-1:0]    s_arvalid,
  output logic [N-1:0]    s_arready,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [N*32-1:0] s_araddr,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [N-1:0]    s_rvalid,
  input  logic [N-1:0]    s_rready,
  output logic [N*32-1:0] s_rdata,
  // idle skipping and the watchdog
  output logic            act,
  output logic [63:0]     wake,
  output logic [N-1:0]    irq,        // a node's completion queue is not empty
  output logic [N*128-1:0] dbg
);
  localparam int BWB = $clog2(DW/8) + 1;

  /* verilator lint_off UNUSEDSIGNAL */
  mm_pkg::cfg_t       c;               // the latencies are the fabric's own
  /* verilator lint_on UNUSEDSIGNAL */
  logic [4:0]         nodes_q;
  logic [N*8-1:0]     xy_q;
  logic [N*N-1:0]     link_on;
  logic [N*N-1:0]     tv, tl, tu, rv, rl, ru;
  logic [N*N*DW-1:0]  td, rd;
  logic [N*N*BWB-1:0] tb, rb;
  logic [N*N*8-1:0]   ts, rs;
  logic               f_act;
  logic [63:0]        f_wake;
  logic [N-1:0]       n_act;
  logic [N*64-1:0]    n_wake;

  mm_fabric #(.N(N), .DW(DW), .LD(LD)) fabric (
    .clk, .rst, .cfg, .nodes, .ghc, .gate, .xy, .skip, .skip_to, .now, .c, .nodes_q, .xy_q,
    .link_on, .t_valid(tv), .t_data(td), .t_last(tl), .t_bytes(tb), .t_user(tu), .t_sb(ts),
    .r_valid(rv), .r_data(rd), .r_last(rl), .r_bytes(rb), .r_user(ru), .r_sb(rs),
    .act(f_act), .wake(f_wake)
  );

  for (genvar i = 0; i < N; i++) begin : node
    mm_node #(.N(N), .DW(DW), .RB(RB)) n (
      .clk, .rst, .skip, .skip_to, .gate_i(gate), .eager_thr_i(c.eager_thr), .rd_lat_i(c.rd_lat),
      .wr_lat_i(c.wr_lat), .pc_sel_i(c.pc_sel[5:0]), .link_rate_i(c.link_rate),
      .loop_rate_i(c.loop_rate), .me_i(4'(i)), .nodes_i(nodes_q), .xy_i(xy_q),
      .lane_ok_i(link_on[i*N +: N]),
      .s_awvalid(s_awvalid[i]), .s_awready(s_awready[i]), .s_awaddr(s_awaddr[i*32 +: 12]),
      .s_wvalid(s_wvalid[i]), .s_wready(s_wready[i]), .s_wdata(s_wdata[i*32 +: 32]),
      .s_bvalid(s_bvalid[i]), .s_bready(s_bready[i]), .s_bresp(),
      .s_arvalid(s_arvalid[i]), .s_arready(s_arready[i]), .s_araddr(s_araddr[i*32 +: 12]),
      .s_rvalid(s_rvalid[i]), .s_rready(s_rready[i]), .s_rdata(s_rdata[i*32 +: 32]), .s_rresp(),
      .t_valid(tv[i*N +: N]), .t_data(td[i*N*DW +: N*DW]),
      .t_last(tl[i*N +: N]), .t_bytes(tb[i*N*BWB +: N*BWB]), .t_user(tu[i*N +: N]),
      .t_sb(ts[i*N*8 +: N*8]),
      .r_valid_i(rv[i*N +: N]), .r_data_i(rd[i*N*DW +: N*DW]), .r_last_i(rl[i*N +: N]),
      .r_bytes_i(rb[i*N*BWB +: N*BWB]), .r_user_i(ru[i*N +: N]), .r_sb_i(rs[i*N*8 +: N*8]),
      .act(n_act[i]), .wake(n_wake[i*64 +: 64]), .irq(irq[i]), .dbg(dbg[i*128 +: 128])
    );
  end

  always_comb begin
    act = f_act || |n_act;
    wake = f_wake;
    for (int i = 0; i < N; i++) if (n_wake[i*64 +: 64] < wake) wake = n_wake[i*64 +: 64];
  end
endmodule
