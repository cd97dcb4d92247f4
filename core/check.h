/*
 * check.h - the conformance suite, as a library: what any model family
 * built on the core must satisfy, runnable by tests and by audits.
 *
 * td_check_block runs, at exactly the ranks, densities, time variants and
 * width the caller asked for (never another: a check that cannot run on
 * what was asked is reported as a skip with its reason), these checks on
 * models the caller's factory builds:
 *   shape       the output is [batch][cell][width] and nothing is written
 *               past it; every present cell written, every absent cell 0
 *   absent      perturbing absent cells (inputs and output gradients) with
 *               NaN, +inf, -inf and 1e30 leaves every output, every input
 *               gradient and every parameter gradient bitwise unchanged,
 *               and the gradient at absent inputs is exactly zero
 *   covariance  the same model (same seed) over the same data laid out in
 *               the reverse axis order gives the correspondingly permuted
 *               output, bitwise
 *   gradient    the backward agrees with central finite differences for
 *               every input and parameter (double build only; a float build
 *               reports a skip saying so)
 *   rank1       layer 0's block on a rank-1 lattice equals its bare 1-D
 *               mixer, bitwise: its output, and its input gradient
 * Each result is ok, FAIL or skip with a reason; a skip is never a pass.
 *
 * td_check_trainable trains a model on a synthetic task (the target at
 * each cell is the running sum of the input along axis w, on a 4 x 4
 * lattice of axes h, w) with a fresh batch every step, scores it on a
 * held-out batch, does the same for a negative control (a model that never
 * sweeps w, which cannot learn the task) and passes only when the model
 * learns and the control does not.
 *
 * Must never: run a configuration the caller did not ask for, substitute
 * its own width, count a skip as a pass, or train and score on one batch.
 */
#ifndef TD_CHECK_H
#define TD_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lattice.h"
#include "model.h"

typedef enum { TD_CHECK_OK = 0, TD_CHECK_FAIL = 1, TD_CHECK_SKIP = 2 } td_check_status;

typedef struct {
	char check[16];		/* "shape", "absent", "covariance", "gradient", "rank1", "trainable" */
	char where[64];		/* the configuration: "rank 2, sparse, time axis" */
	td_check_status status;
	char why[256];		/* FAIL and skip: what and why; ok: figures or empty */
} td_check_result;

typedef struct {
	td_check_result *v; /* n results, in the order they ran */
	size_t n, cap;
	int n_ok, n_fail, n_skip;
} td_check_report;

#define TD_CHECK_REPORT_INIT                                                                       \
	{                                                                                          \
		0                                                                                  \
	}

/* Frees what r holds and resets it to empty; accepts NULL. */
void td_check_report_free(td_check_report *r);

/*
 * The report as text, one line per result: "[ok  ] check  where  why".
 * Caller frees *out with free().
 */
int td_check_report_format(const td_check_report *r, char **out);

/* The first result of check at where ("" matches any), or NULL. Borrowed from r. */
const td_check_result *td_check_find(const td_check_report *r, const char *check,
				     const char *where);

/* What a factory must build a model for. */
typedef struct {
	const td_lattice *lat; /* borrowed for the model's life */
	size_t in, width, out; /* channels: td_check_block asks in = width = out */
	size_t max_batch;
} td_check_shape;

/*
 * Builds a model for shape (the check initialises it with td_model_init
 * and frees it with td_model_free). A factory that fails is reported as a
 * FAIL of the check that needed it, with the factory's message.
 */
typedef int (*td_check_factory)(td_model **out, const td_check_shape *shape, void *ctx);

enum { TD_CHECK_DENSE = 1, TD_CHECK_SPARSE = 2 };  /* densities, a bit set */
enum { TD_CHECK_NO_TIME = 1, TD_CHECK_TIME = 2 }; /* time variants, a bit set */

#define TD_CHECK_MAX_RANK 3

typedef struct {
	const int *ranks; /* n_ranks ranks, each 1..TD_CHECK_MAX_RANK: exactly these run */
	int n_ranks;
	size_t width;	  /* exactly this width, >= 1 */
	int densities;	  /* TD_CHECK_DENSE | TD_CHECK_SPARSE, at least one */
	int times;	  /* TD_CHECK_NO_TIME | TD_CHECK_TIME, at least one */
	size_t batch;	  /* examples per forward, >= 1 */
	uint64_t seed;	  /* weights and data */
} td_check_opts;

#define TD_CHECK_OPTS_INIT                                                                         \
	{                                                                                          \
		.width = 8, .densities = TD_CHECK_DENSE | TD_CHECK_SPARSE,                         \
		.times = TD_CHECK_NO_TIME | TD_CHECK_TIME, .batch = 2, .seed = 1                   \
	}

/*
 * Runs the checks over every requested (rank, density, time variant) and
 * appends one result per check and configuration to *report (the caller
 * frees it with td_check_report_free). Returns 0 when the checks ran,
 * whatever they found; TD_EINVAL for options that ask for nothing or for a
 * rank outside 1..TD_CHECK_MAX_RANK, TD_ENOMEM when memory runs out.
 *
 * Lattices: rank 1 is 5 cells, rank 2 is 3 x 4, rank 3 is 2 x 3 x 2;
 * without a time axis the axes are (w), (h, w), (d, h, w); with one, the
 * first axis is time "t": (t), (t, w), (t, h, w). Sparse lattices have
 * about a third of their cells absent, always at least one.
 */
int td_check_block(td_check_report *report, td_check_factory factory, void *ctx,
		   const td_check_opts *opts);

/* The trainability check's options. */
typedef struct {
	int steps;    /* training steps, each on a fresh batch, >= 1 */
	size_t batch; /* examples per step and in the held-out batch, >= 1 */
	size_t width; /* the models' width, >= 1 */
	double lr;    /* Adam's learning rate, > 0 */
	double pass;  /* a model learned the task when its held-out normalised error < pass */
	uint64_t seed;
} td_trainable_opts;

#define TD_TRAINABLE_OPTS_INIT                                                                     \
	{                                                                                          \
		.steps = 300, .batch = 16, .width = 8, .lr = 0.01, .pass = 0.25, .seed = 1         \
	}

/* Held-out mean squared error divided by the mean squared target. */
typedef struct {
	double model, control;
} td_trainable_scores;

/*
 * Trains model and control (each built by its factory with in = out = 1)
 * on the task and appends two results to *report: "trainable" at "model"
 * (ok when its held-out score is below pass) and at "control" (ok when the
 * control's is NOT: a control that learns means the check cannot tell, so
 * the whole check fails). scores may be NULL. Returns 0 when the check ran;
 * TD_EINVAL for bad options.
 */
int td_check_trainable(td_check_report *report, td_trainable_scores *scores,
		       td_check_factory model, void *model_ctx, td_check_factory control,
		       void *control_ctx, const td_trainable_opts *opts);

/* The task's lattice: 4 x 4, axes (h, w), dense. Caller frees with td_lattice_free. */
int td_check_task_lattice(td_lattice **out);

/*
 * Batch `index` of the task: x [batch][16][1] uniform in (-1, 1) and
 * y [batch][16][1] with y[h][w] = sum over w' <= w of x[h][w']. A pure
 * function of (seed, index).
 */
void td_check_task_batch(td_real *x, td_real *y, size_t batch, uint64_t seed, uint64_t index);

/* The batch index training step `step` draws: a new one each step, never the held-out one. */
uint64_t td_check_train_index(int step);

#define TD_CHECK_HELDOUT_INDEX 0

#endif
