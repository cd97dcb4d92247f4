-- mutations/harness/junit.lua: the mutants of harness/junit.c, the ledger's
-- latest mutation and audit runs as JUnit XML.
--
-- Each entry re-introduces one bug class into the module and names the tests
-- that must notice; every name starts with "junit-". Format:
-- harness/catalogue.h; layout, naming and listing: mutations/README.md.

mutant {
  name = "junit-stale-passes",
  file = "harness/junit.c",
  find = "if (!strcmp(o, \"survived\") || !strcmp(o, \"stale\") ||",
  replace = "if (!strcmp(o, \"survived\") ||",
  guards = { "test_the_junit_counts_are_the_ledgers" },
  designed_against = "a stale catalogue entry fails a mutation run; its testcase must fail too",
  why = "reports a stale mutant as a passed testcase",
}

mutant {
  name = "junit-skipped-has-a-message-attribute",
  file = "harness/junit.c",
  find = "fputs(\"><skipped>\", f), xml(f, message), fputs(\"</skipped></testcase>\\n\", f);",
  replace = "fputs(\"><skipped message=\\\"\", f), xml(f, message), fputs(\"\\\"/></testcase>\\n\", f);",
  guards = { "test_the_junit_report_validates_against_the_jenkins_junit_xsd" },
  designed_against = "the Jenkins XSD's skipped is plain text: an attribute makes the report invalid",
  why = "writes the skip reason as a message attribute",
}
