/**
 * @file mm_config.h
 * @brief Every tunable of meshmem, in one table: name, kind, default, documentation.
 *
 * Each entry X(NAME, field, kind, default, doc) is read from the environment variable
 * MESHMEM_<NAME> at init. `meshmem info --config` prints the table with the values in force.
 */
#ifndef MM_CONFIG_H
#define MM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mm_size.h" /* mm_parse_size, mm_format_size: the SIZE kind's syntax */

/* kinds: SIZE (bytes, K/M/G suffixes), INT, BOOL (0/1/yes/no), TOPO (see mm_parse_topology),
 * NETS (see mm_parse_nets) */
#define MM_CONFIG_TABLE(X)                                                                         \
    X(HEAP_SIZE, heap_size, SIZE, "256M",                                                          \
      "Symmetric heap bytes per rank (SHMEM_SYMMETRIC_SIZE is read too and wins).")                \
    X(EAGER_SIZE, eager_size, SIZE, "4K",                                                          \
      "Largest message a collective sends eagerly, into the receiver's channel; above it the "     \
      "receiver's buffer is written directly (rendezvous).")                                       \
    X(STAGE_SIZE, stage_size, SIZE, "64M",                                                         \
      "Staging memory per rank, for collectives on buffers outside shared memory (touched only "   \
      "when used).")                                                                               \
    X(PREFAULT, prefault, BOOL, "1",                                                               \
      "Allocate memory when it is asked for: the runtime's areas at init, a symmetric block's "    \
      "pages at shmem_malloc (a shortage is then a NULL return), so that first use is not "        \
      "measured as page faults; 0: pages come at first touch.")                                    \
    X(HUGEPAGES, hugepages, BOOL, "1",                                                             \
      "Ask for transparent huge pages on the heap (effective where shmem THP is enabled).")        \
    X(SPIN_US, spin_us, INT, "-1",                                                                 \
      "Microseconds a waiting rank polls before it yields; -1 picks 2000, or 0 (a few polls, "     \
      "then yield) when ranks > cores.")                                                           \
    X(YIELD_US, yield_us, INT, "-1",                                                               \
      "Microseconds a waiting rank then yields before it sleeps; -1 picks 20000, 1000000 when "    \
      "peers are on other hosts, or 10000 when ranks > cores.")                                    \
    X(SLEEP_US, sleep_us, INT, "1000",                                                             \
      "Longest futex sleep of a waiting rank (a safety net: peers wake sleepers directly).")       \
    X(DATA_REMAP, data_remap, BOOL, "1",                                                           \
      "Remap the executable's data and bss into shared memory so globals are symmetric.")          \
    X(TOPOLOGY, topology, TOPO, "auto",                                                            \
      "Topology of the collectives of the world team and of the teams split from it: auto (the "   \
      "full mesh on one host; across hosts the 2-D generalized hypercube of the hosts' ranks x "   \
      "the hosts, when the ranks are spread evenly by slot or round-robin), fullmesh, "            \
      "ghc:KXxKY (KX * KY ranks) or ghc (the most square KX x KY, KX >= KY; world team only).")    \
    X(AM_SLOTS, am_slots, INT, "16",                                                               \
      "Slots of each active-message ring (one ring per sender and receiver, one for replies): "    \
      "requests a sender may have in flight to one rank.")                                         \
    X(AM_MEDIUM_SIZE, am_medium_size, SIZE, "4K",                                                  \
      "Largest MEDIUM active-message payload; sets the ring slot size (plus 160 header bytes)."    \
      " LONG payloads up to it travel in the slot.")                                               \
    X(PROGRESS_THREAD, progress_thread, BOOL, "0",                                                 \
      "Start a thread that runs active-message handlers while the application computes.")          \
    X(SHM, shm, BOOL, "1",                                                                         \
      "Ranks of one host reach each other by load/store through shared memory; 0: every peer "     \
      "through the network transport (UCX), as if each rank had a host of its own.")               \
    X(NET, net, NETS, "ucx",                                                                       \
      "Networks for the peers that shared memory does not reach (other hosts, or every peer "      \
      "with MESHMEM_SHM=0), as a comma list in order of preference: each peer is reached by the "  \
      "first that can reach it (ucx: UCX; rtl: the simulated engine). A network that is not "      \
      "built into this meshmem is an error when named here.")                                      \
    X(HOST_RANKS, host_ranks, INT, "0",                                                            \
      "For tests: when N > 0, every N consecutive ranks of a host form a host of their own "       \
      "(they share memory; the others are reached through the network transport); when N < 0, "    \
      "rank r is on host r mod -N (round-robin over -N hosts).")                                   \
    X(NET_PROGRESS_US, net_progress_us, INT, "1000",                                               \
      "Jobs across hosts: a thread serves peers' operations on this rank's memory when the "       \
      "application has not done so for this many microseconds (and at once while it sleeps); "     \
      "0: no thread (peers then wait until this rank calls meshmem).")                             \
    X(NET_AM_RMA_BYTES, net_am_rma_bytes, SIZE, "8K",                                              \
      "Jobs across hosts: a put or get of at least this many bytes to a rank on another host "     \
      "travels as an active message (one eager message, or UCX's rendezvous), not as UCX RMA, "    \
      "which UCX's TCP transport emulates in small pieces; 0: always UCX RMA.")                    \
    X(NET_PUSH, net_push, BOOL, "1",                                                               \
      "Jobs across hosts: a collective's message larger than the eager size goes to a rank on "    \
      "another host as one active message that the receiver takes straight into its buffer; 0: "   \
      "the receiver gets it from the sender's memory by descriptor and acknowledges it.")          \
    X(LEADER_BYTES, leader_bytes, INT, "64",                                                       \
      "Jobs across hosts: barriers, and the bcast, allreduce, allgather and alltoall of at most "  \
      "this many bytes per rank (per block for allgather and alltoall), take the node-leader "     \
      "form (one network message per pair of hosts); -1: never unless asked (--algo leader).")     \
    X(DEBUG, debug, INT, "0",                                                                      \
      "Log level: 0 errors (and the warnings a user must act on), 1 warnings, 2 info, 3 debug.")

