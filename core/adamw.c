/*
 * adamw.c - AdamW with schedule, clipping and the NaN firewall (see adamw.h).
 *
 * Must never touch parameters or moments on a step whose gradient norm is
 * not finite, never skip without counting, never reduce in an order that
 * depends on anything but n, and never allocate in td_adamw_step.
 */
#include "adamw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

#define STATE_TAG "TDADAMW1"
#define STATE_HEADER 48 /* bytes before m: see td_adamw_state_size */
#define PI 3.14159265358979323846

struct td_adamw {
	td_adamw_opts o;
	size_t n;
	td_real *slab;	   /* [2n]: the moments, m then v */
	td_real *m, *v;	   /* [n] each, views into slab */
	int64_t s, t, skips; /* schedule steps, applied updates, firewall skips */
	td_adamw_stats last;
};

double td_adamw_lr(const td_adamw_opts *o, int64_t s)
{
	double p;

	if (s < o->warmup)
		return o->lr * (double)(s + 1) / (double)o->warmup;
	p = (double)(s - o->warmup) / (double)(o->total_steps - o->warmup);
	if (p > 1)
		p = 1;
	return o->lr_floor + (o->lr - o->lr_floor) * 0.5 * (1.0 + cos(PI * p));
}

static int check_opts(const td_adamw_opts *o)
{
	if (!(o->lr > 0) || !isfinite(o->lr))
		return TD_FAIL(TD_EINVAL, "lr %g must be finite and above 0", o->lr);
	if (!(o->lr_floor >= 0 && o->lr_floor <= o->lr))
		return TD_FAIL(TD_EINVAL, "lr_floor %g must lie in [0, lr = %g]", o->lr_floor, o->lr);
	if (o->total_steps < 1 || o->warmup < 0 || o->warmup >= o->total_steps)
		return TD_FAIL(TD_EINVAL, "warmup %lld must be >= 0 and below total_steps %lld (>= 1)",
			       (long long)o->warmup, (long long)o->total_steps);
	if (!(o->beta1 >= 0 && o->beta1 < 1) || !(o->beta2 >= 0 && o->beta2 < 1))
		return TD_FAIL(TD_EINVAL, "beta1 %g and beta2 %g must lie in [0, 1)", o->beta1,
			       o->beta2);
	if (!(o->eps > 0) || !isfinite(o->eps))
		return TD_FAIL(TD_EINVAL, "eps %g must be finite and above 0", o->eps);
	if (!(o->weight_decay >= 0) || !isfinite(o->weight_decay))
		return TD_FAIL(TD_EINVAL, "weight_decay %g must be finite and >= 0", o->weight_decay);
	if (!(o->clip >= 0) || !isfinite(o->clip))
		return TD_FAIL(TD_EINVAL, "clip %g must be finite and >= 0 (0: off)", o->clip);
	return 0;
}

int td_adamw_new(td_adamw **out, size_t n, const td_adamw_opts *opts)
{
	td_adamw *a;
	int err;

	*out = NULL;
	if (n == 0)
		return TD_FAIL(TD_EINVAL, "n is 0: an optimizer needs at least one parameter");
	if ((err = check_opts(opts)) != 0)
		return err;
	if (n > SIZE_MAX / (2 * sizeof(td_real)))
		return TD_FAIL(TD_ENOMEM, "%zu parameters: the moment slab size overflows", n);
	a = calloc(1, sizeof *a);
	if (!a || !(a->slab = calloc(2 * n, sizeof(td_real)))) {
		free(a);
		return TD_FAIL(TD_ENOMEM, "no memory for the moments of %zu parameters", n);
	}
	a->o = *opts;
	a->n = n;
	a->m = a->slab;
	a->v = a->slab + n;
	*out = a;
	return 0;
}

void td_adamw_free(td_adamw *a)
{
	if (!a)
		return;
	free(a->slab);
	free(a);
}

/* The global norm, summed in double in index order. */
static double grad_norm(const td_real *g, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (double)g[i] * (double)g[i];
	return sqrt(sum);
}

int td_adamw_count_skip(td_counters *c, int64_t s, size_t index, int is_nan, double norm)
{
	if (index != SIZE_MAX)
		return td_counter_addf(c, "nan_step_skipped", "gradient[%zu] was %s at step %lld",
				       index, is_nan ? "nan" : "inf", (long long)s + 1);
	return td_counter_addf(c, "nan_step_skipped",
			       "gradient norm overflowed to %g at step %lld (every element finite)",
			       norm, (long long)s + 1);
}

/* Counts a skipped step with its reason: the first non-finite element, or the overflow. */
static int count_skip(td_adamw *a, const td_real *g, td_counters *c)
{
	size_t i = 0;

	a->skips++;
	if (!c)
		return 0;
	while (i < a->n && isfinite(g[i]))
		i++;
	return td_adamw_count_skip(c, a->s, i < a->n ? i : SIZE_MAX, i < a->n && isnan(g[i]),
				   a->last.grad_norm);
}

/* The update of applied step t at rate lr, gradients scaled by scale. */
static void update(td_adamw *a, td_real *p, const td_real *g, double lr, double scale)
{
	const double b1 = a->o.beta1, b2 = a->o.beta2;
	const double bc1 = 1.0 - pow(b1, (double)a->t), bc2 = 1.0 - pow(b2, (double)a->t);
	const double decay = 1.0 - lr * a->o.weight_decay;

	for (size_t i = 0; i < a->n; i++) {
		double gi = scale * (double)g[i];
		double m = b1 * (double)a->m[i] + (1.0 - b1) * gi;
		double v = b2 * (double)a->v[i] + (1.0 - b2) * gi * gi;
		double step = lr * (m / bc1) / (sqrt(v / bc2) + a->o.eps);

		a->m[i] = (td_real)m;
		a->v[i] = (td_real)v;
		p[i] = (td_real)((double)p[i] * decay - step);
	}
}

