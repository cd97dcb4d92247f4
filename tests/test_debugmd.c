/*
 * test_debugmd.c - the DEBUG.md parser (every field with the line it came
 * from; every malformed claim reported with its line) and the cross-check
 * against the ledger.
 *
 * What these tests guard: tdaudit mutate --list --file ledger/debugmd.c
 *   and --list --file ledger/ledger.c
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../ledger/debugmd.h"
#include "../ledger/ledger.h"

static td_debugmd *parse(const char *text)
{
	td_debugmd *doc;

	assert_int_equal(td_debugmd_parse(&doc, text, strlen(text)), 0);
	assert_non_null(doc);
	return doc;
}

/* Asserts that ps has exactly the problems at lines[0..n), each naming needle[i]; prints them if not. */
static void expect_problems(const td_debugmd_problems *ps, const int *lines,
			    const char *const *needle, size_t n)
{
	int ok = ps->n == n;

	for (size_t i = 0; ok && i < n; i++)
		ok = ps->v[i].line == lines[i] && strstr(ps->v[i].msg, needle[i]);
	if (ok)
		return;
	for (size_t i = 0; i < ps->n; i++)
		print_message("  got line %d: %s\n", ps->v[i].line, ps->v[i].msg);
	for (size_t i = 0; i < n; i++)
		print_message("  want line %d: ...%s...\n", lines[i], needle[i]);
	fail_msg("the problems differ from those expected");
}

static const char good[] =
	"# Debug log\n"                                                             /* 1 */
	"\n"                                                                        /* 2 */
	"Prose may mention `tdaudit reproduce` inline.\n"                           /* 3 */
	"\n"                                                                        /* 4 */
	"## Summary\n"                                                              /* 5 */
	"\n"                                                                        /* 6 */
	"| # | Where | Severity | Found by | Status |\n"                            /* 7 */
	"|---|:--|---|---|---:|\n"                                                  /* 8 */
	"| 1 | `plan.c` — a \\| b | high | mutation | fixed, `7c3f812` |\n"         /* 9 */
	"|  2 |`lattice.c` — mask| medium | audit | never shipped |\n"             /* 10 */
	"\n"                                                                        /* 11 */
	"## 1. Plans were mutable\n"                                                /* 12 */
	"\n"                                                                        /* 13 */
	"Prose about **Guarded by** inside a line is prose.\n"                     /* 14 */
	"**Guarded by** `test_a_plan_cannot_be_mutated`, `test_b`.\n"              /* 15 */
	"**Pins** `test_a_plan_survives_use_as_a_key` (passes before the fix).\n"  /* 16 */
	"\n"                                                                        /* 17 */
	"```bash\n"                                                                 /* 18 */
	"# a shell comment is not a heading\n"                                      /* 19 */
	"$ tdaudit reproduce 7c3f812 --runs 3\n"                                    /* 20 */
	"```\n"                                                                     /* 21 */
	"**Guarded by** `test_c`\n"                                                 /* 22 */
	"\n"                                                                        /* 23 */
	"## 2. Masks aliased\n"                                                     /* 24 */
	"\n"                                                                        /* 25 */
	"**Guarded by** none: nothing automatic yet.\n"                             /* 26 */
	"\n"                                                                        /* 27 */
	"## A. Patterns\n"                                                          /* 28 */
	"**Guarded by** prose outside any finding section is not read\n"           /* 29 */
	"tdaudit reproduce --all\n";                                                /* 30 */

