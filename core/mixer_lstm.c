/*
 * mixer_lstm.c - the long short-term memory (equations in mixer.h), H = channels.
 *
 * As in mixer_gru.c, lines run in blocks, through the driver the two
 * share (mixer_rnn.c). Each step of a block's
 * recurrence takes its lines' input projections x_t W^T + b + c with one
 * GEMM, adds h_{t-1} U^T with one more, accumulated straight into the
 * step's rows of the gate buffer, and then the gates and the state. The
 * saved rows (s, ts and the gates) are step-major within a block
 * (td_mixer_saved_at), so that a step's rows are one contiguous run.
 * Unlike the GRU's candidate, no gate needs U h_{t-1} apart from W x_t, so
 * both biases are folded in up front and one adjoint dg serves W, U, b and
 * c alike. The gate blocks are ordered i, f, g, o in W, U, b and c
 * (PyTorch's order). Backward, a block's weight and bias gradients are
 * summed while its dg is in the caches, into the block's own part, and
 * the parts are added in block order. The backward's dg and hp are
 * scratch: a thread's blocks all use the slot of its first block
 * (td_mixer_slot_rows), so that they stay in the caches.
 *
 * On lines of one step (the kernel family's) the forget gate multiplies
 * s_{-1} = 0. Its quarter of x W^T and of dW is not computed, and f is
 * set to 0: s_t and every adjoint are bitwise what the gate's value gives
 * (ds s_{-1} f (1 - f) is the same signed 0, or NaN, for any f in [0, 1]),
 * and dW's rows of f are 0, what that column sums to. (A NaN in the
 * column, from a NaN ds, is in i's, g's and o's columns too, and reaches
 * dW, db and dx through them.) kernel/lstm 24.1 -> 22.7 ms, its model
 * 106.5 -> 100.7.
 *
 * Workspace, for P = lines * length positions, L = lines and S = the
 * slots' rows (blocks * td_mixer_slot_rows >= P):
 *   x      [P][H]    a copy of the input, as x is laid out (saved)
 *   s      [P][H]    the cell states, step-major by block (saved)
 *   ts     [P][H]    tanh of the cell states, step-major by block (saved:
 *                    the backward reads it rather than computing it again)
 *   gates  [P][4H]   pre-activations, then i, f, g, o per position,
 *                    step-major by block (saved)
 *   dg     [S][ld]   dL/d(pre-activations), as x is laid out, rows dg_ld
 *                    apart (backward scratch, by slot)
 *   hp     [S][H]    s_{t-1} per position during the recurrence, then h_{t-1}
 *                    (o tanh(s_{t-1}) again, from the saved gates and ts);
 *                    0 at a line's start; as x is laid out (backward
 *                    scratch, by slot)
 *   dh, ds [L][H]    dL/dh_{t-1} and dL/ds_{t-1} flowing to the previous step
 *                    (backward scratch)
 *   wt, ut [H][4H]   W^T and U^T, which every step's GEMMs read as they are
 *                    stored (forward scratch)
 *   part   [B][n]    each block's dW, dU, db and dc (= db), n the parameter
 *                    count (backward scratch)
 *
 * Must never: let a gradient's summation order depend on the thread count;
 * read h_{t-1} or s_{t-1} at the first step of a sweep (both are zero).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/error.h"
#include "fastmath.h"
#include "gemm.h"
#include "mixer_int.h"

enum { T_W, T_U, T_B, T_C };

/*
 * dg's row stride: 4H, or 4H + 16 where 4H is a multiple of 32 and a
 * slot holds at most 2048 rows, so that a row stride of whole 64-byte
 * lines is an odd number of them. The weight gradients read dg down its
 * columns (dg^T x), and rows an even number of lines apart fall on part
 * of the L1 cache's sets: at H = 32, on a slot of 980 rows in the caches,
 * dW and dU ran at 70 GFLOP/s on rows 512 bytes apart and at 81 on rows
 * 576 bytes apart. A larger slot (lines longer than 32 steps) comes from
 * memory, where the padded rows were the slower (12544 rows: 61 against
 * 50 GFLOP/s).
 */
