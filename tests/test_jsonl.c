/*
 * test_jsonl.c - the JSON-lines log: every line valid JSON (NaN and inf
 * become null, counted with the reason), strings escaped, doubles read back
 * exactly, lines appended and flushed one at a time, and the final eval
 * written like every other eval.
 *
 * Lines are checked with a strict JSON (RFC 8259) validator written below.
 *
 * What these tests guard: tdaudit mutate --list --file core/jsonl.c
 *   and --list --file base/json.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - td_json_put_number() with a fixed %.6g -> doubles_and_integers_read_back_exactly
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/counters.h"
#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/json.h"
#include "../core/jsonl.h"
#include "fixture.h"

/* --- a strict JSON validator --------------------------------------------- */

static const char *value(const char *p, int depth);

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL; /* raw control bytes, the NUL included */
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			for (int k = 1; k <= 4; k++)
				if (!strchr("0123456789abcdefABCDEF", p[k]) || !p[k])
					return NULL;
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *digits(const char *p)
{
	const char *q = p;

	while (*q >= '0' && *q <= '9')
		q++;
	return q == p ? NULL : q;
}

static const char *number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (!(p = digits(p)))
		return NULL;
	if (*p == '.' && !(p = digits(p + 1)))
		return NULL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		p = digits(p);
	}
	return p;
}

/* Members (object) or elements (array) up to close. */
static const char *items(const char *p, char close, int depth)
{
	p = ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (!(p = string(ws(p))) || *(p = ws(p)) != ':')
				return NULL;
			p++;
		}
		if (!(p = value(p, depth + 1)))
			return NULL;
		p = ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *value(const char *p, int depth)
{
	p = ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{' || *p == '[')
		return items(p + 1, *p == '{' ? '}' : ']', depth);
	if (*p == '"')
		return string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return number(p);
}

/* Asserts that every line of path is one JSON object; returns the number of lines. */
static int assert_valid_jsonl(const char *path)
{
	char *text, *line, *save = NULL;
	int n = 0;

	assert_int_equal(td_file_read(path, &text, NULL), 0);
	assert_true(strlen(text) > 0 && text[strlen(text) - 1] == '\n');
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		const char *end = ws(line);

		if (*end != '{' || !(end = value(end, 0)) || *ws(end))
			fail_msg("line %d is not one JSON object: %s", n + 1, line);
	}
	free(text);
	return n;
}

static char *read_all(const char *path)
{
	char *text;

	assert_int_equal(td_file_read(path, &text, NULL), 0);
	return text;
}

/* --- tests ---------------------------------------------------------------- */

static void test_every_line_is_valid_json_even_with_nan_inf_and_control_bytes(void **state)
{
	td_counters *c;
	td_jsonl *j;
	char *text;

	(void)state;
	assert_int_equal(td_counters_new(&c, 4), 0);
	assert_int_equal(td_jsonl_open(&j, "log.jsonl", c), 0);
	assert_int_equal(td_jsonl_step(j, 1, NAN, 0.001, INFINITY, c), 0);
	assert_int_equal(td_jsonl_step(j, 2, -INFINITY, 0.002, 1.5, c), 0);
	td_jsonl_begin(j);
	td_jsonl_str(j, "note", "a \"quote\", a \\ back\\slash, a\nnew line, a\ttab, \x01 and \x7f");
	td_jsonl_str(j, "we\"ird key", "");
	assert_int_equal(td_jsonl_end(j), 0);
	td_jsonl_free(j);
	assert_int_equal(assert_valid_jsonl("log.jsonl"), 3);
	text = read_all("log.jsonl");
	assert_null(strstr(text, ":nan")); /* printf's spellings, outside a string */
	assert_null(strstr(text, ":inf"));
	assert_null(strstr(text, ":-inf"));
	assert_non_null(strstr(text, "{\"kind\":\"step\",\"step\":1,\"loss\":null,\"lr\":0.001,"
				     "\"grad_norm\":null,\"counters\":{\"json_nonfinite_as_null\":"));
	assert_non_null(strstr(text, "\\u0001 and \\u007f"));
	free(text);
	assert_int_equal(td_counter_get(c, "json_nonfinite_as_null"), 3);
	assert_string_equal(td_counter_why(c, "json_nonfinite_as_null", 0),
			    "field 'loss' was nan in line 1 of log.jsonl");
	assert_string_equal(td_counter_why(c, "json_nonfinite_as_null", 2),
			    "field 'loss' was inf in line 2 of log.jsonl");
	td_counters_free(c);
}

static void test_doubles_and_integers_read_back_exactly(void **state)
{
	const double xs[] = {0.1, 1.0 / 3.0, 1e-300, -2.5e17, 123456789.123, 0.0, -0.0, 5e-324,
			     1.7976931348623157e308};
	td_json_buf b = TD_JSON_BUF_INIT;
	char *save = NULL;
	size_t k = 0;

	(void)state;
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		assert_int_equal(td_json_put_number(&b, xs[i]), 0);
		td_json_put_raw(&b, " ");
	}
	for (char *tok = strtok_r(b.s, " ", &save); tok; tok = strtok_r(NULL, " ", &save), k++) {
		double back = strtod(tok, NULL);

		assert_memory_equal(&back, &xs[k], sizeof back);
		assert_non_null(number(tok));
	}
	assert_int_equal(k, sizeof xs / sizeof xs[0]);
	td_json_buf_clear(&b);
	td_json_put_number(&b, 0.1);
	assert_string_equal(b.s, "0.1"); /* the shortest form, not 0.10000000000000001 */
	td_json_buf_clear(&b);
	td_json_put_int(&b, INT64_C(-9007199254740991));
	assert_string_equal(b.s, "-9007199254740991");
	assert_int_equal(td_json_put_number(&b, NAN), 1);
	td_json_buf_free(&b);
}

