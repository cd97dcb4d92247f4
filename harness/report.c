/*
 * report.c - summaries, JSON and JUnit for mutation runs (see report.h).
 *
 * Must never print an outcome count that disagrees with the per-mutant
 * list, and never write a report in place (atomic writes only).
 */
#define _GNU_SOURCE
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/json.h"
#include "../base/strv.h"
#include "mutate.h"

const char *td_report_color(int color, int outcome)
{
	static const char *const c[TD_N_OUTCOMES + 1] = {
		"\033[32m", "\033[33m", "\033[31;1m", "\033[36m", "\033[35m", "\033[31m", "\033[2m",
		"\033[35;1m", "\033[31;2m", "\033[0m",
	};

	return color && outcome >= 0 && outcome <= TD_N_OUTCOMES ? c[outcome] : "";
}

/*
 * What fails a run: a survivor (no-coverage included), a stale entry, a
 * mutant the build never compiled (it was not tested), a kill only elsewhere, and a
 * hand-written catalogue entry that does not build (the entry is invalid:
 * it tests nothing). A generated mutant that does not build is expected and
 * only counted.
 */
static int bad(const td_mutant *m, const td_mutation_result *r)
{
	return r->outcome == TD_SURVIVED || r->outcome == TD_NO_COVERAGE || r->outcome == TD_STALE ||
	       r->outcome == TD_NOT_REBUILT ||
	       r->outcome == TD_KILLED_ELSEWHERE || (r->outcome == TD_BUILD_FAILED && !m->generated);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The generated mutants that did not build, tallied by their operator
 * class (by_file 0) or their file (1): *keys gets the distinct keys, sorted
 * (a td_strv, NULL when there are none; caller frees with td_strv_free),
 * and *counts (caller frees) how many mutants had each.
 */
static int tally_build_failed(char ***keys, size_t **counts, const td_mutants *m,
			      const td_mutation_result *res, int by_file)
{
	size_t n;
	int err = 0;

	*keys = NULL, *counts = NULL;
	for (size_t i = 0; !err && i < m->n; i++) {
		const char *key = by_file ? m->v[i].file : m->v[i].op;

		if (m->v[i].generated && res[i].outcome == TD_BUILD_FAILED && td_strv_find(*keys, key) < 0)
			err = td_strv_push(keys, key);
	}
	n = td_strv_len(*keys);
	if (!err && n && !(*counts = calloc(n, sizeof **counts)))
		err = TD_FAIL(TD_ENOMEM, "out of memory counting build failures");
	if (err) {
		td_strv_free(*keys);
		*keys = NULL;
		return err;
	}
	if (n) /* qsort's array must not be NULL, even for no element */
		qsort(*keys, n, sizeof **keys, by_name);
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].generated && res[i].outcome == TD_BUILD_FAILED)
			(*counts)[td_strv_find(*keys, by_file ? m->v[i].file : m->v[i].op)]++;
	return 0;
}

/*
 * Writes the tallies of tally_build_failed, by operator then by file: as
 * JSON objects {"by_operator": {...}, "by_file": {...}} (json 1), or as
 * the summary's two lines, "build-failed generated mutants, by operator:
 * constant 2, relational 1" (json 0; nothing when none failed to build).
 */
static int put_build_failed(FILE *f, const td_mutants *m, const td_mutation_result *res, int json)
{
	for (int by_file = 0; by_file < 2; by_file++) {
		char **keys;
		size_t *counts;
		int err = tally_build_failed(&keys, &counts, m, res, by_file);

		if (err)
			return err;
		if (json)
			fprintf(f, "%s\"%s\": {", by_file ? ", " : "{", by_file ? "by_file" : "by_operator");
		else if (keys)
			fprintf(f, "build-failed generated mutants, by %s:", by_file ? "file" : "operator");
		for (size_t i = 0; keys && keys[i]; i++) {
			if (json) {
				fputs(i ? ", " : "", f);
				td_json_fput_string(f, keys[i]);
				fprintf(f, ": %zu", counts[i]);
			} else {
				fprintf(f, "%s %s %zu", i ? "," : "", keys[i], counts[i]);
			}
		}
		fputs(json ? (by_file ? "}}" : "}") : keys ? "\n" : "", f);
		td_strv_free(keys);
		free(counts);
	}
	return 0;
}