static size_t dg_ld(size_t h, size_t lines, size_t length)
{
	return 4 * h % 32 || td_mixer_slot_rows(lines, length) > 2048 ? 4 * h : 4 * h + 16;
}

static int lstm_setup(td_mixer *m)
{
	size_t h = m->o.channels;
	td_real s = (td_real)(1 / sqrt((double)h));
	int err;

	if (h > SIZE_MAX / 16) /* so that 4H, 5H, 7H below never wrap */
		return TD_FAIL(TD_EINVAL, "channels %zu is too large for an lstm", h);
	if ((err = td_mixer_add_tensor(m, "W", 4 * h, h, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "U", 4 * h, h, (td_init_rule){TD_INIT_NORMAL, 0, s})) ||
	    (err = td_mixer_add_tensor(m, "b", 1, 4 * h, (td_init_rule){TD_INIT_UNIFORM, -s, s})) ||
	    (err = td_mixer_add_tensor(m, "c", 1, 4 * h, (td_init_rule){TD_INIT_UNIFORM, -s, s})))
		return err;
	return 0;
}

/* 7H fits (lstm_setup checked); the products are checked here. */
static int lstm_ws_size(size_t *out, const td_mixer *m, size_t lines, size_t length)
{
	size_t h = m->o.channels, blocks = td_mixer_blocks(lines, length), fixed, parts, rows,
	       slots;
	int err = td_mixer_size_muladd(&parts, blocks, m->n_params, 0, "the lstm workspace");

	if (!err)
		err = td_mixer_size_muladd(&parts, 8 * h, h, parts, "the lstm workspace");
	if (!err)
		err = td_mixer_size_muladd(&fixed, lines, 2 * h, parts, "the lstm workspace");
	if (!err)
		err = td_mixer_size_muladd(&rows, blocks, td_mixer_slot_rows(lines, length), 0,
					   "the lstm workspace");
	if (!err)
		err = td_mixer_size_muladd(&slots, rows, dg_ld(h, lines, length) + h, fixed,
					   "the lstm workspace");
	if (!err)
		err = td_mixer_size_muladd(out, lines * length, 7 * h, slots, "the lstm workspace");
	return err;
}

typedef struct {
	td_mixer_rnn_ws r; /* x, wt, ut, dg (as dgx and dgh, rows dg_ld apart), hp, dh (as
			      carry), part */
	td_real *s, *ts, *gates, *ds;
} lstm_ws;

static lstm_ws carve(const td_mixer *m, td_real *ws, size_t lines, size_t length)
{
	size_t h = m->o.channels, p = lines * length;
	size_t sr = td_mixer_blocks(lines, length) * td_mixer_slot_rows(lines, length);
	lstm_ws w;

	w.r.x = ws;
	w.s = w.r.x + p * h;
	w.ts = w.s + p * h;
	w.gates = w.ts + p * h;
	w.r.dgx = w.r.dgh = w.gates + p * 4 * h;
	w.r.ld = dg_ld(h, lines, length);
	w.r.hp = w.r.dgx + sr * w.r.ld;
	w.r.carry = w.r.hp + sr * h;
	w.ds = w.r.carry + lines * h;
	w.r.wt = w.ds + lines * h;
	w.r.ut = w.r.wt + 4 * h * h;
	w.r.part = w.r.ut + 4 * h * h;
	return w;
}

/* The position in a line of step s of the sweep. */
static size_t at(size_t s, size_t length, int reverse)
{
	return reverse ? length - 1 - s : s;
}

/*
 * Step s's pre-activations for the block of lines l0 .. l1-1, into its
 * gate rows: x_t W^T + b + c ([lines x H] [H x 4H], W^T from w->wt: a GEMM
 * would pack it from W on every step; on lines of one step i's columns
 * and g's and o's, f's left unwritten), then for s >= 1 += h_{t-1} U^T,
 * U^T from w->ut and h_{t-1} from the output y.
 */
