#!/bin/sh
# tools/rtl_bench.sh [BUILD]: the benchmarks on the simulated OPTWEB engine (meshrun --rtl), their
# timers reading meshmem_wtime, so simulated time: put, get, barrier, all-to-all, all-to-all-v and
# all-reduce (int32 and int64 sums: offloaded; float32: the runtime's algorithm) of 8 B and 1 KiB
# and a 1 MiB unicast on 2 and 8 nodes of optweb-fc8-45g, all-to-all and the int32 all-reduce on
# optweb-fc8-90g, put and get on fshmem-2node. The table of docs/rtl-transport.md ("Simulated
# figures"). BUILD: build/.
set -e
b=${1:-build}
run() { cfg=$1 n=$2; shift 2; "$b/bin/meshrun" --heap 64M --timeout 300 --rtl "$cfg" -n "$n" "$@" | grep '^@osu' | sed "s/^@osu/$cfg/"; }
for n in 2 8; do
  run optweb-fc8-45g $n "$b/bench/osu_shmem" -o put -s 8,128,1048576 -i 20 -I 3 -w 2 -W 1
  run optweb-fc8-45g $n "$b/bench/osu_shmem" -o get -s 8,128 -i 20 -w 2
  run optweb-fc8-45g $n "$b/bench/osu_coll" -o barrier -s 0 -i 20 -w 2
  run optweb-fc8-45g $n "$b/bench/osu_coll" -o alltoall -s 8,1024 -i 20 -w 2
  run optweb-fc8-45g $n "$b/bench/osu_coll" -o alltoallv -s 8,1024 -i 20 -w 2
  for t in int32 int64 float32; do
    run optweb-fc8-45g $n "$b/bench/osu_coll" -o allreduce -d $t -s 8,1024 -i 20 -w 2 |
      sed "s/\$/ $t/"
  done
done
run optweb-fc8-90g 8 "$b/bench/osu_coll" -o alltoall -s 8,1024 -i 20 -w 2
run optweb-fc8-90g 8 "$b/bench/osu_coll" -o allreduce -d int32 -s 8,1024 -i 20 -w 2
run fshmem-2node 2 "$b/bench/osu_shmem" -o put -s 8,128 -i 20 -w 2
run fshmem-2node 2 "$b/bench/osu_shmem" -o get -s 8,128 -i 20 -w 2
