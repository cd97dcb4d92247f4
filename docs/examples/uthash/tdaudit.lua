-- tdaudit configuration for uthash (header-only; tests/Makefile builds one
-- program per test, and a test passes when its output equals tests/NAME.ans).
-- -B: the Makefile makes each program depend on src/uthash.h alone, so a
-- change to utlist.h or utarray.h, or to a variant's flags, would not rebuild
-- it. "$@" carries a variant's args to make.
build  { "sh", "-c",
         "cd tests && make -B -j2 $(for a in test*.ans; do printf '%s ' \"${a%.ans}\"; done) \"$@\" >/dev/null",
         "build" }
runner { list = { "sh", "-c", "cd tests && for a in test*.ans; do echo \"${a%.ans}\"; done" },
         run  = { "sh", "-c", "cd tests && ./{test} > {test}.out && diff {test}.out {test}.ans" } }
sources    { "src/*.h" }
tests      { "tests/*.c", "tests/*.ans", "tests/*.dat", "tests/Makefile" }
catalogues { "tdaudit/*.lua" }
timeout    { factor = 10, floor = 5, build = 300 }

-- The Bloom filter and the no-typeof code paths are compiled only on request.
variant { name = "bloom",       args = { "EXTRA_CFLAGS=-DHASH_BLOOM=16" } }
-- utlist.h did not build with -DNO_DECLTYPE before 8052cb8 (2016-07-28): a
-- state that does not build so is built as default instead, and says so.
variant { name = "no-decltype", args = { "EXTRA_CFLAGS=-DNO_DECLTYPE" }, fallback = "default" }
