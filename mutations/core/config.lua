-- mutations/core/config.lua: the mutants of core/config.c, the strict
-- training config (see config.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "config-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "config-key-named-twice",
  file = "core/config.c",
  find = "{\"log_every\", TD_CFG_INT,",
  replace = "{\"eval_every\", TD_CFG_INT,",
  guards = { "test_every_key_is_documented_and_named_once" },
  designed_against = "a key table with a repeated name: the second entry can never be set",
  why = "names the log_every entry eval_every, a second time",
}

mutant {
  name = "config-suggestion-charges-every-substitution",
  file = "core/config.c",
  find = "size_t best = diag + (same ? 0 : 1);",
  replace = "size_t best = diag + 1 + 0 * (size_t)same;",
  guards = { "test_an_unknown_key_is_refused_with_the_nearest_key_suggested" },
  designed_against = "a misspelt key must be answered with the key meant, not a random one",
  why = "charges a matching letter as a substitution: \"wieght_decay\" is told \"did you mean 'seed'?\"",
}

mutant {
  name = "config-int-trailing-text-accepted",
  file = "core/config.c",
  find = "if (end == text || *end || errno == ERANGE)",
  replace = "if (end == text || errno == ERANGE)",
  guards = { "test_a_value_of_the_wrong_type_names_the_key_value_and_line" },
  designed_against = "a value that is not an integer must be refused, not read up to its first odd character",
  why = "reads \"1.5\" as 1",
}

mutant {
  name = "config-int-minimum-unchecked",
  file = "core/config.c",
  find = "if (x < k->imin || x > k->imax)",
  replace = "if (x > k->imax)",
  guards = { "test_a_value_out_of_range_names_the_key_value_and_line" },
  designed_against = "a value below a key's range (steps = 0, batch = -1) must be refused where it was written",
  why = "checks integers against the maximum only",
}

mutant {
  name = "config-empty-value-accepted",
  file = "core/config.c",
  find = "if (!text[0])",
  replace = "if (0)",
  guards = { "test_malformed_lines_are_refused_with_their_line" },
  designed_against = "\"lr =\" is a line missing its value, and must be refused as that",
  why = "passes an empty value on to the type parsers (\"not a finite number\")",
}

mutant {
  name = "config-key-twice-in-the-file-accepted",
  file = "core/config.c",
  find = "if (src->kind == SRC_FILE && v->file_line)",
  replace = "if (0 && v->file_line)",
  guards = { "test_a_key_given_twice_in_the_file_or_the_overrides_is_refused" },
  designed_against = "two values for one key in one layer: silently preferring one is a config that lies",
  why = "lets the second line of a key in a file win",
}

mutant {
  name = "config-comment-not-cut",
  file = "core/config.c",
  find = "if (hash)",
  replace = "if (0)",
  guards = { "test_comments_blank_lines_and_spacing_are_ignored" },
  designed_against = "a trailing comment read as part of the value",
  why = "never cuts a line at '#'",
}

mutant {
  name = "config-unopenable-file-accepted",
  file = "core/config.c",
  find = "return TD_FAIL(TD_EIO, \"cannot open config %s: %s\", path, strerror(errno));",
  replace = "return 0;",
  guards = { "test_an_unreadable_file_is_refused_naming_it" },
  designed_against = "a config path that cannot be read must not train on the defaults",
  why = "treats a missing config file as an empty one",
}

mutant {
  name = "config-warmup-equal-to-steps-accepted",
  file = "core/config.c",
  find = "if (warmup->i >= steps->i)",
  replace = "if (warmup->i > steps->i)",
  guards = { "test_combinations_that_cannot_mean_anything_are_refused" },
  designed_against = "warmup = steps never reaches the peak learning rate",
  why = "accepts warmup equal to steps",
}

mutant {
  name = "config-overrides-before-the-file",
  file = "core/config.c",
  find = "\tif (!err && spec && spec->path)\n\t\terr = load_file(cfg, spec->path);\n\tfor (size_t i = 0; !err && spec && i < spec->n_overrides; i++)\n\t\terr = apply_override(cfg, spec->overrides[i]);",
  replace = "\tfor (size_t i = 0; !err && spec && i < spec->n_overrides; i++)\n\t\terr = apply_override(cfg, spec->overrides[i]);\n\tif (!err && spec && spec->path)\n\t\terr = load_file(cfg, spec->path);",
  guards = { "test_overrides_beat_the_file_and_the_file_beats_the_defaults" },
  designed_against = "a --set must beat the file, or the command line lies about the run",
  why = "applies the overrides first, so the file's values win",
}

mutant {
  name = "config-lookup-type-unchecked",
  file = "core/config.c",
  find = "if (key_table[k].type != t)",
  replace = "if (key_table[k].type != t && t > TD_CFG_BOOL)", -- no declared type passes it; "if (0)" trips a false -Wmaybe-uninitialized
  guards = { "test_defaults_resolve_and_read_back_typed" },
  designed_against = "reading a key as the wrong type reads a field that was never set",
  why = "lets td_config_int read a float key (and so on) without refusing",
}

mutant {
  name = "config-text-unsorted",
  file = "core/config.c",
  find = "qsort(order, N_KEYS, sizeof order[0], by_name);",
  replace = "(void)by_name;",
  guards = { "test_the_text_is_sorted_complete_and_reads_back_to_the_same_config" },
  designed_against = "the canonical text (and its hash) must not depend on the key table's order",
  why = "writes the keys in table order",
}

mutant {
  name = "config-bools-left-out-of-the-text",
  file = "core/config.c",
  find = "at += (size_t)snprintf(text + at, len - at, \"%s = %s\\n\", key_table[order[k]].name,",
  replace = "at += key_table[order[k]].type == TD_CFG_BOOL ? 0 : (size_t)snprintf(text + at, len - at, \"%s = %s\\n\", key_table[order[k]].name,",
  guards = { "test_changing_any_one_key_changes_the_hash" },
  designed_against = "a key left out of the canonical text is left out of the hash: two configs, one hash",
  why = "leaves bool keys out of the serialisation (--set bidirectional=false keeps the hash)",
}

mutant {
  name = "config-train-resume-refuses-another-thread-count",
  file = "core/config.c",
  find = "if (key_table[k].affects_weights &&",
  replace = "if (1 &&",
  guards = { "test_a_run_may_resume_with_another_thread_count" },
  designed_against = "a key that changes no result bit must not block a resume",
  why = "compares every key, threads included",
}
