/* The host interface of meshmem's OPTWEB engine (rtl/): descriptors, completions, registers.
 *
 * A host (the simulator library's caller, later meshmem's rtl transport) writes a descriptor
 * into a node's staging registers through AXI4-Lite and rings the doorbell; the node's command
 * sequencer executes it and pushes a completion that carries the cycle the descriptor entered
 * the queue (start) and the cycle it completed (end). docs/rtl.md, "The host interface".
 *
 * This header is the single source of the formats: rtl/hdl/mm_defs.svh is generated from it
 * (rtl/tools/gen_defs.py; a test holds the two equal). Both sides are little-endian: word k of
 * a descriptor is bits [64k+63:64k] of the 512-bit vector the sequencer decodes.
 *
 * SPMD collectives are programmed at every end, as OPTWEB's are (JOCN 2022 §2.C): every member
 * of the team submits the same operation. Raw transfers (SEND/RECV and the collectives) move
 * blocks between 32-byte aligned addresses (one 256-bit beat); lengths are any byte count.
 * The one-sided operations (PUT .. QUIET) are meshmem's extension: OPTWEB has none.
 */
#ifndef MM_RTL_DESC_H
#define MM_RTL_DESC_H

#include <stdint.h>

/* the tables below keep their columns and their comments of several lines, which
 * rtl/tools/gen_defs.py reads into rtl/hdl/mm_defs.svh: clang-format 14 would break them up */
/* clang-format off */
/* opcodes (descriptor word 0, bits 7:0) */
#define MM_RTL_OP_NOP            0x00 /* completes at once: the host interface's own cost */
#define MM_RTL_OP_SEND           0x01 /* src, len -> peer; the peer's RECV says where */
#define MM_RTL_OP_RECV           0x02 /* from peer into dst; len = capacity; ends at the EOP mark,
                                         value = bytes received */
#define MM_RTL_OP_BARRIER        0x03 /* one-cycle block signal to every team peer, wait for theirs */
#define MM_RTL_OP_BCAST          0x04 /* root = peer: src (len) -> dst of every other member */
#define MM_RTL_OP_SCATTER        0x05 /* root: block k at src + k*src_stride -> member k's dst */
#define MM_RTL_OP_GATHER         0x06 /* every member's src (len) -> root's dst + k*dst_stride */
#define MM_RTL_OP_ALLGATHER      0x07 /* every member's src -> dst + k*dst_stride of every member */
#define MM_RTL_OP_ALLTOALL       0x08 /* block j at src + j*src_stride -> member j's dst + k*dst_stride */
#define MM_RTL_OP_ALLTOALLV      0x09 /* as ALLTOALL; send lengths: u32 table at value (indexed by
                                         member), len = receive capacity per member; received
                                         lengths (learnt from the EOP mark) -> u32 table at aux */
#define MM_RTL_OP_REDUCE_SCATTER 0x0A /* the averaging core (JOCN 2022 §3.C.2, aggressive): block k
                                         of every member is summed in flight (int32 lanes) into
                                         member k's dst; MM_RTL_F_AVG divides by the team size */
/* meshmem's one-sided extension: active messages in FSHMEM's style (header: opcode, source,
   address, length), executed at the target's memory port, acknowledged per peer */
#define MM_RTL_OP_PUT            0x10 /* src (len) -> peer's dst; completes on the target's ack */
#define MM_RTL_OP_GET            0x11 /* peer's src (len) -> local dst: a request answered by a put */
#define MM_RTL_OP_AMO            0x12 /* at peer's dst: src_stride = MM_RTL_AMO_*, len = 4 or 8,
                                         value = operand, aux = compare; cqe.value = old value */
#define MM_RTL_OP_PUT_SIGNAL     0x13 /* PUT, then (after the data is written) the signal: aux =
                                         remote signal address, value = signal, src_stride = SET/ADD */
#define MM_RTL_OP_QUIET          0x14 /* completes when every earlier one-sided op is acknowledged */

/* flags (word 0, bits 15:8) */
#define MM_RTL_F_FENCE  0x01 /* start only after every earlier descriptor of this node completed */
#define MM_RTL_F_EAGER  0x02 /* force the eager protocol (default: len <= eager threshold) */
#define MM_RTL_F_RNDV   0x04 /* force rendezvous: the receiver's ready pulse before the data */
#define MM_RTL_F_TEAM_X 0x08 /* the team is this node's row of the GHC (same y) */
#define MM_RTL_F_TEAM_Y 0x10 /* the team is this node's column of the GHC (same x) */
#define MM_RTL_F_AVG    0x20 /* REDUCE_SCATTER: divide by the team size (a power of two) */
#define MM_RTL_F_NOCQ   0x40 /* no completion entry (one-sided ops counted by QUIET) */

