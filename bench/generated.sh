#!/usr/bin/env bash
# bench/generated.sh - the weekly job's generated mutants (ci/generated.lua,
# its equivalent declarations included) of some files of the core, in
# schemata under the sanitizers, with a suite of the test groups that call
# them: the score of those files in minutes where the whole suite would
# take hours. A narrower suite can only kill fewer mutants than the whole
# one, so the score is a lower bound.
#
# Usage: [BENCH_GROUPS="plan lattice"] bench/generated.sh FILE...
# Needs build/tdaudit (make). Prints tdaudit mutate's summary; writes the
# JSON report to generated.json in the current directory.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: bench/generated.sh FILE..." >&2; exit 2; }
here=$PWD
cd "$(dirname "$0")/.."
td=$PWD/build/tdaudit
groups=${BENCH_GROUPS:-"axial check costs lattice model plan synth rng gemm mixer norm runner transpose"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git clone -q . "$work/repo"
cd "$work/repo"
for g in $groups; do
  sed -n 's/^[[:space:]]*cmocka_unit_test[a-z_]*(\(test_[a-z0-9_]*\).*/\1/p' "tests/test_$g.c"
done >bench-tests.txt
list=$(printf '"%s", ' "$@")
sanitize=$(grep '^variant { name = "sanitize"' tdaudit.lua)
cat >tdaudit.lua <<LUA
build { "make", "-j2", "CUDA=0", "all" }
runner { list = { "cat", "bench-tests.txt" },
         run = { "build/tests/tdtest", "--only", "{test}" }, fail_text = "[  FAILED  ]" }
sources { "core/*.c", "core/*.h" }
tests { "tests/*.c", "tests/*.h", "Makefile" }
catalogues { "bench-gen.lua" }
timeout { factor = 20, floor = 10, build = 900 }
$sanitize
LUA
# the weekly catalogue's equivalents of these files, over these files alone
{ echo "generate { files = { ${list%, } } }"
  for f in "$@"; do
    awk -v f="$f" '/^equivalent/ { e = $0; keep = 0; next_ok = 1 }
      next_ok && !/^equivalent/ { e = e "\n" $0 } index($0, "\"" f ":") { keep = 1 }
      next_ok && /}$/ { if (keep) print e; next_ok = 0 }' ci/generated.lua
  done; } >bench-gen.lua
git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm bench
"$td" mutate -j 2 --schemata --sanitize --json "$here/generated.json" 2>&1 |
  grep -E '^tdaudit mutate: (schemata|the schema)|^  [a-z-]+ +[0-9]+$|^mutation score|^  [^ ]+  [0-9.]+% ' || true
echo "machine: $(nproc) cores, $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1); files: $*"
echo "suite: $(wc -l <bench-tests.txt) tests of the groups $groups"
