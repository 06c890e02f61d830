"""Fabric descriptions: load a fabrics/*.toml file, check it, and expose it as typed values.

A fabric file has the sections [fabric], [topology], [link], [memory] (optional for the mpi
engine), [protocol] and, depending on the engine, [mpi], [pgas] or [sort]; [compute] (optional)
gives the rates the virtual-clock replay charges annotated computation with; [replay] (optional)
names the [[sort.variant]] whose rates the replay uses (``sort_variant``, see replay_design);
[fft] and [gemm] (optional) describe how the papers' kernels run on the fabric (kernels.py).
``[fabric] base = "NAME"`` starts from another fabric file and replaces only the keys given
(a section's keys one by one, a sub-table's such as [mpi.algorithms] too, an array of tables as
a whole). The schema, key by key:
docs/model.md, "Fabric files". Every error names the file and the key, e.g.
``fabrics/x.toml: [link] bandwidth_gbps: must be > 0 (got -1)``.
"""
from __future__ import annotations

import copy
import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from meshmem.model.topology import Topology, make_topology

ENGINES = ("onestep", "mpi", "pgas")


class FabricError(ValueError):
    """A fabric file is missing, unreadable or inconsistent; the message names the file and key."""


@dataclass(frozen=True)
class Link:
    """One link: physical rate, protocol efficiency and per-hop start-up latency."""
    bandwidth_gbps: float
    efficiency: float
    hop_latency_s: float
    # rate of each direction while both carry data at once (every node sending and receiving:
    # all-to-all, all-gather); None: full duplex, each direction at bandwidth_gbps (the papers'
    # links). A link whose two ends share the CPUs that move the bytes (TCP between virtual
    # hosts of one machine) gives each direction less.
    duplex_bandwidth_gbps: float | None = None

    def _payload(self, gbps: float) -> float:
        """Effective payload rate in bytes per second of a raw rate of @p gbps."""
        return gbps * 1e9 * self.efficiency / 8.0

    @property
    def bytes_per_s(self) -> float:
        """Effective payload rate of one link in bytes per second."""
        return self._payload(self.bandwidth_gbps)

    @property
    def duplex_bytes_per_s(self) -> float:
        """Effective payload rate of each direction when both directions carry data at once."""
        return self._payload(self.bandwidth_gbps if self.duplex_bandwidth_gbps is None
                             else self.duplex_bandwidth_gbps)


@dataclass(frozen=True)
class Memory:
    """Memory of one node: M channels of W bytes at clock C."""
    channels: int
    channel_width_bytes: int
    clock_hz: float

    @property
    def bytes_per_s(self) -> float:
        """W * M * C: what one node can read (or write) per second over all channels."""
        return self.channels * self.channel_width_bytes * self.clock_hz


@dataclass(frozen=True)
class Protocol:
    """Eager/rendezvous switch and the synchronisation charged between dependent collectives."""
    eager_threshold_bytes: int
    rendezvous_extra_s: float
    sync_s: float
    # all-reduces of at most this many bytes run as one step (every vector to every rank, each
    # folds them), as meshmem's runtime does up to its eager size; 0: OPTWEB's reduce-scatter
    # then all-gather at every size (the papers' fabrics)
    allreduce_onestep_bytes: int = 0
    # the all-reduce above that size on a team that spans the y dimension (hosts): "aggressive"
    # (OPTWEB's reduce-scatter with the reduction in flight, then all-gather: the papers'
    # fabrics) or "naive" (all-to-all, a folding pass, all-gather: what meshmem's runtime runs on
    # a team that spans hosts); a team inside one x row always takes the aggressive form
    allreduce_form: str = "aggressive"
    # broadcasts of more than this many bytes on a team that spans the y dimension (hosts) go
    # in pieces, piece x down column x (what meshmem's runtime does across hosts above
    # 128 KiB: docs/collectives.md, "Pipelining"); 0: the root's row, then every column, at
    # every size (the papers' fabrics)
    bcast_pieces_bytes: int = 0


