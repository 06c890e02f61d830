"""The per-operation cost query: what does operation OP of L bytes take on fabric F among ranks R?

    from meshmem.model import load_fabric, cost
    c = cost(load_fabric("fabrics/optweb-fc8-90g.toml"), "alltoall", 1 << 20)
    c.seconds, c.throughput, c.terms

This is the entry point the virtual-clock runtime will call for every communication call.
L is the op's size per rank (see docs/model.md, "Conventions").
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from meshmem.model import mpi, onestep, pgas, sort
from meshmem.model.fabric import Fabric

ONESTEP_OPS = ("alltoall", "allgather", "bcast", "scatter", "gather", "barrier", "reduce_scatter",
               "allreduce", "average_naive", "average_aggressive", "put", "get", "sort")
MPI_OPS = ("alltoall", "allgather", "bcast", "scatter", "gather", "barrier", "reduce_scatter",
           "allreduce", "reduce", "put", "get", "sort")
PGAS_OPS = ("put", "get", "alltoall", "allgather", "bcast", "allreduce", "barrier")
ALIASES = {"average": "allreduce", "averaging": "allreduce", "average_aggressive": "allreduce",
           "unicast": "put", "alltoallv": "alltoall"}


class ModelError(ValueError):
    """An operation the fabric's engine cannot cost, or bad arguments."""


@dataclass(frozen=True)
class OpCost:
    """Predicted cost of one operation."""
    fabric: str
    op: str
    nbytes: float
    ranks: int
    seconds: float
    algorithm: str
    terms: dict = field(default_factory=dict)

    @property
    def throughput(self) -> float:
        """nbytes / seconds in bytes/s (the papers' per-node 'throughput'); 0 for an empty op."""
        return self.nbytes / self.seconds if self.seconds > 0 and self.nbytes > 0 else 0.0

    def as_dict(self) -> dict:
        """Plain dict for JSON output."""
        return {"fabric": self.fabric, "op": self.op, "bytes": self.nbytes, "ranks": self.ranks,
                "seconds": self.seconds, "throughput_bytes_per_s": self.throughput,
                "algorithm": self.algorithm, "terms": self.terms}


def operations(fabric: Fabric) -> tuple[str, ...]:
    """Operations the fabric's engine can cost."""
    return {"onestep": ONESTEP_OPS, "mpi": MPI_OPS, "pgas": PGAS_OPS}[fabric.engine]


def _rank_list(fabric: Fabric, ranks) -> list[int] | None:
    if ranks is None:
        return None
    if isinstance(ranks, int):
        ranks = range(ranks)
    out = sorted(set(int(r) for r in ranks))
    if not out or out[0] < 0 or out[-1] >= fabric.nodes:
        raise ModelError(f"ranks must lie in 0..{fabric.nodes - 1} (got {out[:1]}..{out[-1:]})")
    return out


def _onestep(fabric: Fabric, op: str, L: float, ranks, opts) -> tuple[onestep.StepCost, str]:
    dims = fabric.topology.spanned_dims(ranks)
    table = {"alltoall": onestep.alltoall, "allgather": onestep.allgather, "bcast": onestep.bcast,
             "scatter": onestep.scatter, "gather": onestep.gather, "reduce_scatter": onestep.reduce_scatter,
             "allreduce": onestep.averaging_mesh, "average_naive": onestep.averaging_naive,
             "average_aggressive": onestep.averaging_mesh}
    # average_aggressive: the all-reduce that never takes the naive form of allreduce_form
    if op in ("allreduce", "average_aggressive") and 0 < L <= fabric.protocol.allreduce_onestep_bytes:
        return onestep.allreduce_onestep(fabric, L, dims), f"onestep-allgather-fold-{len(dims)}d"
    # the runtime's forms across hosts are for teams that span them (a y dimension); one
    # host's teams run the papers' forms (docs/collectives.md)
    spans_hosts = any(d.axis == 1 for d in dims)
    if op == "allreduce" and fabric.protocol.allreduce_form == "naive" and spans_hosts:
        op = "average_naive"
    if (op == "bcast" and 0 < fabric.protocol.bcast_pieces_bytes < L and len(dims) == 2 and
            spans_hosts):
        return onestep.bcast_pieces(fabric, L, dims), "onestep-pieces-2d"
    if op in table:
        return table[op](fabric, L, dims), f"onestep-{len(dims)}d"
    if op == "barrier":
        return onestep.barrier(fabric, dims), f"onestep-{len(dims)}d"
    src, dst = opts.get("src", 0), opts.get("dst", fabric.nodes - 1)
    axes = fabric.topology.hop_axes(src, dst)
    one = onestep.unicast(fabric, L, axes)
    if op == "get":  # a request signal travels first
        one = one + onestep.StepCost(sum(fabric.link_of(a).hop_latency_s for a in axes), 0.0, 0.0)
    return one, f"direct-{len(axes)}hop"


