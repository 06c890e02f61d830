"""Virtual-clock replay of a traced run (meshrun --fabric): what would the program take on the fabric?

The runtime writes one line per communication call (format: src/core/mm_trace.h); this module
advances one virtual clock per rank through them, charging every call with the model's cost
(ops.cost, the one model) and every interval between calls with its annotated compute (the
fabric's [compute] rates) or its measured wall time times a scale (every interval, annotated or
not, when the fabric's [compute] says `charge = "measured"`: a fabric that describes the machine
the trace was taken on):

- put, signal, AMO, active message: the unicast cost over the route's hops (full mesh 1, GHC up
  to 2; eager or rendezvous start-up by the fabric's threshold). The calls are blocking in
  meshmem: the rank waits for each (its clock moves to the call's end); the store arrives when
  the call ends. get and fetching AMOs: the get cost (a request travels first).
- direct loads/stores through meshmem_ptr annotated with meshmem_model_transfer ("xfer"): the
  bytes written into a peer cost a put, those read from it a get (the same code as the calls),
  and the write is a store that the peer's later waits depend on. The annotation does not end
  the compute interval: the interval's annotated compute so far is charged first.
- links, not ranks: consecutive xfer records (nothing else between them) form a batch that
  starts at the rank's clock; each transfer occupies the links of its route
  (Topology.route_links: full mesh the pair's link, GHC the link of each hop, switch, tree and
  torus the node's own link) and starts when they are free, so transfers on different links
  overlap and those sharing a link serialize on it. The rank's clock moves to the batch's
  latest completion at its next record of another kind (or its end); a wait on one of the
  batch's stores sees that transfer's own completion. Links are a rank's own: transfers of
  different ranks do not contend.
- wait (or a test that succeeded): the clock moves to the arrival of the latest store it
  depended on (the event counters of the trace), never back.
- collective: every member starts at the latest entry clock of the team, then pays
  cost(op, L, team).
- phases: the time each rank spends in a phase, split into compute, communication and waiting.
- the phase named "setup" (SETUP_PHASE) is the program's own preparation and checking (data
  generation, verification, timing): its unannotated intervals cost nothing (they are host work
  the modelled machine would not do), its calls are charged as usual, and the predicted total
  leaves it out: max over ranks of (end clock - time in setup). Its row is still reported.
- critical path: from the rank that ends last, the chain of events that set each clock.
- a fabric with `[replay] sort_variant = NAME` (meshmem sort --fabric adds it for the design
  being run) is replayed at that [[sort.variant]]'s rates: its link rate, and annotated memory
  traffic at W*M*C of its clock times [sort] pipeline_efficiency (fabric.replay_design).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from meshmem.model.fabric import Fabric, replay_design
from meshmem.model.ops import ModelError, cost, operations

# collectives of the runtime without a formula of their own on some engine: the model op used
FALLBACK_OPS = {"reduce": "allreduce", "team_sync": "barrier"}
STORE_OPS = ("put", "signal", "amo", "famo", "am")
ROUND_TRIP_OPS = ("get", "famo")
SETUP_PHASE = "setup"  # left out of the predicted total; unannotated compute in it is free


class ReplayError(ValueError):
    """A trace that cannot be replayed (missing, malformed, inconsistent) or a fabric too small."""


@dataclass
class Event:
    """One stretch of a rank's virtual time: compute, a communication call, or waiting."""
    rank: int
    kind: str          # compute, comm, wait
    label: str         # the op or the phase
    start: float
    end: float
    pred: Event | None = None
    phase: str = "main"


@dataclass
class RankState:
    records: list
    pos: int = 0
    clock: float = 0.0
    phase: str = "main"
    annotations: list = field(default_factory=list)
    charged: bool = False     # the interval before records[pos] is already on the clock
    annotated: bool = False   # this interval's annotations were charged (before an xfer)
    registered: bool = False  # waiting inside a collective for the other members
    last: Event | None = None
    batch: Batch | None = None  # the xfer records issued together, not yet on the clock
    # charge = "measured": direct stores of this interval, (peer, event), which arrive when the
    # interval (whose measured time includes them) is on the clock
    stored: list = field(default_factory=list)
    coll_seen: dict = field(default_factory=lambda: defaultdict(int))


@dataclass
class Batch:
    """Transfers started together at `start`: when each link is free again and by what."""
    start: float
    pred: Event | None
    free: dict = field(default_factory=dict)    # link -> (end, event that occupied it last)
    events: list = field(default_factory=list)


