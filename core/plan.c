/*
 * plan.c - immutable scan plans (see plan.h).
 *
 * Must never build fewer or more steps than asked for, and never let a step
 * point into memory the caller owns.
 */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

struct td_plan {
	int n_axes;
	char axes[TD_PLAN_MAX_AXES][TD_AXIS_NAME_MAX + 1]; /* our own copies */
	int n_steps;
	struct {
		int axis; /* index into axes */
		int reverse;
	} *steps;
};

static int find_axis(const td_plan *p, const char *name)
{
	for (int i = 0; i < p->n_axes; i++)
		if (strcmp(p->axes[i], name) == 0)
			return i;
	return -1;
}

/* Allocates a plan holding copies of the axis names; steps left empty. */
static int plan_alloc(td_plan **out, const char *const *axes, int n_axes, long n_steps)
{
	td_plan *p;

	*out = NULL;
	if (n_axes < 1 || n_axes > TD_PLAN_MAX_AXES || !axes)
		return TD_FAIL(TD_EINVAL, "a plan needs 1..%d axes, got %d", TD_PLAN_MAX_AXES, n_axes);
	if (n_steps < 1 || n_steps > TD_PLAN_MAX_STEPS)
		return TD_FAIL(TD_EINVAL, "a plan needs 1..%d steps, this one would have %ld",
			       TD_PLAN_MAX_STEPS, n_steps);
	p = calloc(1, sizeof *p);
	if (!p)
		return TD_FAIL(TD_ENOMEM, "out of memory for a plan");
	for (int i = 0; i < n_axes; i++) {
		if (!axes[i] || !axes[i][0] || strlen(axes[i]) > TD_AXIS_NAME_MAX) {
			free(p);
			return TD_FAIL(TD_EINVAL, "axis %d's name is empty or longer than %d characters", i,
				       TD_AXIS_NAME_MAX);
		}
		if (find_axis(p, axes[i]) >= 0) {
			free(p);
			return TD_FAIL(TD_EINVAL, "axis '%s' is listed twice; list each axis once", axes[i]);
		}
		strcpy(p->axes[p->n_axes++], axes[i]);
	}
	p->steps = calloc((size_t)n_steps, sizeof *p->steps);
	if (!p->steps) {
		free(p);
		return TD_FAIL(TD_ENOMEM, "out of memory for %ld plan steps", n_steps);
	}
	p->n_steps = (int)n_steps;
	*out = p;
	return 0;
}

int td_plan_cyclic(td_plan **out, const char *const *axes, int n_axes, int n_layers,
		   const char *const *bidir, int n_bidir)
{
	int is_bidir[TD_PLAN_MAX_AXES] = {0};
	td_plan *p;
	int err;

	if (n_layers < 1)
		return *out = NULL, TD_FAIL(TD_EINVAL, "n_layers is %d; a plan needs at least 1 layer", n_layers);
	err = plan_alloc(&p, axes, n_axes, n_layers);
	if (err)
		return *out = NULL, err;
	for (int j = 0; j < n_bidir; j++) {
		int a = bidir && bidir[j] ? find_axis(p, bidir[j]) : -1;

		if (a < 0) {
			err = TD_FAIL(TD_EINVAL, "bidirectional axis '%s' is not one of the plan's %d axes",
				      bidir && bidir[j] ? bidir[j] : "(null)", n_axes);
			td_plan_free(p);
			return err;
		}
		is_bidir[a] = 1;
	}
	for (int i = 0; i < n_layers; i++) {
		int a = i % n_axes;

		p->steps[i].axis = a;
		p->steps[i].reverse = is_bidir[a] && (i / n_axes) % 2 == 1; /* flip once per cycle */
	}
	*out = p;
	return 0;
}

int td_plan_paired(td_plan **out, const char *const *axes, int n_axes, int repeats)
{
	td_plan *p;
	int err;

	if (repeats < 1)
		return *out = NULL, TD_FAIL(TD_EINVAL, "repeats is %d; it must be at least 1", repeats);
	err = plan_alloc(&p, axes, n_axes, 2L * n_axes * repeats);
	if (err)
		return err;
	for (int i = 0; i < p->n_steps; i++) {
		p->steps[i].axis = (i / 2) % n_axes;
		p->steps[i].reverse = i % 2;
	}
	*out = p;
	return 0;
}

void td_plan_free(td_plan *plan)
{
	if (!plan)
		return;
	free(plan->steps);
	free(plan);
}

int td_plan_n_steps(const td_plan *plan)
{
	return plan->n_steps;
}

td_plan_step td_plan_step_at(const td_plan *plan, int i)
{
	td_plan_step s = {NULL, 0};

	if (i >= 0 && i < plan->n_steps) {
		s.axis = plan->axes[plan->steps[i].axis];
		s.reverse = plan->steps[i].reverse;
	}
	return s;
}

int td_plan_check(const td_plan *plan, const td_lattice *lat)
{
	for (int i = 0; i < plan->n_axes; i++)
		if (td_lattice_axis(lat, plan->axes[i]) < 0)
			return TD_FAIL(TD_EINVAL, "the plan sweeps axis '%s', which the %d-axis lattice does not have",
				       plan->axes[i], td_lattice_rank(lat));
	return 0;
}

int td_plan_format(const td_plan *plan, char **out)
{
	size_t cap, len;
	int width = 4;
	char *s;

	for (int i = 0; i < plan->n_axes; i++)
		if ((int)strlen(plan->axes[i]) > width)
			width = (int)strlen(plan->axes[i]);
	/* a line at most: 4 digits, 2 spaces, the axis column, 2 spaces, "direction", '\n' */
	cap = ((size_t)plan->n_steps + 1) * ((size_t)width + 18) + 1;
	*out = NULL;
	s = malloc(cap);
	if (!s)
		return TD_FAIL(TD_ENOMEM, "out of memory formatting a %d-step plan", plan->n_steps);
	len = (size_t)snprintf(s, cap, "step  %-*s  direction\n", width, "axis");
	for (int i = 0; i < plan->n_steps; i++)
		len += (size_t)snprintf(s + len, cap - len, "%4d  %-*s  %s\n", i, width,
					plan->axes[plan->steps[i].axis],
					plan->steps[i].reverse ? "backward" : "forward");
	*out = s;
	return 0;
}
