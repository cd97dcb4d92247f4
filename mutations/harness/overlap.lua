-- mutations/harness/overlap.lua: harness/overlap.c, the engine of
-- `tdaudit overlap`. Each mutant re-introduces a bug class the tests in
-- tests/test_overlap.c guard (the normalisation mutant edits the AVX2
-- path, which `make` builds on a CPU with AVX2, as tdaudit.lua's does): run them with
--   build/tdaudit mutate --only 'overlap-*' -j2

mutant {
  name = "overlap-normalisation-skipped",
  file = "harness/overlap.c",
  find = "_mm256_storeu_si256((__m256i *)(void *)p, low);",
  replace = "_mm256_storeu_si256((__m256i *)(void *)p, v);",
  guards = { "test_an_exact_duplicate_is_found_whatever_its_case_and_spacing" },
  designed_against = "a copied record with its case changed is still a copied record",
  why = "norm/1's words keep their case (capitals are still word bytes, stored as they were): an evaluation record differing only in case from a training record is not an exact match",
}

mutant {
  name = "overlap-boilerplate-counted-as-overlap",
  file = "harness/overlap.c",
  find = "if (a && sl->count <= en->boilerplate) {",
  replace = "if (a) {",
  guards = { "test_ngrams_in_many_indexed_records_are_boilerplate_not_overlap" },
  designed_against = "a licence header or prompt template shared by every record is not contamination",
  why = "n-grams held by more than --boilerplate indexed records count as matches: every record with the header reads as overlapping",
}

mutant {
  name = "overlap-jobs-merge-out-of-order",
  file = "harness/overlap.c",
  find = "for (int i = 0; i < jobs && !err && measure; i++) {",
  replace = "for (int i = jobs - 1; i >= 0 && !err && measure; i--) {",
  guards = { "test_the_j_setting_never_changes_the_output" },
  designed_against = "the report is a function of the files and options, never of -j",
  why = "the chunks' hits are merged last chunk first: with -j 4 the lines come out of order and the output differs from -j 1",
}

mutant {
  name = "overlap-first-a-line-last-writer-wins",
  file = "harness/overlap.c",
  find = "uint32_t cur = __atomic_load_n(&s->line, __ATOMIC_RELAXED);",
  replace = "uint32_t cur = 0;\n\n\t__atomic_store_n(&s->line, line, __ATOMIC_RELAXED);\n\treturn;",
  guards = { "test_an_exact_duplicate_is_found_whatever_its_case_and_spacing",
             "test_a_record_planted_in_a_large_corpus_is_found_and_its_line_named" },
  designed_against = "the A line named is the first one holding the text, whichever thread saw it",
  why = "marking stores the line of whichever A record came last (by thread timing): the A line named changes with -j and is not the first",
}

mutant {
  name = "overlap-prefix-not-detected",
  file = "harness/overlap.c",
  find = ": first == 1		 ? TD_OVERLAP_REL_PREFIX",
  replace = ": first == 0		 ? TD_OVERLAP_REL_PREFIX",
  guards = { "test_a_prefix_and_a_sub_range_are_named_as_such" },
  designed_against = "an eval file that is the head of the training file is named as such",
  why = "a prefix (lines 1..k) is reported as a sub-range",
}

mutant {
  name = "overlap-longest-run-off-by-one",
  file = "harness/overlap.c",
  find = "h->run = (uint32_t)(best + (size_t)en->ngram - 1);",
  replace = "h->run = (uint32_t)(best + (size_t)en->ngram);",
  guards = { "test_a_shared_13_gram_is_measured_by_share_and_longest_run",
             "test_ngrams_in_many_indexed_records_are_boilerplate_not_overlap" },
  designed_against = "k consecutive matched n-gram positions cover k + n - 1 words",
  why = "the longest matched run is reported one word too long",
}

mutant {
  name = "overlap-binary-input-accepted",
  file = "harness/overlap.c",
  find = "if (c == 0) {",
  replace = "if (c == 0 && 0) {",
  guards = { "test_bad_input_is_refused_naming_file_and_line" },
  designed_against = "a binary file is refused, never compared as if it were text",
  why = "a NUL byte passes the check: a binary file is compared and may report a silent zero",
}

mutant {
  name = "overlap-missing-field-accepted",
  file = "harness/overlap.c",
  find = "if (!has_text)",
  replace = "if (!has_text && 0)",
  guards = { "test_bad_input_is_refused_naming_file_and_line" },
  designed_against = "a JSON line without --field's field is an error naming file:line",
  why = "a line without the field is read with the previous line's text (or none) instead of being refused",
}
