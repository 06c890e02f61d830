"""Topologies: full mesh, 2-D generalized hypercube (GHC), single switch, tree and 2-D torus.

A topology answers: how many nodes, what degree, which mesh dimensions a group of ranks spans
(for one-step collectives), and how many hops separate two ranks (for start-up latency).
"""
from __future__ import annotations

from dataclasses import dataclass

KINDS = ("full_mesh", "ghc", "switch", "tree", "torus2d")


@dataclass(frozen=True)
class Dimension:
    """One fully connected dimension: `size` nodes per group, `links` parallel links per node pair,
    `axis` 0 (x) or 1 (y): a GHC's y links may be another technology (fabric.Fabric.link_of)."""
    size: int
    links: int = 1
    axis: int = 0

    @property
    def degree(self) -> int:
        """Neighbours of a node along this dimension."""
        return self.size - 1


@dataclass(frozen=True)
class Topology:
    """A checked topology. `dims` is the list of fully connected dimensions (empty for switch,
    tree and torus, whose links are not one per peer)."""
    kind: str
    nodes: int
    dims: tuple[Dimension, ...] = ()
    kx: int = 0
    ky: int = 0
    levels: int = 1
    radix: int = 0

    @property
    def degree(self) -> int:
        """Links per node to distinct neighbours (the x axis of OPTWEB (JOCN 2022) Figs 12 and 19)."""
        if self.kind in ("full_mesh", "ghc"):
            return sum(d.degree for d in self.dims)
        if self.kind == "torus2d":
            return sum(2 if k > 2 else (1 if k == 2 else 0) for k in (self.kx, self.ky))
        return 1

    def coords(self, rank: int) -> tuple[int, int]:
        """(x, y) label of a rank on a GHC or torus (x varies fastest)."""
        k = self.kx or self.nodes
        return rank % k, rank // k

    def hops(self, a: int, b: int) -> int:
        """Shortest path length in links between ranks a and b (a switch counts as one hop)."""
        if a == b:
            return 0
        if self.kind == "full_mesh":
            return 1
        if self.kind == "ghc":
            (ax, ay), (bx, by) = self.coords(a), self.coords(b)
            return (ax != bx) + (ay != by)
        if self.kind == "switch":
            return 1
        if self.kind == "tree":
            # radix-ary tree of switches with nodes at the leaves: up to the common ancestor and down
            span, level = self.radix, 1
            while a // span != b // span and level < self.levels:
                span *= self.radix
                level += 1
            return 2 * level - 1
        (ax, ay), (bx, by) = self.coords(a), self.coords(b)
        dx, dy = abs(ax - bx), abs(ay - by)
        return min(dx, self.kx - dx) + min(dy, self.ky - dy)

    def hop_axes(self, a: int, b: int) -> tuple[int, ...]:
        """The axis (0 x, 1 y) of each hop of the route between ranks a and b, x first, as
        route_links; off a GHC every hop is on axis 0."""
        if self.kind == "ghc" and a != b:
            (ax, ay), (bx, by) = self.coords(a), self.coords(b)
            return (0,) * (ax != bx) + (1,) * (ay != by)
        return (0,) * self.hops(a, b)

    def route_links(self, a: int, b: int) -> tuple:
        """The links a transfer between ranks a and b occupies (for the replay's link sharing).

        Full mesh: the pair's own link. GHC: the link of each hop, x first then y (hops()'s
        route). Switch, tree, torus: the node's own link into the network (a rank's transfers
        all share it; the links inside the network are not modelled). A link is named by the
        pair of nodes it joins, (lower, higher), or ("node", a) for a node's link."""
        if a == b:
            return ()
        if self.kind == "full_mesh":
            return ((min(a, b), max(a, b)),)
        if self.kind == "ghc":
            (ax, ay), (bx, by) = self.coords(a), self.coords(b)
            path = [a]
            if ax != bx:
                path.append(bx + ay * self.kx)
            if ay != by:
                path.append(b)
            return tuple((min(u, v), max(u, v)) for u, v in zip(path, path[1:]))
        return (("node", a),)

    def average_hops(self) -> float:
        """Mean hops over all ordered pairs of distinct ranks (closed forms; no O(N^2) loop)."""
        n = self.nodes
        if n < 2:
            return 0.0
        if self.kind in ("full_mesh", "switch"):
            return 1.0
        if self.kind == "ghc":
            kx, ky = self.kx, self.ky
            # pairs differing in x only, y only, both
            one = (kx - 1) + (ky - 1)
            two = (kx - 1) * (ky - 1)
            return (one + 2 * two) / (n - 1)
        if self.kind == "tree":
            total, counted, span, level = 0.0, 0, 1, 0
            while level < self.levels:
                level += 1
                inner = min(span * self.radix, n)
                others = inner - span if level > 1 else inner - 1
                total += others * (2 * level - 1)
                counted += others
                span = inner
            return total / counted if counted else 1.0

        def ring_mean(k):
            return sum(min(d, k - d) for d in range(k)) / k

        return (ring_mean(self.kx) + ring_mean(self.ky)) * n / (n - 1)

    def spanned_dims(self, ranks) -> tuple[Dimension, ...]:
        """Mesh dimensions a collective over `ranks` (None = all) must step through, in order x, y.

        On a GHC a group lying in one row uses only the x dimension, with its own group size."""
        if self.kind == "full_mesh":
            k = self.nodes if ranks is None else len(set(ranks))
            return (Dimension(k, self.dims[0].links),)
        if self.kind != "ghc":
            raise ValueError(f"topology {self.kind} has no fully connected dimensions")
        if ranks is None:  # a dimension of one node (a GHC 1 x ky) takes no step
            return tuple(d for d in self.dims if d.size > 1) or (Dimension(1, 1),)
        xs = {self.coords(r)[0] for r in ranks}
        ys = {self.coords(r)[1] for r in ranks}
        out = []
        if len(xs) > 1:
            out.append(Dimension(len(xs), self.dims[0].links))
        if len(ys) > 1:
            out.append(Dimension(len(ys), self.dims[1].links, axis=1))
        return tuple(out) or (Dimension(1, 1),)


