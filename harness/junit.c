/*
 * junit.c - the ledger's latest mutation and audit runs as JUnit XML (see
 * junit.h for the mapping). Reads through ledger.h's loaders only; every
 * text goes through td_xml_put_text, so nothing the ledger holds can break
 * the XML.
 */
#define _GNU_SOURCE
#include "junit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/json.h"

/* Counts of one suite. */
typedef struct {
	size_t tests, failures, errors, skipped;
	long ms;
} counts;

/* Writes s XML-escaped (for text and attribute values). */
static void xml(FILE *f, const char *s)
{
	td_json_buf b = TD_JSON_BUF_INIT;

	td_xml_put_text(&b, s ? s : "");
	if (b.s)
		fputs(b.s, f);
	td_json_buf_free(&b);
}

/* 'f'ailure, 'e'rror, 's'kipped or 0 (passed) for a mutant's outcome. */
static int mutant_verdict(const td_ledger_outcome_row *x)
{
	const char *o = x->outcome;

	if (!strcmp(o, "survived") || !strcmp(o, "stale") || !strcmp(o, "killed-elsewhere") ||
	    !strcmp(o, "not-rebuilt") || !strcmp(o, "no-coverage"))
		return 'f';
	if (!strcmp(o, "build-failed"))
		return x->function ? 's' : 'f'; /* a catalogue entry that does not build tests nothing */
	return !strcmp(o, "equivalent") ? 's' : 0;
}

static int audit_verdict(const td_ledger_audit_row *x)
{
	if (!strcmp(x->status, "fail"))
		return 'f';
	if (!strcmp(x->status, "error"))
		return 'e';
	return !strcmp(x->status, "skip") ? 's' : 0;
}

static void count(counts *c, int verdict, long ms)
{
	c->tests++;
	c->failures += verdict == 'f';
	c->errors += verdict == 'e';
	c->skipped += verdict == 's';
	c->ms += ms;
}

static void suite_open(FILE *f, const char *name, const counts *c, const char *run)
{
	fprintf(f, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\""
		   " time=\"%.3f\" id=\"",
		name, c->tests, c->failures, c->errors, c->skipped, (double)c->ms / 1000.0);
	xml(f, run);
	fputs("\">\n", f);
}

/* <testcase ...> with its verdict element: message and body are escaped. */
static void testcase(FILE *f, const char *classname, const char *name, long ms, int verdict,
		     const char *type, const char *message, const char *body)
{
	fputs("    <testcase classname=\"", f), xml(f, classname);
	fputs("\" name=\"", f), xml(f, name);
	fprintf(f, "\" time=\"%.3f\"", (double)ms / 1000.0);
	if (!verdict) {
		fputs("/>\n", f);
		return;
	}
	if (verdict == 's') {
		/* text, not a message attribute: the Jenkins XSD's skipped is a plain string */
		fputs("><skipped>", f), xml(f, message), fputs("</skipped></testcase>\n", f);
		return;
	}
	fprintf(f, "><%s type=\"", verdict == 'f' ? "failure" : "error"), xml(f, type);
	fputs("\" message=\"", f), xml(f, message), fputs("\">", f), xml(f, body);
	fprintf(f, "</%s></testcase>\n", verdict == 'f' ? "failure" : "error");
}

static void mutate_suite(FILE *f, const td_ledger_outcomes *o, counts *c)
{
	char body[2048];

	for (size_t i = 0; i < o->n; i++)
		count(c, mutant_verdict(&o->v[i]), o->v[i].duration_ms);
	suite_open(f, "tdaudit.mutate", c, o->run.run);
	for (size_t i = 0; i < o->n; i++) {
		const td_ledger_outcome_row *x = &o->v[i];

		char against[256];

		if (x->finding > 0)
			snprintf(against, sizeof against, "finding #%d", x->finding);
		else
			snprintf(against, sizeof against, "%s", x->designed_against ? x->designed_against : "-");
		snprintf(body, sizeof body, "%s:%d: %s '%s' of %s, against %s: %s%s%s", x->file, x->line,
			 x->function ? "generated mutant" : "catalogue entry", x->name, x->catalogue, against,
			 x->why, x->killing_test ? "; killed by " : "", x->killing_test ? x->killing_test : "");
		testcase(f, x->file, x->id, x->duration_ms, mutant_verdict(x), x->outcome,
			 mutant_verdict(x) == 's' ? body : x->outcome, body);
	}
	fputs("  </testsuite>\n", f);
}

static void audit_suite(FILE *f, const td_ledger_audits *a, counts *c)
{
	char body[2048];

	for (size_t i = 0; i < a->n; i++)
		count(c, audit_verdict(&a->v[i]), a->v[i].duration_ms);
	suite_open(f, "tdaudit.audit", c, a->run);
	for (size_t i = 0; i < a->n; i++) {
		const td_ledger_audit_row *x = &a->v[i];

		snprintf(body, sizeof body, "%s%s%s", x->summary, x->reason ? ": " : "",
			 x->reason ? x->reason : "");
		testcase(f, "tdaudit.audit", x->audit, x->duration_ms, audit_verdict(x), x->class_,
			 audit_verdict(x) == 's' ? body : x->summary, body);
	}
	fputs("  </testsuite>\n", f);
}

int td_junit_write(FILE *f, td_ledger *lg)
{
	td_ledger_outcomes *mo = NULL;
	td_ledger_audits *au = NULL;
	counts m = {0}, a = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *body = NULL;
	int err = td_ledger_outcomes_load(&mo, lg);

	if (!err)
		err = td_ledger_audits_load(&au, lg);
	if (!err && !(body = open_memstream(&text, &len)))
		err = TD_FAIL(TD_ENOMEM, "out of memory for the JUnit report");
	if (err)
		goto done;
	if (mo->run.found)
		mutate_suite(body, mo, &m);
	if (au->run[0])
		audit_suite(body, au, &a);
	fclose(body);
	body = NULL;
	/* the totals come first, so the suites are written to memory before them */
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"tdaudit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
		m.tests + a.tests, m.failures + a.failures, m.errors + a.errors, (double)(m.ms + a.ms) / 1000.0);
	fwrite(text, 1, len, f);
	fputs("</testsuites>\n", f);
	if (ferror(f))
		err = TD_FAIL(TD_EIO, "writing the JUnit report failed");
done:
	if (body)
		fclose(body);
	free(text);
	td_ledger_audits_free(au);
	td_ledger_outcomes_free(mo);
	return err;
}
