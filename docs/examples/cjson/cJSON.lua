-- Mutants of cJSON.c: four that put back a bug a fix commit removed, then
-- operator mutants generated over the whole file.

mutant {
  name = "cJSON-detach-first-child-without-prev",
  file = "cJSON.c",
  find = "(item != parent->child && item->prev == NULL)",
  replace = "(item->prev == NULL)",
  guards = { "misc_tests" },
  designed_against = "a78d975: detaching an item whose prev is NULL must not be refused when it is the first child",
  why = "refuses to detach the first child of a hand-built list again",
}

mutant {
  name = "cJSON-minify-slash-loops",
  file = "cJSON.c",
  find = "skip_multiline_comment(&json);\n                } else {\n                    json++;\n                }",
  replace = "skip_multiline_comment(&json);\n                }",
  guards = { "minify_tests" },
  designed_against = "08d2bc7: cJSON_Minify must step over a '/' that starts no comment",
  why = "a lone '/' no longer advances the cursor: cJSON_Minify loops forever",
}

mutant {
  name = "cJSON-get-item-case-sensitive-on-array",
  file = "cJSON.c",
  find = "while ((current_element != NULL) && (current_element->string != NULL) && (strcmp(name, current_element->string) != 0))",
  replace = "while ((current_element != NULL) && (strcmp(name, current_element->string) != 0))",
  guards = { "misc_tests" },
  designed_against = "be749d7: a case-sensitive lookup in an array (items without names) must not crash",
  why = "strcmp on the NULL name of an array item: a crash",
}

mutant {
  name = "cJSON-compare-arrays-of-different-length",
  file = "cJSON.c",
  find = "if (a_element != b_element) {\n                return false;",
  replace = "if (0) {\n                return false;",
  guards = { "compare_tests" },
  designed_against = "569aa06: arrays of different length are not equal",
  why = "an array compares equal to any longer array that starts with it",
}

generate {
  files = { "cJSON.c" },
}
