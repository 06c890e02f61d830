#!/usr/bin/env bash
# Fills .devkit/ (git-ignored) with what the lent GPU machine lacks to run meshmem's benchmarks
# beside their OpenMPI twins: Debian bookworm's OpenMPI 4.1.4 (+ OSHMEM, wrappers, headers),
# PMIx 4.2.2, UCX 1.13.1 (+ ucx_perftest), FFTW 3 (double, single, MPI) and OpenBLAS (pthread),
# as .deb files, plus every shared library they need that an Ubuntu 24.04 image may lack.
# On the device, scripts/device-env.sh unpacks them into /tmp (never into /) and sets the
# environment. Run here (Debian bookworm, root): scripts/device-kit.sh [--check]
#   --check   only re-run the closure check and print the size (no download)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT=$ROOT/.devkit
DEBS=$KIT/debs
ARCH=x86_64-linux-gnu

# What we ask for by name; their shared-library dependencies are added below by a closure
# over the ELF files of the unpacked tree.
SEEDS=(
  openmpi-bin libopenmpi3 openmpi-common libopenmpi-dev   # mpirun/oshrun, libs, help, mpicc/oshcc
  libpmix2                                                # the external PMIx OpenMPI is built on
  libucx0 ucx-utils                                       # UCX (OSHMEM's spml) + ucx_perftest
  libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
  libfftw3-double3 libfftw3-single3 libfftw3-mpi3 libfftw3-dev libfftw3-mpi-dev
  libopenblas0-pthread libopenblas-pthread-dev
  libpmix-dev libucx-dev                                  # headers: a UCX/PMIx transport built there
  pkgconf pkgconf-bin                                     # pkg-config, used only if the machine has none
)
# Present on any Ubuntu 24.04 (CUDA) image: never shipped (shipping them would shadow the
# system's newer copies through LD_LIBRARY_PATH).
BASE_SONAMES='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libutil\.so\.1|libresolv\.so\.2|ld-linux-x86-64\.so\.2|libgcc_s\.so\.1|libstdc\+\+\.so\.6|libz\.so\.1|libzstd\.so\.1|liblzma\.so\.5|libbz2\.so\.1\.0|libcrypt\.so\.1)$'
# Components we do not ship, whose missing dependencies are therefore not followed.
SKIP_PACKAGES='^(libc6|libgcc-s1|libstdc\+\+6|zlib1g|libzstd1|liblzma5|libbz2-1\.0|libcrypt1)$'

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

mkdir -p "$DEBS"
# keep .devkit out of git (the repository's own ignore files are not touched)
EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude)
case $EXCLUDE in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
mkdir -p "$(dirname "$EXCLUDE")"
grep -qxF '/.devkit/' "$EXCLUDE" 2>/dev/null || echo '/.devkit/' >>"$EXCLUDE"

