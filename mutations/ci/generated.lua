-- mutations/ci/generated.lua: the mutants of ci/generated.lua, the weekly
-- job's catalogue of generated operator mutants and their equivalents.
--
-- Each entry re-introduces one bug class into the catalogue and names the
-- tests that must notice; every name starts with "generated-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "generated-equivalent-under-a-moved-id",
  file = "ci/generated.lua",
  find = "id = \"core/xtrain.c:take_buffers:constant:6:1:7\"",
  replace = "id = \"core/xtrain.c:build:constant:6:1:7\"",
  guards = { "test_this_repositorys_generated_catalogue_loads" },
  finding = 100,
  why = "an equivalent declared by the id its mutant had before a refactor moved it, which the weekly run refuses",
}
