#!/bin/sh
# tools/rtl_bench.sh [BUILD]: the figures of docs/rtl-transport.md ("Simulated figures"), from
# `meshmem bench OP --rtl CONFIG` (the benchmarks on the simulated OPTWEB engine, their simulated
# time beside the model's prediction and the paper's figure): put, get, barrier and all-to-all
# on 2 and 8 nodes of optweb-fc8-45g, all-to-all on 8 of optweb-fc8-90g, put and get on
# fshmem-2node. BUILD: build/.
set -e
b=${1:-build}
bench() { MESHMEM_BUILD="$b" "$b/bin/meshmem" bench "$@"; }
for n in 2 8; do
  bench put --rtl optweb-fc8-45g --ranks "$n" --sizes 8,128,1M
  bench get --rtl optweb-fc8-45g --ranks "$n" --sizes 8,128
  bench barrier alltoall --rtl optweb-fc8-45g --ranks "$n" --sizes 8,128,1K
done
bench alltoall --rtl optweb-fc8-90g --ranks 8 --sizes 8,128,1K
bench put get --rtl fshmem-2node --ranks 2 --sizes 8,128
