-- mutations/harness/luahost.lua: the mutants of harness/luahost.c, sandboxed
-- Lua states (see luahost.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "luahost-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "luahost-budget-message",
  file = "harness/luahost.c",
  find = "luaL_error(L, \"%s\", msg);",
  replace = "luaL_error(L, \"instruction budget exceeded (%ld)\", h->instr_limit);",
  guards = { "test_a_script_that_loops_forever_is_stopped" },
  finding = 4,
  why = "formats the budget message with a printf option Lua does not know",
}

mutant {
  name = "luahost-dotdot-accepted",
  file = "harness/luahost.c",
  find = "if (strncmp(p, \"..\", 2) == 0 && (p[2] == '/' || p[2] == '\\0'))",
  replace = "if (0)",
  guards = { "test_reads_are_confined_to_the_root" },
  designed_against = "reads are confined to the repository",
  why = "lets a script climb out of the root with ..",
}

mutant {
  name = "luahost-symlink-escape",
  file = "harness/luahost.c",
  find = "if (strncmp(real, rroot, strlen(rroot)) != 0 || real[strlen(rroot)] != '/')",
  replace = "if (0)",
  guards = { "test_a_symlink_out_of_the_root_is_refused" },
  designed_against = "a symlink in the repository must not lead a script outside it",
  why = "follows symlinks out of the root",
}

mutant {
  name = "luahost-io-library-opened",
  file = "harness/luahost.c",
  find = "{LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL}};",
  replace = "{LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_IOLIBNAME, luaopen_io}, {NULL, NULL}};",
  guards = { "test_only_safe_libraries_are_there" },
  designed_against = "Lua is a trust boundary: a catalogue must not write files",
  why = "opens the io library in the sandbox",
}

mutant {
  name = "luahost-no-wall-clock-budget",
  file = "harness/luahost.c",
  find = "\tif (now() > h->deadline)\n",
  replace = "\tif (0)\n",
  guards = { "test_a_script_is_held_to_its_wall_clock_budget" },
  designed_against = "a script's time is a budget of its own, whatever its instruction count",
  why = "lets a script run for as long as its instruction budget allows, however slow",
}

mutant {
  name = "luahost-gc-metamethod-allowed",
  file = "harness/luahost.c",
  find = "if (lua_rawget(L, 2) != LUA_TNIL)",
  replace = "if (0 && lua_rawget(L, 2) != LUA_TNIL)",
  guards = { "test_a_script_may_not_set_a_gc_metamethod" },
  designed_against = "a finalizer runs where no budget can stop it; one that loops must not hang tdaudit",
  why = "lets a script set a __gc that runs with Lua's hooks off, in lua_close too",
}

mutant {
  name = "luahost-refusals-carry-a-traceback",
  file = "harness/luahost.c",
  find = "if (msg && lua_getstack(L, 1, &ar) && lua_getinfo(L, \"S\", &ar) && ar.what[0] == 'C')",
  replace = "if (msg && lua_getstack(L, 1, &ar) && lua_getinfo(L, \"S\", &ar) && ar.what[0] == 'X')",
  guards = { "test_an_entry_not_named_for_its_file_is_refused" },
  finding = 60,
  why = "prints every refusal with a traceback of the host's C function under it",
}