static int step_in(const td_mixer_rnn *j, size_t l0, size_t l1, size_t s)
{
	const td_mixer *m = j->m;
	const lstm_ws *w = (const lstm_ws *)j->w;
	const td_real *y = j->y;
	const size_t h = m->o.channels, length = j->length, t = at(s, length, m->o.reverse);
	const int one_step = length == 1; /* f's columns, after i's, are left out */
	const td_real *b = td_mixer_slab_at(m, m->params, T_B);
	const td_real *c = td_mixer_slab_at(m, m->params, T_C);
	const td_real *xt = w->r.x + (l0 * length + t) * h;
	td_real *g = w->gates + td_mixer_saved_at(l0, l1, length, l0, t) * 4 * h;
	td_gemm_opts o = TD_GEMM_OPTS_INIT;
	int err;

	if (!one_step)
		err = td_gemm(g, 4 * h, xt, length * h, w->r.wt, 4 * h, l1 - l0, 4 * h, h, &o);
	else if ((err = td_gemm(g, 4 * h, xt, h, w->r.wt, 4 * h, l1 - l0, h, h, &o)) == 0)
		err =
		    td_gemm(g + 2 * h, 4 * h, xt, h, w->r.wt + 2 * h, 4 * h, l1 - l0, 2 * h, h, &o);
	if (err)
		return err;
	for (size_t i = 0; !one_step && i < l1 - l0; i++) /* one loop: few rows a step */
		for (size_t k = 0; k < 4 * h; k++)
			g[i * 4 * h + k] += b[k] + c[k];
	for (size_t i = 0; one_step && i < l1 - l0; i++) {
		for (size_t k = 0; k < h; k++)
			g[i * 4 * h + k] += b[k] + c[k];
		for (size_t k = 2 * h; k < 4 * h; k++)
			g[i * 4 * h + k] += b[k] + c[k];
	}
	if (s == 0)
		return 0;
	o.beta = 1;
	return td_gemm(g, 4 * h, y + (l0 * length + at(s - 1, length, m->o.reverse)) * h,
		       length * h, w->r.ut, 4 * h, l1 - l0, 4 * h, h, &o);
}

/*
 * One line's gates in place: g holds the pre-activations of i, f, g, o
 * (H each) and gets the gates; with dead_f (a line of one step) f is set
 * to 0 instead (see the file comment). A simple loop per activation over
 * the row, so that each vectorises (td_sigmoid and td_tanh are inline).
 */
static void gates_row(td_real *restrict ifg, td_real *restrict gg, td_real *restrict o, size_t h,
		      int dead_f)
{
	for (size_t k = 0; k < (dead_f ? h : 2 * h); k++)
		ifg[k] = td_sigmoid(ifg[k]);
	if (dead_f)
		memset(ifg + h, 0, h * sizeof *ifg);
	for (size_t k = 0; k < h; k++)
		gg[k] = td_tanh(gg[k]);
	for (size_t k = 0; k < h; k++)
		o[k] = td_sigmoid(o[k]);
}

/*
 * s_t = f s_{t-1} + i g, ts = tanh(s_t) and h_t = o ts for one line, from
 * its gates g (i, f, g, o); sp is s_{t-1}, NULL at the sweep's first step
 * (s_{-1} = 0).
 */
static void state_row(td_real *restrict st, td_real *restrict ts, td_real *restrict ht,
		      const td_real *restrict g, const td_real *restrict sp, size_t h)
{
	const td_real *i = g, *f = g + h, *gg = g + 2 * h, *o = g + 3 * h;

	if (sp)
		for (size_t k = 0; k < h; k++) {
			const td_real s = f[k] * sp[k] + i[k] * gg[k], t = td_tanh(s);

			st[k] = s, ts[k] = t, ht[k] = o[k] * t;
		}
	else
		for (size_t k = 0; k < h; k++) {
			const td_real s = i[k] * gg[k], t = td_tanh(s);

			st[k] = s, ts[k] = t, ht[k] = o[k] * t;
		}
}

