#!/usr/bin/env bash
# Formats meshmem's C and C++ sources with clang-format (.clang-format at the root).
#   scripts/format.sh           rewrite every file that does not conform
#   scripts/format.sh --check   change nothing; fail listing the files that do not conform
#   scripts/format.sh FILE...   (either form) only these files
# The files: the tracked *.c, *.h, *.cc, *.cpp, *.hpp, less the upstream copies of tests/spec
# (examples of the OpenSHMEM specification); build trees, Verilator's output under rtl/ and the
# generated pshmem.h are not tracked. CLANG_FORMAT names the binary (default clang-format-14,
# else clang-format); its major version must be the one .clang-format is written for.
set -euo pipefail
cd "$(dirname "$0")/.."
MAJOR=14

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
case "${1:-}" in -*) echo "usage: scripts/format.sh [--check] [FILE...]" >&2; exit 2 ;; esac

cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  if command -v clang-format-$MAJOR >/dev/null 2>&1; then cf=clang-format-$MAJOR; else cf=clang-format; fi
fi
version=$("$cf" --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p') || true
if [ "$version" != "$MAJOR" ]; then
  echo "format.sh: $cf is version ${version:-unknown}, .clang-format is written for clang-format $MAJOR (scripts/install-deps.sh installs it; CLANG_FORMAT=path chooses another binary)" >&2
  exit 2
fi

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cc' '*.cpp' '*.hpp' ':!tests/spec/')
fi

bad=()
for f in "${files[@]}"; do
  if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -eq 0 ]; then
  exit 0
fi
if [ $check = 1 ]; then
  echo "format.sh: ${#bad[@]} file(s) do not conform to .clang-format (scripts/format.sh rewrites them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
"$cf" --style=file -i "${bad[@]}"
echo "format.sh: formatted ${#bad[@]} file(s)"
