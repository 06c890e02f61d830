// mm_link: one direction of a link between two nodes, standing in for Intel's SerialLite III IP
// and the optical path (OPTWEB (JOCN 2022) §2.C, §4.A). Not a design to synthesize: a model of
// vendor IP and fibre, with its timing as data.
//
//   latency  cfg link_lat cycles from the cycle a beat enters to its arrival (the one value
//            calibrated, on the 0.125 KiB unicast of §2.D);
//   rate     efficiency x lanes x lane rate (45 or 90 Gbps, §4.A), metered where the beats enter
//            it, by the sender's sync IP (mm_sync): this model takes what it is given, at most a
//            beat per cycle;
//   order    in order, nothing lost: the receiver's buffer space is the sender's credit (mm_sync);
//   sideband an 8-bit word of pulses beside the data (SerialLite III has an 8-bit sync sideband;
//            carrying the block signal there is our assumption), with the same latency and free
//            of the rate.
//
// Handshakes: none. The sender's sync IP drives TX valid/data and `sb`, and the model takes them;
// at the far end it drives RX valid with the beat and/or `rx_sb` in the cycle they are due, and
// the receiver takes them. One entry (a beat, pulses, or both) enters per cycle and leaves cfg
// latency cycles later, so LD > the latency (the loader holds it to 250) keeps the queue from
// ever filling.
module mm_link #(
  parameter int DW = 256,
  parameter int LD = 256          // entries in flight
) (
  input  logic          clk,
  input  logic          rst,
  input  logic [63:0]   now,
  input  logic          en,        // the link exists (GHC disables some, §4.B.2)
  input  logic [15:0]   lat,
  // TX
  input  logic          tx_valid,
  input  logic [DW-1:0] tx_data,
  input  logic          tx_last,
  input  logic [$clog2(DW/8):0] tx_bytes,
  input  logic          tx_user,
  input  logic [7:0]    tx_sb,
  // RX
  output logic          rx_valid,
  output logic [DW-1:0] rx_data,
  output logic          rx_last,
  output logic [$clog2(DW/8):0] rx_bytes,
  output logic          rx_user,
  output logic [7:0]    rx_sb,
  output logic          act,
  output logic          busy,         // clock enable: a beat or pulse entering or in flight
  output logic [63:0]   wake
);
  localparam int LW = $clog2(LD);
  localparam int BWB = $clog2(DW/8) + 1;

  logic [DW-1:0]  q_data [LD];
  logic [BWB+10:0] q_meta [LD];   // {has_data, last, user, bytes, sb}
  logic [63:0]    q_due  [LD];
  logic [LW:0]    cnt;
  logic [LW-1:0]  rd, wr;
  logic           push, pop, due, beat;

  assign beat  = en && tx_valid;
  assign push  = beat || (en && tx_sb != 8'd0);
  assign due   = cnt != '0 && now >= q_due[rd];
  assign pop   = due;

  always_comb begin
    logic [BWB+10:0] m;
    m = q_meta[rd];
    rx_valid = due && m[BWB+10];
    rx_last  = m[BWB+9];
    rx_user  = m[BWB+8];
    rx_bytes = m[BWB+7:8];
    rx_sb    = due ? m[7:0] : 8'd0;
    rx_data  = q_data[rd];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      cnt <= '0; rd <= '0; wr <= '0;
    end else begin
      if (push) begin
        if (beat) q_data[wr] <= tx_data;
        q_meta[wr] <= {beat, tx_last, tx_user, tx_bytes, tx_sb};
        q_due[wr]  <= now + {48'd0, lat};
        wr <= wr + 1'b1;
      end
      if (pop) rd <= rd + 1'b1;
      cnt <= cnt + {{LW{1'b0}}, push} - {{LW{1'b0}}, pop};
    end
  end

  assign busy = tx_valid || tx_sb != 8'd0 || cnt != '0;

  always_comb begin
    act  = due;
    wake = (cnt != '0 && !due) ? q_due[rd] : '1;
  end
endmodule
