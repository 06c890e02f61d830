"""The command lines that start a job: on meshmem (meshrun) or on OpenMPI (mpirun, oshrun: the
twins of the benchmarks and the applications), on one host, on virtual hosts of this machine or
across hosts, with the OpenMPI settings each shape needs (twin_settings).

RUNTIMES names the benchmark programs of bench/ and the launcher of each; meshmem.bench.runner
builds and runs them.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from meshmem.launch.paths import bin_path, build_dir

# Debian's OpenMPI 4.1.4 OSHMEM crashes in shmem_finalize on machines without InfiniBand
# unless UCX's memory hooks are off; harmless for plain MPI.
OPENMPI_ENV = {"OMPI_MCA_opal_common_ucx_opal_mem_hooks": "0"}


class BenchError(RuntimeError):
    """A benchmark program could not be built or did not run to completion."""


@dataclass
class Runtime:
    """One way of running the benchmark source: meshmem, OpenMPI OSHMEM or OpenMPI MPI."""
    key: str            # "meshmem", "oshmem", "mpi"
    label: str          # for tables and JSON
    program: str        # file name in build/bench
    source: str         # bench/ source it is compiled from
    compiler: str | None  # OpenMPI wrapper that builds it on demand (None: built by CMake)
    launcher: str       # meshrun, oshrun or mpirun

    def exe(self) -> Path:
        """The benchmark executable in the build tree."""
        return build_dir() / "bench" / self.program


RUNTIMES = {
    "meshmem": Runtime("meshmem", "meshmem", "osu_shmem", "osu_shmem.c", None, "meshrun"),
    "oshmem": Runtime("oshmem", "openmpi-oshmem", "osu_shmem_oshmem", "osu_shmem.c", "oshcc",
                      "oshrun"),
    "mpi": Runtime("mpi", "openmpi-mpi", "osu_mpi", "osu_mpi.c", "mpicc", "mpirun"),
    "meshmem_coll": Runtime("meshmem_coll", "meshmem", "osu_coll", "osu_coll.c", None,
                            "meshrun"),
    "mpi_coll": Runtime("mpi_coll", "openmpi-mpi", "osu_coll_mpi", "osu_coll_mpi.c", "mpicc",
                        "mpirun"),
}


@dataclass
class LaunchOptions:
    """How ranks are started: count, binding, heap, time limit, and on which hosts."""
    ranks: int
    bind: str = "none"          # "core" or "none", passed to every launcher alike
    heap_bytes: int = 64 << 20  # symmetric heap per rank
    timeout_s: float = 300.0
    vhosts: int = 0             # > 0: on that many virtual hosts of this machine
    hosts: str | None = None    # "a:4,b:4": across these hosts
    hostfile: str | None = None  # or across the hosts of this Open MPI hostfile
    collective: str | None = None  # the collective a twin times (ACROSS_COLL: its component)
    rtl: str | None = None      # a configuration file: the ranks as simulated OPTWEB nodes

    def across(self) -> bool:
        """Whether the ranks run on several hosts (real or virtual)."""
        return bool(self.vhosts or self.real_hosts())

    def real_hosts(self) -> bool:
        """Whether the ranks run on other machines (--hosts, --hostfile)."""
        return bool(self.hosts or self.hostfile)

    def placement_args(self) -> list[str]:
        """meshrun's options for the hosts (none on one machine; --rtl on the engine)."""
        if self.rtl:
            return ["--rtl", self.rtl]
        if self.vhosts:
            return ["--vhosts", str(self.vhosts)]
        if self.hostfile:
            return ["--hostfile", self.hostfile]
        return ["--hosts", self.hosts] if self.hosts else []


# OpenMPI picks its UCX components only where UCX offers InfiniBand-class transports (the
# *_ucx_tls and *_ucx_devices defaults): across hosts over TCP they are asked for explicitly, so
# that the baselines run on UCX as meshmem does (MPI: pml ucx, and osc ucx for the windows the
# MPI benchmark allocates, which Debian's configuration leaves out otherwise).
ACROSS_MCA = {
    "mpi": {"pml": "ucx", "pml_ucx_tls": "any", "pml_ucx_devices": "any", "osc": "ucx",
            "osc_ucx_tls": "any", "osc_ucx_devices": "any"},
    "oshmem": {"spml": "ucx", "spml_ucx_tls": "any", "spml_ucx_devices": "any"},
}