int td_adamw_step(td_adamw *a, td_real *params, const td_real *grads, td_counters *counters)
{
	double norm = grad_norm(grads, a->n), scale = 1.0;
	int err;

	a->last.step = a->s;
	a->last.lr = td_adamw_lr(&a->o, a->s);
	a->last.grad_norm = norm;
	a->last.scale = 1.0;
	a->last.applied = 0;
	if (!isfinite(norm)) {
		err = count_skip(a, grads, counters);
		a->s++;
		return err ? err : 0;
	}
	if (a->o.clip > 0 && norm > a->o.clip)
		scale = a->o.clip / norm;
	a->t++;
	update(a, params, grads, a->last.lr, scale);
	a->s++;
	a->last.scale = scale;
	a->last.applied = 1;
	return 1;
}

int td_adamw_set_state(td_adamw *a, int64_t s, int64_t t, int64_t skips, const td_real *m,
		       const td_real *v)
{
	if (t < 0 || skips < 0 || t + skips != s)
		return TD_FAIL(TD_EINVAL, "an AdamW state of %lld steps, %lld updates and %lld skips "
					  "does not add up",
			       (long long)s, (long long)t, (long long)skips);
	a->s = s, a->t = t, a->skips = skips;
	memcpy(a->m, m, a->n * sizeof *m);
	memcpy(a->v, v, a->n * sizeof *v);
	return 0;
}

const td_adamw_stats *td_adamw_last(const td_adamw *a)
{
	return &a->last;
}

size_t td_adamw_n(const td_adamw *a)
{
	return a->n;
}

int64_t td_adamw_steps(const td_adamw *a)
{
	return a->s;
}

int64_t td_adamw_updates(const td_adamw *a)
{
	return a->t;
}

int64_t td_adamw_skipped(const td_adamw *a)
{
	return a->skips;
}

const td_real *td_adamw_m(const td_adamw *a)
{
	return a->m;
}

const td_real *td_adamw_v(const td_adamw *a)
{
	return a->v;
}

size_t td_adamw_state_size(const td_adamw *a)
{
	return STATE_HEADER + 2 * a->n * sizeof(td_real);
}

/* Little-endian integers and reals, whatever the host order. */
static void put_u64(unsigned char *p, uint64_t x)
{
	for (int k = 0; k < 8; k++)
		p[k] = (unsigned char)(x >> (8 * k));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t x = 0;

	for (int k = 0; k < 8; k++)
		x |= (uint64_t)p[k] << (8 * k);
	return x;
}

static void put_reals(unsigned char *p, const td_real *x, size_t n)
{
	for (size_t i = 0; i < n; i++, p += sizeof(td_real)) {
		uint64_t bits = 0;

		memcpy(&bits, &x[i], sizeof(td_real)); /* low bytes on a little-endian host */
		for (size_t k = 0; k < sizeof(td_real); k++)
			p[k] = (unsigned char)(bits >> (8 * k));
	}
}

static void get_reals(td_real *x, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++, p += sizeof(td_real)) {
		uint64_t bits = 0;

		for (size_t k = 0; k < sizeof(td_real); k++)
			bits |= (uint64_t)p[k] << (8 * k);
		memcpy(&x[i], &bits, sizeof(td_real));
	}
}

int td_adamw_export(const td_adamw *a, void *buf, size_t len)
{
	unsigned char *p = buf;

	if (len < td_adamw_state_size(a))
		return TD_FAIL(TD_EINVAL, "buffer of %zu bytes is too small for the state (%zu)", len,
			       td_adamw_state_size(a));
	memcpy(p, STATE_TAG, 8);
	put_u64(p + 8, (uint64_t)sizeof(td_real));
	put_u64(p + 16, (uint64_t)a->n);
	put_u64(p + 24, (uint64_t)a->s);
	put_u64(p + 32, (uint64_t)a->t);
	put_u64(p + 40, (uint64_t)a->skips);
	put_reals(p + STATE_HEADER, a->m, a->n);
	put_reals(p + STATE_HEADER + a->n * sizeof(td_real), a->v, a->n);
	return 0;
}

int td_adamw_import(td_adamw *a, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t real = 0, n = 0;

	if (len < STATE_HEADER || memcmp(p, STATE_TAG, 8) != 0)
		return TD_FAIL(TD_EINVAL, "not an AdamW state (no %s tag in %zu bytes)", STATE_TAG, len);
	real = get_u64(p + 8), n = get_u64(p + 16);
	if (real != sizeof(td_real))
		return TD_FAIL(TD_EINVAL, "the state holds %llu-byte reals; this build uses %zu (%s)",
			       (unsigned long long)real, sizeof(td_real), TD_REAL_NAME);
	if (n != a->n)
		return TD_FAIL(TD_EINVAL, "the state is for %llu parameters; this optimizer has %zu",
			       (unsigned long long)n, a->n);
	if (len != td_adamw_state_size(a))
		return TD_FAIL(TD_EINVAL, "the state is %zu bytes; %zu parameters need %zu", len, a->n,
			       td_adamw_state_size(a));
	a->s = (int64_t)get_u64(p + 24);
	a->t = (int64_t)get_u64(p + 32);
	a->skips = (int64_t)get_u64(p + 40);
	get_reals(a->m, p + STATE_HEADER, a->n);
	get_reals(a->v, p + STATE_HEADER + a->n * sizeof(td_real), a->n);
	return 0;
}
