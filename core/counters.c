/*
 * counters.c - named counters with their reasons, and the NaN firewall
 * (see counters.h).
 *
 * Must never count without keeping the reason, never print a counter to
 * one log without its reason, and never allocate after td_counters_new:
 * counters are bumped inside training steps. Slots are kept sorted by name,
 * so both log forms come out in one fixed order.
 */
#include "counters.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "jsonl.h"

typedef struct {
	char name[TD_COUNTER_NAME_MAX + 1];
	int64_t count;
	char why[TD_COUNTER_WHY_KEEP][TD_COUNTER_WHY_MAX + 1]; /* distinct reasons, first seen first */
	size_t n_why;					       /* reasons kept, <= TD_COUNTER_WHY_KEEP */
	int64_t why_more; /* distinct reasons seen after the kept ones were full */
} slot;

struct td_counters {
	slot *slots;  /* [cap], the first n in use, sorted by name (strcmp) */
	size_t n, cap;
};

int td_counters_new(td_counters **out, size_t max_counters)
{
	td_counters *c;

	*out = NULL;
	if (max_counters == 0)
		return TD_FAIL(TD_EINVAL, "max_counters is 0: give room for at least one counter");
	c = calloc(1, sizeof *c);
	if (!c || !(c->slots = calloc(max_counters, sizeof *c->slots))) {
		free(c);
		return TD_FAIL(TD_ENOMEM, "no memory for %zu counters", max_counters);
	}
	c->cap = max_counters;
	*out = c;
	return 0;
}

void td_counters_free(td_counters *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

static int valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > TD_COUNTER_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'))
			return 0;
	}
	return 1;
}

