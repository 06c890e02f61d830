/* The configuration of a simulated system: an an rtl/configs file file and the fabric file it
 * names (in fabrics/), read with a small TOML subset (sections, key = number | "string" |
 * true/false, comments). The fabric file gives what the papers give (nodes, topology, link rate,
 * clock, lane width, eager threshold); the rtl file adds what the RTL needs and the papers do not
 * publish, each marked there as an assumption or a calibration (docs/rtl.md, "Assumptions"). */
#ifndef MM_RTLCFG_H
#define MM_RTLCFG_H

#include <stddef.h>
#include <stdint.h>

typedef struct mm_rtl_config {
    char path[512];
    char fabric[512];
    char name[64]; /* the fabric's name */
    int nodes;     /* 1..16 */
    int ghc;       /* 2-D generalized hypercube: links only along rows and columns */
    int kx, ky;
    int width; /* lane bits: 256 (OPTWEB) or 128 (FSHMEM) */
    double clock_mhz;
    double link_gbps; /* effective: bandwidth x efficiency */
    uint32_t eager_thr;
    uint32_t link_rate_q8, loop_rate_q8; /* bits per cycle, Q8 */
    uint32_t link_lat, loop_lat, rd_lat, wr_lat, pc_sel;
    uint64_t memory_bytes; /* per node, the simulator's own buffers */
    char model[32];        /* a model name to insist on, or "" */
    int clock_gating;      /* stop idle units' clocks (default 1; 0 for the test that compares) */
} mm_rtl_config;

/* Load @p path and apply @p overrides ("section.key=value;..."). 0, or -1 with one line in err. */
int mm_rtl_config_load(const char *path, const char *overrides, mm_rtl_config *out, char *err,
                       size_t errlen);

#endif