static void test_a_good_debugmd_yields_every_field_with_its_line(void **state)
{
	const td_debugmd_finding *f;
	td_debugmd *doc;
	FILE *out = fopen("DEBUG.md", "w");

	(void)state;
	fputs(good, out);
	fclose(out);
	assert_int_equal(td_debugmd_parse_file(&doc, "DEBUG.md"), 0);
	expect_problems(&doc->problems, NULL, NULL, 0);
	assert_int_equal(doc->table_line, 7);
	assert_int_equal(doc->n_findings, 2);
	f = td_debugmd_find(doc, 1);
	assert_non_null(f);
	assert_int_equal(f->table_line, 9);
	assert_int_equal(f->section_line, 12);
	assert_string_equal(f->title, "Plans were mutable");
	assert_string_equal(f->where, "`plan.c` — a | b");
	assert_string_equal(f->severity, "high");
	assert_string_equal(f->found_by, "mutation");
	assert_string_equal(f->status, "fixed");
	assert_string_equal(f->commit, "7c3f812");
	assert_int_equal(f->n_guards, 3);
	assert_string_equal(f->guards[0].name, "test_a_plan_cannot_be_mutated");
	assert_int_equal(f->guards[0].line, 15);
	assert_string_equal(f->guards[1].name, "test_b");
	assert_int_equal(f->guards[1].line, 15);
	assert_string_equal(f->guards[2].name, "test_c");
	assert_int_equal(f->guards[2].line, 22);
	assert_int_equal(f->n_pins, 1);
	assert_string_equal(f->pins[0].name, "test_a_plan_survives_use_as_a_key");
	assert_int_equal(f->pins[0].line, 16);
	assert_int_equal(f->n_repro, 1);
	assert_string_equal(f->repro[0].commit, "7c3f812");
	assert_int_equal(f->repro[0].line, 20);
	f = td_debugmd_find(doc, 2);
	assert_non_null(f);
	assert_int_equal(f->table_line, 10);
	assert_int_equal(f->section_line, 24);
	assert_string_equal(f->where, "`lattice.c` — mask");
	assert_string_equal(f->status, "never shipped");
	assert_null(f->commit);
	assert_int_equal(f->n_guards + f->n_pins + f->n_repro, 0);
	td_debugmd_free(doc);
	TD_ASSERT_REFUSED(td_debugmd_parse_file(&doc, "nonesuch.md"), TD_EIO, "nonesuch.md");
}

/*
 * An empty DEBUG.md is one problem, the missing table at line 0, and no
 * finding. It used to reach qsort with a NULL array, undefined behaviour
 * that UBSan reports (make asan); the release build could not tell
 * (DEBUG.md #61).
 */
static void test_an_empty_debug_md_is_one_problem(void **state)
{
	static const int lines[] = {0};
	static const char *const needles[] = {"summary table"};
	td_debugmd *doc = parse("");

	(void)state;
	expect_problems(&doc->problems, lines, needles, 1);
	assert_int_equal(doc->n_findings, 0);
	td_debugmd_free(doc);
}

static void test_a_malformed_table_row_is_reported_with_its_line(void **state)
{
	static const char text[] =
		"| # | Where | Severity | Found by | Status |\n"          /* 1 */
		"|---|---|---|---|---|\n"                                 /* 2 */
		"| 1 | `a.c` | high | mutation | fixed, `7c3f812` |\n"    /* 3 */
		"| 2 | `b.c` | high | mutation |\n"                       /* 4 */
		"| x | `c.c` | high | audit | open |\n"                   /* 5 */
		"| 4 | `d.c` | high | audit | fixed, 7c3f812 |\n"        /* 6 */
		"| 5 |  | high | audit | open |\n"                       /* 7 */
		"| 1 | `a.c` | high | mutation | open |\n"                /* 8 */
		"| 6 | `a | b` | high | mutation | open |\n"              /* 9 */
		"\n"                                                      /* 10 */
		"## 1. A\n";                                              /* 11 */
	static const int lines[] = {4, 5, 6, 7, 8, 9};
	static const char *const needles[] = {"4 cells", "\"x\" is not a finding number",
					      "status \"fixed, 7c3f812\"", "Where cell is empty",
					      "listed twice", "6 cells"};
	td_debugmd *doc = parse(text);

	(void)state;
	expect_problems(&doc->problems, lines, needles, 6);
	assert_int_equal(doc->n_findings, 1);
	assert_string_equal(doc->findings[0].status, "fixed"); /* the first row stands */
	td_debugmd_free(doc);
}

