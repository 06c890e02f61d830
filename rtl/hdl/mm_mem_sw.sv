// mm_mem_sw: the 2x1 bidirectional memory-mapped switch of a memory channel M#n (OPTWEB (JOCN
// 2022) §2.C): the DMAC's one AXI4 master (its read section R#n uses AR/R, its write section W#n
// uses AW/W/B) reaches the channel's two pseudo-channels, chosen by one address bit (cfg pc_sel,
// an assumption: the paper does not say how addresses map onto the two).
//
// Handshakes: the DMAC (slave side here) drives AR/AW/W valid and R/B ready; each pseudo-channel
// drives its AR/AW/W ready, R/B valid. An AR or AW goes to the pseudo-channel its address picks
// and its choice enters an order queue; R beats, W beats and B responses are then taken from the
// pseudo-channel at the head of their queue, so the DMAC sees the answers in the order it asked
// (the pseudo-channels answer in order, each on its own). A W beat may go in the same cycle as its
// AW (the W DMAC issues single-beat writes that way). A burst never spans the two: the DMACs
// split bursts at 512 bytes and pc_sel is 9 or above.
module mm_mem_sw #(
  parameter int DW = 256,
  parameter int AW = mm_pkg::AW,
  parameter int OD = 32           // bursts in flight per direction: the W DMAC's single-beat
                                  // writes need more than the write latency's worth in flight
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [5:0]    pc_sel,
  // from the DMAC
  input  logic          s_arvalid,
  output logic          s_arready,
  input  logic [AW-1:0] s_araddr,
  input  logic [7:0]    s_arlen,
  output logic          s_rvalid,
  input  logic          s_rready,
  output logic [DW-1:0] s_rdata,
  output logic          s_rlast,
  output logic [1:0]    s_rresp,
  input  logic          s_awvalid,
  output logic          s_awready,
  input  logic [AW-1:0] s_awaddr,
  input  logic [7:0]    s_awlen,
  input  logic          s_wvalid,
  output logic          s_wready,
  input  logic [DW-1:0] s_wdata,
  input  logic [DW/8-1:0] s_wstrb,
  input  logic          s_wlast,
  output logic          s_bvalid,
  input  logic          s_bready,
  output logic [1:0]    s_bresp,
  // to the pseudo-channels: index 0 and 1 packed side by side
  output logic [1:0]        m_arvalid,
  input  logic [1:0]        m_arready,
  output logic [AW-1:0]     m_araddr,
  output logic [7:0]        m_arlen,
  input  logic [1:0]        m_rvalid,
  output logic [1:0]        m_rready,
  input  logic [2*DW-1:0]   m_rdata,
  input  logic [1:0]        m_rlast,
  input  logic [3:0]        m_rresp,
  output logic [1:0]        m_awvalid,
  input  logic [1:0]        m_awready,
  output logic [AW-1:0]     m_awaddr,
  output logic [7:0]        m_awlen,
  output logic [1:0]        m_wvalid,
  input  logic [1:0]        m_wready,
  output logic [DW-1:0]     m_wdata,
  output logic [DW/8-1:0]   m_wstrb,
  output logic              m_wlast,
  input  logic [1:0]        m_bvalid,
  output logic [1:0]        m_bready,
  input  logic [3:0]        m_bresp
);
  localparam int OW = $clog2(OD);

  // order queues: which pseudo-channel answers each burst, oldest first (bit i of the vector)
  logic [OD-1:0] r_q, w_q, b_q;
  logic [OW:0]   r_n, w_n, b_n;
  logic          ar_pc, aw_pc, r_pc, w_pc, b_pc;
  logic          ar_go, r_end, aw_go, w_end, b_go;
  logic          w_to, w_ok;

  assign ar_pc = |(s_araddr & (AW'(1) << pc_sel));
  assign aw_pc = |(s_awaddr & (AW'(1) << pc_sel));
  assign r_pc  = r_q[0];
  assign w_pc  = w_q[0];
  assign b_pc  = b_q[0];

  // forward (valid, address, data) and backward (ready) in separate blocks: Verilator orders
  // blocks, not bits, and a block that both reads a ready and drives a valid would be a loop
  always_comb begin
    m_arvalid = '0;
    m_arvalid[ar_pc] = s_arvalid && r_n != OD[OW:0];
    m_araddr = s_araddr;
    m_arlen  = s_arlen;
  end
  assign s_arready = m_arready[ar_pc] && r_n != OD[OW:0];
  // answers from the head's pseudo-channel only
  assign s_rvalid = r_n != '0 && m_rvalid[r_pc];
  assign s_rdata  = r_pc ? m_rdata[DW +: DW] : m_rdata[0 +: DW];
  assign s_rlast  = m_rlast[r_pc];
  assign s_rresp  = m_rresp[2*r_pc +: 2];
  always_comb begin
    m_rready = '0;
    m_rready[r_pc] = s_rready && r_n != '0;
  end
  // writes: AW may run ahead of W (both queues), W follows the oldest AW's choice
  always_comb begin
    m_awvalid = '0;
    m_awvalid[aw_pc] = s_awvalid && w_n != OD[OW:0] && b_n != OD[OW:0];
    m_awaddr = s_awaddr;
    m_awlen  = s_awlen;
  end
  assign s_awready = m_awready[aw_pc] && w_n != OD[OW:0] && b_n != OD[OW:0];
  // a W beat follows the oldest AW not yet written, or the AW handed over in this cycle
  assign w_to = w_n != '0 ? w_pc : aw_pc;
  assign w_ok = w_n != '0 || (s_awvalid && s_awready);
  always_comb begin
    m_wvalid = '0;
    m_wvalid[w_to] = s_wvalid && w_ok;
    m_wdata = s_wdata;
    m_wstrb = s_wstrb;
    m_wlast = s_wlast;
  end
  assign s_wready = m_wready[w_to] && w_ok;
  assign s_bvalid = b_n != '0 && m_bvalid[b_pc];
  assign s_bresp  = m_bresp[2*b_pc +: 2];
  always_comb begin
    m_bready = '0;
    m_bready[b_pc] = s_bready && b_n != '0;
  end

  assign ar_go = s_arvalid && s_arready;
  assign r_end = s_rvalid && s_rready && s_rlast;
  assign aw_go = s_awvalid && s_awready;
  assign w_end = s_wvalid && s_wready && s_wlast;
  assign b_go  = s_bvalid && s_bready;

  // a queue as a shift register of bits: push at index n (n - 1 after a pop), pop shifts
  function automatic logic [OD-1:0] qstep(input logic [OD-1:0] q, input logic [OW:0] n,
                                          input logic push, input logic bit_in, input logic pop);
    logic [OD-1:0] r;
    logic [OW-1:0] k;
    r = pop ? (q >> 1) : q;
    k = pop ? OW'(n - 1'b1) : OW'(n);
    if (push && !(pop && n == '0)) r[k] = bit_in;   // n == 0: pushed and popped at once
    qstep = r;
  endfunction

  always_ff @(posedge clk) begin
    if (rst) begin
      r_q <= '0; w_q <= '0; b_q <= '0; r_n <= '0; w_n <= '0; b_n <= '0;
    end else begin
      r_q <= qstep(r_q, r_n, ar_go, ar_pc, r_end);
      r_n <= r_n + {{OW{1'b0}}, ar_go} - {{OW{1'b0}}, r_end};
      w_q <= qstep(w_q, w_n, aw_go, aw_pc, w_end);
      w_n <= w_n + {{OW{1'b0}}, aw_go} - {{OW{1'b0}}, w_end};
      b_q <= qstep(b_q, b_n, aw_go, aw_pc, b_go);
      b_n <= b_n + {{OW{1'b0}}, aw_go} - {{OW{1'b0}}, b_go};
    end
  end
endmodule
