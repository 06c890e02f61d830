// mm_fifo: a first-word-fall-through FIFO on a synchronously read RAM (block RAM when
// synthesized), with an output register. A word written in cycle t can leave in cycle t+2.
//
// Handshakes: the writer drives `push` only while `full` is low (the owner's credit or space
// check guarantees it); the reader sees `o_valid`/`o_data` and drives `pop` to take the word.
module mm_fifo #(
  parameter int W = 8,
  parameter int D = 16            // words in the RAM (the output register holds one more)
) (
  input  logic         clk,
  input  logic         rst,
  input  logic         push,
  input  logic [W-1:0] i_data,
  output logic         full,
  output logic         o_valid,
  output logic [W-1:0] o_data,
  input  logic         pop,
  output logic [$clog2(D):0] count,   // words held, the output register's included
  output logic         moving           // a word moves from the RAM to the output register
);
  localparam int AWD = $clog2(D);
  logic [W-1:0] mem [D];
  logic [AWD-1:0] wp, rp;
  logic [AWD:0] n;                    // words in the RAM
  logic load;

  assign full = n == D[AWD:0];
  assign load = n != '0 && (!o_valid || pop);
  assign count = n + {{AWD{1'b0}}, o_valid};
  assign moving = load;

  always_ff @(posedge clk) begin
    if (push) mem[wp] <= i_data;
    if (load) o_data <= mem[rp];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wp <= '0; rp <= '0; n <= '0; o_valid <= 1'b0;
    end else begin
      if (push) wp <= wp + 1'b1;
      if (load) rp <= rp + 1'b1;
      n <= n + {{AWD{1'b0}}, push} - {{AWD{1'b0}}, load};
      if (load) o_valid <= 1'b1;
      else if (pop) o_valid <= 1'b0;
    end
  end
endmodule
