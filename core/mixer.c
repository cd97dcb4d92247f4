/*
 * mixer.c - the mixer object: option checks, parameter slabs, seeded
 * initialisation, and the argument checks in front of every kind's forward
 * and backward (see mixer.h; the kinds are in mixer_*.c).
 *
 * Must never: allocate after td_mixer_new (a training step allocates
 * nothing), or let an initial value depend on anything but (seed, stream,
 * element index) - not on construction order, not on other mixers.
 */
#include "mixer.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "gemm.h"
#include "mixer_int.h"
#include "rng.h"

void td_mixer_shift_prev(td_real *prev, const td_real *x, size_t lines, size_t length,
			 size_t width, int reverse)
{
	for (size_t l = 0; l < lines; l++)
		for (size_t s = 0; s < length; s++) {
			size_t t = reverse ? length - 1 - s : s, before = reverse ? t + 1 : t - 1;
			td_real *dst = prev + (l * length + t) * width;

			if (s == 0)
				memset(dst, 0, width * sizeof *dst);
			else
				memcpy(dst, x + (l * length + before) * width, width * sizeof *dst);
		}
}

size_t td_mixer_blocks(size_t lines, size_t length)
{
	const size_t bl = length >= 1024 / 32 ? 32 : 1024 / length;
	size_t n = (lines + bl - 1) / bl;

	n += n % 2;
	return n < lines ? n : lines;
}

void td_mixer_block(size_t lines, size_t n, size_t b, size_t *l0, size_t *l1)
{
	*l0 = b * lines / n;
	*l1 = (b + 1) * lines / n;
}

size_t td_mixer_slot_rows(size_t lines, size_t length)
{
	size_t n = td_mixer_blocks(lines, length);

	return (lines / n + (lines % n != 0)) * length; /* at most lines * length: no wrap */
}

int td_mixer_block_weights(const td_mixer *m, td_real *part, size_t tw, size_t tu,
			   const td_real *gx, const td_real *gh, size_t ld, const td_real *x,
			   const td_real *hp, size_t rows, size_t length)
{
	const size_t g = m->tensor[tw].rows, h = m->o.channels;
	td_gemm_opts put = TD_GEMM_OPTS_INIT;
	int err;

	put.trans_a = 1;
	if ((err = td_gemm(part + m->tensor[tw].offset, h, gx, ld, x, h, g, h, rows, &put)))
		return err;
	return length > 1 ? td_gemm(part + m->tensor[tu].offset, h, gh, ld, hp, h, g, h, rows, &put)
			  : 0;
}

/* grads[e] += the sum of parts[b * stride + e] over b < n, in b order, for from <= e < to. */
static void add_range(td_real *grads, td_real *parts, size_t n, size_t stride, size_t from,
		      size_t to)
{
	for (size_t b = 1; b < n; b++)
		for (size_t e = from; e < to; e++)
			parts[e] += parts[b * stride + e];
	for (size_t e = from; e < to; e++)
		grads[e] += parts[e];
}

void td_mixer_add_parts(td_mixer *m, td_real *parts, size_t n, size_t tu, size_t length)
{
	const size_t u0 = m->tensor[tu].offset, u1 = u0 + m->tensor[tu].count;

	add_range(m->grads, parts, n, m->n_params, 0, length > 1 ? u1 : u0);
	add_range(m->grads, parts, n, m->n_params, u1, m->n_params);
}

enum { SPAN = 8 }; /* out's elements one pass over t sums, in separate accumulators */

/*
 * SPAN values of s at a time, each its own chain of adds (with one chain,
 * each add waiting on the last, the LRU's dB and dC took 0.18 ms of a
 * kernel LRU step of 9.6; 0.14 ms so; its M 0.08 ms either way).
 */
void td_mixer_products(td_real *out, size_t ors, size_t oss, td_mixer_strided p,
		       td_mixer_strided q, size_t nr, size_t ns, size_t nt, const td_real *diag,
		       int mode)
{
	for (size_t r = 0; r < nr; r++)
		for (size_t s0 = 0; s0 < ns; s0 += SPAN) {
			const size_t span = ns - s0 < SPAN ? ns - s0 : SPAN;
			double acc[SPAN];

			for (size_t u = 0; u < span; u++)
				acc[u] = diag && r == s0 + u ? (double)diag[r] : 0;
			for (size_t t = 0; t < nt; t++) {
				const double pv = (double)p.v[r * p.rs + t * p.ts];

				for (size_t u = 0; u < span; u++)
					acc[u] += pv * (double)q.v[(s0 + u) * q.rs + t * q.ts];
			}
			for (size_t u = 0; u < span; u++) {
				td_real *o = out + r * ors + (s0 + u) * oss;

				*o = mode > 0	? *o + (td_real)acc[u]
				     : mode < 0 ? *o - (td_real)acc[u]
						: (td_real)acc[u];
			}
		}
}