@dataclass
class ReplayResult:
    """Predicted total, per-rank end clocks, per-phase times and the critical path."""
    fabric: str
    nranks: int
    total_s: float
    rank_end_s: list
    phases: dict
    critical_path: list
    compute_scale: float
    setup_s: float = 0.0     # the longest any rank spent in the setup phase (not in total_s)

    def as_dict(self) -> dict:
        """Plain dict for JSON output."""
        return {"fabric": self.fabric, "ranks": self.nranks, "predicted_s": self.total_s,
                "rank_end_s": self.rank_end_s, "phases": self.phases,
                "critical_path": self.critical_path, "compute_scale": self.compute_scale,
                "setup_s": self.setup_s, "excluded_phases": [SETUP_PHASE]}


def _parse_line(path: Path, lineno: int, line: str) -> tuple:
    f = line.split()
    try:
        if f[0] == "p2p":
            return ("p2p", f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]))
        if f[0] == "coll":
            return ("coll", f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]))
        if f[0] == "wait":
            deps = [tuple(int(x) for x in d.split(":")) for d in f[3:]]
            return ("wait", int(f[1]), deps)
        if f[0] == "compute":
            return ("compute", int(f[1]), int(f[2]), int(f[3]))
        if f[0] == "xfer":
            return ("xfer", int(f[1]), int(f[2]), int(f[3]), int(f[4]))
        if f[0] == "phase":
            return ("phase", int(f[1]), f[2])
    except (IndexError, ValueError):
        pass
    raise ReplayError(f"{path}:{lineno}: not a trace record: {line.strip()!r}")


def read_traces(trace_dir: str | Path) -> list[list[tuple]]:
    """The records of every rank-R.trace in `trace_dir`, indexed by rank."""
    d = Path(trace_dir)
    files = sorted(d.glob("rank-*.trace"), key=lambda p: int(p.stem.split("-")[1]))
    if not files:
        raise ReplayError(f"{d}: no rank-*.trace files (was the program run with meshrun --fabric?)")
    out = []
    nranks = None
    for r, p in enumerate(files):
        lines = p.read_text().splitlines()
        head = lines[0].split() if lines else []
        if len(head) != 6 or head[0] != "meshmem-trace" or head[1] != "1" or int(head[3]) != r:
            raise ReplayError(f"{p}: not a meshmem trace of rank {r} (header {lines[:1]})")
        nranks = nranks or int(head[5])
        out.append([_parse_line(p, i + 2, ln) for i, ln in enumerate(lines[1:]) if ln.strip()])
    if len(out) != nranks:
        raise ReplayError(f"{d}: {len(out)} trace files for a job of {nranks} ranks")
    return out


