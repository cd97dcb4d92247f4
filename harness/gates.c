/*
 * gates.c - load-bearing, dead and redundant tests, and code with no gate,
 * from the ledger's kill matrix (see gates.h).
 *
 * Must never count a mutant that was not judged (build-failed, stale,
 * equivalent) for or against a test, and never claim a test killed
 * nothing when the run did not record which tests it listed.
 */
#define _GNU_SOURCE
#include "gates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "../base/json.h"
#include "../base/strv.h"
#include "report.h"

/* The outcome named s, or TD_N_OUTCOMES for a name this tdaudit does not know. */
static int outcome_of(const char *s)
{
	for (int o = 0; o < TD_N_OUTCOMES; o++)
		if (s && !strcmp(s, td_outcome_name((enum td_outcome)o)))
			return o;
	return TD_N_OUTCOMES;
}

/* Whether a mutant with this outcome was judged by the suite. */
static int judged(int o)
{
	return o == TD_KILLED || o == TD_KILLED_ELSEWHERE || o == TD_SURVIVED ||
	       o == TD_NO_COVERAGE || o == TD_TIMEOUT;
}

/* Every test named by the matrix: the run's list, plus any killer it lacks; sorted. */
static int all_tests(char ***out, const td_ledger_matrix *m)
{
	int err = 0;

	*out = NULL;
	for (size_t i = 0; !err && m->tests && m->tests[i]; i++)
		err = td_strv_push(out, m->tests[i]);
	for (size_t i = 0; !err && i < m->n; i++)
		for (size_t k = 0; !err && m->v[i].killers && m->v[i].killers[k]; k++)
			if (td_strv_find(*out, m->v[i].killers[k]) < 0)
				err = td_strv_push(out, m->v[i].killers[k]);
	return err;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * What one test did: *alone gets the judged mutants it is the only killer
 * of, *shared those it kills along with another test.
 */
static int test_kills(char ***alone, char ***shared, const td_ledger_matrix *m, const char *test)
{
	int err = 0;

	*alone = *shared = NULL;
	for (size_t i = 0; !err && i < m->n; i++) {
		const td_ledger_matrix_mutant *x = &m->v[i];

		if (!judged(outcome_of(x->outcome)) || td_strv_find(x->killers, test) < 0)
			continue;
		err = td_strv_push(td_strv_len(x->killers) == 1 ? alone : shared, x->id);
	}
	return err;
}

/* Appends (test, mutants) to *v; takes mutants. */
static int add_test(td_gates_test **v, size_t *n, size_t *cap, const char *test, char **mutants)
{
	int err = td_grow(v, cap, *n + 1, sizeof **v);
	char *copy = err ? NULL : strdup(test);

	if (!err && !copy)
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (err) {
		td_strv_free(mutants);
		return err;
	}
	(*v)[(*n)++] = (td_gates_test){copy, mutants};
	return 0;
}

/* Sorts each test into load-bearing, killed nothing or redundant. */
static int classify_tests(td_gates *g, const td_ledger_matrix *m)
{
	char **tests = NULL;
	size_t cap_lb = 0, cap_red = 0;
	int err = all_tests(&tests, m);

	if (!err && tests)
		qsort(tests, td_strv_len(tests), sizeof *tests, by_string);
	for (size_t t = 0; !err && tests && tests[t]; t++) {
		char **alone = NULL, **shared = NULL;

		err = test_kills(&alone, &shared, m, tests[t]);
		if (!err && alone) { /* add_test takes the list */
			err = add_test(&g->load_bearing, &g->n_load_bearing, &cap_lb, tests[t], alone);
			alone = NULL;
		} else if (!err && shared) {
			err = add_test(&g->redundant, &g->n_redundant, &cap_red, tests[t], shared);
			shared = NULL;
		} else if (!err && g->tests_known) {
			err = td_strv_push(&g->killed_nothing, tests[t]);
		}
		td_strv_free(alone);
		td_strv_free(shared);
	}
	td_strv_free(tests);
	return err;
}

/*
 * Whether the judged mutants of file (and function, when not NULL) all
 * survived; *n gets how many there are (0: none judged, so no claim).
 */
static int all_survived(size_t *n, const td_ledger_matrix *m, const char *file, const char *function)
{
	*n = 0;
	for (size_t i = 0; i < m->n; i++) {
		const td_ledger_matrix_mutant *x = &m->v[i];
		int o = outcome_of(x->outcome);

		if (!judged(o) || strcmp(x->file, file) ||
		    (function && (!x->function || strcmp(x->function, function))))
			continue;
		if (o != TD_SURVIVED && o != TD_NO_COVERAGE)
			return 0;
		++*n;
	}
	return *n > 0;
}

/* Whether g->no_gate already lists (file, function). */
static int listed(const td_gates *g, const char *file, const char *function)
{
	for (size_t i = 0; i < g->n_no_gate; i++)
		if (!strcmp(g->no_gate[i].file, file) &&
		    (function ? g->no_gate[i].function && !strcmp(g->no_gate[i].function, function)
			      : !g->no_gate[i].function))
			return 1;
	return 0;
}

static int add_place(td_gates *g, size_t *cap, const char *file, const char *function, size_t n)
{
	td_gates_place *p;
	int err = td_grow(&g->no_gate, cap, g->n_no_gate + 1, sizeof *g->no_gate);

	if (err)
		return err;
	p = &g->no_gate[g->n_no_gate];
	p->file = strdup(file);
	p->function = function ? strdup(function) : NULL;
	p->mutants = n;
	if (!p->file || (function && !p->function)) {
		free(p->file), free(p->function);
		return TD_FAIL(TD_ENOMEM, "out of memory");
	}
	g->n_no_gate++;
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const td_gates_place *x = a, *y = b;
	int c = (x->function != NULL) - (y->function != NULL); /* files first */

	if (!c)
		c = strcmp(x->file, y->file);
	return c ? c : strcmp(x->function ? x->function : "", y->function ? y->function : "");
}

/* The files, then the functions, whose judged mutants all survived. */
static int find_no_gate(td_gates *g, const td_ledger_matrix *m)
{
	size_t cap = 0, n;
	int err = 0;

	for (size_t i = 0; !err && i < m->n; i++) {
		const td_ledger_matrix_mutant *x = &m->v[i];

		if (!listed(g, x->file, NULL) && all_survived(&n, m, x->file, NULL))
			err = add_place(g, &cap, x->file, NULL, n);
		if (!err && x->function && !listed(g, x->file, x->function) &&
		    all_survived(&n, m, x->file, x->function))
			err = add_place(g, &cap, x->file, x->function, n);
	}
	if (!err && g->n_no_gate)
		qsort(g->no_gate, g->n_no_gate, sizeof *g->no_gate, by_place);
	return err;
}

int td_gates_from_matrix(td_gates **out, const td_ledger_matrix *m)
{
	td_gates *g = calloc(1, sizeof *g);
	int err = g ? 0 : TD_FAIL(TD_ENOMEM, "out of memory");

	*out = NULL;
	if (err)
		return err;
	g->run = m->run;
	g->n_mutants = m->n;
	g->tests_known = m->tests != NULL;
	g->n_tests = td_strv_len(m->tests);
	for (size_t i = 0; i < m->n; i++) {
		int o = outcome_of(m->v[i].outcome);

		if (o < TD_N_OUTCOMES)
			g->count[o]++;
	}
	err = classify_tests(g, m);
	if (!err)
		err = find_no_gate(g, m);
	if (err)
		td_gates_free(g);
	else
		*out = g;
	return err;
}

int td_gates_compute(td_gates **out, const char *ledger_path)
{
	td_ledger *lg = NULL;
	td_ledger_matrix *m = NULL;
	int err = td_ledger_open(&lg, ledger_path, 0);

	*out = NULL;
	if (!err)
		err = td_ledger_matrix_load(&m, lg);
	if (!err)
		err = td_gates_from_matrix(out, m);
	td_ledger_matrix_free(m);
	td_ledger_free(lg);
	return err;
}

static void free_tests(td_gates_test *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].test), td_strv_free(v[i].mutants);
	free(v);
}

