# Sourced (bash) on the lent GPU machine, from the repository root:  . scripts/device-env.sh
# Unpacks every .deb of .devkit/debs (made here by scripts/device-kit.sh: Debian bookworm's
# OpenMPI 4.1.4, PMIx 4.2.2, UCX 1.13.1, FFTW 3, OpenBLAS and their libraries) into a prefix
# under /tmp -- never into / -- and points PATH, LD_LIBRARY_PATH, the compilers and OpenMPI,
# PMIx and UCX at that relocated tree. Idempotent: a second source reuses the unpacked tree.
#   DEVKIT_PREFIX   where to unpack (default /tmp/devkit)
#   DEVKIT_DEBS     the .deb folder (default <repo>/.devkit/debs)
#   DEVKIT_QUIET=1  no summary line
# Returns non-zero (without exiting the calling shell) when the kit is missing.

_dk_main() {
  local root debs P U L d n t s
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  debs=${DEVKIT_DEBS:-$root/.devkit/debs}
  P=${DEVKIT_PREFIX:-/tmp/devkit}
  case $P in /|/usr|/usr/*|"") echo "device-env: refusing to unpack into '$P'" >&2; return 1 ;; esac
  if ! compgen -G "$debs/*.deb" >/dev/null; then
    echo "device-env: no .deb in $debs (run scripts/device-kit.sh where packages can be fetched, carry .devkit)" >&2
    return 1
  fi
  U=$P/usr
  L=$U/lib/x86_64-linux-gnu
  # an image may preset OpenMPI/UCX/PMIx variables (HPC-X, NGC images do): they would change what
  # is measured, so they are named (not changed) on the first source
  if [ -z "${DEVKIT_PREFIX_SET:-}" ]; then
    t=$(env | grep -E '^(OMPI_|OPAL_|PMIX_|UCX_|HWLOC_|ORTE_)' | grep -vE '^(OMPI_ALLOW_RUN_AS_ROOT|OMPI_MCA_opal_common_ucx_opal_mem_hooks)' | cut -d= -f1 | tr '\n' ' ' || true)
    if [ -n "$t" ]; then echo "device-env: WARNING, set before this script: $t" >&2; fi
  fi

  if [ ! -e "$P/.devkit-unpacked" ]; then
    mkdir -p "$P"
    n=0
    for d in "$debs"/*.deb; do
      if command -v dpkg-deb >/dev/null 2>&1; then dpkg-deb -x "$d" "$P" || return 1
      else ar p "$d" data.tar.xz | tar -xJf - -C "$P" || return 1   # no dpkg: same result
      fi
      n=$((n + 1))
    done
    # What dpkg's maintainer scripts would have done: Debian's "alternatives" links (mpicc,
    # mpirun, libpsm_infinipath, OpenBLAS as libblas/liblapack/cblas.h), made relative.
    _dk_link() { [ -e "$(dirname "$2")/$1" ] && [ ! -e "$2" ] && ln -sfn "$1" "$2"; return 0; }
    for t in mpicc mpiCC mpic++ mpicxx mpif77 mpif90 mpifort mpirun mpiexec; do
      case $t in mpiCC|mpicxx) s=mpic++.openmpi ;; *) s=$t.openmpi ;; esac
      _dk_link "$s" "$U/bin/$t"
    done
    _dk_link openmpi/lib/libmpi.so "$L/libmpi.so"
    _dk_link ../../lib/libpsm1/libpsm_infinipath.so.1.16 "$L/libpsm_infinipath.so.1"
    for t in libblas.so.3 liblapack.so.3 libopenblas.so.0 libopenblas.so libblas.so liblapack.so; do
      _dk_link "openblas-pthread/$t" "$L/$t"
    done
    for t in cblas.h f77blas.h openblas_config.h; do
      _dk_link "openblas-pthread/$t" "$U/include/x86_64-linux-gnu/$t"
    done
    _dk_link openblas-pthread/cblas.h "$U/include/x86_64-linux-gnu/cblas-openblas.h"
    mkdir -p "$L/pkgconfig"
    _dk_link ../openblas-pthread/pkgconfig/openblas.pc "$L/pkgconfig/openblas.pc"
    _dk_link ../openblas-pthread/pkgconfig/blas-openblas.pc "$L/pkgconfig/blas.pc"
    _dk_link ../openblas-pthread/pkgconfig/lapack-openblas.pc "$L/pkgconfig/lapack.pc"
    unset -f _dk_link
    # pkg-config files: Debian's name /usr/... absolutely; they now name the prefix
    find "$P" -name '*.pc' -type f 2>/dev/null | while read -r d; do
      sed -i -E "s#(^|[=[:space:]]|-I|-L|-Wl,)/usr(/|[[:space:]]|\$)#\1$P/usr\2#g" "$d"
    done
    # pkg-config itself only for a machine without one (appended to PATH below)
    mkdir -p "$P/fallback-bin"
    for t in pkg-config pkgconf x86_64-linux-gnu-pkg-config x86_64-linux-gnu-pkgconf; do
      if [ -e "$U/bin/$t" ] || [ -L "$U/bin/$t" ]; then mv "$U/bin/$t" "$P/fallback-bin/"; fi
    done
    # absolute symbolic links in the packages point into the real /: re-aim them at the prefix
    find "$P" -type l -lname '/*' 2>/dev/null | while read -r d; do
      t=$(readlink "$d")
      case $t in /etc/alternatives/*) rm -f "$d" ;; *) if [ -e "$P$t" ]; then ln -sfn "$P$t" "$d"; fi ;; esac
    done
    # Generic libraries that any newer system copy replaces (backward compatible): where this
    # machine has one, ours is dropped, so that LD_LIBRARY_PATH never shadows a newer copy
    # (Ubuntu 24.04's gcc 14 runtime, systemd 255, ...). The OpenMPI/PMIx/UCX/verbs/hwloc/libevent
    # stack is always ours: one consistent set, as built by Debian.
    if [ "${DEVKIT_KEEP_ALL:-0}" != 1 ]; then
      local cache; cache=$(/sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null)
      for t in libudev.so.1 libuuid.so.1 libatomic.so.1 libgomp.so.1 libgfortran.so.5 \
               libquadmath.so.0 libnuma.so.1 libpkgconf.so.3; do
        if printf '%s\n' "$cache" | grep -q "^[[:space:]]$t (libc6,x86-64"; then
          for d in "$L" "$P/lib/x86_64-linux-gnu"; do
            if [ -e "$d/$t" ]; then s=$(readlink -f "$d/$t"); rm -f "$d/$t" "$s"; fi
          done
          echo "$t" >>"$P/.devkit-from-system"
        fi
      done
    fi
    echo "$n" >"$P/.devkit-unpacked"
  fi

  # ($P/lib/x86_64-linux-gnu: libnl and a few others install under /lib, not /usr/lib)
  local libdirs="$L:$P/lib/x86_64-linux-gnu:$L/openmpi/lib:$L/pmix2/lib:$L/openblas-pthread:$L/ucx"
  # DEVKIT_SYSTEM_LINKS=1, for virtual hosts on a throwaway machine: mpirun's daemons on a
  # virtual host start in a login-like environment (no LD_LIBRARY_PATH, no OPAL_PREFIX), as on a
  # real host, so the stack must be where Debian's build looks: links from Debian's absolute
  # folders into the prefix (only where the machine has none) and the prefix's library folders
  # in the loader's cache, BEFORE the system's own, in the order LD_LIBRARY_PATH gives them
  # below. Where two folders hold a library of one soname, the cache resolves it from the
  # folder ldconfig read first: a file sorting after the system's (it was zz-devkit.conf) let a
  # machine's own UCX win on the virtual hosts (the lent machine's Ubuntu 1.16 against the
  # carried 1.13.1: docs/results-across.md). Checked with ldconfig -C into a scratch cache,
  # bound over /etc/ld.so.cache in a mount namespace: 00- resolves libucp.so.0 to the listed
  # folder, zz- to the system's.
  if [ "${DEVKIT_SYSTEM_LINKS:-0}" = 1 ]; then
    for t in usr/lib/x86_64-linux-gnu/openmpi usr/lib/x86_64-linux-gnu/pmix2 \
             usr/lib/x86_64-linux-gnu/ucx usr/share/openmpi usr/share/pmix etc/openmpi; do
      if [ ! -e "/$t" ] && [ -e "$P/$t" ]; then mkdir -p "$(dirname "/$t")"; ln -s "$P/$t" "/$t"; fi
    done
    rm -f /etc/ld.so.conf.d/zz-devkit.conf # an earlier kit's, read after the system's
    echo "$libdirs" | tr : '\n' >/etc/ld.so.conf.d/00-devkit.conf
    ldconfig
  fi

  # programs and libraries: ours first (Debian's OpenMPI stack is one consistent set);
  # a second source in the same shell prepends nothing twice
  if [ "${DEVKIT_PREFIX_SET:-}" = 1 ] && [ "${DEVKIT_PREFIX:-}" = "$P" ]; then
    [ "${DEVKIT_QUIET:-0}" = 1 ] || echo "device-env: already set up from $P"
    return 0
  fi
  export PATH="$U/bin${PATH:+:$PATH}:$P/fallback-bin"
  export DEVKIT_LIBDIRS="$libdirs"
  export LD_LIBRARY_PATH="$DEVKIT_LIBDIRS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # compiling and linking against the tree (gcc, and CMake's find_* via CMAKE_PREFIX_PATH)
  export CPATH="$U/include:$U/include/x86_64-linux-gnu:$U/include/x86_64-linux-gnu/openblas-pthread${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$L:$P/lib/x86_64-linux-gnu:$L/openblas-pthread${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export CMAKE_PREFIX_PATH="$U${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export PKG_CONFIG_PATH="$L/pkgconfig:$L/openmpi/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  # OpenMPI relocated: its libdir, pkglibdir (components), datadir (help files, wrapper data) and
  # includedir follow OPAL_PREFIX (Debian's are ${prefix}/...); sysconfdir is an absolute
  # /etc/openmpi in Debian's build, so it is named (Debian's openmpi-mca-params.conf: pml ^ucx,
  # osc ^ucx,pt2pt, btl ^uct,openib,ofi, mtl ^ofi -- the same settings as on the dev machines)
  export OPAL_PREFIX="$U"
  export OPAL_SYSCONFDIR="$P/etc/openmpi"
  # PMIx relocated: Debian's PMIx has absolute libdir/datadir, so each is named
  export PMIX_PREFIX="$L/pmix2" PMIX_EXEC_PREFIX="$L/pmix2"
  export PMIX_LIBDIR="$L/pmix2/lib" PMIX_PKGLIBDIR="$L/pmix2/lib/pmix"
  export PMIX_DATADIR="$L/pmix2/share" PMIX_PKGDATADIR="$L/pmix2/share/pmix"
  export PMIX_SYSCONFDIR="$L/pmix2/share" PMIX_INCLUDEDIR="$L/pmix2/include"
  # ... and its pmix-mca-params.conf names the component folder absolutely: overridden
  export PMIX_MCA_mca_base_component_path="$L/pmix2/lib/pmix"
  # UCX finds its transport modules beside libucs; named anyway
  export UCX_MODULE_DIR="$L/ucx"
  # running as root; UCX memory hooks crash OSHMEM's shmem_finalize (see docs / ompi#11604)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_opal_common_ucx_opal_mem_hooks=0
  export DEVKIT_PREFIX="$P" DEVKIT_PREFIX_SET=1
  # a machine without ip: the kit's own (device-kit.sh), for virtual hosts
  if ! command -v ip >/dev/null 2>&1 && [ -x "$root/.devkit/iproute/bin/ip" ]; then
    export PATH="$PATH:$root/.devkit/iproute/bin"
  fi

  if [ "${DEVKIT_QUIET:-0}" != 1 ]; then
    echo "device-env: $(cat "$P/.devkit-unpacked") packages unpacked in $P" \
         "($(cat "$P/.devkit-from-system" 2>/dev/null | wc -l) generic libraries left to the system's);" \
         "$(command -v mpirun 2>/dev/null || echo 'NO mpirun') ($(mpirun --version 2>/dev/null | head -1 | sed 's/.*) //'))," \
         "ucx $(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p'), OPAL_PREFIX=$OPAL_PREFIX," \
         "PATH/LD_LIBRARY_PATH/CPATH/LIBRARY_PATH/CMAKE_PREFIX_PATH prepended, OMPI_ALLOW_RUN_AS_ROOT=1," \
         "OMPI_MCA_opal_common_ucx_opal_mem_hooks=0"
  fi
}
_dk_main
_dk_rc=$?
unset -f _dk_main
[ $_dk_rc -eq 0 ]
