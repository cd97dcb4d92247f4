-- mutations/harness/schema.lua: the mutants of harness/schema.c, mutant
-- schemata (see schema.h).
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "schema-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "schema-cast-or-minus-guessed",
  file = "harness/schema.c",
  find = "\tif (is_any(s, k, ambiguous) && is(s, k - 1, \")\") && s->match[k - 1] != NONE &&\n\t    type_like(s, s->match[k - 1], k - 1))\n\t\treturn 0;",
  replace = "",
  guards = { "test_every_mutant_of_the_schema_behaves_as_its_own_build" },
  designed_against = "(int)-d * 2 read as (int)-(d * 2) changes the unmutated program",
  why = "takes the operator after a parenthesised name for binary, and wraps too little",
}

mutant {
  name = "schema-case-label-rewritten",
  file = "harness/schema.c",
  find = "return \"in a case label (a constant expression)\";",
  replace = "return NULL;",
  guards = { "test_what_a_schema_cannot_rewrite_is_left_out_with_its_reason" },
  designed_against = "a case label must stay a constant: its schema would never build",
  why = "rewrites the constants and operators of case labels into run-time choices",
}

mutant {
  name = "schema-copy-keeps-the-original-token",
  file = "harness/schema.c",
  find = "if (i == sp->op)\n\t\t\tputs_(o, sp->p->repl);",
  replace = "if (i == sp->op && 0)\n\t\t\tputs_(o, sp->p->repl);",
  guards = { "test_every_mutant_of_the_schema_behaves_as_its_own_build" },
  designed_against = "the mutated branch must hold the mutant",
  why = "writes the original operator in the mutated branch: no mutant ever changes anything",
}

mutant {
  name = "schema-number-never-read",
  file = "harness/schema.c",
  find = "td_schema_on_ = td_schema_on_ * 10u + (unsigned)(*s - '0');",
  replace = "td_schema_on_ = 0;",
  guards = { "test_every_mutant_of_the_schema_behaves_as_its_own_build" },
  designed_against = "TDAUDIT_MUTANT must turn its mutant on",
  why = "leaves every mutant off whatever the environment says",
}

mutant {
  name = "schema-array-size-rewritten",
  file = "harness/schema.c",
  find = "\telse if (in_array_size(s, sp->first))",
  replace = "\telse if (0 && in_array_size(s, sp->first))",
  guards = { "test_what_a_schema_cannot_rewrite_is_left_out_with_its_reason",
             "test_every_mutant_of_the_schema_behaves_as_its_own_build" },
  designed_against = "a run-time choice in a declared array's size makes a variable-length array that may not be initialised",
  why = "rewrites the size of an initialised local array, so the schema does not build and its whole function is built one by one",
}
