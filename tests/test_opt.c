/*
 * test_opt.c - the table-driven option parser (base/opt.c), in process: a
 * table of every type, argv lists that must parse or be refused, and the
 * messages and usage it prints (stderr and stdout caught in files of the
 * test's own directory).
 *
 * What these tests guard: tdaudit mutate --list --file base/opt.c
 */
#define _POSIX_C_SOURCE 200809L
#include "tdtest.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../base/opt.h"
#include "../base/strv.h"
#include "fixture.h"

typedef struct {
	const char *name, *mode;
	char **tags;
	int jobs, list;
	long long steps;
	double timeout;
} targs;

static int call_mode(const td_opt *opt, void *a, const char *v, char *why, size_t size)
{
	(void)opt;
	if (!strcmp(v, "bad"))
		return snprintf(why, size, "is good or fine, not '%s'", v), 1;
	((targs *)a)->mode = v;
	return 0;
}

static const td_opt table[] = {
	{.name = "--name", .arg = "NAME", .type = TD_OPT_STRING, .at = offsetof(targs, name),
	 .help = "a name"},
	{.name = "--tag", .arg = "TAG", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(targs, tags), .help = "a tag (repeatable)"},
	{.name = "--jobs", .short_name = 'j', .arg = "N", .type = TD_OPT_INT,
	 .at = offsetof(targs, jobs), .min = 1, .max = 64,
	 .help = "workers, and a help text long enough to be wrapped at the eightieth column "
		 "of the usage twice over, so that the wrapping is seen to hold"},
	{.name = "--steps", .arg = "N", .type = TD_OPT_LONG, .at = offsetof(targs, steps), .min = 1,
	 .unit = "steps", .help = "steps"},
	{.name = "--timeout", .arg = "S", .type = TD_OPT_POSITIVE, .at = offsetof(targs, timeout),
	 .unit = "seconds", .help = "seconds"},
	{.name = "--list", .type = TD_OPT_FLAG, .at = offsetof(targs, list), .help = "a flag"},
	{.name = "--mode", .arg = "M", .type = TD_OPT_CALL, .call = call_mode, .help = "a callback"},
	{0},
};

static const td_opt_cmd cmd = {.program = "tdx", .name = "cmd", .opts = table,
			       .about = "About the command.\n", .after = "exit status: 0.\n"};
static const td_opt_cmd with_operands = {.program = "tdx", .name = "op", .opts = table,
					 .operands = "FILE..."};

