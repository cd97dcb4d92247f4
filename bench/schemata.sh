#!/usr/bin/env bash
# bench/schemata.sh - the generated mutants of some of the core's files
# judged two ways, side by side in one invocation: built one by one
# (tdaudit mutate -j 2) and in one schema build per file (--schemata -j 2).
# Prints the time, mutants a minute and mutation score of each and the
# ratio; fails if any mutant's outcome differs between the two (a
# schema's no-coverage, a mutant no test reaches, is a survivor built alone).
#
# The suite is the test groups that call core/plan.c and core/lattice.c,
# in a clone of HEAD whose tdaudit.lua runs only them and whose one
# catalogue is generate { } over the files. The scratch trees are built and
# the baseline run once first (one schema mutant), so both timed runs start
# warm. mull is not a dependency; see bench/README.md.
#
# Usage: [BENCH_GROUPS="rng gemm"] bench/schemata.sh [FILE...]
#   FILE: default core/plan.c core/lattice.c; BENCH_GROUPS: the test groups that
#   are the suite (default: the seven that call those two files)
# Needs build/tdaudit (make). Prints figures; asserts nothing about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
td=$PWD/build/tdaudit
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(core/plan.c core/lattice.c)
groups=${BENCH_GROUPS:-"axial check costs lattice model plan synth"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git clone -q . "$work/repo"
cd "$work/repo"
for g in $groups; do
  sed -n 's/^[[:space:]]*cmocka_unit_test[a-z_]*(\(test_[a-z0-9_]*\).*/\1/p' "tests/test_$g.c"
done >bench-tests.txt
list=$(printf '"%s", ' "${files[@]}")
cat >tdaudit.lua <<EOF
build { "make", "-j2", "CUDA=0", "all" }
runner { list = { "cat", "bench-tests.txt" },
         run = { "build/tests/tdtest", "--only", "{test}" }, fail_text = "[  FAILED  ]" }
sources { "core/*.c", "core/*.h" }
tests { "tests/*.c", "tests/*.h", "Makefile" }
catalogues { "bench-gen.lua" }
timeout { factor = 20, floor = 10, build = 900 }
EOF
echo "generate { files = { ${list%, } } }" >bench-gen.lua
git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm bench

outcomes() { # JSON report -> "id outcome" lines, sorted
  sed -n 's/^ *{"id": "\([^"]*\)".*"outcome": "\([^"]*\)".*/\1 \2/p' "$1" | sort
}
as_built_alone() { # outcomes with no-coverage read as the survivor it is built alone
  outcomes "$1" | sed 's/ no-coverage$/ survived/'
}
timed() { # seconds a command took (its exit status 0 or 1 both fine)
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$work/log" 2>&1 || [ $? -eq 1 ] || { cat "$work/log"; exit 2; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
score() { # JSON report -> "N mutants, S% score, B build-failed"
  outcomes "$1" | awk '{ n++; c[$2]++ } END {
    j = c["killed"] + c["killed-elsewhere"] + c["survived"] + c["no-coverage"] + c["timeout"]
    printf "%d mutants, score %.1f%% (%d killed of %d judged), %d build-failed, %d no-coverage",
           n, j ? 100 * c["killed"] / j : 0, c["killed"], j, c["build-failed"], c["no-coverage"] }'
}

first=$($td mutate --list 2>/dev/null | awk -F'\t' 'NF >= 4 && $3 != "catalogue" && !f { print $1; f = 1 }')
timed $td mutate -j 2 --schemata --only "$first" >/dev/null
one=$(timed $td mutate -j 2 --json "$work/one.json")
sch=$(timed $td mutate -j 2 --schemata --json "$work/schema.json")
grep -E '^tdaudit mutate: (schemata|the schema of)' "$work/log" || true
n=$(outcomes "$work/one.json" | wc -l)

echo "machine:   $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1)"
echo "files:     ${files[*]}; tests: $(wc -l <bench-tests.txt) of the groups $groups"
printf 'one by one (-j 2):   %7.1f s  %6.1f mutants a minute  %s\n' "$one" \
  "$(awk -v n="$n" -v t="$one" 'BEGIN { print 60 * n / t }')" "$(score "$work/one.json")"
printf 'schemata (-j 2):     %7.1f s  %6.1f mutants a minute  %s\n' "$sch" \
  "$(awk -v n="$n" -v t="$sch" 'BEGIN { print 60 * n / t }')" "$(score "$work/schema.json")"
printf 'ratio:               %.2fx\n' "$(awk -v a="$one" -v b="$sch" 'BEGIN { print a / b }')"
if diff <(outcomes "$work/one.json") <(as_built_alone "$work/schema.json") >"$work/diff"; then
  echo "outcomes:  identical for all $n mutants"
else
  echo "outcomes DIFFER (< one by one, > schemata):"; cat "$work/diff"; exit 1
fi
