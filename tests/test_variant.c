/*
 * test_variant.c - build variants (tdaudit.lua's variant { }) end to end,
 * on a fixture repository whose fix shows only under one configuration:
 *   C0  clamp() clamps, except when built with -DSTRICT (the bug)
 *   C1  the fix: clamp() clamps under STRICT too; test_clamp added
 * Under the default build test_clamp passes before and after C1 (a pin);
 * under the variant strict (CFLAGS=-DSTRICT) it fails before (a guard).
 *
 * What these tests guard: tdaudit mutate --list --file harness/variant.c
 *   and --list --file harness/reproduce.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - td_testrun_build() running p->build, not td_variant_argv()
 *     -> one_fix_is_a_guard_under_one_variant_and_a_pin_under_another
 *   - td_testrun_jail() not adding the variant's env
 *     -> a_variants_environment_reaches_its_build
 *   - check_claims() judging each variant alone (NO GUARD under default)
 *     -> one_fix_is_a_guard_under_one_variant_and_a_pin_under_another
 *   - td_variant_for_commit() ignoring since, or the range's answer
 *     -> a_variant_chosen_by_date_or_range_is_used_without_being_named
 *   - build_state() not trying the fallback -> a_state_that_does_not_build_falls_back_when_told
 *   - check_claims() taking the last variant's verdict alone (holds = ...)
 *     -> one_fix_is_a_guard_under_one_variant_and_a_pin_under_another
 *   - check_claims() saying "every variant" with a variant not judged (the
 *     old code), or print_table() without the fallback
 *     -> a_variant_that_cannot_be_judged_is_named_never_counted_in_every,
 *        a_state_that_does_not_build_falls_back_when_told
 *   - cmd_mutate.c / cmd_bisect.c running the first variant only, or
 *     keeping the last run's status -> several_variants_run_mutate_and_bisect_once_each
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"

static const char t_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int clamp(int);\n"
	"int main(int argc, char **argv)\n{\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"--list\")) { puts(\"test_clamp\"); return 0; }\n"
	"\tif (argc > 1 && !strcmp(argv[1], \"test_clamp\")) {\n"
	"\t\tint ok = clamp(-5) == 0;\n"
	"\t\tprintf(\"test_clamp %s\\n\", ok ? \"ok\" : \"FAILED\");\n"
	"\t\treturn !ok;\n\t}\n\treturn 2;\n}\n";

static const char t0_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int main(int argc, char **argv)\n{\n"
	"\treturn argc > 1 && strcmp(argv[1], \"--list\") ? 2 : 0;\n}\n";

static const char calc_bug[] =
	"int clamp(int x)\n{\n#ifdef STRICT\n\treturn x;\n#else\n\treturn x < 0 ? 0 : x;\n#endif\n}\n";
static const char calc_fix[] =
	"int clamp(int x)\n{\n#ifdef STRICT\n\treturn x < 0 ? 0 : x + 0;\n#else\n"
	"\treturn x < 0 ? 0 : x;\n#endif\n}\n";

static const char base_config[] =
	"build { \"make\", \"-s\" }\n"
	"runner { list = { \"./t\", \"--list\" }, run = { \"./t\", \"{test}\" } }\n"
	"sources { \"calc.c\" }\n"
	"tests { \"t.c\", \"Makefile\" }\n"
	"timeout { factor = 5, floor = 5 }\n";

static char c0[41], c1[41];

/* The two commits, with tdaudit.lua's variants as given (the working tree's is read). */
static void make_history(const char *variants)
{
	char config[2048];

	snprintf(config, sizeof config, "%s%s", base_config, variants);
	fx_write("repo", "Makefile", "t: t.c calc.c\n\tcc -O0 $(CFLAGS) $(EXTRA) -o t t.c calc.c\n");
	fx_write("repo", "tdaudit.lua", config);
	fx_write("repo", "t.c", t0_c);
	fx_write("repo", "calc.c", calc_bug);
	fx_git_commit_all("repo", "C0");
	snprintf(c0, sizeof c0, "%s", fx_git_rev("repo", "HEAD"));
	fx_write("repo", "t.c", t_c);
	fx_write("repo", "calc.c", calc_fix);
	fx_git_commit_all("repo", "C1 clamp under STRICT too");
	snprintf(c1, sizeof c1, "%s", fx_git_rev("repo", "HEAD"));
}