@dataclass(frozen=True)
class Compute:
    """The [compute] section: what a node computes per second, for the virtual-clock replay.

    An annotated interval (meshmem_model_compute) costs the slower of its memory traffic and
    its arithmetic; measured intervals cost their wall time times `measured_scale`. With
    `charge = "measured"` every interval costs its measured time, annotated or not: for a fabric
    that is the machine the trace was taken on (its cores ran the compute), where the
    annotations describe the papers' memory-streamed passes, not this CPU's."""
    memory_bytes_per_s: float
    flops_per_s: float
    read_write_overlap: bool
    measured_scale: float
    charge: str = "annotated"   # "annotated" or "measured"

    def seconds(self, bytes_read: float, bytes_written: float, flops: float) -> float:
        """Time of an annotated interval: reads and writes overlap (separate channels) or
        share the memory bandwidth; arithmetic overlaps memory traffic (a roofline)."""
        traffic = max(bytes_read, bytes_written) if self.read_write_overlap else bytes_read + bytes_written
        return max(traffic / self.memory_bytes_per_s, flops / self.flops_per_s)


@dataclass(frozen=True)
class SortVariant:
    """One design of the distributed counting sort (OPTWEB sort (IPSJ) Fig. 10)."""
    name: str
    passes_fixed: int
    passes_per_dimension: int
    exchanges_per_dimension: int
    clock_hz: float
    link_bytes_per_s: float


@dataclass(frozen=True)
class SortSpec:
    """The [sort] section: key size, measured pipeline efficiency and the design variants."""
    key_bytes: int
    pipeline_efficiency: float
    radix_bits_per_pass: int
    variants: tuple[SortVariant, ...]

    def variant(self, name: str) -> SortVariant:
        """The variant called `name`; KeyError listing the known names otherwise."""
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"no sort variant {name!r}; known: {', '.join(v.name for v in self.variants)}")


@dataclass(frozen=True)
class CpuSort:
    """[sort] of an mpi fabric: a CPU counting sort's local work per record and core."""
    key_bytes: int
    record_s_per_core: float


@dataclass(frozen=True)
class Fabric:
    """A checked fabric description."""
    name: str
    description: str
    engine: str
    path: str
    topology: Topology
    link: Link
    memory: Memory | None
    protocol: Protocol
    mpi: dict = field(default_factory=dict)
    pgas: dict = field(default_factory=dict)
    sort: SortSpec | None = None
    compute: Compute | None = None
    cpu_sort: CpuSort | None = None
    fft: dict = field(default_factory=dict)
    gemm: dict = field(default_factory=dict)
    raw: dict = field(default_factory=dict)
    link_y: Link | None = None

    @property
    def nodes(self) -> int:
        """Number of nodes (ranks) of the fabric."""
        return self.topology.nodes

    def link_of(self, axis: int) -> Link:
        """The links along a GHC axis: [link_y] for y (axis 1) when the file has one, else [link]
        (a cluster: x the ranks of one host, y the network between hosts)."""
        return self.link_y if axis == 1 and self.link_y is not None else self.link


# --- checking helpers -------------------------------------------------------------------------

def _where(path: str, section: str, key: str) -> str:
    return f"{path}: [{section}] {key}"


def _get(raw: dict, path: str, section: str, key: str, kind, *, positive=False, nonneg=False,
         at_most=None, default=None, required=True):
    table = raw.get(section)
    if not isinstance(table, dict):
        if required and default is None:
            raise FabricError(f"{path}: missing section [{section}]")
        return default
    if key not in table:
        if required and default is None:
            raise FabricError(f"{_where(path, section, key)}: missing (required)")
        return default
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise FabricError(f"{_where(path, section, key)}: must be {kind.__name__} (got {value!r})")
    if positive and not value > 0:
        raise FabricError(f"{_where(path, section, key)}: must be > 0 (got {value!r})")
    if nonneg and value < 0:
        raise FabricError(f"{_where(path, section, key)}: must be >= 0 (got {value!r})")
    if at_most is not None and value > at_most:
        raise FabricError(f"{_where(path, section, key)}: must be <= {at_most} (got {value!r})")
    return value


def _choice(raw: dict, path: str, section: str, key: str, choices: tuple, default: str) -> str:
    """An optional string value of @p key that must be one of @p choices."""
    value = _get(raw, path, section, key, str, default=default, required=False)
    if value not in choices:
        raise FabricError(f"{_where(path, section, key)}: must be one of "
                          f"{', '.join(repr(c) for c in choices)} (got {value!r})")
    return value


