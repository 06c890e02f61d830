/* Segments of the node-local full mesh: memfds, and their exchange over Unix sockets (mm_shm.h). */
#include "mm_shm.h"
#include "mm_core.h"
#include "mm_shm_ops.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

bool mm_copy_erms;

__attribute__((constructor)) static void mm_copy_detect(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
        mm_copy_erms = (b >> 9) & 1u; /* CPUID.(EAX=7,ECX=0):EBX.ERMS[bit 9] */
#endif
}

/*
 * Committing memory. A segment is a memfd: its size only reserves (shmem files are never charged
 * at ftruncate), and a page exists once something writes it. Touching a page the machine cannot
 * give is the wrong moment to learn it: the fault becomes the OOM killer's SIGKILL (or SIGBUS,
 * where a size limit applies), far from the call that asked for the memory. So the runtime
 * commits its pages at the calls that ask for them (init for its own areas, the symmetric
 * allocation for a block: mm_symalloc.c), with MADV_POPULATE_WRITE, which allocates the pages
 * and fails with ENOMEM instead of faulting; a page that is never allocated costs nothing.
 * The alternatives: MAP_NORESERVE changes nothing for shared memory (never accounted up front);
 * fallocate on the memfd commits too but leaves the page tables to fill at first touch, which
 * the prefault is there to avoid; a SIGBUS handler cannot undo a fault, only explain it
 * (mm_shm_fault.c does, for the pages committed lazily, MESHMEM_PREFAULT=0).
 */
int mm_shm_commit(void *p, size_t bytes, bool own)
{
    if (bytes == 0)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(page - 1);
    bytes += (uintptr_t)p - a;
    p = (void *)a;
#if defined(MADV_POPULATE_WRITE) && defined(MADV_POPULATE_READ)
    if (madvise(p, bytes, own ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) == 0)
        return 0;
    if (errno != EINVAL)
        return -1;
#endif
    /* kernels before 5.14 have no populate: touch the pages, once the machine says it has them */
    if (own && bytes > mm_shm_available()) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t off = 0; off < bytes; off += (size_t)page) {
        if (own)
            ((volatile char *)p)[off] = ((volatile char *)p)[off];
        else
            (void)((volatile char *)p)[off];
    }
    return 0;
}

/* the first number in file @p path (SIZE_MAX for "max" or when it cannot be read) */
static size_t mm_shm_read_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v;
    bool ok = f && fscanf(f, "%llu", &v) == 1;
    if (f)
        fclose(f);
    return ok && v < SIZE_MAX ? (size_t)v : SIZE_MAX;
}

/* what this process's memory cgroup (v2, or v1's memory controller) still lets it allocate:
 * past its limit the kernel's OOM killer ends a rank (a populate included), so the check has
 * to happen before; SIZE_MAX without a limit */
static size_t mm_shm_cgroup_room(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[512], dir[600] = "";
    while (f && !dir[0] && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *ctrl = strchr(line, ':'), *path = ctrl ? strchr(ctrl + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        if (!strcmp(ctrl + 1, "memory")) /* v1 */
            snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", path);
        else if (!strcmp(ctrl + 1, "") && !strcmp(line, "0")) /* v2 */
            snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", path);
    }
    if (f)
        fclose(f);
    if (!dir[0])
        return SIZE_MAX;
    char limit_path[640], used_path[640];
    bool v1 =
        strncmp(dir, "/sys/fs/cgroup/memory/", 22) == 0 || !strcmp(dir, "/sys/fs/cgroup/memory");
    snprintf(limit_path, sizeof(limit_path), "%s/%s", dir,
             v1 ? "memory.limit_in_bytes" : "memory.max");
    snprintf(used_path, sizeof(used_path), "%s/%s", dir,
             v1 ? "memory.usage_in_bytes" : "memory.current");
    size_t limit = mm_shm_read_bytes(limit_path), used = mm_shm_read_bytes(used_path);
    if (limit == SIZE_MAX || used == SIZE_MAX)
        return SIZE_MAX;
    return used < limit ? limit - used : 0;
}

size_t mm_shm_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kb = 0;
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    if (f)
        fclose(f);
    size_t machine = found && kb < SIZE_MAX / 1024 ? (size_t)kb * 1024 : SIZE_MAX;
    size_t cgroup = mm_shm_cgroup_room();
    return cgroup < machine ? cgroup : machine;
}

/* map at an address such that addr + @p offset is a multiple of @p align (a power of two):
 * reserve a larger range, map inside it, give back the rest */