/* Parses the NULL-terminated words after "cmd" into *a; stderr to err.log, stdout to out.log. */
static int parse(const td_opt_cmd *c, targs *a, char ***operands, const char *const *words)
{
	char *argv[32] = {"cmd"};
	int argc = 1, out = open("out.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = open("err.log", O_WRONLY | O_CREAT | O_TRUNC, 0644), saved[2] = {dup(1), dup(2)};
	int rc;

	while (words[argc - 1])
		argv[argc] = (char *)words[argc - 1], argc++;
	fflush(stdout), fflush(stderr);
	dup2(out, 1), dup2(err, 2);
	rc = td_opt_parse(c, a, argc, argv, operands);
	fflush(stdout), fflush(stderr);
	dup2(saved[0], 1), dup2(saved[1], 2);
	close(out), close(err), close(saved[0]), close(saved[1]);
	return rc;
}

#define REFUSED(message, ...)                                                                      \
	do {                                                                                       \
		const char *w_[] = {__VA_ARGS__, NULL};                                            \
		targs a_ = {0};                                                                    \
		assert_int_equal(parse(&cmd, &a_, NULL, w_), 2);                                   \
		if (!strstr(fx_slurp("err.log"), "tdx cmd: " message) ||                           \
		    !strstr(fx_slurp("err.log"), "\n(tdx cmd --help for the options)\n"))            \
			fail_msg("wanted \"%s\", got \"%s\"", message, fx_slurp("err.log"));       \
		td_strv_free(a_.tags);                                                             \
	} while (0)

static void test_opt_every_type_takes_its_value(void **state)
{
	const char *w[] = {"--name", "n", "--tag", "a", "-j4", "--steps", "12", "--timeout", "1.5",
			   "--list", "--tag", "b", "--mode", "m", NULL};
	targs a = {0};

	(void)state;
	assert_int_equal(parse(&cmd, &a, NULL, w), TD_OPT_RUN);
	assert_string_equal(a.name, "n");
	assert_int_equal(td_strv_len(a.tags), 2);
	assert_string_equal(a.tags[0], "a");
	assert_string_equal(a.tags[1], "b");
	assert_int_equal(a.jobs, 4);
	assert_int_equal(a.steps, 12);
	assert_true(a.timeout == 1.5);
	assert_int_equal(a.list, 1);
	assert_string_equal(a.mode, "m");
	td_strv_free(a.tags);
}

static void test_opt_an_option_given_twice_is_refused_unless_repeatable(void **state)
{
	(void)state;
	REFUSED("--name is given twice; give it once", "--name", "a", "--name", "b");
	REFUSED("-j is given twice; give it once", "-j", "1", "-j2");
	REFUSED("--jobs is given twice; give it once", "-j", "1", "--jobs", "2");
	REFUSED("--list is given twice; give it once", "--list", "--list");
	REFUSED("--mode is given twice; give it once", "--mode", "a", "--mode", "b");
}

static void test_opt_a_number_is_read_in_full_and_range_checked_or_refused(void **state)
{
	const char *bad_int[] = {"4x", "", " 4", "+4", "-4", "0", "65", "4.0", "0x4", "99999999999999999999", NULL};
	const char *bad_real[] = {"1.5s", "", " 1", "0", "-1", "nan", "inf", "1e999", NULL};
	char want[128];

	(void)state;
	for (int i = 0; bad_int[i]; i++) {
		snprintf(want, sizeof want, "--jobs needs a whole number 1..64, not '%s'", bad_int[i]);
		REFUSED("", "--jobs", bad_int[i]);
		assert_non_null(strstr(fx_slurp("err.log"), want));
	}
	REFUSED("--steps needs a whole number of steps, 1 or more, not '10x'", "--steps", "10x");
	for (int i = 0; bad_real[i]; i++) {
		snprintf(want, sizeof want, "--timeout needs a positive number of seconds, not '%s'",
			 bad_real[i]);
		REFUSED("", "--timeout", bad_real[i]);
		assert_non_null(strstr(fx_slurp("err.log"), want));
	}
}

static void test_opt_an_unknown_option_or_a_stray_operand_is_refused(void **state)
{
	const char *w[] = {"a", "--list", "-", "b", NULL};
	char **operands = NULL;
	targs a = {0};

	(void)state;
	REFUSED("unknown option '--nope'", "--list", "--nope");
	REFUSED("unknown option '-x'", "-x");
	REFUSED("unknown option '--jobs=4'", "--jobs=4");
	REFUSED("unknown option or argument 'stray'", "stray");
	REFUSED("--name needs a value (--name NAME)", "--name");
	REFUSED("--mode is good or fine, not 'bad'", "--mode", "bad");
	assert_int_equal(parse(&with_operands, &a, &operands, w), TD_OPT_RUN);
	assert_int_equal(td_strv_len(operands), 3);
	assert_string_equal(operands[1], "-");
	td_strv_free(operands);
}

static void test_opt_the_usage_is_generated_from_the_table(void **state)
{
	const char *help[] = {"--list", "--help", NULL};
	const char *text, *p;
	targs a = {0};

	(void)state;
	assert_int_equal(parse(&cmd, &a, NULL, help), 0);
	text = fx_slurp("out.log");
	assert_non_null(strstr(text, "usage: tdx cmd [--name NAME] [--tag TAG]... [--jobs N]"));
	assert_non_null(strstr(text, "\nAbout the command.\n"));
	assert_non_null(strstr(text, "\n  -j, --jobs N  workers, and a help"));
	assert_non_null(strstr(text, "\n  --list        a flag\n"));
	assert_non_null(strstr(text, "\nexit status: 0.\n"));
	for (p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		if (strcspn(p, "\n") > 80)
			fail_msg("a line wider than 80 columns: %.*s", (int)strcspn(p, "\n"), p);
	for (const td_opt *o = table; o->name; o++) /* every option, as --long-name ARG */
		assert_non_null(strstr(text, o->name));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_opt_every_type_takes_its_value),
    cmocka_unit_test(test_opt_an_option_given_twice_is_refused_unless_repeatable),
    cmocka_unit_test(test_opt_a_number_is_read_in_full_and_range_checked_or_refused),
    cmocka_unit_test(test_opt_an_unknown_option_or_a_stray_operand_is_refused),
    cmocka_unit_test(test_opt_the_usage_is_generated_from_the_table),
};
TD_TEST_GROUP(opt, tests);