void td_gates_free(td_gates *g)
{
	if (!g)
		return;
	free_tests(g->load_bearing, g->n_load_bearing);
	free_tests(g->redundant, g->n_redundant);
	td_strv_free(g->killed_nothing);
	for (size_t i = 0; i < g->n_no_gate; i++)
		free(g->no_gate[i].file), free(g->no_gate[i].function);
	free(g->no_gate);
	free(g);
}

/* ---- the table ------------------------------------------------------------- */

/* "a, b, c" (at most 3 named, then "and N more"). */
static void print_ids(char *const *ids)
{
	size_t n = td_strv_len(ids);

	for (size_t i = 0; i < n && i < 3; i++)
		printf("%s%s", i ? ", " : "", ids[i]);
	if (n > 3)
		printf(" and %zu more", n - 3);
}

static void print_tests(const char *title, const td_gates_test *v, size_t n, const char *verb)
{
	printf("\n%s:\n", title);
	if (!n)
		printf("  (none)\n");
	for (size_t i = 0; i < n; i++) {
		printf("  %-32s %s %zu: ", v[i].test, verb, td_strv_len(v[i].mutants));
		print_ids(v[i].mutants);
		putchar('\n');
	}
}

static void print_header(const td_gates *g)
{
	size_t c[TD_N_OUTCOMES];
	double score;

	memcpy(c, g->count, sizeof c);
	printf("tdaudit gates: run %.8s (the latest), commit %.12s", g->run.run,
	       g->run.head_commit[0] ? g->run.head_commit : "(none)");
	if (g->run.shard_n)
		printf(", %d shards merged", g->run.shard_n);
	printf(", %s matrix: %zu mutants", g->run.full ? "full" : "first-kill", g->n_mutants);
	if (g->tests_known)
		printf(", %zu tests", g->n_tests);
	putchar('\n');
	if (td_report_score(&score, c) == 0)
		printf("mutation score: %.1f%% (%zu killed of %zu judged)\n", score, c[TD_KILLED],
		       td_report_judged(c));
	else
		printf("mutation score: n/a (no mutant was killed, survived or timed out)\n");
	if (!g->run.full)
		printf("first-kill matrix: a killed mutant records only its first killer, so a "
		       "load-bearing or dead test may not be\n(tdaudit mutate --cold records every "
		       "failing test)\n");
}