_KNOWN = {
    "fabric": {"name", "description", "engine", "base"},
    "topology": {"kind", "nodes", "kx", "ky", "doubled", "levels", "radix"},
    "link": {"bandwidth_gbps", "efficiency", "hop_latency_us", "duplex_bandwidth_gbps"},
    "link_y": {"bandwidth_gbps", "efficiency", "hop_latency_us", "duplex_bandwidth_gbps"},
    "memory": {"channels", "channel_width_bytes", "clock_mhz"},
    "protocol": {"eager_threshold_bytes", "rendezvous_extra_us", "sync_us",
                 "allreduce_onestep_bytes", "allreduce_form", "bcast_pieces_bytes"},
    "mpi": {"software_latency_us", "reduce_gbytes_per_s", "algorithms", "ranks_per_node",
            "alltoall_startup_us"},
    "pgas": {"long_message_extra_us", "packet_overhead_bytes", "default_packet_bytes"},
    "sort": {"key_bytes", "pipeline_efficiency", "radix_bits_per_pass", "variant", "record_ns_per_core"},
    "compute": {"memory_gbytes_per_s", "gflops", "read_write_overlap", "measured_scale",
                "charge"},
    "replay": {"sort_variant"},
    "fft": {"element_bytes", "rotations", "overlap_rotations"},
    "gemm": {"element_bytes", "matmul_overlap", "conv_exchange_at_end"},
}


def _check_known(raw: dict, path: str) -> None:
    for section, table in raw.items():
        if section not in _KNOWN:
            raise FabricError(f"{path}: unknown section [{section}] (known: {', '.join(_KNOWN)})")
        if isinstance(table, dict):
            for key in table:
                if key not in _KNOWN[section]:
                    raise FabricError(f"{_where(path, section, key)}: unknown key "
                                      f"(known: {', '.join(sorted(_KNOWN[section]))})")


def _load_cpu_sort(raw: dict, path: str) -> CpuSort | None:
    if "sort" not in raw:
        return None
    for k in raw["sort"]:
        if k not in ("key_bytes", "record_ns_per_core"):
            raise FabricError(f"{_where(path, 'sort', k)}: not a key of an mpi fabric's [sort] "
                              f"(known: key_bytes, record_ns_per_core)")
    return CpuSort(_get(raw, path, "sort", "key_bytes", int, positive=True),
                   _get(raw, path, "sort", "record_ns_per_core", float, positive=True) * 1e-9)


def _flag(raw: dict, path: str, section: str, key: str, default: bool) -> bool:
    value = raw.get(section, {}).get(key, default)
    if not isinstance(value, bool):
        raise FabricError(f"{_where(path, section, key)}: must be true or false (got {value!r})")
    return value


def _load_fft(raw: dict, path: str) -> dict:
    if "fft" not in raw:
        return {}
    return {"element_bytes": _get(raw, path, "fft", "element_bytes", int, positive=True),
            "rotations": _get(raw, path, "fft", "rotations", int, positive=True),
            "overlap_rotations": _flag(raw, path, "fft", "overlap_rotations", False)}


def _load_gemm(raw: dict, path: str) -> dict:
    if "gemm" not in raw:
        return {}
    return {"element_bytes": _get(raw, path, "gemm", "element_bytes", int, positive=True),
            "matmul_overlap": _flag(raw, path, "gemm", "matmul_overlap", False),
            "conv_exchange_at_end": _flag(raw, path, "gemm", "conv_exchange_at_end", True)}


def _load_sort(raw: dict, path: str) -> SortSpec | None:
    if "sort" not in raw:
        return None
    key_bytes = _get(raw, path, "sort", "key_bytes", int, positive=True)
    eff = _get(raw, path, "sort", "pipeline_efficiency", float, positive=True, at_most=1.0)
    bits = _get(raw, path, "sort", "radix_bits_per_pass", int, positive=True)
    items = raw["sort"].get("variant", [])
    if not isinstance(items, list) or not items:
        raise FabricError(f"{_where(path, 'sort', 'variant')}: need at least one [[sort.variant]]")
    variants = []
    for i, item in enumerate(items):
        sub = {"sort.variant": item}
        sec = "sort.variant"
        where = f"{path}: [[sort.variant]] #{i + 1}"
        for k in item:
            if k not in {"name", "passes_fixed", "passes_per_dimension", "exchanges_per_dimension",
                         "clock_mhz", "link_gbytes_per_s"}:
                raise FabricError(f"{where} {k}: unknown key")
        fixed = _get(sub, path, sec, "passes_fixed", int, nonneg=True)
        per_dim = _get(sub, path, sec, "passes_per_dimension", int, positive=True)
        variants.append(SortVariant(
            name=_get(sub, path, sec, "name", str),
            passes_fixed=fixed,
            passes_per_dimension=per_dim,
            exchanges_per_dimension=_get(sub, path, sec, "exchanges_per_dimension", int, positive=True),
            clock_hz=_get(sub, path, sec, "clock_mhz", float, positive=True) * 1e6,
            link_bytes_per_s=_get(sub, path, sec, "link_gbytes_per_s", float, positive=True) * 1e9,
        ))
    return SortSpec(key_bytes, eff, bits, tuple(variants))


