# Device run 2: virtual hosts on free cores (issue 11's latencies, issue 12's collectives and the
# sort on 2 x 2), GEMM and conv with OpenBLAS told the CPU (the VM's CPUID names no model), and the
# 8-rank allreduce per algorithm.
set -o pipefail
T0=$(date +%s)
B=$OUT/bench.txt
J=/tmp/res; mkdir -p $J
el() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(el)s] $*" >>$B; }
pack() { tar -czf $OUT/res.tar.gz -C $J . 2>/dev/null; }
run() {
  local lim=$1 dl=$2; shift 2
  if [ "$(el)" -ge "$dl" ]; then log "SKIPPED (deadline $dl): $*"; return 1; fi
  log "=== $*"
  timeout -k 5 "$lim" "$@" >>$B 2>&1
  local rc=$?; log "rc=$rc"; pack; return $rc
}
env | grep -E '^(OMPI_|PMIX_|OPAL_|UCX_|OPENBLAS|OMP_)' >>$B
grep -o 'avx512[a-z]*\|avx2\|amx[a-z_]*' /proc/cpuinfo | sort -u | tr '\n' ' ' >>$B; echo >>$B
unset OMPI_MCA_plm OMPI_MCA_btl_vader_single_copy_mechanism
export DEVKIT_SYSTEM_LINKS=1
. scripts/device-env.sh >>$B 2>&1 || { echo "device-env failed" >>$B; exit 1; }
( cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMESHMEM_WERROR=OFF && cmake --build build -j 16 ) >/tmp/build.log 2>&1 || { log "BUILD FAILED"; tail -30 /tmp/build.log >>$B; exit 1; }
log "build ok"
M=$PWD/build/bin/meshmem
if grep -q avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; else export OPENBLAS_CORETYPE=Haswell; fi
run 60 200 $M gemm --ranks 2 --size 2048 --rounds 3 --json $J/gemm2.json
run 45 240 $M conv --ranks 2 --rounds 3 --json $J/conv2.json
run 30 270 $M bench allreduce --ranks 8 --sizes 8,1K --algo auto,onestep,naive,aggressive,ring,recdbl --rounds 3 --vs none
# virtual hosts
if ! run 40 300 $M bench put --vhosts 2 --ranks 2 --sizes 8 --rounds 1 --vs none; then
  log "vhost diagnostics"
  timeout 30 tools/meshrun-vhosts run 2 -- mpirun -n 2 --host vhost1,vhost2 hostname >>$B 2>&1
  timeout 30 $PWD/build/bin/meshrun --vhosts 2 -n 2 -v hostname >>$B 2>&1
else
  run 150 420 $M bench put get atomic pingpong --vhosts 2 --ranks 2 --sizes 8,1M --rounds 3 --json $J/v2x1.json
  run 130 500 $M bench alltoall allgather allreduce bcast barrier --vhosts 2 --ranks 4 --sizes 8,1M --rounds 3 --json $J/v2x2.json
  run 70 560 $M sort --vhosts 2 --ranks 4 --variant a1,radix,ghc --records 2^24 --rounds 3 --json $J/sort2x2.json
fi
log "done"
pack
