-- mutations/harness/sarif.lua: the mutants of harness/sarif.c, the ledger as
-- a SARIF 2.1.0 log for code scanning.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "sarif-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "sarif-fingerprint-follows-the-line",
  file = "harness/sarif.c",
  find = "\tfingerprint(fp, x->rule, x->key);",
  replace = "\tfingerprint(fp, x->rule, x->key);\n\tfp[15] = \"0123456789abcdef\"[x->line % 16];",
  guards = { "test_fingerprints_hold_across_exports_and_line_shifts" },
  designed_against = "code scanning tracks a finding by its fingerprint: one made of a line number turns every edit above a survivor into a closed alert and a new one",
  why = "mixes the result's line into its fingerprint",
}

mutant {
  name = "sarif-killed-mutants-are-results",
  file = "harness/sarif.c",
  find = "\t\tif (strcmp(x->outcome, \"survived\") && strcmp(x->outcome, \"stale\") &&",
  replace = "\t\tif (0 && strcmp(x->outcome, \"survived\") && strcmp(x->outcome, \"stale\") &&",
  guards = { "test_every_kind_has_one_result_per_ledger_row" },
  designed_against = "a result is something a person must act on: a killed mutant needs nobody",
  why = "reports every mutant of the run, killed ones included",
}

mutant {
  name = "sarif-every-guard-is-unverified",
  file = "harness/sarif.c",
  find = "\t\t\tif (strcmp(x->guards[g].role, \"unverified\"))",
  replace = "\t\t\tif (0 && strcmp(x->guards[g].role, \"unverified\"))",
  guards = { "test_every_kind_has_one_result_per_ledger_row" },
  designed_against = "only a guard without evidence is a result; a verified guard or a pin is not",
  why = "reports every guard as unverified",
}

mutant {
  name = "sarif-version-is-not-2-1-0",
  file = "harness/sarif.c",
  find = "\\\"version\\\": \\\"2.1.0\\\",\\n\"",
  replace = "\\\"version\\\": \\\"2.1\\\",\\n\"",
  guards = { "test_the_sarif_log_validates_against_the_sarif_2_1_0_schema" },
  designed_against = "a log code scanning refuses is no log: the schema's version is 2.1.0 exactly",
  why = "writes a version the SARIF 2.1.0 schema does not allow",
}

mutant {
  name = "sarif-relative-help-uri",
  file = "harness/sarif.c",
  find = 'fputs("},\\n", f);\n\t\tfprintf(f, "           \\"defaultConfiguration\\"',
  replace = 'fprintf(f, "},\\n           \\"helpUri\\": \\"%s\\",\\n", r->page);\n\t\tfprintf(f, "           \\"defaultConfiguration\\"',
  guards = { "test_every_kind_has_one_result_per_ledger_row" },
  finding = 82,
  why = "puts back a helpUri that is a path into the audited repository",
}