int td_mixer_map_forward(const td_mixer *m, td_real *y, const td_real *x, td_real *xs,
			 const td_real *mm, size_t p)
{
	const size_t c = m->o.channels;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;

	memcpy(xs, x, p * c * sizeof *x);
	o.threads = m->o.threads;
	return td_gemm(y, c, x, c, mm, c, p, c, c, &o);
}

int td_mixer_map_backward(const td_mixer *m, td_real *dx, td_real *dm, const td_real *dy,
			  const td_real *xs, const td_real *mm, size_t p)
{
	const size_t c = m->o.channels;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	o.threads = m->o.threads, o.trans_a = 1;
	if ((err = td_gemm(dm, c, xs, c, dy, c, c, c, p, &o)))
		return err;
	o.trans_a = 0, o.trans_b = 1;
	return td_gemm(dx, c, dy, c, mm, c, p, c, c, &o);
}

int td_mixer_size_muladd(size_t *out, size_t x, size_t y, size_t z, const char *what)
{
	if (y != 0 && x > (SIZE_MAX - z) / y)
		return TD_FAIL(TD_ENOMEM, "%s overflows: %zu x %zu + %zu", what, x, y, z);
	*out = x * y + z;
	return 0;
}

int td_mixer_add_tensor(td_mixer *m, const char *name, size_t rows, size_t cols, td_init_rule rule)
{
	td_mixer_tensor *t = &m->tensor[m->n_tensors];
	size_t count = 0, end = 0;
	int err;

	assert(m->n_tensors < TD_MIXER_MAX_TENSORS);
	err = td_mixer_size_muladd(&count, rows, cols, 0, name);
	if (!err)
		err = td_mixer_size_muladd(&end, 1, count, m->n_params, "the parameter count");
	if (err)
		return err;
	*t = (td_mixer_tensor){name, m->n_params, count, rows, cols};
	m->init[m->n_tensors++] = rule;
	m->n_params = end;
	return 0;
}

td_real *td_mixer_slab_at(const td_mixer *m, td_real *slab, size_t i)
{
	return slab + m->tensor[i].offset;
}

static const td_mixer_ops *ops_for(td_mixer_kind kind)
{
	switch (kind) {
	case TD_MIXER_LRU:
		return &td_mixer_lru_ops;
	case TD_MIXER_CONV:
		return &td_mixer_conv_ops;
	case TD_MIXER_GRU:
		return &td_mixer_gru_ops;
	case TD_MIXER_ATTENTION:
		return &td_mixer_attention_ops;
	case TD_MIXER_LSTM:
		return &td_mixer_lstm_ops;
	case TD_MIXER_CLRU:
		return &td_mixer_clru_ops;
	}
	return NULL;
}

/* Checks the options every kind shares. */
static int check_common(const td_mixer_opts *o)
{
	if (!ops_for(o->kind))
		return TD_FAIL(
		    TD_EINVAL,
		    "kind %d is not a mixer kind; use TD_MIXER_LRU, _CLRU, _CONV, _GRU, _LSTM "
		    "or _ATTENTION",
		    (int)o->kind);
	if (o->channels == 0)
		return TD_FAIL(TD_EINVAL, "channels is 0; a mixer needs at least 1 channel");
	if (o->threads < 1)
		return TD_FAIL(TD_EINVAL, "threads is %d; pass at least 1", o->threads);
	return 0;
}

int td_mixer_new(td_mixer **out, const td_mixer_opts *opts)
{
	td_mixer *m = NULL;
	int err;

	*out = NULL;
	if (!opts)
		return TD_FAIL(TD_EINVAL, "opts is NULL; start from TD_MIXER_OPTS_INIT");
	if ((err = check_common(opts)) != 0)
		return err;
	if (!(m = calloc(1, sizeof *m)))
		return TD_FAIL(TD_ENOMEM, "out of memory for a mixer");
	m->o = *opts;
	m->ops = ops_for(opts->kind);
	if ((err = m->ops->setup(m)) != 0)
		goto done;
	m->params = calloc(m->n_params, sizeof *m->params);
	m->grads = calloc(m->n_params, sizeof *m->grads);
	if (!m->params || !m->grads)
		err = TD_FAIL(TD_ENOMEM, "out of memory for %zu parameters", m->n_params);
done:
	if (err)
		td_mixer_free(m);
	else
		*out = m;
	return err;
}