class Replay:
    """Advance the ranks' clocks through their records; see the module docstring."""

    def __init__(self, fabric: Fabric, traces: list[list[tuple]], compute_scale: float | None = None):
        if len(traces) > fabric.nodes:
            raise ReplayError(f"{fabric.path}: the job has {len(traces)} ranks but the fabric has "
                              f"{fabric.nodes} nodes")
        fabric = replay_design(fabric)
        self.fabric = fabric
        default = fabric.compute.measured_scale if fabric.compute else 1.0
        self.scale = default if compute_scale is None else compute_scale
        self.measured_compute = fabric.compute is not None and fabric.compute.charge == "measured"
        if not self.scale >= 0:
            raise ReplayError(f"compute scale must be >= 0 (got {self.scale})")
        self.ranks = [RankState(t) for t in traces]
        self.arrivals: dict[tuple[int, int, int], Event] = {}
        self.colls: dict[tuple, dict[int, tuple]] = {}
        self.phase_time: dict[str, list[dict]] = {}
        self._cost_cache: dict[tuple, float] = {}

    # --- costs from the model -----------------------------------------------------------------

    def _op_seconds(self, op: str, nbytes: float, ranks=None, **opts) -> float:
        key = (op, nbytes, tuple(ranks) if ranks else None, tuple(sorted(opts.items())))
        if key not in self._cost_cache:
            model_op = op if op in operations(self.fabric) else FALLBACK_OPS.get(op, op)
            self._cost_cache[key] = cost(self.fabric, model_op, nbytes, ranks, **opts).seconds
        return self._cost_cache[key]

    def _p2p_seconds(self, op: str, nbytes: int, src: int, dst: int) -> float:
        if src == dst:
            return 0.0  # a rank's own memory: no link
        kind = "get" if op in ROUND_TRIP_OPS else "put"
        return self._op_seconds(kind, nbytes, None, src=src, dst=dst)

    def _compute_seconds(self, st: RankState, gap_ns: int) -> float:
        if self.measured_compute:
            # the fabric is the machine the trace was taken on: every interval its own time
            return 0.0 if st.phase == SETUP_PHASE else gap_ns * 1e-9 * self.scale
        if st.annotations:
            c = self.fabric.compute
            if c is None:
                raise ReplayError(f"{self.fabric.path}: the program annotates its compute "
                                  f"(meshmem_model_compute) but the fabric has no [compute] section")
            return sum(c.seconds(r, w, f) for r, w, f in st.annotations)
        if st.annotated or st.phase == SETUP_PHASE:
            # annotated before an xfer (its measured time is not charged twice), or the
            # program's own preparation and checks: not the modelled machine's
            return 0.0
        return gap_ns * 1e-9 * self.scale

    # --- clock bookkeeping ----------------------------------------------------------------------

    def _add(self, r: int, kind: str, label: str, start: float, end: float, pred=None) -> Event:
        st = self.ranks[r]
        ev = Event(r, kind, label, start, end, pred if pred is not None else st.last, st.phase)
        st.last = ev
        st.clock = end
        table = self.phase_time.setdefault(st.phase, [defaultdict(float) for _ in self.ranks])
        table[r][kind] += end - start
        return ev

    def _charge_interval(self, r: int, gap_ns: int) -> None:
        st = self.ranks[r]
        if st.charged:
            return
        t = self._compute_seconds(st, gap_ns)
        st.annotations = []
        st.charged = True
        if t > 0:
            self._add(r, "compute", st.phase, st.clock, st.clock + t)
        self._land_stored(r)

    def _land_stored(self, r: int) -> None:
        """charge = "measured": the interval's direct stores arrive at its end."""
        st = self.ranks[r]
        for peer, event in st.stored:
            self.arrivals[(r, peer, event)] = Event(r, "compute", "direct-store", st.clock,
                                                    st.clock, st.last, st.phase)
        st.stored = []

    def _next(self, r: int) -> None:
        st = self.ranks[r]
        st.pos += 1
        st.charged = False
        st.annotated = False

    # --- one record -------------------------------------------------------------------------------

    def _step(self, r: int) -> bool:
        """Advance rank r by one record; False when it must wait for another rank."""
        st = self.ranks[r]
        rec = st.records[st.pos]
        kind = rec[0]
        if kind != "xfer":
            self._close_batch(r)
        if kind == "compute":
            st.annotations.append(rec[1:])
            st.pos += 1
            return True
        if kind == "xfer":
            self._transfer(r, rec)
            st.pos += 1  # not the end of the interval: like a compute annotation
            return True
        if kind == "phase":
            self._charge_interval(r, rec[1])
            st.phase = rec[2]
            self._next(r)
            return True
        if kind == "p2p":
            _, op, gap, nbytes, peer, event = rec
            self._charge_interval(r, gap)
            t = self._p2p_seconds(op, nbytes, r, peer)
            ev = self._add(r, "comm", op, st.clock, st.clock + t)
            if op in STORE_OPS and event > 0:
                self.arrivals[(r, peer, event)] = ev
            self._next(r)
            return True
        if kind == "wait":
            _, gap, deps = rec
            self._charge_interval(r, gap)
            latest = None
            for src, k in deps:
                ev = self.arrivals.get((src, r, k))
                if ev is None:
                    return False  # the store has not been replayed yet
                if latest is None or ev.end > latest.end:
                    latest = ev
            if latest is not None and latest.end > st.clock:
                self._add(r, "wait", "wait", st.clock, latest.end, pred=latest)
            self._next(r)
            return True
        return self._collective(r, rec)

    def _transfer(self, r: int, rec: tuple) -> None:
        """Direct stores into / loads from a peer: a put and a get, as the calls would be."""
        st = self.ranks[r]
        _, to_pe, from_pe, peer, event = rec
        if peer < 0 or peer >= len(self.ranks):
            raise ReplayError(f"rank {r}: transfer annotation with rank {peer}, not in the job")
        if self.measured_compute:
            # the loads and stores ran inside the interval and its measured time holds them: no
            # modelled transfer, and the stores arrive when the interval ends
            if to_pe > 0 and event > 0:
                st.stored.append((peer, event))
            return
        if st.annotations:  # the pass annotated so far comes first (no batch is open: a
            t = self._compute_seconds(st, 0)  # compute record closed it)
            st.annotations = []
            st.annotated = True
            if t > 0:
                self._add(r, "compute", st.phase, st.clock, st.clock + t)
        if st.batch is None:
            st.batch = Batch(st.clock, st.last)
        if to_pe > 0:
            ev = self._start_transfer(r, "put", to_pe, peer)
            if event > 0:
                self.arrivals[(r, peer, event)] = ev
        if from_pe > 0:
            self._start_transfer(r, "get", from_pe, peer)

    def _start_transfer(self, r: int, op: str, nbytes: int, peer: int) -> Event:
        """One transfer of the open batch: on its route's links, once they are free."""
        st = self.ranks[r]
        b = st.batch
        t = self._p2p_seconds(op, nbytes, r, peer)
        links = self.fabric.topology.route_links(r, peer)
        start, pred = b.start, b.pred
        for link in links:
            end, ev = b.free.get(link, (0.0, None))
            if end > start:
                start, pred = end, ev
        ev = Event(r, "comm", f"direct-{op}", start, start + t, pred, st.phase)
        for link in links:
            b.free[link] = (ev.end, ev)
        b.events.append(ev)
        return ev

    def _close_batch(self, r: int) -> None:
        """The rank's clock moves to the open batch's latest completion."""
        st = self.ranks[r]
        b, st.batch = st.batch, None
        if b is None or not b.events:
            return
        last = max(b.events, key=lambda e: e.end)
        table = self.phase_time.setdefault(st.phase, [defaultdict(float) for _ in self.ranks])
        table[r]["comm"] += last.end - b.start
        st.last = last
        st.clock = max(st.clock, last.end)

    def _collective(self, r: int, rec: tuple) -> bool:
        st = self.ranks[r]
        _, op, gap, nbytes, start, stride, size = rec
        self._charge_interval(r, gap)
        team = tuple(start + i * stride for i in range(size))
        if not st.registered:
            n = st.coll_seen[team]
            st.coll_seen[team] += 1
            st.registered = True
            self.colls.setdefault((team, n), {})[r] = (st.clock, op, nbytes, st.last)
            key = (team, n)
            entries = self.colls[key]
            if len(entries) < len(team):
                return False
            self._complete(key, team, entries)
            del self.colls[key]
        return not self.ranks[r].registered

    def _complete(self, key, team, entries) -> None:
        ops = {e[1] for e in entries.values()}
        if len(ops) != 1:
            raise ReplayError(f"collective #{key[1]} on ranks {list(team)}: the members called "
                              f"different operations ({', '.join(sorted(ops))})")
        op = ops.pop()
        nbytes = max(e[2] for e in entries.values())
        t0 = max(e[0] for e in entries.values())
        last_in = max(entries, key=lambda m: entries[m][0])
        c = self._op_seconds(op, nbytes, list(team)) if len(team) > 1 else 0.0
        for m in team:
            st = self.ranks[m]
            entry = entries[m][0]
            pred = entries[last_in][3] if m != last_in and t0 > entry else None
            if t0 > entry:
                pred = self._add(m, "wait", f"{op}-sync", entry, t0, pred=pred)
            self._add(m, "comm", op, t0, t0 + c, pred=pred)
            st.registered = False
            self._next(m)

    # --- the whole run ------------------------------------------------------------------------------

    def run(self) -> ReplayResult:
        """Replay every rank to its end; ReplayError when the traces cannot all complete."""
        while True:
            progress = False
            for r, st in enumerate(self.ranks):
                while st.pos < len(st.records) and not st.registered:
                    if not self._step(r):
                        break
                    progress = True
                if st.pos >= len(st.records):
                    self._close_batch(r)  # the end of the trace ends an open batch
                    self._land_stored(r)
            if all(st.pos >= len(st.records) for st in self.ranks):
                break
            if not progress:
                stuck = [f"rank {r} at record {st.pos + 1} ({st.records[st.pos][0]} "
                         f"{st.records[st.pos][1]})" for r, st in enumerate(self.ranks)
                         if st.pos < len(st.records)]
                raise ReplayError("the traces cannot be replayed to the end: " + "; ".join(stuck))
        return self._result()

    def _result(self) -> ReplayResult:
        ends = [st.clock for st in self.ranks]
        setup = [sum(d.values()) for d in self.phase_time.get(SETUP_PHASE, [{}] * len(ends))]
        # a rank's time in setup (its waits there included) is not the program's predicted time
        total = max((e - s for e, s in zip(ends, setup)), default=0.0)
        phases = {}
        for name, per_rank in self.phase_time.items():
            totals = [sum(d.values()) for d in per_rank]
            worst = max(range(len(totals)), key=lambda i: totals[i])
            phases[name] = {"max_rank": worst, "seconds": totals[worst],
                            "compute_s": per_rank[worst]["compute"],
                            "comm_s": per_rank[worst]["comm"], "wait_s": per_rank[worst]["wait"],
                            "mean_s": sum(totals) / len(totals)}
        last = max(range(len(ends)), key=lambda i: ends[i]) if ends else 0
        return ReplayResult(self.fabric.name, len(self.ranks), total, ends, phases,
                            critical_path(self.ranks[last].last if self.ranks else None),
                            self.scale, max(setup, default=0.0))


