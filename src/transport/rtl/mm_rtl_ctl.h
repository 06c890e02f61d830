/**
 * @file mm_rtl_ctl.h
 * @brief The rtl transport's control block: what the ranks of a job and the simulator process
 * (meshmem-rtlsim, src/transport/rtl/server) share. docs/rtl-transport.md.
 *
 * Why one simulator process: the engine is one Verilated model on one clock (rtl/hdl/
 * mm_system.sv) whose nodes are the job's ranks, which are separate processes. Running a copy
 * of the whole system in every rank (lock-step) would simulate every cycle N times and need
 * every rank to see every other's descriptors anyway; one process that owns the model, maps
 * every rank's memory (its heap segment, static data and this transport's own region, all
 * memfds) as that node's memory and takes descriptors from queues here costs one simulation,
 * and the bytes really move between the ranks' memories.
 *
 * Time (issue 30 item 5): the simulator advances only while every rank waits on it, as a
 * conservative parallel simulator does. A rank that finds nothing to do in a wait marks
 * itself blocked at the current epoch and sleeps on the epoch word (futex); once every rank is
 * blocked (or gone), the simulator submits the queued descriptors in rank order, runs the
 * clock until a completion or until nothing moves, hands out the completions, publishes the
 * cycle and bumps the epoch. Computation between meshmem calls is charged zero cycles. The
 * same program and configuration give the same cycle counts on every run.
 *
 * meshrun --rtl creates this block (a memfd every rank and the simulator inherit:
 * MESHMEM_RTL_FD) and starts the simulator in the job's process group.
 */
#ifndef MM_RTL_CTL_H
#define MM_RTL_CTL_H

#include "mm_rtl_desc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MM_RTL_CTL_MAGIC 0x6d6d72746c63746cULL /* "mmrtlctl" */
#define MM_RTL_SQ        512                   /* descriptors queued per rank between epochs */
#define MM_RTL_CQ        512                   /* completions waiting per rank */

/* a rank's state in the block */
enum { MM_RTL_R_NONE = 0, MM_RTL_R_JOINED = 1, MM_RTL_R_GONE = 2 };
/* the simulator's */
enum { MM_RTL_S_STARTING = 0, MM_RTL_S_RUNNING = 1, MM_RTL_S_FAILED = 2 };

typedef struct {
    _Atomic uint32_t state;   /* MM_RTL_R_*: the rank writes it */
    _Atomic uint32_t blocked; /* epoch + 1 when the rank blocked in that epoch, else stale */
    int32_t pid;              /* the rank's process, its memfds (opened by the simulator
                                 through /proc/PID/fd/FD) */
    int32_t fd[3];            /* heap segment, static data (-1: none), this transport's region */
    uint64_t bytes[3];        /* their sizes */
    uint64_t base[3];         /* node addresses where each is attached */
    _Atomic uint64_t sq_head; /* descriptors written (rank) */
    _Atomic uint64_t sq_tail; /* descriptors taken (simulator) */
    _Atomic uint64_t cq_head; /* completions written (simulator) */
    _Atomic uint64_t cq_tail; /* completions taken (rank) */
    _Atomic uint64_t work;    /* counts what the rank's progress did (messages handled) */
    mm_rtl_desc sq[MM_RTL_SQ];
    mm_rtl_cqe cq[MM_RTL_CQ];
} mm_rtl_slot_t;

typedef struct {
    uint64_t magic;
    uint32_t nranks;
    _Atomic uint32_t epoch;     /* futex: blocked ranks sleep on it */
    _Atomic uint32_t bell;      /* futex: the simulator sleeps on it, ranks ring it */
    _Atomic uint32_t sim_state; /* MM_RTL_S_* */
    _Atomic uint64_t cycle;     /* the simulated cycle at the last epoch */
    double clock_mhz;           /* the configuration's clock (written before RUNNING) */
    char error[512];            /* the simulator's one line when it FAILED */
    mm_rtl_slot_t rank[];
} mm_rtl_ctl_t;

static inline size_t mm_rtl_ctl_bytes(uint32_t nranks)
{
    return sizeof(mm_rtl_ctl_t) + (size_t)nranks * sizeof(mm_rtl_slot_t);
}

#endif /* MM_RTL_CTL_H */
