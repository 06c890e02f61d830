#!/usr/bin/env bash
# ctest-checked.sh BUILD_DIR [ctest arguments...]
#
# Runs ctest in BUILD_DIR (the sanitizer suites of `make asan` / `make tsan`), then checks that
# the run left nothing behind:
#   - no process still running a program of BUILD_DIR (a rank or launcher that outlived its test);
#   - no /dev/shm object of a meshmem job that appeared during the run and whose job has ended
#     (objects are named meshmem.<pid>.*, pid being meshrun's or a singleton rank's: a job that
#     is still alive, another engineer's for instance, is not ours to judge).
# Leftovers are listed, removed (processes by pid, objects by name) and fail the run, as does
# a failing ctest. ctest's own status comes first.
set -uo pipefail
build=$(cd "$1" && pwd)
shift
if ! command -v pgrep >/dev/null; then # an absent pgrep would hide every stray process
  echo "ctest-checked: pgrep is missing (Debian package procps; scripts/install-deps.sh)" >&2
  exit 1
fi

shm_objects() { ls /dev/shm 2>/dev/null | grep '^meshmem\.' | sort || true; }
before=$(shm_objects)

(cd "$build" && ctest "$@")
rc=$?

bad=0
# processes: anything whose command line runs a file of this build directory
strays=$(pgrep -f -- "^[^ ]*$build/(bin|tests|bench|apps)/" || true)
if [ -n "$strays" ]; then
  echo "ctest-checked: processes of $build still running after the tests:" >&2
  for p in $strays; do
    echo "  $(ps -o pid=,args= -p "$p" 2>/dev/null || echo "$p")" >&2
  done
  # a launcher stopping its job has the 2 s it promises; what still runs then is ended
  sleep 2
  for p in $(pgrep -f -- "^[^ ]*$build/(bin|tests|bench|apps)/" || true); do
    kill -KILL "$p" 2>/dev/null || true
  done
  bad=1
fi
# shared-memory objects: new since the run began, of a job that no longer runs
left=()
for name in $(comm -13 <(echo "$before") <(shm_objects)); do
  pid=${name#meshmem.}
  pid=${pid%%.*}
  case "$pid" in '' | *[!0-9]*) continue ;; esac
  kill -0 "$pid" 2>/dev/null && continue
  left+=("$name")
done
if [ ${#left[@]} -gt 0 ]; then
  echo "ctest-checked: /dev/shm objects left behind by ended jobs (removed now): ${left[*]}" >&2
  for name in "${left[@]}"; do rm -f "/dev/shm/$name"; done
  bad=1
fi
if [ $rc -ne 0 ]; then
  exit $rc
fi
if [ $bad -ne 0 ]; then
  echo "ctest-checked: FAILED: the tests in $build left processes or shared memory behind" >&2
  exit 1
fi
echo "ctest-checked: no stray processes, nothing left in /dev/shm"
