-- tdaudit.lua: how tdaudit builds and tests this repository (dogfooding).
-- The syntax is documented in docs/tdaudit-lua.md and harness/project.h.

-- Scratch trees build without CUDA: no mutant edits kernels/*.cu yet, and
-- nvcc would make every cold scratch build several times slower.
build { "make", "-j2", "CUDA=0", "all" }

runner {
  list = { "build/tests/tdtest", "--list" },
  run  = { "build/tests/tdtest", "--only", "{test}" },
  -- cmocka's own word for a failure: it also catches a mutant of the
  -- runner's exit path, which would otherwise hide its own failures.
  fail_text = "[  FAILED  ]",
}

-- Sources are what `tdaudit reproduce` reverts; a changed file that is
-- neither a source nor a test (docs, fixtures' data) is kept as in the fix.
sources    { "base/*.c", "base/*.h", "core/*.c", "core/*.h", "kernels/*.c", "kernels/*.h", "kernels/*.cu",
             "harness/*.c", "harness/*.h", "ledger/*.c", "ledger/*.h", "bench/*.c",
             "bench/*.h" }
-- Catalogues count as tests: reverting one to its parent's version never
-- re-introduces a bug in the code, so `tdaudit reproduce` must not revert it.
tests      { "tests/*.c", "tests/*.h", "Makefile", "mutations/*.lua", "mutations/harness/*.lua" }
catalogues { "mutations/*.lua", "mutations/harness/*.lua" }
ledger     ".tdaudit/ledger.db"
timeout    { factor = 20, floor = 10, build = 900 }