def critical_path(last: Event | None) -> list[dict]:
    """The chain of events that set the final clock, earliest first; runs of the same rank and
    kind and label merge into one step."""
    chain = []
    ev = last
    while ev is not None:
        chain.append(ev)
        ev = ev.pred
    chain.reverse()
    steps: list[dict] = []
    for ev in chain:
        if ev.end - ev.start <= 0 or ev.phase == SETUP_PHASE:
            continue
        s = steps[-1] if steps else None
        if s and s["rank"] == ev.rank and s["kind"] == ev.kind and s["label"] == ev.label:
            s["end_s"] = ev.end
            s["count"] += 1
        else:
            steps.append({"rank": ev.rank, "kind": ev.kind, "label": ev.label, "start_s": ev.start,
                          "end_s": ev.end, "count": 1})
    return steps


def replay(fabric: Fabric, trace_dir: str | Path, compute_scale: float | None = None) -> ReplayResult:
    """Read the traces of `trace_dir` and replay them on `fabric`."""
    try:
        return Replay(fabric, read_traces(trace_dir), compute_scale).run()
    except ModelError as e:
        raise ReplayError(str(e)) from None


def _fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.4g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.4g} ms"
    return f"{seconds * 1e6:.4g} us"


def format_report(res: ReplayResult, max_steps: int = 12) -> str:
    """The text meshrun --fabric prints: predicted total, per-phase table, critical path."""
    lines = [f"fabric model ({res.fabric}, {res.nranks} ranks, measured compute x {res.compute_scale:g}): "
             f"predicted time {_fmt(res.total_s)}"]
    own = sum(st["end_s"] - st["start_s"] for st in res.critical_path if st["kind"] == "compute")
    if res.total_s > 0:  # what part of the prediction is not the fabric's at all
        lines.append(f"  of which {_fmt(own)} ({100 * min(own / res.total_s, 1):.0f} %) is the "
                     f"program's compute between calls (this machine's own time, measured here x "
                     f"{res.compute_scale:g}, or the fabric's price of its annotations), the rest "
                     f"the modelled fabric's communication and waits")
    lines.append(f"  {'phase':16} {'time':>11} {'compute':>11} {'comm':>11} {'wait':>11}  slowest rank")
    for name, p in res.phases.items():
        note = "  (not in the total)" if name == SETUP_PHASE else ""
        lines.append(f"  {name:16} {_fmt(p['seconds']):>11} {_fmt(p['compute_s']):>11} "
                     f"{_fmt(p['comm_s']):>11} {_fmt(p['wait_s']):>11}  {p['max_rank']}{note}")
    steps = res.critical_path
    lines.append(f"  critical path ({len(steps)} steps):")
    shown = steps if len(steps) <= max_steps else steps[: max_steps // 2] + [None] + steps[-max_steps // 2:]
    for s in shown:
        if s is None:
            lines.append(f"    ... {len(steps) - max_steps} more steps ...")
            continue
        times = f" x{s['count']}" if s["count"] > 1 else ""
        lines.append(f"    rank {s['rank']:<3} {s['kind']:8} {s['label'] + times:20} "
                     f"{_fmt(s['start_s']):>10} -> {_fmt(s['end_s'])}")
    return "\n".join(lines)
