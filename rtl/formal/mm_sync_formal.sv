// Bounded proof of the sync IP's handshakes (yosys-smtbmc, rtl/formal/run.sh): two sync IPs
// joined by a two-cycle link each way, every input free. Over every input sequence up to the
// depth checked:
//   - the receiver's raw and active-message buffers never receive a beat while full: the credits
//     the sender holds never exceed the space left (no data loss, the property rendezvous gave
//     OPTWEB);
//   - raw beats arrive in the order they were sent, none lost or doubled (the sender numbers
//     them; the receiver's sequence is checked);
//   - a barrier pulse is never taken before one was sent: pulses received never exceed pulses
//     sent, and each is counted once.
module mm_sync_formal (
  input logic       clk,
  input logic       a_valid, a_user, a_last, a_bar, a_rdy,
  input logic       b_ready, b_aready, b_take
);
  localparam int DW = 8;
  logic rst;
  logic init = 1'b1;
  always_ff @(posedge clk) init <= 1'b0;
  assign rst = init;

  logic [7:0] sent, got;          // raw beats sent by A, received by B
  logic       a_ready;
  logic       la_valid, la_last, la_user, lb_valid, lb_last, lb_user;
  logic [DW-1:0] la_data, lb_data;
  logic [1:0] la_bytes, lb_bytes;
  logic [7:0] la_sb, lb_sb;
  // the links: two registers each way
  logic       ab1_v, ab2_v, ab1_l, ab2_l, ab1_u, ab2_u, ba1_v, ba2_v;
  logic [DW-1:0] ab1_d, ab2_d;
  logic [7:0] ab1_s, ab2_s, ba1_s, ba2_s;
  always_ff @(posedge clk) begin
    ab1_v <= !rst && la_valid; ab1_d <= la_data; ab1_l <= la_last; ab1_u <= la_user;
    ab1_s <= rst ? 8'd0 : la_sb;
    ab2_v <= !rst && ab1_v; ab2_d <= ab1_d; ab2_l <= ab1_l; ab2_u <= ab1_u;
    ab2_s <= rst ? 8'd0 : ab1_s;
    ba1_v <= !rst && lb_valid; ba1_s <= rst ? 8'd0 : lb_sb;
    ba2_v <= !rst && ba1_v; ba2_s <= rst ? 8'd0 : ba1_s;
  end

  logic b_valid, b_avalid, b_bar_avail;
  logic [DW-1:0] b_data;

  mm_sync #(.DW(DW), .RB(4), .RA(2)) a (
    .clk, .rst, .rate(20'd1536),           // 0.75 beats a cycle (6 of 8 bits a cycle, Q8)
    .tx_valid(a_valid), .tx_ready(a_ready), .tx_data(sent), .tx_last(a_last), .tx_bytes(2'd1),
    .tx_user(a_user), .bar_send(a_bar), .rdy_send(a_rdy), .bar_take(1'b0), .rdy_take(1'b0),
    .bar_avail(), .rdy_avail(),
    .l_valid(la_valid), .l_data(la_data), .l_last(la_last), .l_bytes(la_bytes), .l_user(la_user),
    .l_sb(la_sb),
    .r_valid(ba2_v), .r_data('0), .r_last(1'b0), .r_bytes('0), .r_user(1'b0), .r_sb(ba2_s),
    .rx_valid(), .rx_ready(1'b1), .rx_data(), .rx_last(), .rx_bytes(),
    .ax_valid(), .ax_ready(1'b1), .ax_data(), .ax_last(), .no_credit(), .act(), .busy()
  );
  mm_sync #(.DW(DW), .RB(4), .RA(2)) b (
    .clk, .rst, .rate(20'd1536),
    .tx_valid(1'b0), .tx_ready(), .tx_data('0), .tx_last(1'b0), .tx_bytes('0), .tx_user(1'b0),
    .bar_send(1'b0), .rdy_send(1'b0), .bar_take(b_take && b_bar_avail), .rdy_take(1'b0),
    .bar_avail(b_bar_avail), .rdy_avail(),
    .l_valid(lb_valid), .l_data(lb_data), .l_last(lb_last), .l_bytes(lb_bytes), .l_user(lb_user),
    .l_sb(lb_sb),
    .r_valid(ab2_v), .r_data(ab2_d), .r_last(ab2_l), .r_bytes(2'd1), .r_user(ab2_u), .r_sb(ab2_s),
    .rx_valid(b_valid), .rx_ready(b_ready), .rx_data(b_data), .rx_last(), .rx_bytes(),
    .ax_valid(b_avalid), .ax_ready(b_aready), .ax_data(), .ax_last(), .no_credit(), .act(), .busy()
  );

  // pulses: sent by A, taken at B; what B's buffers hold (arrived, not yet handed out)
  logic [7:0] bars_sent, bars_taken, raw_held, am_held;
  always_ff @(posedge clk) begin
    if (rst) begin
      sent <= '0; got <= '0; bars_sent <= '0; bars_taken <= '0; raw_held <= '0; am_held <= '0;
    end else begin
      raw_held <= raw_held + {7'd0, ab2_v && !ab2_u} - {7'd0, b_valid && b_ready};
      am_held <= am_held + {7'd0, ab2_v && ab2_u} - {7'd0, b_avalid && b_aready};
      if (a_valid && a_ready && !a_user) sent <= sent + 8'd1;
      if (b_valid && b_ready) got <= got + 8'd1;
      if (a_bar) bars_sent <= bars_sent + 8'd1;
      if (b_take && b_bar_avail) bars_taken <= bars_taken + 8'd1;
    end
  end

`ifdef FORMAL
  always_comb begin
    if (!rst) begin
      // a buffer never holds more than its words (4 raw, 2 active-message): the credits
      assert (raw_held <= 8'd4);
      assert (am_held <= 8'd2);
      // raw beats in order, each once: the one B hands out is the next it expects
      if (b_valid) assert (b_data == got);
      assert (got <= sent);
      // a pulse is taken only after it was sent
      assert (bars_taken <= bars_sent);
    end
    // the active-message stream's data is A's counter too (harmless), only raw is checked
  end
`endif
endmodule
