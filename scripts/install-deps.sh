#!/usr/bin/env bash
# Installs what meshmem's build, tests, benchmarks and demo need and this machine lacks:
# Debian packages (compilers, CMake, Ninja, OpenMPI for the comparison runs, UCX, PMIx, iproute2)
# with apt-get, and Python packages with pip. Idempotent and quiet when everything is present.
# MESHMEM_NO_INSTALL=1: install nothing, only say what is missing (make test / make demo then
# go on with what the machine has).
set -euo pipefail
no_install=${MESHMEM_NO_INSTALL:-0}
RUFF_VERSION=0.17.6  # make lint's ruff (pyproject.toml, [tool.ruff])

need_apt=()
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac  # no dirname: the script needs no coreutils
stamp_dir=$here/../.deps
have() { command -v "$1" >/dev/null 2>&1; }
have make   || need_apt+=(make)
have pgrep  || need_apt+=(procps) # the sanitizer suites' check for stray processes
# gcc's Debian package pulls libgcc-N-dev, which brings the ASan/UBSan/TSan runtimes that
# `make sanitize` links; the C library headers come with libc6-dev, only a recommendation of
# gcc (and apt-get below installs no recommendations)
have cc     || need_apt+=(gcc)
have c++    || need_apt+=(g++)      # meshc++ and its test
[ -e /usr/include/stdio.h ] || need_apt+=(libc6-dev)
have cmake  || need_apt+=(cmake)
# clang with libFuzzer (compiler-rt, only a recommendation of clang) for the fuzz targets
have clang  || need_apt+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null ||
  need_apt+=(libclang-rt-dev)
have ninja  || need_apt+=(ninja-build)
# make lint: clang-format 14, the version .clang-format is written for (Debian 12's clang-format;
# scripts/format.sh refuses another major version)
{ have clang-format-14 || clang-format --version 2>/dev/null | grep -q 'version 14\.'; } ||
  need_apt+=(clang-format)
have mpicc  || need_apt+=(openmpi-bin libopenmpi-dev)
have oshcc  || need_apt+=(openmpi-bin libopenmpi-dev)
# FFTW 3 for `meshmem fft` (serial and float libraries) and its FFTW-MPI baseline
[ -e /usr/include/fftw3.h ] || need_apt+=(libfftw3-dev)
[ -e /usr/include/fftw3-mpi.h ] || need_apt+=(libfftw3-mpi-dev)
# across machines: UCX (its headers for the transport, ucx_perftest for the floor of the
# benchmarks), PMIx's headers (tests/c/pmix_probe), ip for the virtual cluster of meshrun --vhosts
have ucx_perftest || need_apt+=(ucx-utils)
[ -e /usr/include/ucp/api/ucp.h ] || need_apt+=(libucx-dev)
have pkg-config || need_apt+=(pkg-config)
pkg-config --exists pmix 2>/dev/null || need_apt+=(libpmix-dev)
have ip     || need_apt+=(iproute2)
have nsenter || need_apt+=(util-linux)
# Slurm for tests/py/test_slurm.py (srun --mpi=pmix across the virtual hosts, tools/meshrun-slurm):
# its controller, node daemon, srun and munge; the PMIx plugin (mpi_pmix.so) comes with slurmd
# (slurm-wlm-basic-plugins) and loads libpmix.so from libpmix-dev, above
have slurmctld || need_apt+=(slurmctld)
have slurmd || need_apt+=(slurmd)
have srun   || need_apt+=(slurm-client)
have munged || need_apt+=(munge)
# OpenBLAS for the local multiplies of `meshmem gemm` (cblas.h under the multiarch directory)
compgen -G "/usr/include/*/cblas.h" >/dev/null || [ -e /usr/include/cblas.h ] ||
  need_apt+=(libopenblas-dev)
# rtl/ (docs/rtl.md): Verilator builds the simulated engine and lints it; Yosys lints and
# synthesizes it (make rtl-synth) and, with z3, proves the sync IP's handshakes (yosys-smtbmc).
# Without Verilator the rest builds and CMake says in one line that rtl/ was left out.
have verilator || need_apt+=(verilator)
have yosys  || need_apt+=(yosys)
have z3     || need_apt+=(z3)
have python3 || need_apt+=(python3)
# the Python packages below are installed with pip: a python3 without pip needs Debian's
if ! have python3 || ! python3 -m pip --version >/dev/null 2>&1; then
  need_apt+=(python3-pip)
