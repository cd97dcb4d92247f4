/*
 * exec.h - where a model's arithmetic runs: an executor is a table of
 * operations on buffers in its own memory (the host's, or a GPU's), each
 * one launch of kernels/ops.h's bodies, so that one orchestration
 * (xmodel.c) drives every executor and the host's is checked against the
 * core bit for bit on any machine.
 *
 *   td_exec_host()   the host: the bodies in loops, td_gemm for products
 *   td_cuda_exec()   the GPU (kernels/backend.h): the bodies as kernels,
 *                    cuBLAS for products; NULL without CUDA
 *
 * Pointers passed to an operation are the executor's (from its alloc).
 * An operation may only queue its work: on the GPU it returns before the
 * work is done, and only download and wait_mark wait for it. Every operation returns
 * 0 or a TD_E* code with a message; none allocates.
 *
 * Must never: reduce in an order that depends on the executor's threads
 * or launch shape (each body sums in its own fixed order).
 */
#ifndef TD_EXEC_H
#define TD_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "real.h"

struct td_op_attn;
struct td_op_conv;
struct td_op_opt_state;

#define TD_EXEC_MARKS 2 /* the mark slots of mark and wait_mark */

typedef struct td_exec td_exec;

struct td_exec {
	const char *name; /* "host", "cuda" */
	/*
	 * Elements per part of the optimizer's gradient norm (opt_step), 0 for
	 * one part: the host's, whose norm is then td_adamw_step's bit for bit.
	 */
	size_t norm_part;
	/* bytes of zeroed memory in *(void **)out; release accepts NULL */
	int (*alloc)(const td_exec *x, void *out, size_t bytes);
	void (*release)(const td_exec *x, void *p);
	/*
	 * Host memory the executor uploads from without waiting for its queued
	 * work (page-locked, on the GPU): bytes of zeros in *(void **)out.
	 * host_release accepts NULL.
	 */
	int (*host_alloc)(const td_exec *x, void *out, size_t bytes);
	void (*host_release)(const td_exec *x, void *p);
	/*
	 * mark records, in slot k < TD_EXEC_MARKS, the work queued so far;
	 * wait_mark waits until that work is done (at once when k was never
	 * marked). What lets a caller reuse upload memory without waiting for
	 * anything queued after it.
	 */
	int (*mark)(const td_exec *x, int k);
	int (*wait_mark)(const td_exec *x, int k);
	/*
	 * host -> executor (from host_alloc memory, queued; from other memory
	 * the GPU waits for its queued work first), executor -> host (waits for
	 * queued work), executor -> executor
	 */
	int (*upload)(const td_exec *x, void *dst, const void *src, size_t bytes);
	int (*download)(const td_exec *x, void *dst, const void *src, size_t bytes);
	int (*copy)(const td_exec *x, void *dst, const void *src, size_t bytes);
	/*
	 * C = alpha op(A) op(B) + beta C, td_gemm's row-major layout (gemm.h);
	 * alpha is 1 but where the core's product subtracts (-1: the CLRU's)
	 */
	int (*gemm)(const td_exec *x, td_real *c, size_t ldc, const td_real *a, size_t lda,
		    const td_real *b, size_t ldb, size_t m, size_t n, size_t k, int trans_a,
		    int trans_b, td_real alpha, td_real beta);
	/*
	 * count of gemm's products, product i on a + i sa, b + i sb and c + i
	 * sc (strides in elements; 0 shares an operand): one launch where
	 * gemm would take count
	 */
	int (*gemm_batched)(const td_exec *x, td_real *c, size_t ldc, size_t sc, const td_real *a,
			    size_t lda, size_t sa, const td_real *b, size_t ldb, size_t sb,
			    size_t m, size_t n, size_t k, size_t count, int trans_a, int trans_b,
			    td_real alpha, td_real beta);
	/*
	 * dst [rows][channels] = a (+ b when b is not NULL) where the row's cell
	 * is present (td_op_present; rows = batch n_cells), else 0. dst may be a.
	 */
	int (*select)(const td_exec *x, td_real *dst, const td_real *a, const td_real *b,
		      const uint8_t *mask, const uint8_t *emask, size_t n_cells, size_t rows,
		      size_t channels);
	/* out [rows][n] += bias [n] */
	int (*bias_add)(const td_exec *x, td_real *out, const td_real *bias, size_t rows, size_t n);
	/* td_op_rmsnorm_row per row: y [rows][width], inv [rows] */
	int (*rmsnorm)(const td_exec *x, td_real *y, td_real *inv, const td_real *in,
		       const td_real *gain, size_t rows, size_t width);
	/* act[i] = relu(pre[i]) for i < n */
	int (*relu)(const td_exec *x, td_real *act, const td_real *pre, size_t n);
	/* td_op_fold_select over [batch][n_cells][channels] */
	int (*fold)(const td_exec *x, td_real *dst, const td_real *src, const size_t *map,
		    const uint8_t *mask, const uint8_t *emask, size_t batch, size_t n_cells,
		    size_t channels, int unfold);
	/* td_op_gather over [batch][n_to][channels] */
	int (*gather)(const td_exec *x, td_real *dst, const td_real *src, const size_t *map,
		      size_t batch, size_t n_from, size_t n_to, size_t channels);
	/* the conv's forward over lines lines (td_op_conv_forward); w the mixer's slab */
	int (*conv_forward)(const td_exec *x, td_real *y, const td_real *in, const td_real *w,
			    size_t lines, const struct td_op_conv *s);
	/*
	 * One head per cell: y [rows][out] from h [rows][width], weights wo
	 * [n_cells][out][width] and bias bo [out] (td_op_head_cell).
	 */
	int (*head_cell)(const td_exec *x, td_real *y, const td_real *h, const td_real *wo,
			 const td_real *bo, size_t rows, size_t n_cells, size_t width, size_t out);
	/* ---- the backward's ---- */
	/* n bytes of zeros at p */
	int (*zero)(const td_exec *x, void *p, size_t bytes);
	/* grad [n] += column sums of g [rows][n] (td_op_bias_grad) */
	int (*bias_grad)(const td_exec *x, td_real *grad, const td_real *g, size_t rows, size_t n);
	/*
	 * RMSNorm's backward: dx (add: dx +=) per row (td_op_rmsnorm_backward_row),
	 * then dgain += per channel (td_op_rmsnorm_dgain)
	 */
	int (*rmsnorm_backward)(const td_exec *x, td_real *dx, td_real *dgain, const td_real *dy,
				const td_real *in, const td_real *inv, const td_real *gain,
				size_t rows, size_t width, int add);
	/* d[i] = relu'(pre[i]) d[i], in place */
	int (*relu_backward)(const td_exec *x, td_real *d, const td_real *pre, size_t n);
	/*
	 * The conv's backward over lines lines: dx (written) from dy, then the
	 * slab's gradient g (added to) from dy and the forward's input, summed
	 * per chunk of chunk lines in chunk order, as block.c calls the mixer.
	 */
	int (*conv_backward)(const td_exec *x, td_real *dx, td_real *g, const td_real *dy,
			     const td_real *in, const td_real *w, size_t lines, size_t chunk,
			     const struct td_op_conv *s);
	/* The head per cell's backward: dh [rows][width] written, dwo and dbo added to. */
	int (*head_cell_backward)(const td_exec *x, td_real *dh, td_real *dwo, td_real *dbo,
				  const td_real *g, const td_real *h, const td_real *wo,
				  size_t batch, size_t n_cells, size_t width, size_t out);
	/* ---- the LRU's, on lines of two or more steps ---- */
	/* a[k] = td_op_lru_decay(w[k]) for k < n */
	int (*lru_decay)(const td_exec *x, td_real *a, const td_real *w, size_t n);
	/* per (line, state) of h [lines][length][n], in place: the recurrence, or with adjoint its adjoint */
	int (*lru_scan)(const td_exec *x, td_real *h, const td_real *a, size_t lines, size_t length,
			size_t n, int reverse, int adjoint);
	/* y[i] = d[i % c] in[i] for i < rows c (the skip path, forward and backward) */
	int (*scale)(const td_exec *x, td_real *y, const td_real *in, const td_real *d, size_t rows,
		     size_t c);
	/*
	 * One call's decay and skip gradients: gw[k] += td_op_lru_dw(the decay
	 * gradient of g and h, a[k], w[k]) for k < n, gd[k] += the skip
	 * gradient of dy and in for k < c.
	 */
	int (*lru_grads)(const td_exec *x, td_real *gw, td_real *gd, const td_real *g,
			 const td_real *h, const td_real *dy, const td_real *in, const td_real *a,
			 const td_real *w, size_t lines, size_t length, size_t n, size_t c,
			 int reverse);
	/*
	 * ---- the complex LRU's, on lines of two or more steps; its products
	 * are gemm's, its skip path scale ----
	 */
	/* td_op_clru_decay for k < n: a [2n], lambda's real parts, then its imaginary ones */
	int (*clru_decay)(const td_exec *x, td_real *a, const td_real *nu, const td_real *theta,
			  size_t n);
	/*
	 * per (line, state) of h [lines][length][2n], in place: the recurrence,
	 * or with adjoint its adjoint (td_op_clru_scan)
	 */
	int (*clru_scan)(const td_exec *x, td_real *h, const td_real *a, size_t lines,
			 size_t length, size_t n, int reverse, int adjoint);
	/*
	 * One call's decay and skip gradients: for k < n, dL/dlambda_k of g and
	 * h (td_op_clru_decay_grad), then gtheta[k] += td_op_clru_dtheta and
	 * gnu[k] += td_op_clru_dnu of it, a and nu; gd[k] += the skip gradient
	 * of dy and in (td_op_lru_skip_grad) for k < c.
	 */
	int (*clru_grads)(const td_exec *x, td_real *gnu, td_real *gtheta, td_real *gd,
			  const td_real *g, const td_real *h, const td_real *dy, const td_real *in,
			  const td_real *a, const td_real *nu, size_t lines, size_t length,
			  size_t n, size_t c, int reverse);
	/*
	 * ---- the recurrences' map on lines of one step: y = x M, its products
	 * are gemm's ----
	 */
	/*
	 * td_op_product for every (r, s) of nr x ns (core/mixer.c's
	 * td_mixer_products): M from the tensors, and their gradients from dM
	 */
	int (*products)(const td_exec *x, td_real *out, size_t ors, size_t oss, const td_real *p,
			size_t prs, size_t pts, const td_real *q, size_t qrs, size_t qts, size_t nr,
			size_t ns, size_t nt, const td_real *diag, int mode);
	/* g[i] += dm[i c + i] for i < c: the skip's gradient, dM's diagonal */
	int (*diag_add)(const td_exec *x, td_real *g, const td_real *dm, size_t c);
	/*
	 * ---- the axial kernel's contractions: the products are gemm's, block
	 * by block ----
	 */
	/* td_op_kernel_mass for every cell of one example ([outer][n][inner] cells) */
	int (*kernel_masses)(const td_exec *x, td_real *den, td_real *deg, const td_real *k,
			     const uint8_t *mask, size_t n_cells, size_t n, size_t inner,
			     double cancel);
	/* td_op_kernel_renorm over out [rows][c] */
	int (*kernel_renorm)(const td_exec *x, td_real *out, const td_real *den, const td_real *deg,
			     const uint8_t *mask, size_t rows, size_t n_cells, size_t c);
	/* td_op_kernel_rows for every row < rows */
	int (*kernel_rows)(const td_exec *x, td_real *r, td_real *q, const td_real *g,
			   const td_real *out, const td_real *den, const td_real *deg, size_t rows,
			   size_t n_cells, size_t c);
	/* td_op_kernel_dk for every entry of dk [n][n] */
	int (*kernel_dk)(const td_exec *x, td_real *dk, const td_real *sk, const td_real *q,
			 const uint8_t *mask, size_t blocks, size_t outer, size_t n, size_t inner,
			 size_t n_cells);
	/*
	 * ---- the recurrences' (GRU, LSTM), on lines of two or more steps;
	 * their products are gemm's, a block's bias sums bias_grad's ----
	 */
	/* td_op_shift_prev per element of prev [lines][length][width]: h_{t-1} per position */
	int (*shift_prev)(const td_exec *x, td_real *prev, const td_real *src, size_t lines,
			  size_t length, size_t width, int reverse);
	/* td_op_gru_step per (line, channel) of step q: gates g and states hs from gh, b and c */
	int (*gru_step)(const td_exec *x, td_real *g, td_real *hs, const td_real *gh,
			const td_real *b, const td_real *c, size_t lines, size_t length, size_t h,
			size_t q, int reverse);
	/* td_op_gru_step_back per (line, channel) of step q: dgx, dgh and the carry */
	int (*gru_step_back)(const td_exec *x, td_real *dgx, td_real *dgh, td_real *carry,
			     const td_real *g, const td_real *dy, const td_real *hp, size_t lines,
			     size_t length, size_t h, size_t q, int reverse);
	/*
	 * td_op_lstm_step per (line, channel) of step q: gates g, cell states
	 * ss, their tanh ts and states hs from gh, b and c
	 */
	int (*lstm_step)(const td_exec *x, td_real *g, td_real *ss, td_real *ts, td_real *hs,
			 const td_real *gh, const td_real *b, const td_real *c, size_t lines,
			 size_t length, size_t h, size_t q, int reverse);
	/* td_op_lstm_step_back per (line, channel) of step q: dg and ds, dh read */
	int (*lstm_step_back)(const td_exec *x, td_real *dg, const td_real *dh, td_real *ds,
			      const td_real *g, const td_real *ts, const td_real *sp,
			      const td_real *dy, size_t lines, size_t length, size_t h, size_t q,
			      int reverse);
	/* grad[e] += td_op_add_parts of parts [n][stride] for e < count: blocks' sums in order */
	int (*add_parts)(const td_exec *x, td_real *grad, const td_real *parts, size_t n,
			 size_t stride, size_t count);
	/*
	 * ---- the attention's pairs (lines of every length; its projections
	 * are gemm's and bias_add's, a block's bias sums bias_grad's) ----
	 */
	/* td_op_attend per (line, head, step) of lines lines: att and ctx from qkv */
	int (*attend)(const td_exec *x, td_real *att, td_real *ctx, const td_real *qkv,
		      size_t lines, const struct td_op_attn *a);
	/*
	 * td_op_attend_back_query per (line, head, step), then
	 * td_op_attend_back_key: dqkv written, ds (att's size) scratch
	 */
	int (*attend_backward)(const td_exec *x, td_real *dqkv, td_real *ds, const td_real *att,
			       const td_real *qkv, const td_real *dctx, size_t lines,
			       const struct td_op_attn *a);
	/* ---- the loss and the optimizer (the training step) ---- */
	/*
	 * The batch's cross-entropy: per example b, td_op_xent over its present
	 * cells (td_op_present of mask and emask; emask may be NULL) with scale
	 * 1 / batch, dy [batch][n_cells][k] written. Then, in one thread and in
	 * example order, as core/train.c sums them: mean = (the examples'
	 * losses summed from 0) / batch; acc[0] += mean, acc[1] += mean batch,
	 * acc[2] += the examples whose arg max is their label. loss [batch],
	 * best [batch] and present [batch][n_cells] are scratch.
	 */
	int (*xent)(const td_exec *x, td_real *dy, double *acc, double *loss, int *best,
		    uint8_t *present, const td_real *y, const int *labels, const uint8_t *mask,
		    const uint8_t *emask, size_t batch, size_t n_cells, size_t k);
	/*
	 * One AdamW step on the executor (kernels/ops.h): the norm in parts of
	 * norm_part elements (part and bad: one per part, scratch), the
	 * decision td_op_opt_decide on st at rate lr (lr(s), taken by the
	 * caller), and where it applied, the update of p, m and v from g.
	 */
	int (*opt_step)(const td_exec *x, struct td_op_opt_state *st, td_real *p, td_real *m,
			td_real *v, const td_real *g, size_t n, double *part, size_t *bad,
			double lr, double clip, double weight_decay, const double *bc1,
			const double *bc2);
};

/*
 * One allocation of executor memory carved into a caller's buffers. The
 * caller takes its buffers twice: first counting (base NULL: each take
 * adds its size and yields NULL), then, once base is one alloc of the
 * count, carving (each take yields the next piece). Pieces start at
 * multiples of TD_EXEC_ALIGN bytes from base (what cudaMalloc gives).
 */
#define TD_EXEC_ALIGN 256

/* Poisoned bytes after each piece under AddressSanitizer (exec.c), else none. */
#if defined(__SANITIZE_ADDRESS__)
#define TD_EXEC_REDZONE TD_EXEC_ALIGN
#else
#define TD_EXEC_REDZONE 0
#endif

typedef struct td_exec_pool {
	unsigned char *base; /* NULL while counting */
	size_t used;	     /* bytes taken so far; SIZE_MAX once a size wrapped */
} td_exec_pool;

/*
 * *(void **)out = the next count * size bytes of p (NULL while counting,
 * or once used wrapped).
 */
void td_exec_take(td_exec_pool *p, void *out, size_t count, size_t size);

/* The host's executor: plain memory, the bodies in loops, td_gemm on one thread. */
const td_exec *td_exec_host(void);

#endif
