/*
 * adamw.h - AdamW with a warm-up/cosine schedule, global-norm clipping and
 * a NaN firewall, over one parameter slab and one gradient slab.
 *
 * One call of td_adamw_step is one optimizer step at schedule step s (the
 * number of earlier calls, skipped ones included) and, when applied, the
 * t-th update (t = applied updates so far, this one included):
 *
 *   norm  = sqrt(sum_i g[i]^2)        in double, i = 0, 1, ..., n-1 in order
 *   scale = clip / norm when clip > 0 and norm > clip, else 1
 *   g'    = scale * g
 *   m     = beta1 * m + (1 - beta1) * g'
 *   v     = beta2 * v + (1 - beta2) * g'^2
 *   p     = p * (1 - lr(s) * weight_decay)                 (decoupled decay)
 *         - lr(s) * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
 *
 * each element computed in double from the td_real values and rounded
 * once to td_real. The same inputs give bitwise the same outputs.
 *
 * The firewall: when the norm is not finite (a NaN or inf gradient, or
 * squares that overflow), the step is skipped: parameters, moments and t
 * are left bitwise untouched, s still advances, the skip is counted in the
 * optimizer and, when a td_counters is given, as "nan_step_skipped" with its
 * reason (which element, which value, which step).
 *
 * Memory: the moments m and v live in one slab of 2n td_real values
 * allocated by td_adamw_new; a step allocates nothing. The optimizer does
 * not hold the parameter or gradient slabs: they are passed to each step.
 *
 * Checkpoints: td_adamw_export writes the state (s, t, skips, m, v) to a
 * byte buffer and td_adamw_import reads it back; a run resumed from it
 * continues bitwise as the uninterrupted run would have.
 */
#ifndef TD_ADAMW_H
#define TD_ADAMW_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "real.h"

typedef struct {
	double lr;	     /* peak learning rate, reached at the end of warm-up, > 0 */
	double lr_floor;     /* the rate the cosine decays to, in [0, lr] */
	int64_t warmup;	     /* steps of linear warm-up, >= 0 and below total_steps */
	int64_t total_steps; /* schedule length, >= 1: the cosine reaches lr_floor here */
	double beta1, beta2; /* moment decays, in [0, 1) */
	double eps;	     /* denominator epsilon, > 0 */
	double weight_decay; /* decoupled decay, >= 0 */
	double clip;	     /* global gradient-norm limit; 0 turns clipping off */
} td_adamw_opts;

#define TD_ADAMW_OPTS_INIT                                                                         \
	{                                                                                          \
		.lr = 1e-3, .total_steps = 1000, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8,        \
		.weight_decay = 0.01, .clip = 1.0                                                  \
	}

/* What the last step saw (for the step log). Plain data. */
typedef struct {
	int64_t step;	  /* its schedule step s (0-based) */
	double lr;	  /* lr(s) */
	double grad_norm; /* the norm before clipping (may be NaN or inf) */
	double scale;	  /* the clip scale applied, 1 when not clipped */
	int applied;	  /* 1: applied; 0: skipped by the firewall */
} td_adamw_stats;

typedef struct td_adamw td_adamw;

/*
 * The learning rate at schedule step s (0-based): for s < warmup,
 * lr * (s + 1) / warmup; after, lr_floor + (lr - lr_floor) *
 * (1 + cos(pi * p)) / 2 with p = (s - warmup) / (total_steps - warmup),
 * clamped to [0, 1]. So lr(warmup) = lr and lr(total_steps) = lr_floor.
 */
double td_adamw_lr(const td_adamw_opts *o, int64_t s);

/*
 * An optimizer for n parameters with zero moments at s = t = 0. Copies
 * opts. Refused with TD_EINVAL naming the option: n 0, and any option
 * outside the ranges above. The caller frees *out with td_adamw_free.
 */
int td_adamw_new(td_adamw **out, size_t n, const td_adamw_opts *opts);

/* Frees a; accepts NULL. */
void td_adamw_free(td_adamw *a);

/*
 * One step over params and grads (n values each, not overlapping). Returns
 * 1 when the step was applied, 0 when the firewall skipped it (counted in
 * counters, which may be NULL), or a negative TD_E* code when the skip
 * could not be counted (counters full).
 */
int td_adamw_step(td_adamw *a, td_real *params, const td_real *grads, td_counters *counters);

/*
 * Counts the skip of schedule step s (0-based) in c as td_adamw_step does,
 * "nan_step_skipped" with its reason: gradient[index] was nan (is_nan) or
 * inf, or with index SIZE_MAX, the norm overflowed to norm with every
 * element finite. For an optimizer whose steps run elsewhere (the GPU's)
 * and are counted here. TD_ESTATE when counters is full.
 */
int td_adamw_count_skip(td_counters *c, int64_t s, size_t index, int is_nan, double norm);

/*
 * Replaces a's state with steps s, updates t, skips and the moments m and
 * v (n values each), for an optimizer whose steps ran elsewhere (the
 * GPU's). Refused with TD_EINVAL, leaving a unchanged: a negative count,
 * or t + skips != s.
 */
int td_adamw_set_state(td_adamw *a, int64_t s, int64_t t, int64_t skips, const td_real *m,
		       const td_real *v);

/* The last step's figures; all zero before the first step. Borrowed. */
const td_adamw_stats *td_adamw_last(const td_adamw *a);

size_t td_adamw_n(const td_adamw *a);
int64_t td_adamw_steps(const td_adamw *a);   /* s: steps taken, skipped ones included */
int64_t td_adamw_updates(const td_adamw *a); /* t: steps applied */
int64_t td_adamw_skipped(const td_adamw *a); /* steps the firewall skipped */

/* The moments, n values each. Borrowed: valid until td_adamw_free(a). */
const td_real *td_adamw_m(const td_adamw *a);
const td_real *td_adamw_v(const td_adamw *a);

/*
 * The bytes td_adamw_export writes: a 48-byte header (the tag "TDADAMW1",
 * u64 sizeof(td_real), u64 n, i64 s, i64 t, i64 skips; integers
 * little-endian) then m[n] and v[n] as td_real in little-endian byte order.
 */
size_t td_adamw_state_size(const td_adamw *a);

/* Writes the state into buf (td_adamw_state_size(a) bytes). TD_EINVAL when len is too small. */
int td_adamw_export(const td_adamw *a, void *buf, size_t len);

/*
 * Replaces a's state (s, t, skips, m, v) with the one in buf. Refused with
 * TD_EINVAL, leaving a unchanged: a wrong tag, another td_real size, or
 * another n (both values named), or a length that disagrees with n.
 */
int td_adamw_import(td_adamw *a, const void *buf, size_t len);

#endif
