"""meshmem: Python bindings, command-line tool (python -m meshmem) and fabric model.

Bindings (needs the installed package: pip install .):

    import meshmem
    x = meshmem.zeros(4)                 # a NumPy array in the symmetric heap
    meshmem.put(x, [1, 2, 3, 4], (meshmem.rank() + 1) % meshmem.size())
    meshmem.barrier()
    meshmem.allreduce(meshmem.IN_PLACE, x, op="sum")

The runtime starts when the program first uses the API (any meshmem.NAME below, or importing
one of the modules core, memory, rma, teams, am), collectively, and ends at exit (core.py).
Importing the package alone starts nothing: the command-line tool and meshmem.run are
ordinary programs. docs/python.md is the manual.
"""
import importlib

__version__ = "0.1.0"

# public name -> module defining it (the runtime starts on the first lookup)
_CORE = ("Error", "init", "finalize", "initialized", "global_exit", "rank", "size", "DTYPES")
_MEMORY = ("array", "empty", "zeros", "full", "asarray", "empty_like", "zeros_like", "free",
           "is_symmetric", "ptr", "heap_info", "release_unreferenced")
_RMA = ("put", "get", "put_signal", "signal_fetch", "signal_wait_until", "fence", "quiet",
        "wait_until", "test", "atomic_fetch", "atomic_set", "atomic_swap",
        "atomic_compare_swap", "atomic_add", "atomic_fetch_add", "atomic_inc",
        "atomic_fetch_inc", "atomic_and", "atomic_fetch_and", "atomic_or", "atomic_fetch_or",
        "atomic_xor", "atomic_fetch_xor")
_TEAMS = ("Team", "WORLD", "SHARED", "IN_PLACE", "barrier", "sync", "allreduce", "reduce",
          "reduce_scatter", "bcast", "scatter", "gather", "allgather", "allgatherv", "alltoall",
          "alltoallv", "broadcast", "fcollect", "collect", "split_strided", "split_2d",
          "set_topology", "use_topology", "SUM", "PROD", "MIN", "MAX", "AND", "OR", "XOR",
          "ALGO_AUTO", "ALGO_ONESTEP", "ALGO_NAIVE", "ALGO_AGGRESSIVE", "ALGO_RING",
          "ALGO_RECDBL")
_AM = ("Stream",)
_API = {**{n: "meshmem.core" for n in _CORE}, **{n: "meshmem.memory" for n in _MEMORY},
        **{n: "meshmem.rma" for n in _RMA}, **{n: "meshmem.teams" for n in _TEAMS},
        **{n: "meshmem.am" for n in _AM}}


def __getattr__(name: str):
    if name == "am":  # the active-message module itself
        return importlib.import_module("meshmem.am")
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'meshmem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_API, "am"])
