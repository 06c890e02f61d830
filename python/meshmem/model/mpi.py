"""Alpha-beta-gamma costs of MPI's collective algorithms (Thakur, Rabenseifner & Gropp 2005).

p nodes with r ranks each (q = p r ranks), n bytes per node (the op's size: the vector for
reductions and bcast, the whole gathered buffer for allgather/scatter/gather, everything a node
sends for alltoall), alpha the start-up of one message, beta seconds per byte on a node's link,
gamma seconds per byte reduced by one core. lg x is ceil(log2 x).

The start-up terms count the algorithm's steps over all q ranks; the bandwidth terms count the
bytes that cross a node's one link (block placement: the steps between ranks of one node stay
inside it), and a node's r cores reduce their parts at once. With r = 1 every formula is the
one of Thakur et al. Each formula names the per-step message size used to decide eager or
rendezvous start-up. Checked by hand in tests/py/test_model.py; derived in docs/model.md.

"log_steps" is the account OPTWEB (JOCN 2022) §4.B.1 gives of its CPU cluster's collectives: "In
MPI, the collective communication is performed in Log2 N unicast-communication steps", each
step moving the node's data once; "direct" is one step in which every node sends each peer its
block at once (a packet network that interleaves destinations, as DataVortex's).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


def _lg(x: int) -> int:
    return max(1, math.ceil(math.log2(x))) if x > 1 else 0


@dataclass(frozen=True)
class Ctx:
    """Inputs of one cost evaluation; alpha(m) is the start-up of a message of m bytes."""
    p: int
    n: float
    alpha: Callable[[float], float]
    beta: float
    gamma: float
    q: int = 0  # ranks; 0: p (one rank per node)

    @property
    def ranks(self) -> int:
        """Ranks taking part in the algorithm's steps."""
        return self.q or self.p

    @property
    def r(self) -> int:
        """Ranks (and reducing cores) per node."""
        return max(1, self.ranks // self.p)

    @property
    def lg(self) -> int:
        """Rounds of the tree and doubling algorithms over all ranks: ceil(log2 q)."""
        return _lg(self.ranks)

    @property
    def lg_nodes(self) -> int:
        """Those of the rounds that cross the node's link: ceil(log2 p)."""
        return _lg(self.p)

    @property
    def steps(self) -> int:
        """q - 1, the number of rounds of the linear and ring algorithms."""
        return self.ranks - 1

    @property
    def frac(self) -> float:
        """(p - 1) / p: the share of the data that leaves a node."""
        return (self.p - 1) / self.p

    def reduce(self, nbytes: float) -> float:
        """Seconds for a node's r cores to reduce `nbytes` together."""
        return nbytes * self.gamma / self.r


def _alltoall_log_steps(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / c.r) + c.lg_nodes * c.n * c.beta


def _alltoall_direct(c: Ctx) -> float:
    return c.alpha(c.n / c.ranks) + c.frac * c.n * c.beta


def _alltoall_bruck(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / c.r / 2) + (c.n / 2) * c.lg_nodes * c.beta


def _alltoall_pairwise(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.r / c.ranks) + c.frac * c.n * c.beta


def _allgather_ring(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.ranks) + c.frac * c.n * c.beta


def _allgather_recursive_doubling(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + c.frac * c.n * c.beta


def _bcast_binomial(c: Ctx) -> float:
    return c.lg * c.alpha(c.n) + c.lg_nodes * c.n * c.beta


def _bcast_scatter_allgather(c: Ctx) -> float:
    return (c.lg + c.steps) * c.alpha(c.n / c.ranks) + 2 * c.frac * c.n * c.beta


def _bcast_linear(c: Ctx) -> float:
    return c.steps * c.alpha(c.n) + (c.p - 1) * c.n * c.beta


def _reduce_scatter_recursive_halving(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + c.frac * c.n * c.beta + c.reduce(c.frac * c.n)


def _reduce_scatter_ring(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.ranks) + c.frac * c.n * c.beta + c.reduce(c.frac * c.n)


def _allreduce_recursive_doubling(c: Ctx) -> float:
    # every round each rank reduces its whole vector; the node's data crosses its link lg p times
    return c.lg * c.alpha(c.n / c.r) + c.lg_nodes * c.n * c.beta + c.reduce(c.lg * c.n)


def _allreduce_rabenseifner(c: Ctx) -> float:
    return 2 * c.lg * c.alpha(c.n / 2) + 2 * c.frac * c.n * c.beta + c.reduce(c.frac * c.n)


def _allreduce_ring(c: Ctx) -> float:
    return 2 * c.steps * c.alpha(c.n / c.ranks) + 2 * c.frac * c.n * c.beta + c.reduce(c.frac * c.n)


def _reduce_binomial(c: Ctx) -> float:
    return c.lg * c.alpha(c.n) + c.lg_nodes * c.n * c.beta + c.reduce(c.lg * c.n)


def _scatter_binomial(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + c.frac * c.n * c.beta


def _scatter_linear(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.ranks) + c.frac * c.n * c.beta


def _barrier_recursive_doubling(c: Ctx) -> float:
    return c.lg * c.alpha(0)


def _barrier_linear(c: Ctx) -> float:
    return 2 * c.steps * c.alpha(0)


# operation -> algorithm name -> cost function. Thakur et al. 2005 section per entry in docs/model.md.
ALGORITHMS: dict[str, dict[str, Callable[[Ctx], float]]] = {
    "alltoall": {"bruck": _alltoall_bruck, "pairwise": _alltoall_pairwise,
                 "linear": _alltoall_pairwise, "linear_sync": _alltoall_pairwise,
                 "log_steps": _alltoall_log_steps, "direct": _alltoall_direct},
    "allgather": {"ring": _allgather_ring, "recursive_doubling": _allgather_recursive_doubling,
                  "bruck": _allgather_recursive_doubling},
    "bcast": {"binomial": _bcast_binomial, "scatter_allgather": _bcast_scatter_allgather,
              "linear": _bcast_linear},
    "reduce_scatter": {"recursive_halving": _reduce_scatter_recursive_halving,
                       "pairwise": _reduce_scatter_ring, "ring": _reduce_scatter_ring},
    "allreduce": {"recursive_doubling": _allreduce_recursive_doubling,
                  "rabenseifner": _allreduce_rabenseifner, "ring": _allreduce_ring},
    "reduce": {"binomial": _reduce_binomial, "rabenseifner": _allreduce_rabenseifner,
               "ring": _allreduce_ring},
    "scatter": {"binomial": _scatter_binomial, "linear": _scatter_linear},
    "gather": {"binomial": _scatter_binomial, "linear": _scatter_linear},
    "barrier": {"recursive_doubling": _barrier_recursive_doubling, "dissemination": _barrier_recursive_doubling,
                "linear": _barrier_linear},
}


def choose_algorithm(rules: tuple, nbytes: float) -> str:
    """The first rule (below_bytes, name) with nbytes < below_bytes; the unbounded last one otherwise."""
    for bound, name in rules:
        if bound is None or nbytes < bound:
            return name
    return rules[-1][1]


def cost(op: str, algorithm: str, ctx: Ctx) -> float:
    """Seconds taken by `algorithm` for `op` under `ctx`; KeyError for an unknown pair."""
    if ctx.ranks < 2:
        return 0.0
    return ALGORITHMS[op][algorithm](ctx)
