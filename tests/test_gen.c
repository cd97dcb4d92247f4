/*
 * test_gen.c - operator mutants: each class, what is never mutated, skips,
 * stable ids, filters and applying a mutant.
 *
 * What these tests guard: tdaudit mutate --list --file harness/gen.c
 *   and --list --file harness/ctok.c
 *
 * Edits seen breaking these tests:
 *   - visit_file() stepping over an extern "C" block like a struct (the old
 *     code) -> functions_inside_an_extern_c_block_get_mutants
 *   - td_gen_file() not calling visit_directives() (macros never mutated)
 *       -> operators_in_macro_bodies_are_mutants_of_their_own_class
 *   - walk_macro() starting after the name of a function-like macro (its
 *     parameter list read as code), or looks_like_type() taking (a) for a
 *     cast in a macro -> operators_in_macro_bodies_are_mutants_of_their_own_class
 *   - select_mutants() not counting the held candidates
 *       -> operators_in_macro_bodies_..., nothing_inside_comments_..._is_mutated
 */
#include "tdtest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../harness/gen.h"

/* The mutants of src (as file t.c) of the classes in mask; the caller frees. */
static td_gen_result *gen(const char *src, unsigned mask)
{
	td_gen_opts o = {0};
	td_gen_result *r;

	o.classes = mask;
	assert_int_equal(td_gen_file(&r, "t.c", src, strlen(src), &o), 0);
	return r;
}

/* "orig>repl" of each mutant of src in mask, joined by spaces (a static buffer). */
static const char *pairs(const char *src, unsigned mask)
{
	static char buf[4096];
	td_gen_result *r = gen(src, mask);
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n_mutants; i++) {
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s>%s", i ? " " : "",
				      r->mutants[i].orig, r->mutants[i].repl);
		assert_true(n < sizeof buf);
	}
	td_gen_result_free(r);
	return buf;
}

/* The ids of the mutants of src in mask, joined by spaces (a static buffer). */
static const char *ids(const char *src, unsigned mask)
{
	static char buf[4096];
	td_gen_result *r = gen(src, mask);
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n_mutants; i++) {
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "",
				      r->mutants[i].id);
		assert_true(n < sizeof buf);
	}
	td_gen_result_free(r);
	return buf;
}

/* src with mutant k of class mask applied (a static buffer). */
static const char *applied(const char *src, unsigned mask, size_t k)
{
	static char buf[4096];
	td_gen_result *r = gen(src, mask);
	char *out;
	size_t n;

	assert_true(k < r->n_mutants);
	assert_int_equal(td_gen_apply(&out, &n, src, strlen(src), &r->mutants[k]), 0);
	assert_true(n < sizeof buf);
	memcpy(buf, out, n + 1);
	free(out);
	td_gen_result_free(r);
	return buf;
}

static void test_relational_operators_swap_with_their_neighbours(void **state)
{
	(void)state;
	assert_string_equal(pairs("int f(int a, int b)\n{\n\treturn (a < b) + (a <= b) + (a > b) +"
				  " (a >= b) + (a == b) + (a != b);\n}\n",
				  TD_GEN_RELATIONAL),
			    "<><= <=>< >>>= >=>> ==>!= !=>==");
}

static void test_unary_minus_and_pointer_derefs_are_not_arithmetic(void **state)
{
	static const char src[] = "int f(int a, int *p, td_x *q)\n"
				  "{\n"
				  "\tint x = -a, y = +a, *r = p;\n"
				  "\ttd_x *s = q, **t = &s;\n"
				  "\tconst char *c = (char *)p;\n"
				  "\tif (a) *p = -1;\n"
				  "\tx = (int)-a + sizeof *p;\n"
				  "\treturn *r;\n"
				  "}\n";

	(void)state;
	assert_string_equal(pairs(src, TD_GEN_ARITHMETIC),
			    "+>-"); /* only the one in `(int)-a + ` */
}

static void test_binary_arithmetic_operators_swap(void **state)
{
	(void)state;
	assert_string_equal(
	    pairs("int f(int a, int *p)\n{\n\tint x = a - 2 * a / 3;\n"
		  "\tx = *p * a + p[1] - (a + 1) * f(a, p) + a++ - 1;\n\treturn x;\n}\n",
		  TD_GEN_ARITHMETIC),
	    "->+ *>/ />* *>/ +>- ->+ +>- *>/ +>- ->+");
}

static void test_logical_operators_swap(void **state)
{
	(void)state;
	assert_string_equal(
	    pairs("int f(int a, int b)\n{\n\treturn a && b || !a;\n}\n", TD_GEN_LOGICAL),
	    "&&>|| ||>&&");
}