def _load_compute(raw: dict, path: str) -> Compute | None:
    if "compute" not in raw:
        return None
    overlap = _flag(raw, path, "compute", "read_write_overlap", False)
    return Compute(
        memory_bytes_per_s=_get(raw, path, "compute", "memory_gbytes_per_s", float, positive=True) * 1e9,
        flops_per_s=_get(raw, path, "compute", "gflops", float, positive=True) * 1e9,
        read_write_overlap=overlap,
        measured_scale=_get(raw, path, "compute", "measured_scale", float, nonneg=True, default=1.0,
                            required=False),
        charge=_choice(raw, path, "compute", "charge", ("annotated", "measured"), "annotated"),
    )


def _check_mpi(raw: dict, path: str) -> dict:
    from meshmem.model import mpi  # late import: mpi imports nothing from here
    table = raw.get("mpi")
    if not isinstance(table, dict):
        raise FabricError(f"{path}: engine 'mpi' needs a [mpi] section")
    out = {
        "software_latency_s": _get(raw, path, "mpi", "software_latency_us", float, nonneg=True) * 1e-6,
        "reduce_bytes_per_s": _get(raw, path, "mpi", "reduce_gbytes_per_s", float, positive=True) * 1e9,
        "ranks_per_node": _get(raw, path, "mpi", "ranks_per_node", int, positive=True, default=1,
                               required=False),
        "alltoall_startup_s": _get(raw, path, "mpi", "alltoall_startup_us", float, nonneg=True,
                                   default=0.0, required=False) * 1e-6,
        "algorithms": {},
    }
    algs = table.get("algorithms")
    if not isinstance(algs, dict) or not algs:
        raise FabricError(f"{_where(path, 'mpi', 'algorithms')}: missing table [mpi.algorithms]")
    for op, rules in algs.items():
        where = f"{path}: [mpi.algorithms] {op}"
        if op not in mpi.ALGORITHMS:
            raise FabricError(f"{where}: unknown operation (known: {', '.join(sorted(mpi.ALGORITHMS))})")
        if not isinstance(rules, list) or not rules:
            raise FabricError(f"{where}: must be a non-empty list of {{below_bytes, algorithm}}")
        parsed = []
        for j, rule in enumerate(rules):
            name = rule.get("algorithm") if isinstance(rule, dict) else None
            if name not in mpi.ALGORITHMS[op]:
                raise FabricError(f"{where}: entry {j + 1}: algorithm {name!r} unknown for {op} "
                                  f"(known: {', '.join(sorted(mpi.ALGORITHMS[op]))})")
            bound = rule.get("below_bytes")
            if bound is None and j != len(rules) - 1:
                raise FabricError(f"{where}: entry {j + 1}: only the last entry may omit below_bytes")
            if bound is not None and (not isinstance(bound, int) or bound <= 0):
                raise FabricError(f"{where}: entry {j + 1}: below_bytes must be a positive integer")
            parsed.append((bound, name))
        if parsed[-1][0] is not None:
            raise FabricError(f"{where}: the last entry must have no below_bytes (it covers all sizes)")
        out["algorithms"][op] = tuple(parsed)
    return out


def _check_pgas(raw: dict, path: str) -> dict:
    return {
        "long_message_extra_s": _get(raw, path, "pgas", "long_message_extra_us", float, nonneg=True) * 1e-6,
        "packet_overhead_bytes": _get(raw, path, "pgas", "packet_overhead_bytes", float, nonneg=True),
        "default_packet_bytes": _get(raw, path, "pgas", "default_packet_bytes", int, positive=True),
    }


def _load_link(raw: dict, path: str, section: str) -> Link:
    return Link(
        bandwidth_gbps=_get(raw, path, section, "bandwidth_gbps", float, positive=True),
        efficiency=_get(raw, path, section, "efficiency", float, positive=True, at_most=1.0),
        hop_latency_s=_get(raw, path, section, "hop_latency_us", float, nonneg=True) * 1e-6,
        # (not capped at bandwidth_gbps: a calibration on free cores may measure both ways at
        # one way's rate, give or take its noise)
        duplex_bandwidth_gbps=_get(raw, path, section, "duplex_bandwidth_gbps", float,
                                   positive=True, required=False),
    )