def _int(table: dict, key: str, minimum: int = 1) -> int:
    v = table.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise ValueError(f"{key}: must be an integer >= {minimum} (got {v!r})")
    return v


def make_topology(table: dict) -> Topology:
    """Build a Topology from a [topology] table; ValueError names the offending key."""
    kind = table.get("kind")
    if kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)} (got {kind!r})")
    if kind == "full_mesh":
        n = _int(table, "nodes", 2)
        return Topology(kind, n, (Dimension(n),))
    if kind == "ghc":
        kx, ky = _int(table, "kx", 1), _int(table, "ky", 1)  # 1 x ky: one rank per host
        if kx * ky < 2:
            raise ValueError(f"kx * ky: must be at least 2 (got {kx} x {ky})")
        doubled = table.get("doubled", "none")
        if doubled not in ("none", "x", "y"):
            raise ValueError(f"doubled: must be 'none', 'x' or 'y' (got {doubled!r})")
        if "nodes" in table and table["nodes"] != kx * ky:
            raise ValueError(f"nodes: {table['nodes']} does not equal kx * ky = {kx * ky}")
        dims = (Dimension(kx, 2 if doubled == "x" else 1), Dimension(ky, 2 if doubled == "y" else 1, axis=1))
        return Topology(kind, kx * ky, dims, kx=kx, ky=ky)
    if kind == "switch":
        return Topology(kind, _int(table, "nodes", 2))
    if kind == "tree":
        n, radix = _int(table, "nodes", 2), _int(table, "radix", 2)
        levels = 1
        while radix ** levels < n:
            levels += 1
        if "levels" in table and table["levels"] < levels:
            raise ValueError(f"levels: {table['levels']} levels of radix {radix} cannot hold {n} nodes")
        return Topology(kind, n, levels=table.get("levels", levels), radix=radix)
    kx, ky = _int(table, "kx", 2), _int(table, "ky", 1)
    return Topology(kind, kx * ky, kx=kx, ky=ky)
