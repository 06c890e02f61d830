"""Generate the C source of meshmem._ffi (cffi, API mode) from meshmem's public headers.

    python3 build_ffi.py OUT.c

The declarations below are checked by the C compiler against include/meshmem*.h when OUT.c is
compiled (API mode: a declaration that does not match the header is a build error, not a crash
at run time). Enumerations and constants take their values from the headers ("..."). CMake
(python/CMakeLists.txt) runs this script and compiles OUT.c into the extension module.
"""
import sys
from pathlib import Path

import cffi

HERE = Path(__file__).resolve().parent

CDEF = """
typedef enum { MESHMEM_OK, MESHMEM_INPROGRESS, MESHMEM_ERR_ARG, MESHMEM_ERR_NOMEM,
               MESHMEM_ERR_SYSTEM, MESHMEM_ERR_STATE, MESHMEM_ERR_NOT_SYMMETRIC,
               MESHMEM_ERR_RANK, MESHMEM_ERR_TEAM, MESHMEM_ERR_UNSUPPORTED,
               MESHMEM_ERR_ABORTED, ... } meshmem_status_t;
const char *meshmem_status_string(meshmem_status_t status);

#define MESHMEM_VERSION_MAJOR ...
#define MESHMEM_VERSION_MINOR ...
enum { MESHMEM_THREAD_SINGLE, MESHMEM_THREAD_FUNNELED, MESHMEM_THREAD_SERIALIZED,
       MESHMEM_THREAD_MULTIPLE, ... };
meshmem_status_t meshmem_init(int requested, int *provided);
void meshmem_finalize(void);
int meshmem_initialized(void);
void meshmem_global_exit(int status);
int meshmem_rank(void);
int meshmem_nranks(void);

void *meshmem_align(size_t alignment, size_t size);
void *mmpy_align(size_t alignment, size_t size, const char *name);
int mmpy_allgather_as(const char *name, uintptr_t s, uintptr_t r, size_t count);
int mmpy_allgatherv_as(const char *name, uintptr_t s, size_t scount, uintptr_t r,
                       const size_t *rcounts, const size_t *displs);
void meshmem_free(void *ptr);
void *meshmem_ptr(const void *addr, int rank);
int meshmem_addr_accessible(const void *addr, int rank);
int meshmem_rank_accessible(int rank);
void meshmem_heap_info(size_t *total, size_t *free_bytes);

enum { MESHMEM_SIGNAL_SET, MESHMEM_SIGNAL_ADD, ... };
void meshmem_fence(void);
void meshmem_quiet(void);

typedef enum { MESHMEM_INT8, MESHMEM_INT16, MESHMEM_INT32, MESHMEM_INT64, MESHMEM_UINT8,
               MESHMEM_UINT16, MESHMEM_UINT32, MESHMEM_UINT64, MESHMEM_FLOAT32,
               MESHMEM_FLOAT64, MESHMEM_FLOAT16, MESHMEM_BFLOAT16, MESHMEM_LONGDOUBLE,
               MESHMEM_COMPLEXF, MESHMEM_COMPLEXD, MESHMEM_DTYPE_COUNT, ... } meshmem_dtype_t;
size_t meshmem_dtype_size(meshmem_dtype_t dtype);
typedef enum { MESHMEM_AMO_FETCH, MESHMEM_AMO_SET, MESHMEM_AMO_SWAP, MESHMEM_AMO_CSWAP,
               MESHMEM_AMO_ADD, MESHMEM_AMO_AND, MESHMEM_AMO_OR, MESHMEM_AMO_XOR,
               ... } meshmem_amo_op_t;
typedef enum { MESHMEM_CMP_EQ, MESHMEM_CMP_NE, MESHMEM_CMP_GT, MESHMEM_CMP_LE,
               MESHMEM_CMP_LT, MESHMEM_CMP_GE, ... } meshmem_cmp_t;

typedef struct meshmem_team *meshmem_team_t;
extern meshmem_team_t MESHMEM_TEAM_WORLD;
extern meshmem_team_t MESHMEM_TEAM_SHARED;
int meshmem_team_rank(meshmem_team_t team);
int meshmem_team_size(meshmem_team_t team);
int meshmem_team_translate(meshmem_team_t src, int src_rank, meshmem_team_t dst);
meshmem_status_t meshmem_team_split_strided(meshmem_team_t parent, int start, int stride,
                                            int size, meshmem_team_t *new_team);
meshmem_status_t meshmem_team_split_2d(meshmem_team_t parent, int xrange,
                                       meshmem_team_t *xaxis_team, meshmem_team_t *yaxis_team);
void meshmem_team_destroy(meshmem_team_t team);
int meshmem_team_world_rank(meshmem_team_t team, int team_rank);
meshmem_status_t meshmem_team_set_topology(meshmem_team_t team, int kx, int ky);
meshmem_status_t meshmem_team_get_topology(meshmem_team_t team, int *kx, int *ky);
void meshmem_topology_square(int n, int *kx, int *ky);

typedef enum { MESHMEM_OP_SUM, MESHMEM_OP_PROD, MESHMEM_OP_MIN, MESHMEM_OP_MAX,
               MESHMEM_OP_AND, MESHMEM_OP_OR, MESHMEM_OP_XOR, MESHMEM_OP_COUNT,
               ... } meshmem_op_t;
meshmem_status_t meshmem_barrier(meshmem_team_t team);
meshmem_status_t meshmem_team_sync(meshmem_team_t team);
meshmem_status_t meshmem_alltoalls(meshmem_team_t team, void *dest, const void *src,
                                   ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
                                   size_t nelems);
void meshmem_model_compute(uint64_t bytes_read, uint64_t bytes_written, uint64_t flops);
void meshmem_model_phase(const char *name);

/* meshmem_coll.h */
typedef enum { MESHMEM_ALGO_AUTO, MESHMEM_ALGO_ONESTEP, MESHMEM_ALGO_NAIVE,
               MESHMEM_ALGO_AGGRESSIVE, MESHMEM_ALGO_RING, MESHMEM_ALGO_RECDBL,
               MESHMEM_ALGO_COUNT, ... } meshmem_algo_t;
const char *meshmem_algo_name(meshmem_algo_t algo);
meshmem_status_t meshmem_coll_barrier(meshmem_team_t team);

/* meshmem_am.h */
#define MESHMEM_AM_MAX_ARGS ...
#define MESHMEM_AM_MAX_HANDLERS ...
typedef uint64_t meshmem_am_arg_t;
typedef struct meshmem_am_token *meshmem_am_token_t;
typedef void (*meshmem_am_handler_t)(meshmem_am_token_t token, void *buf, size_t nbytes,
                                     const meshmem_am_arg_t *args, int nargs);
typedef enum { MESHMEM_AM_SHORT, MESHMEM_AM_MEDIUM, MESHMEM_AM_LONG, ... } meshmem_am_kind_t;
enum { MESHMEM_AM_REQUEST, MESHMEM_AM_REPLY, MESHMEM_AM_REQREP, ... };
typedef struct {
    int index;
    meshmem_am_handler_t fn;
    meshmem_am_kind_t kind;
    int flags;
    int nargs;
    ...;
} meshmem_am_entry_t;
meshmem_status_t meshmem_am_request_short(int rank, int handler, int nargs,
                                          const meshmem_am_arg_t *args);
meshmem_status_t meshmem_am_request_medium(int rank, int handler, const void *buf,
                                           size_t nbytes, int nargs,
                                           const meshmem_am_arg_t *args);
meshmem_status_t meshmem_am_request_long(int rank, int handler, const void *buf, size_t nbytes,
                                         void *dest, int nargs, const meshmem_am_arg_t *args);
meshmem_status_t meshmem_am_reply_short(meshmem_am_token_t token, int handler, int nargs,
                                        const meshmem_am_arg_t *args);
meshmem_status_t meshmem_am_reply_medium(meshmem_am_token_t token, int handler,
                                         const void *buf, size_t nbytes, int nargs,
                                         const meshmem_am_arg_t *args);
meshmem_status_t meshmem_am_reply_long(meshmem_am_token_t token, int handler, const void *buf,
                                       size_t nbytes, void *dest, int nargs,
                                       const meshmem_am_arg_t *args);
int meshmem_am_token_rank(meshmem_am_token_t token);
size_t meshmem_am_max_medium(void);
size_t meshmem_am_max_long(void);
int meshmem_am_poll(void);
meshmem_status_t meshmem_am_quiet(void);
meshmem_status_t meshmem_am_put(void *dest, const void *src, size_t nbytes, int rank,
                                size_t frag);
meshmem_status_t meshmem_am_get(void *dest, const void *src, size_t nbytes, int rank,
                                size_t frag);

#define MESHMEM_STREAM_END ...
typedef struct { size_t elem_size; size_t capacity; size_t batch; int producer; int consumer;
                 int role; ...; } meshmem_stream_t;
meshmem_status_t meshmem_stream_open(meshmem_stream_t *s, void *buf, size_t elem_size,
                                     size_t capacity, uint64_t *signal, size_t batch,
                                     int producer, int consumer);
meshmem_status_t meshmem_stream_push(meshmem_stream_t *s, const void *elems, size_t count);
meshmem_status_t meshmem_stream_flush(meshmem_stream_t *s);
meshmem_status_t meshmem_stream_close(meshmem_stream_t *s);
size_t meshmem_stream_wait(meshmem_stream_t *s, size_t count);
size_t meshmem_stream_pop(meshmem_stream_t *s, void *out, size_t max);
int meshmem_stream_ended(const meshmem_stream_t *s);

/* mmpy.h: checked calls, trampolines, timed loops */
int mmpy_put(uintptr_t dest, uintptr_t src, size_t n, int rank);
int mmpy_get(uintptr_t dest, uintptr_t src, size_t n, int rank);
int mmpy_iput(uintptr_t dest, uintptr_t src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
              size_t nelems, uintptr_t lo, size_t span, int rank);
int mmpy_iget(uintptr_t dest, uintptr_t src, ptrdiff_t dst, ptrdiff_t sst, size_t elem_size,
              size_t nelems, uintptr_t lo, size_t span, int rank);
int mmpy_put_signal(uintptr_t dest, uintptr_t src, size_t n, uintptr_t sig, uint64_t signal,
                    int sig_op, int rank);
int mmpy_atomic(int op, int dtype, uintptr_t dest, uintptr_t value, uintptr_t cond,
                uintptr_t fetched, int rank);
int mmpy_wait_until(uintptr_t ivar, int dtype, int cmp, uintptr_t value);
int mmpy_test(uintptr_t ivar, int dtype, int cmp, uintptr_t value);
int mmpy_bcast(meshmem_team_t t, uintptr_t buf, size_t count, int dtype, int root, int algo);
int mmpy_scatter(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype, int root,
                 int algo);
int mmpy_gather(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype, int root,
                int algo);
int mmpy_allgather(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                   int algo);
int mmpy_allgatherv(meshmem_team_t t, uintptr_t s, size_t scount, uintptr_t r,
                    const size_t *rcounts, const size_t *displs, int dtype, int algo);
int mmpy_alltoall(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                  int algo);
int mmpy_alltoallv(meshmem_team_t t, uintptr_t s, const size_t *scounts, const size_t *sdispls,
                   uintptr_t r, const size_t *rcounts, const size_t *rdispls, size_t rcap,
                   size_t *rcounts_out, int dtype, int algo);
int mmpy_reduce(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype, int op,
                int root, int algo);
int mmpy_allreduce(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype, int op,
                   int algo);
int mmpy_reduce_scatter(meshmem_team_t t, uintptr_t s, uintptr_t r, size_t count, int dtype,
                        int op, int algo);
int mmpy_broadcast(meshmem_team_t t, uintptr_t dest, uintptr_t src, size_t n, int root);
int mmpy_fcollect(meshmem_team_t t, uintptr_t dest, uintptr_t src, size_t n);
int mmpy_collect(meshmem_team_t t, uintptr_t dest, uintptr_t src, size_t n);
int mmpy_am_register(meshmem_am_entry_t *entries, int count);
void mmpy_python_gone(void);
unsigned long mmpy_am_dropped_count(void);
extern "Python" void mmpy_am_python(int index, meshmem_am_token_t token, void *buf,
                                    size_t nbytes, const meshmem_am_arg_t *args, int nargs);
double mmpy_bench_allreduce(uintptr_t s, uintptr_t r, size_t count, int dtype, int iters,
                            int warmup);
double mmpy_bench_put(uintptr_t dest, uintptr_t src, size_t n, int iters, int warmup);
"""


def builder() -> cffi.FFI:
    """The FFI object of meshmem._ffi."""
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("meshmem._ffi", '#include "mmpy.h"\n')
    return ffi


def main(argv: list) -> int:
    if len(argv) != 2:
        print("usage: build_ffi.py OUT.c", file=sys.stderr)
        return 2
    out = Path(argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    builder().emit_c_code(str(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