static void test_a_malformed_section_line_is_reported_with_its_line(void **state)
{
	static const char text[] =
		"| # | Where | Severity | Found by | Status |\n"          /* 1 */
		"|---|---|---|---|---|\n"                                 /* 2 */
		"| 1 | `a.c` | high | mutation | fixed, `7c3f812` |\n"    /* 3 */
		"\n"                                                      /* 4 */
		"## 1. A\n"                                               /* 5 */
		"**Guarded by** nothing in backticks\n"                   /* 6 */
		"**Guarded By** `test_x`\n"                               /* 7 */
		"**Pins**\n"                                              /* 8 */
		"tdaudit reproduce HEAD~1\n"                              /* 9 */
		"$ tdaudit reproduce 1234abcd\n"                          /* 10 */
		"**Guarded by** `test_y`, `test_y`\n"                     /* 11 */
		"**Guarded by** `test y`\n"                               /* 12 */
		"## 2 & 3. Two at once\n"                                 /* 13 */
		"**Guarded by** `test_z` is not read: no section is open\n"; /* 14 */
	static const int lines[] = {6, 7, 8, 9, 10, 11, 12, 13};
	static const char *const needles[] = {
		"at least one test", "unknown field label", "**Pins** must cite",
		"not \"HEAD~1\"", "reproduce names 1234abcd", "cited twice",
		"`test y` is not a test name", "## N. Title"};
	td_debugmd *doc = parse(text);

	(void)state;
	expect_problems(&doc->problems, lines, needles, 8);
	assert_int_equal(doc->findings[0].n_guards, 1); /* test_y, once */
	td_debugmd_free(doc);
}

static void test_a_heading_inside_a_code_fence_does_not_end_the_section(void **state)
{
	static const char text[] =
		"| # | Where | Severity | Found by | Status |\n"
		"|---|---|---|---|---|\n"
		"| 1 | `a.c` | high | mutation | fixed, `7c3f812` |\n"
		"## 1. A\n"
		"```sh\n"
		"# build first\n"
		"## and again\n"
		"**Guarded by** inside a fence is code, not a claim\n"
		"```\n"
		"**Guarded by** `test_after_the_fence`\n";
	td_debugmd *doc = parse(text);

	(void)state;
	expect_problems(&doc->problems, NULL, NULL, 0);
	assert_int_equal(doc->findings[0].n_guards, 1);
	assert_string_equal(doc->findings[0].guards[0].name, "test_after_the_fence");
	assert_int_equal(doc->findings[0].guards[0].line, 10);
	td_debugmd_free(doc);
}

static void test_rows_without_sections_and_sections_without_rows_are_reported(void **state)
{
	static const char text[] =
		"| # | Where | Severity | Found by | Status |\n"  /* 1 */
		"|---|---|---|---|---|\n"                         /* 2 */
		"| 1 | `a.c` | high | mutation | open |\n"        /* 3 */
		"| 2 | `b.c` | high | mutation | open |\n"        /* 4 */
		"\n"                                              /* 5 */
		"## 2. B\n"                                       /* 6 */
		"## 3. C\n"                                       /* 7 */
		"| # | Where | Severity | Found by | Status |\n"; /* 8 */
	static const int lines[] = {3, 7, 8};
	static const char *const needles[] = {"finding 1 has a table row but no",
					      "finding 3 has a section but no", "second summary table"};
	static const int lines2[] = {0, 1};
	static const char *const needles2[] = {"no summary table", "finding 1 has a section"};
	td_debugmd *doc = parse(text);

	(void)state;
	expect_problems(&doc->problems, lines, needles, 3);
	td_debugmd_free(doc);
	doc = parse("## 1. A\n");
	expect_problems(&doc->problems, lines2, needles2, 2);
	td_debugmd_free(doc);
}

static void put(td_ledger *lg, int n, const char *where, const char *status, const char *commit)
{
	td_ledger_finding f = {n, "T", where, "high", "mutation", status, commit};

	assert_int_equal(td_ledger_put_finding(lg, &f), 0);
}

static void begin(td_ledger *lg)
{
	td_ledger_run_info info = {.command = "tdaudit test", .tool_version = "0.1"};

	assert_int_equal(td_ledger_run_begin(lg, &info), 0);
}

static void test_the_ledger_export_parses_back_to_the_same_findings(void **state)
{
	const td_debugmd_finding *f;
	td_ledger *lg;
	td_debugmd *doc;
	FILE *out;

	(void)state;
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	put(lg, 1, "`plan.c` — a | b", "fixed", "7c3f812");
	put(lg, 2, "`x.c`", "never shipped", NULL);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	out = fopen("DEBUG.md", "w");
	assert_int_equal(td_ledger_export_md(out, lg), 0);
	fputs("\n## 1. One\n\n## 2. Two\n", out);
	fclose(out);
	td_ledger_free(lg);
	assert_int_equal(td_debugmd_parse_file(&doc, "DEBUG.md"), 0);
	expect_problems(&doc->problems, NULL, NULL, 0);
	assert_int_equal(doc->n_findings, 2);
	f = td_debugmd_find(doc, 1);
	assert_string_equal(f->where, "`plan.c` — a | b");
	assert_string_equal(f->severity, "high");
	assert_string_equal(f->found_by, "mutation");
	assert_string_equal(f->status, "fixed");
	assert_string_equal(f->commit, "7c3f812");
	f = td_debugmd_find(doc, 2);
	assert_string_equal(f->status, "never shipped");
	assert_null(f->commit);
	td_debugmd_free(doc);
}

