#!/usr/bin/env bash
# bench/mutate.sh - the mutation benchmark: this repository's catalogues run
# two ways, side by side, in one invocation, with the ratio printed.
#
#   naive:   tdaudit mutate --cold -j 1  (a fresh copy, a clean build and the
#            whole suite for every mutant, one mutant at a time)
#   tdaudit: tdaudit mutate -j 2         (warm scratch trees, incremental
#            builds, guards first), timed from cold scratch trees and again warm
#
# It also checks that every mutant gets the same outcome both ways.
# Usage: bench/mutate.sh [PATTERN]   (default: every mutant; 'plan-*' is quick)
# Needs build/tdaudit (make). Prints figures; asserts nothing about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern="${1:-*}"
td=build/tdaudit
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

outcomes() { # JSON report -> "id outcome" lines, sorted
  sed -n 's/^ *{"id": "\([^"]*\)".*"outcome": "\([^"]*\)".*/\1 \2/p' "$1" | sort
}
timed() { # seconds a command took (its exit status 0 or 1 both fine)
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$out/log" 2>&1 || [ $? -eq 1 ] || { cat "$out/log"; exit 2; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}

rm -rf .tdaudit/work
naive=$(timed $td mutate --cold -j 1 --only "$pattern" --json "$out/naive.json")
rm -rf .tdaudit/work
cold=$(timed $td mutate -j 2 --only "$pattern" --json "$out/cold.json")
warm=$(timed $td mutate -j 2 --only "$pattern" --json "$out/warm.json")
n=$(outcomes "$out/naive.json" | wc -l)

echo "machine:  $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1)"
echo "mutants:  $n (pattern '$pattern')"
printf 'naive (--cold -j 1):              %8.1f s\n' "$naive"
printf 'tdaudit -j 2, cold scratch trees: %8.1f s   ratio %.1fx\n' "$cold" "$(awk -v a="$naive" -v b="$cold" 'BEGIN { print a / b }')"
printf 'tdaudit -j 2, warm scratch trees: %8.1f s   ratio %.1fx\n' "$warm" "$(awk -v a="$naive" -v b="$warm" 'BEGIN { print a / b }')"
if diff <(outcomes "$out/naive.json") <(outcomes "$out/warm.json") >"$out/diff" &&
   diff <(outcomes "$out/naive.json") <(outcomes "$out/cold.json") >>"$out/diff"; then
  echo "outcomes: identical for all $n mutants"
else
  echo "outcomes DIFFER:"; cat "$out/diff"; exit 1
fi
