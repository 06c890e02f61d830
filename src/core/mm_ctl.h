/**
 * @file mm_ctl.h
 * @brief The job control block shared by meshrun and every rank of a job.
 *
 * meshrun creates it (a memfd, inherited by every rank as file descriptor MESHMEM_CTL_FD) before
 * starting the ranks, so that it never appears in /dev/shm and vanishes with the last process.
 * It carries what the ranks need before their own segments exist: an init barrier, each rank's
 * pid and state (the launcher tells a crash from a clean exit by it), and global_exit's status.
 *
 * Writers: the launcher writes the header fields once before fork; rank r writes ranks[r] and
 * its exchange slot only; the barrier counter is shared (atomic RMW), used a handful of times per
 * job, never on a hot path.
 *
 * Layout: mm_ctl_t | mm_ctl_rank_t ranks[nranks] | exchange slots[nranks][MM_CTL_SLOT_BYTES].
 * A slot carries one rank's part of a bootstrap allgather (mm_boot_meshrun.c), between two
 * barriers; its pages are touched only when used.
 */
#ifndef MM_CTL_H
#define MM_CTL_H

#include <stdatomic.h>
#include <stdint.h>

#define MM_CTL_MAGIC  0x6d6573686d656d31ULL /* "meshmem1" */
#define MM_CTL_JOBLEN 48

/** Per-rank lifecycle, written by the rank, read by the launcher after the rank ends. */
enum {
    MM_RANK_STARTED = 0,     /* not yet in meshmem_init */
    MM_RANK_RUNNING = 1,     /* initialised */
    MM_RANK_FINALIZED = 2,   /* finalize done: a clean exit may follow */
    MM_RANK_GLOBAL_EXIT = 3, /* called global_exit: the job ends with its status */
    MM_RANK_FAILED = 4,      /* reported a fatal error */
    MM_RANK_FINALIZING = 5,  /* inside finalize (its barrier): peers expect nothing else from it */
};

typedef struct {
    _Alignas(64) atomic_int state;
    int32_t pid;
    char call[48]; /* the call the rank waits in, once a wait has lasted; "" when none */
} mm_ctl_rank_t;

typedef struct {
    uint64_t magic;
    uint32_t nranks;
    uint32_t header_bytes;
    char job[MM_CTL_JOBLEN]; /* prefix of every shm object of the job */
    _Alignas(64) atomic_uint barrier_count;
    atomic_uint barrier_gen;             /* futex word: bumped when a barrier completes */
    _Alignas(64) atomic_int global_exit; /* 0: none; else status + 1 */
    atomic_int report_claimed;           /* 1 once a rank reports an error all ranks see */
    _Alignas(64) mm_ctl_rank_t ranks[];
} mm_ctl_t;

/** Bytes of one rank's exchange slot. */
#define MM_CTL_SLOT_BYTES 4096

/** @return the bytes of a control block for @p nranks ranks. */
static inline uint64_t mm_ctl_bytes(uint32_t nranks)
{
    return sizeof(mm_ctl_t) + (uint64_t)nranks * (sizeof(mm_ctl_rank_t) + MM_CTL_SLOT_BYTES);
}

/** @return rank @p r's exchange slot in control block @p c. */
static inline char *mm_ctl_slot(mm_ctl_t *c, uint32_t r)
{
    return (char *)&c->ranks[c->nranks] + (uint64_t)r * MM_CTL_SLOT_BYTES;
}

#endif /* MM_CTL_H */