/* Step s of lines l0 .. l1-1: the gates from their pre-activations, then s_t and h_t (into y). */
static void step_forward(const td_mixer_rnn *j, size_t l0, size_t l1, size_t s)
{
	const td_mixer *m = j->m;
	const lstm_ws *w = (const lstm_ws *)j->w;
	td_real *y = j->y;
	const size_t h = m->o.channels, length = j->length, t = at(s, length, m->o.reverse);

	for (size_t l = l0; l < l1; l++) {
		size_t r = td_mixer_saved_at(l0, l1, length, l, t);
		td_real *g = w->gates + r * 4 * h;
		const size_t before = s ? at(s - 1, length, m->o.reverse) : t;
		const td_real *sp =
		    s ? w->s + td_mixer_saved_at(l0, l1, length, l, before) * h : NULL;

		if (s + 1 < length) { /* the rows the next step's products read and write */
			const size_t next = at(s + 1, length, m->o.reverse);

			td_mixer_prefetch(w->r.x + (l * length + next) * h, h);
			td_mixer_prefetch_write(
			    w->gates + td_mixer_saved_at(l0, l1, length, l, next) * 4 * h, 4 * h);
		}
		gates_row(g, g + 2 * h, g + 3 * h, h, length == 1);
		state_row(w->s + r * h, w->ts + r * h, y + (l * length + t) * h, g, sp, h);
	}
}

/*
 * One position of one line, backwards: from dh = dy_t + (dL/dh_t through
 * step s+1) and ds (dL/ds_t through step s+1), the gate adjoints into dg
 * (4H), and ds = ds_t * f, the cell's direct path to s_{t-1}. g is the
 * position's saved gates, tst its tanh(s_t), sp its s_{t-1} (zeros at the
 * sweep's first step).
 */
static void back_row(td_real *restrict dg, td_real *restrict dh_next, td_real *restrict ds_next,
		     const td_real *restrict g, const td_real *restrict tst,
		     const td_real *restrict sp, const td_real *restrict dy, size_t h)
{
	for (size_t k = 0; k < h; k++) {
		td_real i = g[k], f = g[h + k], gg = g[2 * h + k], o = g[3 * h + k];
		td_real ts = tst[k];
		td_real dh = dy[k] + dh_next[k];
		td_real ds = dh * o * (1 - ts * ts) + ds_next[k];

		dg[k] = ds * gg * i * (1 - i);
		dg[h + k] = ds * sp[k] * f * (1 - f);
		dg[2 * h + k] = ds * i * (1 - gg * gg);
		dg[3 * h + k] = dh * ts * o * (1 - o);
		ds_next[k] = ds * f;
	}
}

/*
 * Step s of the block of lines l0 .. l1-1, backwards, into sc, the
 * block's slot (its rows from line l0's first). The slot's hp holds
 * s_{t-1} here (prev_rows), not yet h_{t-1}.
 */
static void step_backward(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0, size_t l1,
			  size_t s)
{
	const td_mixer *m = j->m;
	const lstm_ws *w = (const lstm_ws *)j->w;
	const td_real *dy = j->dy;
	const size_t h = m->o.channels, length = j->length, t = at(s, length, m->o.reverse);
	const size_t next = s ? at(s - 1, length, m->o.reverse) : t;

	for (size_t l = l0; l < l1; l++) {
		const size_t r = td_mixer_saved_at(l0, l1, length, l, t);
		const size_t rn = td_mixer_saved_at(l0, l1, length, l, next);
		size_t q = (l - l0) * length + t;

		if (s) { /* the rows the step before reads next (td_mixer_prefetch) */
			td_mixer_prefetch(w->gates + rn * 4 * h, 4 * h);
			td_mixer_prefetch(w->ts + rn * h, h);
			td_mixer_prefetch(dy + (l * length + next) * h, h);
		}
		back_row(sc->dgx + q * sc->ld, w->r.carry + l * h, w->ds + l * h,
			 w->gates + r * 4 * h, w->ts + r * h, sc->hp + q * h,
			 dy + (l * length + t) * h, h);
	}
}

/*
 * A block's dW on lines of one step (the kernel family's) into part: dW's
 * rows of i, then of g and o, = dg^T x ([H x rows] [rows x H]); its rows
 * of f are 0 (see the file comment), and dU gets nothing (hp is 0
 * throughout). The block's positions are p0 .. p1-1; sc is its slot.
 */
