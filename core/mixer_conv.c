/*
 * mixer_conv.c - the causal depthwise convolution.
 *
 *   y_t[c] = bias[c] + sum_{j < K} w[j][c] * x_{t - j*d}[c]
 *
 * with K = kernel_size, d = dilation, and x before the start of the line
 * taken as zero. With reverse, t - j*d becomes t + j*d and "before the
 * start" becomes "after the end". Each channel has its own taps; channels
 * never mix. The weights are stored tap-major ([K][C]) so the inner loops
 * run across channels.
 *
 * Workspace: x [lines * length][C], a copy of the input (saved by forward),
 * then backward's scratch: the sums [K + 1][C], dw's K rows and dbias. A
 * gradient is summed whole there and added to the slab once, so a
 * backward adds exactly this call's gradient.
 *
 * Threads (td_pool_ranges) take ranges of lines for y and dx, whose sums
 * stay within a line, and ranges of the sums' rows for the weight and
 * bias gradients, whose sums run over every line in (line, position)
 * order: each sum is in the same order whichever thread runs it.
 *
 * Must never: read outside the line (a tap that falls off either end adds
 * nothing), or sum in an order that depends on anything but the sizes.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "mixer_int.h"
#include "pool.h"
#include "vec8.h"

enum { T_W, T_BIAS };

static int conv_setup(td_mixer *m)
{
	size_t c = m->o.channels, k = m->o.kernel_size, d = m->o.dilation;
	int err;

	if (k == 0)
		return TD_FAIL(TD_EINVAL, "kernel_size is 0; a convolution needs at least 1 tap");
	if (d == 0)
		return TD_FAIL(TD_EINVAL, "dilation is 0; use 1 for adjacent taps");
	if (d > SIZE_MAX / k)
		return TD_FAIL(TD_EINVAL, "kernel_size %zu x dilation %zu overflows", k, d);
	if ((err = td_mixer_add_tensor(
		 m, "w", k, c,
		 (td_init_rule){TD_INIT_NORMAL, 0, (td_real)(1 / sqrt((double)k))})) ||
	    (err = td_mixer_add_tensor(m, "bias", 1, c, (td_init_rule){TD_INIT_ZERO, 0, 0})))
		return err;
	return 0;
}

static int conv_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t positions = lines * length, sums;
	int err = td_mixer_size_muladd(&sums, m->o.channels, m->o.kernel_size + 1, 0,
				       "the conv workspace");

	return err ? err
		   : td_mixer_size_muladd(out, positions, m->o.channels, sums, "the conv workspace");
}

/*
 * The position tap j reads when computing position t, or SIZE_MAX when the
 * tap falls off the line.
 */
static size_t tap(const td_mixer *m, size_t t, size_t j, size_t length)
{
	size_t off = j * m->o.dilation;

	if (m->o.reverse)
		return off < length - t ? t + off : SIZE_MAX;
	return off <= t ? t - off : SIZE_MAX;
}

/* One call's arguments, shared read-only by the threads' ranges. */
typedef struct {
	const td_mixer *m;
	td_real *y;	   /* forward: the output; backward: dx */
	td_real *ws;	   /* the saved input, then (backward) the scratch sums */
	const td_real *x;  /* forward only: the input */
	const td_real *dy; /* backward only */
	size_t lines, length;
} conv_job;

/*
 * Vectors of channels: a row's sums (dx, the gradients) are held in
 * registers, VECS vectors at a time, then one vector, then channels alone
 * (each sum is a chain of dependent adds; in memory each waited on its
 * own store).
 */
enum { LANES = TD_VEC8_LANES, VECS = 4 }; /* vectors' lanes; vectors of sums held at once */

typedef td_vec8 cvec;

