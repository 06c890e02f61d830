/* mm_rtlsim: the simulator of meshmem's OPTWEB engine (rtl/) as a library with a small C API.
 *
 * A system is N nodes of rtl/hdl/mm_node.sv and the links between them, one Verilated model on
 * one clock (rtl/hdl/mm_system.sv), built from a configuration file (in rtl/configs/, which
 * names its fabric file in fabrics/). Each node's memory is a host buffer: the simulator's own,
 * or one the caller attaches (a process's memory segment), so the bytes a descriptor moves really
 * move between the buffers. A host submits descriptors (rtl/include/mm_rtl_desc.h) to a node's
 * queue through the node's AXI4-Lite registers, runs the clock, and reads completions carrying
 * the cycles each descriptor started and ended. Cycles where nothing moves are skipped, not
 * simulated one by one; runs are deterministic.
 *
 * Not thread-safe: one thread drives a system (several systems may live in one process).
 * docs/rtl.md, "The simulator library".
 */
#ifndef MM_RTLSIM_H
#define MM_RTLSIM_H

#include <stddef.h>
#include <stdint.h>

#include "mm_rtl_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mm_rtlsim mm_rtlsim;

/* the library exports these names and nothing else */
#define MM_RTLSIM_API __attribute__((visibility("default")))

/* What a run stopped for (mm_rtlsim_run). */
#define MM_RTLSIM_CYCLE      0  /* the cycle asked for was reached */
#define MM_RTLSIM_COMPLETION 1  /* a completion arrived (stop_on_completion) */
#define MM_RTLSIM_IDLE       2  /* nothing left to do: every submitted descriptor completed */
#define MM_RTLSIM_STALLED    -1 /* the watchdog: something waits forever (mm_rtlsim_report) */

/** @brief Create a system from a configuration file.
 *  @param [in] config   a file of rtl/configs/
 *  @param [in] overrides NULL, or "section.key=value" settings separated by ';' (e.g.
 *                       "topology.nodes=4;timing.link_latency_cycles=0"); keys of the
 *                       fabric file and of the rtl file alike
 *  @param [out] err     one line saying what is wrong, when NULL is returned
 *  @return the system in reset's end state (cycle 0), or NULL */
MM_RTLSIM_API mm_rtlsim *mm_rtlsim_create(const char *config, const char *overrides, char *err,
                                          size_t errlen);
MM_RTLSIM_API void mm_rtlsim_destroy(mm_rtlsim *s);

MM_RTLSIM_API int mm_rtlsim_nodes(const mm_rtlsim *s);
MM_RTLSIM_API double mm_rtlsim_clock_mhz(const mm_rtlsim *s);
/** The configuration as resolved, one "key = value" per line (for logs and `meshmem rtl`). */
MM_RTLSIM_API const char *mm_rtlsim_describe(const mm_rtlsim *s);

/** @brief Make [base, base + size) node @p node's memory (node address 0 is base).
 *  @return 0, or -1 for a bad node. The buffer must outlive the system or the next attach. */
MM_RTLSIM_API int mm_rtlsim_attach_memory(mm_rtlsim *s, int node, void *base, uint64_t size);
/** The node's memory as it stands (the simulator's own buffer unless one was attached). */
MM_RTLSIM_API void *mm_rtlsim_memory(mm_rtlsim *s, int node, uint64_t *size);

/** @brief Queue a descriptor for node @p node; the host interface writes it through AXI4-Lite
 *  in the next cycles (16 register writes and the doorbell) and its start cycle is the
 *  doorbell's. @return 0, or -1 for a bad node. */
MM_RTLSIM_API int mm_rtlsim_submit(mm_rtlsim *s, int node, const mm_rtl_desc *d);

/** @brief Run until the cycle counter reaches @p until, or (with @p stop_on_completion) a
 *  completion has been read from a node, or nothing is left to do, or the watchdog fires.
 *  @return MM_RTLSIM_CYCLE, _COMPLETION, _IDLE or _STALLED */
MM_RTLSIM_API int mm_rtlsim_run(mm_rtlsim *s, uint64_t until, int stop_on_completion);

/** @brief Take node @p node's oldest completion. @return 1 if one was there, else 0. */
MM_RTLSIM_API int mm_rtlsim_poll(mm_rtlsim *s, int node, mm_rtl_cqe *out);

/** The cycle counter. */
MM_RTLSIM_API uint64_t mm_rtlsim_cycle(const mm_rtlsim *s);

/** Descriptors submitted whose completion has not been read yet (MM_RTL_F_NOCQ ones excepted). */
MM_RTLSIM_API uint64_t mm_rtlsim_pending(const mm_rtlsim *s);

/** @brief After MM_RTLSIM_STALLED: what waits, named by node, port, queue or handshake. */
MM_RTLSIM_API const char *mm_rtlsim_report(mm_rtlsim *s);

/** @brief Set the watchdog: a stall is declared after @p cycles simulated without a completion
 *  while descriptors are pending (default 2,000,000), or at once when nothing can move. */
MM_RTLSIM_API void mm_rtlsim_set_watchdog(mm_rtlsim *s, uint64_t cycles);

/** @brief Turn idle skipping off (1) or on (0, the default): a test compares the two. */
MM_RTLSIM_API void mm_rtlsim_set_no_skip(mm_rtlsim *s, int no_skip);

/** Statistics: cycles simulated one by one, cycles skipped, evaluations of the model; the threads
 *  evaluating it (2 where the environment has MM_RTL_THREADS=2, the model has 8 nodes or more and
 *  the process may run on 2 CPUs; 1 otherwise). */
typedef struct mm_rtlsim_stats {
    uint64_t cycles_clocked;
    uint64_t cycles_skipped;
    uint64_t skips;
    uint64_t completions;
    uint64_t threads;
} mm_rtlsim_stats;
MM_RTLSIM_API void mm_rtlsim_get_stats(const mm_rtlsim *s, mm_rtlsim_stats *out);

/** The models this library was built with, one "name lanes width" per line. */
MM_RTLSIM_API const char *mm_rtlsim_models(void);

#ifdef __cplusplus
}
#endif

#endif