def fabric_from_dict(raw: dict, path: str = "<dict>") -> Fabric:
    """Check a parsed fabric table and build a Fabric; FabricError names `path` and the key."""
    _check_known(raw, path)
    engine = _get(raw, path, "fabric", "engine", str)
    if engine not in ENGINES:
        raise FabricError(f"{_where(path, 'fabric', 'engine')}: must be one of {', '.join(ENGINES)} "
                          f"(got {engine!r})")
    try:
        topo = make_topology(raw.get("topology") or {})
    except ValueError as e:
        raise FabricError(f"{path}: [topology] {e}") from None
    if engine == "onestep" and topo.kind not in ("full_mesh", "ghc"):
        raise FabricError(f"{_where(path, 'topology', 'kind')}: engine 'onestep' needs direct links "
                          f"(full_mesh or ghc), got {topo.kind!r}")
    link = _load_link(raw, path, "link")
    link_y = None
    if "link_y" in raw:
        if topo.kind != "ghc":
            raise FabricError(f"{path}: [link_y] is for a ghc topology's y links (got kind {topo.kind!r})")
        link_y = _load_link(raw, path, "link_y")
    memory = None
    if engine != "mpi" or "memory" in raw:
        memory = Memory(
            channels=_get(raw, path, "memory", "channels", int, positive=True),
            channel_width_bytes=_get(raw, path, "memory", "channel_width_bytes", int, positive=True),
            clock_hz=_get(raw, path, "memory", "clock_mhz", float, positive=True) * 1e6,
        )
    protocol = Protocol(
        eager_threshold_bytes=_get(raw, path, "protocol", "eager_threshold_bytes", int, nonneg=True),
        rendezvous_extra_s=_get(raw, path, "protocol", "rendezvous_extra_us", float, nonneg=True) * 1e-6,
        sync_s=_get(raw, path, "protocol", "sync_us", float, nonneg=True) * 1e-6,
        allreduce_onestep_bytes=_get(raw, path, "protocol", "allreduce_onestep_bytes", int,
                                     nonneg=True, default=0, required=False),
        allreduce_form=_choice(raw, path, "protocol", "allreduce_form", ("aggressive", "naive"),
                               "aggressive"),
        bcast_pieces_bytes=_get(raw, path, "protocol", "bcast_pieces_bytes", int, nonneg=True,
                                default=0, required=False),
    )
    sort = _load_sort(raw, path) if engine != "mpi" else None
    if "replay" in raw:
        name = _get(raw, path, "replay", "sort_variant", str)
        if sort is None:
            raise FabricError(f"{_where(path, 'replay', 'sort_variant')}: the fabric has no [sort]")
        try:
            sort.variant(name)
        except KeyError as e:
            raise FabricError(f"{_where(path, 'replay', 'sort_variant')}: {e.args[0]}") from None
    return Fabric(
        name=_get(raw, path, "fabric", "name", str),
        description=_get(raw, path, "fabric", "description", str, default="", required=False),
        engine=engine, path=path, topology=topo, link=link, memory=memory, protocol=protocol,
        mpi=_check_mpi(raw, path) if engine == "mpi" else {},
        pgas=_check_pgas(raw, path) if engine == "pgas" else {},
        sort=sort, compute=_load_compute(raw, path),
        cpu_sort=_load_cpu_sort(raw, path) if engine == "mpi" else None,
        fft=_load_fft(raw, path), gemm=_load_gemm(raw, path), raw=raw, link_y=link_y,
    )


def replay_design(fabric: Fabric) -> Fabric:
    """The fabric the replay charges with: unchanged, or, with `[replay] sort_variant = NAME`,
    the machine of that [[sort.variant]]: its link rate per link, and annotated memory traffic
    at W*M*C of its clock times [sort] pipeline_efficiency (OPTWEB sort (IPSJ) eq. 1 and the measured ~80 %),
    since each design of OPTWEB sort (IPSJ) Fig. 10 ran at its own clock and links."""
    name = fabric.raw.get("replay", {}).get("sort_variant")
    if name is None or fabric.sort is None or fabric.compute is None:
        return fabric
    v = fabric.sort.variant(name)
    m = fabric.memory
    memory = m.channels * m.channel_width_bytes * v.clock_hz * fabric.sort.pipeline_efficiency
    # the design's links are its own, full duplex (its duplex rate, if the file had one, was
    # the file's link's)
    link = dataclasses.replace(fabric.link,
                               bandwidth_gbps=v.link_bytes_per_s * 8 / 1e9 / fabric.link.efficiency,
                               duplex_bandwidth_gbps=None)
    compute = dataclasses.replace(fabric.compute, memory_bytes_per_s=memory)
    return dataclasses.replace(fabric, link=link, compute=compute)


