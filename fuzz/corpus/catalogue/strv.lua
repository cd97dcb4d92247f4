-- mutations/base/strv.lua: the mutants of base/strv.c, NULL-terminated string
-- arrays (see strv.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "strv-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "strv-implied-capacity-too-large",
  file = "base/strv.c",
  find = "\tsize_t cap = 8;",
  replace = "\tsize_t cap = 16;",
  guards = { "test_a_list_keeps_every_push_across_its_growths" },
  designed_against = "a capacity inferred rather than stored must be the one the allocator gave",
  why = "td_strv_push believes a list of 8 slots holds 16 and writes past its end",
}
