/*
 * jsonl.h - the append-only JSON-lines log: one JSON object per line.
 *
 * A line is built field by field and written whole, with its newline, then
 * flushed, so a reader (or a crash) sees complete lines only. Every line is
 * valid JSON whatever the values: strings are escaped (quotes, backslash,
 * control characters; other bytes pass through), and a number that is not
 * finite (NaN, inf) is written as null and counted in the counters the log
 * was opened with ("json_nonfinite_as_null", with the field and line as its
 * reason), so that the text log says a value went missing and why.
 * Finite doubles are written in the shortest %.*g form that reads back to
 * the same double.
 *
 * The same records are used for every step line and every eval line: the
 * final eval goes through td_jsonl_eval like any other, and td_log_due says
 * when a step is a logging point, the last step of the run included.
 *
 * Nothing here allocates in a training step: lines are built in the log's
 * own buffer, which grows only when a line is longer than any before it.
 * A log must not be used by two threads at once.
 */
#ifndef TD_JSONL_H
#define TD_JSONL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/json.h"
#include "counters.h"

typedef struct td_jsonl td_jsonl;

/*
 * Opens path for appending (created with mode 0644 when missing; existing
 * lines are kept). counters (borrowed, may be NULL; must outlive the log)
 * receives "json_nonfinite_as_null" for every non-finite number written.
 * TD_EIO naming the path. The caller frees *out with td_jsonl_free.
 */
int td_jsonl_open(td_jsonl **out, const char *path, td_counters *counters);

/* Closes the file and frees j; accepts NULL. */
void td_jsonl_free(td_jsonl *j);

/*
 * Building one line: td_jsonl_begin, then fields, then td_jsonl_end, which
 * writes the line and flushes it. Field functions never fail on their own:
 * a failure (no memory, a counter that could not be added) is kept and
 * returned by td_jsonl_end, which then writes nothing. key is written
 * escaped; callers use plain names.
 */
void td_jsonl_begin(td_jsonl *j);
void td_jsonl_str(td_jsonl *j, const char *key, const char *value);
void td_jsonl_int(td_jsonl *j, const char *key, int64_t value);
void td_jsonl_num(td_jsonl *j, const char *key, double value);
void td_jsonl_bool(td_jsonl *j, const char *key, int value);

/* Adds key: the counters as td_counters_json writes them (c may be NULL: {}). */
void td_jsonl_counters(td_jsonl *j, const char *key, const td_counters *c);

/*
 * Writes the line built since td_jsonl_begin, with its newline, and flushes
 * it. Returns the first failure of the line (TD_ENOMEM, a counters error,
 * TD_EIO naming the path), or 0.
 */
int td_jsonl_end(td_jsonl *j);

/* Lines written so far by this log. */
int64_t td_jsonl_lines(const td_jsonl *j);

/* Non-finite numbers this log has written as null. */
int64_t td_jsonl_nonfinite(const td_jsonl *j);

/*
 * 1 when step (1-based: the number of steps done) is a logging point of a
 * run of steps steps with a cadence of every: every multiple of every, and
 * the last step of the run whatever the cadence. 0 otherwise (also for
 * every < 1 or step outside 1..steps).
 */
int td_log_due(int64_t step, int64_t steps, int64_t every);

/* What one evaluation measured. */
typedef struct {
	int64_t step;	  /* optimizer steps done when it ran */
	double loss;	  /* mean loss over the scored examples */
	double accuracy;  /* fraction correct; negative (-1) when the task has none: omitted */
	int64_t examples; /* examples actually scored (counted while reading) */
	int final;	  /* 1 for the evaluation after the last step */
	const char *content; /* hex hash of the examples scored, in order; NULL: omitted */
} td_eval_record;

/*
 * Writes {"kind":"eval","step":..,"loss":..,"accuracy":..,"examples":..,
 * "content":..,"final":..,"counters":{..}}: the one way an eval reaches the JSON log, the
 * final one included. c may be NULL. Returns as td_jsonl_end.
 */
int td_jsonl_eval(td_jsonl *j, const td_eval_record *r, const td_counters *c);

/*
 * Writes {"kind":"step","step":..,"loss":..,"lr":..,"grad_norm":..,
 * "counters":{..}}. c may be NULL. Returns as td_jsonl_end.
 */
int td_jsonl_step(td_jsonl *j, int64_t step, double loss, double lr, double grad_norm,
		  const td_counters *c);

#endif
