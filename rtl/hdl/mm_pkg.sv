// mm_pkg: the types every block of the OPTWEB node engine shares.
//
// Yosys 0.23 reads packages but not `import pkg::*` (neither in a module header nor its body),
// so every module names these as mm_pkg::x. Widths that depend on a model's parameters (the data
// lane, the node count) are module parameters, never package constants; the types here have
// fixed widths.
package mm_pkg;
`include "mm_defs.svh"

  localparam int AW = 40;   // byte address inside a node's memory: 1 TiB, ample for any HBM stack
  localparam int TW = 64;   // the cycle counter: it never wraps in a simulation

  // a descriptor as the host wrote it (rtl/include/mm_rtl_desc.h, word 0 in the low bits)
  typedef struct packed {
    logic [63:0] aux;
    logic [63:0] value;
    logic [63:0] dst_stride;
    logic [63:0] src_stride;
    logic [63:0] len;
    logic [63:0] dst;
    logic [63:0] src;
    logic [31:0] id;
    logic [15:0] peer;
    logic [7:0]  flags;
    logic [7:0]  op;
  } desc_t;

  // a completion (mm_rtl_cqe: id in the low bits)
  typedef struct packed {
    logic [63:0] value;
    logic [63:0] t_end;
    logic [63:0] t_start;
    logic [15:0] rsvd;
    logic [7:0]  op;
    logic [7:0]  status;
    logic [31:0] id;
  } cqe_t;

  // Values the harness loads from the configuration file (rtl/configs/*.toml) and holds: the
  // model's timing, which the papers publish in part and docs/rtl.md lists as assumptions.
  typedef struct packed {
    logic [31:0] eager_thr;  // bytes per member block up to which transfers go eager
    logic [19:0] link_rate;  // link rate in bits per cycle, Q8 (45 Gbps at 200 MHz: 225 * 256)
    logic [15:0] link_lat;   // link latency in cycles (the one calibrated value)
    logic [19:0] loop_rate;  // the loopback path inside the node, Q8 bits per cycle
    logic [15:0] loop_lat;
    logic [7:0]  rd_lat;     // HBM2 pseudo-channel: AR accepted -> first R beat
    logic [7:0]  wr_lat;     // last W beat -> B response
    logic [7:0]  pc_sel;     // the address bit that chooses a channel's pseudo-channel
  } cfg_t;

  function automatic logic [6:0] popcount16(input logic [15:0] v);
    popcount16 = '0;
    for (int i = 0; i < 16; i++) popcount16 = popcount16 + {6'd0, v[i]};
  endfunction
endpackage
