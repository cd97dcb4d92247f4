/*
 * mixer_int.h - what the mixer kinds share with mixer.c; not public.
 *
 * mixer.c owns the object, the option checks common to every kind, the
 * parameter slabs and their initialisation. A kind (mixer_lru.c,
 * mixer_conv.c, ...) supplies a td_mixer_ops: setup declares its tensors and
 * checks its own options; forward and backward do the arithmetic on
 * arguments mixer.c has already validated (sizes >= 1, workspace large
 * enough), so they fail only if a GEMM does.
 */
#ifndef TD_MIXER_INT_H
#define TD_MIXER_INT_H

#include "mixer.h"

#define TD_MIXER_MAX_TENSORS 8

/* How td_mixer_init fills a tensor. */
typedef enum { TD_INIT_ZERO, TD_INIT_NORMAL, TD_INIT_UNIFORM } td_init_dist;

typedef struct {
	td_init_dist dist;
	td_real a, b; /* NORMAL: mean, std; UNIFORM: lo, hi */
} td_init_rule;

typedef struct {
	const char *name;
	/* Checks kind options (filling defaults into m->o) and declares the tensors. */
	int (*setup)(td_mixer *m);
	/* Workspace values for a batch; lines * length * channels is known to fit. */
	int (*ws_size)(size_t *out, const td_mixer *m, size_t lines, size_t length);
	int (*forward)(td_mixer *m, td_real *y, const td_real *x, size_t lines, size_t length,
		       td_real *ws);
	int (*backward)(td_mixer *m, td_real *dx, const td_real *dy, size_t lines, size_t length,
			td_real *ws);
} td_mixer_ops;

struct td_mixer {
	td_mixer_opts o;
	const td_mixer_ops *ops;
	size_t n_tensors;
	td_mixer_tensor tensor[TD_MIXER_MAX_TENSORS];
	td_init_rule init[TD_MIXER_MAX_TENSORS];
	size_t n_params;
	td_real *params; /* n_params values, the tensors back to back */
	td_real *grads;	 /* same layout */
	int borrowed;	 /* params and grads are the caller's (td_mixer_use_slabs) */
};

extern const td_mixer_ops td_mixer_lru_ops;
extern const td_mixer_ops td_mixer_conv_ops;
extern const td_mixer_ops td_mixer_gru_ops;
extern const td_mixer_ops td_mixer_attention_ops;
extern const td_mixer_ops td_mixer_lstm_ops;
extern const td_mixer_ops td_mixer_clru_ops;

/*
 * Declares the next tensor (rows x cols) and how it is initialised; offsets
 * follow declaration order. TD_ENOMEM if the size overflows.
 */
int td_mixer_add_tensor(td_mixer *m, const char *name, size_t rows, size_t cols, td_init_rule rule);

/* The values of tensor i in a slab (params or grads). */
td_real *td_mixer_slab_at(const td_mixer *m, td_real *slab, size_t i);

/* *out = x * y + z, or TD_ENOMEM naming what overflowed. */
int td_mixer_size_muladd(size_t *out, size_t x, size_t y, size_t z, const char *what);

/* A matrix read through two strides: element (r, t) is v[r * rs + t * ts]. */
typedef struct {
	const td_real *v;
	size_t rs, ts;
} td_mixer_strided;

/*
 * out[r * ors + s * oss] = (mode 0), += (1) or -= (-1) the sum over t
 * ascending of p(r, t) q(s, t), for r < nr, s < ns, t < nt, summed in
 * double from diag[r] where r == s (diag may be NULL: from 0) and rounded
 * once: the small products of the recurrences' maps on lines of one step
 * (mixer_lru.c, mixer_clru.c).
 */
void td_mixer_products(td_real *out, size_t ors, size_t oss, td_mixer_strided p,
		       td_mixer_strided q, size_t nr, size_t ns, size_t nt, const td_real *diag,
		       int mode);

/*
 * The recurrences' lines of one step as one map M [C x C]: forward, xs =
 * a copy of x (the backward's) and y = x M ([p x C] [C x C]); backward,
 * dM = xs^T dy and dx = dy M^T. C is m's channels.
 */
int td_mixer_map_forward(const td_mixer *m, td_real *y, const td_real *x, td_real *xs,
			 const td_real *mm, size_t p);
int td_mixer_map_backward(const td_mixer *m, td_real *dx, td_real *dm, const td_real *dy,
			  const td_real *xs, const td_real *mm, size_t p);