void td_mixer_free(td_mixer *m)
{
	if (!m)
		return;
	if (!m->borrowed) {
		free(m->grads);
		free(m->params);
	}
	free(m);
}

const td_mixer_opts *td_mixer_options(const td_mixer *m)
{
	return &m->o;
}

const char *td_mixer_kind_name(const td_mixer *m)
{
	return m->ops->name;
}

size_t td_mixer_n_params(const td_mixer *m)
{
	return m->n_params;
}

size_t td_mixer_n_tensors(const td_mixer *m)
{
	return m->n_tensors;
}

const td_mixer_tensor *td_mixer_tensor_at(const td_mixer *m, size_t i)
{
	return i < m->n_tensors ? &m->tensor[i] : NULL;
}

td_real *td_mixer_params(td_mixer *m)
{
	return m->params;
}

td_real *td_mixer_grads(td_mixer *m)
{
	return m->grads;
}

int td_mixer_use_slabs(td_mixer *m, td_real *params, td_real *grads)
{
	if (!params || !grads)
		return TD_FAIL(TD_EINVAL, "%s slab is NULL", !params ? "the parameter" : "the gradient");
	memcpy(params, m->params, m->n_params * sizeof *params);
	memcpy(grads, m->grads, m->n_params * sizeof *grads);
	if (!m->borrowed) {
		free(m->params);
		free(m->grads);
	}
	m->params = params, m->grads = grads, m->borrowed = 1;
	return 0;
}

void td_mixer_zero_grads(td_mixer *m)
{
	memset(m->grads, 0, m->n_params * sizeof *m->grads);
}

void td_mixer_init(td_mixer *m, uint64_t seed, uint64_t stream)
{
	for (size_t i = 0; i < m->n_tensors; i++) {
		const td_init_rule *r = &m->init[i];
		td_real *v = td_mixer_slab_at(m, m->params, i);
		size_t n = m->tensor[i].count;

		if (r->dist == TD_INIT_NORMAL)
			td_rng_fill_normal(seed, stream + i, 0, n, r->a, r->b, v);
		else if (r->dist == TD_INIT_UNIFORM)
			td_rng_fill_uniform(seed, stream + i, 0, n, r->a, r->b, v);
		else
			memset(v, 0, n * sizeof *v);
	}
}

int td_mixer_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t positions = 0, values = 0;
	int err;

	*out = 0;
	if (lines == 0 || length == 0)
		return TD_FAIL(TD_EINVAL, "lines %zu x length %zu is empty; both must be >= 1",
			       lines, length);
	if ((err = td_mixer_size_muladd(&positions, lines, length, 0, "lines x length")) != 0)
		return err;
	if ((err = td_mixer_size_muladd(&values, positions, m->o.channels, 0, "the buffer")) != 0)
		return err;
	return m->ops->ws_size(out, m, lines, length);
}

/* The checks forward and backward share. */
static int check_call(const td_mixer *m, const void *out, const void *in, size_t lines,
		      size_t length, const td_real *ws, size_t ws_len)
{
	size_t need;
	int err = td_mixer_ws_size(&need, m, lines, length);

	if (err)
		return err;
	if (!out || !in || !ws)
		return TD_FAIL(TD_EINVAL, "%s is NULL",
			       !out  ? "the output"
			       : !in ? "the input"
				     : "ws");
	if (ws_len < need)
		return TD_FAIL(TD_EINVAL,
			       "ws_len %zu is too small: %s needs %zu values for %zu lines x %zu; "
			       "size it with td_mixer_ws_size",
			       ws_len, m->ops->name, need, lines, length);
	return 0;
}

int td_mixer_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
		     td_real *ws, size_t ws_len)
{
	int err = check_call(m, y, x, lines, length, ws, ws_len);

	return err ? err : m->ops->forward(m, y, x, lines, length, ws);
}

int td_mixer_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
		      td_real *ws, size_t ws_len)
{
	int err = check_call(m, dx, dy, lines, length, ws, ws_len);

	return err ? err : m->ops->backward(m, dx, dy, lines, length, ws);
}