fi
# the Python package (`make test` installs it into build/venv): venv, and Python.h for its
# extension module; a python3 of Debian's has them in python3-venv and python3-dev
if ! have python3 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  need_apt+=(python3-venv)
fi
if ! have python3 || ! python3 -c 'import os, sysconfig, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    >/dev/null 2>&1; then
  need_apt+=(python3-dev)
fi

if [ ${#need_apt[@]} -gt 0 ] && [ "$no_install" = 1 ]; then
  echo "install-deps: MESHMEM_NO_INSTALL=1: not installing the Debian packages ${need_apt[*]}"
elif [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  # a build tree configured before now did not find these (OpenMPI, OpenBLAS, FFTW, UCX, PMIx):
  # the Makefile configures it again when this stamp is newer than its build.ninja
  mkdir -p "$stamp_dir" && touch "$stamp_dir/installed"
fi

need_pip=()
python3 -c 'import numpy' 2>/dev/null      || need_pip+=(numpy)
python3 -c 'import matplotlib' 2>/dev/null || need_pip+=(matplotlib)
python3 -c 'import pytest' 2>/dev/null     || need_pip+=(pytest)
# building the package without network (pip install --no-build-isolation): its build backend
# and cffi; bfloat16 arrays (ml_dtypes); the mpi4py baseline of `meshmem bench --python` (its
# wheel loads the system's Open MPI, libmpi.so.40)
python3 -c 'import cffi' 2>/dev/null       || need_pip+=(cffi)
python3 -c 'import scikit_build_core' 2>/dev/null || need_pip+=(scikit-build-core)
python3 -c 'import ml_dtypes' 2>/dev/null  || need_pip+=(ml_dtypes)
python3 -c 'import mpi4py' 2>/dev/null     || need_pip+=(mpi4py)
# make lint: the version pyproject.toml's [tool.ruff] is written for (rules change between versions)
[ "$(python3 -m ruff --version 2>/dev/null)" = "ruff $RUFF_VERSION" ] || need_pip+=("ruff==$RUFF_VERSION")
if [ ${#need_pip[@]} -gt 0 ] && [ "$no_install" = 1 ]; then
  echo "install-deps: MESHMEM_NO_INSTALL=1: not installing the Python packages ${need_pip[*]}"
elif [ ${#need_pip[@]} -gt 0 ]; then
  pip_args=(-q)
  # Debian 12's own python3 is "externally managed" (PEP 668): pip refuses to install into it
  # unless told to; it then installs into /usr/local (or ~/.local), not over Debian's files
  if python3 -c 'import os, sys, sysconfig
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(not (sys.prefix == sys.base_prefix and os.path.exists(marker)))' 2>/dev/null; then
    pip_args+=(--break-system-packages)
  fi
  echo "install-deps: pip install ${need_pip[*]}"
  python3 -m pip install "${pip_args[@]}" "${need_pip[@]}"
fi

# shmem4py's source release and its build requirements, for tests/py/test_shmem4py.py, into a
# wheelhouse outside the build tree (it survives `make clean`); without the package registry the
# test skips, saying so in one line
wheelhouse=${MESHMEM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/meshmem}/shmem4py
requirements=$here/../tests/py/shmem4py-requirements.txt
if ! cmp -s "$requirements" "$wheelhouse/complete" 2>/dev/null; then
  if [ "$no_install" = 1 ]; then
    echo "install-deps: MESHMEM_NO_INSTALL=1: not downloading shmem4py into $wheelhouse"
  else
    echo "install-deps: pip download shmem4py and its build requirements into $wheelhouse"
    mkdir -p "$wheelhouse"
    if python3 -m pip download -q --disable-pip-version-check -d "$wheelhouse" \
         -r "$requirements"; then
      cp "$requirements" "$wheelhouse/complete"
    else
      echo "install-deps: shmem4py could not be downloaded (tests/py/test_shmem4py.py will skip)"
    fi
  fi
fi
exit 0
