// mm_dist: the distributor of the distributed switch (OPTWEB (JOCN 2022) §2.C: "the data from
// R#n is replicated for all FPGAs by the distributor, and then selected by the next N x 1
// one-way switch"), for broadcast and all-gather: one read section's message, copied to every
// lane in `mask`.
//
// Handshakes: the chosen read section drives valid with its beat; each lane's selector drives
// its ready. A beat leaves toward every lane of the mask, each lane taking it when it is ready
// (`taken` remembers who has), and the source sees ready once the last lane took it: no lane
// waits for another within a beat, none runs more than a beat ahead. `src`/`mask` are the
// sequencer's and change only while the distributor is idle.
module mm_dist #(
  parameter int N = 4,
  parameter int DW = 256
) (
  input  logic                 clk,
  input  logic                 rst,
  input  logic [$clog2(N)-1:0] src,
  input  logic [N-1:0]         mask,
  // the read sections' messages
  input  logic [N-1:0]         s_valid,
  output logic [N-1:0]         s_ready,
  input  logic [N*DW-1:0]      s_data,
  input  logic [N-1:0]         s_last,
  input  logic [N*($clog2(DW/8)+1)-1:0] s_bytes,
  // one copy per lane (the data is one bus)
  output logic [N-1:0]         m_valid,
  input  logic [N-1:0]         m_ready,
  output logic [DW-1:0]        m_data,
  output logic                 m_last,
  output logic [$clog2(DW/8):0] m_bytes
);
  localparam int BWB = $clog2(DW/8) + 1;
  logic [N-1:0] taken;
  logic         v, all;

  always_comb begin
    v = s_valid[src];
    m_data  = s_data[src*DW +: DW];
    m_last  = s_last[src];
    m_bytes = s_bytes[src*BWB +: BWB];
    m_valid = (v ? mask : '0) & ~taken;
  end
  always_comb begin
    all = ((taken | m_ready) & mask) == mask;
    s_ready = '0;
    s_ready[src] = all && mask != '0;
  end

  always_ff @(posedge clk) begin
    if (rst) taken <= '0;
    else if (v && all) taken <= '0;
    else taken <= taken | (m_valid & m_ready);
  end
endmodule