static void test_log_due_marks_every_multiple_and_the_last_step(void **state)
{
	(void)state;
	assert_int_equal(td_log_due(4, 10, 4), 1);
	assert_int_equal(td_log_due(5, 10, 4), 0);
	assert_int_equal(td_log_due(8, 10, 4), 1);
	assert_int_equal(td_log_due(10, 10, 4), 1); /* the last step, not a multiple */
	assert_int_equal(td_log_due(11, 10, 4), 0);
	assert_int_equal(td_log_due(0, 10, 4), 0);
	assert_int_equal(td_log_due(3, 10, 0), 0);
	assert_int_equal(td_log_due(12, 12, 4), 1); /* last and a multiple: once */
}

/*
 * A cadence of 1 logs every step from the first. Seen failing with
 * td_log_due's every < 1 made every <= 1, and its step < 1 made step <= 1.
 */
static void test_log_due_with_a_cadence_of_one_marks_every_step(void **state)
{
	(void)state;
	for (int64_t s = 1; s <= 5; s++)
		assert_int_equal(td_log_due(s, 5, 1), 1);
}

static void test_the_final_eval_is_written_like_every_other_eval(void **state)
{
	const int64_t steps = 10, every = 4;
	td_jsonl *j;
	char *text;

	(void)state;
	assert_int_equal(td_jsonl_open(&j, "run.jsonl", NULL), 0);
	for (int64_t s = 1; s <= steps; s++) {
		td_eval_record r = {s, 1.0 / (double)s, 0.5, 64, s == steps, NULL};

		if (td_log_due(s, steps, every))
			assert_int_equal(td_jsonl_eval(j, &r, NULL), 0);
	}
	assert_int_equal(td_jsonl_lines(j), 3);
	td_jsonl_free(j);
	assert_int_equal(assert_valid_jsonl("run.jsonl"), 3);
	text = read_all("run.jsonl");
	assert_string_equal(text,
			    "{\"kind\":\"eval\",\"step\":4,\"loss\":0.25,\"accuracy\":0.5,\"examples\":"
			    "64,\"final\":false,\"counters\":{}}\n"
			    "{\"kind\":\"eval\",\"step\":8,\"loss\":0.125,\"accuracy\":0.5,\"examples\":"
			    "64,\"final\":false,\"counters\":{}}\n"
			    "{\"kind\":\"eval\",\"step\":10,\"loss\":0.1,\"accuracy\":0.5,\"examples\":"
			    "64,\"final\":true,\"counters\":{}}\n");
	free(text);
}

static void test_each_line_is_flushed_and_reopening_appends(void **state)
{
	td_eval_record r = {1, 2.0, -1, 8, 0, NULL};
	td_jsonl *j;
	char *text;

	(void)state;
	assert_int_equal(td_jsonl_open(&j, "a.jsonl", NULL), 0);
	assert_int_equal(td_jsonl_eval(j, &r, NULL), 0);
	text = read_all("a.jsonl"); /* while the log is still open */
	assert_string_equal(text, "{\"kind\":\"eval\",\"step\":1,\"loss\":2,\"examples\":8,"
				  "\"final\":false,\"counters\":{}}\n");
	free(text);
	td_jsonl_free(j);
	assert_int_equal(td_jsonl_open(&j, "a.jsonl", NULL), 0);
	r.step = 2;
	assert_int_equal(td_jsonl_eval(j, &r, NULL), 0);
	td_jsonl_free(j);
	assert_int_equal(assert_valid_jsonl("a.jsonl"), 2);
}

static void test_an_unwritable_log_is_refused_naming_the_path(void **state)
{
	td_jsonl *j = (td_jsonl *)1;

	(void)state;
	TD_ASSERT_REFUSED(td_jsonl_open(&j, "no/such/dir/log.jsonl", NULL), TD_EIO,
			  "no/such/dir/log.jsonl");
	assert_null(j);
	td_jsonl_free(NULL);
}

/*
 * An eval of accuracy 0 writes it (only a negative accuracy is omitted),
 * and its content hash is written when it has one. Seen failing with
 * td_jsonl_eval's accuracy >= 0 made > 0, and with its td_jsonl_str of
 * the content removed.
 */