download() {  # download package names (skipping those already in debs/)
  local want=()
  for p in "$@"; do
    compgen -G "$DEBS/${p}_*.deb" >/dev/null || want+=("$p")
  done
  [ ${#want[@]} -eq 0 ] && return 0
  echo "device-kit: apt-get download ${want[*]}"
  (cd "$DEBS" && apt-get download -q "${want[@]}" >/dev/null)
}

unpack_all() {  # unpack every .deb into a fresh tree $1, exactly as the device will
  rm -rf "$1"
  (DEVKIT_PREFIX=$1 DEVKIT_DEBS=$DEBS DEVKIT_QUIET=1 DEVKIT_KEEP_ALL=1 . "$ROOT/scripts/device-env.sh")
}

# soname -> Debian package, looked up in this machine's dpkg database (the kit's packages are
# installed here: scripts/install-deps.sh, plus the FFTW/OpenBLAS/UCX ones).
owner_of() {
  local so=$1 pkg
  pkg=$(dpkg -S "*/$ARCH/$so" "*/$ARCH/*/$so" 2>/dev/null | grep -v '^diversion' | head -1 | cut -d: -f1) || true
  # a soname that Debian's "alternatives" makes (libpsm_infinipath.so.1 -> libpsm1/...so.1.16)
  [ -n "$pkg" ] || pkg=$(dpkg -S "*/$so.*" 2>/dev/null | grep -v '^diversion' | head -1 | cut -d: -f1) || true
  printf '%s' "$pkg"
}

TREE=$(mktemp -d /tmp/devkit-tree.XXXXXX)
trap 'rm -rf "$TREE"' EXIT

if [ $check_only -eq 0 ]; then
  if ! apt-cache show openmpi-bin >/dev/null 2>&1; then apt-get update -qq; fi
  download "${SEEDS[@]}"
fi

# Closure: every NEEDED soname of every ELF file in the tree must be in the tree or in the
# base set; otherwise its package is added and the loop runs again.
for round in 1 2 3 4 5 6 7 8; do
  unpack_all "$TREE"
  # provided: what the dynamic loader will find on the device, i.e. in device-env.sh's
  # LD_LIBRARY_PATH folders (UCX's modules and OpenMPI's/PMIx's components are dlopen'ed by path)
  libdirs=$(DEVKIT_PREFIX=$TREE DEVKIT_DEBS=$DEBS DEVKIT_QUIET=1 DEVKIT_KEEP_ALL=1 bash -c \
            ". '$ROOT/scripts/device-env.sh' && echo \$DEVKIT_LIBDIRS" | tr : ' ')
  # (+ UCX's module folder, which its modules reach through RUNPATH $ORIGIN)
  provided=$(find $libdirs "$TREE/usr/lib/$ARCH/ucx" -maxdepth 1 \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)
  needed=$(find "$TREE" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
           { xargs -0 -r readelf -d 2>/dev/null || true; } | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
  missing=$(comm -23 <(echo "$needed") <(echo "$provided") | grep -Ev "$BASE_SONAMES" || true)
  [ -z "$missing" ] && break
  add=()
  for so in $missing; do
    pkg=$(owner_of "$so")
    if [ -z "$pkg" ]; then echo "device-kit: no installed package provides $so" >&2; exit 1; fi
    [[ $pkg =~ $SKIP_PACKAGES ]] && continue
    echo "device-kit: $so <- $pkg"
    add+=("$pkg")
  done
  [ ${#add[@]} -eq 0 ] && break
  if [ $check_only -eq 1 ]; then echo "device-kit: missing: ${add[*]}" >&2; exit 1; fi
  download $(printf '%s\n' "${add[@]}" | sort -u)
done

# RPATH/RUNPATH that point at the system's directories would bypass LD_LIBRARY_PATH: list them.
rp=$(find "$TREE" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
     { xargs -0 -r readelf -d 2>/dev/null || true; } | grep -E 'R(UN)?PATH' | sort | uniq -c || true)
[ -n "$rp" ] && echo "device-kit: RPATH/RUNPATH in the kit:" && echo "$rp"

# `ip` (iproute2) for virtual hosts (meshrun --vhosts), which a container image may lack: the
# program and the libraries it needs beyond the base set, in a folder of its own behind a wrapper
# (device-env.sh puts it on PATH only where the machine has no ip), so they shadow nothing.
IPR=$KIT/iproute
rm -rf "$IPR" && mkdir -p "$IPR/bin" "$IPR/lib"
cp "$(readlink -f "$(command -v ip)")" "$IPR/lib/ip"
ldd "$IPR/lib/ip" | awk '$2 == "=>" {print $1, $3}' | while read -r so path; do
  [[ $so =~ $BASE_SONAMES ]] || cp -L "$path" "$IPR/lib/$so"
done
cat >"$IPR/bin/ip" <<'WRAP'
#!/bin/sh
# iproute2's ip from Debian bookworm with its own libraries (scripts/device-kit.sh)
d=$(dirname "$(readlink -f "$0")")/../lib
LD_LIBRARY_PATH=$d exec "$d/ip" "$@"
WRAP
chmod +x "$IPR/bin/ip"

ls "$DEBS" | sed 's/_.*//' >"$KIT/packages.txt"
size=$(du -sh "$DEBS" | cut -f1)
echo "device-kit: $(ls "$DEBS" | wc -l) packages in .devkit/debs, $size ($(du -sh "$TREE" | cut -f1) unpacked)"
