#!/bin/sh
# run_example.sh STATUS EXPECT FORBID COMMAND...: run COMMAND (a spec example under meshrun or
# mpirun), pass its output through, and fail unless it exits with STATUS, prints a line
# matching the extended regular expression EXPECT (when not empty) and none matching FORBID.
want=$1 expect=$2 forbid=$3
shift 3
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" != "$want" ]; then
  echo "run_example: exit status $rc, expected $want"
  exit 1
fi
if [ -n "$expect" ] && ! printf '%s\n' "$out" | grep -Eq -- "$expect"; then
  echo "run_example: no line matches /$expect/"
  exit 1
fi
if [ -n "$forbid" ] && printf '%s\n' "$out" | grep -Eq -- "$forbid"; then
  echo "run_example: a line matches /$forbid/"
  exit 1
fi
exit 0