def _mpi(fabric: Fabric, op: str, L: float, p: int, opts) -> tuple[float, str, dict]:
    m = fabric.mpi
    hop = fabric.link.hop_latency_s * fabric.topology.average_hops()
    base = m["software_latency_s"] + hop
    proto = fabric.protocol

    def alpha(msg: float) -> float:
        return base + (proto.rendezvous_extra_s if msg > proto.eager_threshold_bytes else 0.0)

    beta = 1.0 / fabric.link.bytes_per_s
    rpn = m["ranks_per_node"]
    gamma = 1.0 / m["reduce_bytes_per_s"]  # one core; mpi.Ctx shares a node's work among its cores
    if op in ("put", "get"):
        extra = alpha(0) if op == "get" else 0.0
        return alpha(L) + L * beta + extra, "point-to-point", {"alpha_s": alpha(L)}
    startup = m["alltoall_startup_s"] if op == "alltoall" else 0.0
    rules = m["algorithms"].get(op)
    if rules is None:
        raise ModelError(f"{fabric.path}: [mpi.algorithms] has no rule for {op!r}")
    # OpenMPI decides per rank: on the vector for the reductions, on the block a rank sends each
    # peer for the all-to-all (coll_tuned_decision_fixed.c's total_dsize)
    size = L / rpn / (p * rpn) if op == "alltoall" else L / rpn
    alg = opts.get("algorithm") or mpi.choose_algorithm(rules, size)
    if alg not in mpi.ALGORITHMS[op]:
        raise ModelError(f"algorithm {alg!r} unknown for {op} (known: {', '.join(mpi.ALGORITHMS[op])})")
    ctx = mpi.Ctx(p, L, alpha, beta, gamma, p * rpn)
    return startup + mpi.cost(op, alg, ctx), alg, {
        "alpha_s": base, "beta_s_per_byte": beta, "gamma_s_per_byte": gamma, "startup_s": startup,
        "ranks": p * rpn}


def _cpu_sort_cost(fabric: Fabric, L: float, p: int, opts) -> tuple[float, str, dict]:
    """A CPU counting sort of L bytes of keys per node: each core sorts its share of the records
    locally (record_ns_per_core each), and the keys (and, for variant 'kv', the values as wide
    as the keys) cross the cluster in one all-to-all each (OPTWEB (JOCN 2022) §4.C.1)."""
    spec = fabric.cpu_sort
    variant = opts.get("variant") or "keys"
    if variant not in ("keys", "kv"):
        raise ModelError(f"sort on {fabric.name}: variant must be 'keys' or 'kv' (got {variant!r})")
    records = L / spec.key_bytes
    local = records * spec.record_s_per_core / fabric.mpi["ranks_per_node"]
    exchanges = 2 if variant == "kv" else 1
    a2a, alg, _ = _mpi(fabric, "alltoall", L, p, {})
    return local + exchanges * a2a, f"cpu-counting-sort-{variant}", {
        "local_s": local, "exchange_s": exchanges * a2a, "exchange_algorithm": alg, "records": records}


