// mm_dmac_rd: the read section R#n of a DMAC (OPTWEB (JOCN 2022) §2.C: "as many DMACs as there
// are FPGAs"): reads one block from memory through its channel's AXI4 read port and streams it
// out as one message, its last beat marked (the end-of-packet mark of OPTWEB sort (IPSJ)
// §3.4(5)), toward the distributed switch.
//
// Handshakes: M_DMAC pulses `start` with the block (it holds the command stable only in that
// cycle); this module drives AR valid and R ready, the stream's valid, data, last and bytes. The
// stream passes R straight through (valid = R valid, R ready = stream ready), so back-pressure
// from the link reaches the pseudo-channel, which holds its beat. A message is at least one
// beat: an empty block is one beat of 0 bytes with `last`, so the receiver still sees the end.
//
// Length from memory (ALLTOALLV): with `len_mem`, the u32 at `len_addr` is read first and is the
// block's length (the sender's count table, so that the host need not pass N lengths).
// Bursts: at most 16 beats, never across a 512-byte boundary.
module mm_dmac_rd #(
  parameter int DW = 256,
  parameter int AW = mm_pkg::AW
) (
  input  logic          clk,
  input  logic          rst,
  // command (from M_DMAC)
  input  logic          start,
  input  logic [AW-1:0] addr,
  input  logic [31:0]   len,
  input  logic          len_mem,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [AW-1:0] len_addr,   // a u32: its two low bits are 0
  /* verilator lint_on UNUSEDSIGNAL */
  output logic          busy,
  output logic          done,       // one cycle, after the last beat left
  output logic          err,        // with done: the memory answered an error
  output logic          act,        // its state changes at the next edge (idle skipping)
  // AXI4 read master
  output logic          m_arvalid,
  input  logic          m_arready,
  output logic [AW-1:0] m_araddr,
  output logic [7:0]    m_arlen,
  input  logic          m_rvalid,
  output logic          m_rready,
  input  logic [DW-1:0] m_rdata,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic          m_rlast,    // the DMAC counts its beats; RLAST only confirms them
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [1:0]    m_rresp,
  // the message
  output logic          t_valid,
  input  logic          t_ready,
  output logic [DW-1:0] t_data,
  output logic          t_last,
  output logic [$clog2(DW/8):0] t_bytes
);
  localparam int BB = DW / 8;
  localparam int BW = $clog2(BB);

  typedef enum logic [1:0] {S_IDLE, S_LEN_AR, S_LEN_R, S_DATA} st_t;
  st_t st;
  logic [AW-1:0] a_next;       // next burst address
  logic [31:0]   ar_left;      // beats still to request
  logic [31:0]   out_left;     // beats still to stream
  logic [31:0]   blen;         // the block's length in bytes
  logic [BW-3:0] len_off;      // u32 index of the length word in its beat
  logic [7:0]    burst;        // beats of the next burst, less one
  logic          bad;

  function automatic logic [31:0] beats_of(input logic [31:0] n);
    beats_of = n == 0 ? 32'd1 : (n + 32'(BB - 1)) >> BW;
  endfunction

  always_comb begin
    logic [31:0] room;        // beats to the next 512-byte boundary
    room = 32'd16 - {28'd0, a_next[BW +: 4]};
    burst = ar_left < room ? 8'(ar_left - 1) : 8'(room - 1);
    m_arvalid = (st == S_LEN_AR) || (st == S_DATA && ar_left != 0);
    m_araddr  = st == S_LEN_AR ? {len_addr[AW-1:BW], {BW{1'b0}}} : a_next;
    m_arlen   = st == S_LEN_AR ? 8'd0 : burst;
    t_valid   = st == S_DATA && m_rvalid;
    t_data    = m_rdata;
    t_last    = out_left == 32'd1;
    t_bytes   = out_left != 32'd1 ? (BW+1)'(BB)
              : (BW+1)'(blen - ((beats_of(blen) - 1) << BW));
    busy      = st != S_IDLE;
  end
  assign m_rready = st == S_LEN_R || (st == S_DATA && t_ready);
  assign act = start || done || (m_arvalid && m_arready) || (m_rvalid && m_rready);

  always_ff @(posedge clk) begin
    done <= 1'b0;
    if (rst) begin
      st <= S_IDLE; err <= 1'b0; bad <= 1'b0;
    end else begin
      case (st)
        S_IDLE: if (start) begin
          a_next  <= addr;
          bad     <= 1'b0;
          len_off <= len_addr[BW-1:2];
          if (len_mem) st <= S_LEN_AR;
          else begin
            blen <= len; ar_left <= beats_of(len); out_left <= beats_of(len); st <= S_DATA;
          end
        end
        S_LEN_AR: if (m_arready) st <= S_LEN_R;
        S_LEN_R: if (m_rvalid) begin
          logic [31:0] l;
          l = m_rdata[{len_off, 5'd0} +: 32];
          blen <= l; ar_left <= beats_of(l); out_left <= beats_of(l);
          bad <= m_rresp != 2'b00;
          st <= S_DATA;
        end
        S_DATA: begin
          if (m_arvalid && m_arready) begin
            a_next  <= a_next + ((AW'(burst) + 1'b1) << BW);
            ar_left <= ar_left - (32'(burst) + 1);
          end
          if (t_valid && t_ready) begin
            if (m_rresp != 2'b00) bad <= 1'b1;
            out_left <= out_left - 1;
            if (t_last) begin
              st <= S_IDLE; done <= 1'b1; err <= bad || m_rresp != 2'b00;
            end
          end
        end
        default: st <= S_IDLE;
      endcase
    end
  end
endmodule
