// mm_am: meshmem's one-sided extension, marked as such: OPTWEB moves raw blocks programmed at
// both ends and has no one-sided operation; OpenSHMEM needs put, get, atomics and put-with-signal.
// Built in the style of FSHMEM's GASNet core (FSHMEM §III-A, Fig. 3): an AM sequencer forms
// messages (a header, then the payload read by DMA), a receive handler executes them by opcode
// at this node's memory port, a get is a request whose handler answers with a put.
//
// Packet: one 256-bit header (2 beats on a 128-bit lane) in FSHMEM's active-message style, then
// the payload packed from its first byte (any alignment at either end), on one lane, every beat
// marked `user` so the switch hands it to this engine and not to a write section:
//   [7:0] kind  [11:8] sub-op  [12] no completion  [19:16] source  [23:20] destination
//   [31:24] tag (the initiator's sequencer slot)  [63:32] length  [127:64] address
//   [191:128] value  [255:192] aux
// Kinds: PUT, GET (request), AMO (request), PUT_SIGNAL, GET_REPLY (a put carrying the data),
// AMO_REPLY (the old value), ACK (value = how many puts of the sender's it acknowledges).
//
// Like FSHMEM's sequencer ("fetches the necessary data using the read DMA and sends the formed
// message"), a packet with a payload leaves once its first payload beat is at hand, so that
// header and payload stream without a gap. For measurements as FSHMEM's (§IV-D: a hardware
// counter from the command to the header's arrival), a put's completion carries the cycle its
// header reached the target (carried back in the ACK), a get's the cycle the reply's header came
// back.
//
// Acknowledgements are per peer and counted (so quiet can count them): the target adds each
// written put to a counter per source and sends one ACK packet for all of them when its sequencer
// is free; puts to one peer are written in order, so the initiator's count of acknowledged puts
// tells which of its puts are done. A put completes on its acknowledgement, or at once with
// MM_RTL_F_NOCQ (no completion entry; QUIET then waits for the counts). Put-with-signal writes its
// signal only after every B of its data has come back (the data is in memory before the signal).
// AMOs run in the receive handler, one at a time, so they are atomic with one another (not with
// the raw DMACs' writes, as a NIC's atomics are not with the CPU's stores).
//
// Reach: a peer the node has a link to (every node of a full mesh; a GHC's row and column).
// Relaying one-sided packets across two hops is left out (docs/rtl.md says why); such a request
// completes with MM_RTL_ST_EROUTE.
//
// Memory: two AXI4 masters on a pseudo-channel each, both onto the node's memory: m0 reads the
// payloads this node sends, m1 reads and writes for the receive handler. Neither waits for the
// other, so a handler never waits for this node's sends (no request/reply deadlock).
//
// Handshakes: the sequencer drives `q_valid` with a descriptor and the slot it gave it (`q_ready`
// depends on this engine's state only); this engine reports a slot's end on `done`. It drives a
// lane's t_valid for its packet (the selector grants it by message); the N x N switch hands it
// received packets on `r_*` with the lane they came on.
module mm_am #(
  parameter int N = 4,
  parameter int DW = 256,
  parameter int AW = mm_pkg::AW,
  parameter int S = 8,
  parameter int RQ = N * S          // reply jobs: every initiator's every slot may wait on one
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [63:0]   now,
  input  logic [3:0]    me,
  input  logic [N-1:0]  lane_ok,
  // from the sequencer
  input  logic          q_valid,
  output logic          q_ready,
  /* verilator lint_off UNUSEDSIGNAL */
  input  mm_pkg::desc_t q_desc,         // (its id and dst_stride mean nothing here)
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [$clog2(S)-1:0] q_slot,
  output logic          done,
  output logic [$clog2(S)-1:0] done_slot,
  output logic [3:0]    status,
  output logic [63:0]   value,
  output logic          idle,
  output logic [31:0]   outstanding,
  // packets out, one lane at a time
  output logic [N-1:0]  t_valid,
  input  logic [N-1:0]  t_ready,
  output logic [N*DW-1:0] t_data,
  output logic [N-1:0]  t_last,
  output logic [N*($clog2(DW/8)+1)-1:0] t_bytes,
  // packets in
  input  logic          r_valid,       // (the header says where the payload ends and who sent it)
  output logic          r_ready,
  input  logic [DW-1:0] r_data,
  // m0: payload reads
  output logic          m0_arvalid,
  input  logic          m0_arready,
  output logic [AW-1:0] m0_araddr,
  output logic [7:0]    m0_arlen,
  input  logic          m0_rvalid,
  output logic          m0_rready,
  input  logic [DW-1:0] m0_rdata,
  input  logic [1:0]    m0_rresp,
  // m1: the handler's reads and writes
  output logic          m1_arvalid,
  input  logic          m1_arready,
  output logic [AW-1:0] m1_araddr,
  input  logic          m1_rvalid,
  output logic          m1_rready,
  input  logic [DW-1:0] m1_rdata,
  input  logic [1:0]    m1_rresp,
  output logic          m1_awvalid,
  input  logic          m1_awready,
  output logic [AW-1:0] m1_awaddr,
  output logic          m1_wvalid,
  input  logic          m1_wready,
  output logic [DW-1:0] m1_wdata,
  output logic [DW/8-1:0] m1_wstrb,
  input  logic          m1_bvalid,
  output logic          m1_bready,
  input  logic [1:0]    m1_bresp,
  output logic          act
);
  localparam int BB = DW / 8;
  localparam int BW = $clog2(BB);
  localparam int BWB = BW + 1;
  localparam int HB = 256 / DW;            // header beats
  localparam int SW = $clog2(S);
  localparam int LW = $clog2(N);
  localparam logic [7:0] K_PUT = 8'h10, K_GET = 8'h11, K_AMO = 8'h12, K_PSIG = 8'h13,
                         K_GREP = 8'h21, K_AREP = 8'h22, K_ACK = 8'h30;

  function automatic logic [31:0] nbeats(input logic [31:0] bytes);
    nbeats = (bytes + 32'(BB - 1)) >> BW;
  endfunction

  // a header (layout above)
  function automatic logic [255:0] hdr(input logic [7:0] kind, input logic [3:0] sub,
                                       input logic nocq, input logic [3:0] src,
                                       input logic [3:0] dst, input logic [7:0] tag,
                                       input logic [31:0] len, input logic [63:0] addr,
                                       input logic [63:0] val, input logic [63:0] aux);
    hdr = {aux, val, addr, len, tag, dst, src, 3'd0, nocq, sub, kind};
  endfunction

  function automatic logic [63:0] amo(input logic [3:0] op, input logic [63:0] cur,
                                      input logic [63:0] opnd, input logic [63:0] cmp,
                                      input logic four);
    case (op)
      4'(mm_pkg::AMO_FADD):  amo = cur + opnd;
      4'(mm_pkg::AMO_SWAP):  amo = opnd;
      4'(mm_pkg::AMO_SET):   amo = opnd;
      4'(mm_pkg::AMO_CSWAP): amo = (four ? cur[31:0] == cmp[31:0] : cur == cmp) ? opnd : cur;
      4'(mm_pkg::AMO_FAND):  amo = cur & opnd;
      4'(mm_pkg::AMO_FOR):   amo = cur | opnd;
      4'(mm_pkg::AMO_FXOR):  amo = cur ^ opnd;
      default:               amo = cur;           // FETCH
    endcase
  endfunction

  // ================================================================ completions to the sequencer
  logic [S-1:0]  dpend;                  // a slot's end waits to be reported
  logic [3:0]    dst_st  [S];
  logic [63:0]   dst_val [S];
  logic [S-1:0]  ack_wait;               // a put waits for its acknowledgement
  logic [3:0]    ack_peer [S];
  logic [31:0]   ack_seq  [S];
  logic [31:0]   issued [N];             // puts sent to each peer
  logic [31:0]   acked  [N];             // of those, acknowledged
  logic [31:0]   tot_issued, tot_acked;

  // one report per cycle, lowest slot first
  always_comb begin
    done = 1'b0; done_slot = '0;
    for (int s = S - 1; s >= 0; s--) if (dpend[s]) begin done = 1'b1; done_slot = SW'(s); end
    status = dst_st[done_slot];
    value  = dst_val[done_slot];
    outstanding = tot_issued - tot_acked;
  end

  // ================================================================ the receive handler (RX)
  typedef enum logic [3:0] {R_HDR, R_DEC, R_PAY, R_FLUSH, R_BWAIT, R_SIG_AR, R_SIG_R, R_SIG_W,
                            R_AMO_AR, R_AMO_R, R_AMO_W, R_AMO_B, R_JOB} rst_t;
  rst_t rs;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [255:0]  rh;                     // the header being received / executed
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0]    rh_n;                   // header beats received
  logic [AW-1:0] ra;                     // next write address (beat-aligned)
  logic [31:0]   r_in_left;              // payload beats still to come
  logic [31:0]   r_pos;                  // bytes of the memory beats already written
  logic [DW-1:0] r_prev;                 // the previous payload beat (realignment)
  logic [15:0]   r_bwait;
  logic          r_aw_sent, r_err;
  logic [63:0]   r_old;                  // AMO, signal add: the value found
  logic [63:0]   r_hdr_t;                // the cycle the header being executed arrived
  logic [63:0]   last_hdr [N];           // per source: its latest put's header arrival
  logic [63:0]   ack_t [N];              // per target: the header time its latest ACK carried
  logic [N*16-1:0] ack_cnt;              // puts written per source, not yet acknowledged
  logic [N-1:0]  ack_inc;
  // reply jobs: {kind, dest, tag, addr, len, raddr or value}
  localparam int JW = 8 + 4 + 8 + 64 + 32 + 64;
  logic          jq_push, jq_full, jq_valid, jq_pop, jq_moving;
  logic [JW-1:0] jq_in, jq_out;

  mm_fifo #(.W(JW), .D(RQ)) jq (
    .clk, .rst, .push(jq_push), .i_data(jq_in), .full(jq_full), .o_valid(jq_valid),
    .o_data(jq_out), .pop(jq_pop), .count(), .moving(jq_moving)
  );

  logic [7:0]    rk, rtag;
  logic [3:0]    rsub, rsrc;
  logic [31:0]   rlen;
  logic [63:0]   raddr, rval, raux;
  logic [BW-1:0] ro;                     // the destination's byte offset in its beat
  assign rk = rh[7:0];
  assign rsub = rh[11:8];
  assign rsrc = rh[19:16];
  assign rtag = rh[31:24];
  assign rlen = rh[63:32];
  assign raddr = rh[127:64];
  assign rval = rh[191:128];
  assign raux = rh[255:192];
  assign ro = raddr[BW-1:0];

  // the beat the handler writes now: realigned payload, the signal, or the AMO's new value
  logic [63:0]   amo_new, sig_new;
  logic          wpay, wword, w_go;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*DW-1:0] rwin;                 // a shift window: its low half is the beat
  /* verilator lint_on UNUSEDSIGNAL */
  logic [BW-1:0] wo;                     // an AMO's or signal's byte offset in its beat
  logic [BW:0]   rsh;

  always_comb begin
    amo_new = amo(rsub, r_old, rval, raux, rlen == 32'd4);
    sig_new = rsub == 4'(mm_pkg::SIG_ADD) ? r_old + rval : rval;
    rsh = (BW+1)'(BB) - {1'b0, ro};
    rwin = {(rs == R_FLUSH ? {DW{1'b0}} : r_data), r_prev} >> {rsh, 3'b000};
    wpay  = (rs == R_PAY && r_valid) || rs == R_FLUSH;
    wword = rs == R_AMO_W || rs == R_SIG_W;
    m1_awvalid = (wpay || wword) && !r_aw_sent;
    m1_wvalid  = wpay || wword;
    m1_awaddr  = rs == R_SIG_W ? {raux[AW-1:BW], {BW{1'b0}}}
               : rs == R_AMO_W ? {raddr[AW-1:BW], {BW{1'b0}}} : ra;
    m1_wdata   = wword ? (rs == R_AMO_W && rlen == 32'd4 ? {(DW/32){amo_new[31:0]}}
                                                         : {(DW/64){rs == R_AMO_W ? amo_new : sig_new}})
                       : rwin[DW-1:0];
    m1_wstrb   = '0;
    wo = rs == R_SIG_W ? raux[BW-1:0] : ro;
    for (int k = 0; k < BB; k++) begin
      logic [32:0] at;                   // byte k's place: in the message, or in the beat
      if (wword) begin
        at = 33'(k) - 33'(wo);
        m1_wstrb[k] = 33'(k) >= 33'(wo) && at < (rs == R_SIG_W ? 33'd8 : {1'b0, rlen});
      end else begin
        at = {1'b0, r_pos} + 33'(k);
        m1_wstrb[k] = at >= 33'(ro) && at - 33'(ro) < {1'b0, rlen};
      end
    end
    m1_bready  = 1'b1;
    m1_arvalid = rs == R_AMO_AR || rs == R_SIG_AR;
    m1_araddr  = rs == R_SIG_AR ? {raux[AW-1:BW], {BW{1'b0}}} : {raddr[AW-1:BW], {BW{1'b0}}};
    m1_rready  = rs == R_AMO_R || rs == R_SIG_R;
  end
  assign w_go = m1_wvalid && m1_wready && (r_aw_sent || m1_awready);
  assign r_ready = rs == R_HDR || (rs == R_PAY && w_go);

  always_ff @(posedge clk) begin
    jq_push <= 1'b0;
    ack_inc <= '0;
    if (rst) begin
      rs <= R_HDR; rh_n <= '0; r_bwait <= '0; r_aw_sent <= 1'b0; r_err <= 1'b0;
      r_prev <= '0; r_old <= '0;
    end else begin
      r_bwait <= r_bwait + {15'd0, w_go} - {15'd0, m1_bvalid};
      if (m1_bvalid && m1_bresp != 2'b00) r_err <= 1'b1;
      if (m1_awvalid && m1_awready && !w_go) r_aw_sent <= 1'b1;
      if (w_go) r_aw_sent <= 1'b0;
      case (rs)
        R_HDR: if (r_valid) begin
          rh[rh_n * DW +: DW] <= r_data;
          if (rh_n == 2'(HB - 1)) begin rh_n <= '0; rs <= R_DEC; end
          else rh_n <= rh_n + 1'b1;
        end
        R_DEC: begin
          r_prev <= '0; r_pos <= '0; r_err <= 1'b0; r_old <= '0;
          r_hdr_t <= now;
          if (rk == K_PUT || rk == K_PSIG) last_hdr[rsrc[LW-1:0]] <= now;
          ra <= {raddr[AW-1:BW], {BW{1'b0}}};
          r_in_left <= nbeats(rlen);
          case (rk)
            K_PUT, K_PSIG, K_GREP: rs <= rlen == 0 ? R_BWAIT : R_PAY;
            K_GET: begin
              // answer later with the data at addr (here) for the requester's aux
              jq_in <= {K_GREP, rsrc, rtag, raddr, rlen, raux};
              rs <= R_JOB;
            end
            K_AMO: rs <= R_AMO_AR;
            K_AREP: begin
              dpend[rtag[SW-1:0]] <= 1'b1; dst_st[rtag[SW-1:0]] <= rsub;
              dst_val[rtag[SW-1:0]] <= rval; rs <= R_HDR;
            end
            K_ACK: begin
              acked[rsrc[LW-1:0]] <= acked[rsrc[LW-1:0]] + rval[31:0];
              ack_t[rsrc[LW-1:0]] <= raux;
              tot_acked <= tot_acked + rval[31:0];
              rs <= R_HDR;
            end
            default: rs <= R_HDR;       // no other kind is ever sent
          endcase
        end
        R_PAY: if (w_go) begin
          r_prev <= r_data;
          r_pos <= r_pos + 32'(BB);
          ra <= ra + AW'(BB);
          r_in_left <= r_in_left - 1;
          // the destination spans one beat more than the payload: its tail is still in r_prev
          if (r_in_left == 1)
            rs <= nbeats(32'(ro) + rlen) > nbeats(rlen) ? R_FLUSH : R_BWAIT;
        end
        R_FLUSH: if (w_go) rs <= R_BWAIT;
        R_BWAIT: if (r_bwait == 0) begin // every write of the payload is in memory
          if (rk == K_PSIG) rs <= rsub == 4'(mm_pkg::SIG_ADD) ? R_SIG_AR : R_SIG_W;
          else if (rk == K_GREP) begin
            dpend[rtag[SW-1:0]] <= 1'b1;
            dst_st[rtag[SW-1:0]] <= r_err ? mm_pkg::ST_EMEM : rsub;
            dst_val[rtag[SW-1:0]] <= r_hdr_t;   // when the reply's header came back
            rs <= R_HDR;
          end else begin
            ack_inc[rsrc[LW-1:0]] <= 1'b1;
            rs <= R_HDR;
          end
        end
        R_SIG_AR: if (m1_arready) rs <= R_SIG_R;
        R_SIG_R: if (m1_rvalid) begin
          r_old <= m1_rdata[{raux[BW-1:3], 6'd0} +: 64];
          rs <= R_SIG_W;
        end
        R_SIG_W: if (w_go) begin
          rh[7:0] <= K_PUT;             // acknowledged as a put once the signal is in memory
          rs <= R_BWAIT;
        end
        R_AMO_AR: if (m1_arready) rs <= R_AMO_R;
        R_AMO_R: if (m1_rvalid) begin
          logic [63:0] w;
          w = m1_rdata[{raddr[BW-1:3], 6'd0} +: 64];
          r_old <= rlen == 32'd4 ? {32'd0, raddr[2] ? w[63:32] : w[31:0]} : w;
          if (m1_rresp != 2'b00) r_err <= 1'b1;
          rs <= rsub == 4'(mm_pkg::AMO_FETCH) ? R_AMO_B : R_AMO_W;
        end
        R_AMO_W: if (w_go) rs <= R_AMO_B;
        R_AMO_B: if (r_bwait == 0) begin // the new value is in memory: reply with the old one
          jq_in <= {K_AREP, rsrc, rtag, raddr, {28'd0, r_err ? mm_pkg::ST_EMEM : 4'd0}, r_old};
          rs <= R_JOB;
        end
        R_JOB: if (!jq_full) begin jq_push <= 1'b1; rs <= R_HDR; end
        default: rs <= R_HDR;
      endcase
    end
  end

  // ================================================================ the AM sequencer (TX)
  typedef enum logic [2:0] {T_IDLE, T_PRE, T_HDR, T_PAY, T_END} tst_t;
  tst_t ts;
  logic [255:0]  th;                     // header being sent
  logic [1:0]    th_n;
  logic [LW-1:0] tl;                     // lane
  logic [AW-1:0] ta;                     // next payload read address
  logic [31:0]   t_ar_left, t_in_left, t_out_left;
  logic [DW-1:0] t_prev;
  logic          t_primed;               // an unaligned source's first beat is in t_prev
  logic [BW-1:0] to_;                    // the source's byte offset
  logic [31:0]   tlen;
  logic          t_job_ack, t_job_req, t_nocq, t_hdr_only;
  logic [SW-1:0] t_slot;
  logic [3:0]    t_peer;
  logic [7:0]    tk;
  logic [15:0]   ack_sent;               // the ACK count in the header being sent
  logic          ack_any;
  logic [LW-1:0] ack_pick;
  logic [DW-1:0] tbeat;
  logic          tv, tlast, tgo, t_flush;
  logic [BWB-1:0] tbytes;
  logic [7:0]    t_burst;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*DW-1:0] twin;                 // a shift window: its low half is the beat
  /* verilator lint_on UNUSEDSIGNAL */
  logic          t_err;

  always_comb begin
    ack_any = 1'b0; ack_pick = '0;
    for (int c = N - 1; c >= 0; c--)
      if (ack_cnt[c*16 +: 16] != 16'd0 && lane_ok[c]) begin ack_any = 1'b1; ack_pick = LW'(c); end
    q_ready = ts == T_IDLE && !ack_any && !jq_valid;
    jq_pop  = ts == T_IDLE && !ack_any && jq_valid;
  end

  always_comb begin
    logic [31:0] room;
    t_flush = ts == T_PAY && t_in_left == 0;          // the tail of an unaligned source
    twin = {(t_flush ? {DW{1'b0}} : m0_rdata), t_prev} >> {to_, 3'b000};
    tbeat = ts == T_HDR ? th[th_n * DW +: DW] : (to_ == '0 ? m0_rdata : twin[DW-1:0]);
    tv = ts == T_HDR || t_flush || (ts == T_PAY && m0_rvalid && (to_ == '0 || t_primed));
    tlast = ts == T_HDR ? th_n == 2'(HB - 1) && t_hdr_only : t_out_left == 32'd1;
    tbytes = (ts == T_HDR || t_out_left != 32'd1) ? BWB'(BB)
           : BWB'(tlen - ((nbeats(tlen) - 1) << BW));
    t_valid = '0;
    t_valid[tl] = tv;
    t_last = '0;
    t_last[tl] = tlast;
    t_data = '0;
    t_data[tl*DW +: DW] = tbeat;
    t_bytes = '0;
    t_bytes[tl*BWB +: BWB] = tbytes;
    // payload reads: bursts of up to 16 beats, not across 512 bytes
    room = 32'd16 - {28'd0, ta[BW +: 4]};
    t_burst = t_ar_left < room ? 8'(t_ar_left - 1) : 8'(room - 1);
    m0_arvalid = (ts == T_PRE || ts == T_HDR || ts == T_PAY) && t_ar_left != 0;
    m0_araddr  = ta;
    m0_arlen   = t_burst;
  end
  assign tgo = tv && t_ready[tl];
  // an unaligned source's first beat only fills t_prev (before the header: T_PRE)
  assign m0_rready = t_in_left != 0 && ((ts == T_PRE && to_ != '0 && !t_primed) ||
                                        (ts == T_PAY && ((to_ != '0 && !t_primed) || t_ready[tl])));

  always_ff @(posedge clk) begin
    if (rst) begin
      ts <= T_IDLE; th_n <= '0; dpend <= '0; ack_wait <= '0; ack_cnt <= '0;
      tot_issued <= '0; tot_acked <= '0; t_primed <= 1'b0;
      for (int c = 0; c < N; c++) begin issued[c] <= '0; acked[c] <= '0; end
    end else begin
      // acknowledgements owed: +1 per put written, - what an ACK header carried
      for (int c = 0; c < N; c++)
        ack_cnt[c*16 +: 16] <= ack_cnt[c*16 +: 16] + {15'd0, ack_inc[c]}
                             - ((ts == T_END && t_job_ack && tl == LW'(c)) ? ack_sent : 16'd0);
      // puts whose acknowledgement has come
      for (int s = 0; s < S; s++)
        if (acked_now[s]) begin
          ack_wait[s] <= 1'b0; dpend[s] <= 1'b1; dst_st[s] <= mm_pkg::ST_OK;
          dst_val[s] <= ack_t[ack_peer[s][LW-1:0]];   // when the target had its header
        end
      if (done) dpend[done_slot] <= 1'b0;
      case (ts)
        T_IDLE: begin
          t_job_ack <= 1'b0; t_job_req <= 1'b0; th_n <= '0; t_primed <= 1'b0; t_err <= 1'b0;
          if (ack_any) begin
            th <= hdr(K_ACK, 4'd0, 1'b0, me, 4'(ack_pick), 8'd0, 32'd0, 64'd0,
                      {48'd0, ack_cnt[ack_pick*16 +: 16]}, last_hdr[ack_pick]);
            ack_sent <= ack_cnt[ack_pick*16 +: 16];
            tl <= ack_pick; tlen <= '0; t_hdr_only <= 1'b1; t_job_ack <= 1'b1; ts <= T_HDR;
            t_ar_left <= '0; t_in_left <= '0; t_out_left <= '0;
          end else if (jq_valid) begin
            logic [7:0]  jk, jt;
            logic [3:0]  jd;
            /* verilator lint_off UNUSEDSIGNAL */
            logic [63:0] ja;             // an address: AW bits of it
            /* verilator lint_on UNUSEDSIGNAL */
            logic [63:0] jv;
            logic [31:0] jl;
            jk = jq_out[JW-1 -: 8];
            jd = jq_out[JW-9 -: 4];
            jt = jq_out[JW-13 -: 8];
            ja = jq_out[159:96];
            jl = jq_out[95:64];
            jv = jq_out[63:0];
            tl <= jd[LW-1:0];
            if (jk == K_GREP) begin      // the data at ja (here) goes to the requester's jv
              th <= hdr(K_GREP, 4'd0, 1'b0, me, jd, jt, jl, jv, 64'd0, 64'd0);
              ta <= {ja[AW-1:BW], {BW{1'b0}}};
              to_ <= ja[BW-1:0];
              tlen <= jl;
              t_ar_left <= nbeats(32'(ja[BW-1:0]) + jl);
              t_in_left <= nbeats(32'(ja[BW-1:0]) + jl);
              t_out_left <= nbeats(jl);
              t_hdr_only <= jl == 0;
              ts <= jl == 0 ? T_HDR : T_PRE;
            end else begin               // AMO reply: status in the sub-op, old value
              th <= hdr(K_AREP, jl[3:0], 1'b0, me, jd, jt, 32'd0, 64'd0, jv, 64'd0);
              tlen <= '0;
              t_ar_left <= '0; t_in_left <= '0; t_out_left <= '0;
              t_hdr_only <= 1'b1;
              ts <= T_HDR;
            end
          end else if (q_valid) begin
            logic [7:0] op;
            logic [3:0] p;
            logic       ok, bad;
            op = q_desc.op; p = q_desc.peer[3:0];
            ok = q_desc.peer[15:4] == 0 && 5'(p) < 5'(N) && lane_ok[p[LW-1:0]];
            bad = q_desc.len[63:32] != 0 || q_desc.src[63:AW] != 0 || q_desc.dst[63:AW] != 0
               || (op == mm_pkg::OP_AMO && !((q_desc.len == 64'd8 && q_desc.dst[2:0] == 0) ||
                                             (q_desc.len == 64'd4 && q_desc.dst[1:0] == 0)))
               || (op == mm_pkg::OP_PUT_SIGNAL && q_desc.aux[2:0] != 0);
            t_slot <= q_slot; t_peer <= p; tl <= p[LW-1:0]; tk <= op;
            t_nocq <= (q_desc.flags & mm_pkg::F_NOCQ) != 0;
            to_ <= q_desc.src[BW-1:0];
            ta <= {q_desc.src[AW-1:BW], {BW{1'b0}}};
            // only a put reads a payload here (a get's or AMO's addresses are the target's)
            t_ar_left <= '0; t_in_left <= '0; t_out_left <= '0;
            if (op == mm_pkg::OP_PUT || op == mm_pkg::OP_PUT_SIGNAL) begin
              t_ar_left <= nbeats(32'(q_desc.src[BW-1:0]) + q_desc.len[31:0]);
              t_in_left <= nbeats(32'(q_desc.src[BW-1:0]) + q_desc.len[31:0]);
              t_out_left <= nbeats(q_desc.len[31:0]);
            end
            t_job_req <= 1'b1;
            if (op == mm_pkg::OP_PUT || op == mm_pkg::OP_PUT_SIGNAL) begin
              th <= hdr(op == mm_pkg::OP_PUT ? K_PUT : K_PSIG, q_desc.src_stride[3:0],
                        (q_desc.flags & mm_pkg::F_NOCQ) != 0, me, p, 8'(q_slot),
                        q_desc.len[31:0], q_desc.dst, q_desc.value, q_desc.aux);
              tlen <= q_desc.len[31:0];
              t_hdr_only <= q_desc.len[31:0] == 0;
            end else if (op == mm_pkg::OP_GET) begin   // read src there, reply into dst here
              th <= hdr(K_GET, 4'd0, 1'b0, me, p, 8'(q_slot), q_desc.len[31:0], q_desc.src,
                        64'd0, q_desc.dst);
              tlen <= '0;
              t_hdr_only <= 1'b1;
            end else begin
              th <= hdr(K_AMO, q_desc.src_stride[3:0], 1'b0, me, p, 8'(q_slot),
                        q_desc.len[31:0], q_desc.dst, q_desc.value, q_desc.aux);
              tlen <= '0;
              t_hdr_only <= 1'b1;
            end
            if (!ok || bad) begin
              dpend[q_slot] <= 1'b1;
              dst_st[q_slot] <= !ok ? mm_pkg::ST_EROUTE : mm_pkg::ST_EINVAL;
              dst_val[q_slot] <= '0;
            end else ts <= ((op == mm_pkg::OP_PUT || op == mm_pkg::OP_PUT_SIGNAL) &&
                            q_desc.len[31:0] != 0) ? T_PRE : T_HDR;
          end
        end
        // the payload's first beat is at hand: the header goes
        T_PRE: begin
          if (m0_arvalid && m0_arready) begin
            ta <= ta + ((AW'(t_burst) + 1'b1) << BW);
            t_ar_left <= t_ar_left - (32'(t_burst) + 1);
          end
          if (m0_rvalid && m0_rready) begin
            t_prev <= m0_rdata;
            t_primed <= 1'b1;
            t_in_left <= t_in_left - 1;
          end
          if ((to_ == '0 && m0_rvalid) || (t_primed && (m0_rvalid || t_in_left == 0))) ts <= T_HDR;
        end
        T_HDR: begin
          if (m0_arvalid && m0_arready) begin
            ta <= ta + ((AW'(t_burst) + 1'b1) << BW);
            t_ar_left <= t_ar_left - (32'(t_burst) + 1);
          end
          if (tgo) begin
            if (th_n == 2'(HB - 1)) begin
              th_n <= '0;
              ts <= t_hdr_only ? T_END : T_PAY;
            end else th_n <= th_n + 1'b1;
          end
        end
        T_PAY: begin
          if (m0_arvalid && m0_arready) begin
            ta <= ta + ((AW'(t_burst) + 1'b1) << BW);
            t_ar_left <= t_ar_left - (32'(t_burst) + 1);
          end
          if (m0_rvalid && m0_rready) begin
            t_prev <= m0_rdata;
            t_primed <= 1'b1;
            t_in_left <= t_in_left - 1;
            if (m0_rresp != 2'b00) t_err <= 1'b1;   // the packet still goes: its length is sent
          end
          if (tgo) begin
            t_out_left <= t_out_left - 1;
            if (t_out_left == 32'd1) ts <= T_END;
          end
        end
        T_END: begin
          if (t_job_req && (tk == mm_pkg::OP_PUT || tk == mm_pkg::OP_PUT_SIGNAL)) begin
            issued[t_peer[LW-1:0]] <= issued[t_peer[LW-1:0]] + 1;
            tot_issued <= tot_issued + 1;
            if (t_nocq || t_err) begin  // a source the memory refused completes here, failed
              dpend[t_slot] <= 1'b1; dst_val[t_slot] <= '0;
              dst_st[t_slot] <= t_err ? mm_pkg::ST_EMEM : mm_pkg::ST_OK;
            end else begin
              ack_wait[t_slot] <= 1'b1; ack_peer[t_slot] <= t_peer;
              ack_seq[t_slot] <= issued[t_peer[LW-1:0]] + 1;
            end
          end
          ts <= T_IDLE;
        end
        default: ts <= T_IDLE;
      endcase
    end
  end

  // the slots whose put has just been acknowledged
  logic [S-1:0] acked_now;
  always_comb
    for (int s = 0; s < S; s++)
      acked_now[s] = ack_wait[s] && $signed(acked[ack_peer[s][LW-1:0]] - ack_seq[s]) >= 0;

  assign idle = tot_issued == tot_acked && !(ts != T_IDLE && t_job_req);
  assign act = ts != T_IDLE || rs != R_HDR || r_valid || q_valid || ack_any || jq_valid
            || dpend != '0 || jq_push || jq_moving || ack_inc != '0 || r_bwait != 0
            || acked_now != '0;
endmodule
