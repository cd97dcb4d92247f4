/*
 * auditrun.c - a `tdaudit audit` run (td_audit in audit.h): select the
 * audits, run them on N threads, print the table, write the reports and
 * the ledger run.
 *
 * Must never: print or record a skip as a pass, exit 0 when an audit
 * failed or errored, or write a report in place (td_file_write_atomic).
 */
#define _GNU_SOURCE
#include "audit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/json.h"
#include "../base/strv.h"
#include "../ledger/ledger.h"
#include "project.h"
#include "record.h"
#include "repo.h"
#include "testrun.h"

typedef struct {
	const td_project *p;
	char **names, **scripts; /* the audits to run */
	td_audit_result *res;    /* one per audit */
	size_t n, next;
	pthread_mutex_t mu;
	int err;
} queue;

static void *worker(void *arg)
{
	queue *q = arg;

	for (;;) {
		size_t i;
		int err;

		pthread_mutex_lock(&q->mu);
		i = q->next++;
		pthread_mutex_unlock(&q->mu);
		if (i >= q->n)
			return NULL;
		err = td_audit_run_one(&q->res[i], q->p, q->p->root, q->names[i], q->scripts[i]);
		if (err) {
			fprintf(stderr, "tdaudit audit: %s: %s\n", q->names[i], td_error_last());
			pthread_mutex_lock(&q->mu);
			q->err = err;
			pthread_mutex_unlock(&q->mu);
		}
	}
}

/* Runs every audit in q on jobs threads. */
static int run_all(queue *q, int jobs)
{
	pthread_t th[64];
	int n = jobs < 1 ? 1 : jobs > 64 ? 64 : jobs;

	pthread_mutex_init(&q->mu, NULL);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, q) != 0)
			n = i;
	if (n == 0)
		worker(q);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&q->mu);
	return q->err;
}

/*
 * Keeps the audits named in names (all when NULL); a name no audit has is
 * refused (exit 2), naming the ones there are.
 */
static int select_audits(queue *q, char **all_names, char **all_scripts, char *const *names)
{
	for (size_t i = 0; names && names[i]; i++)
		if (td_strv_find(all_names, names[i]) < 0) {
			fprintf(stderr, "tdaudit audit: no audit is named '%s'; the audits are:", names[i]);
			for (size_t k = 0; all_names && all_names[k]; k++)
				fprintf(stderr, " %s", all_names[k]);
			fprintf(stderr, "\n(tdaudit help audit for the options)\n");
			return 2;
		}
	for (size_t i = 0; all_names && all_names[i]; i++) {
		if (names && td_strv_find(names, all_names[i]) < 0)
			continue;
		if (td_strv_push(&q->names, all_names[i]) || td_strv_push(&q->scripts, all_scripts[i]))
			return 2;
	}
	q->n = td_strv_len(q->names);
	return 0;
}

/* ---- output -------------------------------------------------------------------- */

static void print_table(const queue *q)
{
	size_t w = 5;

	for (size_t i = 0; i < q->n; i++)
		w = strlen(q->names[i]) > w ? strlen(q->names[i]) : w;
	printf("%-*s  %-6s %-8s %s\n", (int)w, "audit", "result", "class", "summary");
	for (size_t i = 0; i < q->n; i++) {
		const td_audit_result *r = &q->res[i];

		printf("%-*s  %-6s %-8s %s\n", (int)w, r->name, td_audit_status_name(r->status),
		       r->class_, r->summary);
	}
	for (size_t i = 0; i < q->n; i++) {
		const td_audit_result *r = &q->res[i];

		if (r->status == TD_AUDIT_PASS)
			continue;
		printf("\n%s: %s: %s\n", r->name, td_audit_status_name(r->status), r->reason);
		for (size_t k = 0; r->evidence && r->evidence[k]; k++)
			printf("  %s\n", r->evidence[k]);
		for (size_t k = 0; r->status != TD_AUDIT_SKIP && r->commands && r->commands[k]; k++)
			printf("  $ %s\n", r->commands[k]);
	}
}

/* The evidence of r as a JSON array: its commands, then its own lines. */
static void json_evidence(td_json_buf *b, const td_audit_result *r)
{
	int n = 0;

	td_json_put_raw(b, "[");
	for (size_t k = 0; r->commands && r->commands[k]; k++) {
		td_json_put_raw(b, n++ ? ", " : "");
		td_json_put_string(b, r->commands[k]);
	}
	for (size_t k = 0; r->evidence && r->evidence[k]; k++) {
		td_json_put_raw(b, n++ ? ", " : "");
		td_json_put_string(b, r->evidence[k]);
	}
	td_json_put_raw(b, "]");
}

static void json_strv(td_json_buf *b, char *const *v)
{
	td_json_put_raw(b, "[");
	for (size_t k = 0; v && v[k]; k++) {
		td_json_put_raw(b, k ? ", " : "");
		td_json_put_string(b, v[k]);
	}
	td_json_put_raw(b, "]");
}

