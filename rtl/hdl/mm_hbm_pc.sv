// mm_hbm_pc: one HBM2 pseudo-channel, as an AXI4 slave (OPTWEB (JOCN 2022) §2.C: "two
// independent 256-bit width pseudo memory controller channels (M) in each memory channel M#n").
//
// A model of vendor IP (Intel's HBM2 controller), not a design to synthesize: it does the AXI
// protocol and the timing, and keeps no data. The bytes live outside the per-cycle RTL state, in
// a backing store the simulator serves per node from a host buffer (DPI-C mm_mem_rd/mm_mem_wr,
// rtl/sim/rtlsim.cpp), so that a process can map its own memory as a node's. Without MM_DPI
// (Icarus, Yosys, formal) a small internal array stands in.
//
// Timing (assumptions, docs/rtl.md): a read burst's first beat leaves cfg rd_lat cycles after its
// AR is accepted, then one beat per cycle; a write's B leaves wr_lat cycles after its last W
// beat; reads and writes proceed in the same cycle (the paper: "it can read and write at 51.2
// Gbps per M#n"). Bursts are INCR, full width (AxSIZE = log2(DW/8)), one ID, answered in order.
//
// Handshakes: the master drives AR/AW/W valid and R/B ready; this model drives AR/AW/W ready
// (queue space), R valid (from a register filled when a due burst has a beat to give) and B
// valid (the due head of the B queue). `act` and `wake` tell the system whether a cycle may be
// skipped (mm_system).
module mm_hbm_pc #(
  parameter int DW = 256,
  parameter int AW = mm_pkg::AW,
  parameter int QD = 4,          // AR queue depth (bursts of up to 16 beats: 64 beats > rd_lat)
  parameter int WQ = 32,         // AW and B queue depth (the W DMAC writes single beats: > wr_lat)
  /* verilator lint_off UNUSEDPARAM */ // used by the stand-in array only (no MM_DPI)
  parameter int MEMW = 10        // beats of the stand-in array without MM_DPI (2^MEMW)
  /* verilator lint_on UNUSEDPARAM */
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [63:0]   now,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [7:0]    node,        // the backing store's node (MM_DPI)
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [7:0]    rd_lat,
  input  logic [7:0]    wr_lat,
  // AXI4 slave
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
  output logic          act,
  output logic          busy,        // a request is queued or an answer waits (clock enable)
  output logic [63:0]   wake
);
  localparam int BB = DW / 8;            // bytes per beat
  localparam int QW = $clog2(QD);
  localparam int WW = $clog2(WQ);

`ifdef MM_DPI
  import "DPI-C" function int mm_mem_rd(input int node, input longint addr, input int bytes,
                                        output bit [255:0] data);
  import "DPI-C" function int mm_mem_wr(input int node, input longint addr, input int bytes,
                                        input bit [255:0] data, input bit [31:0] strb);
`else
  logic [DW-1:0] ram [2**MEMW];
`endif

  // ---- read: AR queue of {addr, len, due}; the head streams once due ----
  logic [AW-1:0] ar_addr [QD];
  logic [7:0]    ar_len  [QD];
  logic [63:0]   ar_due  [QD];
  logic [QW:0]   ar_cnt;
  logic [QW-1:0] ar_rd, ar_wr;
  logic [7:0]    r_beat;                 // beats of the head burst already given
  logic          r_go;                   // a beat is fetched into the R register this cycle

  assign s_arready = ar_cnt != QD[QW:0];
  assign r_go = ar_cnt != '0 && now >= ar_due[ar_rd] && (!s_rvalid || s_rready);

  always_ff @(posedge clk) begin
    if (rst) begin
      ar_cnt <= '0; ar_rd <= '0; ar_wr <= '0; r_beat <= '0;
      s_rvalid <= 1'b0; s_rlast <= 1'b0; s_rresp <= 2'b00;
    end else begin
      if (s_arvalid && s_arready) begin
        ar_addr[ar_wr] <= s_araddr;
        ar_len[ar_wr]  <= s_arlen;
        ar_due[ar_wr]  <= now + {56'd0, rd_lat};
        ar_wr <= ar_wr + 1'b1;
      end
      if (s_rvalid && s_rready && !r_go) s_rvalid <= 1'b0;
      if (r_go) begin
        /* verilator lint_off UNUSEDSIGNAL */
        logic [AW-1:0] a;            // (the stand-in array uses part of it)
        /* verilator lint_on UNUSEDSIGNAL */
        a = ar_addr[ar_rd] + AW'(r_beat) * AW'(BB);
`ifdef MM_DPI
        begin
          bit [255:0] d;
          int st;
          st = mm_mem_rd({24'd0, node}, {{(64-AW){1'b0}}, a}, BB, d);
          s_rdata <= d[DW-1:0];
          s_rresp <= st != 0 ? 2'b10 : 2'b00;
        end