static int tdaudit(const char *const *args)
{
	unlink("v.log"); /* fx_run appends */
	return fx_tdaudit("repo", "v.log", args);
}

/* Each row sql gives from the fixture's ledger, its columns " "-joined, rows ";"-joined. */
static const char *ledger_rows(const char *sql)
{
	static char out[2048];
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t k = 0;

	out[0] = '\0';
	assert_int_equal(sqlite3_open_v2("repo/.tdaudit/ledger.db", &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && k < sizeof out)
		for (int c = 0; c < sqlite3_column_count(st) && k < sizeof out; c++)
			k += (size_t)snprintf(out + k, sizeof out - k, "%s%s", c ? " " : k ? ";" : "",
					      sqlite3_column_text(st, c));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* "variant verdict build fallback" of each reproduction of test_clamp, by variant. */
static const char *rows(void)
{
	return ledger_rows("SELECT variant, verdict, build, coalesce(fallback, '-') FROM reproductions"
			   " WHERE test = 'test_clamp' ORDER BY variant");
}

static const char strict[] =
	"variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" } }\n";

static void test_one_fix_is_a_guard_under_one_variant_and_a_pin_under_another(void **state)
{
	const char *const all[] = {"reproduce", c1, "--variants", "all", NULL};
	const char *const plain[] = {"reproduce", c1, "--variant", "default", NULL};
	const char *const named[] = {"reproduce", c1, "--variant", "strict", NULL};
	const char *const unknown[] = {"reproduce", c1, "--variant", "strcit", NULL};

	(void)state;
	make_history(strict);
	assert_int_equal(tdaudit(all), 0);
	assert_non_null(strstr(fx_slurp("v.log"), "variant strict: make -s CFLAGS=-DSTRICT"));
	assert_non_null(strstr(fx_slurp("v.log"), "test_clamp: pin under default, guard under strict"));
	assert_string_equal(rows(), "default pin make -s -;strict guard make -s CFLAGS=-DSTRICT -");
	/* the negative control: under the default build alone the test guards nothing */
	assert_int_equal(tdaudit(plain), 1);
	assert_non_null(strstr(fx_slurp("v.log"), "NO GUARD"));
	assert_int_equal(tdaudit(named), 0);
	assert_int_equal(tdaudit(unknown), 2);
	assert_non_null(strstr(fx_slurp("v.log"),
			       "--variant strcit: tdaudit.lua declares no variant of that name (its "
			       "variants: default, strict)"));
}

static void test_a_variants_environment_reaches_its_build(void **state)
{
	const char *const env[] = {"reproduce", c1, "--variant", "strict-env", NULL};

	(void)state;
	make_history("variant { name = \"strict-env\", env = { EXTRA = \"-DSTRICT\" } }\n");
	assert_int_equal(tdaudit(env), 0);
	assert_non_null(strstr(fx_slurp("v.log"), "(env EXTRA=-DSTRICT)"));
	assert_non_null(strstr(rows(), "strict-env guard"));
}

static void test_a_variant_chosen_by_date_or_range_is_used_without_being_named(void **state)
{
	const char *const plain[] = {"reproduce", c1, NULL};
	char config[512];

	(void)state;
	make_history("variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" }, since = \"2000-01-01\" }\n");
	assert_int_equal(tdaudit(plain), 0);
	assert_non_null(strstr(fx_slurp("v.log"), "dated 2000-01-01 or later"));
	assert_string_equal(rows(), "strict guard make -s CFLAGS=-DSTRICT -");
	/* a date no commit is before, or on or after: default, and then no guard */
	make_history("variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" }, before = \"2000-01-01\" }\n");
	assert_int_equal(tdaudit(plain), 1);
	make_history("variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" }, since = \"2999-01-01\" }\n");
	assert_int_equal(tdaudit(plain), 1);
	assert_null(strstr(fx_slurp("v.log"), "[chosen for"));
	/* a range holding the fix */
	make_history("");
	snprintf(config, sizeof config, "%svariant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" }, "
					"range = \"%.12s..%.12s\" }\n", base_config, c0, c1);
	fx_write("repo", "tdaudit.lua", config);
	assert_int_equal(tdaudit(plain), 0);
	assert_non_null(strstr(fx_slurp("v.log"), "[chosen for"));
	/* and one that does not: C1..C1 holds no commit */
	snprintf(config, sizeof config, "%svariant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" }, "
					"range = \"%.12s..%.12s\" }\n", base_config, c1, c1);
	fx_write("repo", "tdaudit.lua", config);
	assert_int_equal(tdaudit(plain), 1);
	assert_null(strstr(fx_slurp("v.log"), "[chosen for"));
}