/* The score for sorting: undefined (nothing judged) above every defined one. */
static double sort_score(const td_report_file *f)
{
	double s;

	return td_report_score(&s, f->count) ? 1000.0 : s;
}

static int worst_first(const void *a, const void *b)
{
	const td_report_file *x = a, *y = b;
	double sx = sort_score(x), sy = sort_score(y);

	return sx < sy ? -1 : sx > sy ? 1 : strcmp(x->file, y->file);
}

int td_report_by_file(td_report_file **out, size_t *n_out, const char *const *files,
		      const int *outcomes, size_t n)
{
	td_report_file *v = NULL;
	size_t nv = 0;

	*out = NULL;
	*n_out = 0;
	if (n && !(v = calloc(n, sizeof *v)))
		return TD_FAIL(TD_ENOMEM, "out of memory for the scores of %zu mutants' files", n);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < nv && strcmp(v[k].file, files[i]))
			k++;
		if (k == nv)
			v[nv++].file = files[i];
		v[k].count[outcomes[i]]++;
	}
	if (nv)
		qsort(v, nv, sizeof *v, worst_first);
	*out = v;
	*n_out = nv;
	return 0;
}

/* td_report_by_file over a run's mutants and results. */
static int files_of_run(td_report_file **out, size_t *n_out, const td_mutants *m,
			const td_mutation_result *res)
{
	const char **files = calloc(m->n + 1, sizeof *files);
	int *outcomes = calloc(m->n + 1, sizeof *outcomes);
	int err;

	if (!files || !outcomes) {
		free(files);
		free(outcomes);
		return TD_FAIL(TD_ENOMEM, "out of memory for the scores of %zu mutants' files", m->n);
	}
	for (size_t i = 0; i < m->n; i++) {
		files[i] = m->v[i].file;
		outcomes[i] = res[i].outcome;
	}
	err = td_report_by_file(out, n_out, files, outcomes, m->n);
	free(files);
	free(outcomes);
	return err;
}

/*
 * The score of each file: as a JSON array (json 1), or, when the run's
 * mutants are in more than one file, the summary's lines for the files
 * below 100% (json 0).
 */
static int put_by_file(FILE *f, const td_mutants *m, const td_mutation_result *res, int json)
{
	td_report_file *v;
	size_t n, full = 0;
	double s;
	int err = files_of_run(&v, &n, m, res);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		full += !td_report_score(&s, v[i].count) && s == 100.0;
	if (!json && n > 1 && full == n)
		fprintf(f, "mutation score by file: all %zu files at 100%%\n", n);
	else if (!json && n > 1)
		fprintf(f, "mutation score by file, worst first (%zu of %zu at 100%% not listed):\n",
			full, n);
	for (size_t i = 0; i < n; i++) {
		int undefined = td_report_score(&s, v[i].count);

		if (json) {
			fputs(i ? ", {\"file\": " : "{\"file\": ", f);
			td_json_fput_string(f, v[i].file);
			fprintf(f, ", \"killed\": %zu, \"judged\": %zu, \"score\": ", v[i].count[TD_KILLED],
				td_report_judged(v[i].count));
			if (undefined)
				fputs("null}", f);
			else
				fprintf(f, "%.1f}", s);
		} else if (n > 1 && !(!undefined && s == 100.0)) {
			if (undefined)
				fprintf(f, "  %s  n/a (nothing judged)\n", v[i].file);
			else
				fprintf(f, "  %s  %.1f%% (%zu killed of %zu judged)\n", v[i].file, s,
					v[i].count[TD_KILLED], td_report_judged(v[i].count));
		}
	}
	free(v);
	return 0;
}

static void json_strv(FILE *f, char *const *v)
{
	fputc('[', f);
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			fputs(", ", f);
		td_json_fput_string(f, v[i]);
	}
	fputc(']', f);
}

