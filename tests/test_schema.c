/*
 * test_schema.c - mutant schemata: one build whose mutants are chosen at
 * run time must behave, mutant for mutant, as the build of each alone.
 *
 * The reference is independent of the schema: each generated mutant
 * applied alone (td_gen_apply), compiled and run, against the schema's
 * program run with that mutant's number.
 *
 * What these tests guard: tdaudit mutate --list --file harness/schema.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - left_edge() without its `(x) - y` check: `(int)-ratio(a, b) * 2` read
 *     as `(int)-(ratio(a, b) * 2)` -> every_mutant_of_the_schema_behaves_as_its_own_build
 *   - put_copy() writing the original token for the replaced one
 *     -> every_mutant_of_the_schema_behaves_as_its_own_build
 */
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../harness/gen.h"
#include "../harness/schema.h"
#include "fixture.h"

static const char program[] =
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"\n"
	"struct pt { int x, y; };\n"
	"static int calls;\n"
	"\n"
	"static void bump(int *c)\n{\n\t*c += 1;\n}\n"
	"\n"
	"static int clampi(int v, int lo, int hi)\n{\n"
	"\tif (v < lo)\n\t\treturn lo;\n"
	"\tif (v > hi) /* a comment */\n\t\treturn hi;\n"
	"\treturn v;\n}\n"
	"\n"
	"static double ratio(int a, int b)\n{\n"
	"\tdouble d = (double)a / (b + 1 +\n"
	"\t\t\t       10);\n"
	"\n"
	"\treturn d * 2.0 - 1;\n}\n"
	"\n"
	"static int mix(int a, int b, const struct pt *p)\n{\n"
	"\tint r = a * 3 + b / 2 - p->x;\n"
	"\n"
	"\tif (a >= b && p->y != 0 || a == 7)\n"
	"\t\tr = r - (int)-ratio(a, b) * 2;\n"
	"\tfor (int k = 0; k < 4 && r > 100; k++)\n"
	"\t\tr = r / 2;\n"
	"\twhile (r < -60)\n"
	"\t\tr += 40;\n"
	"\tr += sizeof(struct pt) * 1 <= 8 ? 1 : 0;\n"
	"\tbump(&calls);\n"
	"\treturn clampi(r, -50, 50) + (a <= b);\n}\n"
	"\n"
	"static int count(const char *s)\n{\n"
	"\tint n = 0, w[2] = {5, 1};\n"
	"\n"
	"\tfor (size_t i = 0; i < strlen(s); i++)\n"
	"\t\tif (s[i] == 'a' || s[i] != 'b' && s[i] > 'c')\n"
	"\t\t\tn++;\n"
	"\treturn n * w[1];\n}\n"
	"\n"
	"static int never(int a)\n{\n\treturn a < 3;\n}\n"
	"int (*keep)(int) = never;\n"
	"\n"
	"int main(void)\n{\n"
	"\tstruct pt p = {2, 0};\n"
	"\n"
	"\tfor (int a = -3; a < 9; a++)\n"
	"\t\tfor (int b = -2; b < 4; b++) {\n"
	"\t\t\tp.y = a - b;\n"
	"\t\t\tprintf(\"%d %d %d %.3f\\n\", a, b, mix(a, b, &p), ratio(a, b));\n"
	"\t\t}\n"
	"\tprintf(\"%d %d line %d\\n\", count(\"abcadbe\"), calls, __LINE__);\n"
	"\treturn 0;\n}\n";

/* The points of every generated mutant of r, numbered from 1. */
static td_schema_point *points_of(const td_gen_result *r)
{
	td_schema_point *p = calloc(r->n_mutants + 1, sizeof *p);

	assert_non_null(p);
	for (size_t i = 0; i < r->n_mutants; i++) {
		p[i].cls = td_gen_class_name(r->mutants[i].cls);
		p[i].off = r->mutants[i].off;
		p[i].len = r->mutants[i].len;
		p[i].repl = r->mutants[i].repl;
		p[i].number = (unsigned)i + 1;
	}
	return p;
}