static void test_a_state_that_does_not_build_falls_back_when_told(void **state)
{
	const char *const old[] = {"reproduce", c1, "--variant", "old", NULL};

	(void)state;
	make_history("variant { name = \"old\", args = { \"CFLAGS=-DSTRICT -Werror=no-such-flag\" },"
		     " fallback = \"strict\" }\n"
		     "variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" } }\n");
	assert_int_equal(tdaudit(old), 0);
	assert_non_null(strstr(fx_slurp("v.log"), "building with variant strict instead"));
	assert_non_null(strstr(fx_slurp("v.log"), "2 states were built with a variant's fallback"));
	assert_string_equal(rows(), "old guard make -s 'CFLAGS=-DSTRICT -Werror=no-such-flag' "
				    "after=strict,before=strict");
	/* the verdict line says what built it */
	assert_non_null(strstr(fx_slurp("v.log"), "guard    old (built: after=strict,before=strict)"));
	/* without a fallback the same variant is an error, never a verdict */
	make_history("variant { name = \"old\", args = { \"CFLAGS=-DSTRICT -Werror=no-such-flag\" } }\n");
	assert_int_equal(tdaudit(old), 2);
	assert_non_null(strstr(fx_slurp("v.log"), "does not build"));
}

static void test_a_variant_that_cannot_be_judged_is_named_never_counted_in_every(void **state)
{
	const char *const all[] = {"reproduce", c1, "--variants", "all", NULL};

	(void)state;
	make_history("variant { name = \"broken\", args = { \"CFLAGS=-Werror=no-such-flag\" } }\n"
		     "variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" } }\n");
	assert_int_equal(tdaudit(all), 2); /* broken's fix does not build: said, status 2 */
	assert_non_null(strstr(fx_slurp("v.log"), "variant broken: "));
	if (!strstr(fx_slurp("v.log"), "test_clamp: pin under default, guard under strict; not "
				       "judged under broken"))
		fail_msg("no line naming the unjudged variant: %s", fx_slurp("v.log"));
	/* two variants that agree, and one not judged: not "every variant" */
	make_history("variant { name = \"broken\", args = { \"CFLAGS=-Werror=no-such-flag\" } }\n"
		     "variant { name = \"strict\", args = { \"CFLAGS=-DSTRICT\" } }\n"
		     "variant { name = \"strict2\", args = { \"CFLAGS=-DSTRICT -O1\" } }\n");
	{
		const char *const two[] = {"reproduce", c1, "--variants", "strict,strict2,broken", NULL};

		assert_int_equal(tdaudit(two), 2);
		assert_null(strstr(fx_slurp("v.log"), "under every variant"));
		assert_non_null(strstr(fx_slurp("v.log"), "test_clamp: guard under strict, guard under "
							  "strict2; not judged under broken"));
	}
}