static void *mm_shm_map_aligned(int fd, size_t bytes, size_t align, size_t offset)
{
    size_t span = bytes + align;
    char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    uintptr_t want = ((uintptr_t)r + offset + align - 1) / align * align - offset;
    char *p = mmap((void *)want, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(r, span);
        return NULL;
    }
    if (p > r)
        munmap(r, (size_t)(p - r));
    if (p + bytes < r + span)
        munmap(p + bytes, (size_t)(r + span - (p + bytes)));
    return p;
}

void *mm_shm_create(const char *name, size_t bytes, bool hugepages, size_t populate, size_t align,
                    size_t align_offset, int *fd_out)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        mm_error("memfd_create(%s): %s", name, strerror(errno));
        return NULL;
    }
    /* a memfd is created 0777: readable and writable by its user only, so that reopening it
     * (/proc/PID/fd) is refused to anyone else even where the process itself is reachable */
    if (fchmod(fd, 0600) != 0) {
        mm_error("fchmod(%s, 0600): %s", name, strerror(errno));
        close(fd);
        return NULL;
    }
    if (ftruncate(fd, (off_t)bytes) != 0) {
        mm_error("ftruncate(%s, %zu): %s", name, bytes, strerror(errno));
        close(fd);
        return NULL;
    }
    void *p = align > 1 ? mm_shm_map_aligned(fd, bytes, align, align_offset)
                        : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == NULL || p == MAP_FAILED) {
        mm_error("mmap(%s, %zu bytes): %s", name, bytes, strerror(errno));
        close(fd);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    /* transparent huge pages for shmem, where the system allows them (shmem_enabled=advise) */
    if (hugepages)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    /* shared memory is allocated (and zeroed) on first touch: do it now, not when measured */
    if (mm_shm_commit(p, populate < bytes ? populate : bytes, true) != 0) {
        mm_error("cannot allocate %zu bytes of shared memory for %s (memory full?): %s", populate,
                 name, strerror(errno));
        munmap(p, bytes);
        close(fd);
        return NULL;
    }
    *fd_out = fd;
    return p;
}

void *mm_shm_map(int fd, size_t bytes, void *fixed_addr, size_t populate)
{
    void *p = mmap(fixed_addr, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | (fixed_addr ? MAP_FIXED : 0), fd, 0);
    if (p == MAP_FAILED) {
        mm_error("mmap of a peer's segment (%zu bytes): %s", bytes, strerror(errno));
        return NULL;
    }
    if (mm_shm_commit(p, populate < bytes ? populate : bytes, false) != 0)
        mm_warn("mapping a peer's segment: page tables not pre-filled: %s", strerror(errno));
    return p;
}

/* the abstract socket address of @p rank of @p job */
static socklen_t mm_shm_addr(struct sockaddr_un *a, const char *job, int rank)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s.%d", job, rank);
    if (n < 0 || (size_t)n >= sizeof(a->sun_path) - 1)
        n = (int)sizeof(a->sun_path) - 2;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int mm_shm_listen(const char *job, int rank)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    socklen_t len = mm_shm_addr(&a, job, rank);
    if (s < 0 || bind(s, (struct sockaddr *)&a, len) != 0 || listen(s, SOMAXCONN) != 0) {
        mm_error("meshmem_init: cannot listen for this node's peers on the abstract socket "
                 "@%s.%d: %s",
                 job, rank, strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    return s;
}

/* what a sender says with its descriptors */
typedef struct {
    uint32_t magic;
    int32_t rank;
    int32_t nfds;
} mm_shm_hello_t;
#define MM_SHM_HELLO 0x6d6d6664u /* "mmfd" */

/*
 * Send this rank's segment descriptors to @p peer, after checking that the socket reached is
 * the peer's: abstract socket names have no owner, so another user's process could bind the
 * name first (it can guess the job's name) and would then receive the job's memory. The
 * listener's credentials (SO_PEERCRED on the connected socket: those at its listen) must be
 * this user's and the pid the peer published.
 */
static int mm_shm_send(const char *job, int peer, int me, const int fds[2],
                       const mm_boot_card_t *cards)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    socklen_t len = mm_shm_addr(&a, job, peer);
    int rc;
    do
        rc = s < 0 ? -1 : connect(s, (struct sockaddr *)&a, len);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        mm_error("meshmem_init: cannot reach rank %d of this node (@%s.%d): %s", peer, job, peer,
                 strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    struct ucred cred;
    socklen_t clen = sizeof(cred);
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.uid != getuid() ||
        cred.pid != cards[peer].pid) {
        mm_error("meshmem_init: the socket of rank %d of this node (@%s.%d) belongs to another "
                 "process (pid %d, uid %d; rank %d is pid %d): its segments are not sent",
                 peer, job, peer, (int)cred.pid, (int)cred.uid, peer, (int)cards[peer].pid);
        close(s);
        return -1;
    }
    mm_shm_hello_t h = {MM_SHM_HELLO, me, fds[1] >= 0 ? 2 : 1};
    struct iovec iov = {&h, sizeof(h)};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl.buf,
                       .msg_controllen = CMSG_SPACE((size_t)h.nfds * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)h.nfds * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)h.nfds * sizeof(int));
    ssize_t n;
    do
        n = sendmsg(s, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    close(s);
    if (n != (ssize_t)sizeof(h)) {
        mm_error("meshmem_init: cannot send this rank's segments to rank %d: %s", peer,
                 n < 0 ? strerror(errno) : "short write");
        return -1;
    }
    return 0;
}