/* AMO operations (src_stride of an AMO descriptor) */
#define MM_RTL_AMO_FADD  0x0 /* fetch-and-add; add = the same, result ignored */
#define MM_RTL_AMO_SWAP  0x1
#define MM_RTL_AMO_CSWAP 0x2 /* compare = aux */
#define MM_RTL_AMO_FAND  0x3
#define MM_RTL_AMO_FOR   0x4
#define MM_RTL_AMO_FXOR  0x5
#define MM_RTL_AMO_FETCH 0x6 /* atomic read */
#define MM_RTL_AMO_SET   0x7 /* atomic write */

/* signal operations (src_stride of a PUT_SIGNAL descriptor) */
#define MM_RTL_SIG_SET 0x0
#define MM_RTL_SIG_ADD 0x1

/* completion status */
#define MM_RTL_ST_OK       0x0
#define MM_RTL_ST_EINVAL   0x1 /* unknown opcode, flags or team */
#define MM_RTL_ST_EALIGN   0x2 /* a raw transfer's address is not 32-byte aligned */
#define MM_RTL_ST_EROUTE   0x3 /* the peer is not a member of the team or not reachable */
#define MM_RTL_ST_EOVERFLW 0x4 /* more bytes arrived than the RECV's capacity */
#define MM_RTL_ST_EMEM     0x5 /* the memory answered an error (address outside the node's memory) */

/* descriptor: 64 bytes, eight little-endian 64-bit words */
typedef struct mm_rtl_desc {
    uint8_t op;          /* MM_RTL_OP_* */
    uint8_t flags;       /* MM_RTL_F_* */
    uint16_t peer;       /* destination, source, root or target node */
    uint32_t id;         /* returned in the completion */
    uint64_t src;        /* source address (local; remote for GET) */
    uint64_t dst;        /* destination address (local for RECV and GET, remote for PUT) */
    uint64_t len;        /* bytes (per member block for collectives) */
    uint64_t src_stride; /* member block stride at the source; AMO and signal operation */
    uint64_t dst_stride; /* member block stride at the destination */
    uint64_t value;      /* AMO operand, signal value, ALLTOALLV send-length table */
    uint64_t aux;        /* AMO compare, signal address, ALLTOALLV received-length table */
} mm_rtl_desc;

/* completion: 32 bytes */
typedef struct mm_rtl_cqe {
    uint32_t id;     /* the descriptor's */
    uint8_t status;  /* MM_RTL_ST_* */
    uint8_t op;      /* the descriptor's opcode */
    uint16_t rsvd;
    uint64_t start;  /* cycle the descriptor entered the queue (the doorbell) */
    uint64_t end;    /* cycle it completed */
    uint64_t value;  /* RECV: bytes received; AMO: the old value */
} mm_rtl_cqe;

#ifdef __cplusplus
static_assert(sizeof(mm_rtl_desc) == 64, "descriptor is 64 bytes");
static_assert(sizeof(mm_rtl_cqe) == 32, "completion is 32 bytes");
#else
_Static_assert(sizeof(mm_rtl_desc) == 64, "descriptor is 64 bytes");
_Static_assert(sizeof(mm_rtl_cqe) == 32, "completion is 32 bytes");
#endif

/* AXI4-Lite registers of a node (byte offsets; 32-bit registers) */
#define MM_RTL_REG_ID        0x000 /* RO: 'OPTW' */
#define MM_RTL_REG_NODE      0x004 /* RO: [15:0] this node, [31:16] nodes of the system */
#define MM_RTL_REG_STATUS    0x008 /* RO: [7:0] free descriptor slots, [15:8] completions waiting,
                                      [16] a doorbell found the queue full (sticky) */
#define MM_RTL_REG_DESC      0x040 /* W: 16 words of the descriptor being staged */
#define MM_RTL_REG_DOORBELL  0x080 /* W: push the staged descriptor */
#define MM_RTL_REG_CQE       0x0C0 /* RO: 8 words of the oldest completion */
#define MM_RTL_REG_CQ_POP    0x0E0 /* W: drop the oldest completion */
#define MM_RTL_REG_OUTSTAND  0x100 /* RO: one-sided operations not yet acknowledged */
#define MM_RTL_REG_WAIT      0x104 /* RO: what the sequencer waits for (docs/rtl.md, "Watchdog") */

#define MM_RTL_ID_VALUE 0x4F505457u /* 'OPTW' */

/* clang-format on */

#endif
