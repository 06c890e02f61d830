/**
 * @file mm_ctl.h
 * @brief The job control block shared by meshrun and every rank of a job.
 *
 * meshrun creates it (a memfd, inherited by every rank as file descriptor MESHMEM_CTL_FD) before
 * starting the ranks, so that it never appears in /dev/shm and vanishes with the last process.
 * It carries what the ranks need before their own segments exist: an init barrier, each rank's
 * pid and state (the launcher tells a crash from a clean exit by it), and global_exit's status.
 *
 * Writers: the launcher writes the header fields once before fork; rank r writes ranks[r] only;
 * the barrier counter is shared (atomic RMW), used a handful of times per job, never on a hot path.
 */
#ifndef MM_CTL_H
#define MM_CTL_H

#include <stdatomic.h>
#include <stdint.h>

#define MM_CTL_MAGIC   0x6d6573686d656d31ULL /* "meshmem1" */
#define MM_CTL_JOBLEN  48

/** Per-rank lifecycle, written by the rank, read by the launcher after the rank ends. */
enum {
    MM_RANK_STARTED    = 0, /* not yet in meshmem_init */
    MM_RANK_RUNNING    = 1, /* initialised */
    MM_RANK_FINALIZED  = 2, /* finalize done: a clean exit may follow */
    MM_RANK_GLOBAL_EXIT = 3, /* called global_exit: the job ends with its status */
    MM_RANK_FAILED     = 4, /* reported a fatal error */
    MM_RANK_FINALIZING = 5, /* inside finalize (its barrier): peers expect nothing else from it */
};

typedef struct {
    _Alignas(64) atomic_int state;
    int32_t     pid;
    uint64_t    heap_seg_size;  /* bytes of the rank's heap segment */
    uint64_t    data_seg_size;  /* bytes of its remapped static data (0: none) */
} mm_ctl_rank_t;

typedef struct {
    uint64_t    magic;
    uint32_t    nranks;
    uint32_t    header_bytes;
    char        job[MM_CTL_JOBLEN];     /* prefix of every shm object of the job */
    _Alignas(64) atomic_uint barrier_count;
    atomic_uint barrier_gen;            /* futex word: bumped when a barrier completes */
    _Alignas(64) atomic_int global_exit; /* 0: none; else status + 1 */
    _Alignas(64) mm_ctl_rank_t ranks[];
} mm_ctl_t;

/** @return the bytes of a control block for @p nranks ranks. */
static inline uint64_t mm_ctl_bytes(uint32_t nranks)
{
    return sizeof(mm_ctl_t) + (uint64_t)nranks * sizeof(mm_ctl_rank_t);
}

#endif /* MM_CTL_H */
