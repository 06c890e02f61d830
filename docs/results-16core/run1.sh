# Device run 1: build; the OPTWEB reference points on 8 dedicated cores and the 2^27 sort (BRIEF);
# a virtual-host probe; the applications' 2-rank targets and strong scaling on free cores; the
# single-node figures of 0d57aec (before the transport layer) beside HEAD.
# Everything lands in $OUT/bench.txt as it goes; JSON and plots in $OUT/res.tar.gz.
set -o pipefail
T0=$(date +%s)
B=$OUT/bench.txt
J=/tmp/res; mkdir -p $J
el() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(el)s] $*" >>$B; }
pack() { tar -czf $OUT/res.tar.gz -C $J . 2>/dev/null; }
# run LIMIT_S DEADLINE_S CMD...: skipped when the run is past DEADLINE_S
run() {
  local lim=$1 dl=$2; shift 2
  if [ "$(el)" -ge "$dl" ]; then log "SKIPPED (deadline $dl): $*"; return; fi
  log "=== $*"
  timeout -k 5 "$lim" "$@" >>$B 2>&1
  log "rc=$?"
  pack
}
{
  echo "host $(hostname) kernel $(uname -r) cores $(nproc)"
  lscpu | grep -E '^(Model name|Thread|Core|Socket|NUMA node|L3)'
  free -g | head -2
  gcc --version | head -1; python3 --version; cmake --version | head -1
  for t in ip unshare nsenter flock findmnt mpirun; do echo "$t: $(command -v $t || echo MISSING)"; done
  cat /etc/os-release | grep PRETTY
} >>$B 2>&1
. scripts/device-env.sh >>$B 2>&1 || { echo "device-env failed" >>$B; exit 1; }
log "env ok; ip: $(command -v ip)"
mkdir -p /tmp/old && tar -xzf .devkit/old.tar.gz -C /tmp/old
( cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMESHMEM_WERROR=OFF && cmake --build build -j 12 ) >$OUT/build.log 2>&1 &
NEW=$!
( cd /tmp/old && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMESHMEM_WERROR=OFF && cmake --build build -j 4 ) >/tmp/build-old.log 2>&1 &
OLD=$!
wait $NEW || { log "BUILD FAILED"; tail -30 $OUT/build.log >>$B; exit 1; }
log "new build ok, warnings: $(grep -c 'warning:' $OUT/build.log)"
wait $OLD && log "old build ok" || { log "old build failed"; tail -20 /tmp/build-old.log >>$B; }
M=$PWD/build/bin/meshmem; O=/tmp/old/build/bin/meshmem
# 1. BRIEF: 8 ranks on 8 cores, beside OpenMPI in the same run
run 150 400 $M bench alltoall allreduce coll_barrier barrier --ranks 8 --sizes 8,1K --bind-to core --rounds 5 --json $J/ref8.json
run 150 400 $M sort --ranks 8 --records 2^27 --variant a1,radix --bind-to core --rounds 3 --json $J/sort27.json
# 2. virtual hosts: can they be built here?
export DEVKIT_SYSTEM_LINKS=1; . scripts/device-env.sh >>$B 2>&1; unset DEVKIT_SYSTEM_LINKS
log "vhosts check: $(tools/meshrun-vhosts check 2>&1; echo rc=$?)"
run 60 420 $M bench put pingpong --vhosts 2 --ranks 2 --sizes 8 --rounds 1
# 3. the applications on free cores
run 90 450 $M fft --ranks 2 --size 256 --rounds 3 --iters 3 --json $J/fft2.json
run 60 460 $M gemm --ranks 2 --size 2048 --rounds 3 --json $J/gemm2.json
run 60 470 $M conv --ranks 2 --rounds 3 --json $J/conv2.json
run 40 480 $M shallow --ranks 2 --size 32x64 --decomp 1 --steps 200 --rounds 5 --json $J/shallow2.json
run 40 490 $M amt --ranks 8 --rounds 3 --json $J/amt8.json
run 40 500 $M amt --ranks 2 --rounds 3 --json $J/amt2.json
run 60 520 $M fft --scale 1,2,4,8 --size 128 --variant slab,pencil --rounds 2 --json $J/fftscale.json --plot $J/fft.png
run 40 540 $M shallow --scale 1,2,4,8 --size 128x128 --rounds 3 --json $J/shallowscale.json --plot $J/shallow.png
# 4. 0d57aec beside HEAD, single node, alternating
for side in new old new old; do
  X=$M; [ $side = old ] && X=$O
  run 30 575 env MESHMEM_BUILD=$(dirname $(dirname $X)) $X bench put get pingpong alltoall allreduce bcast coll_barrier --ranks 2 --sizes 8 --bind core --rounds 3 --vs none --json $J/two-$side-$(el).json
done
log "done"
pack
