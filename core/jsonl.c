/*
 * jsonl.c - the append-only JSON-lines log (see jsonl.h).
 *
 * Must never write a line that is not valid JSON (a NaN becomes null and is
 * counted, never printed as "nan"), never write part of a line, and never
 * rewrite what is already in the file: the file is opened for appending only.
 */
#include "jsonl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

struct td_jsonl {
	FILE *f;
	char *path;
	td_counters *counters; /* borrowed, may be NULL */
	td_json_buf line;      /* the line being built */
	int n_fields;	       /* fields in the line so far */
	int err;	       /* first failure of the line being built */
	int64_t lines, nonfinite;
};

int td_jsonl_open(td_jsonl **out, const char *path, td_counters *counters)
{
	td_jsonl *j = calloc(1, sizeof *j);

	*out = NULL;
	if (!j || !(j->path = strdup(path))) {
		free(j);
		return TD_FAIL(TD_ENOMEM, "no memory to open the log %s", path);
	}
	j->f = fopen(path, "a");
	if (!j->f) {
		int err = TD_FAIL(TD_EIO, "cannot open the log %s for appending: %s; check the "
					  "directory exists and is writable", path, strerror(errno));

		td_jsonl_free(j);
		return err;
	}
	j->counters = counters;
	*out = j;
	return 0;
}

void td_jsonl_free(td_jsonl *j)
{
	if (!j)
		return;
	if (j->f)
		fclose(j->f);
	td_json_buf_free(&j->line);
	free(j->path);
	free(j);
}

void td_jsonl_begin(td_jsonl *j)
{
	td_json_buf_clear(&j->line);
	td_json_put_raw(&j->line, "{");
	j->n_fields = 0;
	j->err = 0;
}

/* Writes the separator and "key": for the next field. */
static void key(td_jsonl *j, const char *k)
{
	if (j->n_fields++)
		td_json_put_raw(&j->line, ",");
	td_json_put_string(&j->line, k);
	td_json_put_raw(&j->line, ":");
}

void td_jsonl_str(td_jsonl *j, const char *k, const char *value)
{
	key(j, k);
	td_json_put_string(&j->line, value);
}

void td_jsonl_int(td_jsonl *j, const char *k, int64_t value)
{
	key(j, k);
	td_json_put_int(&j->line, value);
}

void td_jsonl_num(td_jsonl *j, const char *k, double value)
{
	int err;

	key(j, k);
	if (!td_json_put_number(&j->line, value))
		return;
	j->nonfinite++;
	if (!j->counters)
		return;
	err = td_counter_addf(j->counters, "json_nonfinite_as_null",
			      "field '%s' was %s in line %lld of %s", k, isnan(value) ? "nan" : "inf",
			      (long long)j->lines + 1, j->path);
	if (err && !j->err)
		j->err = err;
}

void td_jsonl_bool(td_jsonl *j, const char *k, int value)
{
	key(j, k);
	td_json_put_raw(&j->line, value ? "true" : "false");
}

void td_jsonl_counters(td_jsonl *j, const char *k, const td_counters *c)
{
	key(j, k);
	td_counters_json(&j->line, c);
}

int td_jsonl_end(td_jsonl *j)
{
	int err = j->err;

	td_json_put_raw(&j->line, "}\n");
	if (!err)
		err = j->line.err;
	if (err)
		return err;
	if (fwrite(j->line.s, 1, j->line.len, j->f) != j->line.len || fflush(j->f) != 0)
		return TD_FAIL(TD_EIO, "cannot append to the log %s: %s; check the disk", j->path,
			       strerror(errno));
	j->lines++;
	return 0;
}

int64_t td_jsonl_lines(const td_jsonl *j)
{
	return j->lines;
}

int64_t td_jsonl_nonfinite(const td_jsonl *j)
{
	return j->nonfinite;
}

int td_log_due(int64_t step, int64_t steps, int64_t every)
{
	if (every < 1 || step < 1 || step > steps)
		return 0;
	return step % every == 0 || step == steps;
}

int td_jsonl_eval(td_jsonl *j, const td_eval_record *r, const td_counters *c)
{
	td_jsonl_begin(j);
	td_jsonl_str(j, "kind", "eval");
	td_jsonl_int(j, "step", r->step);
	td_jsonl_num(j, "loss", r->loss);
	if (r->accuracy >= 0 || isnan(r->accuracy))
		td_jsonl_num(j, "accuracy", r->accuracy);
	td_jsonl_int(j, "examples", r->examples);
	if (r->content)
		td_jsonl_str(j, "content", r->content);
	td_jsonl_bool(j, "final", r->final);
	td_jsonl_counters(j, "counters", c);
	return td_jsonl_end(j);
}

int td_jsonl_step(td_jsonl *j, int64_t step, double loss, double lr, double grad_norm,
		  const td_counters *c)
{
	td_jsonl_begin(j);
	td_jsonl_str(j, "kind", "step");
	td_jsonl_int(j, "step", step);
	td_jsonl_num(j, "loss", loss);
	td_jsonl_num(j, "lr", lr);
	td_jsonl_num(j, "grad_norm", grad_norm);
	td_jsonl_counters(j, "counters", c);
	return td_jsonl_end(j);
}

