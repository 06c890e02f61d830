// mm_node: one OPTWEB node (OPTWEB (JOCN 2022) Fig. 2), every box a module:
//
//   host -- mm_host_if -- mm_seq (command sequencer) -- mm_mdmac (M_DMAC)
//   per peer n: M#n = 2 x mm_hbm_pc -- mm_mem_sw (2x1) -- mm_dmac_rd (R#n) / mm_dmac_wr (W#n)
//   distributed switch: mm_dist (distributor), mm_sel per lane (N x 1), mm_xbar (N x N)
//   per lane: mm_sync (sync IP: block signal, receive buffer, credits), then the link (mm_link,
//   in mm_system, between two nodes)
//   mm_core_avg: the data processing core of the averaging design (§3.C.2, §4.D.1)
//   mm_am: meshmem's one-sided extension (active messages), with its own memory port
//
// Lane n and channel n serve peer n; lane `me` is the loopback (the node's own block in a
// collective goes through it, as "the loopback within the FPGA" of §4.A, Table 1).
module mm_node #(
  parameter int N = 4,                 // lanes = the model's maximum node count
  parameter int DW = 256,
  parameter int AW = mm_pkg::AW,
  parameter int RB = 256,              // receive buffer words per lane
  parameter int S = 8                  // sequencer slots
) (
  input  logic          clk,
  input  logic          rst,
  // the cycle counter: the node keeps its own copy of mm_system's (same reset, same skips)
  input  logic          skip,
  input  logic [63:0]   skip_to,
  // configuration, read while rst is high (mm_pkg::cfg_t's fields the node uses; plain ports:
  // a hierarchical block's ports may not be structs in Verilator 5.006)
  input  logic          gate_i,       // stop idle units' clocks (simulation speed, mm_cg)
  input  logic [31:0]   eager_thr_i,
  input  logic [7:0]    rd_lat_i,
  input  logic [7:0]    wr_lat_i,
  input  logic [5:0]    pc_sel_i,
  input  logic [19:0]   link_rate_i,
  input  logic [19:0]   loop_rate_i,
  input  logic [3:0]    me_i,
  input  logic [4:0]    nodes_i,
  input  logic [N*8-1:0] xy_i,
  input  logic [N-1:0]  lane_ok_i,
  // host: AXI4-Lite
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
  // lanes toward the links (which take a beat and pulses every cycle: the sync IPs meter them)
  output logic [N-1:0]  t_valid,
  output logic [N*DW-1:0] t_data,
  output logic [N-1:0]  t_last,
  output logic [N*($clog2(DW/8)+1)-1:0] t_bytes,
  output logic [N-1:0]  t_user,
  output logic [N*8-1:0] t_sb,
  // lanes from the links (registered here first)
  input  logic [N-1:0]  r_valid_i,
  input  logic [N*DW-1:0] r_data_i,
  input  logic [N-1:0]  r_last_i,
  input  logic [N*($clog2(DW/8)+1)-1:0] r_bytes_i,
  input  logic [N-1:0]  r_user_i,
  input  logic [N*8-1:0] r_sb_i,
  // for idle skipping and the watchdog
  output logic          act,
  output logic [63:0]   wake,
  output logic          irq,          // the completion queue holds an entry
  output logic [127:0]  dbg
);
  localparam int BWB = $clog2(DW/8) + 1;
  localparam int SW = $clog2(S);
  localparam int LW = $clog2(N);

  // ---------------------------------------------------------------- inputs, registered
  // Everything the node takes in passes a register first, so that no logic inside depends on
  // the block's inputs directly: Verilator evaluates such logic again at every evaluation of a
  // hierarchical block, and the node's inputs would have made most of it so (AXI4-Lite excepted:
  // the host interface answers in the cycle). The links' beats arrive a cycle later for it, which
  // the calibration absorbs.
  logic [63:0]    now;
  logic [31:0]    eager_thr;
  logic [7:0]     rd_lat, wr_lat;
  logic [5:0]     pc_sel;
  logic [19:0]    link_rate, loop_rate;
  logic [3:0]     me;
  logic [4:0]     nodes;
  logic [N*8-1:0] xy;
  logic [N-1:0]   lane_ok;
  logic [N-1:0]   r_valid, r_last, r_user;
  logic [N*DW-1:0] r_data;
  logic [N*BWB-1:0] r_bytes;
  logic [N*8-1:0] r_sb;

  // the gated units' clocks run through reset (rst_q: the reset, registered, so that the clock
  // enables do not depend on an input)
  logic rst_q, gate;
  always_ff @(posedge clk) rst_q <= rst;
  always_ff @(posedge clk) if (rst) gate <= gate_i;

  always_ff @(posedge clk) begin
    if (rst) begin
      now <= '0;
      eager_thr <= eager_thr_i; rd_lat <= rd_lat_i; wr_lat <= wr_lat_i; pc_sel <= pc_sel_i;
      link_rate <= link_rate_i; loop_rate <= loop_rate_i; me <= me_i; nodes <= nodes_i;
      xy <= xy_i; lane_ok <= lane_ok_i;
    end else begin
      now <= skip ? skip_to : now + 64'd1;
    end
    r_valid <= rst ? '0 : r_valid_i;
    r_sb <= rst ? '0 : r_sb_i;
    for (int c = 0; c < N; c++)
      if (r_valid_i[c]) begin
        r_data[c*DW +: DW] <= r_data_i[c*DW +: DW];
        r_last[c] <= r_last_i[c];
        r_user[c] <= r_user_i[c];
        r_bytes[c*BWB +: BWB] <= r_bytes_i[c*BWB +: BWB];
      end
  end

  // ---------------------------------------------------------------- host interface, sequencer
  logic          d_valid, d_ready, c_valid, c_ready;
  mm_pkg::desc_t d_desc;
  logic [63:0]   d_t;
  mm_pkg::cqe_t  c_entry;
  logic [3:0]    wait_code;
  logic [S-1:0]  slot_busy;
  logic [7:0]    oldest_op;
  logic [31:0]   outstanding;
  logic          host_act, seq_act, am_act;

  mm_host_if hif (
    .clk, .rst, .now, .me({12'd0, me}), .nodes({11'd0, nodes}),
    .s_awvalid, .s_awready, .s_awaddr, .s_wvalid, .s_wready, .s_wdata, .s_bvalid, .s_bready,
    .s_bresp, .s_arvalid, .s_arready, .s_araddr, .s_rvalid, .s_rready, .s_rdata, .s_rresp,
    .d_valid, .d_ready, .d_desc, .d_t, .c_valid, .c_ready, .c_entry,
    .outstanding, .wait_info({16'd0, 8'(slot_busy), 4'd0, wait_code}), .irq, .act(host_act)
  );

  logic               p_valid, p_rlenmem, p_rdist, p_wcnt;
  logic [SW-1:0]      p_slot;
  logic [N*4-1:0]     p_pos;
  logic [N-1:0]       p_rmask, p_rwait, p_wmask;
  logic [AW-1:0]      p_rbase, p_rstride, p_rlenbase, p_wbase, p_wstride, p_wcntbase;
  logic [31:0]        p_rlen, p_wcap;
  logic [N-1:0]       r_busy, w_busy, r_waiting;
  logic [N*SW-1:0]    r_owner, w_owner;
  logic [N-1:0]       rd_done, rd_err, wr_done, rd_run, wr_run;
  logic [N*2-1:0]     wr_err;
  logic [N*32-1:0]    wr_nbytes;
  logic [N-1:0]       use_dist, dist_mask, to_core;
  logic               dist_on;
  logic [LW-1:0]      dist_src, core_w;
  logic               core_w_en, core_start, core_busy, core_err;
  logic [N-1:0]       core_mask;
  logic [4:0]         core_shift;
  logic [N-1:0]       bar_send, rdy_send, bar_take, bar_avail, rdy_take, rdy_avail;
  logic               am_valid, am_ready, am_done, am_idle;
  mm_pkg::desc_t      am_desc;
  logic [SW-1:0]      am_slot, am_done_slot;
  logic [3:0]         am_status;
  logic [63:0]        am_value;

  mm_seq #(.N(N), .AW(AW), .DW(DW), .S(S)) seq (
    .clk, .rst, .now, .me, .nodes, .xy, .lane_ok, .eager_thr,
    .d_valid, .d_ready, .d_desc, .d_t,
    .p_valid, .p_slot, .p_pos, .p_rmask, .p_rbase, .p_rstride, .p_rlen, .p_rlenmem, .p_rlenbase,
    .p_rwait, .p_rdist, .p_wmask, .p_wbase, .p_wstride, .p_wcap, .p_wcnt, .p_wcntbase,
    .r_busy, .w_busy, .r_owner, .w_owner,
    .r_done(rd_done), .r_err(rd_err), .w_done(wr_done), .w_err(wr_err), .w_nbytes(wr_nbytes),
    .use_dist, .dist_src, .dist_mask, .dist_on, .to_core, .core_w_en, .core_w,
    .core_start, .core_mask, .core_shift, .core_busy,
    .bar_send, .rdy_send, .bar_take, .bar_avail,
    .am_valid, .am_ready, .am_desc, .am_slot, .am_done, .am_done_slot, .am_status, .am_value,
    .am_idle, .c_valid, .c_ready, .c_entry, .wait_code, .slot_busy, .oldest_op,
    .act(seq_act)
  );

  // ---------------------------------------------------------------- M_DMAC and the channels
  logic [N-1:0]       r_start, r_lenmem, w_start;
  logic [N*AW-1:0]    r_addr, r_lenaddr, w_addr, w_cntaddr;
  logic [N*32-1:0]    r_len;
  logic [31:0]        w_cap;
  logic               w_cnt;

  mm_mdmac #(.N(N), .AW(AW), .SW(SW)) mdmac (
    .clk, .rst, .p_valid, .p_slot, .p_pos, .p_rmask, .p_rbase, .p_rstride, .p_rlen, .p_rlenmem,
    .p_rlenbase, .p_rwait, .p_rdist, .p_wmask, .p_wbase, .p_wstride, .p_wcap, .p_wcnt,
    .p_wcntbase, .rdy_avail, .rdy_take,
    .r_start, .r_addr, .r_len, .r_lenmem, .r_lenaddr, .r_run(rd_run),
    .w_start, .w_addr, .w_cap, .w_cnt, .w_cntaddr, .w_run(wr_run),
    .r_busy, .w_busy, .r_owner, .w_owner, .r_waiting
  );

  // the read sections' messages, and what the write sections take
  logic [N-1:0]       rs_valid, rs_ready, rs_last, rd_ready_sel, rd_ready_dist;
  logic [N*DW-1:0]    rs_data;
  logic [N*BWB-1:0]   rs_bytes;
  logic [N-1:0]       ws_valid, ws_ready, ws_last;
  logic [N*DW-1:0]    ws_data;
  logic [N*BWB-1:0]   ws_bytes;
  logic [N-1:0]       pc_act;
  logic [N*64-1:0]    pc_wake;

  logic [N-1:0]       ch_en, lane_en, rd_act, wr_act;

  for (genvar c = 0; c < N; c++) begin : ch
    // the channel's clock runs while it has work (mm_cg): a start, a section running or
    // finishing, a pseudo-channel with requests
    logic          cclk;
    logic [1:0]    pc_busy;
    assign ch_en[c] = rst_q || !gate || r_start[c] || w_start[c] || rd_run[c] || wr_run[c] || rd_done[c]
                   || wr_done[c] || |pc_busy;
    mm_cg cg (.clk, .en(ch_en[c]), .gclk(cclk));
    // AXI between the DMAC and its 2x1 switch
    logic          arvalid, arready, rvalid, rready, rlast, awvalid, awready, wvalid, wready;
    logic          wlast, bvalid, bready;
    logic [AW-1:0] araddr, awaddr;
    logic [7:0]    arlen, awlen;
    logic [DW-1:0] rdata, wdata;
    logic [1:0]    rresp, bresp;
    logic [DW/8-1:0] wstrb;
    // the switch and its two pseudo-channels
    logic [1:0]    m_arvalid, m_arready, m_rvalid, m_rready, m_rlast, m_awvalid, m_awready;
    logic [1:0]    m_wvalid, m_wready, m_bvalid, m_bready, a2;
    logic [AW-1:0] m_araddr, m_awaddr;
    logic [7:0]    m_arlen, m_awlen;
    logic [2*DW-1:0] m_rdata;
    logic [3:0]    m_rresp, m_bresp;
    logic [DW-1:0] m_wdata;
    logic [DW/8-1:0] m_wstrb;
    logic          m_wlast;
    logic [127:0]  w2;

    mm_dmac_rd #(.DW(DW), .AW(AW)) rd (
      .clk(cclk), .rst, .start(r_start[c]), .addr(r_addr[c*AW +: AW]), .len(r_len[c*32 +: 32]),
      .len_mem(r_lenmem[c]), .len_addr(r_lenaddr[c*AW +: AW]), .busy(rd_run[c]),
      .done(rd_done[c]), .err(rd_err[c]), .act(rd_act[c]),
      .m_arvalid(arvalid), .m_arready(arready), .m_araddr(araddr), .m_arlen(arlen),
      .m_rvalid(rvalid), .m_rready(rready), .m_rdata(rdata), .m_rlast(rlast), .m_rresp(rresp),
      .t_valid(rs_valid[c]), .t_ready(rs_ready[c]), .t_data(rs_data[c*DW +: DW]),
      .t_last(rs_last[c]), .t_bytes(rs_bytes[c*BWB +: BWB])
    );
    mm_dmac_wr #(.DW(DW), .AW(AW)) wr (
      .clk(cclk), .rst, .start(w_start[c]), .addr(w_addr[c*AW +: AW]), .cap(w_cap), .cnt_en(w_cnt),
      .cnt_addr(w_cntaddr[c*AW +: AW]), .busy(wr_run[c]), .done(wr_done[c]),
      .err(wr_err[c*2 +: 2]), .nbytes(wr_nbytes[c*32 +: 32]), .act(wr_act[c]),
      .t_valid(ws_valid[c]), .t_ready(ws_ready[c]), .t_data(ws_data[c*DW +: DW]),
      .t_last(ws_last[c]), .t_bytes(ws_bytes[c*BWB +: BWB]),
      .m_awvalid(awvalid), .m_awready(awready), .m_awaddr(awaddr), .m_awlen(awlen),
      .m_wvalid(wvalid), .m_wready(wready), .m_wdata(wdata), .m_wstrb(wstrb), .m_wlast(wlast),
      .m_bvalid(bvalid), .m_bready(bready), .m_bresp(bresp)
    );
    mm_mem_sw #(.DW(DW), .AW(AW)) sw (
      .clk(cclk), .rst, .pc_sel,
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
      mm_hbm_pc #(.DW(DW), .AW(AW)) pc (
        .clk(cclk), .rst, .now, .node({4'd0, me}), .rd_lat, .wr_lat,
        .s_arvalid(m_arvalid[k]), .s_arready(m_arready[k]), .s_araddr(m_araddr),
        .s_arlen(m_arlen), .s_rvalid(m_rvalid[k]), .s_rready(m_rready[k]),
        .s_rdata(m_rdata[k*DW +: DW]), .s_rlast(m_rlast[k]), .s_rresp(m_rresp[k*2 +: 2]),
        .s_awvalid(m_awvalid[k]), .s_awready(m_awready[k]), .s_awaddr(m_awaddr),
        .s_awlen(m_awlen), .s_wvalid(m_wvalid[k]), .s_wready(m_wready[k]), .s_wdata(m_wdata),
        .s_wstrb(m_wstrb), .s_wlast(m_wlast), .s_bvalid(m_bvalid[k]), .s_bready(m_bready[k]),
        .s_bresp(m_bresp[k*2 +: 2]), .act(a2[k]), .busy(pc_busy[k]), .wake(w2[k*64 +: 64])
      );
    end
    assign pc_act[c] = |a2;
    assign pc_wake[c*64 +: 64] = w2[63:0] < w2[127:64] ? w2[63:0] : w2[127:64];
  end

  // ---------------------------------------------------------------- distributed switch
  logic [N-1:0]       dv, dr, sel_valid, sel_ready, sel_last, sel_user;
  logic [DW-1:0]      ddata;
  logic               dlast;
  logic [BWB-1:0]     dbytes;
  logic [N*DW-1:0]    sel_data;
  logic [N*BWB-1:0]   sel_bytes;
  logic [N-1:0]       amt_valid, amt_ready, amt_last;
  logic [N*DW-1:0]    amt_data;
  logic [N*BWB-1:0]   amt_bytes;

  mm_dist #(.N(N), .DW(DW)) distr (
    .clk, .rst, .src(dist_src), .mask(dist_mask),
    .s_valid(rs_valid), .s_ready(rd_ready_dist), .s_data(rs_data), .s_last(rs_last),
    .s_bytes(rs_bytes), .m_valid(dv), .m_ready(dr), .m_data(ddata), .m_last(dlast),
    .m_bytes(dbytes)
  );
  // the read section feeding the distributor is not a lane's direct source meanwhile
  logic [N-1:0] from_dist, sel_r_ready;
  always_comb begin
    from_dist = '0;
    if (dist_on) from_dist[dist_src] = 1'b1;
  end
  assign rd_ready_sel = sel_r_ready & ~from_dist;
  assign rs_ready = rd_ready_sel | rd_ready_dist;

  logic [N-1:0]       rx_valid, rx_ready, rx_last, no_credit, sync_act;
  logic [N-1:0]       ax_valid, ax_ready, ax_last;
  logic [N*DW-1:0]    ax_data;
  logic [N*DW-1:0]    rx_data;
  logic [N*BWB-1:0]   rx_bytes;

  for (genvar c = 0; c < N; c++) begin : lane
    logic lclk, sbusy;
    assign lane_en[c] = rst_q || !gate || sbusy;
    mm_cg cg (.clk, .en(lane_en[c]), .gclk(lclk));
    mm_sel #(.DW(DW)) sel (
      .clk(lclk), .rst, .use_dist(use_dist[c]),
      .r_valid(rs_valid[c] && !from_dist[c]), .r_ready(sel_r_ready[c]),
      .r_data(rs_data[c*DW +: DW]), .r_last(rs_last[c]), .r_bytes(rs_bytes[c*BWB +: BWB]),
      .d_valid(dv[c]), .d_ready(dr[c]), .d_data(ddata), .d_last(dlast), .d_bytes(dbytes),
      .a_valid(amt_valid[c]), .a_ready(amt_ready[c]), .a_data(amt_data[c*DW +: DW]),
      .a_last(amt_last[c]), .a_bytes(amt_bytes[c*BWB +: BWB]),
      .m_valid(sel_valid[c]), .m_ready(sel_ready[c]), .m_data(sel_data[c*DW +: DW]),
      .m_last(sel_last[c]), .m_bytes(sel_bytes[c*BWB +: BWB]), .m_user(sel_user[c])
    );
    mm_sync #(.DW(DW), .RB(RB)) sync (
      .clk(lclk), .rst, .rate(4'(c) == me ? loop_rate : link_rate),
      .tx_valid(sel_valid[c]), .tx_ready(sel_ready[c]), .tx_data(sel_data[c*DW +: DW]),
      .tx_last(sel_last[c]), .tx_bytes(sel_bytes[c*BWB +: BWB]), .tx_user(sel_user[c]),
      .bar_send(bar_send[c]), .rdy_send(rdy_send[c]), .bar_take(bar_take[c]),
      .rdy_take(rdy_take[c]), .bar_avail(bar_avail[c]), .rdy_avail(rdy_avail[c]),
      .l_valid(t_valid[c]), .l_data(t_data[c*DW +: DW]),
      .l_last(t_last[c]), .l_bytes(t_bytes[c*BWB +: BWB]), .l_user(t_user[c]),
      .l_sb(t_sb[c*8 +: 8]),
      .r_valid(r_valid[c]), .r_data(r_data[c*DW +: DW]), .r_last(r_last[c]),
      .r_bytes(r_bytes[c*BWB +: BWB]), .r_user(r_user[c]), .r_sb(r_sb[c*8 +: 8]),
      .rx_valid(rx_valid[c]), .rx_ready(rx_ready[c]), .rx_data(rx_data[c*DW +: DW]),
      .rx_last(rx_last[c]), .rx_bytes(rx_bytes[c*BWB +: BWB]),
      .ax_valid(ax_valid[c]), .ax_ready(ax_ready[c]), .ax_data(ax_data[c*DW +: DW]),
      .ax_last(ax_last[c]),
      .no_credit(no_credit[c]), .act(sync_act[c]), .busy(sbusy)
    );
  end

  // the N x N switch: W#k takes lane k (the identity of every flow), or the core's result
  logic [N*LW-1:0]    wsel;
  logic [N-1:0]       cv, cr;
  logic               res_valid, res_ready, res_last;
  logic [DW-1:0]      res_data;
  logic [BWB-1:0]     res_bytes;
  logic               amr_valid, amr_ready;
  /* verilator lint_off UNUSEDSIGNAL */
  logic               amr_last;      // the engine reads the length from the header
  /* verilator lint_on UNUSEDSIGNAL */
  logic [DW-1:0]      amr_data;
  logic [LW-1:0]      amr_lane;

  for (genvar k = 0; k < N; k++) begin : wid
    assign wsel[k*LW +: LW] = LW'(k);
  end

  mm_xbar #(.N(N), .DW(DW)) xbar (
    .clk, .rst, .wsel, .to_core, .core_w_en, .core_w,
    .l_valid(rx_valid), .l_ready(rx_ready), .l_data(rx_data), .l_last(rx_last),
    .l_bytes(rx_bytes), .la_valid(ax_valid), .la_ready(ax_ready), .la_data(ax_data),
    .la_last(ax_last),
    .w_valid(ws_valid), .w_ready(ws_ready), .w_data(ws_data), .w_last(ws_last),
    .w_bytes(ws_bytes), .c_valid(cv), .c_ready(cr),
    .r_valid(res_valid), .r_ready(res_ready), .r_data(res_data), .r_last(res_last),
    .r_bytes(res_bytes),
    .a_valid(amr_valid), .a_ready(amr_ready), .a_data(amr_data), .a_last(amr_last),
    .a_lane(amr_lane)
  );

  mm_core_avg #(.N(N), .DW(DW)) core (
    .clk, .rst, .start(core_start), .mask(core_mask), .shift(core_shift), .busy(core_busy),
    .err(core_err), .c_valid(cv), .c_ready(cr), .l_data(rx_data), .l_last(rx_last),
    .l_bytes(rx_bytes), .r_valid(res_valid), .r_ready(res_ready), .r_data(res_data),
    .r_last(res_last), .r_bytes(res_bytes)
  );

  // ---------------------------------------------------------------- one-sided extension
  // its memory port: a pseudo-channel pair, m0 for the payloads it sends, m1 for its handler
  logic          m0_arvalid, m0_arready, m0_rvalid, m0_rready;
  logic [AW-1:0] m0_araddr;
  logic [7:0]    m0_arlen;
  logic [DW-1:0] m0_rdata;
  logic [1:0]    m0_rresp;
  logic          m1_arvalid, m1_arready, m1_rvalid, m1_rready, m1_awvalid, m1_awready;
  logic          m1_wvalid, m1_wready, m1_bvalid, m1_bready;
  logic [AW-1:0] m1_araddr, m1_awaddr;
  logic [DW-1:0] m1_rdata, m1_wdata;
  logic [DW/8-1:0] m1_wstrb;
  logic [1:0]    m1_rresp, m1_bresp;
  logic [1:0]    am_pc_act;
  logic [127:0]  am_pc_wake;

  mm_am #(.N(N), .DW(DW), .AW(AW), .S(S)) am (
    .clk, .rst, .now, .me, .lane_ok,
    .q_valid(am_valid), .q_ready(am_ready), .q_desc(am_desc), .q_slot(am_slot),
    .done(am_done), .done_slot(am_done_slot), .status(am_status), .value(am_value),
    .idle(am_idle), .outstanding,
    .t_valid(amt_valid), .t_ready(amt_ready), .t_data(amt_data), .t_last(amt_last),
    .t_bytes(amt_bytes),
    .r_valid(amr_valid), .r_ready(amr_ready), .r_data(amr_data),
    .m0_arvalid, .m0_arready, .m0_araddr, .m0_arlen, .m0_rvalid, .m0_rready, .m0_rdata, .m0_rresp,
    .m1_arvalid, .m1_arready, .m1_araddr, .m1_rvalid, .m1_rready, .m1_rdata, .m1_rresp,
    .m1_awvalid, .m1_awready, .m1_awaddr, .m1_wvalid, .m1_wready, .m1_wdata, .m1_wstrb,
    .m1_bvalid, .m1_bready, .m1_bresp, .act(am_act)
  );

  mm_hbm_pc #(.DW(DW), .AW(AW)) am_pc0 (
    .clk, .rst, .now, .node({4'd0, me}), .rd_lat, .wr_lat,
    .s_arvalid(m0_arvalid), .s_arready(m0_arready), .s_araddr(m0_araddr), .s_arlen(m0_arlen),
    .s_rvalid(m0_rvalid), .s_rready(m0_rready), .s_rdata(m0_rdata), .s_rlast(),
    .s_rresp(m0_rresp), .s_awvalid(1'b0), .s_awready(), .s_awaddr('0), .s_awlen('0),
    .s_wvalid(1'b0), .s_wready(), .s_wdata('0), .s_wstrb('0), .s_wlast(1'b0),
    .s_bvalid(), .s_bready(1'b1), .s_bresp(), .act(am_pc_act[0]), .busy(),
    .wake(am_pc_wake[63:0])
  );
  mm_hbm_pc #(.DW(DW), .AW(AW)) am_pc1 (
    .clk, .rst, .now, .node({4'd0, me}), .rd_lat, .wr_lat,
    .s_arvalid(m1_arvalid), .s_arready(m1_arready), .s_araddr(m1_araddr), .s_arlen(8'd0),
    .s_rvalid(m1_rvalid), .s_rready(m1_rready), .s_rdata(m1_rdata), .s_rlast(),
    .s_rresp(m1_rresp), .s_awvalid(m1_awvalid), .s_awready(m1_awready), .s_awaddr(m1_awaddr),
    .s_awlen(8'd0), .s_wvalid(m1_wvalid), .s_wready(m1_wready), .s_wdata(m1_wdata),
    .s_wstrb(m1_wstrb), .s_wlast(1'b1), .s_bvalid(m1_bvalid), .s_bready(m1_bready),
    .s_bresp(m1_bresp), .act(am_pc_act[1]), .busy(),
    .wake(am_pc_wake[127:64])
  );

  // ---------------------------------------------------------------- idle skipping, watchdog
  // a unit whose state changes at the next edge (each says so precisely: waiting for a due
  // time or for another unit is not activity, so such cycles can be skipped). The host
  // interface's part depends on the host's inputs in the cycle, which Verilator evaluates again
  // at every evaluation: the rest is apart, computed once after the edge.
  logic units_act;
  assign act = host_act || units_act;
  always_comb begin
    units_act = seq_act || am_act || |am_pc_act || |pc_act || |sync_act || |rd_act
       || |wr_act || r_start != '0 || w_start != '0 || core_busy
       || r_valid != '0 || r_sb != '0;          // the input registers hold an arrival
    wake = am_pc_wake[63:0] < am_pc_wake[127:64] ? am_pc_wake[63:0] : am_pc_wake[127:64];
    for (int c = 0; c < N; c++) if (pc_wake[c*64 +: 64] < wake) wake = pc_wake[c*64 +: 64];
  end

  logic [N-1:0] rx_stall;              // a lane's head waits for whoever should take it
  assign rx_stall = (rx_valid & ~rx_ready) | (ax_valid & ~ax_ready);
  // what the watchdog prints (rtl/sim/rtlsim.cpp decodes it)
  assign dbg = {7'd0, core_err, 8'(amr_lane), 16'(no_credit), 16'(r_waiting), 16'(rd_run),
                16'(wr_run), 16'(rx_stall), 16'(slot_busy), 4'd0, oldest_op, wait_code};
endmodule
