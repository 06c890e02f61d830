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
import ast
import importlib
import importlib.util
from functools import cache
from pathlib import Path

__version__ = "0.1.0"

# The modules of the bindings. Each names its public names in __all__; `meshmem.NAME` imports
# the module of NAME on first use. Importing one starts the runtime, so their names are read
# from their sources (_api), and nothing is imported before a name is used.
_BINDINGS = ("core", "memory", "rma", "teams", "am")


@cache
def _api() -> dict:
    """public name -> the module defining it, from the __all__ of each binding module."""
    api = {}
    for name in _BINDINGS:
        module = f"meshmem.{name}"
        tree = ast.parse(Path(importlib.util.find_spec(module).origin).read_text())
        names = next(ast.literal_eval(node.value) for node in tree.body
                     if isinstance(node, ast.Assign)
                     and any(getattr(t, "id", None) == "__all__" for t in node.targets))
        api.update(dict.fromkeys(names, module))
    return api


def __getattr__(name: str):
    if name == "am":  # the active-message module itself
        return importlib.import_module("meshmem.am")
    module = _api().get(name) if not name.startswith("__") else None
    if module is None:
        raise AttributeError(f"module 'meshmem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_api(), "am"])
