// mm_sync: the sync IP of one lane (OPTWEB (JOCN 2022) §2.C, §3.C.2), between the distributed
// switch and the link toward one peer. It
//   - sends the one-cycle block signal: a barrier pulse or the receiver's "ready" pulse before a
//     rendezvous transfer, as a bit of the link's sideband (the pulse's path is our assumption);
//   - counts the pulses that arrive, so a pulse is never lost when nobody waits for it yet
//     (barrier k+1 may start on one node before another has finished barrier k);
//   - holds the receive buffer that absorbs the skew between nodes (§3.C.2) and the eager
//     messages that arrive before their receive is programmed (§4.B.2);
//   - meters the sender by credits: one per word of the peer's receive buffer, returned as a
//     sideband pulse when a word leaves it. OPTWEB's text has no flow control (rendezvous
//     "so there is no data loss"); credits are ours, so that eager messages can never be lost;
//   - meters the sender to the link's rate (`rate`, bits per cycle in Q8; a beat costs DW bits:
//     SerialLite III streams whole bus words), so that the link model only delays.
//
// Handshakes: the selector drives the TX stream's valid (this IP drives ready: a credit and the
// rate's tokens left); the sequencer and M_DMAC pulse `bar_send`/`rdy_send` (one pulse each, counted)
// and `bar_take`/`rdy_take` (consume one received, only while `bar_avail`/`rdy_avail`); the link
// delivers RX beats and pulses without a ready; the N x N switch takes the buffer's head with
// `rx_ready`.
module mm_sync #(
  parameter int DW = 256,
  parameter int RB = 256          // receive buffer words (= the peer's credits)
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
  // the receive buffer's head, to the N x N switch
  output logic          rx_valid,
  input  logic          rx_ready,
  output logic [DW-1:0] rx_data,
  output logic          rx_last,
  output logic [$clog2(DW/8):0] rx_bytes,
  output logic          rx_user,
  // observed by the watchdog and for idle skipping
  output logic          no_credit,   // a beat waits for credits
  output logic          act,
  output logic          busy         // work of its own: pulses to send, a word to move (clock enable)
);
  localparam int BWB = $clog2(DW/8) + 1;
  localparam int CW = $clog2(RB) + 1;
  // sideband bits
  localparam int SB_BAR = 0, SB_RDY = 1, SB_CRD = 2;

  localparam logic [27:0] COST = 28'(DW) << 8;   // one beat, Q8 bits
  logic [CW-1:0] credits;
  logic [27:0]   tokens;               // rate tokens, saturating at a beat and a cycle's worth
  logic [27:0]   tcap;
  logic          go;                   // a beat leaves toward the link
  logic [15:0]   bar_n, rdy_n;         // pulses received, not yet taken
  logic [15:0]   bar_p, rdy_p;         // pulses to send
  logic [CW-1:0] crd_p;                // credits to return
  logic          sb_go;
  logic          pop;
  logic [DW+BWB+1:0] head;
  logic          fifo_moving;

  assign tcap      = COST + {8'd0, rate};
  assign tx_ready  = credits != '0 && tokens >= COST;
  assign l_valid   = tx_valid && tx_ready;
  assign go        = l_valid;
  assign l_data    = tx_data;
  assign l_last    = tx_last;
  assign l_bytes   = tx_bytes;
  assign l_user    = tx_user;
  assign l_sb      = {5'd0, crd_p != '0, rdy_p != '0, bar_p != '0};
  assign sb_go     = 1'b1;             // the link takes pulses every cycle
  assign bar_avail = bar_n != '0;
  assign rdy_avail = rdy_n != '0;
  assign no_credit = tx_valid && credits == '0;

  mm_fifo #(.W(DW + BWB + 2), .D(RB)) rxbuf (
    .clk, .rst,
    .push(r_valid), .i_data({r_user, r_last, r_bytes, r_data}), .full(),
    .o_valid(rx_valid), .o_data(head), .pop, .count(), .moving(fifo_moving)
  );
  assign pop = rx_valid && rx_ready;
  assign rx_data  = head[DW-1:0];
  assign rx_bytes = head[DW +: BWB];
  assign rx_last  = head[DW + BWB];
  assign rx_user  = head[DW + BWB + 1];

  always_ff @(posedge clk) begin
    if (rst) begin
      credits <= CW'(RB); bar_n <= '0; rdy_n <= '0; bar_p <= '0; rdy_p <= '0; crd_p <= '0;
      tokens <= '0;
    end else begin
      begin
        logic [27:0] t;
        t = (go ? tokens - COST : tokens) + {8'd0, rate};
        tokens <= t > tcap ? tcap : t;
      end
      credits <= credits - {{(CW-1){1'b0}}, go}
                         + {{(CW-1){1'b0}}, r_sb[SB_CRD]};
      bar_n <= bar_n + {15'd0, r_sb[SB_BAR]} - {15'd0, bar_take};
      rdy_n <= rdy_n + {15'd0, r_sb[SB_RDY]} - {15'd0, rdy_take};
      bar_p <= bar_p + {15'd0, bar_send} - {15'd0, sb_go && l_sb[SB_BAR]};
      rdy_p <= rdy_p + {15'd0, rdy_send} - {15'd0, sb_go && l_sb[SB_RDY]};
      crd_p <= crd_p + {{(CW-1){1'b0}}, pop} - {{(CW-1){1'b0}}, sb_go && l_sb[SB_CRD]};
    end
  end

  // state changes at the next edge (pulses arriving and beats entering come with the link's own
  // activity, the requests with the sequencer's)
  assign act = l_sb != 8'd0 || pop || go || fifo_moving || tokens < tcap;
  // with the inputs that start work, what keeps the clock running
  assign busy = l_sb != 8'd0 || fifo_moving || pop || tx_valid || r_valid || r_sb != 8'd0
             || bar_send || rdy_send || bar_take || rdy_take || tokens < tcap;
endmodule