/*
 * prev[pos] = x at the position one step earlier in the sweep (later when
 * reverse), and 0 at each line's first swept position: the h_{t-1} that a
 * recurrence read, for a backward's weight gradient. Buffers are
 * [lines][length][width]; they must not overlap.
 */
void td_mixer_shift_prev(td_real *prev, const td_real *x, size_t lines, size_t length,
			 size_t width, int reverse);

/*
 * How many blocks a recurrence (gru, lstm) takes its lines in, each
 * through all its steps together (attention takes its lines of more than
 * one step in the same blocks): blocks of about 32 lines (a step's GEMM
 * over them has 32 rows) or, on short lines, of 1024 positions (the input
 * projection's rows), few enough that their gates stay in the caches from
 * the projection to the steps and, backward, to their weight gradients.
 * The count is even, so that two threads get equal shares, and depends
 * on the shape alone: each block's gradient sums are its own, added in
 * block order (td_mixer_add_parts), whatever thread ran them.
 */
size_t td_mixer_blocks(size_t lines, size_t length);

/* The lines [*l0, *l1) of block b of n (td_mixer_blocks): they differ in size by one at most. */
void td_mixer_block(size_t lines, size_t n, size_t b, size_t *l0, size_t *l1);

/*
 * The row of line l at position t in a recurrence's saved rows, step-major
 * within the block of lines b0 .. b1-1: the block has the rows of x's
 * layout, b0 * length on, ordered by position, then line. A step's rows
 * for the block's lines are one contiguous run, which the backward reads
 * from memory a step at a time: line-major, rows length positions apart,
 * are a stride the hardware's prefetchers do not follow, and the LSTM's
 * backward steps took 3.7 ns a value on them against 1.0 with the rows in
 * the caches.
 */
static inline size_t td_mixer_saved_at(size_t b0, size_t b1, size_t length, size_t l, size_t t)
{
	return b0 * length + t * (b1 - b0) + (l - b0);
}

/*
 * Asks the caches for the n values from p, a 64-byte line at a time: a
 * hint, which changes no value. The recurrences' backward steps ask for
 * each line's saved rows of the step they take next: those rows are a
 * line's length apart, a stride the hardware's prefetchers did not
 * follow, and without the hint the steps waited on memory.
 */
static inline void td_mixer_prefetch(const td_real *p, size_t n)
{
	for (size_t o = 0; o < n * sizeof *p; o += 64)
		__builtin_prefetch((const char *)p + o);
}

/*
 * td_mixer_prefetch for n values about to be written: the recurrences'
 * forward steps ask for the gate rows the next step's GEMM writes, which
 * are not in the caches (their per-step products ran at half the speed
 * of the same products on rows in the caches).
 */
static inline void td_mixer_prefetch_write(td_real *p, size_t n)
{
	for (size_t o = 0; o < n * sizeof *p; o += 64)
		__builtin_prefetch((char *)p + o, 1);
}

/*
 * The rows (positions) of one slot of a recurrence's block scratch: those
 * of its largest block. A thread's blocks reuse the slot of the first
 * block of its range, so the scratch stays in the caches and no block
 * reads another's; the workspace holds td_mixer_blocks slots.
 */
size_t td_mixer_slot_rows(size_t lines, size_t length);

/*
 * A recurrence block's weight gradients into part (laid out as the
 * parameter slab): tensor tw = gx^T x and, on lines longer than one step,
 * tensor tu = gh^T hp ([G x rows] [rows x H], gx's and gh's rows ld
 * apart). On lines of one step hp is 0 throughout: tu gets nothing, and
 * td_mixer_add_parts leaves it out.
 */
int td_mixer_block_weights(const td_mixer *m, td_real *part, size_t tw, size_t tu,
			   const td_real *gx, const td_real *gh, size_t ld, const td_real *x,
			   const td_real *hp, size_t rows, size_t length);

/*
 * m's gradients += the sum of the n blocks' parts (parts[b * n_params +
 * e]), in block order; tensor tu's only on lines longer than one step.
 * Block 0's part is the running sum: it is overwritten.
 */
void td_mixer_add_parts(td_mixer *m, td_real *parts, size_t n, size_t tu, size_t length);