static void test_integer_constants_step_and_floats_are_left_alone(void **state)
{
	(void)state;
	assert_string_equal(
	    pairs("void f(void)\n{\n\tg(0, 1, 41, 0x1F, 0xff, 07, 10u, 1ULL, 2.5, 1e3, "
		  ".5, 0x1p3, 'a', 08);\n}\n",
		  TD_GEN_CONSTANT),
	    "0>1 1>0 41>42 0x1F>0x20 0xff>0x100 07>010 10u>11u 1ULL>0ULL");
}

static void test_removed_call_only_for_bare_call_statements(void **state)
{
	static const char src[] = "void f(struct s *p, int n)\n"
				  "{\n"
				  "\tg(n);\n"
				  "\tp->cb(n);\n"
				  "\tx = g(n);\n"
				  "\tif (g(n))\n"
				  "\t\th();\n"
				  "\tfor (n = 0; g(n); n++)\n"
				  "\t\t(void)g(n);\n"
				  "\tswitch (n) {\n"
				  "\tcase 1: g(1);\n"
				  "\tdefault: h();\n"
				  "\t}\n"
				  "\treturn g(n) ? 1 : k(n);\n"
				  "}\n"
				  "int k(int n)\n{\n\treturn g(n);\n}\n";

	(void)state;
	assert_string_equal(ids(src, TD_GEN_REMOVED_CALL),
			    "t.c:f:removed-call:g:1:; t.c:f:removed-call:p->cb:1:; "
			    "t.c:f:removed-call:h:1:; t.c:f:removed-call:g:2:; "
			    "t.c:f:removed-call:h:2:;");
	assert_string_equal(pairs(src, TD_GEN_REMOVED_CALL),
			    "g(n);>; p->cb(n);>; h();>; g(1);>; h();>;");
	assert_non_null(strstr(applied(src, TD_GEN_REMOVED_CALL, 1), "\tg(n);\n\t;\n\tx = g(n);"));
}

static void test_negated_condition_wraps_if_and_while_conditions(void **state)
{
	static const char src[] =
	    "void f(int a, int b)\n{\n\tif (a < b)\n\t\ta++;\n"
	    "\twhile (a)\n\t\ta--;\n\tdo\n\t\tb++;\n\twhile (b < 3 &&\n\t       a);\n}\n";

	(void)state;
	assert_string_equal(ids(src, TD_GEN_NEGATED_CONDITION),
			    "t.c:f:negated-condition:if:1:! t.c:f:negated-condition:while:1:! "
			    "t.c:f:negated-condition:while:2:!");
	assert_non_null(strstr(applied(src, TD_GEN_NEGATED_CONDITION, 0), "\tif (!(a < b))\n"));
	assert_non_null(strstr(applied(src, TD_GEN_NEGATED_CONDITION, 1), "\twhile (!(a))\n"));
	assert_non_null(
	    strstr(applied(src, TD_GEN_NEGATED_CONDITION, 2), "while (!(b < 3 &&\n\t       a));"));
}

static void test_nothing_inside_comments_strings_chars_or_directives_is_mutated(void **state)
{
	static const char src[] = "#define LT(a, b) ((a) < (b) && \\\n"
				  "\t\t  (a) != 0 + 1)\n"
				  "int f(int a, int b)\n"
				  "{\n"
				  "\t/* a < b && c || d + 1; if (a) g(2); */\n"
				  "\t// if (a == b) g(1);\n"
				  "#if A > 1\n"
				  "\tconst char *s = \"a < b || f(1);\";\n"
				  "#endif\n"
				  "\tchar c = '<';\n"
				  "\treturn a > b;\n"
				  "}\n";
	td_gen_result *r = gen(src, TD_GEN_ALL & ~TD_GEN_MACRO); /* the #define: macro class */

	(void)state;
	assert_int_equal(r->n_mutants, 1);
	assert_string_equal(r->mutants[0].id, "t.c:f:relational:>:1:>=");
	assert_int_equal(r->mutants[0].line, 11);
	assert_int_equal(r->n_skips, 1); /* the #if's '>', counted, not mutated */
	assert_string_equal(r->skips[0].reason, "in a #if or #elif condition");
	td_gen_result_free(r);
}

/*
 * A header of macros: the operators of object-like and function-like
 * bodies (after the parameter list, across a continuation line) are mutants
 * of class macro, named by the macro; what is not mutated (a #if's
 * condition, an operator pasted with ##, file-scope initialisers) is
 * counted with its reason.
 */