static void json_mutant(FILE *f, const td_mutant *m, const td_mutation_result *r)
{
	fputs("    {\"id\": ", f), td_json_fput_string(f, m->id);
	fputs(", \"name\": ", f), td_json_fput_string(f, m->name);
	fputs(", \"catalogue\": ", f), td_json_fput_string(f, m->catalogue);
	fputs(", \"where\": ", f), td_json_fput_string(f, m->where);
	fputs(", \"file\": ", f), td_json_fput_string(f, m->file);
	fprintf(f, ", \"line\": %d, \"operator\": ", m->line), td_json_fput_string(f, m->op);
	fputs(", \"find\": ", f), td_json_fput_string(f, m->find);
	fputs(", \"replace\": ", f), td_json_fput_string(f, m->replace);
	fputs(", \"guards\": ", f), json_strv(f, m->guards);
	if (m->finding)
		fprintf(f, ", \"finding\": %d", m->finding);
	else
		fputs(", \"finding\": null", f);
	fputs(", \"designed_against\": ", f), td_json_fput_string(f, m->designed_against);
	fputs(", \"why\": ", f), td_json_fput_string(f, m->why);
	fputs(", \"outcome\": ", f), td_json_fput_string(f, td_outcome_name((enum td_outcome)r->outcome));
	fputs(", \"killed_by\": ", f), json_strv(f, r->killers);
	fputs(", \"equivalent\": ", f), td_json_fput_string(f, m->equivalent);
	if (r->tail[0]) { /* the failure's last lines after its exit status */
		char d[sizeof r->detail + sizeof r->tail + 4];

		snprintf(d, sizeof d, "%s: %s", r->detail, r->tail);
		fputs(", \"detail\": ", f), td_json_fput_string(f, d);
	} else {
		fputs(", \"detail\": ", f), td_json_fput_string(f, r->detail);
	}
	fputs(", \"log\": ", f);
	if (r->log[0])
		td_json_fput_string(f, r->log);
	else
		fputs("null", f);
	fprintf(f, ", \"seconds\": %.3f}", r->seconds);
}

