#!/bin/sh
# tools/rtl_bench.sh [BUILD]: the figures of docs/rtl-transport.md ("Simulated figures"), from
# `meshmem bench OP --rtl CONFIG` (the benchmarks on the simulated OPTWEB engine, their simulated
# time beside the model's prediction and the paper's figure): put, get, barrier, all-to-all,
# all-to-all-v and all-reduce (int32 and int64 sums: offloaded; float32: the runtime's
# algorithm) on 2 and 8 nodes of optweb-fc8-45g, all-to-all and the int32 all-reduce on 8 of
# optweb-fc8-90g, put and get on fshmem-2node. BUILD: build/.
set -e
b=${1:-build}
bench() { MESHMEM_BUILD="$b" "$b/bin/meshmem" bench "$@"; }
for n in 2 8; do
  bench put --rtl optweb-fc8-45g --ranks "$n" --sizes 8,128,1M
  bench get --rtl optweb-fc8-45g --ranks "$n" --sizes 8,128
  bench barrier alltoall alltoallv --rtl optweb-fc8-45g --ranks "$n" --sizes 8,128,1K
  for t in int32 int64 float32; do
    bench allreduce --rtl optweb-fc8-45g --ranks "$n" --sizes 8,1K --dtype "$t"
  done
done
bench alltoall --rtl optweb-fc8-90g --ranks 8 --sizes 8,128,1K
bench allreduce --rtl optweb-fc8-90g --ranks 8 --sizes 8,1K --dtype int32
bench put get --rtl fshmem-2node --ranks 2 --sizes 8,128