# OpenMPI's answer to ranks that share cores is its own: `mpi_yield_when_idle` "Yield the
# processor when waiting for MPI communication (for MPI processes, will default to 1 when
# oversubscribing nodes)" (ompi_info --param mpi all --level 9, OpenMPI 4.1). mpirun decides
# "oversubscribing" from its slots, and misses two shapes this machine knows: on virtual hosts
# each host has slots for its own ranks while all of them share this machine's cores, and a
# rankfile binding hides it on one host too (both measured: the ranks saw mpi_oversubscribe=0
# and busy-polled). So the twin is told whenever its ranks outnumber this machine's cores.
YIELD_MCA = {"mpi_yield_when_idle": "1"}

# The collective component a benchmark's twin uses across hosts where one beats OpenMPI's default
# (tuned): han, OpenMPI 4.1's hierarchical component (intra-node, then inter-node), which it
# leaves off (coll_han_priority 0) and implements for barrier, bcast, reduce, allreduce,
# allgather(v), gather and scatter. Measured on 2 virtual hosts x 2 ranks, twins alone, 3 rounds,
# twice (docs/results-across.md, "OpenMPI's collective components"): han was faster at most
# sizes in both runs for barrier, bcast and reduce; slower for allreduce (2-3 x from 64 KiB)
# and scatter, mixed for allgather and gather, which keep tuned. On one host coll/sm won no
# operation at every size (and does not yield: 17 x tuned's barrier with 8 ranks on 2 cores):
# tuned stays there.
HAN = {"coll_han_priority": "100"}
ACROSS_COLL = {"barrier": HAN, "bcast": HAN, "reduce": HAN}


@dataclass(frozen=True)
class TwinSettings:
    """How an OpenMPI twin runs for the shape of a launch, as its documentation says it should:
    the MCA parameters it gets beyond its defaults, how its ranks are bound, and why. The one
    record of it: twin_command builds the command line from it, and the commands print it and
    write it into their JSON (as_dict)."""
    mca: dict                 # name -> value, every -mca of the twin
    env: dict                 # variables set for the twin (OPENMPI_ENV)
    binding: str              # the placement and binding, in words
    shares_cores: bool | None  # ranks outnumber this machine's cores; None: real hosts (unknown)
    reasons: tuple            # why each setting, one phrase each

    def as_dict(self) -> dict:
        """The settings as the JSON of every command records them (key "openmpi")."""
        return {"mca": dict(self.mca), "env": dict(self.env), "binding": self.binding,
                "shares_cores": self.shares_cores, "reasons": list(self.reasons)}

    def line(self) -> str:
        """One line for under a table: 'OpenMPI twin: -mca mpi_yield_when_idle 1 ... (why);
        binding'."""
        mca = " ".join(f"-mca {k} {v}" for k, v in self.mca.items()) or "its defaults"
        return f"OpenMPI twin: {mca} ({'; '.join(self.reasons)}); {self.binding}"


def rank_hosts(opts: LaunchOptions) -> list[str]:
    """The host of each rank, as mpirun names it: vhostH on a virtual cluster (filled by slot, as
    meshrun --vhosts places them), else this machine's short host name (meshrun_hosts.c's rule)."""
    if opts.vhosts:
        per_host = -(-opts.ranks // opts.vhosts)
        return [f"vhost{r // per_host}" for r in range(opts.ranks)]
    return [socket.gethostname().split(".")[0]] * opts.ranks


def rankfile(opts: LaunchOptions) -> Path:
    """A rankfile (in the build's bench/) binding rank r to the r-th CPU this process may use,
    on its host of rank_hosts(): what meshrun --bind-to core does, on one host or virtual
    hosts (mpirun's own --bind-to core gives the first rank of every virtual host one core)."""
    cpus = sorted(os.sched_getaffinity(0))
    where = f"v{opts.vhosts}" if opts.vhosts else "h1"
    path = build_dir() / "bench" / f"rankfile.{where}.n{opts.ranks}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"rank {r}={h} slot={cpus[r % len(cpus)]}\n"
                            for r, h in enumerate(rank_hosts(opts))))
    return path