int td_report_json(char **out, const td_mutants *m, const td_mutation_result *res,
		   const td_report_isolation *iso)
{
	size_t len, count[TD_N_OUTCOMES] = {0};
	FILE *f = open_memstream(out, &len);

	if (!f)
		return TD_FAIL(TD_ENOMEM, "out of memory for the JSON report");
	for (size_t i = 0; i < m->n; i++)
		count[res[i].outcome]++;
	fputs("{\n  \"schema\": \"tdaudit.mutate/1\",\n  \"summary\": {", f);
	for (int o = 0; o < TD_N_OUTCOMES; o++)
		fprintf(f, "%s\"%s\": %zu", o ? ", " : "", td_outcome_name((enum td_outcome)o), count[o]);
	fputs("},\n  \"build_failed_generated\": ", f);
	if (put_build_failed(f, m, res, 1) != 0) {
		fclose(f), free(*out), *out = NULL;
		return td_error_code();
	}
	fputs(",\n  \"score_by_file\": [", f);
	if (put_by_file(f, m, res, 1) != 0) {
		fclose(f), free(*out), *out = NULL;
		return td_error_code();
	}
	fputs("],\n", f);
	if (iso)
		fprintf(f, "  \"isolation\": {\"confinement\": \"%s\", \"unconfined_runs\": %zu, "
			   "\"resynced_trees\": %zu},\n",
			iso->confined ? "landlock" : "none", iso->unconfined_runs, iso->resynced);
	fputs("  \"mutants\": [\n", f);
	for (size_t i = 0; i < m->n; i++) {
		json_mutant(f, &m->v[i], &res[i]);
		fputs(i + 1 < m->n ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	fclose(f);
	return 0;
}

static void xml_str(FILE *f, const char *s)
{
	td_json_buf b = TD_JSON_BUF_INIT;

	td_xml_put_text(&b, s);
	if (b.s)
		fputs(b.s, f);
	td_json_buf_free(&b);
}

int td_report_junit(char **out, const td_mutants *m, const td_mutation_result *res)
{
	size_t len, failures = 0, skipped = 0;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return TD_FAIL(TD_ENOMEM, "out of memory for the JUnit report");
	for (size_t i = 0; i < m->n; i++) {
		failures += (size_t)bad(&m->v[i], &res[i]);
		skipped += res[i].outcome == TD_EQUIVALENT;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuite name=\"tdaudit.mutate\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
		m->n, failures, skipped);
	for (size_t i = 0; i < m->n; i++) {
		const char *o = td_outcome_name((enum td_outcome)res[i].outcome);

		fputs("  <testcase classname=\"", f), xml_str(f, m->v[i].file);
		fputs("\" name=\"", f), xml_str(f, m->v[i].id);
		fprintf(f, "\" time=\"%.3f\">", res[i].seconds);
		if (bad(&m->v[i], &res[i])) {
			fprintf(f, "<failure message=\"%s\">", o);
			xml_str(f, m->v[i].where), fputs(": ", f), xml_str(f, m->v[i].why);
			fputs("</failure>", f);
		} else if (res[i].outcome == TD_EQUIVALENT) {
			/* text, not a message attribute: the Jenkins XSD's skipped is a plain string */
			fputs("<skipped>equivalent: ", f), xml_str(f, m->v[i].equivalent);
			fputs("</skipped>", f);
		}
		fputs("</testcase>\n", f);
	}
	fputs("</testsuite>\n", f);
	fclose(f);
	return 0;
}

/*
 * The equivalent mutants, each with its reason and where it was declared:
 * a declaration silences a mutant, so every run says which and why.
 */
static void print_equivalents(const td_mutants *m, const td_mutation_result *res)
{
	int first = 1;

	for (size_t i = 0; i < m->n; i++) {
		const td_mutant *x = &m->v[i];

		if (res[i].outcome != TD_EQUIVALENT)
			continue;
		if (first)
			printf("\nequivalent (declared, not run):\n");
		first = 0;
		printf("  %s: %s (%s)\n", x->id, x->equivalent ? x->equivalent : "?",
		       x->equivalent_where ? x->equivalent_where : x->where);
	}
}

static void print_details(const td_mutants *m, const td_mutation_result *res, int color)
{
	for (size_t i = 0; i < m->n; i++) {
		const td_mutant *x = &m->v[i];

		if (!bad(x, &res[i]))
			continue;
		printf("\n%s%s%s %s (%s)\n  %s:%d\n", td_report_color(color, res[i].outcome),
		       td_outcome_name((enum td_outcome)res[i].outcome),
		       td_report_color(color, TD_N_OUTCOMES), x->id, x->where, x->file, x->line);
		printf("  edit: '%s' -> '%s'\n  why:  %s\n", x->find, x->replace, x->why);
		if (res[i].log[0])
			printf("  log:  %s\n", res[i].log);
		if (res[i].outcome == TD_KILLED_ELSEWHERE)
			printf("  caught only by %s, not by its guards: name the right guard\n",
			       res[i].killers ? res[i].killers[0] : "?");
		if (res[i].outcome == TD_STALE)
			printf("  %s: update or remove the catalogue entry\n", res[i].detail);
		if (res[i].outcome == TD_BUILD_FAILED)
			printf("  the mutated code does not build (%s%s%s; its log above): the entry "
			       "tests nothing; make its replacement compile\n", res[i].detail,
			       res[i].tail[0] ? ": " : "", res[i].tail);
		if (res[i].outcome == TD_NOT_REBUILT)
			printf("  %s: the tests ran the unmutated code; fix the build's dependencies "
			       "(a Makefile that lists every header a file includes, or -MMD) or make "
			       "the build command a clean build\n", res[i].detail);
		if (res[i].outcome == TD_NO_COVERAGE)
			printf("  %s: no test runs this code; write one that does (a process "
			       "whose environment drops TDAUDIT_COVERAGE is not seen: "
			       "--run-unreached runs the suite all the same)\n", res[i].detail);
	}
}

/*
 * Writes a report made by td_report_json or _junit (err: its code, text:
 * its text, or NULL); frees text.
 */
static int write_report(const char *path, int err, char *text)
{
	if (!err)
		err = td_file_write_atomic(path, text, strlen(text), 0644);
	free(text);
	if (err)
		fprintf(stderr, "tdaudit: %s\n", td_error_last());
	return err;
}

size_t td_report_judged(const size_t count[TD_N_OUTCOMES])
{
	return count[TD_KILLED] + count[TD_KILLED_ELSEWHERE] + count[TD_SURVIVED] +
	       count[TD_NO_COVERAGE] + count[TD_TIMEOUT];
}

int td_report_score(double *score, const size_t count[TD_N_OUTCOMES])
{
	size_t judged = td_report_judged(count);

	*score = judged ? 100.0 * (double)count[TD_KILLED] / (double)judged : 0;
	return judged ? 0 : 1;
}

int td_report_below(const size_t count[TD_N_OUTCOMES], double fail_under)
{
	double score;

	if (fail_under < 0 || td_report_score(&score, count) != 0)
		return 0;
	return score < fail_under;
}

/* "mutation score: 75.0% (3 killed of 4 judged)", or why there is none. */
static void print_score(const size_t count[TD_N_OUTCOMES])
{
	double score;

	if (td_report_score(&score, count) != 0)
		printf("mutation score: n/a (no mutant was killed, survived or timed out)\n");
	else
		printf("mutation score: %.1f%% (%zu killed of %zu judged)\n", score, count[TD_KILLED],
		       td_report_judged(count));
}

/* The isolation lines of the summary; the unconfined count is loud. */
static void print_isolation(const td_report_isolation *iso)
{
	printf("scratch trees re-synced after a mutant changed them: %zu\n", iso->resynced);
	if (iso->unconfined_runs)
		printf("WARNING: %zu builds and test runs were not confined (see the confinement "
		       "line above)\n", iso->unconfined_runs);
	else
		printf("every build and test run was confined\n");
}

int td_report_all(const td_mutants *m, const td_mutation_result *res, const char *json,
		  const char *junit, int color, double fail_under, const td_report_isolation *iso)
{
	char *text = NULL;
	size_t count[TD_N_OUTCOMES] = {0}, n_bad = 0;
	int below, err;

	for (size_t i = 0; i < m->n; i++) {
		count[res[i].outcome]++;
		n_bad += (size_t)bad(&m->v[i], &res[i]);
	}
	printf("\nsummary: %zu mutants\n", m->n);
	for (int o = 0; o < TD_N_OUTCOMES; o++)
		if (count[o])
			printf("  %-17s %zu\n", td_outcome_name((enum td_outcome)o), count[o]);
	if (put_build_failed(stdout, m, res, 0) != 0) {
		fprintf(stderr, "tdaudit: %s\n", td_error_last());
		return 2;
	}
	print_score(count);
	if (put_by_file(stdout, m, res, 0) != 0) {
		fprintf(stderr, "tdaudit: %s\n", td_error_last());
		return 2;
	}
	if (iso)
		print_isolation(iso);
	print_equivalents(m, res);
	print_details(m, res, color);
	if (json && (err = td_report_json(&text, m, res, iso), write_report(json, err, text)))
		return 2;
	if (junit && (err = td_report_junit(&text, m, res), write_report(junit, err, text)))
		return 2;
	if (n_bad)
		printf("\ntdaudit mutate: FAILED: see above\n");
	else if (m->n == 0)
		printf("\ntdaudit mutate: no mutant was selected: nothing was tested, nothing is "
		       "claimed\n");
	else if (count[TD_BUILD_FAILED] || count[TD_EQUIVALENT] || count[TD_TIMEOUT])
		printf("\ntdaudit mutate: every mutant that ran was caught; not kills: %zu "
		       "build-failed (generated), %zu equivalent, %zu timed out\n",
		       count[TD_BUILD_FAILED], count[TD_EQUIVALENT], count[TD_TIMEOUT]);
	else
		printf("\ntdaudit mutate: every mutant was caught\n");
	below = td_report_below(count, fail_under);
	if (below)
		printf("tdaudit mutate: FAILED: the mutation score is below --fail-under %g\n",
		       fail_under);
	return n_bad || below ? 1 : 0;
}
