-- mutations/Makefile.lua: the mutants of Makefile, one Makefile for
-- everything; out-of-tree builds under build/.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "Makefile-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "Makefile-build-objects-ignore-their-flags",
  file = "Makefile",
  find = "$(BUILD)/core/%.o: core/%.c $(BUILD)/.flags",
  replace = "$(BUILD)/core/%.o: core/%.c",
  guards = { "test_changing_the_compiler_flags_rebuilds_an_object" },
  finding = 16,
  why = "a core object is rebuilt when its source changes, not when ARCH or CFLAGS do",
}
