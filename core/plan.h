/*
 * plan.h - scan plans: the order in which a model sweeps a lattice's axes.
 *
 * A plan is an immutable list of steps, each an axis name and a direction.
 * One step is one layer of an axial model. The plan copies the names it is
 * given, and steps are handed out by value, so a plan cannot be edited after
 * it is built (a model pairs step i with mixer i for its whole life).
 */
#ifndef TD_PLAN_H
#define TD_PLAN_H

#include "lattice.h"

#define TD_PLAN_MAX_AXES TD_LATTICE_MAX_RANK
#define TD_PLAN_MAX_STEPS 4096

typedef struct td_plan td_plan;

typedef struct {
	const char *axis; /* borrowed from the plan: valid until td_plan_free */
	int reverse;      /* 0: sweep from index 0 upward; 1: from the end down */
} td_plan_step;

/*
 * n_layers steps cycling through axes: step i sweeps axes[i % n_axes]. An
 * axis listed in bidir flips direction once per full cycle, that is step i
 * runs reversed when (i / n_axes) is odd. The flip is per cycle, not per
 * layer: with a per-layer flip and an even number of axes the two periods
 * lock and each axis is swept one way only, at any depth. Axes not in bidir
 * always run forward. Refused: n_axes outside 1..TD_PLAN_MAX_AXES, n_layers
 * outside 1..TD_PLAN_MAX_STEPS, an empty or repeated axis name, a bidir axis
 * that is not one of axes. bidir may be NULL when n_bidir is 0.
 * Caller frees *out with td_plan_free.
 */
int td_plan_cyclic(td_plan **out, const char *const *axes, int n_axes, int n_layers,
		   const char *const *bidir, int n_bidir);

/*
 * Each axis forward then backward, in the order given, repeated `repeats`
 * times: 2 * n_axes * repeats steps. Same refusals as td_plan_cyclic.
 */
int td_plan_paired(td_plan **out, const char *const *axes, int n_axes, int repeats);

/* Frees plan; accepts NULL. */
void td_plan_free(td_plan *plan);

int td_plan_n_steps(const td_plan *plan);

/* Step i by value; {NULL, 0} when i is out of range. */
td_plan_step td_plan_step_at(const td_plan *plan, int i);

/*
 * Checks that every axis the plan sweeps exists on lat; TD_EINVAL naming the
 * first one that does not.
 */
int td_plan_check(const td_plan *plan, const td_lattice *lat);

/*
 * The plan as a table, one line per step after a header:
 *     step  axis  direction
 *        0  h     forward
 * Caller frees *out with free().
 */
int td_plan_format(const td_plan *plan, char **out);

#endif