typedef struct {
#define MM_CONFIG_FIELD(name, field, kind, def, doc) int64_t field;
    MM_CONFIG_TABLE(MM_CONFIG_FIELD)
#undef MM_CONFIG_FIELD
} mm_config_t;

/** The configuration in force (filled by mm_config_load). */
extern mm_config_t mm_config;

/**
 * @brief Read every MESHMEM_* variable (and SHMEM_SYMMETRIC_SIZE) into mm_config.
 * @return 0, or -1 with the variable whose value cannot be parsed, and why, in @p why
 * (@p cap bytes): the caller reports it once for the job.
 */
int mm_config_load(char *why, size_t cap);

/**
 * @brief Warn, one line each, of the MESHMEM_* variables of the environment that meshmem does
 * not read (a misspelt tunable is otherwise silently ignored), naming the nearest tunable.
 * Called on one rank of a job, so that the job warns once.
 */
void mm_config_check_names(void);

/** Topology values of MESHMEM_TOPOLOGY, as mm_parse_topology stores them. */
#define MM_TOPO_FULLMESH 0
#define MM_TOPO_GHC_AUTO (-1)
#define MM_TOPO_HOSTS    (-2) /* "auto": from the hosts the ranks run on (mm_topo.c) */
/** @return the value of an explicit ghc:KXxKY. */
#define MM_TOPO_GHC(kx, ky) (((int64_t)(kx) << 32) | (int64_t)(ky))

/**
 * @brief Parse a topology: "auto" (MM_TOPO_HOSTS), "fullmesh" (MM_TOPO_FULLMESH), "ghc"
 * (MM_TOPO_GHC_AUTO) or
 * "ghc:KXxKY" with KX, KY >= 1 (MM_TOPO_GHC(KX, KY)); case-insensitive.
 * @return 0 and *out, or -1 when @p text is none of these.
 */
int mm_parse_topology(const char *text, int64_t *out);

/** The networks MESHMEM_NET can name, in the order of their codes (mm_parse_nets). */
#define MM_NET_NAMES "ucx", "rtl"

/**
 * @brief Parse a network list: names of MM_NET_NAMES separated by commas, each at most once
 * (case-insensitive). *out holds them in order, 4 bits each from the lowest (1 + the name's
 * index in MM_NET_NAMES; 0 ends the list): mm_config_net_at reads them.
 * @return 0 and *out, or -1 when @p text is not such a list.
 */
int mm_parse_nets(const char *text, int64_t *out);

/** @return the code of network @p i of list @p nets (1 + its index in MM_NET_NAMES), or 0
 * past the last. */
static inline int mm_config_net_at(int64_t nets, int i)
{
    return i < 16 ? (int)(((uint64_t)nets >> (4 * i)) & 15) : 0;
}

/** @brief Print the table (name, value, default, doc) to @p out. */
void mm_config_print(FILE *out);

#endif /* MM_CONFIG_H */
