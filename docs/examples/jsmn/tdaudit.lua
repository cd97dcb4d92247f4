-- tdaudit configuration for jsmn (plain make; each test is a program, run
-- by its path, that fails by its exit status or by printing "(at line ").
-- The Makefile's test target compiles each test
-- program and runs it at once; the build prints that recipe with make -n,
-- drops the lines that run a program ("./..."), and runs the rest, so a
-- compile error fails the build and a failing test does not. "$@" carries
-- a variant's args (CFLAGS=...) to make.
build { "sh", "-c",
        "cmds=$(make -n test \"$@\") && printf '%s\\n' \"$cmds\" | grep -v '^\\./' | sh -e",
        "build" }

-- Since 2015-10-17 the tests are test/tests.c, built four times over
-- (default, strict, parent links, both) into test/test_*.
runner { list = { "sh", "-c",
                  "for t in test_default test_strict test_links test_strict_links; do " ..
                  "[ -x test/$t ] && echo $t; done; true" },
         run  = { "test/{test}" },
         fail_text = "(at line ",  -- a failed check; the programs of 2012 exit 0 even then
         tests_of = { ["test/tests.c"] = { "test_default", "test_strict", "test_links",
                                           "test_strict_links" },
                      ["test/*.h"]     = { "test_default", "test_strict", "test_links",
                                           "test_strict_links" } } }
-- Before it, one program, jsmn_test, from jsmn_test.c at the top.
runner { list = { "sh", "-c", "[ -x jsmn_test ] && echo jsmn_test; true" },
         run  = { "./{test}" },
         fail_text = "(at line " }

sources    { "jsmn.c", "jsmn.h" }
tests      { "test/*.c", "test/*.h", "jsmn_test.c", "Makefile" }
catalogues { "tdaudit/*.lua" }
timeout    { factor = 10, floor = 5, build = 120 }

-- Strict mode and parent links are compile-time switches; the programs of
-- 2012-2014 take them from CFLAGS only.
variant { name = "strict", args = { "CFLAGS=-DJSMN_STRICT" } }
variant { name = "links",  args = { "CFLAGS=-DJSMN_PARENT_LINKS" } }