/* accept one peer's descriptors, checking who sent them; @return its rank, or -1 */
static int mm_shm_receive(int listener, const int *peers, int npeers, const mm_boot_card_t *cards,
                          int (*peer_fds)[2])
{
    int s = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (s < 0)
        return errno == EINTR || errno == EAGAIN ? -2 : -1;
    struct ucred cred;
    socklen_t clen = sizeof(cred);
    mm_shm_hello_t h = {0};
    struct iovec iov = {&h, sizeof(h)};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl.buf,
                       .msg_controllen = sizeof(ctl.buf)};
    ssize_t n;
    do
        n = recvmsg(s, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (n < 0 && errno == EINTR);
    int got[2] = {-1, -1}, ngot = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            ngot = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            memcpy(got, CMSG_DATA(c), (size_t)(ngot < 2 ? ngot : 2) * sizeof(int));
        }
    bool cred_ok = getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0;
    close(s);
    int idx = -1;
    for (int i = 0; i < npeers; i++)
        if (n == (ssize_t)sizeof(h) && peers[i] == h.rank)
            idx = i;
    /* the sender must be the process that published this rank's card, run by our user */
    bool ok = n == (ssize_t)sizeof(h) && h.magic == MM_SHM_HELLO && idx >= 0 && ngot == h.nfds &&
              cred_ok && cred.uid == getuid() && cred.pid == cards[h.rank].pid &&
              peer_fds[idx][0] < 0;
    if (!ok) { /* said always: another process tried to hand this rank its memory */
        mm_log(MM_LOG_WARN | MM_LOG_ALWAYS,
               "meshmem_init: refused a connection on this rank's socket (pid %d, uid %d): not "
               "a rank of this job",
               cred_ok ? (int)cred.pid : -1, cred_ok ? (int)cred.uid : -1);
        for (int i = 0; i < ngot && i < 2; i++)
            close(got[i]);
        return -2;
    }
    peer_fds[idx][0] = got[0];
    peer_fds[idx][1] = ngot > 1 ? got[1] : -1;
    return h.rank;
}

static double mm_shm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int mm_shm_exchange(int listener, const char *job, const int *peers, int npeers, const int fds[2],
                    const mm_boot_card_t *cards, int (*peer_fds)[2])
{
    int rc = 0;
    for (int i = 0; i < npeers; i++)
        peer_fds[i][0] = peer_fds[i][1] = -1;
    /* send first: a connection to a listening socket completes without its accept, and the
     * few bytes wait in the socket; so every rank can send to all before it receives */
    for (int i = 0; i < npeers && rc == 0; i++) {
        int k = (i + mm_g.rank) % npeers; /* not everyone at the first peer first */
        rc = mm_shm_send(job, peers[k], mm_g.rank, fds, cards);
    }
    double deadline = mm_shm_now() + 60.0;
    for (int got = 0; got < npeers && rc == 0;) {
        struct pollfd pfd = {listener, POLLIN, 0};
        int pr = poll(&pfd, 1, 100);
        if (mm_boot->ending())
            _exit(mm_boot->ending() - 1);
        if (pr > 0) {
            int r = mm_shm_receive(listener, peers, npeers, cards, peer_fds);
            if (r >= 0)
                got++;
            else if (r == -1)
                rc = -1;
        } else if (mm_shm_now() > deadline) {
            mm_error("meshmem_init: %d of this node's %d peers did not send their segments "
                     "within 60 s",
                     npeers - got, npeers);
            rc = -1;
        }
    }
    close(listener);
    return rc;
}