/* The index of name, or where it would be inserted (with *found 0). */
static size_t find_slot(const td_counters *c, const char *name, int *found)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(c->slots[mid].name, name);

		if (cmp == 0) {
			*found = 1;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

/* The slot for name, created (zeroed, in sorted place) when new; NULL when full. */
static slot *get_slot(td_counters *c, const char *name)
{
	int found;
	size_t i = find_slot(c, name, &found);

	if (found)
		return &c->slots[i];
	if (c->n == c->cap)
		return NULL;
	memmove(&c->slots[i + 1], &c->slots[i], (c->n - i) * sizeof *c->slots);
	memset(&c->slots[i], 0, sizeof c->slots[i]);
	strcpy(c->slots[i].name, name);
	c->n++;
	return &c->slots[i];
}

/* Copies why into dst, cutting it to TD_COUNTER_WHY_MAX bytes ending in "...". */
static void copy_why(char *dst, const char *why)
{
	size_t n = strlen(why);

	if (n <= TD_COUNTER_WHY_MAX) {
		memcpy(dst, why, n + 1);
		return;
	}
	memcpy(dst, why, TD_COUNTER_WHY_MAX - 3);
	memcpy(dst + TD_COUNTER_WHY_MAX - 3, "...", 4);
}

/* Keeps why in s unless an equal reason is already kept. */
static void remember(slot *s, const char *why)
{
	char cut[TD_COUNTER_WHY_MAX + 1];

	copy_why(cut, why);
	for (size_t k = 0; k < s->n_why; k++)
		if (strcmp(s->why[k], cut) == 0)
			return;
	if (s->n_why < TD_COUNTER_WHY_KEEP)
		memcpy(s->why[s->n_why++], cut, sizeof cut);
	else
		s->why_more++;
}

int td_counter_add(td_counters *c, const char *name, const char *why)
{
	slot *s;

	if (!name || !valid_name(name))
		return TD_FAIL(TD_EINVAL,
			       "counter name '%s' is not 1-%d bytes of [a-z0-9_]; use a plain name",
			       name ? name : "(null)", TD_COUNTER_NAME_MAX);
	if (!why || !*why)
		return TD_FAIL(TD_EINVAL,
			       "counter '%s' bumped without a reason; say why (it goes to both logs)",
			       name);
	s = get_slot(c, name);
	if (!s)
		return TD_FAIL(TD_ESTATE,
			       "cannot add counter '%s': all %zu counter slots are taken; create the "
			       "counters with more room",
			       name, c->cap);
	s->count++;
	remember(s, why);
	return 0;
}

int td_counter_addf(td_counters *c, const char *name, const char *fmt, ...)
{
	char why[TD_COUNTER_WHY_MAX + 2]; /* a longer reason reaches copy_why, which cuts it */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return td_counter_add(c, name, why);
}

int64_t td_counter_get(const td_counters *c, const char *name)
{
	int found;
	size_t i = find_slot(c, name, &found);

	return found ? c->slots[i].count : 0;
}

const char *td_counter_why(const td_counters *c, const char *name, size_t k)
{
	int found;
	size_t i = find_slot(c, name, &found);

	if (!found || k >= c->slots[i].n_why)
		return NULL;
	return c->slots[i].why[k];
}

void td_counters_reset(td_counters *c)
{
	c->n = 0;
}

/* "name=COUNT (why: R1; R2; +N more)" */
static void line_one(td_json_buf *out, const slot *s)
{
	char num[32];

	td_json_put_raw(out, s->name);
	snprintf(num, sizeof num, "=%lld (why: ", (long long)s->count);
	td_json_put_raw(out, num);
	for (size_t k = 0; k < s->n_why; k++) {
		if (k)
			td_json_put_raw(out, "; ");
		td_json_put_raw(out, s->why[k]);
	}
	if (s->why_more) {
		snprintf(num, sizeof num, "; +%lld more", (long long)s->why_more);
		td_json_put_raw(out, num);
	}
	td_json_put_raw(out, ")");
}

int td_counters_line(td_json_buf *out, const td_counters *c)
{
	for (size_t i = 0; c && i < c->n; i++) {
		if (i)
			td_json_put_raw(out, " ");
		line_one(out, &c->slots[i]);
	}
	return out->err;
}

/* "name":{"count":N,"why":[...],"why_more":M} */
static void json_one(td_json_buf *out, const slot *s)
{
	td_json_put_string(out, s->name);
	td_json_put_raw(out, ":{\"count\":");
	td_json_put_int(out, s->count);
	td_json_put_raw(out, ",\"why\":[");
	for (size_t k = 0; k < s->n_why; k++) {
		if (k)
			td_json_put_raw(out, ",");
		td_json_put_string(out, s->why[k]);
	}
	td_json_put_raw(out, "]");
	if (s->why_more) {
		td_json_put_raw(out, ",\"why_more\":");
		td_json_put_int(out, s->why_more);
	}
	td_json_put_raw(out, "}");
}

int td_counters_json(td_json_buf *out, const td_counters *c)
{
	td_json_put_raw(out, "{");
	for (size_t i = 0; c && i < c->n; i++) {
		if (i)
			td_json_put_raw(out, ",");
		json_one(out, &c->slots[i]);
	}
	td_json_put_raw(out, "}");
	return out->err;
}

void td_firewall_step(td_firewall *fw, int64_t step, int applied)
{
	if (fw->steps == 0)
		fw->first = step;
	fw->steps++;
	if (applied)
		fw->finite++;
}

int td_firewall_window_end(td_firewall *fw, td_counters *c, int64_t step)
{
	int64_t first = fw->first, steps = fw->steps, finite = fw->finite;
	int err;

	fw->steps = fw->finite = fw->first = 0;
	if (steps == 0)
		return 0;
	if (finite > 0) {
		fw->dead_in_row = 0;
		return 0;
	}
	fw->dead_in_row++;
	err = td_counter_addf(c, "window_without_finite_step",
			      "steps %lld-%lld: all %lld gradients were NaN or inf", (long long)first,
			      (long long)step, (long long)steps);
	if (err)
		return err;
	if (fw->dead_in_row >= 2)
		return TD_FAIL(TD_ESTATE,
			       "NaN firewall: %d consecutive log windows (the last steps %lld-%lld) had no "
			       "finite step: every gradient was NaN or inf, so the weights have not moved; "
			       "the run is stopped. Lower lr or raise warmup, check the data for NaN, or "
			       "resume from the last good checkpoint",
			       fw->dead_in_row, (long long)first, (long long)step);
	return 0;
}