static void test_the_cross_check_names_the_debugmd_line_of_each_disagreement(void **state)
{
	static const char text[] =
		"| # | Where | Severity | Found by | Status |\n"          /* 1 */
		"|---|---|---|---|---|\n"                                 /* 2 */
		"| 1 | `a.c` | high | mutation | fixed, `abc1234` |\n"    /* 3 */
		"| 2 | `b.c` | high | mutation | fixed, `def5678` |\n"    /* 4 */
		"| 3 | `c.c` | low | audit | open |\n"                    /* 5 */
		"| 5 | `e.c` | low | audit | fixed, `2222bbb` |\n"        /* 6 */
		"\n"                                                      /* 7 */
		"## 1. One\n"                                             /* 8 */
		"**Guarded by** `test_g1`\n"                              /* 9 */
		"**Guarded by** `test_g2`\n"                              /* 10 */
		"## 2. Two\n"                                             /* 11 */
		"## 3. Three\n"                                           /* 12 */
		"**Guarded by** `test_g3`\n"                              /* 13 */
		"## 5. Five\n";                                           /* 14 */
	static const int lines[] = {1, 4, 5, 6, 10};
	static const char *const needles[] = {
		"finding 4 (\"T\") is in the ledger but not in DEBUG.md",
		"finding 2's status is \"fixed\" here but \"open\" in the ledger",
		"finding 3 is in DEBUG.md but not in the ledger",
		"finding 5's fix commit is 2222bbb here but 1111aaa",
		"guard `test_g2` of finding 1 has no reproduction"};
	td_ledger_reproduction g1 = {"abc1234ffff", "test_g1", "fail", "pass", "guard", 2, 2, NULL, NULL, NULL, NULL};
	td_ledger_reproduction g2 = {"abc1234ffff", "test_g2", "pass", "pass", "pin", 2, 2, NULL, NULL, NULL, NULL};
	td_debugmd_problems *ps;
	td_debugmd *doc = parse(text);
	td_ledger *lg;

	(void)state;
	expect_problems(&doc->problems, NULL, NULL, 0);
	assert_int_equal(td_ledger_open(&lg, "l.db", TD_LEDGER_CREATE), 0);
	begin(lg);
	put(lg, 1, "`a.c`", "fixed", "abc1234ffff");
	put(lg, 2, "`b.c`", "open", NULL);
	put(lg, 4, "`d.c`", "fixed", "4444444");
	put(lg, 5, "`e.c`", "fixed", "1111aaa");
	assert_int_equal(td_ledger_put_reproduction(lg, &g1), 0);
	assert_int_equal(td_ledger_put_reproduction(lg, &g2), 0);
	assert_int_equal(td_ledger_run_finish(lg, "ok"), 0);
	assert_int_equal(td_debugmd_check(&ps, doc, lg), 0);
	expect_problems(ps, lines, needles, 5);
	td_debugmd_problems_free(ps);
	td_ledger_free(lg);
	td_debugmd_free(doc);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_a_good_debugmd_yields_every_field_with_its_line),
	cmocka_unit_test(test_a_malformed_table_row_is_reported_with_its_line),
	cmocka_unit_test(test_an_empty_debug_md_is_one_problem),
	cmocka_unit_test(test_a_malformed_section_line_is_reported_with_its_line),
	cmocka_unit_test(test_a_heading_inside_a_code_fence_does_not_end_the_section),
	cmocka_unit_test(test_rows_without_sections_and_sections_without_rows_are_reported),
	cmocka_unit_test(test_the_ledger_export_parses_back_to_the_same_findings),
	cmocka_unit_test(test_the_cross_check_names_the_debugmd_line_of_each_disagreement),
};

TD_TEST_GROUP(debugmd, tests);
