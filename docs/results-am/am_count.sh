#!/bin/bash
# am_count.sh BUILD TAG: instructions per 8-byte AM round trip, per side (am_count.c under callgrind)
B=$1; T=$2; N=${N:-20000}
$B/bin/meshcc -O2 $(dirname $0)/am_count.c -o ${OUT:-/tmp}/am_count-$T || exit 1
rm -f ${OUT:-/tmp}/out-$T.*
$B/bin/meshrun -n 2 --timeout 600 valgrind --tool=callgrind --callgrind-out-file=${OUT:-/tmp}/out-$T.%p ${OUT:-/tmp}/am_count-$T $N 2>&1 | grep "round trips"
for f in ${OUT:-/tmp}/out-$T.*; do
  callgrind_annotate --inclusive=yes --threshold=100 $f 2>/dev/null | grep -E ":(send_request|serve_request|take_reply)[ .]" |
    awk -v n=$N -v t=$T '{gsub(",","",$1); name=$0; sub(/.*:/,"",name); sub(/[ .].*/,"",name); printf "%s %-14s %6.1f instructions per round trip\n", t, name, $1/n}'
done
