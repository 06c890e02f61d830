// mm_dmac_wr: the write section W#n of a DMAC (OPTWEB (JOCN 2022) §2.C): writes one arriving
// message into memory from `addr` through its channel's AXI4 write port, until the message's
// end-of-packet mark (OPTWEB sort (IPSJ) §3.4(5): the receiver needs no byte count, so the
// sender's lengths need not be known in advance).
//
// Handshakes: M_DMAC pulses `start` with the command; this module drives AW/W valid and B ready
// and the stream's ready. Every beat is one single-beat write (AWLEN 0) whose AW and W go in the
// same cycle (the pseudo-channel may wait for AWVALID before WREADY); the beat is taken from the
// stream when its W is accepted, its AW having been accepted then or before (`aw_sent`). The
// message is done when its last beat is written and every B has come back, so a completion
// means the data is in memory. With `cnt_en` the received byte count is written last, as a u32
// at `cnt_addr` (ALLTOALLV's received-length table). A message longer than `cap` is consumed to
// its end but only `cap` bytes are written, and `err` says so.
module mm_dmac_wr #(
  parameter int DW = 256,
  parameter int AW = mm_pkg::AW
) (
  input  logic          clk,
  input  logic          rst,
  // command (from M_DMAC)
  input  logic          start,
  input  logic [AW-1:0] addr,
  input  logic [31:0]   cap,
  input  logic          cnt_en,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [AW-1:0] cnt_addr,   // a u32: its two low bits are 0
  /* verilator lint_on UNUSEDSIGNAL */
  output logic          busy,
  output logic          done,       // one cycle: the message is in memory
  output logic [1:0]    err,        // with done: 1 overflow, 2 memory error
  output logic [31:0]   nbytes,     // with done: bytes received
  output logic          act,        // its state changes at the next edge (idle skipping)
  // the message
  input  logic          t_valid,
  output logic          t_ready,
  input  logic [DW-1:0] t_data,
  input  logic          t_last,
  input  logic [$clog2(DW/8):0] t_bytes,
  // AXI4 write master
  output logic          m_awvalid,
  input  logic          m_awready,
  output logic [AW-1:0] m_awaddr,
  output logic [7:0]    m_awlen,
  output logic          m_wvalid,
  input  logic          m_wready,
  output logic [DW-1:0] m_wdata,
  output logic [DW/8-1:0] m_wstrb,
  output logic          m_wlast,
  input  logic          m_bvalid,
  output logic          m_bready,
  input  logic [1:0]    m_bresp
);
  localparam int BB = DW / 8;
  localparam int BW = $clog2(BB);

  typedef enum logic [1:0] {S_IDLE, S_DATA, S_CNT, S_DRAIN} st_t;
  st_t st;
  logic [AW-1:0] a_next;
  logic [31:0]   room;        // bytes the capacity still allows
  logic [31:0]   got;
  logic [15:0]   b_wait;      // B responses outstanding
  logic          aw_sent;     // the current beat's AW is already accepted
  logic          ovf, merr;
  logic          cnt_en_q;
  logic [AW-1:2] cnt_addr_q;  // a u32's address
  logic          keep;        // the current beat fits the capacity
  logic          w_go, aw_go;

  always_comb begin
    keep = {{(32-BW-1){1'b0}}, t_bytes} <= room;
    // data beats (kept ones are written; the rest are taken and dropped), then the count
    m_awvalid = ((st == S_DATA && t_valid && keep) || st == S_CNT) && !aw_sent;
    m_wvalid  = (st == S_DATA && t_valid && keep) || st == S_CNT;
    m_awaddr  = st == S_CNT ? {cnt_addr_q[AW-1:BW], {BW{1'b0}}} : a_next;
    m_awlen   = 8'd0;
    m_wlast   = 1'b1;
    m_wdata   = st == S_CNT ? {(DW/32){got}} : t_data;
    m_wstrb   = '0;
    if (st == S_CNT) m_wstrb[{cnt_addr_q[BW-1:2], 2'b00} +: 4] = 4'hF;
    else for (int i = 0; i < BB; i++) m_wstrb[i] = (BW+1)'(i) < t_bytes;
    m_bready = 1'b1;
    busy = st != S_IDLE;
  end
  assign aw_go = m_awvalid && m_awready;
  assign w_go  = m_wvalid && m_wready && (aw_sent || m_awready);
  assign t_ready = st == S_DATA && (keep ? (m_wready && (aw_sent || m_awready)) : 1'b1);
  assign act = start || done || aw_go || w_go || (t_valid && t_ready) || m_bvalid
            || (st == S_DRAIN && b_wait == 16'd0);

  always_ff @(posedge clk) begin
    done <= 1'b0;
    if (rst) begin
      st <= S_IDLE; aw_sent <= 1'b0; b_wait <= '0; err <= '0; nbytes <= '0;
    end else begin
      b_wait <= b_wait + {15'd0, w_go} - {15'd0, m_bvalid};
      if (m_bvalid && m_bresp != 2'b00) merr <= 1'b1;
      case (st)
        S_IDLE: if (start) begin
          a_next <= addr; room <= cap; got <= '0; ovf <= 1'b0; merr <= 1'b0;
          cnt_en_q <= cnt_en; cnt_addr_q <= cnt_addr[AW-1:2]; aw_sent <= 1'b0;
          st <= S_DATA;
        end
        S_DATA: begin
          if (aw_go && !w_go) aw_sent <= 1'b1;
          if (t_valid && t_ready) begin
            aw_sent <= 1'b0;
            got <= got + {{(32-BW-1){1'b0}}, t_bytes};
            if (keep) begin
              a_next <= a_next + AW'(BB);
              room <= room - {{(32-BW-1){1'b0}}, t_bytes};
            end else ovf <= 1'b1;
            if (t_last) st <= cnt_en_q ? S_CNT : S_DRAIN;
          end
        end
        S_CNT: begin
          if (aw_go && !w_go) aw_sent <= 1'b1;
          if (w_go) begin aw_sent <= 1'b0; st <= S_DRAIN; end
        end
        S_DRAIN: if (b_wait == 16'd0 || (b_wait == 16'd1 && m_bvalid)) begin
          st <= S_IDLE; done <= 1'b1; nbytes <= got;
          err <= ovf ? 2'd1 : (merr || (m_bvalid && m_bresp != 2'b00)) ? 2'd2 : 2'd0;
        end
        default: st <= S_IDLE;
      endcase
    end
  end
endmodule