/* Lines l0 .. l1-1: the input saved, then bias plus the taps at every position. */
static int forward_lines(void *arg, size_t l0, size_t l1)
{
	const conv_job *j = arg;
	const td_mixer *m = j->m;
	const size_t c = m->o.channels;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W);
	const td_real *bias = td_mixer_slab_at(m, m->params, T_BIAS);

	memcpy(j->ws + l0 * j->length * c, j->x + l0 * j->length * c,
	       (l1 - l0) * j->length * c * sizeof *j->x);
	for (size_t l = l0; l < l1; l++)
		for (size_t t = 0; t < j->length; t++) {
			td_real *restrict yt = j->y + (l * j->length + t) * c;
			const td_real *xt = j->x + (l * j->length + t) * c;

			/* bias, then tap 0 (x_t itself, always on the line): no call to copy the bias */
			for (size_t k = 0; k < c; k++)
				yt[k] = bias[k] + w[k] * xt[k];
			for (size_t i = 1; i < m->o.kernel_size; i++) {
				size_t src = tap(m, t, i, j->length);
				const td_real *xs, *wi = w + i * c;

				if (src == SIZE_MAX)
					break; /* later taps are further off */
				xs = j->x + (l * j->length + src) * c;
				for (size_t k = 0; k < c; k++)
					yt[k] += wi[k] * xs[k];
			}
		}
	return 0;
}

static int conv_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			td_real *ws)
{
	conv_job j = {m, y, ws, x, NULL, lines, length};

	return td_pool_ranges(m->o.threads, lines, forward_lines, &j);
}

/*
 * The taps whose terms reach dx at position src, in the order the
 * forward's positions t give them: ascending t is ascending taps
 * forward (t = src + i d), descending taps in reverse (t = src - i d).
 * *first and *count: the taps i that are on the line, first the one
 * taken first; step +1 or -1 (SIZE_MAX).
 */
static void dx_taps(const td_mixer *m, size_t src, size_t len, size_t *first, size_t *count,
		    size_t *step)
{
	const size_t d = m->o.dilation, taps = m->o.kernel_size;
	const size_t room = m->o.reverse ? src : len - 1 - src; /* positions past src the taps reach */
	const size_t n = room / d + 1 < taps ? room / d + 1 : taps;

	*count = n;
	*first = m->o.reverse ? n - 1 : 0;
	*step = m->o.reverse ? SIZE_MAX : 1;
}

/*
 * dx at position src for the channels [k0, k0 + V LANES) of line l: from
 * 0, w[i] dy_t for its taps in dx_taps's order. Inlined with constant V.
 */
static inline __attribute__((always_inline)) void
dx_vectors(const conv_job *j, size_t l, size_t src, size_t k0, size_t V)
{
	const td_mixer *m = j->m;
	const size_t c = m->o.channels, len = j->length, d = m->o.dilation;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W) + k0;
	size_t i, n, step;
	cvec sum[VECS];

	dx_taps(m, src, len, &i, &n, &step);
	for (size_t v = 0; v < V; v++)
		sum[v] = (cvec){0};
	for (; n > 0; n--, i += step) {
		const size_t t = m->o.reverse ? src - i * d : src + i * d;
		const td_real *dyt = j->dy + (l * len + t) * c + k0, *wi = w + i * c;

		for (size_t v = 0; v < V; v++)
			sum[v] += td_vec8_load(wi + v * LANES) * td_vec8_load(dyt + v * LANES);
	}
	for (size_t v = 0; v < V; v++)
		td_vec8_store(j->y + (l * len + src) * c + k0 + v * LANES, sum[v]);
}

/* Lines l0 .. l1-1 of dx: at each position, w[i] dy_t summed over the t whose tap i reads it. */
static int dx_lines(void *arg, size_t l0, size_t l1)
{
	const conv_job *j = arg;
	const td_mixer *m = j->m;
	const size_t c = m->o.channels, len = j->length, d = m->o.dilation;
	const td_real *w = td_mixer_slab_at(m, m->params, T_W);

	for (size_t l = l0; l < l1; l++)
		for (size_t src = 0; src < len; src++) {
			size_t k = 0;

			for (; k + VECS * LANES <= c; k += VECS * LANES)
				dx_vectors(j, l, src, k, VECS);
			for (; k + LANES <= c; k += LANES)
				dx_vectors(j, l, src, k, 1);
			for (; k < c; k++) {
				size_t i, n, step;
				td_real sum = 0;

				dx_taps(m, src, len, &i, &n, &step);
				for (; n > 0; n--, i += step) {
					const size_t t = m->o.reverse ? src - i * d : src + i * d;

					sum += w[i * c + k] * j->dy[(l * len + t) * c + k];
				}
				j->y[(l * len + src) * c + k] = sum;
			}
		}
	return 0;
}