static void test_operators_in_macro_bodies_are_mutants_of_their_own_class(void **state)
{
	static const char src[] = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
				  "#define LIMIT 10 + 2\n"
				  "#define NEG -1\n"
				  "#define NEGATE(a) -(a)\n" /* unary: the (a) is its parameter list */
				  "#define STR(x) #x\n"
				  "#define GLUE(a) a ## -1\n"
				  "#define BOTH(a, b) ((a) && (b) || \\\n"
				  "\t(a) - (b))\n"
				  "#if LIMIT > 3\n"
				  "#define PTR(T) (T *)0\n"
				  "#endif\n"
				  "#define MAX(a, b) ((a) >= (b) ? (a) : (b))\n"
				  "static const int tab[2 + 1] = {1 < 2};\n";
	td_gen_result *r = gen(src, 0);

	(void)state;
	assert_string_equal(ids(src, 0),
			    "t.c:MAX:macro:>:1:>= t.c:LIMIT:macro:+:1:- t.c:BOTH:macro:&&:1:|| "
			    "t.c:BOTH:macro:||:1:&& t.c:BOTH:macro:-:1:+ t.c:MAX.2:macro:>=:1:>");
	assert_int_equal(r->mutants[4].line, 8);
	assert_string_equal(applied(src, TD_GEN_MACRO, 1) + 42, "#define LIMIT 10 - 2\n"
						 "#define NEG -1\n#define NEGATE(a) -(a)\n#define STR(x) #x\n#define GLUE(a) a ## -1\n"
						 "#define BOTH(a, b) ((a) && (b) || \\\n\t(a) - (b))\n"
						 "#if LIMIT > 3\n#define PTR(T) (T *)0\n#endif\n"
						 "#define MAX(a, b) ((a) >= (b) ? (a) : (b))\n"
						 "static const int tab[2 + 1] = {1 < 2};\n");
	assert_int_equal(r->n_skips, 3);
	assert_string_equal(r->skips[0].reason, "at file scope (an initialiser, enum value or array size)");
	assert_int_equal(r->skips[0].count, 2);
	assert_string_equal(r->skips[1].reason, "in a #if or #elif condition");
	assert_string_equal(r->skips[2].reason, "next to # or ## in a macro body (stringified or pasted)");
	td_gen_result_free(r);
	assert_string_equal(pairs(src, TD_GEN_RELATIONAL), ""); /* the class filter applies */
}

/* A header's C++ guard, extern "C" { ... }, holds functions at file scope: they get mutants. */
static void test_functions_inside_an_extern_c_block_get_mutants(void **state)
{
	static const char src[] = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
				  "static const int k[2] = {1 + 1, 2};\n"
				  "int f(int a)\n{\n\treturn a + 1;\n}\n"
				  "#ifdef __cplusplus\n}\n#endif\n"
				  "int g(int a)\n{\n\treturn a - 1;\n}\n";

	(void)state;
	assert_string_equal(pairs(src, TD_GEN_ARITHMETIC), "+>- ->+");
	assert_string_equal(ids(src, TD_GEN_ARITHMETIC), "t.c:f:arithmetic:+:1:- t.c:g:arithmetic:-:1:+");
}

static void test_a_skip_comment_suppresses_its_line_and_is_counted_by_reason(void **state)
{
	static const char src[] = "int f(int a, int b)\n"
				  "{\n"
				  "\tif (a < b) /* tdaudit: skip equivalent: clamped later */\n"
				  "\t\treturn 1;\n"
				  "\ta = a + 1; // tdaudit: skip slow\n"
				  "\tb = b - 1; /* tdaudit: skip slow */\n"
				  "\treturn a * b; /* tdaudit: skip */\n"
				  "}\n";
	td_gen_result *r = gen(src, TD_GEN_ALL);

	(void)state;
	assert_int_equal(r->n_mutants, 1);
	assert_string_equal(r->mutants[0].id, "t.c:f:constant:1:1:0"); /* `return 1;` */
	assert_int_equal(r->n_skips, 3);
	assert_string_equal(r->skips[0].reason, "equivalent: clamped later");
	assert_int_equal(r->skips[0].count, 2);
	assert_string_equal(r->skips[1].reason, "no reason given");
	assert_int_equal(r->skips[1].count, 1);
	assert_string_equal(r->skips[2].reason, "slow");
	assert_int_equal(r->skips[2].count, 4);
	td_gen_result_free(r);
}

static const char fn_src[] = "static int f(int a, int b)\n"
			     "{\n"
			     "\tif (a < b && b < 2)\n"
			     "\t\treturn a < 7;\n"
			     "\treturn 0;\n"
			     "}\n";

