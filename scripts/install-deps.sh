#!/usr/bin/env bash
# Installs what meshmem's build, tests, benchmarks and demo need and this machine lacks:
# Debian packages (compilers, CMake, Ninja, OpenMPI for the comparison runs) and Python packages.
# Idempotent and quiet when everything is present.
set -euo pipefail

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
have cc     || need_apt+=(gcc)
have cmake  || need_apt+=(cmake)
have ninja  || need_apt+=(ninja-build)
have mpicc  || need_apt+=(openmpi-bin libopenmpi-dev)
have oshcc  || need_apt+=(openmpi-bin libopenmpi-dev)
have python3 || need_apt+=(python3 python3-pip)

if [ ${#need_apt[@]} -gt 0 ]; then
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
if [ ${#need_pip[@]} -gt 0 ]; then
  echo "install-deps: pip install ${need_pip[*]}"
  python3 -m pip install -q "${need_pip[@]}"
fi
exit 0
