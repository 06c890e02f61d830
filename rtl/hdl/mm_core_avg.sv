// mm_core_avg: the data processing core of the averaging design (OPTWEB (JOCN 2022) §3.C.2 and
// §4.D.1, the aggressive approach): while the all-to-all runs, the distributed switch hands it
// the beats arriving from every member of the team, it adds them lane by lane and the result goes
// to memory through one write section; "the switching time between communication and data
// processing can be ignored" because nothing waits for memory in between.
//
// The paper's circuit takes 64 x 32-bit inputs per cycle in eight averaging circuits of seven
// DSPs each (§4.D.1); its number format is not published: int32 lanes here (an assumption),
// summed with wrap-around, and divided by the team size with an arithmetic shift when the
// descriptor asks for the average (MM_RTL_F_AVG, team size a power of two).
//
// Handshakes: `start` (the sequencer) sets the lanes to join (`mask`) and the shift; each lane's
// beat waits (valid from the N x N switch) until every lane of the mask has one, then all are
// taken in one cycle and their sum enters the output register, which the write section takes
// with `r_ready`. The message ends with the lanes' last beat; lanes whose last beats disagree
// set `err` (the blocks must have one length).
module mm_core_avg #(
  parameter int N = 4,
  parameter int DW = 256
) (
  input  logic          clk,
  input  logic          rst,
  input  logic          start,
  input  logic [N-1:0]  mask,
  input  logic [4:0]    shift,
  output logic          busy,          // joining, or the last sum not yet taken
  output logic          err,
  // the lanes' beats (through the N x N switch)
  input  logic [N-1:0]  c_valid,
  output logic [N-1:0]  c_ready,
  input  logic [N*DW-1:0] l_data,
  input  logic [N-1:0]  l_last,
  input  logic [N*($clog2(DW/8)+1)-1:0] l_bytes,
  // the sum
  output logic          r_valid,
  input  logic          r_ready,
  output logic [DW-1:0] r_data,
  output logic          r_last,
  output logic [$clog2(DW/8):0] r_bytes
);
  localparam int BWB = $clog2(DW/8) + 1;
  localparam int LN = DW / 32;

  logic [N-1:0] m;
  logic         run;           // lanes still to join
  logic [4:0]   sh;
  logic         all, fire;
  logic [$clog2(N)-1:0] first;   // the lowest lane of the mask

  always_comb begin
    all  = m != '0 && (c_valid & m) == m;
    fire = run && all && (!r_valid || r_ready);
    c_ready = fire ? m : '0;
    first = '0;
    for (int i = N - 1; i >= 0; i--) if (m[i]) first = $clog2(N)'(i);
  end

  assign busy = run || r_valid;

  always_ff @(posedge clk) begin
    if (rst) begin
      run <= 1'b0; r_valid <= 1'b0; err <= 1'b0; m <= '0;
    end else begin
      if (start) begin
        run <= 1'b1; m <= mask; sh <= shift; err <= 1'b0;
      end
      if (r_valid && r_ready) r_valid <= 1'b0;
      if (fire) begin
        logic [DW-1:0] s;
        s = '0;
        // the sum is formed only when the lanes fire, not every cycle (simulation speed)
        for (int j = 0; j < LN; j++) begin
          logic [31:0] acc;
          acc = '0;
          for (int i = 0; i < N; i++) if (m[i]) acc = acc + l_data[i*DW + j*32 +: 32];
          s[j*32 +: 32] = 32'($signed(acc) >>> sh);
        end
        r_data  <= s;
        r_valid <= 1'b1;
        r_last  <= l_last[first];
        r_bytes <= l_bytes[first*BWB +: BWB];
        if ((l_last & m) != '0 && (l_last & m) != m) err <= 1'b1;
        if (l_last[first]) begin run <= 1'b0; m <= '0; end
      end
    end
  end
endmodule
