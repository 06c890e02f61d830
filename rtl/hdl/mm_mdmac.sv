// mm_mdmac: M_DMAC, "the mechanism to control them all at once" (OPTWEB (JOCN 2022) §2.C): one
// program from the command sequencer sets every read section R#n and write section W#n a
// collective needs, in one cycle. Member n's block lies at base + pos(n) * stride (pos: the
// member's place in the team), so the program is a few words, not N commands.
//
// Write sections start at once (a receive must be ready before its data comes). A read section
// starts at once too, unless the transfer is rendezvous: then it waits until its lane's sync IP
// holds a "ready" pulse from the receiver (§3.C.2) and takes that pulse as it starts; the read
// section feeding the distributor waits for a pulse from every lane of its copy set.
//
// Handshakes: the sequencer pulses `p_valid` with the program, only when every section the
// program names is free (`r_busy`, `w_busy`: programmed, waiting or running); M_DMAC pulses the
// sections' `start` and the sync IPs' `rdy_take`. It reports each section's end (`r_done`,
// `w_done` with bytes and errors) and which slot of the sequencer owns it.
module mm_mdmac #(
  parameter int N = 4,
  parameter int AW = mm_pkg::AW,
  parameter int SW = 2                  // sequencer slot index width
) (
  input  logic                 clk,
  input  logic                 rst,
  // a program
  input  logic                 p_valid,
  input  logic [SW-1:0]        p_slot,
  input  logic [N*4-1:0]       p_pos,      // each channel's place in the team
  input  logic [N-1:0]         p_rmask,
  input  logic [AW-1:0]        p_rbase,
  input  logic [AW-1:0]        p_rstride,
  input  logic [31:0]          p_rlen,
  input  logic                 p_rlenmem,
  input  logic [AW-1:0]        p_rlenbase,
  input  logic [N-1:0]         p_rwait,    // rendezvous: the lanes whose ready pulse R waits for
  input  logic                 p_rdist,    // the (single) read section feeds the distributor
  input  logic [N-1:0]         p_wmask,
  input  logic [AW-1:0]        p_wbase,
  input  logic [AW-1:0]        p_wstride,
  input  logic [31:0]          p_wcap,
  input  logic                 p_wcnt,
  input  logic [AW-1:0]        p_wcntbase,
  // the sync IPs' ready pulses
  input  logic [N-1:0]         rdy_avail,
  output logic [N-1:0]         rdy_take,
  // the sections
  output logic [N-1:0]         r_start,
  output logic [N*AW-1:0]      r_addr,
  output logic [N*32-1:0]      r_len,
  output logic [N-1:0]         r_lenmem,
  output logic [N*AW-1:0]      r_lenaddr,
  input  logic [N-1:0]         r_run,
  output logic [N-1:0]         w_start,
  output logic [N*AW-1:0]      w_addr,
  output logic [31:0]          w_cap,
  output logic                 w_cnt,
  output logic [N*AW-1:0]      w_cntaddr,
  input  logic [N-1:0]         w_run,
  // state, for the sequencer
  output logic [N-1:0]         r_busy,
  output logic [N-1:0]         w_busy,
  output logic [N*SW-1:0]      r_owner,
  output logic [N*SW-1:0]      w_owner,
  output logic [N-1:0]         r_waiting   // programmed, waiting for ready pulses (watchdog)
);
  logic [N-1:0]    r_pend;                   // programmed, not started
  logic [N*N-1:0]  r_wset;                   // per read section: lanes whose pulse it waits for
  logic [N-1:0]    go;

  // member n's address: base + pos * stride, pos < 16
  function automatic logic [AW-1:0] at(input logic [AW-1:0] base, input logic [AW-1:0] stride,
                                       input logic [3:0] pos);
    at = base;
    for (int b = 0; b < 4; b++) if (pos[b]) at = at + (stride << b);
  endfunction

  always_comb begin
    logic [N-1:0] take;
    take = '0;
    for (int c = 0; c < N; c++) begin
      logic [N-1:0] ws;
      ws = r_wset[c*N +: N];
      go[c] = r_pend[c] && ((ws & rdy_avail) == ws);
      if (go[c]) take = take | ws;
    end
    rdy_take = take;
    r_start = go;
    r_busy  = r_pend | r_run;
    r_waiting = r_pend;
    w_busy  = w_run | w_start;
  end

  always_ff @(posedge clk) begin
    w_start <= '0;
    if (rst) begin
      r_pend <= '0; r_wset <= '0;
    end else begin
      r_pend <= r_pend & ~go;
      if (p_valid) begin
        w_cap <= p_wcap;
        w_cnt <= p_wcnt;
        for (int c = 0; c < N; c++) begin
          logic [3:0] pos;
          pos = p_pos[c*4 +: 4];
          if (p_rmask[c]) begin
            r_pend[c] <= 1'b1;
            r_addr[c*AW +: AW] <= at(p_rbase, p_rstride, pos);
            r_len[c*32 +: 32] <= p_rlen;
            r_lenmem[c] <= p_rlenmem;
            r_lenaddr[c*AW +: AW] <= at(p_rlenbase, AW'(4), pos);
            r_wset[c*N +: N] <= p_rdist ? p_rwait : (p_rwait & (N'(1) << c));
            r_owner[c*SW +: SW] <= p_slot;
          end
          if (p_wmask[c]) begin
            w_start[c] <= 1'b1;
            w_addr[c*AW +: AW] <= at(p_wbase, p_wstride, pos);
            w_cntaddr[c*AW +: AW] <= at(p_wcntbase, AW'(4), pos);
            w_owner[c*SW +: SW] <= p_slot;
          end
        end
      end
    end
  end
endmodule