`else
        s_rdata <= ram[a[MEMW+$clog2(BB)-1:$clog2(BB)]];
        s_rresp <= 2'b00;
`endif
        s_rvalid <= 1'b1;
        s_rlast  <= r_beat == ar_len[ar_rd];
        if (r_beat == ar_len[ar_rd]) begin
          r_beat <= '0;
          ar_rd <= ar_rd + 1'b1;
        end else begin
          r_beat <= r_beat + 1'b1;
        end
      end
      ar_cnt <= ar_cnt + {{QW{1'b0}}, s_arvalid && s_arready} - {{QW{1'b0}}, r_go && r_beat == ar_len[ar_rd]};
    end
  end

  // ---- write: AW queue; W beats write through at once; B due wr_lat after the last beat ----
  logic [AW-1:0] aw_addr [WQ];
  logic [7:0]    aw_len  [WQ];
  logic [WW:0]   aw_cnt;
  logic [WW-1:0] aw_rd, aw_wr;
  logic [7:0]    w_beat;
  logic [63:0]   b_due  [WQ];
  logic [1:0]    b_resp [WQ];
  logic [WW:0]   b_cnt;
  logic [WW-1:0] b_rd, b_wr;
  logic          w_err;                  // an error in the current burst
  logic          w_go, b_go;
  logic [AW-1:0] cur_addr;
  logic [7:0]    cur_len;

  assign s_awready = aw_cnt != WQ[WW:0];
  // a W beat may come with its AW in the same cycle: then the AW being accepted is its burst
  assign cur_addr  = aw_cnt != '0 ? aw_addr[aw_rd] : s_awaddr;
  assign cur_len   = aw_cnt != '0 ? aw_len[aw_rd] : s_awlen;
  assign s_wready  = (aw_cnt != '0 || (s_awvalid && s_awready)) && b_cnt != WQ[WW:0];
  assign w_go = s_wvalid && s_wready;
  assign s_bvalid = b_cnt != '0 && now >= b_due[b_rd];
  assign s_bresp  = b_resp[b_rd];
  assign b_go = s_bvalid && s_bready;

  always_ff @(posedge clk) begin
    if (rst) begin
      aw_cnt <= '0; aw_rd <= '0; aw_wr <= '0; w_beat <= '0; w_err <= 1'b0;
      b_cnt <= '0; b_rd <= '0; b_wr <= '0;
    end else begin
      if (s_awvalid && s_awready) begin
        aw_addr[aw_wr] <= s_awaddr;
        aw_len[aw_wr]  <= s_awlen;
        aw_wr <= aw_wr + 1'b1;
      end
      if (w_go) begin
        /* verilator lint_off UNUSEDSIGNAL */
        logic [AW-1:0] a;            // (the stand-in array uses part of it)
        /* verilator lint_on UNUSEDSIGNAL */
        logic          bad;
        a = cur_addr + AW'(w_beat) * AW'(BB);
`ifdef MM_DPI
        begin
          bit [255:0] d;
          bit [31:0]  s;
          d = '0; s = '0;
          d[DW-1:0] = s_wdata;
          s[BB-1:0] = s_wstrb;
          bad = mm_mem_wr({24'd0, node}, {{(64-AW){1'b0}}, a}, BB, d, s) != 0;
        end
`else
        for (int i = 0; i < BB; i++)
          if (s_wstrb[i]) ram[a[MEMW+$clog2(BB)-1:$clog2(BB)]][8*i +: 8] <= s_wdata[8*i +: 8];
        bad = 1'b0;
`endif
        if (w_beat == cur_len || s_wlast) begin
          b_due[b_wr]  <= now + {56'd0, wr_lat};
          b_resp[b_wr] <= (w_err || bad) ? 2'b10 : 2'b00;
          b_wr <= b_wr + 1'b1;
          aw_rd <= aw_rd + 1'b1;
          w_beat <= '0;
          w_err <= 1'b0;
        end else begin
          w_beat <= w_beat + 1'b1;
          w_err <= w_err || bad;
        end
      end
      aw_cnt <= aw_cnt + {{WW{1'b0}}, s_awvalid && s_awready}
                       - {{WW{1'b0}}, w_go && (w_beat == cur_len || s_wlast)};
      b_cnt <= b_cnt + {{WW{1'b0}}, w_go && (w_beat == cur_len || s_wlast)} - {{WW{1'b0}}, b_go};
      if (b_go) b_rd <= b_rd + 1'b1;
    end
  end

  assign busy = ar_cnt != '0 || s_rvalid || aw_cnt != '0 || b_cnt != '0
             || s_arvalid || s_awvalid || s_wvalid;

  // idle skipping: anything this model will do without time passing, and the next due time
  always_comb begin
    act = r_go || (s_rvalid && s_rready) || (s_arvalid && s_arready) || (s_awvalid && s_awready)
       || w_go || b_go;
    wake = '1;
    if (ar_cnt != '0 && now < ar_due[ar_rd]) wake = ar_due[ar_rd];
    if (b_cnt != '0 && now < b_due[b_rd] && b_due[b_rd] < wake) wake = b_due[b_rd];
  end
endmodule
