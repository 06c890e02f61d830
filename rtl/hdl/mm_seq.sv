// mm_seq: the command sequencer (OPTWEB (JOCN 2022) §2.C: it "manages all of these functions and
// executes the communication between FPGAs"; its flow, in the paper's ref. [5], is not in the
// sources, so the flow here is ours and docs/rtl.md describes it).
//
// One descriptor at a time is decoded into a plan: the team and each member's place in it, the
// read and write sections the operation needs, where their blocks lie, the routes of the
// distributed switch, the protocol (eager up to cfg eager_thr bytes per block, else rendezvous:
// OPTWEB (JOCN 2022) §4.B.2) and the block signals to send. The plan is issued as one M_DMAC
// program when every section, lane and core it needs is free and a slot is free; descriptors that
// need different sections therefore run at once (a SEND and a RECV toward the same peer use R#n
// and W#n: neither waits for the other), and a descriptor whose sections are busy waits, with
// every later one, in order. MM_RTL_F_FENCE, BARRIER and QUIET wait for every earlier descriptor.
//
// A slot completes when its sections have all reported done, the barrier pulses it waits for
// have arrived (one from each team peer, taken from the sync IPs' counts), and, for a one-sided
// operation, the active-message engine says so; its completion (start and end cycle, status,
// bytes or old value) enters the completion queue.
//
// Handshakes: the host interface's descriptor queue drives `d_valid`/`d_desc`/`d_t`, the
// sequencer takes the head with `d_ready`; it pulses `p_valid` to M_DMAC, `bar_send`/`rdy_send`/
// `bar_take` to the sync IPs, `core_start`, `am_valid` (taken by `am_ready`); the completion queue
// takes `c_valid`/`c_entry` with `c_ready`.
module mm_seq #(
  parameter int N = 4,
  parameter int AW = mm_pkg::AW,
  parameter int DW = 256,
  parameter int S = 8                      // descriptors in flight
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [63:0]          now,
  input  logic [3:0]           me,
  input  logic [4:0]           nodes,
  input  logic [N*8-1:0]       xy,         // node c's {y, x}, 4 bits each
  input  logic [N-1:0]         lane_ok,    // a link to node c exists (the loopback's included)
  input  logic [31:0]          eager_thr,
  // descriptor queue
  input  logic                 d_valid,
  output logic                 d_ready,
  input  mm_pkg::desc_t        d_desc,
  input  logic [63:0]          d_t,
  // M_DMAC
  output logic                 p_valid,
  output logic [$clog2(S)-1:0] p_slot,
  output logic [N*4-1:0]       p_pos,
  output logic [N-1:0]         p_rmask,
  output logic [AW-1:0]        p_rbase,
  output logic [AW-1:0]        p_rstride,
  output logic [31:0]          p_rlen,
  output logic                 p_rlenmem,
  output logic [AW-1:0]        p_rlenbase,
  output logic [N-1:0]         p_rwait,
  output logic                 p_rdist,
  output logic [N-1:0]         p_wmask,
  output logic [AW-1:0]        p_wbase,
  output logic [AW-1:0]        p_wstride,
  output logic [31:0]          p_wcap,
  output logic                 p_wcnt,
  output logic [AW-1:0]        p_wcntbase,
  input  logic [N-1:0]         r_busy,
  input  logic [N-1:0]         w_busy,
  input  logic [N*$clog2(S)-1:0] r_owner,
  input  logic [N*$clog2(S)-1:0] w_owner,
  // the sections' ends
  input  logic [N-1:0]         r_done,
  input  logic [N-1:0]         r_err,
  input  logic [N-1:0]         w_done,
  input  logic [N*2-1:0]       w_err,
  input  logic [N*32-1:0]      w_nbytes,
  // routes of the distributed switch
  output logic [N-1:0]         use_dist,
  output logic [$clog2(N)-1:0] dist_src,
  output logic [N-1:0]         dist_mask,
  output logic                 dist_on,     // the distributor's source is running
  output logic [N-1:0]         to_core,
  output logic                 core_w_en,
  output logic [$clog2(N)-1:0] core_w,
  // the data core
  output logic                 core_start,
  output logic [N-1:0]         core_mask,
  output logic [4:0]           core_shift,
  input  logic                 core_busy,
  // sync IPs
  output logic [N-1:0]         bar_send,
  output logic [N-1:0]         rdy_send,
  output logic [N-1:0]         bar_take,
  input  logic [N-1:0]         bar_avail,
  // the active-message engine (one-sided extension)
  output logic                 am_valid,
  input  logic                 am_ready,
  output mm_pkg::desc_t        am_desc,
  output logic [$clog2(S)-1:0] am_slot,
  input  logic                 am_done,
  input  logic [$clog2(S)-1:0] am_done_slot,
  input  logic [3:0]           am_status,
  input  logic [63:0]          am_value,
  input  logic                 am_idle,    // every one-sided operation acknowledged (QUIET)
  // completion queue
  output logic                 c_valid,
  input  logic                 c_ready,
  output mm_pkg::cqe_t         c_entry,
  // what the issue stage waits for, for the watchdog (MM_RTL_REG_WAIT)
  output logic [3:0]           wait_code,
  output logic [S-1:0]         slot_busy,
  output logic [7:0]           oldest_op,   // the opcode of the lowest busy slot (watchdog)
  output logic                 act
);
  localparam int SW = $clog2(S);
  localparam int LW = $clog2(N);
  localparam int BW = $clog2(DW / 8);

  // ------------------------------------------------------------------ the plan of the head
  typedef struct packed {
    logic [3:0]    status;      // MM_RTL_ST_*: not OK completes at once
    logic          fence;
    logic          am;          // one-sided: handed to the active-message engine
    logic          quiet;
    logic [N-1:0]  rmask, wmask, rwait, rdy, bar, dist_mask, core_lanes;
    logic          rdist, rlenmem, wcnt, core;
    logic [4:0]    shift;
    logic [AW-1:0] rbase, rstride, wbase, wstride, rlenbase, wcntbase;
    logic [31:0]   rlen, wcap;
  } plan_t;

  plan_t         pl;            // registered plan of the queue's head
  logic          pl_valid;
  mm_pkg::desc_t pl_desc;
  logic [63:0]   pl_t;
  logic [N*4-1:0] pl_pos;
  plan_t         dp;            // the decode of d_desc
  logic [N*4-1:0] dpos;

  // ------------------------------------------------------------------ slots
  logic [S-1:0]  s_valid;
  logic [31:0]   s_id    [S];
  logic [7:0]    s_op    [S];
  logic [63:0]   s_t     [S];
  logic [3:0]    s_st    [S];
  logic [63:0]   s_val   [S];
  logic [N-1:0]  s_r     [S];
  logic [N-1:0]  s_w     [S];
  logic [N-1:0]  s_bar   [S];
  logic [S-1:0]  s_am;          // waits for the active-message engine
  logic [S-1:0]  s_quiet;       // waits until every one-sided op is acknowledged
  logic [S-1:0]  s_nocq;

  logic          dist_active;   // the distributor's read section has not finished
  logic [S-1:0]  s_done;
  logic [SW-1:0] free_slot, done_slot;
  logic          have_free, have_done;
  logic          issue;
  logic          fits;           // every section, lane and core the plan needs is free

  // ---- decode (combinational on the queue head) ----
  always_comb begin
    logic [N-1:0] team, peers, one_p, one_me;
    logic [3:0]   p, x_me, y_me;
    logic [LW-1:0] pl_;
    logic         rndv, rooted, is_root, aligned, team_ok, peer_in, lanes_ok, big, xt, yt;
    logic [7:0]   op;
    logic [6:0]   tsize;
    op = d_desc.op;
    p = d_desc.peer[3:0];
    pl_ = p[LW-1:0];
    x_me = xy[me*8 +: 4];
    y_me = xy[me*8 + 4 +: 4];
    xt = (d_desc.flags & mm_pkg::F_TEAM_X) != 0;
    yt = (d_desc.flags & mm_pkg::F_TEAM_Y) != 0;
    team = '0;
    for (int c = 0; c < N; c++) begin
      logic in;
      in = 5'(c) < nodes;
      if (xt) in = in && xy[c*8 + 4 +: 4] == y_me;
      if (yt) in = in && xy[c*8 +: 4] == x_me;
      team[c] = in;
    end
    dpos = '0;
    for (int c = 0; c < N; c++) begin
      logic [3:0] k;
      k = '0;
      for (int i = 0; i < c; i++) k = k + {3'd0, team[i]};
      dpos[c*4 +: 4] = k;
    end
    one_me = N'(1) << me;
    one_p  = N'(1) << p;
    peers  = team & ~one_me;
    tsize  = mm_pkg::popcount16(16'(team));
    rndv = (d_desc.flags & mm_pkg::F_RNDV) != 0 ||
           ((d_desc.flags & mm_pkg::F_EAGER) == 0 && d_desc.len > {32'd0, eager_thr});
    rooted = op == mm_pkg::OP_BCAST || op == mm_pkg::OP_SCATTER || op == mm_pkg::OP_GATHER;
    is_root = p == me;
    peer_in = {12'd0, p} == d_desc.peer && 5'(p) < nodes && 5'(p) < 5'(N);
    // the team's members must be this node's neighbours: on a GHC a collective runs per row or
    // column (MM_RTL_F_TEAM_X / _Y); the host composes the two steps
    lanes_ok = (peers & ~lane_ok) == '0 && !(xt && yt);
    team_ok = lanes_ok && (!rooted || (peer_in && team[pl_]));
    aligned = d_desc.src[BW-1:0] == '0 && d_desc.dst[BW-1:0] == '0 &&
              d_desc.src_stride[BW-1:0] == '0 && d_desc.dst_stride[BW-1:0] == '0;
    big = d_desc.len[63:32] != '0 || d_desc.src[63:AW] != '0 || d_desc.dst[63:AW] != '0;

    dp = '0;
    dp.status = mm_pkg::ST_OK;
    dp.rbase = d_desc.src[AW-1:0];
    dp.rstride = d_desc.src_stride[AW-1:0];
    dp.rlen = d_desc.len[31:0];
    dp.rlenbase = d_desc.value[AW-1:0];
    dp.wbase = d_desc.dst[AW-1:0];
    dp.wstride = d_desc.dst_stride[AW-1:0];
    dp.wcap = d_desc.len[31:0];
    dp.wcntbase = d_desc.aux[AW-1:0];
    dp.fence = (d_desc.flags & mm_pkg::F_FENCE) != 0;
    unique case (op)
      mm_pkg::OP_NOP: ;
      mm_pkg::OP_SEND: begin
        dp.rmask = one_p; dp.rstride = '0;
        dp.rwait = rndv && !is_root ? one_p : '0;
      end
      mm_pkg::OP_RECV: begin
        dp.wmask = one_p; dp.wstride = '0;
        dp.rdy = rndv && !is_root ? one_p : '0;
      end
      mm_pkg::OP_BARRIER: begin
        dp.fence = 1'b1; dp.bar = peers;
      end
      mm_pkg::OP_BCAST: if (is_root) begin
        dp.rmask = one_me; dp.rstride = '0; dp.rdist = 1'b1; dp.dist_mask = peers;
        dp.rwait = rndv ? peers : '0;
      end else begin
        dp.wmask = one_p; dp.wstride = '0; dp.rdy = rndv ? one_p : '0;
      end
      mm_pkg::OP_SCATTER: if (is_root) begin
        dp.rmask = team; dp.rwait = rndv ? peers : '0;
        dp.wmask = one_me; dp.wstride = '0;
      end else begin
        dp.wmask = one_p; dp.wstride = '0; dp.rdy = rndv ? one_p : '0;
      end
      mm_pkg::OP_GATHER: if (is_root) begin
        dp.rmask = one_me; dp.rstride = '0;
        dp.wmask = team; dp.rdy = rndv ? peers : '0;
      end else begin
        dp.rmask = one_p; dp.rstride = '0; dp.rwait = rndv ? one_p : '0;
      end
      mm_pkg::OP_ALLGATHER: begin
        dp.rmask = one_me; dp.rstride = '0; dp.rdist = 1'b1; dp.dist_mask = team;
        dp.rwait = rndv ? peers : '0;
        dp.wmask = team; dp.rdy = rndv ? peers : '0;
      end
      mm_pkg::OP_ALLTOALL, mm_pkg::OP_ALLTOALLV: begin
        dp.rmask = team; dp.rwait = rndv ? peers : '0;
        dp.wmask = team; dp.rdy = rndv ? peers : '0;
        dp.rlenmem = op == mm_pkg::OP_ALLTOALLV;
        dp.wcnt = op == mm_pkg::OP_ALLTOALLV;
      end
      mm_pkg::OP_REDUCE_SCATTER: begin
        dp.rmask = team; dp.rwait = rndv ? peers : '0;
        dp.core = 1'b1; dp.core_lanes = team;
        dp.wmask = one_me; dp.wstride = '0; dp.rdy = rndv ? peers : '0;
        dp.shift = '0;
        if ((d_desc.flags & mm_pkg::F_AVG) != 0) begin
          for (int b = 0; b < 5; b++) if (tsize == 7'(1 << b)) dp.shift = 5'(b);
          if ((tsize & (tsize - 1'b1)) != 0) dp.status = mm_pkg::ST_EINVAL;
        end
      end
      mm_pkg::OP_PUT, mm_pkg::OP_GET, mm_pkg::OP_AMO, mm_pkg::OP_PUT_SIGNAL: dp.am = 1'b1;
      mm_pkg::OP_QUIET: begin dp.quiet = 1'b1; dp.fence = 1'b1; end
      default: dp.status = mm_pkg::ST_EINVAL;
    endcase
    // what the operation's class needs, checked in order of precedence
    if (dp.status == mm_pkg::ST_OK) begin
      if (op == mm_pkg::OP_SEND || op == mm_pkg::OP_RECV) begin
        if (!peer_in || !lane_ok[pl_]) dp.status = mm_pkg::ST_EROUTE;
      end else if (op >= mm_pkg::OP_BARRIER && op <= mm_pkg::OP_REDUCE_SCATTER) begin
        if (!team_ok) dp.status = mm_pkg::ST_EROUTE;
      end else if (dp.am) begin
        if (!peer_in) dp.status = mm_pkg::ST_EROUTE;
      end
      if (op >= mm_pkg::OP_SEND && op <= mm_pkg::OP_REDUCE_SCATTER && op != mm_pkg::OP_BARRIER) begin
        if (big) dp.status = mm_pkg::ST_EINVAL;
        else if (!aligned) dp.status = mm_pkg::ST_EALIGN;
      end
    end
    if (dp.status != mm_pkg::ST_OK) begin
      dp.rmask = '0; dp.wmask = '0; dp.bar = '0; dp.rdy = '0; dp.core = 1'b0; dp.am = 1'b0;
      dp.quiet = 1'b0;
    end
  end

  // ---- resources ----
  always_comb begin
    logic [N-1:0] direct;
    logic [S-1:0] others;
    direct = pl.rdist ? '0 : pl.rmask;
    fits = (pl.rmask & r_busy) == '0 && (pl.wmask & w_busy) == '0
        // a lane fed directly must not be carrying the distributor's copy, and vice versa
        && !(dist_active && ((direct | (pl.rdist ? pl.dist_mask : '0)) & dist_mask) != '0)
        && !(pl.rdist && dist_active)
        && ((pl.rdist ? pl.dist_mask : '0) & r_busy & ~use_dist) == '0
        // lanes that feed the core carry nothing else, and the core runs one reduction
        && !(pl.core && (core_busy || to_core != '0 || (pl.core_lanes & w_busy) != '0))
        && (pl.wmask & to_core) == '0
        && (!pl.am || am_ready);
    others = s_valid;
    have_free = 1'b0; free_slot = '0;
    for (int s = S - 1; s >= 0; s--) if (!s_valid[s]) begin have_free = 1'b1; free_slot = SW'(s); end
    issue = pl_valid && have_free && fits && !(pl.fence && others != '0);
    wait_code = !pl_valid ? 4'd0 : (pl.fence && others != '0) ? 4'd1 : !have_free ? 4'd2
              : (pl.rmask & r_busy) != '0 ? 4'd3 : (pl.wmask & w_busy) != '0 ? 4'd4
              : (pl.am && !am_ready) ? 4'd7 : !fits ? 4'd5 : 4'd0;
  end

  assign d_ready = !pl_valid || issue;

  // ---- issue: one M_DMAC program, the routes, the pulses ----
  always_comb begin
    p_valid = issue && (pl.rmask != '0 || pl.wmask != '0);
    p_slot = free_slot;
    p_pos = pl_pos;
    p_rmask = pl.rmask; p_rbase = pl.rbase; p_rstride = pl.rstride; p_rlen = pl.rlen;
    p_rlenmem = pl.rlenmem; p_rlenbase = pl.rlenbase; p_rwait = pl.rwait; p_rdist = pl.rdist;
    p_wmask = pl.wmask; p_wbase = pl.wbase; p_wstride = pl.wstride; p_wcap = pl.wcap;
    p_wcnt = pl.wcnt; p_wcntbase = pl.wcntbase;
    bar_send = issue ? pl.bar : '0;
    rdy_send = issue ? pl.rdy : '0;
    core_start = issue && pl.core;
    core_mask = pl.core_lanes;
    core_shift = pl.shift;
    am_valid = issue && pl.am;   // am_ready never depends on am_valid
    am_desc = pl_desc;
    am_slot = free_slot;
  end

  // ---- completion ----
  always_comb begin
    for (int s = 0; s < S; s++)
      s_done[s] = s_valid[s] && s_r[s] == '0 && s_w[s] == '0 && s_bar[s] == '0 && !s_am[s]
               && !(s_quiet[s] && !am_idle);
    have_done = 1'b0; done_slot = '0;
    for (int s = S - 1; s >= 0; s--) if (s_done[s]) begin have_done = 1'b1; done_slot = SW'(s); end
    c_valid = have_done && !s_nocq[done_slot];
    c_entry = '0;
    c_entry.id = s_id[done_slot];
    c_entry.op = s_op[done_slot];
    c_entry.status = {4'd0, s_st[done_slot]};
    c_entry.t_start = s_t[done_slot];
    c_entry.t_end = now;
    c_entry.value = s_val[done_slot];
    // barrier pulses: the one barrier slot in flight takes one pulse per awaited lane
    bar_take = '0;
    for (int s = 0; s < S; s++) if (s_valid[s]) bar_take = bar_take | (s_bar[s] & bar_avail);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      pl_valid <= 1'b0; s_valid <= '0; s_am <= '0; s_quiet <= '0; s_nocq <= '0;
      use_dist <= '0; dist_active <= 1'b0; dist_mask <= '0; dist_src <= '0;
      to_core <= '0; core_w_en <= 1'b0; core_w <= '0;
      for (int s = 0; s < S; s++) begin
        s_r[s] <= '0; s_w[s] <= '0; s_bar[s] <= '0;
      end
    end else begin
      // the head's plan
      if (d_ready) begin
        pl_valid <= d_valid;
        pl <= dp;
        pl_desc <= d_desc;
        pl_t <= d_t;
        pl_pos <= dpos;
      end
      // the sections' ends, into their owners' slots
      for (int c = 0; c < N; c++) begin
        logic [SW-1:0] o;
        if (r_done[c]) begin
          o = r_owner[c*SW +: SW];
          s_r[o][c] <= 1'b0;
          if (r_err[c]) s_st[o] <= mm_pkg::ST_EMEM;
        end
        if (w_done[c]) begin
          o = w_owner[c*SW +: SW];
          s_w[o][c] <= 1'b0;
          s_val[o] <= s_val[o] + {32'd0, w_nbytes[c*32 +: 32]};
          if (w_err[c*2 +: 2] == 2'd1) s_st[o] <= mm_pkg::ST_EOVERFLW;
          if (w_err[c*2 +: 2] == 2'd2) s_st[o] <= mm_pkg::ST_EMEM;
        end
      end
      if (dist_active && r_done[dist_src]) dist_active <= 1'b0;
      if (to_core != '0 && !core_busy && !core_start) begin
        to_core <= '0; core_w_en <= 1'b0;
      end
      for (int s = 0; s < S; s++) s_bar[s] <= s_bar[s] & ~bar_take;
      if (am_done) begin
        s_am[am_done_slot] <= 1'b0;
        s_st[am_done_slot] <= am_status;
        s_val[am_done_slot] <= am_value;
      end
      // a completion leaves
      if (have_done && (c_ready || s_nocq[done_slot])) s_valid[done_slot] <= 1'b0;
      // a new slot
      if (issue) begin
        s_valid[free_slot] <= 1'b1;
        s_id[free_slot] <= pl_desc.id;
        s_op[free_slot] <= pl_desc.op;
        s_t[free_slot] <= pl_t;
        s_st[free_slot] <= pl.status;
        s_val[free_slot] <= '0;
        s_r[free_slot] <= pl.rmask;
        s_w[free_slot] <= pl.wmask;
        s_bar[free_slot] <= pl.bar;
        s_am[free_slot] <= pl.am;
        s_quiet[free_slot] <= pl.quiet;
        s_nocq[free_slot] <= (pl_desc.flags & mm_pkg::F_NOCQ) != 0 && pl.am;
        for (int c = 0; c < N; c++) begin
          if (pl.rdist && pl.dist_mask[c]) use_dist[c] <= 1'b1;
          else if (!pl.rdist && pl.rmask[c]) use_dist[c] <= 1'b0;
        end
        if (pl.rdist) begin
          dist_active <= 1'b1;
          dist_mask <= pl.dist_mask;
          dist_src <= me[LW-1:0];
        end
        if (pl.core) begin
          to_core <= pl.core_lanes; core_w_en <= 1'b1; core_w <= me[LW-1:0];
        end
      end
    end
  end

  assign slot_busy = s_valid;
  always_comb begin
    oldest_op = '0;
    for (int s = S - 1; s >= 0; s--) if (s_valid[s]) oldest_op = s_op[s];
  end
  assign dist_on = dist_active;
  assign act = (pl_valid && issue) || (d_valid && d_ready) || have_done || bar_take != '0
            || (to_core != '0 && !core_busy);
endmodule
