// mm_sync: the sync IP of one lane (OPTWEB (JOCN 2022) §2.C, §3.C.2), between the distributed
// switch and the link toward one peer. It
//   - sends the one-cycle block signal: a barrier pulse or the receiver's "ready" pulse before a
//     rendezvous transfer, as a bit of the link's sideband (the pulse's path is our assumption);
//   - counts the pulses that arrive, so a pulse is never lost when nobody waits for it yet
//     (barrier k+1 may start on one node before another has finished barrier k);
//   - holds the receive buffer that absorbs the skew between nodes (§3.C.2) and the eager
//     messages that arrive before their receive is programmed (§4.B.2);
//   - holds a second, smaller buffer for meshmem's one-sided packets (the extension), so that an
//     active message never waits behind a raw message whose receive is not posted yet (and such a
//     receive may itself wait for that active message: a fence behind a get);
//   - meters the sender by credits: one per word of each of the peer's two buffers, returned as
//     sideband pulses when words leave them. OPTWEB's text has no flow control (rendezvous
//     "so there is no data loss"); credits are ours, so that eager messages can never be lost;
//   - meters the sender to the link's rate (`rate`, bits per cycle in Q8; a beat costs DW bits:
//     SerialLite III streams whole bus words), so that the link model only delays.
//
// Handshakes: the selector drives the TX stream's valid and `tx_user` (an active-message beat);
// this IP drives ready (a credit of that buffer and the rate's tokens left). The sequencer and
// M_DMAC pulse `bar_send`/`rdy_send`/`bar_take`/`rdy_take` (take only while `*_avail`). The link
// delivers RX beats and pulses without a ready. The N x N switch takes the raw buffer's head with
// `rx_ready` and the active-message buffer's with `ax_ready`.
module mm_sync #(
  parameter int DW = 256,
  parameter int RB = 256,         // raw receive buffer words (= the peer's raw credits)
  parameter int RA = 64           // active-message buffer words
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [19:0]   rate,
  // from the selector
  input  logic          tx_valid,
  output logic          tx_ready,
  input  logic [DW-1:0] tx_data,
  input  logic          tx_last,
  input  logic [$clog2(DW/8):0] tx_bytes,
  input  logic          tx_user,
  // pulses to send / received
  input  logic          bar_send,
  input  logic          rdy_send,
  input  logic          bar_take,
  input  logic          rdy_take,
  output logic          bar_avail,
  output logic          rdy_avail,
  // to the link
  output logic          l_valid,
  output logic [DW-1:0] l_data,
  output logic          l_last,
  output logic [$clog2(DW/8):0] l_bytes,
  output logic          l_user,
  output logic [7:0]    l_sb,
  // from the link
  input  logic          r_valid,
  input  logic [DW-1:0] r_data,
  input  logic          r_last,
  input  logic [$clog2(DW/8):0] r_bytes,
  input  logic          r_user,
  input  logic [7:0]    r_sb,
  // the raw buffer's head, to the N x N switch
  output logic          rx_valid,
  input  logic          rx_ready,
  output logic [DW-1:0] rx_data,
  output logic          rx_last,
  output logic [$clog2(DW/8):0] rx_bytes,
  // the active-message buffer's head
  output logic          ax_valid,
  input  logic          ax_ready,
  output logic [DW-1:0] ax_data,
  output logic          ax_last,
  // observed by the watchdog and for idle skipping
  output logic          no_credit,   // a beat waits for credits
  output logic          act,
  output logic          busy         // work of its own: pulses to send, a word to move (clock enable)
);
  localparam int BWB = $clog2(DW/8) + 1;
  localparam int CW = $clog2(RB) + 1;
  // sideband bits: barrier, ready, a raw credit, an active-message credit
  localparam int SB_BAR = 0, SB_RDY = 1, SB_CRD = 2, SB_CRA = 3;
  localparam logic [27:0] COST = 28'(DW) << 8;   // one beat, Q8 bits

  logic [CW-1:0] credits, acredits;
  logic [27:0]   tokens;               // rate tokens, saturating at a beat and a cycle's worth
  logic [27:0]   tcap;
  logic          go, pop, apop, have;
  logic [15:0]   bar_n, rdy_n;         // pulses received, not yet taken
  logic [15:0]   bar_p, rdy_p;         // pulses to send
  logic [CW-1:0] crd_p, cra_p;         // credits to return
  logic [DW+BWB:0] head;
  logic [DW:0]   ahead;
  logic          fifo_moving, afifo_moving;

  assign tcap      = COST + {8'd0, rate};
  assign have      = tx_user ? acredits != '0 : credits != '0;
  assign tx_ready  = have && tokens >= COST;
  assign l_valid   = tx_valid && tx_ready;
  assign go        = l_valid;
  assign l_data    = tx_data;
  assign l_last    = tx_last;
  assign l_bytes   = tx_bytes;
  assign l_user    = tx_user;
  // the link takes pulses every cycle
  assign l_sb      = {4'd0, cra_p != '0, crd_p != '0, rdy_p != '0, bar_p != '0};
  assign bar_avail = bar_n != '0;
  assign rdy_avail = rdy_n != '0;
  assign no_credit = tx_valid && !have;

  mm_fifo #(.W(DW + BWB + 1), .D(RB)) rxbuf (
    .clk, .rst,
    .push(r_valid && !r_user), .i_data({r_last, r_bytes, r_data}), .full(),
    .o_valid(rx_valid), .o_data(head), .pop, .count(), .moving(fifo_moving)
  );
  assign pop = rx_valid && rx_ready;
  assign rx_data  = head[DW-1:0];
  assign rx_bytes = head[DW +: BWB];
  assign rx_last  = head[DW + BWB];

  mm_fifo #(.W(DW + 1), .D(RA)) axbuf (
    .clk, .rst,
    .push(r_valid && r_user), .i_data({r_last, r_data}), .full(),
    .o_valid(ax_valid), .o_data(ahead), .pop(apop), .count(), .moving(afifo_moving)
  );
  assign apop = ax_valid && ax_ready;
  assign ax_data = ahead[DW-1:0];
  assign ax_last = ahead[DW];

  always_ff @(posedge clk) begin
    if (rst) begin
      credits <= CW'(RB); acredits <= CW'(RA);
      bar_n <= '0; rdy_n <= '0; bar_p <= '0; rdy_p <= '0; crd_p <= '0; cra_p <= '0;
      tokens <= '0;
    end else begin
      begin
        logic [27:0] t;
        t = (go ? tokens - COST : tokens) + {8'd0, rate};
        tokens <= t > tcap ? tcap : t;
      end
      credits  <= credits  - {{(CW-1){1'b0}}, go && !tx_user} + {{(CW-1){1'b0}}, r_sb[SB_CRD]};
      acredits <= acredits - {{(CW-1){1'b0}}, go && tx_user}  + {{(CW-1){1'b0}}, r_sb[SB_CRA]};
      bar_n <= bar_n + {15'd0, r_sb[SB_BAR]} - {15'd0, bar_take};
      rdy_n <= rdy_n + {15'd0, r_sb[SB_RDY]} - {15'd0, rdy_take};
      bar_p <= bar_p + {15'd0, bar_send} - {15'd0, l_sb[SB_BAR]};
      rdy_p <= rdy_p + {15'd0, rdy_send} - {15'd0, l_sb[SB_RDY]};
      crd_p <= crd_p + {{(CW-1){1'b0}}, pop} - {{(CW-1){1'b0}}, l_sb[SB_CRD]};
      cra_p <= cra_p + {{(CW-1){1'b0}}, apop} - {{(CW-1){1'b0}}, l_sb[SB_CRA]};
    end
  end

  // state changes at the next edge (pulses arriving and beats entering come with the link's own
  // activity, the requests with the sequencer's)
  assign act = l_sb != 8'd0 || pop || apop || go || fifo_moving || afifo_moving || tokens < tcap;
  // with the inputs that start work, what keeps the clock running
  assign busy = act || tx_valid || r_valid || r_sb != 8'd0 || bar_send || rdy_send || bar_take
             || rdy_take;
endmodule
