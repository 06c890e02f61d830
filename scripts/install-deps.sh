#!/usr/bin/env bash
# Installs what meshmem's build, tests, benchmarks and demo need and this machine lacks:
# Debian packages (compilers, CMake, Ninja, OpenMPI for the comparison runs) with apt-get, and
# Python packages with pip. Idempotent and quiet when everything is present.
# MESHMEM_NO_INSTALL=1: install nothing, only say what is missing (make test / make demo then
# go on with what the machine has).
set -euo pipefail
no_install=${MESHMEM_NO_INSTALL:-0}

need_apt=()
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
have ninja  || need_apt+=(ninja-build)
have mpicc  || need_apt+=(openmpi-bin libopenmpi-dev)
have oshcc  || need_apt+=(openmpi-bin libopenmpi-dev)
# FFTW 3 for `meshmem fft` (serial and float libraries) and its FFTW-MPI baseline
[ -e /usr/include/fftw3.h ] || need_apt+=(libfftw3-dev)
[ -e /usr/include/fftw3-mpi.h ] || need_apt+=(libfftw3-mpi-dev)
# OpenBLAS for the local multiplies of `meshmem gemm` (cblas.h under the multiarch directory)
compgen -G "/usr/include/*/cblas.h" >/dev/null || [ -e /usr/include/cblas.h ] ||
  need_apt+=(libopenblas-dev)
have python3 || need_apt+=(python3)
# the Python packages below are installed with pip: a python3 without pip needs Debian's
if ! have python3 || ! python3 -m pip --version >/dev/null 2>&1; then
  need_apt+=(python3-pip)
fi

if [ ${#need_apt[@]} -gt 0 ] && [ "$no_install" = 1 ]; then
  echo "install-deps: MESHMEM_NO_INSTALL=1: not installing the Debian packages ${need_apt[*]}"
elif [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

need_pip=()
python3 -c 'import numpy' 2>/dev/null      || need_pip+=(numpy)
python3 -c 'import matplotlib' 2>/dev/null || need_pip+=(matplotlib)
python3 -c 'import pytest' 2>/dev/null     || need_pip+=(pytest)
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
exit 0
