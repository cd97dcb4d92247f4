-- mutations/core/family_flatten.lua: the mutants of core/family_flatten.c,
-- flatten: the present cells of each example as one joint sequence through
-- the mixer.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "family_flatten-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "family_flatten-sequence-in-storage-order",
  file = "core/family_flatten.c",
  find = "by_key[canonical_index(b->lat, order, c)] = c;",
  replace = "by_key[c + 0 * canonical_index(b->lat, order, c)] = c;",
  guards = { "test_flatten_runs_the_present_cells_only_in_canonical_order",
             "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "a joint sequence ordered by storage order (torch-dimensions DEBUG.md #22)",
  why = "orders the flattened sequence by storage order",
}

mutant {
  name = "family_flatten-absent-cells-left-stale",
  file = "core/family_flatten.c",
  find = "if (s->n < b->n_cells)",
  replace = "if (0)",
  guards = { "test_flatten_runs_the_present_cells_only_in_canonical_order" },
  designed_against = "out of the sequence is not out of the output (torch-dimensions DEBUG.md #27)",
  why = "leaves whatever was in the absent cells of the output",
}

mutant {
  name = "family_flatten-shortcut-ignores-the-order",
  file = "core/family_flatten.c",
  find = "return s->n == b->n_cells && s->n_runs == 1;",
  replace = "return s->n == b->n_cells;",
  guards = { "test_every_flatten_model_passes_the_conformance_suite" },
  designed_against = "a no-copy shortcut taken for every dense lattice, not only the ones whose storage order is the sequence",
  why = "a dense lattice stored in another axis order is mixed in storage order",
}