def twin_settings(opts: LaunchOptions, rt_key: str = "mpi") -> TwinSettings:
    """The OpenMPI settings of a twin (runtime @p rt_key: "mpi", "oshmem", "mpi_coll") started
    with @p opts: yield when its ranks share this machine's cores, bound as meshmem's ranks are,
    UCX across hosts. Pure: the same launch gives the same settings."""
    mca, reasons = {}, []
    ncpu = cores()
    shares = None if opts.real_hosts() else opts.ranks > ncpu
    if shares:
        mca.update(YIELD_MCA)
        where = f"on {opts.vhosts} virtual hosts " if opts.vhosts else ""
        reasons.append(f"{opts.ranks} ranks {where}share {ncpu} cores: OpenMPI's documented "
                       "setting for oversubscribed nodes (mpi_yield_when_idle)")
    elif shares is None:
        reasons.append("real hosts: OpenMPI decides from its slots whether ranks share cores")
    else:
        reasons.append(f"{opts.ranks} ranks on {ncpu} cores: a core each, OpenMPI polls as "
                       "it does by default")
    if opts.bind == "core" and not opts.real_hosts():
        mca["rmaps_rank_file_physical"] = "1"
        binding = f"rank r bound to CPU r mod {ncpu} by a rankfile, as meshrun --bind-to core"
    elif opts.bind == "core":
        binding = "--map-by slot --bind-to core (OpenMPI's binding on each host)"
    else:
        binding = "unbound, as meshrun --bind-to none"
    if opts.across():
        mca.update({k.removeprefix("OMPI_MCA_"): v for k, v in OPENMPI_ENV.items()})
        mca.update(ACROSS_MCA.get(rt_key.split("_")[0], {}))
        reasons.append("UCX across hosts, as meshmem")
        if opts.collective in ACROSS_COLL:
            mca.update(ACROSS_COLL[opts.collective])
            reasons.append(f"coll/han for {opts.collective} across hosts: faster than tuned "
                           "here (docs/results-across.md)")
    # what the caller's environment sets for OpenMPI reaches mpirun too: recorded with the rest
    env = {**{k: v for k, v in os.environ.items() if k.startswith("OMPI_MCA_")}, **OPENMPI_ENV}
    return TwinSettings(mca=mca, env=env, binding=binding, shares_cores=shares,
                        reasons=tuple(reasons))


def vhosts_script() -> Path:
    """tools/meshrun-vhosts as the build installed it: builds and enters virtual clusters."""
    return bin_path("meshrun-vhosts")


def cores() -> int:
    """CPUs this process may run on (its affinity mask, as meshrun counts the job's CPUs)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def twin_command(launcher: str, rt_key: str, opts: LaunchOptions, argv: list[str],
                 env: dict) -> list[str]:
    """The command line of every OpenMPI twin (the benchmarks', the applications', mpi4py's):
    @p launcher (mpirun or oshrun) running @p argv with @p opts, with twin_settings(). @p env
    (the twin's environment) gets OPENMPI_ENV; across hosts, the variables a remote host does not
    inherit are forwarded, and on virtual hosts the job runs on a cluster built for it."""
    settings = twin_settings(opts, rt_key)
    env.update(settings.env)
    cmd = [launcher, "-n", str(opts.ranks)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if opts.bind == "core" and not opts.real_hosts():
        cmd += ["--rankfile", str(rankfile(opts))]
    else:
        cmd += ["--bind-to", opts.bind]
        if opts.across():
            cmd += ["--map-by", "slot"]
        elif opts.ranks > cores():
            cmd.append("--oversubscribe")  # unbound: more ranks than slots need it said
    if opts.hosts:
        cmd += ["--host", opts.hosts]
    if opts.hostfile:
        cmd += ["--hostfile", opts.hostfile]
    for key, value in settings.mca.items():
        cmd += ["-mca", key, value]
    if opts.across():
        forward = sorted(k for k in env if k.startswith(("UCX_", "SHMEM_", "MESHMEM_")))
        if opts.vhosts:
            # the cluster sets UCX_TLS and UCX_NET_DEVICES where the caller did not
            forward = sorted(set(forward) | {"UCX_TLS", "UCX_NET_DEVICES"})
        for k in forward:
            cmd += ["-x", k]
    cmd += argv
    if opts.vhosts:
        per_host = -(-opts.ranks // opts.vhosts)
        cmd = [str(vhosts_script()), "run", str(opts.vhosts), "--slots", str(per_host), "--"] + cmd
    return cmd


def command(rt: Runtime, exe: Path, opts: LaunchOptions, args: list[str]) -> tuple[list, dict]:
    """The command line and environment that run @p exe with @p args under @p rt's launcher."""
    env = dict(os.environ)
    if rt.launcher == "meshrun":
        cmd = [str(bin_path("meshrun")), "-n", str(opts.ranks), "--heap", str(opts.heap_bytes),
               "--bind-to", opts.bind, "--timeout", str(int(opts.timeout_s)),
               *opts.placement_args()]
        return cmd + [str(exe)] + args, env
    launcher = shutil.which(rt.launcher)
    if launcher is None:
        raise BenchError(f"{rt.launcher} not found: OpenMPI is not installed")
    if rt.key == "oshmem":
        env["SHMEM_SYMMETRIC_SIZE"] = str(opts.heap_bytes)
    return twin_command(launcher, rt.key, opts, [str(exe)] + args, env), env


def openmpi_version() -> str:
    """`mpirun --version`'s first line, or an empty string without OpenMPI."""
    mpirun = shutil.which("mpirun")
    if not mpirun:
        return ""
    try:
        done = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
