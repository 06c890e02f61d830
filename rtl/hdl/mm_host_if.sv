// mm_host_if: the host interface of a node: AXI4-Lite registers (rtl/include/mm_rtl_desc.h,
// MM_RTL_REG_*), a descriptor queue and a completion queue whose entries carry the cycle a
// descriptor entered the queue and the cycle it completed.
//
// The host stages a descriptor in 16 registers and writes the doorbell; the descriptor enters the
// queue with the current cycle as its start (a doorbell that finds the queue full sets a sticky
// status bit and the descriptor is dropped: the host checks the free count first). It reads the
// oldest completion from 8 registers and drops it with CQ_POP.
//
// Handshakes: AXI4-Lite slave (the host drives AW/W/AR valid and B/R ready; a write is taken when
// AW and W are both valid, one per cycle, its B the next cycle; a read answers the next cycle).
// The sequencer takes the descriptor queue's head (`d_valid`/`d_ready`) and pushes completions
// (`c_valid`/`c_ready`).
module mm_host_if #(
  parameter int DQ = 16,
  parameter int CQ = 16
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [63:0]   now,
  input  logic [15:0]   me,
  input  logic [15:0]   nodes,
  // AXI4-Lite slave
  input  logic          s_awvalid,
  output logic          s_awready,
  input  logic [11:0]   s_awaddr,
  input  logic          s_wvalid,
  output logic          s_wready,
  input  logic [31:0]   s_wdata,
  output logic          s_bvalid,
  input  logic          s_bready,
  output logic [1:0]    s_bresp,
  input  logic          s_arvalid,
  output logic          s_arready,
  input  logic [11:0]   s_araddr,
  output logic          s_rvalid,
  input  logic          s_rready,
  output logic [31:0]   s_rdata,
  output logic [1:0]    s_rresp,
  // to the sequencer
  output logic          d_valid,
  input  logic          d_ready,
  output mm_pkg::desc_t d_desc,
  output logic [63:0]   d_t,
  input  logic          c_valid,
  output logic          c_ready,
  input  mm_pkg::cqe_t  c_entry,
  // shown in registers
  input  logic [31:0]   outstanding,
  input  logic [31:0]   wait_info,
  output logic          irq,
  output logic          act
);
  logic [511:0] stage;
  logic         ovf;
  logic         wgo, rgo, bell, pop;
  logic [$clog2(DQ):0] dq_n;
  logic [$clog2(CQ):0] cq_n;
  logic         dq_full, cq_full, cq_v;
  logic [255:0] cq_head;
  logic [7:0]   dq_free;
  logic         cq_moving;

  assign dq_free = 8'(DQ) - 8'(dq_n);

  assign s_awready = s_awvalid && s_wvalid && (!s_bvalid || s_bready);
  assign s_wready  = s_awready;
  assign wgo  = s_awready;
  assign bell = wgo && s_awaddr == mm_pkg::REG_DOORBELL;
  assign pop  = wgo && s_awaddr == mm_pkg::REG_CQ_POP && cq_v;
  assign s_arready = !s_rvalid || s_rready;
  assign rgo = s_arvalid && s_arready;
  assign s_bresp = 2'b00;
  assign s_rresp = 2'b00;

  // the descriptor queue: the staged descriptor and its start cycle, written on the doorbell
  // (not a mm_fifo: its input would be a 576-bit concatenation formed at every evaluation)
  logic [511:0] dq_mem [DQ];
  logic [63:0]  dq_tm  [DQ];
  logic [$clog2(DQ)-1:0] dq_wp, dq_rp;
  assign dq_full = dq_n == DQ[$clog2(DQ):0];
  assign d_valid = dq_n != '0;
  assign d_desc  = dq_mem[dq_rp];
  assign d_t     = dq_tm[dq_rp];
  always_ff @(posedge clk) begin
    if (bell && !dq_full) begin
      dq_mem[dq_wp] <= stage;
      dq_tm[dq_wp]  <= now;
    end
    if (rst) begin
      dq_wp <= '0; dq_rp <= '0; dq_n <= '0;
    end else begin
      if (bell && !dq_full) dq_wp <= dq_wp + 1'b1;
      if (d_valid && d_ready) dq_rp <= dq_rp + 1'b1;
      dq_n <= dq_n + {{$clog2(DQ){1'b0}}, bell && !dq_full} - {{$clog2(DQ){1'b0}}, d_valid && d_ready};
    end
  end

  mm_fifo #(.W(256), .D(CQ)) cq (
    .clk, .rst, .push(c_valid && !cq_full), .i_data(c_entry), .full(cq_full),
    .o_valid(cq_v), .o_data(cq_head), .pop, .count(cq_n), .moving(cq_moving)
  );
  assign c_ready = !cq_full;
  assign irq = cq_v;

  always_ff @(posedge clk) begin
    if (rst) begin
      s_bvalid <= 1'b0; s_rvalid <= 1'b0; ovf <= 1'b0; stage <= '0;
    end else begin
      if (s_bvalid && s_bready) s_bvalid <= 1'b0;
      if (wgo) begin
        s_bvalid <= 1'b1;
        if (s_awaddr >= mm_pkg::REG_DESC && s_awaddr < mm_pkg::REG_DESC + 12'h40)
          stage[{s_awaddr[5:2], 5'd0} +: 32] <= s_wdata;
        if (bell && dq_full) ovf <= 1'b1;
      end
      if (s_rvalid && s_rready) s_rvalid <= 1'b0;
      if (rgo) begin
        s_rvalid <= 1'b1;
        if (s_araddr == mm_pkg::REG_ID) s_rdata <= mm_pkg::ID_VALUE;
        else if (s_araddr == mm_pkg::REG_NODE) s_rdata <= {nodes, me};
        else if (s_araddr == mm_pkg::REG_STATUS)
          s_rdata <= {15'd0, ovf, 8'(cq_n), dq_free};
        else if (s_araddr >= mm_pkg::REG_CQE && s_araddr < mm_pkg::REG_CQE + 12'h20)
          s_rdata <= cq_v ? cq_head[{s_araddr[4:2], 5'd0} +: 32] : 32'd0;
        else if (s_araddr == mm_pkg::REG_OUTSTAND) s_rdata <= outstanding;
        else if (s_araddr == mm_pkg::REG_WAIT) s_rdata <= wait_info;
        else if (s_araddr >= mm_pkg::REG_DESC && s_araddr < mm_pkg::REG_DESC + 12'h40)
          s_rdata <= stage[{s_araddr[5:2], 5'd0} +: 32];
        else s_rdata <= 32'd0;
      end
    end
  end

  assign act = wgo || rgo || (s_bvalid && s_bready) || (s_rvalid && s_rready) || (c_valid && c_ready)
            || cq_moving;
endmodule
