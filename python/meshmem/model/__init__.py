"""meshmem's fabric model: fabric descriptions (fabrics/*.toml) and analytical cost models.

Public entry points:
    load_fabric(path, overrides=())  -> Fabric           (fabric.py)
    cost(fabric, op, nbytes, ranks=None, **opts) -> OpCost   (ops.py)
    validate.run_validation() -> list of rows against the papers' published figures, by class
    kernels.matmul / convolution / fft3d -> the papers' kernels on a fabric
Derivations and the validation table: docs/model.md.
"""
from meshmem.model.fabric import Fabric, FabricError, load_fabric, resolve_fabric_path
from meshmem.model.ops import ModelError, OpCost, cost, operations

__all__ = ["Fabric", "FabricError", "ModelError", "OpCost", "cost", "load_fabric", "operations",
           "resolve_fabric_path"]