def _sort_cost(fabric: Fabric, L: float, ranks, opts) -> tuple[float, str, dict]:
    dims = fabric.topology.spanned_dims(ranks)
    t = sort.throughput(fabric, dims, opts.get("variant"))
    seconds = t.nodes * L / t.expected
    return seconds, f"counting-sort-A{t.passes}", {
        "passes": t.passes, "bound": t.bound, "peak_bytes_per_s": t.peak,
        "expected_bytes_per_s": t.expected, "memory_limit_bytes_per_s": t.memory_limit,
        "network_limit_bytes_per_s": t.network_limit}


def _pgas_by_puts(fabric: Fabric, op: str, L: float, p: int, packet) -> OpCost:
    """The collectives a PGAS program builds from puts, FSHMEM having none of its own: the L
    bytes go to every peer at once, a port per peer as in alltoall (bcast from the root,
    allgather and allreduce from every rank); allreduce then folds the p - 1 received vectors
    into its own, each read once through the data path."""
    put = pgas.transfer_time(fabric, "put", L, packet) if p > 1 and L > 0 else 0.0
    fold = (p - 1) * L / fabric.memory.bytes_per_s if op == "allreduce" else 0.0
    return OpCost(fabric.name, op, L, p, put + fold, "puts-to-every-peer",
                  {"put_s": put, "fold_s": fold})


def cost(fabric: Fabric, op: str, nbytes: float, ranks=None, **opts) -> OpCost:
    """Predicted cost of `op` moving `nbytes` per rank among `ranks` (None = all, an int = the first
    n ranks, or an iterable of rank ids). Options: src/dst (put, get), algorithm (mpi engine),
    packet_bytes (pgas engine), variant (sort)."""
    name = ALIASES.get(op, op)  # what the result is called
    if op not in operations(fabric):  # an alias where the engine has no operation of the name
        op = name
    if op not in operations(fabric):
        raise ModelError(f"{fabric.path}: engine {fabric.engine!r} has no operation {op!r} "
                         f"(known: {', '.join(operations(fabric))})")
    if not nbytes >= 0 or math.isinf(nbytes):
        raise ModelError(f"bytes must be a finite number >= 0 (got {nbytes!r})")
    rl = _rank_list(fabric, ranks)
    p = fabric.nodes if rl is None else len(rl)
    if op == "sort":
        if fabric.sort is None and fabric.cpu_sort is None:
            raise ModelError(f"{fabric.path}: op 'sort' needs a [sort] section")
        if fabric.cpu_sort is not None:
            seconds, alg, terms = _cpu_sort_cost(fabric, nbytes, p, opts)
        else:
            seconds, alg, terms = _sort_cost(fabric, nbytes, rl, opts)
        return OpCost(fabric.name, op, nbytes, p, seconds, alg, terms)
    if fabric.engine == "onestep":
        step, alg = _onestep(fabric, op, nbytes, rl, opts)
        return OpCost(fabric.name, name, nbytes, p, step.seconds, alg,
                      {"startup_s": step.startup_s, "transfer_s": step.transfer_s, "sync_s": step.sync_s})
    if fabric.engine == "mpi":
        seconds, alg, terms = _mpi(fabric, op, nbytes, p, opts)
        return OpCost(fabric.name, op, nbytes, p, seconds, alg, terms)
    packet = opts.get("packet_bytes")
    if op == "barrier":
        return OpCost(fabric.name, op, 0, p, 2 * fabric.link.hop_latency_s, "am-short", {})
    if op == "alltoall":  # each rank puts L/p to every other rank, one port per peer
        share = nbytes / p
        seconds = pgas.transfer_time(fabric, "put", share, packet) if p > 1 else 0.0
        return OpCost(fabric.name, op, nbytes, p, seconds, "am-long", {"per_peer_bytes": share})
    if op in ("allgather", "bcast", "allreduce"):
        return _pgas_by_puts(fabric, op, nbytes, p, packet)
    seconds = pgas.transfer_time(fabric, op, nbytes, packet)
    return OpCost(fabric.name, op, nbytes, p, seconds, "am-long" if nbytes else "am-short",
                  {"latency_s": pgas.latency(fabric, op, nbytes),
                   "peak_bytes_per_s": pgas.peak_bandwidth(fabric, packet or fabric.pgas["default_packet_bytes"])})