static void test_ids_are_stable_when_a_function_is_inserted_above(void **state)
{
	char moved[1024], before[4096];

	(void)state;
	snprintf(before, sizeof before, "%s", ids(fn_src, TD_GEN_ALL));
	snprintf(moved, sizeof moved, "int g(int a)\n{\n\treturn a < 1 && a > 0;\n}\n\n%s", fn_src);
	assert_non_null(strstr(ids(moved, TD_GEN_ALL), before));
	assert_non_null(strstr(before, "t.c:f:relational:<:3:<="));
}

static void test_identical_operators_in_one_function_get_distinct_ids(void **state)
{
	(void)state;
	assert_string_equal(
	    ids(fn_src, TD_GEN_RELATIONAL),
	    "t.c:f:relational:<:1:<= t.c:f:relational:<:2:<= t.c:f:relational:<:3:<=");
}

static void test_applying_a_mutant_gives_the_expected_text_and_a_stale_one_is_refused(void **state)
{
	td_gen_result *r = gen(fn_src, TD_GEN_RELATIONAL);
	char stale[sizeof fn_src], *out = NULL;
	size_t n;

	(void)state;
	assert_string_equal(applied(fn_src, TD_GEN_RELATIONAL, 1),
			    "static int f(int a, int b)\n{\n\tif (a < b && b <= 2)\n"
			    "\t\treturn a < 7;\n\treturn 0;\n}\n");
	memcpy(stale, fn_src, sizeof fn_src);
	stale[r->mutants[1].off] = '>';
	TD_ASSERT_REFUSED(td_gen_apply(&out, &n, stale, strlen(stale), &r->mutants[1]), TD_EINVAL,
			  "t.c:f:relational:<:2:<= is stale");
	assert_null(out);
	TD_ASSERT_REFUSED(td_gen_apply(&out, &n, stale, 3, &r->mutants[1]), TD_EINVAL, "stale");
	td_gen_result_free(r);
}

/*
 * A NUL byte is an ordinary byte to the lexer, so a removed call can span
 * one: the mutant's orig must still be all len bytes of it, and applying
 * it to a text that differs only after the NUL must be refused as stale.
 */
static void test_a_mutant_spanning_a_nul_byte_keeps_all_its_bytes(void **state)
{
	static const char src[] = "void f(void)\n{\n\tg(\"a\0b\");\n}\n";
	char other[sizeof src], *out = NULL;
	td_gen_result *r;
	const td_gen_mutant *m;
	size_t n;

	(void)state;
	assert_int_equal(td_gen_file(&r, "t.c", src, sizeof src - 1, NULL), 0);
	assert_int_equal(r->n_mutants, 1);
	m = &r->mutants[0];
	assert_int_equal(m->cls, TD_GEN_REMOVED_CALL);
	assert_int_equal(m->len, 9); /* g("a\0b"); */
	assert_memory_equal(m->orig, src + m->off, m->len);
	assert_int_equal(td_gen_apply(&out, &n, src, sizeof src - 1, m), 0);
	assert_memory_equal(out, "void f(void)\n{\n\t;\n}\n", n + 1);
	free(out);
	memcpy(other, src, sizeof src);
	other[m->off + 5] = 'c'; /* the b after the NUL */
	TD_ASSERT_REFUSED(td_gen_apply(&out, &n, other, sizeof src - 1, m), TD_EINVAL, "stale");
	td_gen_result_free(r);
}

static void test_filters_keep_only_the_asked_classes_and_lines_without_renumbering(void **state)
{
	static const td_gen_lines line4 = {4, 4};
	td_gen_opts o = {TD_GEN_RELATIONAL | TD_GEN_CONSTANT, &line4, 1};
	td_gen_result *r;
	td_gen_class c;

	(void)state;
	assert_int_equal(td_gen_file(&r, "t.c", fn_src, strlen(fn_src), &o), 0);
	assert_int_equal(r->n_mutants, 2);
	assert_string_equal(r->mutants[0].id, "t.c:f:relational:<:3:<=");
	assert_string_equal(r->mutants[1].id, "t.c:f:constant:7:1:8");
	td_gen_result_free(r);
	o.classes = 1u << 9;
	TD_ASSERT_REFUSED(td_gen_file(&r, "t.c", fn_src, strlen(fn_src), &o), TD_EINVAL,
			  "class mask");
	assert_int_equal(td_gen_class_parse(&c, "removed-call"), 0);
	assert_int_equal(c, TD_GEN_REMOVED_CALL);
	TD_ASSERT_REFUSED(td_gen_class_parse(&c, "bitwise"), TD_EINVAL, "negated-condition");
}

