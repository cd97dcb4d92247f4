/*
 * mixer_gru.c - the gated recurrent unit (equations in mixer.h), H = channels.
 *
 * Lines run in blocks (td_mixer_blocks), so that a block's gates stay
 * in the caches from its steps forward to its steps backward; the driver
 * that runs them is mixer_rnn.c's, shared with the LSTM. Each step
 * of a block's recurrence takes its lines' input projections x_t W^T
 * with one GEMM (b is added where the step's gates read them) and gh =
 * h_{t-1} U^T + c with one more (the lines' rows are length * H apart,
 * which is just a leading dimension); at a sweep's first step gh is c
 * itself. The saved gates are step-major within a block
 * (td_mixer_saved_at), so that a step's rows are one contiguous run. The gate blocks
 * are ordered r, z, n in W, U, b and c. Backward, a block's weight and
 * bias gradients are summed while its dgx and dgh are in the caches, into
 * the block's own part, and the parts are added in block order. The
 * backward's dgx, dgh and hp are scratch: a thread's blocks all use the
 * slot of its first block (td_mixer_slot_rows), so that they stay in the
 * caches rather than go out to memory and come back, a block at a time.
 *
 * Workspace, for P = lines * length positions, L = lines and S = the
 * slots' rows (blocks * td_mixer_slot_rows >= P):
 *   x     [P][H]    a copy of the input (saved)
 *   h     [P][H]    the hidden states = the outputs (saved)
 *   gates [P][4H]   r, z, n and Un h_{t-1} + cn per position, step-major
 *                   by block (saved)
 *   gh    [L][3H]   one step's h_{t-1} U^T + c (forward scratch)
 *   wt, ut [H][3H]  W^T and U^T, which every step's GEMMs read as they are
 *                   stored (forward scratch)
 *   dgx   [S][3H]   dL/d(gx) (backward scratch, by slot)
 *   dgh   [S][3H]   dL/d(gh) (backward scratch, by slot)
 *   hp    [S][H]    h_{t-1} per position, 0 at a line's start (backward
 *                   scratch, by slot)
 *   carry [L][H]    dL/dh_{t-1} flowing to the previous step (backward scratch)
 *   part  [B][n]    each block's dW, dU, db and dc, n the parameter count
 *                   (backward scratch)
 *
 * Must never: let a gradient's summation order depend on the thread count;
 * read h_{t-1} at the first step of a sweep (it is zero by definition).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "fastmath.h"
#include "gemm.h"
#include "mixer_int.h"

enum { T_W, T_U, T_B, T_C };

static int gru_setup(td_mixer *m)
{
	size_t h = m->o.channels;
	td_real s = (td_real)(1 / sqrt((double)h));
	int err;

	if (h > SIZE_MAX / 16) /* so that 3H, 4H ... 16H below never wrap */
		return TD_FAIL(TD_EINVAL, "channels %zu is too large for a gru", h);
	if ((err = td_mixer_add_tensor(m, "W", 3 * h, h, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "U", 3 * h, h, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "b", 1, 3 * h, (td_init_rule){TD_INIT_UNIFORM, -s, s})) ||
	    (err = td_mixer_add_tensor(m, "c", 1, 3 * h, (td_init_rule){TD_INIT_UNIFORM, -s, s})))
		return err;
	return 0;
}

