// mm_sel: the N x 1 one-way switch of one lane (OPTWEB (JOCN 2022) §2.C), choosing what leaves
// toward one peer: the read section R#n of this lane's channel, or the distributor's copy of
// another read section (broadcast, all-gather), or, for meshmem's one-sided extension, the
// active-message engine's packets. Raw and active-message traffic share the lane message by
// message: a message, once started, keeps the lane until its last beat.
//
// Handshakes: the sources drive valid and their beat, this switch drives each source's ready
// (only the granted one sees the lane's ready); the sync IP drives the lane's ready. `use_dist` is
// the sequencer's choice of raw source, changed only while the lane is idle.
module mm_sel #(
  parameter int DW = 256
) (
  input  logic          clk,
  input  logic          rst,
  input  logic          use_dist,         // the raw source is the distributor, not R#n
  // R#n
  input  logic          r_valid,
  output logic          r_ready,
  input  logic [DW-1:0] r_data,
  input  logic          r_last,
  input  logic [$clog2(DW/8):0] r_bytes,
  // the distributor's copy
  input  logic          d_valid,
  output logic          d_ready,
  input  logic [DW-1:0] d_data,
  input  logic          d_last,
  input  logic [$clog2(DW/8):0] d_bytes,
  // active messages (extension)
  input  logic          a_valid,
  output logic          a_ready,
  input  logic [DW-1:0] a_data,
  input  logic          a_last,
  input  logic [$clog2(DW/8):0] a_bytes,
  // to the sync IP
  output logic          m_valid,
  input  logic          m_ready,
  output logic [DW-1:0] m_data,
  output logic          m_last,
  output logic [$clog2(DW/8):0] m_bytes,
  output logic          m_user        // the beat belongs to an active message
);
  logic busy, own_am;   // a message holds the lane, and whose
  logic raw_v, pick_am;

  always_comb begin
    raw_v   = use_dist ? d_valid : r_valid;
    // a free lane goes to the active-message engine first: its packets are short, and a raw
    // message behind one waits a few beats at most
    pick_am = busy ? own_am : a_valid;
    m_valid = pick_am ? a_valid : raw_v;
    m_data  = pick_am ? a_data : (use_dist ? d_data : r_data);
    m_last  = pick_am ? a_last : (use_dist ? d_last : r_last);
    m_bytes = pick_am ? a_bytes : (use_dist ? d_bytes : r_bytes);
    m_user  = pick_am;
  end
  assign a_ready = pick_am && m_ready;
  assign r_ready = !pick_am && !use_dist && m_ready;
  assign d_ready = !pick_am && use_dist && m_ready;

  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0; own_am <= 1'b0;
    end else if (m_valid && m_ready) begin
      busy <= !m_last;
      own_am <= pick_am;
    end
  end
endmodule