def parse_override(text: str) -> tuple[str, str, object]:
    """Split 'section.key=value' into (section, key, value); the value is parsed as TOML."""
    if "=" not in text or "." not in text.split("=", 1)[0]:
        raise FabricError(f"override {text!r}: expected section.key=value, e.g. link.bandwidth_gbps=90")
    lhs, rhs = text.split("=", 1)
    section, key = lhs.strip().rsplit(".", 1)
    try:
        value = tomllib.loads(f"v = {rhs.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = rhs.strip()
    return section, key, value


def _read_toml(p: Path) -> dict:
    try:
        text = p.read_text()
    except OSError as e:
        raise FabricError(f"{p}: cannot read fabric file ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise FabricError(f"{p}: not a fabric file: not UTF-8 text (byte {e.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FabricError(f"{p}: not valid TOML: {e}") from None


def _merge(base: dict, own: dict) -> dict:
    """Tables of `own` replace those of `base` key by key, sub-tables too (`[mpi.algorithms]`
    rule by rule: a file for 64 ranks changes only the operations whose rule differs); any
    other value, an array of tables included, as a whole."""
    out = copy.deepcopy(base)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _base_path(p: Path, raw: dict) -> Path | None:
    """The file `[fabric] base` names (beside p, or in fabrics/), or None without a base."""
    base = raw.get("fabric", {}).get("base")
    if base is None:
        return None
    if not isinstance(base, str):
        raise FabricError(f"{_where(str(p), 'fabric', 'base')}: must be a fabric name or file (got {base!r})")
    candidates = (p.parent / base, p.parent / f"{base}.toml", resolve_fabric_path(base))
    found = next((c for c in candidates if c.exists()), None)
    if found is None:
        raise FabricError(f"{_where(str(p), 'fabric', 'base')}: no fabric file {base!r}")
    return found


def base_chain(path: str | Path) -> list[Path]:
    """The fabric file and every file it builds on through `[fabric] base`, nearest first."""
    chain = [Path(path)]
    while (nxt := _base_path(chain[-1], _read_toml(chain[-1]))) is not None:
        if nxt.resolve() in {c.resolve() for c in chain}:
            raise FabricError(f"{chain[0]}: [fabric] base: files form a cycle")
        chain.append(nxt)
    return chain


def load_raw(path: str | Path, mutate=None, _seen: tuple = ()) -> dict:
    """The parsed fabric table with its `[fabric] base` chain merged in. `mutate(path, raw)` may
    change each file's own table as it is read (a base's changes reach every file built on it)."""
    p = Path(path)
    if str(p.resolve()) in _seen:
        raise FabricError(f"{p}: [fabric] base: files form a cycle ({' -> '.join(_seen)})")
    raw = _read_toml(p)
    if mutate is not None:
        mutate(str(p), raw)
    base_path = _base_path(p, raw)
    if base_path is None:
        return raw
    merged = _merge(load_raw(base_path, mutate, _seen + (str(p.resolve()),)), raw)
    del merged["fabric"]["base"]
    return merged


def load_fabric(path: str | Path, overrides: list[str] | tuple[str, ...] = (), mutate=None) -> Fabric:
    """Read and check a fabric file; `overrides` ('link.bandwidth_gbps=90', ...) replace values first;
    `mutate` as in load_raw (the sensitivity analysis scales one value of one file with it)."""
    raw = load_raw(path, mutate)
    for ov in overrides:
        section, key, value = parse_override(ov)
        raw.setdefault(section, {})[key] = value
    return fabric_from_dict(raw, str(Path(path)))


def fabrics_dir() -> Path:
    """The fabrics/ directory (the checkout's, or the installed package's copy)."""
    from meshmem.paths import fabrics_dir as where
    return where()


def resolve_fabric_path(name: str) -> Path:
    """A path as given, or a bare fabric name looked up in fabrics/ (with or without .toml)."""
    if not isinstance(name, str):  # argparse leaves [] for --fabric=-- (it drops the "--")
        raise FabricError("--fabric: no fabric file given")
    p = Path(name)
    if p.exists():
        return p
    for cand in (fabrics_dir() / name, fabrics_dir() / f"{name}.toml"):
        if cand.exists():
            return cand
    return p