/* 16H fits (gru_setup checked); the products are checked here. */
static int gru_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t h = m->o.channels, blocks = td_mixer_blocks(lines, length), per_line, parts, rows,
	       slots;
	int err = td_mixer_size_muladd(&parts, blocks, m->n_params, 0, "the gru workspace");

	if (!err)
		err = td_mixer_size_muladd(&parts, 6 * h, h, parts, "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(&per_line, lines, 4 * h, parts, "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(&rows, blocks, td_mixer_slot_rows(lines, length), 0,
					   "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(&slots, rows, 7 * h, per_line, "the gru workspace");
	if (!err)
		err = td_mixer_size_muladd(out, lines * length, 6 * h, slots, "the gru workspace");
	return err;
}

typedef struct {
	td_mixer_rnn_ws r; /* x, wt, ut, dgx, dgh (rows 3H apart), hp, carry, part */
	td_real *h, *gates, *gh;
} gru_ws;

static gru_ws carve(const td_mixer *m, td_real *ws, size_t lines, size_t length)
{
	size_t h = m->o.channels, p = lines * length;
	size_t sr = td_mixer_blocks(lines, length) * td_mixer_slot_rows(lines, length);
	gru_ws w;

	w.r.x = ws;
	w.h = w.r.x + p * h;
	w.gates = w.h + p * h;
	w.gh = w.gates + p * 4 * h;
	w.r.wt = w.gh + lines * 3 * h;
	w.r.ut = w.r.wt + 3 * h * h;
	w.r.dgx = w.r.ut + 3 * h * h;
	w.r.dgh = w.r.dgx + sr * 3 * h;
	w.r.ld = 3 * h;
	w.r.hp = w.r.dgh + sr * 3 * h;
	w.r.carry = w.r.hp + sr * h;
	w.r.part = w.r.carry + lines * h;
	return w;
}

/* The position in a line of step s of the sweep. */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/*
 * Step s's products for the block of lines l0 .. l1-1: gx = x_t W^T into
 * the first 3H columns of its gate rows, and for s >= 1 gh = h_{t-1} U^T +
 * c (at s = 0 gh is c itself, which step_forward reads in place). W^T and
 * U^T come from w->r.wt and w->r.ut: a GEMM would pack them on every step.
 */
static int step_in(const td_mixer_rnn *j, size_t l0, size_t l1, size_t s)
{
	const td_mixer *m = j->m;
	const gru_ws *w = (const gru_ws *)j->w;
	const size_t h = m->o.channels, length = j->length, t = at(s, length, m->o.reverse);
	const td_real *c = td_mixer_slab_at(m, m->params, T_C);
	const td_real *prev = s ? w->h + (l0 * length + at(s - 1, length, m->o.reverse)) * h : NULL;
	int err;

	if ((err = td_gemm(w->gates + td_mixer_saved_at(l0, l1, length, l0, t) * 4 * h, 4 * h,
			   w->r.x + (l0 * length + t) * h, length * h, w->r.wt, 3 * h, l1 - l0,
			   3 * h, h, NULL)))
		return err;
	if (s == 0)
		return 0;
	if ((err = td_gemm(w->gh + l0 * 3 * h, 3 * h, prev, length * h, w->r.ut, 3 * h, l1 - l0,
			   3 * h, h, NULL)))
		return err;
	for (size_t l = l0; l < l1; l++) {
		td_real *row = w->gh + l * 3 * h;

		for (size_t k = 0; k < 3 * h; k++)
			row[k] += c[k];
	}
	return 0;
}

/*
 * One line's gates: rz holds the r and z pre-activations from x (2H, x W^T
 * without b) and gets the gates, n holds n's (H) and gets n, ghn gets Un
 * h_{t-1} + cn; b is the input bias (3H), added first, and gh the line's
 * h_{t-1} U^T + c (3H). A simple loop per gate over the row, so that each
 * vectorises (td_sigmoid and td_tanh are inline).
 */
static void gates_row(td_real *restrict rz, td_real *restrict n, td_real *restrict ghn,
		      const td_real *restrict b, const td_real *restrict gh, size_t h)
{
	for (size_t k = 0; k < 2 * h; k++)
		rz[k] = td_sigmoid((rz[k] + b[k]) + gh[k]);
	for (size_t k = 0; k < h; k++) {
		ghn[k] = gh[2 * h + k];
		n[k] = td_tanh((n[k] + b[2 * h + k]) + rz[k] * gh[2 * h + k]);
	}
}

/* h_t = (1 - z) n + z h_{t-1} for one line; hp NULL at the sweep's first step (h_{-1} = 0). */
static void state_row(td_real *restrict ht, const td_real *restrict z, const td_real *restrict n,
		      const td_real *restrict hp, size_t h)
{
	if (hp)
		for (size_t k = 0; k < h; k++)
			ht[k] = (1 - z[k]) * n[k] + z[k] * hp[k];
	else
		for (size_t k = 0; k < h; k++)
			ht[k] = (1 - z[k]) * n[k];
}

/* Step s of lines l0 .. l1-1: gates from gx (already in gates), b and gh, then h_t. */
static void step_forward(const td_mixer_rnn *j, size_t l0, size_t l1, size_t s)
{
	const td_mixer *m = j->m;
	const gru_ws *w = (const gru_ws *)j->w;
	const size_t h = m->o.channels, length = j->length, t = at(s, length, m->o.reverse);
	const td_real *b = td_mixer_slab_at(m, m->params, T_B);
	const td_real *c = td_mixer_slab_at(m, m->params, T_C);

	for (size_t l = l0; l < l1; l++) {
		td_real *g = w->gates + td_mixer_saved_at(l0, l1, length, l, t) * 4 * h;
		td_real *ht = w->h + (l * length + t) * h;
		const td_real *hp =
		    s ? w->h + (l * length + at(s - 1, length, m->o.reverse)) * h : NULL;

		if (s + 1 < length) { /* the rows the next step's products read and write */
			const size_t next = at(s + 1, length, m->o.reverse);

			td_mixer_prefetch(w->r.x + (l * length + next) * h, h);
			td_mixer_prefetch_write(
			    w->gates + td_mixer_saved_at(l0, l1, length, l, next) * 4 * h, 4 * h);
		}
		gates_row(g, g + 2 * h, g + 3 * h, b, s ? w->gh + l * 3 * h : c, h);
		state_row(ht, g + h, g + 2 * h, hp, h);
	}
}

/* A block's outputs after its steps: y is the block's saved h. */
static void forward_end(const td_mixer_rnn *j, size_t l0, size_t l1)
{
	const gru_ws *w = (const gru_ws *)j->w;
	const size_t h = j->m->o.channels, t = j->length;

	memcpy(j->y + l0 * t * h, w->h + l0 * t * h, (l1 - l0) * t * h * sizeof *j->y);
}

/*
 * One position of one line, backwards: from dh = dy + carry, the gate
 * adjoints into dgx and dgh (3H each), and carry = dh * z (the direct path
 * to h_{t-1}). g is the position's saved r, z, n and Un h_{t-1} + cn, hp
 * its h_{t-1} (zeros at the sweep's first step).
 */
static void back_row(td_real *restrict dgx, td_real *restrict dgh, td_real *restrict carry,
		     const td_real *restrict g, const td_real *restrict dy,
		     const td_real *restrict hp, size_t h)
{
	for (size_t k = 0; k < h; k++) {
		td_real r = g[k], z = g[h + k], n = g[2 * h + k], ghn = g[3 * h + k];
		td_real dh = dy[k] + carry[k];
		td_real dz = dh * (hp[k] - n) * z * (1 - z);
		td_real dn = dh * (1 - z) * (1 - n * n);
		td_real dr = dn * ghn * r * (1 - r);

		dgx[k] = dr, dgx[h + k] = dz, dgx[2 * h + k] = dn;
		dgh[k] = dr, dgh[h + k] = dz, dgh[2 * h + k] = dn * r;
		carry[k] = dh * z;
	}
}

/*
 * Step s of lines l0 .. l1-1, backwards, into sc, the block's slot (its
 * rows from line l0's first); needs the slot's hp (td_mixer_shift_prev of
 * w->h).
 */
static void step_backward(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0, size_t l1,
			  size_t s)
{
	const td_mixer *m = j->m;
	const gru_ws *w = (const gru_ws *)j->w;
	const td_real *dy = j->dy;
	const size_t h = m->o.channels, length = j->length, t = at(s, length, m->o.reverse);
	const size_t next = s ? at(s - 1, length, m->o.reverse) : t;

	for (size_t l = l0; l < l1; l++) {
		const size_t r = td_mixer_saved_at(l0, l1, length, l, t);
		const size_t rn = td_mixer_saved_at(l0, l1, length, l, next);
		size_t pos = l * length + t, q = (l - l0) * length + t;

		if (s) { /* the rows the step before reads next (td_mixer_prefetch) */
			td_mixer_prefetch(w->gates + rn * 4 * h, 4 * h);
			td_mixer_prefetch(dy + (l * length + next) * h, h);
		}
		back_row(sc->dgx + q * 3 * h, sc->dgh + q * 3 * h, w->r.carry + l * h,
			 w->gates + r * 4 * h, dy + pos * h, sc->hp + q * h, h);
	}
}

/* Before a block's backward steps: its h_{t-1} into the slot's hp, its carry at 0. */
static void backward_begin(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0, size_t l1)
{
	const gru_ws *w = (const gru_ws *)j->w;
	const size_t h = j->m->o.channels, length = j->length;

	td_mixer_shift_prev(sc->hp, w->h + l0 * length * h, l1 - l0, length, h, j->m->o.reverse);
	memset(w->r.carry + l0 * h, 0, (l1 - l0) * h * sizeof *w->r.carry);
}

/* back_row's carry is dh z, the direct path: the step's dgh U is added to it. */
static const td_mixer_rnn_ops gru_rnn = {
    .gates = 3,
    .carry_adds = 1,
    .step_in = step_in,
    .step_forward = step_forward,
    .forward_end = forward_end,
    .backward_begin = backward_begin,
    .step_backward = step_backward,
};

static int gru_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
		       td_real *ws)
{
	gru_ws w = carve(m, ws, lines, length);

	return td_mixer_rnn_forward(&gru_rnn, m, &w.r, y, x, lines, length);
}

static int gru_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			td_real *ws)
{
	gru_ws w = carve(m, ws, lines, length);

	return td_mixer_rnn_backward(&gru_rnn, m, &w.r, dx, dy, lines, length);
}

const td_mixer_ops td_mixer_gru_ops = {"gru", gru_setup, gru_ws_size, gru_forward, gru_backward};