static void test_bisect_and_mutate_build_with_the_named_variant(void **state)
{
	char good[16], bad[16];
	const char *const strict_bisect[] = {"bisect", "--guard", "test_clamp", "--good", good,
					     "--bad", bad, "--tests-at", bad, "--variant", "strict",
					     NULL};
	const char *const plain_bisect[] = {"bisect", "--guard", "test_clamp", "--good", good,
					    "--bad", bad, "--tests-at", bad, NULL};

	(void)state;
	make_history(strict);
	snprintf(good, sizeof good, "%.12s", c0);
	snprintf(bad, sizeof bad, "%.12s", c1);
	assert_int_equal(tdaudit(strict_bisect), 0);
	assert_non_null(strstr(fx_slurp("v.log"), "[variant strict]"));
	assert_non_null(strstr(fx_slurp("v.log"), "first commit where test_clamp passes"));
	/* under the default build it passes at both ends: nothing to find */
	assert_int_equal(tdaudit(plain_bisect), 2);
	assert_non_null(strstr(fx_slurp("v.log"), "at the good end"));
	/* a mutant of the STRICT branch: killed only where that branch is compiled */
	fx_write("repo", "cat.lua",
		 "mutant { name = \"calc-strict-unclamped\", file = \"calc.c\", find = \"x < 0 ? 0 : x + 0\",\n"
		 "  replace = \"x + 0\", guards = { \"test_clamp\" },\n"
		 "  designed_against = \"clamp\", why = \"STRICT does not clamp\" }\n");
	{
		char config[1024];
		const char *const m_strict[] = {"mutate", "--variant", "strict", NULL};
		const char *const m_plain[] = {"mutate", NULL};

		snprintf(config, sizeof config, "%s%scatalogues { \"cat.lua\" }\n", base_config, strict);
		fx_write("repo", "tdaudit.lua", config);
		fx_git_commit_all("repo", "C2 catalogue");
		if (tdaudit(m_plain) != 1) /* the mutant survives: its branch is not compiled */
			fail_msg("mutate without the variant: %s", fx_slurp("v.log"));
		assert_non_null(strstr(fx_slurp("v.log"), "tdaudit mutate: variant default: make -s"));
		if (tdaudit(m_strict) != 0)
			fail_msg("mutate --variant strict: %s", fx_slurp("v.log"));
		assert_non_null(strstr(fx_slurp("v.log"),
				       "tdaudit mutate: variant strict: make -s CFLAGS=-DSTRICT"));
	}
}

/* "variant build" of each mutate run in the ledger, by start. */
static const char *mutate_runs(void)
{
	return ledger_rows("SELECT variant, build FROM runs WHERE command LIKE '%mutate%'"
			   " ORDER BY started, rowid");
}

static void test_several_variants_run_mutate_and_bisect_once_each(void **state)
{
	char config[1024], good[16], bad[16];
	const char *const m_all[] = {"mutate", "--variants", "all", "--json", "../m.json", NULL};
	const char *const m_both[] = {"mutate", "--variant", "strict", "--variant", "default", NULL};
	const char *const b_all[] = {"bisect", "--guard", "test_clamp", "--good", good, "--bad", bad,
				     "--tests-at", bad, "--variants", "default,strict", NULL};
	const char *const b_bad[] = {"bisect", "--guard", "test_clamp", "--good", good, "--bad", bad,
				     "--variants", "strict,nope", NULL};

	(void)state;
	make_history(strict);
	fx_write("repo", "cat.lua",
		 "mutant { name = \"calc-strict-unclamped\", file = \"calc.c\", find = \"x < 0 ? 0 : x + 0\",\n"
		 "  replace = \"x + 0\", guards = { \"test_clamp\" },\n"
		 "  designed_against = \"clamp\", why = \"STRICT does not clamp\" }\n");
	snprintf(config, sizeof config, "%s%scatalogues { \"cat.lua\" }\n", base_config, strict);
	fx_write("repo", "tdaudit.lua", config);
	fx_git_commit_all("repo", "C2 catalogue");
	unlink("m-default.json");
	unlink("m-strict.json");
	/* survives under default, killed under strict: the worse status, 1 */
	if (tdaudit(m_all) != 1)
		fail_msg("mutate --variants all: %s", fx_slurp("v.log"));
	assert_non_null(strstr(fx_slurp("v.log"), "tdaudit mutate: variant default (1 of 2)"));
	assert_non_null(strstr(fx_slurp("v.log"), "tdaudit mutate: variant strict (2 of 2)"));
	assert_non_null(strstr(fx_slurp("v.log"), "survived  [default]"));
	assert_non_null(strstr(fx_slurp("v.log"), "killed by test_clamp"));
	assert_non_null(strstr(fx_slurp("v.log"), "  [strict]"));
	assert_non_null(strstr(fx_slurp("m-default.json"), "\"survived\": 1"));
	assert_non_null(strstr(fx_slurp("m-strict.json"), "\"killed\": 1"));
	assert_string_equal(mutate_runs(), "default make -s;strict make -s CFLAGS=-DSTRICT");
	/* in the order given, each once */
	assert_int_equal(tdaudit(m_both), 1);
	assert_true(strstr(fx_slurp("v.log"), "variant strict (1 of 2)") <
		    strstr(fx_slurp("v.log"), "variant default (2 of 2)"));
	snprintf(good, sizeof good, "%.12s", c0);
	snprintf(bad, sizeof bad, "%.12s", c1);
	/* default finds no flip (2), strict finds the fix: the worse status */
	assert_int_equal(tdaudit(b_all), 2);
	assert_non_null(strstr(fx_slurp("v.log"), "tdaudit bisect: variant strict (2 of 2)"));
	assert_non_null(strstr(fx_slurp("v.log"), "first commit where test_clamp passes"));
	assert_int_equal(tdaudit(b_bad), 2);
	assert_non_null(strstr(fx_slurp("v.log"), "--variants nope: tdaudit.lua declares no variant"));
	assert_null(strstr(fx_slurp("v.log"), "tried "));
}