/*
 * acc[v LANES ..] += the sum over n positions, ascending, of dy's row
 * times xs's (dy's row alone when xs is NULL), rows c apart, for V <=
 * VECS vectors of channels. Inlined with constant V, so that the sums
 * stay in registers.
 */
static inline __attribute__((always_inline)) void
row_vectors(td_real *restrict acc, const td_real *dy, const td_real *xs, size_t c, size_t n,
	    size_t V)
{
	cvec sum[VECS];

	for (size_t v = 0; v < V; v++)
		sum[v] = td_vec8_load(acc + v * LANES);
	for (size_t t = 0; t < n; t++)
#pragma GCC unroll 4
		for (size_t v = 0; v < V; v++)
			sum[v] += xs ? td_vec8_load(dy + t * c + v * LANES) * td_vec8_load(xs + t * c + v * LANES)
				     : td_vec8_load(dy + t * c + v * LANES);
	for (size_t v = 0; v < V; v++)
		td_vec8_store(acc + v * LANES, sum[v]);
}

/* Row i of the sums (row K: the bias's) for line l: acc[k] for every channel k. */
static void line_row(const conv_job *j, td_real *restrict acc, size_t l, size_t i)
{
	const td_mixer *m = j->m;
	const size_t c = m->o.channels, len = j->length, taps = m->o.kernel_size;
	const size_t off = i < taps ? i * m->o.dilation : 0;
	const td_real *dy, *xs = NULL;
	size_t k = 0, n;

	if (off >= len)
		return; /* the tap is off the line at every position */
	n = len - off; /* positions t >= off read t - off; reverse, t < len - off read t + off */
	dy = j->dy + (l * len + (m->o.reverse ? 0 : off)) * c;
	if (i < taps)
		xs = j->ws + (l * len + (m->o.reverse ? off : 0)) * c;
	for (; k + VECS * LANES <= c; k += VECS * LANES)
		row_vectors(acc + k, dy + k, xs ? xs + k : NULL, c, n, VECS);
	for (; k + LANES <= c; k += LANES)
		row_vectors(acc + k, dy + k, xs ? xs + k : NULL, c, n, 1);
	for (; k < c; k++)
		for (size_t t = 0; t < n; t++)
			acc[k] += xs ? dy[t * c + k] * xs[t * c + k] : dy[t * c + k];
}

/*
 * The weight and bias gradients are rows of sums over every (line,
 * position): row i < K is tap i's dw, row K the bias's. A thread takes a
 * range of rows and, line by line, each of its rows for the positions
 * whose tap is on the line, ascending, into [K + 1][C] scratch, then adds
 * its rows to the slab once. Each sum thus takes its terms in (line,
 * position) order whichever thread runs it and however the rows are
 * shared; the sums of VECS vectors of channels stay in registers for a
 * line's positions (each sum is a chain of dependent adds: a line of
 * them at once overlaps VECS chains, where a sum in memory waited on its
 * store at every position).
 *
 * grad_rows: rows r0 .. r1-1.
 */
static int grad_rows(void *arg, size_t r0, size_t r1)
{
	const conv_job *j = arg;
	const td_mixer *m = j->m;
	const size_t c = m->o.channels;
	td_real *g = td_mixer_slab_at(m, m->grads, T_W); /* w [K][C], then bias [C] */
	td_real *acc = j->ws + j->lines * j->length * c;

	memset(acc + r0 * c, 0, (r1 - r0) * c * sizeof *acc);
	for (size_t l = 0; l < j->lines; l++)
		for (size_t i = r0; i < r1; i++)
			line_row(j, acc + i * c, l, i);
	for (size_t k = r0 * c; k < r1 * c; k++)
		g[k] += acc[k];
	return 0;
}

static int conv_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			 td_real *ws)
{
	conv_job j = {m, dx, ws, NULL, dy, lines, length};
	int err = td_pool_ranges(m->o.threads, lines, dx_lines, &j);

	return err ? err : td_pool_ranges(m->o.threads, m->o.kernel_size + 1, grad_rows, &j);
}

const td_mixer_ops td_mixer_conv_ops = {"conv", conv_setup, conv_ws_size, conv_forward,
					conv_backward};
