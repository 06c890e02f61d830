"""Alpha-beta-gamma costs of MPI's collective algorithms (Thakur, Rabenseifner & Gropp 2005).

p ranks, n bytes (the op's size per rank: the vector for reductions and bcast, the whole gathered
buffer for allgather/scatter/gather, everything a rank sends for alltoall), alpha the start-up of one
message, beta seconds per byte on a rank's link, gamma seconds per byte of local reduction.
lg p is ceil(log2 p). Each algorithm lists the per-step message size used to decide eager or
rendezvous start-up. The formulas are checked by hand in tests/py/test_model.py and derived in
docs/model.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Ctx:
    """Inputs of one cost evaluation; alpha(m) is the start-up of a message of m bytes.

    With several ranks per node (q = nodes x ranks per node), the bandwidth terms stay those of p
    nodes moving n bytes each over their one link (intra-node traffic does not cross it), while
    the start-up terms count the steps of the algorithm over all q ranks."""
    p: int
    n: float
    alpha: Callable[[float], float]
    beta: float
    gamma: float
    q: int = 0  # ranks in the start-up terms; 0: p (one rank per node)

    @property
    def ranks(self) -> int:
        """Ranks taking part in the algorithm's steps."""
        return self.q or self.p

    @property
    def lg(self) -> int:
        """ceil(log2 ranks), the number of rounds of the tree and doubling algorithms."""
        return max(1, math.ceil(math.log2(self.ranks))) if self.ranks > 1 else 0

    @property
    def steps(self) -> int:
        """ranks - 1, the number of rounds of the linear and ring algorithms."""
        return self.ranks - 1

    @property
    def frac(self) -> float:
        """(p - 1) / p: the share of the data that leaves a rank."""
        return (self.p - 1) / self.p


def _alltoall_bruck(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + (c.n / 2) * c.lg * c.beta


def _alltoall_pairwise(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.p) + c.frac * c.n * c.beta


def _allgather_ring(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.p) + c.frac * c.n * c.beta


def _allgather_recursive_doubling(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + c.frac * c.n * c.beta


def _bcast_binomial(c: Ctx) -> float:
    return c.lg * (c.alpha(c.n) + c.n * c.beta)


def _bcast_scatter_allgather(c: Ctx) -> float:
    return (c.lg + c.steps) * c.alpha(c.n / c.p) + 2 * c.frac * c.n * c.beta


def _bcast_linear(c: Ctx) -> float:
    return c.steps * (c.alpha(c.n) + c.n * c.beta)


def _reduce_scatter_recursive_halving(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + c.frac * c.n * (c.beta + c.gamma)


def _reduce_scatter_ring(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.p) + c.frac * c.n * (c.beta + c.gamma)


def _allreduce_recursive_doubling(c: Ctx) -> float:
    return c.lg * (c.alpha(c.n) + c.n * c.beta + c.n * c.gamma)


def _allreduce_rabenseifner(c: Ctx) -> float:
    return 2 * c.lg * c.alpha(c.n / 2) + 2 * c.frac * c.n * c.beta + c.frac * c.n * c.gamma


def _allreduce_ring(c: Ctx) -> float:
    return 2 * c.steps * c.alpha(c.n / c.p) + 2 * c.frac * c.n * c.beta + c.frac * c.n * c.gamma


def _reduce_binomial(c: Ctx) -> float:
    return c.lg * (c.alpha(c.n) + c.n * c.beta + c.n * c.gamma)


def _scatter_binomial(c: Ctx) -> float:
    return c.lg * c.alpha(c.n / 2) + c.frac * c.n * c.beta


def _scatter_linear(c: Ctx) -> float:
    return c.steps * c.alpha(c.n / c.p) + c.frac * c.n * c.beta


def _barrier_recursive_doubling(c: Ctx) -> float:
    return c.lg * c.alpha(0)


def _barrier_linear(c: Ctx) -> float:
    return 2 * c.steps * c.alpha(0)


# operation -> algorithm name -> cost function. Thakur et al. 2005 section per entry in docs/model.md.
ALGORITHMS: dict[str, dict[str, Callable[[Ctx], float]]] = {
    "alltoall": {"bruck": _alltoall_bruck, "pairwise": _alltoall_pairwise,
                 "linear": _alltoall_pairwise, "linear_sync": _alltoall_pairwise},
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
    if ctx.p < 2:
        return 0.0
    return ALGORITHMS[op][algorithm](ctx)
