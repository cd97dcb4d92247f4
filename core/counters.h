/*
 * counters.h - named counters that carry their reason, and the NaN firewall.
 *
 * A counter is COUNTED behaviour made visible: a fallback, a skip, a value
 * that went missing. Each has a name ([a-z0-9_]+, at most
 * TD_COUNTER_NAME_MAX bytes), a count, and the reasons ("why") it was
 * bumped: the first TD_COUNTER_WHY_KEEP distinct reasons are kept word for
 * word, later distinct ones only counted. The reason must reach every log:
 * td_counters_line formats "name=2 (why: a; b)" for the text log and
 * td_counters_json formats {"name":{"count":2,"why":["a","b"]}} for the
 * JSON-lines log, both sorted by name. A reader of either log learns why
 * without a debugger; a counter without its reason is a defect.
 *
 * All storage is allocated once by td_counters_new (a fixed number of
 * slots), so bumping a counter in a training step allocates nothing.
 *
 * The firewall (td_firewall) watches log windows: a window with steps but
 * no finite one is counted ("window_without_finite_step"), and two such
 * windows in a row stop the run with TD_ESTATE and a message saying what
 * happened and what to do.
 */
#ifndef TD_COUNTERS_H
#define TD_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "../base/json.h"

#define TD_COUNTER_NAME_MAX 47 /* longest name, bytes */
#define TD_COUNTER_WHY_MAX 199 /* longest reason kept; longer ones are cut, ending in "..." */
#define TD_COUNTER_WHY_KEEP 4  /* distinct reasons kept per counter */

typedef struct td_counters td_counters;

/*
 * A set of at most max_counters counters, all zero. Refused: max_counters 0
 * (TD_EINVAL). The caller frees *out with td_counters_free.
 */
int td_counters_new(td_counters **out, size_t max_counters);

/* Frees c; accepts NULL. */
void td_counters_free(td_counters *c);

/*
 * Adds 1 to counter name (created at 0 on first use) and records why, which
 * must be a non-empty sentence. Refused: a name that is empty, too long or
 * not [a-z0-9_]+, an empty or NULL why (TD_EINVAL: a count without its
 * reason is what this module exists to prevent), and a new name when every
 * slot is taken (TD_ESTATE, naming the capacity).
 */
int td_counter_add(td_counters *c, const char *name, const char *why);

/* td_counter_add with the reason formatted printf-style. */
int td_counter_addf(td_counters *c, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The count of name, 0 when it was never added. */
int64_t td_counter_get(const td_counters *c, const char *name);

/*
 * Reason k (0-based, in the order first seen) of name, or NULL when there
 * is none. Borrowed: valid until the next td_counter_add or reset on c.
 */
const char *td_counter_why(const td_counters *c, const char *name, size_t k);

/* Zeroes every counter and forgets every reason (the start of a log window). */
void td_counters_reset(td_counters *c);

/*
 * The text form, appended to *out (a td_json_buf from base/json.h, used here as
 * a plain text buffer): counters sorted by name, separated by one space,
 * each "name=COUNT (why: R1; R2; +N more)"; nothing when no counter is set.
 * Returns out->err (TD_ENOMEM) or 0.
 */
int td_counters_line(td_json_buf *out, const td_counters *c);

/*
 * The JSON form, appended to *out (a td_json_buf): an object with one
 * member per counter, sorted by name:
 *   {"name":{"count":2,"why":["R1","R2"],"why_more":N}}
 * why_more is present when reasons were dropped. {} when none is set.
 * Returns out->err or 0.
 */
int td_counters_json(td_json_buf *out, const td_counters *c);

/*
 * The NaN firewall over log windows. Plain data: start from
 * TD_FIREWALL_INIT, call td_firewall_step after every optimizer step and
 * td_firewall_window_end at the end of every log window.
 */
typedef struct {
	int64_t steps;	 /* steps seen in the current window */
	int64_t finite;	 /* of which finite (applied) */
	int64_t first;	 /* the first step of the window (1-based), 0 when none yet */
	int dead_in_row; /* consecutive ended windows without a finite step */
} td_firewall;

#define TD_FIREWALL_INIT                                                                           \
	{                                                                                          \
		0                                                                                  \
	}

/* Records that step (1-based) ran; applied is what td_adamw_step returned. */
void td_firewall_step(td_firewall *fw, int64_t step, int applied);

/*
 * Ends the current window at step. A window with steps and no finite one
 * is counted in c as "window_without_finite_step" with the steps as its
 * reason; the second such window in a row fails with TD_ESTATE (the run
 * must stop: every gradient has been NaN or inf for two windows). A window
 * with a finite step clears the streak; an empty window changes nothing.
 * Errors of td_counter_add are passed up.
 */
int td_firewall_window_end(td_firewall *fw, td_counters *c, int64_t step);

#endif