static void test_an_accuracy_of_zero_and_the_content_are_written(void **state)
{
	td_eval_record r = {3, 0.5, 0.0, 16, 1, "00ff"};
	td_jsonl *j;
	char *text;

	(void)state;
	assert_int_equal(td_jsonl_open(&j, "zero.jsonl", NULL), 0);
	assert_int_equal(td_jsonl_eval(j, &r, NULL), 0);
	td_jsonl_free(j);
	text = read_all("zero.jsonl");
	assert_string_equal(text, "{\"kind\":\"eval\",\"step\":3,\"loss\":0.5,\"accuracy\":0,"
				  "\"examples\":16,\"content\":\"00ff\",\"final\":true,"
				  "\"counters\":{}}\n");
	free(text);
}

/*
 * A NaN whose count cannot be kept (the counters are full) fails its line,
 * which is not written: a null is never left without its reason. Seen
 * failing with td_jsonl_num's if (err && !j->err) negated.
 */
static void test_a_nan_whose_count_cannot_be_kept_fails_its_line(void **state)
{
	td_counters *c;
	td_jsonl *j;
	char *text;

	(void)state;
	assert_int_equal(td_counters_new(&c, 1), 0);
	assert_int_equal(td_counter_add(c, "other", "fills the only slot"), 0);
	assert_int_equal(td_jsonl_open(&j, "full.jsonl", c), 0);
	TD_ASSERT_REFUSED(td_jsonl_step(j, 1, NAN, 0.1, 1.0, c), TD_ESTATE,
			  "'json_nonfinite_as_null'");
	assert_int_equal(td_jsonl_lines(j), 0);
	td_jsonl_free(j);
	text = read_all("full.jsonl");
	assert_string_equal(text, "");
	free(text);
	td_counters_free(c);
}

/*
 * Freeing a log closes its file: no descriptor is left open per log
 * (glibc keeps every FILE on a list, so a leak checker misses it). Seen
 * failing with td_jsonl_free's fclose removed.
 */
static void test_freeing_a_log_closes_its_file(void **state)
{
	int before;
	td_jsonl *j;

	(void)state;
	before = fx_open_fds();
	assert_int_equal(td_jsonl_open(&j, "closed.jsonl", NULL), 0);
	assert_int_equal(fx_open_fds(), before + 1);
	td_jsonl_free(j);
	assert_int_equal(fx_open_fds(), before);
}

/*
 * td_utf8_len against the table of well-formed sequences in the Unicode
 * standard (table 3-7): overlong forms, surrogates, code points past
 * U+10FFFF, stray continuation bytes and truncated sequences are not UTF-8.
 */
static void test_utf8_sequences_are_judged_as_the_standard_says(void **state)
{
	static const struct { const char *s; size_t n; } cases[] = {
	    {"a", 1},		     {"\xc3\xa9", 2},	       {"\xe2\x82\xac", 3},
	    {"\xf0\x9f\x98\x80", 4}, {"\xf4\x8f\xbf\xbf", 4},  {"\xed\x9f\xbf", 3},
	    {"\xc0\x80", 0},	     {"\xc1\xbf", 0},	       {"\xe0\x9f\xbf", 0},
	    {"\xed\xa0\x80", 0},     {"\xf0\x8f\xbf\xbf", 0},  {"\xf4\x90\x80\x80", 0},
	    {"\xf5\x80\x80\x80", 0}, {"\x80", 0},	       {"\xbf", 0},
	    {"\xe2\x82", 0},	     {"\xc3", 0},	       {"\xff", 0},
	};
	td_json_buf b = TD_JSON_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (td_utf8_len(cases[i].s) != cases[i].n)
			fail_msg("case %zu: %zu, not %zu", i, td_utf8_len(cases[i].s), cases[i].n);
	td_json_put_string(&b, "caf\xe9 \xc3\xa9");
	assert_string_equal(b.s, "\"caf\\ufffd \xc3\xa9\"");
	td_json_buf_clear(&b);
	td_xml_put_text(&b, "<a \xff&\x01>");
	assert_string_equal(b.s, "&lt;a \xef\xbf\xbd&amp; &gt;");
	td_json_buf_free(&b);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_line_is_valid_json_even_with_nan_inf_and_control_bytes),
    cmocka_unit_test(test_utf8_sequences_are_judged_as_the_standard_says),
    cmocka_unit_test(test_doubles_and_integers_read_back_exactly),
    cmocka_unit_test(test_log_due_marks_every_multiple_and_the_last_step),
    cmocka_unit_test(test_the_final_eval_is_written_like_every_other_eval),
    cmocka_unit_test(test_each_line_is_flushed_and_reopening_appends),
    cmocka_unit_test(test_an_unwritable_log_is_refused_naming_the_path),
    cmocka_unit_test(test_log_due_with_a_cadence_of_one_marks_every_step),
    cmocka_unit_test(test_an_accuracy_of_zero_and_the_content_are_written),
    cmocka_unit_test(test_a_nan_whose_count_cannot_be_kept_fails_its_line),
    cmocka_unit_test(test_freeing_a_log_closes_its_file),
};

TD_TEST_GROUP(jsonl, tests);
