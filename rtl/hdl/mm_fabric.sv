// mm_fabric: what mm_system holds besides its nodes: the cycle counter, the configuration's
// registers, and the N x N links (mm_link). The lanes cross it in the nodes' order: t_* holds
// node i's lane j at i*N + j (link i*N + j), and r_* holds what arrives at node i's lane j at
// i*N + j (from link j*N + i), so that each node's slice of either is contiguous. mm_system is
// N nodes and this; the simulator library evaluates the nodes and this as separate Verilated
// models and copies the lanes between them itself (rtl/sim/model_impl.hpp: the same wiring, with
// 2-state ports and no hierarchical block's boundary to convert).
module mm_fabric #(
  parameter int N = 4,
  parameter int DW = 256,
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
  // the configuration as registered, for the nodes
  output mm_pkg::cfg_t   c,
  output logic [4:0]     nodes_q,
  output logic [N*8-1:0] xy_q,
  output logic [N*N-1:0] link_on,     // which links exist: both ends present; on a GHC only
                                      // along a row or a column
  // the lanes: from the nodes (node i's lane j at i*N + j) and to them (node i's lane j,
  // from node j, at i*N + j)
  input  logic [N*N-1:0]     t_valid,
  input  logic [N*N*DW-1:0]  t_data,
  input  logic [N*N-1:0]     t_last,
  input  logic [N*N*($clog2(DW/8)+1)-1:0] t_bytes,
  input  logic [N*N-1:0]     t_user,
  input  logic [N*N*8-1:0]   t_sb,
  output logic [N*N-1:0]     r_valid,
  output logic [N*N*DW-1:0]  r_data,
  output logic [N*N-1:0]     r_last,
  output logic [N*N*($clog2(DW/8)+1)-1:0] r_bytes,
  output logic [N*N-1:0]     r_user,
  output logic [N*N*8-1:0]   r_sb,
  // the links' part of idle skipping
  output logic            act,
  output logic [63:0]     wake
);
  localparam int BWB = $clog2(DW/8) + 1;

  always_ff @(posedge clk) begin
    if (rst) now <= '0;
    else if (skip) now <= skip_to;
    else now <= now + 64'd1;
  end

  // The configuration is held in registers, loaded while in reset: nothing downstream then
  // depends combinationally on the model's inputs, which Verilator would otherwise evaluate
  // again at every input change (twice a cycle).
  logic           rst_q;               // the reset, registered: it enables the links' clocks
  logic           gate_q;
  always_ff @(posedge clk) rst_q <= rst;
  always_ff @(posedge clk) if (rst) gate_q <= gate;
  always_ff @(posedge clk) begin
    if (rst) begin
      c <= cfg;
      nodes_q <= nodes;
      xy_q <= xy;
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          link_on[i*N + j] <= 5'(i) < nodes && 5'(j) < nodes &&
            (i == j || !ghc || xy[i*8 +: 4] == xy[j*8 +: 4] || xy[i*8 + 4 +: 4] == xy[j*8 + 4 +: 4]);
    end
  end

  // lane j of node i sends on link i*N+j, which arrives at lane i of node j
  logic [N*N-1:0]    l_act;
  logic [63:0]       l_wake [N*N];
  // The links' outputs are gathered in arrays and packed by one loop: with the links' ports
  // connected to slices of a vector, Verilator 5.006 assembles the vector by N*N chained
  // concatenations, each as wide as all before it, whenever one link's output changes (20 % of
  // the time at 8 nodes, more at 16).
  logic [DW-1:0]     l_data [N*N];
  logic [BWB-1:0]    l_bytes [N*N];
  logic [7:0]        l_sb [N*N];
  always_comb
    for (int r = 0; r < N*N; r++) begin
      r_data[r*DW +: DW] = l_data[r];
      r_bytes[r*BWB +: BWB] = l_bytes[r];
      r_sb[r*8 +: 8] = l_sb[r];
    end
  for (genvar i = 0; i < N; i++) begin : node
    for (genvar j = 0; j < N; j++) begin : link
      localparam int L = i*N + j;      // the link, and where its TX is in t_*
      localparam int R = j*N + i;      // where its RX is in r_*
      logic lclk, lbusy;
      mm_cg cg (.clk, .en(rst_q || !gate_q || lbusy), .gclk(lclk));
      mm_link #(.DW(DW), .LD(LD)) l (
        .clk(lclk), .rst, .now, .en(link_on[L]),
        .lat(i == j ? c.loop_lat : c.link_lat),
        .tx_valid(t_valid[L]), .tx_data(t_data[L*DW +: DW]), .tx_last(t_last[L]),
        .tx_bytes(t_bytes[L*BWB +: BWB]), .tx_user(t_user[L]), .tx_sb(t_sb[L*8 +: 8]),
        .rx_valid(r_valid[R]), .rx_data(l_data[R]), .rx_last(r_last[R]),
        .rx_bytes(l_bytes[R]), .rx_user(r_user[R]), .rx_sb(l_sb[R]),
        .act(l_act[L]), .busy(lbusy), .wake(l_wake[L])
      );
    end
  end

  always_comb begin
    act = |l_act;
    wake = '1;
    for (int l = 0; l < N*N; l++) if (l_wake[l] < wake) wake = l_wake[l];
  end
endmodule