static void test_variants_that_are_malformed_are_refused_with_their_line(void **state)
{
	static const char *const bad[][2] = {
		{"variant { name = \"default\", args = { \"X=1\" } }", "is reserved"},
		{"variant { name = \"Big\", args = { \"X=1\" } }", "needs a name of 1 to 40"},
		{"variant { name = \"a\", args = { \"X=1\" }, build = { \"make\" } }", "give one"},
		{"variant { name = \"a\" }", "changes nothing"},
		{"variant { name = \"a\", args = { \"X=1\" } }\nvariant { name = \"a\", args = { \"Y\" } }",
		 "declared twice"},
		{"variant { name = \"a\", args = { \"X=1\" }, before = \"2019-13-01\" }",
		 "must be a date"},
		{"variant { name = \"a\", args = { \"X=1\" }, range = \"abc\" }", "must be \"A..B\""},
		{"variant { name = \"a\", env = { [\"1X\"] = \"v\" } }", "environment variable's name"},
		{"variant { name = \"a\", args = { \"X=1\" }, fallback = \"b\" }", "which is no variant"},
		{"variant { name = \"a\", args = { \"X=1\" }, fallback = \"a\" }", "falls back to itself"},
		{"variant { name = \"a\", args = { \"X=1\" }, flags = 1 }", "has no field 'flags'"},
		{"local t = {}\nfor i = 1, 61 do t[\"V\" .. i] = \"x\" end\nvariant { name = \"a\", env = t }",
		 "more than 60 variables"},
	};
	const char *const list[] = {"mutate", "--list", NULL};

	(void)state;
	make_history(strict);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char config[1024];

		snprintf(config, sizeof config, "%s%s\n", base_config, bad[i][0]);
		fx_write("repo", "tdaudit.lua", config);
		assert_int_equal(tdaudit(list), 2);
		if (!strstr(fx_slurp("v.log"), bad[i][1]) || !strstr(fx_slurp("v.log"), "tdaudit.lua:"))
			fail_msg("%s: wanted '%s' with its line, got: %s", bad[i][0], bad[i][1],
				 fx_slurp("v.log"));
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_one_fix_is_a_guard_under_one_variant_and_a_pin_under_another),
	cmocka_unit_test(test_a_variants_environment_reaches_its_build),
	cmocka_unit_test(test_a_variant_chosen_by_date_or_range_is_used_without_being_named),
	cmocka_unit_test(test_a_state_that_does_not_build_falls_back_when_told),
	cmocka_unit_test(test_a_variant_that_cannot_be_judged_is_named_never_counted_in_every),
	cmocka_unit_test(test_bisect_and_mutate_build_with_the_named_variant),
	cmocka_unit_test(test_several_variants_run_mutate_and_bisect_once_each),
	cmocka_unit_test(test_variants_that_are_malformed_are_refused_with_their_line),
};
TD_TEST_GROUP(variant, tests);
