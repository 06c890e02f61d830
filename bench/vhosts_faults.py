#!/usr/bin/env python3
"""How fast a failure ends a job across hosts: meshrun --vhosts 2 -n 4 running tests/pmix_probe,
one fault at a time, each repeated; the time from the fault until every rank process has ended
(and until meshrun has returned, its cleanup included), median and worst over the repetitions.

    python3 bench/vhosts_faults.py [--build DIR] [--repeat N] [--modes exit,abort,...]

Faults (rank 3, on vhost1, unless said):
  exit            exit(5) without PMIx_Finalize
  finalize-exit   PMIx_Finalize, then exit(6)
  abort           PMIx_Abort(4)
  exit0           exit(0) without PMIx_Finalize
  kill            raise(SIGSEGV)
  killed          SIGKILL from outside
  link-down       vhost1's link set down on the cluster's bridge
  host-killed     every process of vhost1 stopped (SIGSTOP), then killed (SIGKILL)
Each rank fault runs twice: with meshrun's settings, and with mpirun's default
odls_base_sigkill_timeout (1 s), to show what that setting buys. Needs root (virtual hosts).
The rank faults are timed from the faulty rank's own stamp (CLOCK_REALTIME), the others from
the moment this script injects them.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

RANK = re.compile(r"^pmix_probe: rank (\d+) of \d+ on (\S+) pid (\d+)", re.M)
FAILING = re.compile(r"^pmix_probe: rank \d+ failing at ([0-9.]+)$", re.M)
RANK_FAULTS = {"exit": ["exit", "3", "5"], "finalize-exit": ["finalize-exit", "3", "6"],
               "abort": ["abort", "3", "4"], "exit0": ["exit0", "3"],
               "kill": ["kill", "3", str(int(signal.SIGSEGV))]}
OUTSIDE_FAULTS = ("killed", "link-down", "host-killed")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def read_until(p, pattern, out: str, timeout=60.0) -> str:
    end = time.monotonic() + timeout
    while not re.search(pattern, out, re.M):
        if time.monotonic() > end:
            raise RuntimeError(f"no {pattern!r} within {timeout} s:\n{out}")
        line = p.stdout.readline()
        if not line:
            raise RuntimeError(f"output ended before {pattern!r}:\n{out}")
        out += line
    return out


def inject(mode: str, p, ranks: dict) -> float:
    """Cause an outside fault on vhost1; the time.time() it was caused."""
    t0 = time.time()
    if mode == "killed":
        os.kill(ranks[3], signal.SIGKILL)
    elif mode == "link-down":
        subprocess.run(["ip", "-n", f"meshmem-{p.pid}-head", "link", "set", "vh1", "down"],
                       check=True)
    else:
        pids = subprocess.run(["ip", "netns", "pids", f"meshmem-{p.pid}-1"], capture_output=True,
                              text=True, check=True).stdout.split()
        for pid in pids:
            os.kill(int(pid), signal.SIGSTOP)
        time.sleep(0.5)
        t0 = time.time()
        for pid in pids:
            os.kill(int(pid), signal.SIGKILL)
    return t0


def one_run(build: str, mode: str, env: dict) -> tuple[float, float, int]:
    """(seconds until every rank ended, until meshrun returned, meshrun's status)."""
    args = RANK_FAULTS.get(mode, ["hang"])
    p = subprocess.Popen([f"{build}/bin/meshrun", "--vhosts", "2", "-n", "4",
                          f"{build}/tests/pmix_probe", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        out = read_until(p, r"^pmix_probe: ready$", "")
        out = read_until(p, r"(?s)(pmix_probe: rank \d+ of .*){4}", out)
        ranks = {int(r): int(pid) for r, _, pid in RANK.findall(out)}
        if mode in RANK_FAULTS:
            out = read_until(p, FAILING.pattern, out)
            t0 = float(FAILING.search(out).group(1))
        else:
            t0 = inject(mode, p, ranks)
        while any(alive(pid) for pid in ranks.values()):
            if time.time() - t0 > 30:
                raise RuntimeError(f"{mode}: ranks alive 30 s after the fault")
            time.sleep(0.002)
        gone = time.time() - t0
        p.communicate(timeout=60)
        return gone, time.time() - t0, p.returncode
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # the repository's build/ wherever this runs from (MESHMEM_BUILD: another build tree)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.environ.get("MESHMEM_BUILD",
                                                      os.path.join(here, "..", "build")))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--modes", default=",".join([*RANK_FAULTS, *OUTSIDE_FAULTS]))
    a = ap.parse_args()
    base = {k: v for k, v in os.environ.items() if not k.startswith("OMPI_MCA_odls")}
    cases = []
    for mode in a.modes.split(","):
        cases.append((mode, "meshrun's settings", base))
        if mode in RANK_FAULTS:
            cases.append((mode, "sigkill_timeout 1 (mpirun's default)",
                          {**base, "OMPI_MCA_odls_base_sigkill_timeout": "1"}))
    print(f"# meshrun --vhosts 2 -n 4 pmix_probe, {a.repeat} runs per case; load average "
          f"{os.getloadavg()[0]:.2f} at start")
    print(f"{'fault':<15}{'settings':<38}{'ranks gone s (median, max)':>28}"
          f"{'meshrun s (median)':>20}{'status':>8}")
    for mode, label, env in cases:
        runs = [one_run(a.build, mode, env) for _ in range(a.repeat)]
        gone = [r[0] for r in runs]
        codes = sorted({r[2] for r in runs})
        print(f"{mode:<15}{label:<38}{statistics.median(gone):>16.3f}{max(gone):>12.3f}"
              f"{statistics.median(r[1] for r in runs):>20.3f}{','.join(map(str, codes)):>8}",
              flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
