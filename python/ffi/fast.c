/*
 * meshmem._fast: the calls whose Python overhead is measured (`meshmem bench --python`) with
 * their arguments read in C, through the buffer protocol, instead of by Python code.
 *
 * Each function does only the common case: C-contiguous buffers of a standard NumPy element
 * type, a valid rank. Anything else returns MMFAST_SLOW (negative) without side effects, and
 * the Python wrapper (teams.py, rma.py) redoes the call on its general path, which raises the
 * exception naming the call and the argument. A value >= 0 is the runtime's status of a call
 * that was made (the wrapper raises on a non-zero one; it never makes the call twice).
 *
 * Why a second binding technology beside cffi (meshmem._ffi): cffi cannot take a Python object
 * as an argument (no PyObject *), so a cffi path must find the arrays' addresses in Python. The
 * best such path (the arrays' cached entries, core.py, checked as get() checks them, then one
 * cffi call of lib.mmpy_allreduce or lib.mmpy_put) was measured against this one, 2 ranks
 * pinned on the 2-vCPU Intel Xeon guest, `meshmem bench --python --ranks 2 --rounds 5`
 * (28 Nov 2026): 8-byte allreduce 0.86 us from Python against 0.35 us here (mpi4py 0.89 us:
 * 1.03 x its speed instead of 2.65 x, where the target is >= 2 x); 8-byte put 0.55 against
 * 0.21 us (2.2 x mpi4py's speed instead of 5.1 x). A cffi call alone costs 0.1 us plus about
 * 0.015 us per argument, and each check of the arrays in Python 0.02-0.05 us, so no cffi path
 * reaches 2 x mpi4py's allreduce. These two functions stay here; every other call is cffi's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <meshmem.h>
#include <meshmem_coll.h>

#include <stddef.h>
#include <string.h>

#define MMFAST_SLOW (-1)

static PyObject *mmfast_in_place; /* meshmem.IN_PLACE, set by set_in_place() */

/*
 * meshmem._fast.Block: the base of memory.py's _Block, the owner of one symmetric block (every
 * array on the block has it at the end of its chain of bases). Its one field, freed, is set by
 * meshmem.free; the fast put reads it in C, so that a put into any array on a freed block,
 * views made before the free included, takes the general path, which raises the error naming
 * the array (the memory may be the next allocation's).
 */
typedef struct {
    PyObject_HEAD char freed;
} mmfast_block;

static PyMemberDef mmfast_block_members[] = {
    {"freed", T_BOOL, offsetof(mmfast_block, freed), 0, "set by meshmem.free"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject mmfast_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "meshmem._fast.Block",
    .tp_basicsize = sizeof(mmfast_block),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The owner of a symmetric block (memory.py's _Block derives from it)",
    .tp_members = mmfast_block_members,
    .tp_new = PyType_GenericNew,
};

/* The head of a NumPy array (numpy/ndarraytypes.h's PyArrayObject_fields, whose layout is
 * NumPy's ABI, the same in NumPy 1.x and 2.x): the base is read without NumPy's headers, which
 * a pip install would need at build time. */
typedef struct {
    PyObject_HEAD char *data;
    int nd;
    Py_ssize_t *dimensions, *strides;
    PyObject *base;
} mmfast_array_head;

static PyTypeObject *mmfast_ndarray; /* numpy.ndarray, found at import */

/* true when @p obj is an ndarray on a block meshmem.free released: the end of its chain of
 * bases (NumPy collapses chains of views, so one or two steps) is a freed Block. A few loads. */
static int mmfast_freed(PyObject *obj)
{
    for (int i = 0; i < 8 && obj != NULL && Py_TYPE(obj) == mmfast_ndarray; i++)
        obj = ((mmfast_array_head *)obj)->base;
    return obj != NULL && PyObject_TypeCheck(obj, &mmfast_block_type) &&
           ((mmfast_block *)obj)->freed;
}

/* the meshmem element type of a buffer-protocol format ("d", "<f", "=q", "Zd", ...), or -1 */
static int mmfast_dtype(const char *fmt, Py_ssize_t itemsize)
{
    if (fmt == NULL)
        return MESHMEM_UINT8;
    if (*fmt == '<' || *fmt == '=' || *fmt == '@')
        fmt++;
    if (fmt[0] != '\0' && fmt[1] != '\0' && !(fmt[0] == 'Z' && fmt[2] == '\0'))
        return -1;
    switch (fmt[0]) {
    case 'b': return MESHMEM_INT8;
    case 'B': return MESHMEM_UINT8;
    case 'h': return MESHMEM_INT16;
    case 'H': return MESHMEM_UINT16;
    case 'i': return MESHMEM_INT32;
    case 'I': return MESHMEM_UINT32;
    case 'l':
    case 'q': return itemsize == 8 ? MESHMEM_INT64 : -1;
    case 'L':
    case 'Q': return itemsize == 8 ? MESHMEM_UINT64 : -1;
    case 'e': return MESHMEM_FLOAT16;
    case 'f': return MESHMEM_FLOAT32;
    case 'd': return MESHMEM_FLOAT64;
    case 'g': return MESHMEM_LONGDOUBLE;
    case 'Z': return fmt[1] == 'f' ? MESHMEM_COMPLEXF : fmt[1] == 'd' ? MESHMEM_COMPLEXD : -1;
    default: return -1;
    }
}

/* a C-contiguous view of @p obj (writable when asked), or 0 with no exception set */
static int mmfast_view(PyObject *obj, Py_buffer *view, int writable)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) == 0)
        return 1;
    PyErr_Clear();
    return 0;
}

