// Bounded proof of the rendezvous handshake at M_DMAC (yosys-smtbmc, rtl/formal/run.sh): with
// the program, the sync IPs' ready pulses and the sections' progress all free inputs,
//   - a read section programmed to wait never starts before its lane holds a ready pulse, and
//     takes exactly that pulse as it starts (OPTWEB (JOCN 2022) §3.C.2: the receiver pulses
//     ready first);
//   - the distributor's section starts only with a pulse from every lane of its copy set;
//   - a section that does not wait starts in the cycle after its program;
//   - a pulse is never taken from a lane that holds none.
module mm_rndv_formal (
  input logic       clk,
  input logic       p_valid, p_rdist,
  input logic [3:0] p_rmask, p_rwait, rdy_avail,
  input logic [3:0] r_run
);
  logic rst;
  logic init = 1'b1;
  always_ff @(posedge clk) init <= 1'b0;
  assign rst = init;

  logic [3:0] rdy_take, r_start, r_busy;
  logic [3:0] set_q [4];               // per read section: the lanes whose pulse it waits for
  logic [3:0] prog_q;                  // programmed in the last cycle

  mm_mdmac #(.N(4), .AW(8), .SW(2)) m (
    .clk, .rst, .p_valid(p_valid && (p_rmask & r_busy) == '0), .p_slot(2'd0),
    .p_pos(16'h3210), .p_rmask, .p_rbase('0), .p_rstride(8'd4), .p_rlen(32'd1), .p_rlenmem(1'b0),
    .p_rlenbase('0), .p_rwait, .p_rdist, .p_wmask('0), .p_wbase('0), .p_wstride('0), .p_wcap('0),
    .p_wcnt(1'b0), .p_wcntbase('0), .rdy_avail, .rdy_take,
    .r_start, .r_addr(), .r_len(), .r_lenmem(), .r_lenaddr(), .r_run,
    .w_start(), .w_addr(), .w_cap(), .w_cnt(), .w_cntaddr(), .w_run('0),
    .r_busy, .w_busy(), .r_owner(), .w_owner(), .r_waiting()
  );

  // the model: what each programmed section waits for
  always_ff @(posedge clk) begin
    if (rst) begin
      prog_q <= '0;
      for (int c = 0; c < 4; c++) set_q[c] <= '0;
    end else begin
      prog_q <= (p_valid && (p_rmask & r_busy) == '0) ? p_rmask : '0;
      if (p_valid && (p_rmask & r_busy) == '0)
        for (int c = 0; c < 4; c++)
          if (p_rmask[c]) set_q[c] <= p_rdist ? p_rwait : (p_rwait & (4'd1 << c));
    end
  end

`ifdef FORMAL
  always_comb begin
    if (!rst) begin
      // a pulse is taken only where one is held
      assert ((rdy_take & ~rdy_avail) == '0);
      for (int c = 0; c < 4; c++) begin
        // a section starts only when every pulse it waits for is there, and takes them
        if (r_start[c]) assert ((rdy_avail & set_q[c]) == set_q[c] && (rdy_take & set_q[c]) == set_q[c]);
        // one that waits for nothing starts in the cycle after its program
        if (prog_q[c] && set_q[c] == '0) assert (r_start[c]);
      end
    end
  end
`endif
endmodule
