"""The UCX floor across hosts: what UCX itself achieves between two hosts (ucx_perftest).

meshmem and OpenMPI's OSHMEM both reach other hosts through UCX; ucx_perftest measures UCX's
protocol layer (UCP) alone between two processes, one per host, with nothing above it: the
floor a runtime built on UCX can approach. One mpirun job per test starts the server on the
first host and the client on the second (which retries until the server listens); on virtual
hosts the job runs on a cluster built for it (tools/meshrun-vhosts run), with UCX over TCP on the
hosts' veths as meshrun --vhosts sets it.

Tests (UCP, 8 bytes unless said; ucx_perftest's own definitions):
  put_lat   ucp_put_lat: put latency, half the round trip of two puts answering each other
  get_lat   ucp_get: get latency, one get completed
  fadd_lat  ucp_fadd: 64-bit atomic fetch-and-add latency
  add       ucp_add: 64-bit atomic add, time per operation when streamed (no reply waited for)
  put_bw    ucp_put_bw: put bandwidth of 1 MiB messages
Each test runs once per round; reported per test: the median over rounds of ucx_perftest's
overall average (total time over iterations, as OSU averages) and of its median (50th
percentile), and for put_bw the bandwidth in GB/s (10^9 bytes/s); the rounds' values are kept.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
from dataclasses import dataclass

from meshmem.cli.report import format_size, peer_name
from meshmem.launch.commands import BenchError, LaunchOptions, vhosts_script

MiB = 1 << 20
VHOST_SERVER = "198.18.0.10"  # vhost0's address on a virtual cluster (tools/meshrun-vhosts)
PORT = 13337


@dataclass(frozen=True)
class FloorTest:
    key: str        # name in JSON and tables
    test: str       # ucx_perftest -t
    size: int       # bytes
    what: str       # one line for the table


FLOOR_TESTS = (
    FloorTest("put_lat", "ucp_put_lat", 8, "8-byte put latency (half round trip)"),
    FloorTest("get_lat", "ucp_get", 8, "8-byte get latency"),
    FloorTest("fadd_lat", "ucp_fadd", 8, "8-byte atomic fetch-and-add latency"),
    FloorTest("add", "ucp_add", 8, "8-byte atomic add, time per streamed operation"),
    FloorTest("put_bw", "ucp_put_bw", MiB, "1 MiB put bandwidth"),
)
LARGE = 8192  # OSU's boundary: the iteration counts of larger sizes apply above it


def two_hosts(opts: LaunchOptions) -> tuple[str, str, str]:
    """(server host, client host, the address the client connects to) for @p opts."""
    if opts.vhosts:
        if opts.vhosts < 2:
            raise BenchError("the UCX floor needs two hosts: --vhosts 2 or more")
        return "vhost0", "vhost1", VHOST_SERVER
    hosts = [h.split(":")[0] for h in (opts.hosts or "").split(",") if h]
    if len(hosts) < 2:
        raise BenchError("the UCX floor needs two hosts: --hosts a,b")
    return hosts[0], hosts[1], hosts[0]


def command(t: FloorTest, opts: LaunchOptions, iters: int) -> list[str]:
    """The mpirun job of one test: server on the first host, client on the second."""
    server, client, address = two_hosts(opts)
    test = ["ucx_perftest", "-f", "-t", t.test, "-s", str(t.size), "-n", str(iters),
            "-w", str(max(10, iters // 10)), "-p", str(PORT)]
    # bound as the benchmarks' ranks are: virtual hosts share this machine's CPUs, the server
    # on the first this process may use, the client on the second (two spinning processes left
    # to share one core take turns of a scheduler tick); each real host binds its own
    cpus = sorted(os.sched_getaffinity(0)) if opts.vhosts else []
    server_test = test + (["-c", str(cpus[0])] if cpus else [])
    client_test = test + (["-c", str(cpus[1 % len(cpus)])] if cpus else [])
    # the client retries while the server is not listening yet (a refused connection ends
    # ucx_perftest at once); 100 tries of 0.1 s
    retry = ("for i in $(seq 100); do " + " ".join(client_test) + f" {address} && exit 0; "
             "sleep 0.1; done; exit 1")
    mpirun = [shutil.which("mpirun") or "mpirun"]
    if os.geteuid() == 0:
        mpirun.append("--allow-run-as-root")
    fwd = sorted({k for k in os.environ if k.startswith("UCX_")} |
                 ({"UCX_TLS", "UCX_NET_DEVICES"} if opts.vhosts else set()))
    for k in fwd:
        mpirun += ["-x", k]
    cmd = mpirun + ["--bind-to", "none" if cpus else "core", "-n", "1", "--host", server,
                    *server_test, ":",
                    "-n", "1", "--host", client, "sh", "-c", retry]
    if opts.vhosts:
        cmd = [str(vhosts_script()), "run", "2", "--"] + cmd
    return cmd


def parse_final(text: str) -> dict:
    """ucx_perftest -f's line of final numbers: iterations, latency (50 %ile, average, overall),
    bandwidth MB/s (average, overall; MB = 2^20 bytes), message rate (average, overall)."""
    for line in reversed(text.splitlines()):
        fields = line.split()
        if len(fields) == 8:
            try:
                v = [float(f) for f in fields]
            except ValueError:
                continue
            return {"iters": int(v[0]), "p50_us": v[1], "avg_us": v[2], "overall_us": v[3],
                    "MBps": v[5], "msg_rate": v[7]}
    raise BenchError(f"no final numbers in ucx_perftest's output:\n{text[-2000:]}")


def measure(opts: LaunchOptions, iters: int = 1000, iters_large: int = 100, tests=FLOOR_TESTS,
            rounds: int = 1, log=None) -> dict:
    """Run each test @p rounds times between two of @p opts' hosts, @p iters iterations
    (@p iters_large above 8 KiB, as the OSU-style benchmarks count); {key: numbers} (see the
    module head)."""
    if not shutil.which("ucx_perftest"):
        raise BenchError("ucx_perftest not found (Debian's ucx-utils; scripts/install-deps.sh "
                         "installs it)")
    runs = {t.key: [] for t in tests}
    for r in range(rounds):
        for t in tests:
            runs[t.key].append(run_test(t, opts, iters_large if t.size > LARGE else iters))
        if log:
            log(f"  ucx floor: round {r + 1}/{rounds} done")
    results = {}
    for t in tests:
        one = runs[t.key]
        res = {k: statistics.median(x[k] for x in one) for k in ("p50_us", "overall_us", "MBps")}
        res.update(test=t.test, bytes=t.size, what=t.what, iters=one[0]["iters"],
                   rounds_overall_us=[x["overall_us"] for x in one])
        if t.key == "put_bw":
            res["GBps"] = res["MBps"] * MiB / 1e9
        results[t.key] = res
    return results


def run_test(t: FloorTest, opts: LaunchOptions, iters: int) -> dict:
    """One run of test @p t; its final numbers (parse_final)."""
    cmd = command(t, opts, iters)
    env = dict(os.environ)
    if opts.vhosts:
        env.update(UCX_TLS=env.get("UCX_TLS", "tcp,sm,self"),
                   UCX_NET_DEVICES=env.get("UCX_NET_DEVICES", "vheth0"))
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=opts.timeout_s)
    except subprocess.TimeoutExpired:
        raise BenchError(f"ucx_perftest {t.test}: no result within {opts.timeout_s:.0f} s "
                         f"({' '.join(cmd)})") from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise BenchError(f"ucx_perftest {t.test} failed (exit {done.returncode}): "
                         f"{' '.join(cmd)}\n{tail}")
    return parse_final(done.stdout)


# rows of `meshmem bench` compared with a floor test: (op, bytes) -> floor key
LATENCY_FLOORS = {("put", 8): "put_lat", ("get", 8): "get_lat", ("atomic", 8): "fadd_lat",
                  ("pingpong", 8): "put_lat", ("put_pingpong", 8): "put_lat"}


def attach(rows: list, floor: dict) -> None:
    """Add to @p rows the floor they compare with and each side's ratio to it: latency rows
    (ucx_floor_us, <side>_vs_ucx_floor: time over the floor's), and 1 MiB put bandwidth
    (ucx_floor_GBps, <side>_vs_ucx_floor_bw: bandwidth over the floor's)."""
    for r in rows:
        key = LATENCY_FLOORS.get((r["op"], r["bytes"]))
        if key in floor:
            r["ucx_floor_test"] = floor[key]["test"]
            r["ucx_floor_us"] = floor[key]["overall_us"]
            for side in ("meshmem", "baseline"):
                if r.get(f"{side}_us"):
                    r[f"{side}_vs_ucx_floor"] = r[f"{side}_us"] / r["ucx_floor_us"]
        if r["op"] == "put" and r["bytes"] == MiB and "put_bw" in floor:
            r["ucx_floor_GBps"] = floor["put_bw"]["GBps"]
            for side in ("meshmem", "baseline"):
                if r.get(f"{side}_GBps"):
                    r[f"{side}_vs_ucx_floor_bw"] = r[f"{side}_GBps"] / r["ucx_floor_GBps"]


def print_floor(floor: dict, rows: list, out) -> None:
    """The floor's own figures, then each compared row against it."""
    print("# UCX floor (ucx_perftest between two hosts, UCP; median over rounds of the overall "
          "average, and of the median):", file=out)
    for key, r in floor.items():
        figure = (f"{r['GBps']:.3f} GB/s" if key == "put_bw"
                  else f"{r['overall_us']:.3f} µs (median {r['p50_us']:.3f})")
        print(f"#   {r['test']:<12} {r['what']}: {figure}", file=out)
    for r in rows:
        parts = []
        for side in ("meshmem", "baseline"):
            name = "meshmem" if side == "meshmem" else peer_name(r.get("baseline"))
            if f"{side}_vs_ucx_floor" in r:
                parts.append(f"{name} {r[f'{side}_vs_ucx_floor']:.2f} × floor time")
            if f"{side}_vs_ucx_floor_bw" in r:
                parts.append(f"{name} {100 * r[f'{side}_vs_ucx_floor_bw']:.0f} % of floor "
                             "bandwidth")
        if parts:
            print(f"#   {r['op']} {format_size(r['bytes'])} vs {r.get('ucx_floor_test', 'ucp_put_bw')}: "
                  + "; ".join(parts), file=out)