static void count(const queue *q, int c[4])
{
	memset(c, 0, 4 * sizeof *c);
	for (size_t i = 0; i < q->n; i++)
		c[q->res[i].status]++;
}

/* The tdaudit.audit/1 report (docs/audit.md). */
static int write_json(const queue *q, const char *path)
{
	td_json_buf b = TD_JSON_BUF_INIT;
	int c[4], err;

	count(q, c);
	td_json_put_raw(&b, "{\"schema\": \"tdaudit.audit/1\",\n \"counts\": {\"pass\": ");
	td_json_put_int(&b, c[0]);
	td_json_put_raw(&b, ", \"fail\": ");
	td_json_put_int(&b, c[1]);
	td_json_put_raw(&b, ", \"skip\": ");
	td_json_put_int(&b, c[2]);
	td_json_put_raw(&b, ", \"error\": ");
	td_json_put_int(&b, c[3]);
	td_json_put_raw(&b, "},\n \"audits\": [");
	for (size_t i = 0; i < q->n; i++) {
		const td_audit_result *r = &q->res[i];

		td_json_put_raw(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		td_json_put_string(&b, r->name);
		td_json_put_raw(&b, ", \"script\": ");
		td_json_put_string(&b, r->script);
		td_json_put_raw(&b, ", \"status\": ");
		td_json_put_string(&b, td_audit_status_name(r->status));
		td_json_put_raw(&b, ", \"class\": ");
		td_json_put_string(&b, r->class_);
		td_json_put_raw(&b, ", \"summary\": ");
		td_json_put_string(&b, r->summary);
		td_json_put_raw(&b, ", \"reason\": ");
		if (r->reason)
			td_json_put_string(&b, r->reason);
		else
			td_json_put_raw(&b, "null");
		td_json_put_raw(&b, ", \"commands\": ");
		json_strv(&b, r->commands);
		td_json_put_raw(&b, ", \"evidence\": ");
		json_strv(&b, r->evidence);
		td_json_put_raw(&b, ", \"seconds\": ");
		td_json_put_number(&b, r->seconds);
		td_json_put_raw(&b, "}");
	}
	td_json_put_raw(&b, "]}\n");
	err = b.err ? b.err : td_file_write_atomic(path, b.s, b.len, 0644);
	td_json_buf_free(&b);
	return err;
}

/* JUnit XML: one testcase per audit; a fail is a failure, an error an error, a skip skipped. */
static int write_junit(const queue *q, const char *path)
{
	td_json_buf b = TD_JSON_BUF_INIT;
	char num[128];
	int c[4], err;

	count(q, c);
	snprintf(num, sizeof num, "<testsuite name=\"tdaudit audit\" tests=\"%zu\" failures=\"%d\" "
				  "errors=\"%d\" skipped=\"%d\">\n", q->n, c[1], c[3], c[2]);
	td_json_put_raw(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	td_json_put_raw(&b, num);
	for (size_t i = 0; i < q->n; i++) {
		const td_audit_result *r = &q->res[i];
		static const char *const tag[] = {NULL, "failure", "skipped", "error"};

		td_json_put_raw(&b, "  <testcase classname=\"audit\" name=\"");
		td_xml_put_text(&b, r->name);
		snprintf(num, sizeof num, "\" time=\"%.3f\"", r->seconds);
		td_json_put_raw(&b, num);
		if (r->status == TD_AUDIT_PASS) {
			td_json_put_raw(&b, "/>\n");
			continue;
		}
		td_json_put_raw(&b, ">\n    <");
		td_json_put_raw(&b, tag[r->status]);
		if (r->status == TD_AUDIT_SKIP) { /* the XSD's skipped takes no attribute: its reason is text */
			td_json_put_raw(&b, ">");
			td_xml_put_text(&b, r->reason);
			td_json_put_raw(&b, "\n");
		} else {
			td_json_put_raw(&b, " message=\"");
			td_xml_put_text(&b, r->reason);
			td_json_put_raw(&b, "\">");
		}
		td_xml_put_text(&b, r->class_);
		td_json_put_raw(&b, ": ");
		td_xml_put_text(&b, r->summary);
		for (size_t k = 0; r->commands && r->commands[k]; k++) {
			td_json_put_raw(&b, "\n$ ");
			td_xml_put_text(&b, r->commands[k]);
		}
		for (size_t k = 0; r->evidence && r->evidence[k]; k++) {
			td_json_put_raw(&b, "\n");
			td_xml_put_text(&b, r->evidence[k]);
		}
		td_json_put_raw(&b, "</");
		td_json_put_raw(&b, tag[r->status]);
		td_json_put_raw(&b, ">\n  </testcase>\n");
	}
	td_json_put_raw(&b, "</testsuite>\n</testsuites>\n");
	err = b.err ? b.err : td_file_write_atomic(path, b.s, b.len, 0644);
	td_json_buf_free(&b);
	return err;
}

/* ---- the ledger -------------------------------------------------------------------- */

static int record(const queue *q, const char *command, int status)
{
	const td_tfield *cfg = q->p->trainer.given ? td_trainer_field(&q->p->trainer, "config") : NULL;
	td_ledger_run_info info = {0};
	td_ledger_audit_run ar = {0};
	td_ledger *lg = NULL;
	char path[8192], sha[41] = "";
	int dirty = 0, c[4], err;

	td_record_ledger_path(path, sizeof path, q->p);
	info.command = command ? command : "tdaudit audit";
	info.tool_version = TD_TOOL_VERSION;
	if (td_repo_head(sha, &dirty, q->p->root) == 0 && sha[0] != '(')
		info.head_commit = sha;
	else
		td_error_clear();
	info.dirty = dirty;
	count(q, c);
	ar.trainer = q->p->trainer.given ? q->p->trainer.where : NULL;
	ar.config = cfg && cfg->given ? cfg->str : NULL;
	ar.audits = (int)q->n, ar.passed = c[0], ar.failed = c[1], ar.skipped = c[2];
	err = td_ledger_open(&lg, path, TD_LEDGER_CREATE);
	if (!err)
		err = td_ledger_run_begin(lg, &info);
	if (!err)
		err = td_ledger_put_audit_run(lg, &ar);
	for (size_t i = 0; !err && i < q->n; i++) {
		const td_audit_result *r = &q->res[i];
		td_json_buf ev = TD_JSON_BUF_INIT;
		td_ledger_audit_result lr = {r->name, td_audit_status_name(r->status), r->class_,
					     r->summary, r->reason, NULL, (long)(r->seconds * 1000)};

		json_evidence(&ev, r);
		lr.evidence = ev.s ? ev.s : "[]";
		err = ev.err ? ev.err : td_ledger_put_audit_result(lg, &lr);
		td_json_buf_free(&ev);
	}
	if (!err)
		err = td_ledger_run_finish(lg, status == 0 ? "ok" : status == 1 ? "findings" : "error");
	td_ledger_free(lg);
	return err;
}

/* ---- the run ----------------------------------------------------------------------- */

int td_audit(const char *root, const td_audit_opts *o)
{
	td_project *p = NULL;
	char **all_names = NULL, **all_scripts = NULL, dir[4200];
	queue q = {0};
	int rc = 2, lock = -1, c[4];

	if (td_project_load(&p, root) != 0) {
		fprintf(stderr, "tdaudit audit: %s\n", td_error_last());
		return 2;
	}
	q.p = p;
	if (!p->audits) {
		fprintf(stderr, "tdaudit audit: %s/tdaudit.lua names no audits; add audits { "
				"\"audits/*.lua\" } (docs/audit.md)\n", p->root);
		goto done;
	}
	if (td_audit_list(&all_names, &all_scripts, p) != 0 || !all_names) {
		fprintf(stderr, "tdaudit audit: %s\n",
			all_names ? td_error_last() : "tdaudit.lua's audits globs match no script");
		goto done;
	}
	if (select_audits(&q, all_names, all_scripts, o->names) != 0)
		goto done;
	if (td_testrun_claim(&lock, dir, sizeof dir, p->root, "audit") != 0 ||
	    (o->json && td_file_check_writable(o->json) != 0) ||
	    (o->junit && td_file_check_writable(o->junit) != 0) || td_record_check(p) != 0) {
		fprintf(stderr, "tdaudit audit: %s\n", td_error_last()); /* before any run */
		goto done;
	}
	td_testrun_say_confinement("audit", p);
	q.res = calloc(q.n, sizeof *q.res);
	if (!q.res || run_all(&q, o->jobs) != 0)
		goto done;
	print_table(&q);
	count(&q, c);
	rc = c[3] ? 2 : c[1] ? 1 : 0;
	printf("\n%d passed, %d failed, %d skipped", c[0], c[1], c[2]);
	if (c[3])
		printf(", %d could not run", c[3]);
	printf("\n");
	if (o->json && write_json(&q, o->json) != 0)
		rc = 2, fprintf(stderr, "tdaudit audit: --json: %s\n", td_error_last());
	if (o->junit && write_junit(&q, o->junit) != 0)
		rc = 2, fprintf(stderr, "tdaudit audit: --junit: %s\n", td_error_last());
	if (record(&q, o->command, rc) != 0)
		rc = 2, fprintf(stderr, "tdaudit audit: the ledger: %s\n", td_error_last());
done:
	for (size_t i = 0; q.res && i < q.n; i++)
		td_audit_result_free(&q.res[i]);
	free(q.res);
	td_strv_free(q.names), td_strv_free(q.scripts);
	td_strv_free(all_names), td_strv_free(all_scripts);
	if (lock >= 0)
		close(lock);
	td_project_free(p);
	return rc;
}