static int one_step_weights(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, td_real *part,
			    size_t p0, size_t p1)
{
	const size_t h = j->m->o.channels;
	td_real *dw = td_mixer_slab_at(j->m, part, T_W);
	const td_real *x = j->w->x + p0 * h;
	td_gemm_opts put = TD_GEMM_OPTS_INIT;
	int err;

	put.trans_a = 1;
	if ((err = td_gemm(dw, h, sc->dgx, sc->ld, x, h, h, h, p1 - p0, &put)) == 0)
		err = td_gemm(dw + 2 * h * h, h, sc->dgx + 2 * h, sc->ld, x, h, 2 * h, h, p1 - p0,
			      &put);
	if (err)
		return err;
	memset(dw + h * h, 0, h * h * sizeof *dw); /* f's rows */
	return 0;
}

/*
 * hp = s_{t-1} (what 0) or h_{t-1} (what 1) for the block of lines l0 ..
 * l1-1, as x is laid out (rows from line l0's first), 0 at a sweep's
 * first step. h_{t-1} is o ts at the step before, the product state_row
 * made h_t with, so the same bits.
 */
static void prev_rows(td_real *hp, const lstm_ws *w, size_t l0, size_t l1, size_t length, size_t h,
		      int reverse, int what)
{
	for (size_t l = l0; l < l1; l++) {
		memset(hp + ((l - l0) * length + at(0, length, reverse)) * h, 0, h * sizeof *hp);
		for (size_t s = 1; s < length; s++) {
			const size_t t = at(s, length, reverse);
			const size_t r =
			    td_mixer_saved_at(l0, l1, length, l, at(s - 1, length, reverse));
			td_real *restrict dst = hp + ((l - l0) * length + t) * h;
			const td_real *restrict o = w->gates + r * 4 * h + 3 * h;
			const td_real *restrict ts = w->ts + r * h;

			if (what == 0)
				memcpy(dst, w->s + r * h, h * sizeof *dst);
			else
				for (size_t k = 0; k < h; k++)
					dst[k] = o[k] * ts[k];
		}
	}
}

/* Before a block's backward steps: its s_{t-1} into the slot's hp, its dh and ds at 0. */
static void backward_begin(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0, size_t l1)
{
	const lstm_ws *w = (const lstm_ws *)j->w;
	const size_t h = j->m->o.channels;

	prev_rows(sc->hp, w, l0, l1, j->length, h, j->m->o.reverse, 0);
	memset(w->r.carry + l0 * h, 0, (l1 - l0) * h * sizeof *w->r.carry);
	memset(w->ds + l0 * h, 0, (l1 - l0) * h * sizeof *w->ds);
}

/* After a block's dx: its h_{t-1} into the slot's hp, for dU. */
static void backward_end(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0, size_t l1)
{
	prev_rows(sc->hp, (const lstm_ws *)j->w, l0, l1, j->length, j->m->o.channels,
		  j->m->o.reverse, 1);
}

/*
 * dh_{t-1} = dg_t U: h_{t-1} reaches nothing else, so the product is the
 * carry. The steps write h_t into y and read h_{t-1} from it: the
 * backward takes h_{t-1} from the saved gates and ts.
 */
static const td_mixer_rnn_ops lstm_rnn = {
    .gates = 4,
    .carry_adds = 0,
    .step_in = step_in,
    .step_forward = step_forward,
    .backward_begin = backward_begin,
    .step_backward = step_backward,
    .backward_end = backward_end,
    .one_step_weights = one_step_weights,
};

static int lstm_forward(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
			td_real *ws)
{
	lstm_ws w = carve(m, ws, lines, length);

	return td_mixer_rnn_forward(&lstm_rnn, m, &w.r, y, x, lines, length);
}

static int lstm_backward(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			 td_real *ws)
{
	lstm_ws w = carve(m, ws, lines, length);

	return td_mixer_rnn_backward(&lstm_rnn, m, &w.r, dx, dy, lines, length);
}

const td_mixer_ops td_mixer_lstm_ops = {"lstm", lstm_setup, lstm_ws_size, lstm_forward,
					lstm_backward};
