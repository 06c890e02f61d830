// The unit-test bench: the blocks of the node engine, each standing alone with its ports brought
// out, on 64-bit lanes (the modules are width parameters; the system tests run 256 and 128).
// One Verilated model for every unit test (rtl/tests/unit/test_units.cpp drives it), so that CI
// builds it once. The pseudo-channels use their stand-in arrays (no MM_DPI).
module mm_unit_tb #(
  parameter int DW = 64,
  parameter int AW = 20
) (
  input  logic          clk,
  input  logic          rst,
  output logic [63:0]   now,
  // ---- a memory channel: R#n and W#n DMACs, the 2x1 switch, two pseudo-channels
  input  logic [7:0]    rd_lat, wr_lat,
  input  logic [5:0]    pc_sel,
  input  logic          r_start,
  input  logic [AW-1:0] r_addr,
  input  logic [31:0]   r_len,
  output logic          r_busy, r_done, r_err,
  output logic          r_valid,
  input  logic          r_ready,
  output logic [DW-1:0] r_data,
  output logic          r_last,
  output logic [$clog2(DW/8):0] r_bytes,
  input  logic          w_start,
  input  logic [AW-1:0] w_addr,
  input  logic [31:0]   w_cap,
  input  logic          w_cnt_en,
  input  logic [AW-1:0] w_cnt_addr,
  output logic          w_busy, w_done,
  output logic [1:0]    w_err,
  output logic [31:0]   w_nbytes,
  input  logic          w_valid,
  output logic          w_ready,
  input  logic [DW-1:0] w_data,
  input  logic          w_last,
  input  logic [$clog2(DW/8):0] w_bytes,
  // ---- a lane pair: sync IP A, link A->B, sync IP B, link B->A
  input  logic [19:0]   rate,
  input  logic [15:0]   lat,
  input  logic          a_valid,
  output logic          a_ready,
  input  logic [DW-1:0] a_data,
  input  logic          a_last,
  input  logic          a_user,
  input  logic          a_bar, a_rdy,
  output logic          b_valid,
  input  logic          b_ready,
  output logic [DW-1:0] b_data,
  output logic          b_last,
  output logic          b_avalid,
  input  logic          b_aready,
  output logic [DW-1:0] b_adata,
  output logic          b_alast,
  output logic          b_bar_avail, b_rdy_avail,
  input  logic          b_bar_take, b_rdy_take,
  output logic          ab_beat,        // a beat entered link A->B this cycle (rate check)
  // ---- the distributor and four selectors
  input  logic [1:0]    d_src,
  input  logic [3:0]    d_mask,
  input  logic [3:0]    d_use,          // selector k takes the distributor's copy
  input  logic [3:0]    s_valid,
  output logic [3:0]    s_ready,
  input  logic [4*DW-1:0] s_data,
  input  logic [3:0]    s_last,
  input  logic [3:0]    am_valid,
  output logic [3:0]    am_ready,
  input  logic [4*DW-1:0] am_data,
  input  logic [3:0]    am_last,
  output logic [3:0]    o_valid,
  input  logic [3:0]    o_ready,
  output logic [4*DW-1:0] o_data,
  output logic [3:0]    o_last,
  output logic [3:0]    o_user,
  // ---- the N x N switch and the averaging core (four lanes)
  input  logic [7:0]    x_wsel,
  input  logic [3:0]    x_to_core,
  input  logic          x_core_w_en,
  input  logic [1:0]    x_core_w,
  input  logic [3:0]    x_valid,
  output logic [3:0]    x_ready,
  input  logic [4*DW-1:0] x_data,
  input  logic [3:0]    x_last,
  input  logic [3:0]    xa_valid,
  output logic [3:0]    xa_ready,
  input  logic [3:0]    xa_last,
  output logic [3:0]    xw_valid,
  input  logic [3:0]    xw_ready,
  output logic [4*DW-1:0] xw_data,
  output logic [3:0]    xw_last,
  output logic          xam_valid,
  input  logic          xam_ready,
  output logic [DW-1:0] xam_data,
  output logic [1:0]    xam_lane,
  input  logic          c_start,
  input  logic [3:0]    c_mask,
  input  logic [4:0]    c_shift,
  output logic          c_busy, c_err,
  // ---- the host interface (AXI4-Lite) with a loop that completes each descriptor it takes
  input  logic          h_awvalid,
  output logic          h_awready,
  input  logic [11:0]   h_awaddr,
  input  logic          h_wvalid,
  input  logic [31:0]   h_wdata,
  output logic          h_bvalid,
  input  logic          h_arvalid,
  output logic          h_arready,
  input  logic [11:0]   h_araddr,
  output logic          h_rvalid,
  output logic [31:0]   h_rdata,
  input  logic          h_take,          // the loop takes the queue's head when this is high
  output logic          h_irq,
  // ---- M_DMAC
  input  logic          m_pvalid,
  input  logic [15:0]   m_pos,           // 4 channels' places
  input  logic [3:0]    m_rmask, m_rwait, m_wmask,
  input  logic          m_rdist,
  input  logic [AW-1:0] m_base, m_stride,
  input  logic [3:0]    m_rdy_avail,
  output logic [3:0]    m_rdy_take, m_rstart, m_wstart,
  output logic [4*AW-1:0] m_raddr, m_waddr
);
  localparam int BWB = $clog2(DW/8) + 1;

  always_ff @(posedge clk) now <= rst ? '0 : now + 64'd1;

  // ---------------------------------------------------------------- the memory channel
  logic          arvalid, arready, rvalid, rready, rlast, awvalid, awready, wvalid, wready;
  logic          wlast, bvalid, bready;
  logic [AW-1:0] araddr, awaddr;
  logic [7:0]    arlen, awlen;
  logic [DW-1:0] rdata, wdata;
  logic [1:0]    rresp, bresp;
  logic [DW/8-1:0] wstrb;
  logic [1:0]    m_arvalid, m_arready, m_rvalid, m_rready, m_rlast, m_awvalid, m_awready;
  logic [1:0]    m_wvalid, m_wready, m_bvalid, m_bready;
  logic [AW-1:0] m_araddr, m_awaddr;
  logic [7:0]    m_arlen, m_awlen;
  logic [2*DW-1:0] m_rdata;
  logic [3:0]    m_rresp, m_bresp;
  logic [DW-1:0] m_wdata;
  logic [DW/8-1:0] m_wstrb;
  logic          m_wlast;

  mm_dmac_rd #(.DW(DW), .AW(AW)) rd (
    .clk, .rst, .start(r_start), .addr(r_addr), .len(r_len), .len_mem(1'b0), .len_addr('0),
    .busy(r_busy), .done(r_done), .err(r_err), .act(),
    .m_arvalid(arvalid), .m_arready(arready), .m_araddr(araddr), .m_arlen(arlen),
    .m_rvalid(rvalid), .m_rready(rready), .m_rdata(rdata), .m_rlast(rlast), .m_rresp(rresp),
    .t_valid(r_valid), .t_ready(r_ready), .t_data(r_data), .t_last(r_last), .t_bytes(r_bytes)
  );
  mm_dmac_wr #(.DW(DW), .AW(AW)) wr (
    .clk, .rst, .start(w_start), .addr(w_addr), .cap(w_cap), .cnt_en(w_cnt_en),
    .cnt_addr(w_cnt_addr), .busy(w_busy), .done(w_done), .err(w_err), .nbytes(w_nbytes), .act(),
    .t_valid(w_valid), .t_ready(w_ready), .t_data(w_data), .t_last(w_last), .t_bytes(w_bytes),
    .m_awvalid(awvalid), .m_awready(awready), .m_awaddr(awaddr), .m_awlen(awlen),
    .m_wvalid(wvalid), .m_wready(wready), .m_wdata(wdata), .m_wstrb(wstrb), .m_wlast(wlast),
    .m_bvalid(bvalid), .m_bready(bready), .m_bresp(bresp)
  );
  mm_mem_sw #(.DW(DW), .AW(AW)) sw (
    .clk, .rst, .pc_sel,
    .s_arvalid(arvalid), .s_arready(arready), .s_araddr(araddr), .s_arlen(arlen),
    .s_rvalid(rvalid), .s_rready(rready), .s_rdata(rdata), .s_rlast(rlast), .s_rresp(rresp),
    .s_awvalid(awvalid), .s_awready(awready), .s_awaddr(awaddr), .s_awlen(awlen),
    .s_wvalid(wvalid), .s_wready(wready), .s_wdata(wdata), .s_wstrb(wstrb), .s_wlast(wlast),
    .s_bvalid(bvalid), .s_bready(bready), .s_bresp(bresp),
    .m_arvalid, .m_arready, .m_araddr, .m_arlen, .m_rvalid, .m_rready, .m_rdata, .m_rlast,
    .m_rresp, .m_awvalid, .m_awready, .m_awaddr, .m_awlen, .m_wvalid, .m_wready, .m_wdata,
    .m_wstrb, .m_wlast, .m_bvalid, .m_bready, .m_bresp
  );
  for (genvar k = 0; k < 2; k++) begin : pc
    mm_hbm_pc #(.DW(DW), .AW(AW), .MEMW(12)) pc (
      .clk, .rst, .now, .node(8'd0), .rd_lat, .wr_lat,
      .s_arvalid(m_arvalid[k]), .s_arready(m_arready[k]), .s_araddr(m_araddr), .s_arlen(m_arlen),
      .s_rvalid(m_rvalid[k]), .s_rready(m_rready[k]), .s_rdata(m_rdata[k*DW +: DW]),
      .s_rlast(m_rlast[k]), .s_rresp(m_rresp[k*2 +: 2]), .s_awvalid(m_awvalid[k]),
      .s_awready(m_awready[k]), .s_awaddr(m_awaddr), .s_awlen(m_awlen), .s_wvalid(m_wvalid[k]),
      .s_wready(m_wready[k]), .s_wdata(m_wdata), .s_wstrb(m_wstrb), .s_wlast(m_wlast),
      .s_bvalid(m_bvalid[k]), .s_bready(m_bready[k]), .s_bresp(m_bresp[k*2 +: 2]),
      .act(), .busy(), .wake()
    );
  end

  // ---------------------------------------------------------------- the lane pair
  logic          la_valid, la_last, la_user, lb_valid, lb_last, lb_user;
  logic [DW-1:0] la_data, lb_data;
  logic [BWB-1:0] la_bytes, lb_bytes;
  logic [7:0]    la_sb, lb_sb;
  logic          ra_valid, ra_last, ra_user, rb_valid, rb_last, rb_user;
  logic [DW-1:0] ra_data, rb_data;
  logic [BWB-1:0] ra_bytes, rb_bytes;
  logic [7:0]    ra_sb, rb_sb;

  mm_sync #(.DW(DW), .RB(16), .RA(8)) sa (
    .clk, .rst, .rate,
    .tx_valid(a_valid), .tx_ready(a_ready), .tx_data(a_data), .tx_last(a_last),
    .tx_bytes(BWB'(DW/8)), .tx_user(a_user),
    .bar_send(a_bar), .rdy_send(a_rdy), .bar_take(1'b0), .rdy_take(1'b0), .bar_avail(), .rdy_avail(),
    .l_valid(la_valid), .l_data(la_data), .l_last(la_last), .l_bytes(la_bytes), .l_user(la_user),
    .l_sb(la_sb),
    .r_valid(ra_valid), .r_data(ra_data), .r_last(ra_last), .r_bytes(ra_bytes), .r_user(ra_user),
    .r_sb(ra_sb), .rx_valid(), .rx_ready(1'b1), .rx_data(), .rx_last(), .rx_bytes(),
    .ax_valid(), .ax_ready(1'b1), .ax_data(), .ax_last(), .no_credit(), .act(), .busy()
  );
  mm_link #(.DW(DW), .LD(64)) ab (
    .clk, .rst, .now, .en(1'b1), .lat,
    .tx_valid(la_valid), .tx_data(la_data), .tx_last(la_last), .tx_bytes(la_bytes),
    .tx_user(la_user), .tx_sb(la_sb),
    .rx_valid(rb_valid), .rx_data(rb_data), .rx_last(rb_last), .rx_bytes(rb_bytes),
    .rx_user(rb_user), .rx_sb(rb_sb), .act(), .busy(), .wake()
  );
  mm_sync #(.DW(DW), .RB(16), .RA(8)) sb (
    .clk, .rst, .rate,
    .tx_valid(1'b0), .tx_ready(), .tx_data('0), .tx_last(1'b0), .tx_bytes('0), .tx_user(1'b0),
    .bar_send(1'b0), .rdy_send(1'b0), .bar_take(b_bar_take), .rdy_take(b_rdy_take),
    .bar_avail(b_bar_avail), .rdy_avail(b_rdy_avail),
    .l_valid(lb_valid), .l_data(lb_data), .l_last(lb_last), .l_bytes(lb_bytes), .l_user(lb_user),
    .l_sb(lb_sb),
    .r_valid(rb_valid), .r_data(rb_data), .r_last(rb_last), .r_bytes(rb_bytes), .r_user(rb_user),
    .r_sb(rb_sb), .rx_valid(b_valid), .rx_ready(b_ready), .rx_data(b_data), .rx_last(b_last),
    .rx_bytes(), .ax_valid(b_avalid), .ax_ready(b_aready), .ax_data(b_adata), .ax_last(b_alast),
    .no_credit(), .act(), .busy()
  );
  mm_link #(.DW(DW), .LD(64)) ba (
    .clk, .rst, .now, .en(1'b1), .lat,
    .tx_valid(lb_valid), .tx_data(lb_data), .tx_last(lb_last), .tx_bytes(lb_bytes),
    .tx_user(lb_user), .tx_sb(lb_sb),
    .rx_valid(ra_valid), .rx_data(ra_data), .rx_last(ra_last), .rx_bytes(ra_bytes),
    .rx_user(ra_user), .rx_sb(ra_sb), .act(), .busy(), .wake()
  );
  assign ab_beat = la_valid;

  // ---------------------------------------------------------------- distributor and selectors
  logic [3:0]    dv, dr, sel_r_ready, dist_s_ready;
  logic [DW-1:0] dd;
  logic          dl;
  logic [BWB-1:0] db;
  mm_dist #(.N(4), .DW(DW)) dist_u (
    .clk, .rst, .src(d_src), .mask(d_mask), .s_valid(s_valid), .s_ready(dist_s_ready),
    .s_data(s_data), .s_last(s_last), .s_bytes({4{BWB'(DW/8)}}), .m_valid(dv), .m_ready(dr),
    .m_data(dd), .m_last(dl), .m_bytes(db)
  );
  for (genvar k = 0; k < 4; k++) begin : sel
    mm_sel #(.DW(DW)) s (
      .clk, .rst, .use_dist(d_use[k]),
      .r_valid(s_valid[k] && !(d_mask != '0 && d_src == 2'(k))), .r_ready(sel_r_ready[k]),
      .r_data(s_data[k*DW +: DW]),
      .r_last(s_last[k]), .r_bytes(BWB'(DW/8)),
      .d_valid(dv[k]), .d_ready(dr[k]), .d_data(dd), .d_last(dl), .d_bytes(db),
      .a_valid(am_valid[k]), .a_ready(am_ready[k]), .a_data(am_data[k*DW +: DW]),
      .a_last(am_last[k]), .a_bytes(BWB'(DW/8)),
      .m_valid(o_valid[k]), .m_ready(o_ready[k]), .m_data(o_data[k*DW +: DW]),
      .m_last(o_last[k]), .m_bytes(), .m_user(o_user[k])
    );
  end
  // a read section feeds its own lane unless it is the distributor's source (as mm_node)
  always_comb begin
    s_ready = dist_s_ready;
    for (int k = 0; k < 4; k++)
      if (!(d_mask != '0 && d_src == 2'(k))) s_ready[k] = s_ready[k] | sel_r_ready[k];
  end

  // ---------------------------------------------------------------- N x N switch and core
  logic [3:0]    cv, cr;
  logic          res_valid, res_ready, res_last;
  logic [DW-1:0] res_data;
  logic [BWB-1:0] res_bytes;
  mm_xbar #(.N(4), .DW(DW)) xbar (
    .clk, .rst, .wsel(x_wsel), .to_core(x_to_core), .core_w_en(x_core_w_en), .core_w(x_core_w),
    .l_valid(x_valid), .l_ready(x_ready), .l_data(x_data), .l_last(x_last),
    .l_bytes({4{BWB'(DW/8)}}),
    .la_valid(xa_valid), .la_ready(xa_ready), .la_data(x_data), .la_last(xa_last),
    .w_valid(xw_valid), .w_ready(xw_ready), .w_data(xw_data), .w_last(xw_last), .w_bytes(),
    .c_valid(cv), .c_ready(cr), .r_valid(res_valid), .r_ready(res_ready), .r_data(res_data),
    .r_last(res_last), .r_bytes(res_bytes),
    .a_valid(xam_valid), .a_ready(xam_ready), .a_data(xam_data), .a_last(), .a_lane(xam_lane)
  );
  mm_core_avg #(.N(4), .DW(DW)) core (
    .clk, .rst, .start(c_start), .mask(c_mask), .shift(c_shift), .busy(c_busy), .err(c_err),
    .c_valid(cv), .c_ready(cr), .l_data(x_data), .l_last(x_last), .l_bytes({4{BWB'(DW/8)}}),
    .r_valid(res_valid), .r_ready(res_ready), .r_data(res_data), .r_last(res_last),
    .r_bytes(res_bytes)
  );

  // ---------------------------------------------------------------- host interface
  logic          hd_valid, hc_valid, hc_ready;
  mm_pkg::desc_t hd_desc;
  mm_pkg::cqe_t  hc_entry;
  logic [63:0]   hd_t;
  mm_host_if hif (
    .clk, .rst, .now, .me(16'd3), .nodes(16'd8),
    .s_awvalid(h_awvalid), .s_awready(h_awready), .s_awaddr(h_awaddr), .s_wvalid(h_wvalid),
    .s_wready(), .s_wdata(h_wdata), .s_bvalid(h_bvalid), .s_bready(1'b1), .s_bresp(),
    .s_arvalid(h_arvalid), .s_arready(h_arready), .s_araddr(h_araddr), .s_rvalid(h_rvalid),
    .s_rready(1'b1), .s_rdata(h_rdata), .s_rresp(),
    .d_valid(hd_valid), .d_ready(h_take), .d_desc(hd_desc), .d_t(hd_t),
    .c_valid(hc_valid), .c_ready(hc_ready), .c_entry(hc_entry),
    .outstanding(32'd5), .wait_info(32'd6), .irq(h_irq), .act()
  );
  // the loop: each descriptor taken completes in the next cycle, its value the sum of its words
  always_ff @(posedge clk) begin
    if (rst) hc_valid <= 1'b0;
    else if (hd_valid && h_take) begin
      hc_valid <= 1'b1;
      hc_entry.id <= hd_desc.id;
      hc_entry.op <= hd_desc.op;
      hc_entry.status <= 8'd0;
      hc_entry.rsvd <= '0;
      hc_entry.t_start <= hd_t;
      hc_entry.t_end <= now;
      hc_entry.value <= hd_desc.src + hd_desc.dst + hd_desc.len + hd_desc.src_stride
                      + hd_desc.dst_stride + hd_desc.value + hd_desc.aux;
    end else if (hc_ready) hc_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- M_DMAC
  mm_mdmac #(.N(4), .AW(AW), .SW(2)) mdmac (
    .clk, .rst, .p_valid(m_pvalid), .p_slot(2'd1), .p_pos(m_pos), .p_rmask(m_rmask),
    .p_rbase(m_base), .p_rstride(m_stride), .p_rlen(32'd64), .p_rlenmem(1'b0), .p_rlenbase('0),
    .p_rwait(m_rwait), .p_rdist(m_rdist), .p_wmask(m_wmask), .p_wbase(m_base + AW'(1 << 16)),
    .p_wstride(m_stride), .p_wcap(32'd64), .p_wcnt(1'b0), .p_wcntbase('0),
    .rdy_avail(m_rdy_avail), .rdy_take(m_rdy_take),
    .r_start(m_rstart), .r_addr(m_raddr), .r_len(), .r_lenmem(), .r_lenaddr(), .r_run(4'd0),
    .w_start(m_wstart), .w_addr(m_waddr), .w_cap(), .w_cnt(), .w_cntaddr(), .w_run(4'd0),
    .r_busy(), .w_busy(), .r_owner(), .w_owner(), .r_waiting()
  );
endmodule