static void test_only_function_bodies_are_mutated_and_named(void **state)
{
	static const char src[] = "struct s { int a[2 + 1]; };\n"
				  "static const int tbl[] = {1 + 2, 3};\n"
				  "int g(int a);\n"
				  "static int *h(int *p, int n)\n"
				  "{\n"
				  "\tstruct s v = {{0}};\n"
				  "\treturn p + n;\n"
				  "}\n"
				  "int tail = 4 - 1;\n";

	(void)state;
	assert_string_equal(ids(src, TD_GEN_ALL), "t.c:h:constant:0:1:1 t.c:h:arithmetic:+:1:-");
}

static void test_an_unterminated_comment_passes_up_with_file_and_line(void **state)
{
	static const char src[] = "int f(void)\n{\n\treturn 0; /* oops\n}\n";
	td_gen_result *r = (td_gen_result *)&r;

	(void)state;
	TD_ASSERT_REFUSED(td_gen_file(&r, "core/x.c", src, strlen(src), NULL), TD_EINVAL,
			  "core/x.c:3: unterminated /* comment");
	assert_null(r);
}

/* Reads a whole file into a NUL-terminated buffer; the caller frees. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks every mutant of one file: it applies, its id is unique, its line is in range. */
static size_t check_file(const char *path)
{
	size_t len, n;
	char *src = slurp(path, &len), *out;
	td_gen_result *r;
	char **idv;

	assert_int_equal(td_gen_file(&r, path, src, len, NULL), 0);
	idv = malloc((r->n_mutants + 1) * sizeof *idv);
	assert_non_null(idv);
	for (size_t i = 0; i < r->n_mutants; i++) {
		assert_int_equal(td_gen_apply(&out, &n, src, len, &r->mutants[i]), 0);
		assert_int_not_equal(memcmp(out, src, len < n ? len : n) == 0 && n == len, 1);
		free(out);
		idv[i] = r->mutants[i].id;
	}
	qsort(idv, r->n_mutants, sizeof *idv, by_str);
	for (size_t i = 1; i < r->n_mutants; i++)
		if (strcmp(idv[i - 1], idv[i]) == 0)
			fail_msg("%s: two mutants share the id %s", path, idv[i]);
	n = r->n_mutants;
	free(idv);
	td_gen_result_free(r);
	free(src);
	return n;
}

static void test_every_mutant_of_the_core_applies_and_has_a_unique_id(void **state)
{
	DIR *d = opendir(TD_SOURCE_DIR "/core");
	struct dirent *e;
	size_t files = 0, mutants = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		size_t n = strlen(e->d_name);

		if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0)
			continue;
		snprintf(path, sizeof path, "%s/core/%s", TD_SOURCE_DIR, e->d_name);
		mutants += check_file(path);
		files++;
	}
	closedir(d);
	assert_true(files > 0);
	assert_true(mutants > 10 * files); /* a generator that finds nothing is broken */
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_functions_inside_an_extern_c_block_get_mutants),
    cmocka_unit_test(test_relational_operators_swap_with_their_neighbours),
    cmocka_unit_test(test_unary_minus_and_pointer_derefs_are_not_arithmetic),
    cmocka_unit_test(test_binary_arithmetic_operators_swap),
    cmocka_unit_test(test_logical_operators_swap),
    cmocka_unit_test(test_integer_constants_step_and_floats_are_left_alone),
    cmocka_unit_test(test_removed_call_only_for_bare_call_statements),
    cmocka_unit_test(test_negated_condition_wraps_if_and_while_conditions),
    cmocka_unit_test(test_nothing_inside_comments_strings_chars_or_directives_is_mutated),
    cmocka_unit_test(test_operators_in_macro_bodies_are_mutants_of_their_own_class),
    cmocka_unit_test(test_a_skip_comment_suppresses_its_line_and_is_counted_by_reason),
    cmocka_unit_test(test_ids_are_stable_when_a_function_is_inserted_above),
    cmocka_unit_test(test_identical_operators_in_one_function_get_distinct_ids),
    cmocka_unit_test(test_applying_a_mutant_gives_the_expected_text_and_a_stale_one_is_refused),
    cmocka_unit_test(test_a_mutant_spanning_a_nul_byte_keeps_all_its_bytes),
    cmocka_unit_test(test_filters_keep_only_the_asked_classes_and_lines_without_renumbering),
    cmocka_unit_test(test_only_function_bodies_are_mutated_and_named),
    cmocka_unit_test(test_an_unterminated_comment_passes_up_with_file_and_line),
    cmocka_unit_test(test_every_mutant_of_the_core_applies_and_has_a_unique_id),
};
TD_TEST_GROUP(gen, tests);