/* Compiles src into program name (no warnings: mutants make some); exit status. */
static int compile(const char *name, const char *src, size_t len)
{
	char file[64];
	const char *argv[] = {"cc", "-std=gnu11", "-w", "-o", name, file, NULL};
	FILE *f;

	snprintf(file, sizeof file, "%s.c", name);
	f = fopen(file, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(src, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return fx_run(".", "cc.log", argv);
}

/*
 * The output of ./prog with TDAUDIT_MUTANT=number (0: unset, and the
 * coverage written to cov.txt); static buffer.
 */
static const char *output_of(const char *prog, unsigned number)
{
	static char text[1 << 16];
	char cmd[256];
	const char *argv[] = {"sh", "-c", cmd, NULL};

	if (number)
		snprintf(cmd, sizeof cmd, TD_SCHEMA_ENV "=%u ./%s > out.txt", number, prog);
	else
		snprintf(cmd, sizeof cmd, "rm -f cov.txt; " TD_SCHEMA_COVERAGE_ENV "=cov.txt ./%s > out.txt",
			 prog);
	snprintf(text, sizeof text, "exit %d\n", fx_run(".", "run.log", argv));
	strncat(text, fx_slurp("out.txt"), sizeof text - strlen(text) - 1);
	return text;
}

/*
 * Every generated mutant of a program: the schema's program with its
 * number set prints what the program with that mutant alone prints, and
 * with no number what the original prints (its __LINE__ included: the
 * schema keeps the lines). A point the unmutated run never reached (it
 * wrote the coverage file) is one whose mutant changes nothing; never()'s
 * are not reached. Only the `(int)-ratio(a, b) * 2` operators, where
 * a cast cannot be told from a parenthesised name, are left out: read as
 * `(int)-(ratio(a, b) * 2)`, the schema would print other figures; and the
 * size of `w[2]`, which would make w a variable-length array that may not
 * be initialised (the schema would not compile). Its index `w[1]` is in.
 */
static void test_every_mutant_of_the_schema_behaves_as_its_own_build(void **state)
{
	td_gen_result *r;
	td_schema_point *p;
	static char want[1 << 16], orig[1 << 16], cov[1 << 16];
	char *schema, line[32];
	const char *reached;
	size_t len, n_in, out = 0, n_reached = 0, n_size = 0;

	(void)state;
	assert_int_equal(td_gen_file(&r, "t.c", program, strlen(program), NULL), 0);
	p = points_of(r);
	for (size_t i = 0; i < r->n_mutants; i++)
		n_size += strstr(r->mutants[i].id, ":count:constant:2:") != NULL;
	assert_int_equal(td_schema_write(&schema, &len, &n_in, "t.c", program, strlen(program), p,
					 r->n_mutants), 0);
	assert_int_equal(compile("orig", program, strlen(program)), 0);
	if (compile("schema", schema, len) != 0)
		fail_msg("the schema does not compile: %s\n%s", fx_slurp("cc.log"), schema);
	snprintf(want, sizeof want, "%s", output_of("orig", 0));
	snprintf(orig, sizeof orig, "%s", want);
	assert_string_equal(output_of("schema", 0), want);
	reached = fx_slurp("cov.txt"); /* written by that run */
	snprintf(cov, sizeof cov, "\n%s", reached);
	for (size_t i = 0; i < r->n_mutants; i++) {
		char *text;
		size_t tlen;

		if (p[i].why_not && strstr(r->mutants[i].id, ":count:constant:2:")) {
			assert_string_equal(p[i].why_not, "in an array size of a declaration (a "
							  "constant the type may need)");
			out++;
			continue;
		}
		if (p[i].why_not) {
			if (strcmp(p[i].why_not, "its operands cannot be read from the tokens with "
						 "certainty") != 0 ||
			    !strstr(r->mutants[i].id, ":mix:arithmetic:"))
				fail_msg("%s left out: %s", r->mutants[i].id, p[i].why_not);
			out++;
			continue;
		}
		assert_int_equal(td_gen_apply(&text, &tlen, program, strlen(program), &r->mutants[i]), 0);
		assert_int_equal(compile("one", text, tlen), 0);
		free(text);
		snprintf(want, sizeof want, "%s", output_of("one", 0));
		if (strcmp(output_of("schema", p[i].number), want) != 0)
			fail_msg("%s: the schema printed\n%s\nits own build\n%s", r->mutants[i].id,
				 output_of("schema", p[i].number), want);
		snprintf(line, sizeof line, "\n%u\n", p[i].number);
		if (strstr(r->mutants[i].id, ":never:"))
			assert_null(strstr(cov, line));
		else if (!strstr(cov, line) && strcmp(want, orig) != 0)
			fail_msg("%s changes the output, yet its point was never reached:\n%s",
				 r->mutants[i].id, cov);
		n_reached += strstr(cov, line) != NULL;
		assert_true(!strstr(cov, line) || !strstr(strstr(cov, line) + 1, line)); /* once */
	}
	assert_true(n_reached >= 40);
	assert_int_equal(out, 2 + n_size);
	assert_true(n_size >= 1);
	assert_int_equal(n_in, r->n_mutants - out);
	assert_true(n_in >= 50);
	free(schema);
	free(p);
	td_gen_result_free(r);
}

/*
 * What a schema cannot rewrite is left out with its reason: a case label
 * and a static initialiser (constant expressions), a macro body, a point
 * the caller leaves out, the sizes of arrays declared (of any declarator
 * of the declaration); the statement after a case label is rewritten, and
 * so are the indices of those arrays.
 */
static void test_what_a_schema_cannot_rewrite_is_left_out_with_its_reason(void **state)
{
	static const char src[] = "#define TWICE(x) ((x) + (x))\n"
				  "int f(int a, int b)\n{\n"
				  "\tstatic const int k = 2 + 3;\n"
				  "\tint v[3] = {a, b, 4}, *q[2] = {0, 0};\n"
				  "\tswitch (a) {\n"
				  "\tcase 1 + 1:\n"
				  "\t\treturn a < b ? 1 : k;\n"
				  "\t}\n"
				  "\treturn a - b + v[2] + !q[1];\n}\n";
	td_gen_result *r;
	td_schema_point *p;
	char *schema;
	size_t len, n_in;

	(void)state;
	assert_int_equal(td_gen_file(&r, "t.c", src, strlen(src), NULL), 0);
	p = points_of(r);
	for (size_t i = 0; i < r->n_mutants; i++)
		p[i].leave_out = strstr(r->mutants[i].id, ":arithmetic:-:") != NULL;
	assert_int_equal(td_schema_write(&schema, &len, &n_in, "t.c", src, strlen(src), p,
					 r->n_mutants), 0);
	for (size_t i = 0; i < r->n_mutants; i++) {
		const char *id = r->mutants[i].id, *why = p[i].why_not ? p[i].why_not : "in";

		if (p[i].off == (size_t)(strstr(src, "v[3]") - src) + 2 ||
		    p[i].off == (size_t)(strstr(src, "q[2]") - src) + 2)
			assert_string_equal(why, "in an array size of a declaration (a constant the "
						 "type may need)");
		else if (p[i].off == (size_t)(strstr(src, "v[2]") - src) + 2 ||
			 p[i].off == (size_t)(strstr(src, "q[1]") - src) + 2)
			assert_string_equal(why, "in");
		else if (strstr(id, ":TWICE:"))
			assert_string_equal(why, "in a macro body");
		else if (strstr(id, ":arithmetic:+:1:"))
			assert_string_equal(why, "in a static declaration (a constant expression)");
		else if (strstr(id, ":arithmetic:+:2:") || strstr(id, ":constant:1:2:"))
			assert_string_equal(why, "in a case label (a constant expression)");
		else if (strstr(id, ":arithmetic:-:"))
			assert_string_equal(why, "left out");
		else if (strstr(id, ":relational:<:") || strstr(id, ":constant:1:3:"))
			assert_string_equal(why, "in"); /* after the label: rewritten */
	}
	assert_non_null(strstr(schema, "(td_schema_on_ =="));
	assert_non_null(strstr(schema, "case 1 + 1:"));
	assert_non_null(strstr(schema, "v[3] = {"));
	free(schema);
	free(p);
	td_gen_result_free(r);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_every_mutant_of_the_schema_behaves_as_its_own_build),
	cmocka_unit_test(test_what_a_schema_cannot_rewrite_is_left_out_with_its_reason),
};
TD_TEST_GROUP(schema, tests);