/*
 * The recurrences' (gru, lstm) shared block driver, mixer_rnn.c. A kind
 * carves its workspace with a td_mixer_rnn_ws first, the buffers the
 * driver itself reads, and supplies the steps as a td_mixer_rnn_ops; the
 * driver runs the blocks (td_mixer_blocks) on the pool, a block's steps
 * in sweep order forward and backward, the products that carry the
 * adjoints to the step before and to dx, and the block's weight and bias
 * gradients into its own part, added in block order. Every sum is taken
 * in the order each kind took it before the driver was shared.
 *
 * The kinds' tensors are W [G*H x H], U [G*H x H], b and c [G*H], declared
 * in that order (tensors 0 .. 3), for G gate blocks.
 */
typedef struct {
	td_real *x;	/* [P][H] a copy of the input (saved) */
	td_real *wt;	/* [H][G*H] W^T (forward scratch) */
	td_real *ut;	/* [H][G*H] U^T (forward scratch) */
	td_real *dgx;	/* [S][ld] the adjoints W's products meet (backward scratch, by slot) */
	td_real *dgh;	/* [S][ld] those U's products meet, the rows of c's sums: dgx itself
			   where one adjoint serves both, and then dc = db */
	size_t ld;	/* dgx's and dgh's row stride, >= G*H */
	td_real *hp;	/* [S][H] h_{t-1} per position when the gradients are summed (by slot) */
	td_real *carry; /* [L][H] dL/dh_{t-1} flowing to the previous step */
	td_real *part;	/* [B][n] each block's gradients, n the parameter count */
} td_mixer_rnn_ws;

typedef struct td_mixer_rnn_ops td_mixer_rnn_ops;

/*
 * One call's blocks, forward (x, y) or backward (dy, dx): what the
 * driver hands every step. w is the first member of the kind's own
 * workspace struct, which the kind's steps convert it back to.
 */
typedef struct {
	const td_mixer_rnn_ops *ops;
	td_mixer *m;
	td_mixer_rnn_ws *w;
	const td_real *x;  /* forward only */
	td_real *y;	   /* forward only */
	const td_real *dy; /* backward only */
	td_real *dx;	   /* backward only */
	size_t lines, length, blocks;
} td_mixer_rnn;

/*
 * A recurrence's steps, for the block of lines l0 .. l1-1 and step s of
 * the sweep; sc is the block's slot (w with dgx, dgh and hp moved to the
 * slot of the thread's first block).
 */
struct td_mixer_rnn_ops {
	size_t gates;	/* G */
	int carry_adds; /* the product dgh_t U adds into carry (1) or is carry (0) */
	/* Step s's products into the block's gate rows. */
	int (*step_in)(const td_mixer_rnn *j, size_t l0, size_t l1, size_t s);
	/* Step s's gates and state, from its products. */
	void (*step_forward)(const td_mixer_rnn *j, size_t l0, size_t l1, size_t s);
	/* After the block's last forward step; NULL: nothing. */
	void (*forward_end)(const td_mixer_rnn *j, size_t l0, size_t l1);
	/* Before the block's first backward step: its carry (and any state) at 0, its hp. */
	void (*backward_begin)(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0,
			       size_t l1);
	/* Step s backwards: the slot's dgx and dgh rows of step s and the carry's direct path. */
	void (*step_backward)(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0,
			      size_t l1, size_t s);
	/* After the block's dx, before its gradient sums (hp then holds h_{t-1}); NULL: none. */
	void (*backward_end)(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, size_t l0,
			     size_t l1);
	/* dW and dU of a block on lines of one step into part; NULL: td_mixer_block_weights. */
	int (*one_step_weights)(const td_mixer_rnn *j, const td_mixer_rnn_ws *sc, td_real *part,
				size_t p0, size_t p1);
};

/*
 * y from x ([lines][length][H]) through the recurrence: W^T and U^T into
 * w, then every block's copy of x, its steps and forward_end, on m's
 * threads. Fails only if a GEMM does.
 */
int td_mixer_rnn_forward(const td_mixer_rnn_ops *ops, td_mixer *m, td_mixer_rnn_ws *w, td_real *y,
			 const td_real *x, size_t lines, size_t length);

/*
 * dx from dy, and m's gradients += the parameters' (td_mixer_add_parts),
 * from what td_mixer_rnn_forward saved in w. Fails only if a GEMM does.
 */
int td_mixer_rnn_backward(const td_mixer_rnn_ops *ops, td_mixer *m, td_mixer_rnn_ws *w, td_real *dx,
			  const td_real *dy, size_t lines, size_t length);

/*
 * The attention softmax of one row (mixer_attention.c): w[j] for j < n, n a
 * multiple of 8, s's entries past the last key -infinity. Plain data in, out.
 */
void td_attention_softmax_row(td_real *w, const td_real *s, size_t n);

#endif