/* allreduce(team, sendbuf, recvbuf, op, algo) -> status; team: the meshmem_team_t address */
static PyObject *mmfast_allreduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5)
        return PyLong_FromLong(MMFAST_SLOW);
    uintptr_t team = (uintptr_t)PyLong_AsSize_t(args[0]);
    long op = PyLong_AsLong(args[3]), algo = PyLong_AsLong(args[4]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return PyLong_FromLong(MMFAST_SLOW);
    }
    Py_buffer r, s;
    if (!mmfast_view(args[2], &r, 1))
        return PyLong_FromLong(MMFAST_SLOW);
    int in_place = args[1] == mmfast_in_place;
    if (!in_place && !mmfast_view(args[1], &s, 0)) {
        PyBuffer_Release(&r);
        return PyLong_FromLong(MMFAST_SLOW);
    }
    int dtype = mmfast_dtype(r.format, r.itemsize);
    long status = MMFAST_SLOW;
    if (dtype >= 0 && r.itemsize > 0 &&
        (in_place || (s.len == r.len && s.itemsize == r.itemsize &&
                      strcmp(s.format ? s.format : "B", r.format ? r.format : "B") == 0))) {
        const void *src = in_place ? MESHMEM_IN_PLACE : s.buf;
        Py_BEGIN_ALLOW_THREADS status =
            meshmem_coll_allreduce((meshmem_team_t)team, src, r.buf, (size_t)(r.len / r.itemsize),
                                   (meshmem_dtype_t)dtype, (meshmem_op_t)op, (meshmem_algo_t)algo);
        Py_END_ALLOW_THREADS
    }
    if (!in_place)
        PyBuffer_Release(&s);
    PyBuffer_Release(&r);
    return PyLong_FromLong(status);
}

/* put(dest, src, rank) -> status: dest symmetric, same size and format as src */
static PyObject *mmfast_put(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3)
        return PyLong_FromLong(MMFAST_SLOW);
    long rank = PyLong_AsLong(args[2]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return PyLong_FromLong(MMFAST_SLOW);
    }
    Py_buffer d, s;
    /* an array on a freed block: the general path says so */
    if (mmfast_freed(args[0]) || !mmfast_view(args[0], &d, 1))
        return PyLong_FromLong(MMFAST_SLOW);
    if (!mmfast_view(args[1], &s, 0)) {
        PyBuffer_Release(&d);
        return PyLong_FromLong(MMFAST_SLOW);
    }
    long status = MMFAST_SLOW;
    const char *df = d.format ? d.format : "B", *sf = s.format ? s.format : "B";
    size_t n = (size_t)d.len;
    if (rank >= 0 && rank < meshmem_nranks() && s.len == d.len && strcmp(df, sf) == 0 &&
        (n == 0 || (meshmem_addr_accessible(d.buf, (int)rank) &&
                    meshmem_addr_accessible((char *)d.buf + n - 1, (int)rank)))) {
        meshmem_put(d.buf, s.buf, n, (int)rank);
        status = MESHMEM_OK;
    }
    PyBuffer_Release(&s);
    PyBuffer_Release(&d);
    return PyLong_FromLong(status);
}

static PyObject *mmfast_set_in_place(PyObject *self, PyObject *obj)
{
    (void)self;
    Py_XDECREF(mmfast_in_place);
    Py_INCREF(obj);
    mmfast_in_place = obj;
    Py_RETURN_NONE;
}

static PyMethodDef mmfast_methods[] = {
    {"allreduce", (PyCFunction)(void (*)(void))mmfast_allreduce, METH_FASTCALL,
     "allreduce(team, sendbuf, recvbuf, op, algo) -> status (1: take the general path)"},
    {"put", (PyCFunction)(void (*)(void))mmfast_put, METH_FASTCALL,
     "put(dest, src, rank) -> status (1: take the general path)"},
    {"set_in_place", mmfast_set_in_place, METH_O, "set_in_place(obj): the IN_PLACE sentinel"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mmfast_module = {
    PyModuleDef_HEAD_INIT,
    "meshmem._fast",
    "Fast paths of meshmem.allreduce and meshmem.put (see fast.c)",
    -1,
    mmfast_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__fast(void)
{
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == NULL)
        return NULL;
    mmfast_ndarray = (PyTypeObject *)PyObject_GetAttrString(np, "ndarray"); /* kept */
    Py_DECREF(np);
    if (mmfast_ndarray == NULL || PyType_Ready(&mmfast_block_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&mmfast_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&mmfast_block_type);
    if (PyModule_AddObject(m, "Block", (PyObject *)&mmfast_block_type) < 0) {
        Py_DECREF(&mmfast_block_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