void td_gates_print(const td_gates *g)
{
	print_header(g);
	print_tests("load-bearing tests (the only recorded killer of a mutant)", g->load_bearing,
		    g->n_load_bearing, "alone kills");
	printf("\ntests that killed nothing:\n");
	if (!g->tests_known)
		printf("  (not known: the run was recorded before the ledger listed its tests)\n");
	else if (!g->killed_nothing)
		printf("  (none)\n");
	for (size_t i = 0; g->killed_nothing && g->killed_nothing[i]; i++)
		printf("  %s\n", g->killed_nothing[i]);
	print_tests("redundant tests (every mutant they kill is killed by another)", g->redundant,
		    g->n_redundant, "kills");
	printf("\ncode with no gate (every judged mutant survived):\n");
	if (!g->n_no_gate)
		printf("  (none)\n");
	for (size_t i = 0; i < g->n_no_gate; i++)
		printf("  %s%s%s%s  %zu mutant%s\n", g->no_gate[i].file,
		       g->no_gate[i].function ? ":" : "",
		       g->no_gate[i].function ? g->no_gate[i].function : "",
		       g->no_gate[i].function ? "()" : "", g->no_gate[i].mutants,
		       g->no_gate[i].mutants == 1 ? "" : "s");
}

/* ---- JSON --------------------------------------------------------------- */

static void json_strv(FILE *f, char *const *v)
{
	fputc('[', f);
	for (size_t i = 0; v && v[i]; i++)
		fputs(i ? ", " : "", f), td_json_fput_string(f, v[i]);
	fputc(']', f);
}

static void json_tests(FILE *f, const char *key, const td_gates_test *v, size_t n)
{
	fprintf(f, ",\n  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"test\": " : "\n    {\"test\": ", f);
		td_json_fput_string(f, v[i].test);
		fputs(", \"mutants\": ", f), json_strv(f, v[i].mutants), fputc('}', f);
	}
	fputs(n ? "\n  ]" : "]", f);
}

static void json_head(FILE *f, const td_gates *g)
{
	size_t c[TD_N_OUTCOMES];
	double score;

	memcpy(c, g->count, sizeof c);
	fputs("{\n  \"schema\": \"tdaudit.gates/1\",\n  \"run\": ", f);
	td_json_fput_string(f, g->run.run);
	fputs(",\n  \"commit\": ", f);
	td_json_fput_string(f, g->run.head_commit[0] ? g->run.head_commit : NULL);
	fprintf(f, ",\n  \"shards\": %d,\n  \"kill_matrix\": \"%s\",\n  \"score\": ", g->run.shard_n,
		g->run.full ? "full" : "first-kill");
	if (td_report_score(&score, c) == 0)
		fprintf(f, "%.4f", score);
	else
		fputs("null", f);
	fputs(",\n  \"summary\": {", f);
	for (int o = 0; o < TD_N_OUTCOMES; o++)
		fprintf(f, "%s\"%s\": %zu", o ? ", " : "", td_outcome_name((enum td_outcome)o), c[o]);
	if (g->tests_known)
		fprintf(f, "},\n  \"tests\": %zu", g->n_tests);
	else
		fputs("},\n  \"tests\": null", f);
}

int td_gates_json(char **out, const td_gates *g)
{
	size_t len;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return TD_FAIL(TD_ENOMEM, "out of memory for the gates JSON");
	json_head(f, g);
	json_tests(f, "load_bearing", g->load_bearing, g->n_load_bearing);
	fputs(",\n  \"killed_nothing\": ", f);
	if (g->tests_known)
		json_strv(f, g->killed_nothing);
	else
		fputs("null", f);
	json_tests(f, "redundant", g->redundant, g->n_redundant);
	fputs(",\n  \"no_gate\": [", f);
	for (size_t i = 0; i < g->n_no_gate; i++) {
		fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
		td_json_fput_string(f, g->no_gate[i].file);
		fputs(", \"function\": ", f), td_json_fput_string(f, g->no_gate[i].function);
		fprintf(f, ", \"mutants\": %zu}", g->no_gate[i].mutants);
	}
	fputs(g->n_no_gate ? "\n  ]\n}\n" : "]\n}\n", f);
	fclose(f);
	return 0;
}
