/*
 * xmodel.c - a td_model computed by an executor (see xmodel.h).
 *
 * The forward is model.c's, operation for operation, each operation one
 * executor call over every row (R = batch n_cells rows of the stream):
 *
 *   xs  = select(x);  h_0 = select(xs We^T + be)
 *   layer l:  n = rmsnorm_l(h_l) (made by the previous layer's last pass)
 *             xf_l = fold_l(select(n));  u = select(unfold_l(mixer_l(xf_l)))
 *             m_l = select(h_l + u)
 *             with the MLP: h_l+1 = select(m_l + W2 relu(W1 rmsnorm'_l(m_l) + b1) + b2)
 *   y   = select(head(h_L))
 *
 * and the backward is td_model_backward's, in its order, each gradient
 * summed as the core sums it (a mixer's gradients per chunk of lines, in
 * the chunks block.c gives the mixer). The mixer is the conv, the LRU,
 * the complex LRU, the GRU, the LSTM or attention (mixer_lru.c's,
 * mixer_clru.c's, mixer_gru.c's, mixer_lstm.c's and mixer_attention.c's
 * operations per call; on lines of one step, the LRU's and the CLRU's map
 * y = x M, the GRU's and the LSTM's dU left alone, the LSTM's forget gate
 * 0, attention's pairs of one key, which give its value path's bits).
 * The GRU's, the LSTM's and attention's (on lines of two or more steps)
 * weight gradients are summed per block of a call's lines
 * (td_mixer_blocks), each block into its own part, the parts added in
 * block order, as mixer_rnn.c and mixer_attention.c sum them.
 *
 * fold is the scan's along its axis; a flatten block gathers its
 * sequence instead (td_op_gather), and a kernel block first contracts its
 * spatial axes (family_kernel.c's products, one per block, and its
 * renormalisation), then folds along time, or makes every cell a line of
 * one step where there is no time.
 *
 * Executor memory, one allocation at construction carved into these
 * (exec.h's td_exec_pool; R for max_batch):
 *   params [P], grads [P] the slabs, the host model's layout
 *   mask [n_cells]        the lattice's
 *   map [L][2][n_cells]   each layer's fold and unfold
 *   xs [R][in], h [L+1][R][w], inv [L][R], n [R][w], u [R][w], yf [R][w]
 *   xf [L][R][w]          each layer's folded input (its mixer's saved x)
 *   with the LRU (N states, S = N values a state): la [L][S] decays,
 *                        lh [L][R][S] states, lg [R][S] adjoints
 *   with the CLRU the same with S = 2N (each state's real parts, then its
 *                        imaginary ones)
 *   where either sweeps lines of one step: mm [L][w][w] each layer's M,
 *                        dm [w][w] dM
 *   with the kernel family (S spatial axes): kz [L][S+1][R][w] each
 *                        contraction's input and output (saved), kden and
 *                        kdeg [L][S][n_cells] its masses (saved), kr [R][w],
 *                        kq [R], ksk [R][n_max] its backward's R, q and R Z^T
 *   with the GRU (G = 3 gate blocks, B = the most blocks a call takes, n
 *                        = a mixer's parameters): rg [L][R][4w] the gates,
 *                        rh [L][R][w] the states, and the scratch rgh [R][Gw]
 *                        (h_{t-1} U^T), rdx, rdh [R][Gw] (dgx, dgh), rhp [R][w]
 *                        (h_{t-1}), rcarry [R][w], parts [B][n]
 *   with the LSTM the same with G = 4 and no rdh (rdx is dg), and rs, rts
 *                        [L][R][w] the cell states and their tanh, the
 *                        scratch rsp, rds [R][w] (s_{t-1}, its adjoint)
 *   with attention (A = the most weights of any layer at max_batch: its
 *                        lines, heads, length and row stride): aqkv
 *                        [L][R][3w] q, k and v, actx [L][R][w] the heads'
 *                        outputs, aatt [L][A] the weights (saved), the
 *                        scratch ads [A] (ds), adctx [R][w], adqkv [R][3w],
 *                        parts [B][n] as the GRU's
 *   with the MLP: hm [L][R][w], inv2 [L][R], pre [L][R][F], act [R][F]
 *   the backward's: g, gn, zf [R][w], gy [R][out], with the MLP dact [R][F]
 *
 * Must never: compute a model it was not built for (refused at
 * construction), or select by multiplication.
 */
#include "xmodel.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../kernels/ops.h"
#include "axial.h"
#include "block_int.h"
#include "mixer.h"
#include "mixer_int.h"

/* The recurrences' tensors, in lru_setup's and clru_setup's order. */
enum { LRU_B, LRU_W, LRU_C, LRU_D };
enum { CLRU_BRE, CLRU_BIM, CLRU_NU, CLRU_THETA, CLRU_CRE, CLRU_CIM, CLRU_D, N_TENSORS };
enum { RNN_W, RNN_U, RNN_B, RNN_C }; /* the GRU's and the LSTM's (mixer_int.h) */
enum { ATT_WQKV, ATT_BQKV, ATT_WO, ATT_BO };

typedef struct {
	td_mixer_kind kind; /* TD_MIXER_CONV, _LRU, _CLRU, _GRU, _LSTM or _ATTENTION */
	size_t mixer;	    /* offset of the mixer's slab (the conv's: w [K][w], then bias [w]) */
	/*
	 * the recurrence's tensors' offsets: the LRU's B [N][w], w [N], C
	 * [w][N], D [w]; the CLRU's B_re, B_im [N][w], nu, theta [N], C_re,
	 * C_im [w][N], D [w]; the GRU's W, U [3w][w], b, c [3w], the
	 * LSTM's the same with 4w; attention's Wqkv [3w][w], bqkv [3w], Wo
	 * [w][w], bo [w]
	 */
	size_t t[N_TENSORS];
	td_op_conv conv;    /* the conv's shape, and the line's length for every mixer */
	td_op_attn attn;    /* attention's shape */
	size_t lines;	    /* lines of one example (line_count) */
	size_t chunk;	    /* lines per mixer call (block.c's call_lines) */
	size_t *fold, *unfold; /* executor memory, n_cells each */
	int flat;	       /* a flatten block: fold is its sequence, unfold its inverse */
	int n_sp;	       /* a kernel block's spatial axes (0: not a kernel block) */
	struct {
		size_t n, inner, outer, k; /* td_block_kernel_axis, k the kernel's offset */
	} ax[TD_LATTICE_MAX_RANK];
	double cancel; /* the kernel block's */
} xlayer;

struct td_xmodel {
	const td_exec *x;
	td_model_opts o;
	int n_layers;
	size_t n_cells, rows, n_params;
	size_t we, be, gain, wo, bo, g2, w1, b1, w2, b2; /* the slab's offsets, as model.c's */
	xlayer *layer;					/* [n_layers] */
	const uint8_t *emask;				/* executor memory, borrowed */
	td_real *params, *grads;
	uint8_t *mask;
	size_t *maps;
	td_real *xs, *h, *inv, *n, *u, *yf, *xf, *hm, *inv2, *pre, *act;
	td_real *g, *gn, *gy, *zf, *dact; /* the backward's */
	size_t state;			  /* the LRU's or the CLRU's N; 0 for the conv */
	size_t sw;			  /* values a state: N (LRU) or 2N (CLRU, re | im) */
	td_real *la, *lh, *lg;		  /* decays [L][S], states [L][R][S], adjoints [R][S] */
	int one_step;			  /* the LRU or the CLRU sweeps lines of one step */
	td_real *mm, *dm;		  /* their maps M [L][w][w] and dM [w][w] */
	int kern;			  /* the kernel family: its spatial axes (S) */
	size_t nmax;			  /* and the largest */
	td_real *kz, *kden, *kdeg;	  /* [L][S+1][R][w], [L][S][n_cells] twice */
	td_real *kr, *kq, *ksk;		  /* R [R][w], q [R], R Z^T [R n_max] */
	size_t gates;			  /* G gate blocks: 3 (GRU), 4 (LSTM), 0 (others) */
	size_t n_blocks;		  /* the most blocks a call takes (td_mixer_blocks) */
	size_t mixer_params;		  /* a layer's mixer's parameters: a part's length */
	td_real *rg, *rh;		  /* saved gates [L][R][4w], states h [L][R][w] */
	td_real *rs, *rts;		  /* the LSTM's cell states, their tanh [L][R][w] */
	td_real *rgh, *rdx, *rdh;	  /* scratch: h_{t-1} U^T, dgx, the GRU's dgh [R][G w] */
	td_real *rhp, *rcarry;		  /* scratch [R][w]: h_{t-1} per position, the carry */
	td_real *rsp, *rds;		  /* the LSTM's scratch [R][w]: s_{t-1}, its adjoint */
	td_real *parts;			  /* [n_blocks][mixer_params] a call's blocks' sums */
	size_t att;			  /* attention: A, a layer's weights */
	td_real *aqkv, *actx, *aatt;	  /* saved [L][R][3w], [L][R][w], [L][A] */
	td_real *ads, *adctx, *adqkv;	  /* scratch [A], [R][w], [R][3w] */
	td_exec_pool pool;		  /* every buffer above; base the one allocation */
	void *extra;			  /* the caller's bytes, at the pool's end */
};

/* The offset of the model's group called name, or SIZE_MAX. */
static size_t group_at(td_model *m, const char *name)
{
	for (size_t i = 0; i < td_model_n_groups(m); i++) {
		td_param_group g = td_model_group(m, i);

		if (strcmp(g.name, name) == 0)
			return (size_t)(g.value - td_model_params(m));
	}
	return SIZE_MAX;
}

/*
 * The length of block b's lines: along its axis (scan), its present cells
 * (flatten), along time or 1 (kernel).
 */
static size_t line_length(const td_block *b)
{
	const int time = td_lattice_time_axis(b->lat);

	if (td_block_family_of(b) == TD_BLOCK_FLATTEN)
		return td_lattice_n_present(b->lat);
	if (td_block_family_of(b) == TD_BLOCK_KERNEL)
		return time < 0 ? 1 : td_lattice_size(b->lat, time);
	return td_lattice_size(b->lat, td_lattice_axis(b->lat, b->o.axis));
}

/* Block b's lines in one example: one (flatten), else its cells over line_length. */
static size_t line_count(const td_block *b)
{
	if (td_block_family_of(b) == TD_BLOCK_FLATTEN)
		return 1;
	return td_lattice_n_cells(b->lat) / line_length(b);
}

/*
 * A mixer the executor path does not compute, refused before anything is
 * allocated: none of the core's today; each kind is named, so that one
 * added to the core is refused here until this file computes it.
 */
static int check_model(td_model *m)
{
	const td_model_opts *o = td_model_options(m);

	if (o->mixer.kind != TD_MIXER_CONV && o->mixer.kind != TD_MIXER_LRU &&
	    o->mixer.kind != TD_MIXER_CLRU && o->mixer.kind != TD_MIXER_GRU &&
	    o->mixer.kind != TD_MIXER_LSTM && o->mixer.kind != TD_MIXER_ATTENTION)
		return TD_FAIL(TD_ENOTSUP, "the executor path has no %s mixer",
			       td_mixer_kind_name(td_block_mixer(td_model_block(m, 0))));
	return 0;
}

static void take_reals(td_xmodel *xm, td_real **p, size_t n)
{
	td_exec_take(&xm->pool, p, n, sizeof **p);
}

/* The slab's offsets, from the host model's groups. */
static void find_offsets(td_xmodel *xm, td_model *m)
{
	xm->we = group_at(m, "embed.w"), xm->be = group_at(m, "embed.b");
	xm->gain = group_at(m, "norm.gain"), xm->wo = group_at(m, "head.w");
	xm->bo = group_at(m, "head.b");
	xm->g2 = group_at(m, "ffn.gain"), xm->w1 = group_at(m, "ffn.w1");
	xm->b1 = group_at(m, "ffn.b1"), xm->w2 = group_at(m, "ffn.w2");
	xm->b2 = group_at(m, "ffn.b2");
}

/*
 * A flatten layer's maps, in host memory: fold [n] the sequence's cells
 * (the block's own), unfold [n_cells] each cell's position or SIZE_MAX.
 */
static int flatten_maps(size_t **fold, size_t **unfold, size_t *n, const td_block *b)
{
	const size_t *seq = td_block_flatten_seq(b, n);

	*fold = malloc(*n * sizeof **fold), *unfold = malloc(b->n_cells * sizeof **unfold);
	if (!*fold || !*unfold)
		return TD_FAIL(TD_ENOMEM, "out of memory for a flatten layer's maps");
	memcpy(*fold, seq, *n * sizeof *seq);
	for (size_t c = 0; c < b->n_cells; c++)
		(*unfold)[c] = SIZE_MAX;
	for (size_t p = 0; p < *n; p++)
		(*unfold)[seq[p]] = p;
	return 0;
}

/* Maps of n cells that leave each where it is, in host memory. */
static int identity_maps(size_t **fold, size_t **unfold, size_t n)
{
	*fold = malloc(n * sizeof **fold), *unfold = malloc(n * sizeof **unfold);
	if (!*fold || !*unfold)
		return TD_FAIL(TD_ENOMEM, "out of memory for a kernel layer's maps");
	for (size_t c = 0; c < n; c++)
		(*fold)[c] = (*unfold)[c] = c;
	return 0;
}

/* A kernel block's spatial axes, their kernels' offsets in the slab, and its guard. */
static void kernel_axes(xlayer *xl, td_model *m, const td_block *b)
{
	td_block_kernel_axis ax[TD_LATTICE_MAX_RANK];

	xl->n_sp = td_block_kernel_axes(b, ax);
	for (int a = 0; a < xl->n_sp; a++) {
		xl->ax[a].n = ax[a].n, xl->ax[a].inner = ax[a].inner, xl->ax[a].outer = ax[a].outer;
		xl->ax[a].k = (size_t)(ax[a].k - td_model_params(m));
	}
	xl->cancel = b->o.cancel;
}

/* Attention's shape on lines of length steps: mixer_attention.c's row stride and scale. */
static td_op_attn attn_shape(const td_mixer_opts *mo, size_t length)
{
	const size_t d = mo->channels / mo->heads;

	return (td_op_attn){length, mo->heads, d, length == 1 ? 1 : (length + 7) / 8 * 8,
			    (td_real)(1 / sqrt((double)d)), mo->causal, mo->reverse};
}

/* Layer l's mixer, lines and maps (a scan's fold, a flatten's sequence), uploaded into xm->maps. */
static int build_layer(td_xmodel *xm, td_model *m, int l)
{
	td_block *b = td_model_block(m, l);
	const td_mixer_opts *mo = td_mixer_options(td_block_mixer(b));
	xlayer *xl = &xm->layer[l];
	td_fold *f = NULL;
	size_t most = 1, *fold = NULL, *unfold = NULL, length = 0, n_fold = xm->n_cells;
	int err;

	xl->flat = td_block_family_of(b) == TD_BLOCK_FLATTEN;
	if (td_block_family_of(b) == TD_BLOCK_KERNEL)
		kernel_axes(xl, m, b);
	if (xl->flat) {
		err = flatten_maps(&fold, &unfold, &length, b);
		n_fold = length, xl->lines = 1;
	} else if (td_block_family_of(b) == TD_BLOCK_KERNEL && td_lattice_time_axis(b->lat) < 0) {
		err = identity_maps(&fold, &unfold, xm->n_cells); /* every cell a line of one */
		length = 1, xl->lines = xm->n_cells;
	} else if (!(err = td_fold_new(&f, b->lat,
				       td_block_family_of(b) == TD_BLOCK_KERNEL
					   ? td_lattice_time_axis(b->lat)
					   : td_lattice_axis(b->lat, b->o.axis)))) {
		fold = f->fold, unfold = f->unfold, length = f->length, xl->lines = f->lines;
	}
	xl->kind = mo->kind;
	xl->mixer = (size_t)(td_mixer_params(td_block_mixer(b)) - td_model_params(m));
	for (size_t i = 0; xl->kind != TD_MIXER_CONV && i < td_mixer_n_tensors(td_block_mixer(b));
	     i++) {
		assert(i < N_TENSORS);
		xl->t[i] = xl->mixer + td_mixer_tensor_at(td_block_mixer(b), i)->offset;
	}
	xl->fold = xm->maps + (size_t)l * 2 * xm->n_cells, xl->unfold = xl->fold + xm->n_cells;
	assert(err || xl->lines == line_count(b)); /* parts_shape's and attn_weights' count */
	if (!err) {
		xl->conv = (td_op_conv){mo->kernel_size, mo->dilation, mo->channels, length,
					mo->reverse};
		if (xl->kind == TD_MIXER_ATTENTION)
			xl->attn = attn_shape(mo, length);
		for (int a = 0; length == 1 && a < td_lattice_rank(b->lat); a++) /* call_lines */
			most = td_lattice_size(b->lat, a) > most ? td_lattice_size(b->lat, a) : most;
		xl->chunk = b->o.chunk > SIZE_MAX / most ? SIZE_MAX : b->o.chunk * most;
		err = xm->x->upload(xm->x, xl->fold, fold, n_fold * sizeof *fold);
	}
	if (!err)
		err = xm->x->upload(xm->x, xl->unfold, unfold, xm->n_cells * sizeof *unfold);
	if (!f)
		free(fold), free(unfold);
	td_fold_free(f);
	return err;
}

/*
 * Before the buffers, for the mixers that sum their weight gradients in
 * blocks (the GRU, the LSTM, attention): a mixer's parameter count (a
 * block's part) and the most blocks of any call (block.c's calls of a
 * layer are at most chunk lines, and at most the batch's lines;
 * td_mixer_blocks grows with the lines).
 */
static void parts_shape(td_xmodel *xm, td_model *m)
{
	xm->mixer_params = td_mixer_n_params(td_block_mixer(td_model_block(m, 0)));
	for (int l = 0; l < xm->n_layers; l++) {
		const td_block *b = td_model_block(m, l);
		const size_t len = line_length(b), lines = xm->o.max_batch * line_count(b);
		const size_t call = b->o.chunk < lines ? b->o.chunk : lines;
		const size_t n = td_mixer_blocks(call, len);

		xm->n_blocks = n > xm->n_blocks ? n : xm->n_blocks;
	}
}

/*
 * Attention's A: the most weights of any layer over the largest batch's
 * lines, each (line, head) length rows of its stride; a count too large
 * for the executor's memory stays too large (SIZE_MAX / its size).
 */
static size_t attn_weights(const td_xmodel *xm, td_model *m)
{
	const size_t most = SIZE_MAX / sizeof(td_real);
	size_t a = 0;

	for (int l = 0; l < xm->n_layers; l++) {
		const td_block *b = td_model_block(m, l);
		const td_mixer_opts *mo = td_mixer_options(td_block_mixer(b));
		const td_op_attn s = attn_shape(mo, line_length(b));
		size_t n;

		if (__builtin_mul_overflow(xm->o.max_batch * line_count(b), s.heads, &n) ||
		    __builtin_mul_overflow(n, s.length * s.tp, &n) || n > most)
			return most;
		a = n > a ? n : a;
	}
	return a;
}

/* Every buffer, taken from xm->pool (counted while its base is NULL), then the extra bytes. */
static void take_buffers(td_xmodel *xm, size_t extra)
{
	const size_t r = xm->rows, w = xm->o.width, l = (size_t)xm->n_layers, f = xm->o.ffn;

	take_reals(xm, &xm->params, xm->n_params), take_reals(xm, &xm->grads, xm->n_params);
	take_reals(xm, &xm->g, r * w), take_reals(xm, &xm->gn, r * w);
	take_reals(xm, &xm->gy, r * xm->o.out), take_reals(xm, &xm->zf, r * w);
	td_exec_take(&xm->pool, &xm->mask, xm->n_cells, 1);
	td_exec_take(&xm->pool, &xm->maps, l * 2, xm->n_cells * sizeof *xm->maps);
	take_reals(xm, &xm->xs, r * xm->o.in), take_reals(xm, &xm->h, (l + 1) * r * w);
	take_reals(xm, &xm->inv, l * r), take_reals(xm, &xm->n, r * w);
	take_reals(xm, &xm->u, r * w), take_reals(xm, &xm->yf, r * w);
	take_reals(xm, &xm->xf, l * r * w);
	if (xm->sw) {
		take_reals(xm, &xm->la, l * xm->sw), take_reals(xm, &xm->lh, l * r * xm->sw);
		take_reals(xm, &xm->lg, r * xm->sw);
	}
	if (xm->gates) {
		take_reals(xm, &xm->rg, l * r * 4 * w), take_reals(xm, &xm->rh, l * r * w);
		take_reals(xm, &xm->rgh, r * xm->gates * w);
		take_reals(xm, &xm->rdx, r * xm->gates * w);
		take_reals(xm, &xm->rhp, r * w), take_reals(xm, &xm->rcarry, r * w);
	}
	if (xm->gates || xm->att)
		take_reals(xm, &xm->parts, xm->n_blocks * xm->mixer_params);
	if (xm->gates == 3)
		take_reals(xm, &xm->rdh, r * 3 * w);
	if (xm->gates == 4) {
		take_reals(xm, &xm->rs, l * r * w), take_reals(xm, &xm->rts, l * r * w);
		take_reals(xm, &xm->rsp, r * w), take_reals(xm, &xm->rds, r * w);
	}
	if (xm->one_step)
		take_reals(xm, &xm->mm, l * w * w), take_reals(xm, &xm->dm, w * w);
	if (xm->att) {
		take_reals(xm, &xm->aqkv, l * r * 3 * w), take_reals(xm, &xm->actx, l * r * w);
		td_exec_take(&xm->pool, &xm->aatt, l, xm->att * sizeof *xm->aatt);
		take_reals(xm, &xm->ads, xm->att), take_reals(xm, &xm->adctx, r * w);
		take_reals(xm, &xm->adqkv, r * 3 * w);
	}
	if (xm->kern) {
		const size_t sp = (size_t)xm->kern;

		take_reals(xm, &xm->kz, l * (sp + 1) * r * w);
		take_reals(xm, &xm->kden, l * sp * xm->n_cells);
		take_reals(xm, &xm->kdeg, l * sp * xm->n_cells);
		take_reals(xm, &xm->kr, r * w), take_reals(xm, &xm->kq, r);
		take_reals(xm, &xm->ksk, r * xm->nmax);
	}
	if (f) {
		take_reals(xm, &xm->hm, l * r * w), take_reals(xm, &xm->inv2, l * r);
		take_reals(xm, &xm->pre, l * r * f), take_reals(xm, &xm->act, r * f);
		take_reals(xm, &xm->dact, r * f);
	}
	td_exec_take(&xm->pool, &xm->extra, extra, 1);
}

/* The pool: its size counted, one allocation, the buffers carved from it. */
static int build_buffers(td_xmodel *xm, size_t extra)
{
	size_t bytes;
	int err;

	take_buffers(xm, extra);
	if ((bytes = xm->pool.used) == SIZE_MAX)
		return TD_FAIL(TD_EINVAL, "the executor's memory for %zu rows of width %zu and "
					  "%zu parameters does not fit in a size_t",
			       xm->rows, xm->o.width, xm->n_params);
	if ((err = xm->x->alloc(xm->x, &xm->pool.base, bytes)))
		return err;
	xm->pool.used = 0;
	take_buffers(xm, extra);
	return 0;
}

int td_xmodel_new(td_xmodel **out, const td_exec *x, td_model *m)
{
	return td_xmodel_new_pooled(out, x, m, 0);
}

int td_xmodel_new_pooled(td_xmodel **out, const td_exec *x, td_model *m, size_t extra)
{
	td_xmodel *xm;
	uint8_t *mask = NULL;
	int err;

	*out = NULL;
	if ((err = check_model(m)))
		return err;
	if (!(xm = calloc(1, sizeof *xm)))
		return TD_FAIL(TD_ENOMEM, "out of memory for an executor's model");
	xm->x = x, xm->o = *td_model_options(m), xm->n_layers = td_model_n_layers(m);
	xm->n_cells = td_model_block(m, 0)->n_cells, xm->rows = xm->o.max_batch * xm->n_cells;
	xm->n_params = td_model_n_params(m);
	if (xm->o.mixer.kind == TD_MIXER_GRU || xm->o.mixer.kind == TD_MIXER_LSTM) {
		xm->gates = xm->o.mixer.kind == TD_MIXER_GRU ? 3 : 4;
		parts_shape(xm, m);
	} else if (xm->o.mixer.kind == TD_MIXER_ATTENTION) {
		xm->att = attn_weights(xm, m);
		parts_shape(xm, m);
	} else if (xm->o.mixer.kind != TD_MIXER_CONV) {
		xm->state = td_mixer_options(td_block_mixer(td_model_block(m, 0)))->state;
		xm->sw = xm->o.mixer.kind == TD_MIXER_CLRU ? 2 * xm->state : xm->state;
		for (int l = 0; l < xm->n_layers; l++)
			xm->one_step |= line_length(td_model_block(m, l)) == 1;
	}
	if (xm->o.family == TD_BLOCK_KERNEL) {
		td_block_kernel_axis ax[TD_LATTICE_MAX_RANK];

		xm->kern = td_block_kernel_axes(td_model_block(m, 0), ax);
		for (int a = 0; a < xm->kern; a++)
			xm->nmax = ax[a].n > xm->nmax ? ax[a].n : xm->nmax;
	}
	find_offsets(xm, m);
	if (!(xm->layer = calloc((size_t)xm->n_layers, sizeof *xm->layer)))
		err = TD_FAIL(TD_ENOMEM, "out of memory for %d layers", xm->n_layers);
	if (!err && !(err = build_buffers(xm, extra)) &&
	    !(err = td_lattice_mask(td_model_block(m, 0)->lat, &mask)))
		err = x->upload(x, xm->mask, mask, xm->n_cells);
	free(mask);
	for (int l = 0; !err && l < xm->n_layers; l++)
		err = build_layer(xm, m, l);
	if (!err)
		err = td_xmodel_upload_params(xm, td_model_params(m));
	if (err) {
		td_xmodel_free(xm);
		return err;
	}
	*out = xm;
	return 0;
}

void td_xmodel_free(td_xmodel *xm)
{
	if (!xm)
		return;
	xm->x->release(xm->x, xm->pool.base);
	free(xm->layer);
	free(xm);
}

void *td_xmodel_extra(td_xmodel *xm)
{
	return xm->extra;
}

int td_xmodel_upload_params(td_xmodel *xm, const td_real *params)
{
	return xm->x->upload(xm->x, xm->params, params, xm->n_params * sizeof *params);
}

int td_xmodel_download(td_xmodel *xm, td_real *params, td_real *grads)
{
	const size_t bytes = xm->n_params * sizeof *xm->params;
	int err = params ? xm->x->download(xm->x, params, xm->params, bytes) : 0;

	return err || !grads ? err : xm->x->download(xm->x, grads, xm->grads, bytes);
}

td_real *td_xmodel_params(td_xmodel *xm)
{
	return xm->params;
}

td_real *td_xmodel_grads(td_xmodel *xm)
{
	return xm->grads;
}

size_t td_xmodel_n_params(const td_xmodel *xm)
{
	return xm->n_params;
}

int td_xmodel_zero_grads(td_xmodel *xm)
{
	return xm->x->zero(xm->x, xm->grads, xm->n_params * sizeof *xm->grads);
}

int td_xmodel_set_example_mask(td_xmodel *xm, const uint8_t *mask)
{
	if (mask && xm->o.family != TD_BLOCK_SCAN) /* as td_block_set_example_mask refuses */
		return TD_FAIL(TD_ENOTSUP, "absent cells per example: the %s family builds its "
					   "masks once from the lattice and cannot take them; use "
					   "the scan family (composition = axial_scan)",
			       xm->o.family == TD_BLOCK_KERNEL ? "kernel" : "flatten");
	xm->emask = mask;
	return 0;
}

/* buf [rows][channels] = select(buf (+ b)). */
static int sel(const td_xmodel *xm, td_real *dst, const td_real *a, const td_real *b, size_t rows,
	       size_t channels)
{
	return xm->x->select(xm->x, dst, a, b, xm->mask, xm->emask, xm->n_cells, rows, channels);
}

/* out [rows][n] = in [rows][k] W^T + bias, W at offset wt [n][k] (model.c's linear). */
static int linear(const td_xmodel *xm, td_real *out, const td_real *in, size_t rows, size_t n,
		  size_t k, size_t wt, size_t bias)
{
	int err = xm->x->gemm(xm->x, out, n, in, k, xm->params + wt, k, rows, n, k, 0, 1, 1, 0);

	return err ? err : xm->x->bias_add(xm->x, out, xm->params + bias, rows, n);
}

/* The norm layer l + 1 reads, of rows rows of src; none after the last layer. */
static int next_norm(const td_xmodel *xm, int l, const td_real *src, size_t r)
{
	const size_t w = xm->o.width, next = (size_t)l + 1;

	if (l + 1 >= xm->n_layers)
		return 0;
	return xm->x->rmsnorm(xm->x, xm->n, xm->inv + next * xm->rows, src,
			      xm->params + xm->gain + next * w, r, w);
}

/*
 * M of layer l's recurrence on lines of one step, into its mm (the
 * one_step_forward of mixer_lru.c and mixer_clru.c): M[i][j] = D[i] (i ==
 * j) + sum_k B[k][i] C[j][k], for the CLRU of B_re and C_re, then less
 * the same of B_im and C_im.
 */
static int map_make(const td_xmodel *xm, int l)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t c = xm->o.width, n = xm->state, *t = xl->t;
	const td_real *pr = xm->params;
	td_real *mm = xm->mm + (size_t)l * c * c;
	int err;

	if (xl->kind == TD_MIXER_LRU)
		return x->products(x, mm, c, 1, pr + t[LRU_B], 1, c, pr + t[LRU_C], n, 1, c, c, n,
				   pr + t[LRU_D], 0);
	if ((err = x->products(x, mm, c, 1, pr + t[CLRU_BRE], 1, c, pr + t[CLRU_CRE], n, 1, c, c,
			       n, pr + t[CLRU_D], 0)))
		return err;
	return x->products(x, mm, c, 1, pr + t[CLRU_BIM], 1, c, pr + t[CLRU_CIM], n, 1, c, c, n,
			   NULL, -1);
}

/* y = x M over lines lines of one step of xf into yf, call by call as block.c chunks them. */
static int map_forward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const size_t c = xm->o.width;
	const td_real *mm = xm->mm + (size_t)l * c * c;
	int err = map_make(xm, l);

	for (size_t at = 0; !err && at < lines; at += xl->chunk) {
		const size_t p = lines - at < xl->chunk ? lines - at : xl->chunk;

		err = xm->x->gemm(xm->x, xm->yf + at * c, c, xf + at * c, c, mm, c, p, c, c, 0, 0,
				  1, 0);
		if (xl->chunk > lines - at)
			break; /* the last call; at + chunk may not fit */
	}
	return err;
}

/*
 * Its backward, call by call (one_step_backward): dM = x^T dy, dx = dy
 * M^T; dB[k][i] += sum_j C[j][k] dM[i][j], dC[j][k] += sum_i dM[i][j]
 * B[k][i] (for the CLRU the real tensors', then the imaginary ones'
 * negated), dD[i] += dM[i][i]; the decays' gradients stay 0. dy in yf, dx
 * into zf.
 */
static int map_backward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t c = xm->o.width, n = xm->state, *t = xl->t;
	const int clru = xl->kind == TD_MIXER_CLRU;
	const td_real *pr = xm->params, *mm = xm->mm + (size_t)l * c * c;
	td_real *gr = xm->grads, *dm = xm->dm;
	int err = 0;

	for (size_t at = 0; !err && at < lines; at += xl->chunk) {
		const size_t p = lines - at < xl->chunk ? lines - at : xl->chunk;
		const td_real *dyc = xm->yf + at * c;

		if ((err = x->gemm(x, dm, c, xf + at * c, c, dyc, c, c, c, p, 1, 0, 1, 0)) ||
		    (err = x->gemm(x, xm->zf + at * c, c, dyc, c, mm, c, p, c, c, 0, 1, 1, 0)))
			return err;
		for (int im = 0; im <= clru && !err; im++) {
			const size_t tb = clru ? (im ? t[CLRU_BIM] : t[CLRU_BRE]) : t[LRU_B];
			const size_t tc = clru ? (im ? t[CLRU_CIM] : t[CLRU_CRE]) : t[LRU_C];
			const int mode = im ? -1 : 1;

			if (!(err = x->products(x, gr + tb, c, 1, pr + tc, 1, n, dm, c, 1, n, c, c,
						NULL, mode)))
				err = x->products(x, gr + tc, n, 1, dm, 1, c, pr + tb, c, 1, c, n, c,
						  NULL, mode);
		}
		if (!err)
			err = x->diag_add(x, gr + t[clru ? CLRU_D : LRU_D], dm, c);
		if (xl->chunk > lines - at)
			break;
	}
	return err;
}

/*
 * The LRU of layer l over lines lines of xf into yf, call by call as
 * block.c chunks them (mixer_lru.c's lru_forward per call): h = x B^T,
 * the recurrence, y = D x, y += h C^T; the decays and the states saved.
 */
static int lru_forward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t c = xm->o.width, n = xm->state, len = xl->conv.length;
	const td_real *pb = xm->params + xl->t[LRU_B], *pc = xm->params + xl->t[LRU_C];
	td_real *a = xm->la + (size_t)l * n, *h = xm->lh + (size_t)l * xm->rows * n;
	int err = x->lru_decay(x, a, xm->params + xl->t[LRU_W], n);

	for (size_t at = 0; !err && at < lines; at += xl->chunk) {
		const size_t nl = lines - at < xl->chunk ? lines - at : xl->chunk, p = nl * len;
		const td_real *xc = xf + at * len * c;
		td_real *hc = h + at * len * n, *yc = xm->yf + at * len * c;

		if ((err = x->gemm(x, hc, n, xc, c, pb, c, p, n, c, 0, 1, 1, 0)) ||
		    (err = x->lru_scan(x, hc, a, nl, len, n, xl->conv.reverse, 0)) ||
		    (err = x->scale(x, yc, xc, xm->params + xl->t[LRU_D], p, c)))
			return err;
		err = x->gemm(x, yc, c, hc, n, pc, n, p, c, n, 0, 1, 1, 1);
		if (xl->chunk > lines - at)
			break; /* the last call; at + chunk may not fit */
	}
	return err;
}

/*
 * Its backward, call by call (lru_backward): dC += dy^T h, g = dy C, the
 * adjoint recurrence, dx = D dy, the decay's and the skip's gradients, dB
 * += g^T x, dx += g B; dy in yf, dx into zf.
 */
static int lru_backward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t c = xm->o.width, n = xm->state, len = xl->conv.length;
	const td_real *pb = xm->params + xl->t[LRU_B], *pc = xm->params + xl->t[LRU_C];
	const td_real *a = xm->la + (size_t)l * n, *h = xm->lh + (size_t)l * xm->rows * n;
	td_real *gr = xm->grads;
	int err = 0;

	for (size_t at = 0; !err && at < lines; at += xl->chunk) {
		const size_t nl = lines - at < xl->chunk ? lines - at : xl->chunk, p = nl * len;
		const td_real *xc = xf + at * len * c, *hc = h + at * len * n;
		const td_real *dyc = xm->yf + at * len * c;
		td_real *gc = xm->lg + at * len * n, *dxc = xm->zf + at * len * c;

		if ((err = x->gemm(x, gr + xl->t[LRU_C], n, dyc, c, hc, n, c, n, p, 1, 0, 1, 1)) ||
		    (err = x->gemm(x, gc, n, dyc, c, pc, n, p, n, c, 0, 0, 1, 0)) ||
		    (err = x->lru_scan(x, gc, a, nl, len, n, xl->conv.reverse, 1)) ||
		    (err = x->scale(x, dxc, dyc, xm->params + xl->t[LRU_D], p, c)) ||
		    (err = x->lru_grads(x, gr + xl->t[LRU_W], gr + xl->t[LRU_D], gc, hc, dyc, xc, a,
					xm->params + xl->t[LRU_W], nl, len, n, c,
					xl->conv.reverse)) ||
		    (err = x->gemm(x, gr + xl->t[LRU_B], c, gc, n, xc, c, n, c, p, 1, 0, 1, 1)))
			return err;
		err = x->gemm(x, dxc, c, gc, n, pb, c, p, c, n, 0, 0, 1, 1);
		if (xl->chunk > lines - at)
			break;
	}
	return err;
}

/*
 * The complex LRU of layer l over lines lines of xf into yf, call by call
 * as block.c chunks them (mixer_clru.c's clru_forward per call): h_re = x
 * B_re^T, h_im = x B_im^T, the recurrence, y = D x, y += h_re C_re^T, y
 * -= h_im C_im^T (alpha -1, as the core subtracts); the decays and the
 * states [positions][2N] saved.
 */
static int clru_forward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t c = xm->o.width, n = xm->state, len = xl->conv.length, *t = xl->t;
	const td_real *pr = xm->params;
	td_real *a = xm->la + (size_t)l * 2 * n, *h = xm->lh + (size_t)l * xm->rows * 2 * n;
	int err = x->clru_decay(x, a, pr + t[CLRU_NU], pr + t[CLRU_THETA], n);

	for (size_t at = 0; !err && at < lines; at += xl->chunk) {
		const size_t nl = lines - at < xl->chunk ? lines - at : xl->chunk, p = nl * len;
		const td_real *xc = xf + at * len * c;
		td_real *hc = h + at * len * 2 * n, *yc = xm->yf + at * len * c;

		if ((err = x->gemm(x, hc, 2 * n, xc, c, pr + t[CLRU_BRE], c, p, n, c, 0, 1, 1, 0)) ||
		    (err = x->gemm(x, hc + n, 2 * n, xc, c, pr + t[CLRU_BIM], c, p, n, c, 0, 1, 1,
				   0)) ||
		    (err = x->clru_scan(x, hc, a, nl, len, n, xl->conv.reverse, 0)) ||
		    (err = x->scale(x, yc, xc, pr + t[CLRU_D], p, c)) ||
		    (err = x->gemm(x, yc, c, hc, 2 * n, pr + t[CLRU_CRE], n, p, c, n, 0, 1, 1, 1)))
			return err;
		err = x->gemm(x, yc, c, hc + n, 2 * n, pr + t[CLRU_CIM], n, p, c, n, 0, 1, -1, 1);
		if (xl->chunk > lines - at)
			break; /* the last call; at + chunk may not fit */
	}
	return err;
}

/*
 * Its backward, call by call (clru_backward): dC_re += dy^T h_re, dC_im
 * -= dy^T h_im, g_re = dy C_re, g_im = -dy C_im, the adjoint recurrence,
 * dx = D dy, the decay's (dnu, dtheta) and the skip's gradients, dB_re +=
 * g_re^T x, dB_im += g_im^T x, dx += g_re B_re, dx += g_im B_im; dy in
 * yf, dx into zf.
 */
static int clru_backward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t c = xm->o.width, n = xm->state, len = xl->conv.length, *t = xl->t;
	const td_real *pr = xm->params, *a = xm->la + (size_t)l * 2 * n;
	const td_real *h = xm->lh + (size_t)l * xm->rows * 2 * n;
	td_real *gr = xm->grads;
	int err = 0;

	for (size_t at = 0; !err && at < lines; at += xl->chunk) {
		const size_t nl = lines - at < xl->chunk ? lines - at : xl->chunk, p = nl * len;
		const td_real *xc = xf + at * len * c, *hc = h + at * len * 2 * n;
		const td_real *dyc = xm->yf + at * len * c;
		td_real *gc = xm->lg + at * len * 2 * n, *dxc = xm->zf + at * len * c;

		/* dC_re, dC_im; g = dy C_re - i dy C_im */
		if ((err = x->gemm(x, gr + t[CLRU_CRE], n, dyc, c, hc, 2 * n, c, n, p, 1, 0, 1,
				   1)) ||
		    (err = x->gemm(x, gr + t[CLRU_CIM], n, dyc, c, hc + n, 2 * n, c, n, p, 1, 0, -1,
				   1)) ||
		    (err = x->gemm(x, gc, 2 * n, dyc, c, pr + t[CLRU_CRE], n, p, n, c, 0, 0, 1,
				   0)) ||
		    (err = x->gemm(x, gc + n, 2 * n, dyc, c, pr + t[CLRU_CIM], n, p, n, c, 0, 0, -1,
				   0)) ||
		    (err = x->clru_scan(x, gc, a, nl, len, n, xl->conv.reverse, 1)) ||
		    (err = x->scale(x, dxc, dyc, pr + t[CLRU_D], p, c)) ||
		    (err = x->clru_grads(x, gr + t[CLRU_NU], gr + t[CLRU_THETA], gr + t[CLRU_D], gc,
					 hc, dyc, xc, a, pr + t[CLRU_NU], nl, len, n, c,
					 xl->conv.reverse)) ||
		    (err = x->gemm(x, gr + t[CLRU_BRE], c, gc, 2 * n, xc, c, n, c, p, 1, 0, 1, 1)) ||
		    (err = x->gemm(x, gr + t[CLRU_BIM], c, gc + n, 2 * n, xc, c, n, c, p, 1, 0, 1,
				   1)) ||
		    (err = x->gemm(x, dxc, c, gc, 2 * n, pr + t[CLRU_BRE], c, p, c, n, 0, 0, 1, 1)))
			return err;
		err = x->gemm(x, dxc, c, gc + n, 2 * n, pr + t[CLRU_BIM], c, p, c, n, 0, 0, 1, 1);
		if (xl->chunk > lines - at)
			break;
	}
	return err;
}

/*
 * The recurrences' calls (mixer_rnn.c's per call, the GRU's and the
 * LSTM's steps): a call's lines [nl] from line at, its buffers as x is
 * laid out, line-major. Only the weight gradients depend on the core's
 * blocks (td_mixer_blocks): every other value is one line's, or a
 * product whose sums do not depend on how many rows a GEMM takes.
 */
typedef int (*rnn_call)(const td_xmodel *xm, int l, const td_real *xf, size_t at, size_t nl);

/* f for each of block.c's calls over lines lines of layer l. */
static int by_calls(const td_xmodel *xm, int l, const td_real *xf, size_t lines, rnn_call f)
{
	const size_t chunk = xm->layer[l].chunk;
	int err = 0;

	for (size_t at = 0; !err && at < lines; at += chunk) {
		err = f(xm, l, xf, at, lines - at < chunk ? lines - at : chunk);
		if (chunk > lines - at)
			break; /* the last call; at + chunk may not fit */
	}
	return err;
}

/*
 * A block's dW = dgx^T x into its part; for the LSTM on lines of one step
 * (one_step_weights) only the rows of i, then of g and o, those of f left
 * at 0 whatever dgx holds there.
 */
static int rnn_dw(const td_xmodel *xm, td_real *dw, const td_real *dgx, const td_real *x,
		  size_t rows, size_t len)
{
	const td_exec *ex = xm->x;
	const size_t h = xm->o.width, gh = xm->gates * h;
	int err;

	if (len > 1 || xm->gates != 4)
		return ex->gemm(ex, dw, h, dgx, gh, x, h, gh, h, rows, 1, 0, 1, 0);
	if ((err = ex->gemm(ex, dw, h, dgx, gh, x, h, h, h, rows, 1, 0, 1, 0)))
		return err;
	return ex->gemm(ex, dw + 2 * h * h, h, dgx + 2 * h, gh, x, h, 2 * h, h, rows, 1, 0, 1, 0);
}

/*
 * A call's weight and bias gradients, block by block as mixer_rnn.c's
 * block_grads sums them, each block into its own part (dW = dgx^T x, dU
 * = dgh^T hp, db and dc dgx's and dgh's column sums, rows ascending; dc
 * = db where dgh is dgx), then the parts added to the gradients in block
 * order (td_mixer_add_parts). dgx and dgh [nl * length][G w], hp in rhp.
 */
static int rnn_grads(const td_xmodel *xm, int l, const td_real *xc, size_t nl,
		     const td_real *dgx, const td_real *dgh)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t h = xm->o.width, gh = xm->gates * h, len = xl->conv.length;
	const size_t np = xm->mixer_params, nb = td_mixer_blocks(nl, len);
	const size_t *t = xl->t, mx = xl->mixer, u0 = t[RNN_U] - mx, u1 = u0 + gh * h;
	int err = x->zero(x, xm->parts, nb * np * sizeof *xm->parts);

	assert(nb <= xm->n_blocks);
	for (size_t k = 0; !err && k < nb; k++) {
		size_t b0, b1, p0, rows;
		td_real *part = xm->parts + k * np;

		td_mixer_block(nl, nb, k, &b0, &b1);
		p0 = b0 * len, rows = (b1 - b0) * len;
		if ((err = rnn_dw(xm, part + t[RNN_W] - mx, dgx + p0 * gh, xc + p0 * h, rows, len)) ||
		    (len > 1 && (err = x->gemm(x, part + t[RNN_U] - mx, h, dgh + p0 * gh, gh,
					       xm->rhp + p0 * h, h, gh, h, rows, 1, 0, 1, 0))) ||
		    (err = x->bias_grad(x, part + t[RNN_B] - mx, dgx + p0 * gh, rows, gh)))
			return err;
		if (dgh == dgx)
			err = x->copy(x, part + t[RNN_C] - mx, part + t[RNN_B] - mx,
				      gh * sizeof *part);
		else
			err = x->bias_grad(x, part + t[RNN_C] - mx, dgh + p0 * gh, rows, gh);
	}
	if (err || len > 1)
		return err ? err : x->add_parts(x, xm->grads + mx, xm->parts, nb, np, np);
	/* on lines of one step dU gets nothing, not even a zero (td_mixer_add_parts) */
	if (!(err = x->add_parts(x, xm->grads + mx, xm->parts, nb, np, u0)))
		err = x->add_parts(x, xm->grads + mx + u1, xm->parts + u1, nb, np, np - u1);
	return err;
}

/*
 * One call of layer l's GRU forward (mixer_gru.c through mixer_rnn.c):
 * x W^T for the call's positions into the gates' first 3w columns, then
 * per step h_{t-1} U^T (from the second step) and the step's gates and
 * states; y = the states. The gates and the states saved.
 */
static int gru_call_forward(const td_xmodel *xm, int l, const td_real *xf, size_t at, size_t nl)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t h = xm->o.width, len = xl->conv.length, p = nl * len;
	const int rev = xl->conv.reverse;
	const td_real *pr = xm->params, *u = pr + xl->t[RNN_U];
	td_real *g = xm->rg + ((size_t)l * xm->rows + at * len) * 4 * h;
	td_real *hs = xm->rh + ((size_t)l * xm->rows + at * len) * h;
	int err = x->gemm(x, g, 4 * h, xf + at * len * h, h, pr + xl->t[RNN_W], h, p, 3 * h, h, 0,
			  1, 1, 0);

	for (size_t q = 0; !err && q < len; q++) {
		if (q && (err = x->gemm(x, xm->rgh, 3 * h, hs + td_op_at(q - 1, len, rev) * h,
					len * h, u, h, nl, 3 * h, h, 0, 1, 1, 0)))
			return err;
		err = x->gru_step(x, g, hs, xm->rgh, pr + xl->t[RNN_B], pr + xl->t[RNN_C], nl, len,
				  h, q, rev);
	}
	return err ? err : x->copy(x, xm->yf + at * len * h, hs, p * h * sizeof *hs);
}

/*
 * Its backward (mixer_rnn.c's backward_block, the GRU's steps): hp =
 * h_{t-1}, the carry at 0, the steps from the last, each but the first
 * carrying dgh_t U to the step before, dx = dgx W, then the weight and
 * bias gradients; dy in yf, dx into zf.
 */
static int gru_call_backward(const td_xmodel *xm, int l, const td_real *xf, size_t at,
			     size_t nl)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t h = xm->o.width, len = xl->conv.length, p = nl * len;
	const int rev = xl->conv.reverse;
	const td_real *u = xm->params + xl->t[RNN_U], *dy = xm->yf + at * len * h;
	const td_real *g = xm->rg + ((size_t)l * xm->rows + at * len) * 4 * h;
	const td_real *hs = xm->rh + ((size_t)l * xm->rows + at * len) * h;
	int err;

	if ((err = x->shift_prev(x, xm->rhp, hs, nl, len, h, rev)) ||
	    (err = x->zero(x, xm->rcarry, nl * h * sizeof *xm->rcarry)))
		return err;
	for (size_t q = len; q-- > 0;) {
		if ((err = x->gru_step_back(x, xm->rdx, xm->rdh, xm->rcarry, g, dy, xm->rhp, nl,
					    len, h, q, rev)))
			return err;
		if (q == 0)
			break; /* h_{-1} is a constant: nothing flows further */
		if ((err = x->gemm(x, xm->rcarry, h, xm->rdh + td_op_at(q, len, rev) * 3 * h,
				   len * 3 * h, u, h, nl, h, 3 * h, 0, 0, 1, 1)))
			return err;
	}
	if ((err = x->gemm(x, xm->zf + at * len * h, h, xm->rdx, 3 * h, xm->params + xl->t[RNN_W],
			   h, p, h, 3 * h, 0, 0, 1, 0)))
		return err;
	return rnn_grads(xm, l, xf + at * len * h, nl, xm->rdx, xm->rdh);
}

/*
 * One call of layer l's LSTM forward (mixer_lstm.c through mixer_rnn.c):
 * x W^T for the call's positions into the gates, then per step h_{t-1}
 * U^T (from the second step) and the step's gates, cell states and
 * states; y = the states. The gates, cell states, their tanh and the
 * states saved.
 */
static int lstm_call_forward(const td_xmodel *xm, int l, const td_real *xf, size_t at, size_t nl)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t h = xm->o.width, len = xl->conv.length, p = nl * len;
	const size_t row = (size_t)l * xm->rows + at * len;
	const int rev = xl->conv.reverse;
	const td_real *pr = xm->params, *u = pr + xl->t[RNN_U];
	td_real *g = xm->rg + row * 4 * h, *hs = xm->rh + row * h;
	td_real *ss = xm->rs + row * h, *ts = xm->rts + row * h;
	int err = x->gemm(x, g, 4 * h, xf + at * len * h, h, pr + xl->t[RNN_W], h, p, 4 * h, h, 0,
			  1, 1, 0);

	for (size_t q = 0; !err && q < len; q++) {
		if (q && (err = x->gemm(x, xm->rgh, 4 * h, hs + td_op_at(q - 1, len, rev) * h,
					len * h, u, h, nl, 4 * h, h, 0, 1, 1, 0)))
			return err;
		err = x->lstm_step(x, g, ss, ts, hs, xm->rgh, pr + xl->t[RNN_B], pr + xl->t[RNN_C],
				   nl, len, h, q, rev);
	}
	return err ? err : x->copy(x, xm->yf + at * len * h, hs, p * h * sizeof *hs);
}

/*
 * Its backward (mixer_rnn.c's backward_block, the LSTM's steps): sp =
 * s_{t-1}, hp = h_{t-1}, dh and ds at 0, the steps from the last, each
 * but the first making dh = dg_t U for the step before, dx = dg W, then
 * the weight and bias gradients (one adjoint dg for W, U, b and c); dy
 * in yf, dx into zf.
 */
static int lstm_call_backward(const td_xmodel *xm, int l, const td_real *xf, size_t at,
			      size_t nl)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t h = xm->o.width, len = xl->conv.length, p = nl * len;
	const size_t row = (size_t)l * xm->rows + at * len;
	const int rev = xl->conv.reverse;
	const td_real *u = xm->params + xl->t[RNN_U], *dy = xm->yf + at * len * h;
	const td_real *g = xm->rg + row * 4 * h, *ts = xm->rts + row * h;
	int err;

	if ((err = x->shift_prev(x, xm->rsp, xm->rs + row * h, nl, len, h, rev)) ||
	    (err = x->shift_prev(x, xm->rhp, xm->rh + row * h, nl, len, h, rev)) ||
	    (err = x->zero(x, xm->rcarry, nl * h * sizeof *xm->rcarry)) ||
	    (err = x->zero(x, xm->rds, nl * h * sizeof *xm->rds)))
		return err;
	for (size_t q = len; q-- > 0;) {
		if ((err = x->lstm_step_back(x, xm->rdx, xm->rcarry, xm->rds, g, ts, xm->rsp, dy, nl,
					     len, h, q, rev)))
			return err;
		if (q == 0)
			break; /* h_{-1} and s_{-1} are constants: nothing flows further */
		if ((err = x->gemm(x, xm->rcarry, h, xm->rdx + td_op_at(q, len, rev) * 4 * h,
				   len * 4 * h, u, h, nl, h, 4 * h, 0, 0, 1, 0)))
			return err;
	}
	if ((err = x->gemm(x, xm->zf + at * len * h, h, xm->rdx, 4 * h, xm->params + xl->t[RNN_W],
			   h, p, h, 4 * h, 0, 0, 1, 0)))
		return err;
	return rnn_grads(xm, l, xf + at * len * h, nl, xm->rdx, xm->rdx);
}

/*
 * Layer l's attention over lines lines of xf into yf (mixer_attention.c's
 * forward, whose values do not depend on how its calls and blocks split
 * the lines): qkv = x Wqkv^T + bqkv, the pairs' weights and outputs ctx,
 * y = ctx Wo^T + bo; qkv, ctx and the weights saved.
 */
static int attention_forward(const td_xmodel *xm, int l, const td_real *xf, size_t lines)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width, p = lines * xl->attn.length, lu = (size_t)l;
	const td_real *pr = xm->params;
	td_real *qkv = xm->aqkv + lu * xm->rows * 3 * w, *ctx = xm->actx + lu * xm->rows * w;
	int err;

	if ((err = x->gemm(x, qkv, 3 * w, xf, w, pr + xl->t[ATT_WQKV], w, p, 3 * w, w, 0, 1, 1,
			   0)) ||
	    (err = x->bias_add(x, qkv, pr + xl->t[ATT_BQKV], p, 3 * w)) ||
	    (err = x->attend(x, xm->aatt + lu * xm->att, ctx, qkv, lines, &xl->attn)) ||
	    (err = x->gemm(x, xm->yf, w, ctx, w, pr + xl->t[ATT_WO], w, p, w, w, 0, 1, 1, 0)))
		return err;
	return x->bias_add(x, xm->yf, pr + xl->t[ATT_BO], p, w);
}

/*
 * A call's weight and bias gradients (dWo = dy^T ctx, dWqkv = dqkv^T x,
 * dbqkv and dbo the column sums of dqkv and dy): on lines of two or more
 * steps block by block into the parts, added in block order
 * (mixer_attention.c's block_grads and by_blocks); on lines of one step
 * added to the gradients at once (attention_backward's). Rows from p0.
 */
static int attention_grads(const td_xmodel *xm, int l, const td_real *xf, size_t p0, size_t nl)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width, len = xl->attn.length, mx = xl->mixer;
	const size_t np = xm->mixer_params, nb = len > 1 ? td_mixer_blocks(nl, len) : 1;
	const size_t wo = xl->t[ATT_WO] - mx, wqkv = xl->t[ATT_WQKV] - mx;
	const size_t bqkv = xl->t[ATT_BQKV] - mx, bo = xl->t[ATT_BO] - mx;
	const td_real *ctx = xm->actx + (size_t)l * xm->rows * w, beta = len > 1 ? 0 : 1;
	int err = len > 1 ? x->zero(x, xm->parts, nb * np * sizeof *xm->parts) : 0;

	assert(nb <= xm->n_blocks);
	for (size_t k = 0; !err && k < nb; k++) {
		size_t b0 = 0, b1 = nl, r0, rows;
		td_real *dst = len > 1 ? xm->parts + k * np : xm->grads + mx;
		const td_real *dy, *dqkv;

		if (len > 1)
			td_mixer_block(nl, nb, k, &b0, &b1);
		r0 = p0 + b0 * len, rows = (b1 - b0) * len;
		dy = xm->yf + r0 * w, dqkv = xm->adqkv + r0 * 3 * w;
		if ((err = x->gemm(x, dst + wo, w, dy, w, ctx + r0 * w, w, w, w, rows, 1, 0, 1,
				   beta)) ||
		    (err = x->gemm(x, dst + wqkv, w, dqkv, 3 * w, xf + r0 * w, w, 3 * w, w, rows, 1,
				   0, 1, beta)) ||
		    (err = x->bias_grad(x, dst + bqkv, dqkv, rows, 3 * w)))
			return err;
		err = x->bias_grad(x, dst + bo, dy, rows, w);
	}
	return err || len == 1 ? err : x->add_parts(x, xm->grads + mx, xm->parts, nb, np, np);
}

/*
 * One call's backward (mixer_attention.c's): dctx = dy Wo, the pairs'
 * dqkv, dx = dqkv Wqkv, then the call's gradients; dy in yf, dx into zf.
 */
static int attention_call_backward(const td_xmodel *xm, int l, const td_real *xf, size_t at,
				   size_t nl)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width, len = xl->attn.length, p = nl * len, r0 = at * len;
	const size_t a0 = at * xl->attn.heads * len * xl->attn.tp, lu = (size_t)l;
	const td_real *pr = xm->params;
	int err;

	if ((err = x->gemm(x, xm->adctx + r0 * w, w, xm->yf + r0 * w, w, pr + xl->t[ATT_WO], w, p,
			   w, w, 0, 0, 1, 0)) ||
	    (err = x->attend_backward(x, xm->adqkv + r0 * 3 * w, xm->ads + a0,
				      xm->aatt + lu * xm->att + a0,
				      xm->aqkv + (lu * xm->rows + r0) * 3 * w, xm->adctx + r0 * w,
				      nl, &xl->attn)) ||
	    (err = x->gemm(x, xm->zf + r0 * w, w, xm->adqkv + r0 * 3 * w, 3 * w,
			   pr + xl->t[ATT_WQKV], w, p, w, 3 * w, 0, 0, 1, 0)))
		return err;
	return attention_grads(xm, l, xf, r0, nl);
}

/* Layer l's kernel z [S+1][R][w], den or deg [S][n_cells] (the latter at offset n_cells S L). */
static td_real *kz_of(const td_xmodel *xm, int l, int a)
{
	return xm->kz + (((size_t)l * ((size_t)xm->kern + 1) + (size_t)a) * xm->rows * xm->o.width);
}

static size_t kd_at(const td_xmodel *xm, int l, int a)
{
	return ((size_t)l * (size_t)xm->kern + (size_t)a) * xm->n_cells;
}

/*
 * The kernel block's contractions (family_kernel.c's kern_forward to its
 * mixer): z_0 = select(n), then per spatial axis the masses, one product
 * K z per block (the blocks [n][inner w] one after another: one batched
 * product), the renormalisation with selection; z_S is the mixer's.
 */
static int kernel_forward(const td_xmodel *xm, int l, size_t batch)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width, r = batch * xm->n_cells;
	int err = x->select(x, kz_of(xm, l, 0), xm->n, NULL, xm->mask, NULL, xm->n_cells, r, w);

	for (int a = 0; !err && a < xl->n_sp; a++) {
		const size_t n = xl->ax[a].n, ld = xl->ax[a].inner * w;
		const td_real *k = xm->params + xl->ax[a].k, *z = kz_of(xm, l, a);
		td_real *out = kz_of(xm, l, a + 1), *den = xm->kden + kd_at(xm, l, a);
		td_real *deg = xm->kdeg + kd_at(xm, l, a);

		if (!(err = x->kernel_masses(x, den, deg, k, xm->mask, xm->n_cells, n,
					     xl->ax[a].inner, xl->cancel)))
			err = x->gemm_batched(x, out, ld, n * ld, k, n, 0, z, ld, n * ld, n, ld, n,
					      batch * xl->ax[a].outer, 0, 0, 1, 0);
		if (!err)
			err = x->kernel_renorm(x, out, den, deg, xm->mask, r, xm->n_cells, w);
	}
	return err;
}

/*
 * Their backward (kern_backward after its mixer), on g = dL/dz_S in gn,
 * selected: per spatial axis from the last, R and q, dz = K^T R and R
 * Z^T per block, dL/dK summed in block order and added, dz selected.
 */
static int kernel_backward(const td_xmodel *xm, int l, size_t batch)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width, r = batch * xm->n_cells;
	int err = 0;

	for (int a = xl->n_sp; !err && a-- > 0;) {
		const size_t n = xl->ax[a].n, ld = xl->ax[a].inner * w, blocks = batch * xl->ax[a].outer;
		const td_real *k = xm->params + xl->ax[a].k, *z = kz_of(xm, l, a);

		err = x->kernel_rows(x, xm->kr, xm->kq, xm->gn, kz_of(xm, l, a + 1),
				     xm->kden + kd_at(xm, l, a), xm->kdeg + kd_at(xm, l, a), r,
				     xm->n_cells, w);
		if (!err)
			err = x->gemm_batched(x, xm->gn, ld, n * ld, k, n, 0, xm->kr, ld, n * ld, n,
					      ld, n, blocks, 1, 0, 1, 0);
		if (!err)
			err = x->gemm_batched(x, xm->ksk, n, n * n, xm->kr, ld, n * ld, z, ld, n * ld,
					      n, n, ld, blocks, 0, 1, 1, 0);
		if (!err)
			err = x->kernel_dk(x, xm->grads + xl->ax[a].k, xm->ksk, xm->kq, xm->mask,
					   blocks, xl->ax[a].outer, n, xl->ax[a].inner, xm->n_cells);
		if (!err)
			err = x->select(x, xm->gn, xm->gn, NULL, xm->mask, NULL, xm->n_cells, r, w);
	}
	return err;
}

/*
 * u = the block of layer l on n: for the scan fold with selection (the
 * kernel family its contractions first, then its time fold), for flatten
 * gather; the mixer; the inverse.
 */
static int block_forward(const td_xmodel *xm, int l, size_t batch)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width;
	td_real *xf = xm->xf + (size_t)l * xm->rows * w;
	const td_real *in = xl->n_sp ? kz_of(xm, l, xl->n_sp) : xm->n;
	int err = xl->n_sp ? kernel_forward(xm, l, batch) : 0;

	if (err)
		return err;
	if (xl->flat)
		err = x->gather(x, xf, in, xl->fold, batch, xm->n_cells, xl->conv.length, w);
	else
		err = x->fold(x, xf, in, xl->fold, xm->mask, xm->emask, batch, xm->n_cells, w, 0);
	if (err)
		return err;
	if ((xl->kind == TD_MIXER_LRU || xl->kind == TD_MIXER_CLRU) && xl->conv.length == 1)
		err = map_forward(xm, l, xf, batch * xl->lines);
	else if (xl->kind == TD_MIXER_LRU)
		err = lru_forward(xm, l, xf, batch * xl->lines);
	else if (xl->kind == TD_MIXER_CLRU)
		err = clru_forward(xm, l, xf, batch * xl->lines);
	else if (xl->kind == TD_MIXER_GRU)
		err = by_calls(xm, l, xf, batch * xl->lines, gru_call_forward);
	else if (xl->kind == TD_MIXER_LSTM)
		err = by_calls(xm, l, xf, batch * xl->lines, lstm_call_forward);
	else if (xl->kind == TD_MIXER_ATTENTION)
		err = attention_forward(xm, l, xf, batch * xl->lines);
	else
		err = x->conv_forward(x, xm->yf, xf, xm->params + xl->mixer, batch * xl->lines,
				      &xl->conv);
	if (err)
		return err;
	if (xl->flat)
		return x->gather(x, xm->u, xm->yf, xl->unfold, batch, xl->conv.length, xm->n_cells, w);
	return x->fold(x, xm->u, xm->yf, xl->unfold, xm->mask, xm->emask, batch, xm->n_cells, w, 1);
}

/* Layer l's MLP on m_l = hm (its norm already in n): h_l+1 and the next layer's norm. */
static int ffn_forward(const td_xmodel *xm, int l, size_t r, td_real *next)
{
	const size_t w = xm->o.width, f = xm->o.ffn, lu = (size_t)l;
	const td_real *hm = xm->hm + lu * xm->rows * w;
	td_real *pre = xm->pre + lu * xm->rows * f;
	int err;

	if ((err = linear(xm, pre, xm->n, r, f, w, xm->w1 + lu * f * w, xm->b1 + lu * f)) ||
	    (err = xm->x->relu(xm->x, xm->act, pre, r * f)) ||
	    (err = linear(xm, xm->u, xm->act, r, w, f, xm->w2 + lu * w * f, xm->b2 + lu * w)) ||
	    (err = sel(xm, next, hm, xm->u, r, w)))
		return err;
	return next_norm(xm, l, next, r);
}

static int layer_forward(const td_xmodel *xm, int l, size_t batch)
{
	const size_t w = xm->o.width, r = batch * xm->n_cells, at = (size_t)l * xm->rows * w;
	td_real *h = xm->h + at, *next = h + xm->rows * w;
	td_real *mid = xm->o.ffn ? xm->hm + at : next;
	int err;

	if (l == 0 &&
	    (err = xm->x->rmsnorm(xm->x, xm->n, xm->inv, h, xm->params + xm->gain, r, w)))
		return err;
	if ((err = block_forward(xm, l, batch)) || (err = sel(xm, mid, h, xm->u, r, w)))
		return err;
	if (!xm->o.ffn)
		return next_norm(xm, l, mid, r);
	if ((err = xm->x->rmsnorm(xm->x, xm->n, xm->inv2 + (size_t)l * xm->rows, mid,
				  xm->params + xm->g2 + (size_t)l * w, r, w)))
		return err;
	return ffn_forward(xm, l, r, next);
}

int td_xmodel_forward(td_xmodel *xm, td_real *y, const td_real *x, size_t batch)
{
	const size_t r = batch * xm->n_cells, w = xm->o.width, out = xm->o.out;
	const td_real *top = xm->h + (size_t)xm->n_layers * xm->rows * w;
	int err;

	if (batch < 1 || batch > xm->o.max_batch)
		return TD_FAIL(TD_EINVAL, "batch %zu is outside 1..%zu (the model's max_batch)",
			       batch, xm->o.max_batch);
	if ((err = sel(xm, xm->xs, x, NULL, r, xm->o.in)) ||
	    (err = linear(xm, xm->h, xm->xs, r, w, xm->o.in, xm->we, xm->be)) ||
	    (err = sel(xm, xm->h, xm->h, NULL, r, w)))
		return err;
	for (int l = 0; l < xm->n_layers && !err; l++)
		err = layer_forward(xm, l, batch);
	if (err)
		return err;
	if (xm->o.head_per_cell)
		err = xm->x->head_cell(xm->x, y, top, xm->params + xm->wo, xm->params + xm->bo, r,
				       xm->n_cells, w, out);
	else
		err = linear(xm, y, top, r, out, w, xm->wo, xm->bo);
	return err ? err : sel(xm, y, y, NULL, r, out);
}

/*
 * The backward of linear given g [rows][n] (selected): dW += g^T in,
 * dbias += g's column sums, and din = g W when din is not NULL
 * (model.c's linear_back).
 */
static int linear_back(const td_xmodel *xm, td_real *din, const td_real *g, const td_real *in,
		       size_t rows, size_t n, size_t k, size_t wt, size_t bias)
{
	const td_exec *x = xm->x;
	int err;

	if ((err = x->gemm(x, xm->grads + wt, k, g, n, in, k, n, k, rows, 1, 0, 1, 1)) ||
	    (err = x->bias_grad(x, xm->grads + bias, g, rows, n)))
		return err;
	return din ? x->gemm(x, din, k, g, n, xm->params + wt, k, rows, k, n, 0, 0, 1, 0) : 0;
}

/* Given g = dL/dh_l+1 (selected): g becomes dL/dm_l, selected (model.c's ffn_backward). */
static int ffn_backward(const td_xmodel *xm, int l, size_t r)
{
	const td_exec *x = xm->x;
	const size_t w = xm->o.width, f = xm->o.ffn, lu = (size_t)l, go = xm->g2 + lu * w;
	const td_real *hm = xm->hm + lu * xm->rows * w, *pre = xm->pre + lu * xm->rows * f;
	td_real *inv2 = xm->inv2 + lu * xm->rows;
	int err;

	if ((err = x->relu(x, xm->act, pre, r * f)) ||
	    (err = linear_back(xm, xm->dact, xm->g, xm->act, r, w, f, xm->w2 + lu * w * f,
			       xm->b2 + lu * w)) ||
	    (err = x->relu_backward(x, xm->dact, pre, r * f)) ||
	    (err = x->rmsnorm(x, xm->n, inv2, hm, xm->params + go, r, w)) ||
	    (err = linear_back(xm, xm->gn, xm->dact, xm->n, r, f, w, xm->w1 + lu * f * w,
			       xm->b1 + lu * f)) ||
	    (err = x->rmsnorm_backward(x, xm->g, xm->grads + go, xm->gn, hm, inv2, xm->params + go,
				       r, w, 1)))
		return err;
	return sel(xm, xm->g, xm->g, NULL, r, w);
}

/* gn = the scan block's backward of g: fold with selection, the mixer's backward, unfold. */
static int block_backward(const td_xmodel *xm, int l, size_t batch)
{
	const xlayer *xl = &xm->layer[l];
	const td_exec *x = xm->x;
	const size_t w = xm->o.width;
	const td_real *xf = xm->xf + (size_t)l * xm->rows * w;
	int err;

	if (xl->flat)
		err = x->gather(x, xm->yf, xm->g, xl->fold, batch, xm->n_cells, xl->conv.length, w);
	else
		err = x->fold(x, xm->yf, xm->g, xl->fold, xm->mask, xm->emask, batch, xm->n_cells, w,
			      0);
	if (err)
		return err;
	if ((xl->kind == TD_MIXER_LRU || xl->kind == TD_MIXER_CLRU) && xl->conv.length == 1)
		err = map_backward(xm, l, xf, batch * xl->lines);
	else if (xl->kind == TD_MIXER_LRU)
		err = lru_backward(xm, l, xf, batch * xl->lines);
	else if (xl->kind == TD_MIXER_CLRU)
		err = clru_backward(xm, l, xf, batch * xl->lines);
	else if (xl->kind == TD_MIXER_GRU)
		err = by_calls(xm, l, xf, batch * xl->lines, gru_call_backward);
	else if (xl->kind == TD_MIXER_LSTM)
		err = by_calls(xm, l, xf, batch * xl->lines, lstm_call_backward);
	else if (xl->kind == TD_MIXER_ATTENTION)
		err = by_calls(xm, l, xf, batch * xl->lines, attention_call_backward);
	else
		err = x->conv_backward(x, xm->zf, xm->grads + xl->mixer, xm->yf, xf,
				       xm->params + xl->mixer, batch * xl->lines, xl->chunk,
				       &xl->conv);
	if (err)
		return err;
	if (xl->flat)
		return x->gather(x, xm->gn, xm->zf, xl->unfold, batch, xl->conv.length, xm->n_cells,
				 w);
	err = x->fold(x, xm->gn, xm->zf, xl->unfold, xm->mask, xm->emask, batch, xm->n_cells, w, 1);
	return err || !xl->n_sp ? err : kernel_backward(xm, l, batch);
}

/* Given g = dL/dh_l+1 (selected): g becomes dL/dh_l, selected (model.c's layer_backward). */
static int layer_backward(const td_xmodel *xm, int l, size_t batch)
{
	const size_t w = xm->o.width, r = batch * xm->n_cells, go = xm->gain + (size_t)l * w;
	int err;

	if ((xm->o.ffn && (err = ffn_backward(xm, l, r))) || (err = block_backward(xm, l, batch)) ||
	    (err = xm->x->rmsnorm_backward(xm->x, xm->g, xm->grads + go, xm->gn,
					   xm->h + (size_t)l * xm->rows * w,
					   xm->inv + (size_t)l * xm->rows, xm->params + go, r, w, 1)))
		return err;
	return sel(xm, xm->g, xm->g, NULL, r, w);
}

int td_xmodel_backward(td_xmodel *xm, td_real *dx, const td_real *dy, size_t batch)
{
	const size_t r = batch * xm->n_cells, w = xm->o.width, out = xm->o.out;
	const td_real *top = xm->h + (size_t)xm->n_layers * xm->rows * w;
	int err;

	if (batch < 1 || batch > xm->o.max_batch)
		return TD_FAIL(TD_EINVAL, "batch %zu is outside 1..%zu (the model's max_batch)",
			       batch, xm->o.max_batch);
	if ((err = sel(xm, xm->gy, dy, NULL, r, out)))
		return err;
	if (xm->o.head_per_cell)
		err = xm->x->head_cell_backward(xm->x, xm->g, xm->grads + xm->wo, xm->grads + xm->bo,
						xm->gy, top, xm->params + xm->wo, batch, xm->n_cells,
						w, out);
	else
		err = linear_back(xm, xm->g, xm->gy, top, r, out, w, xm->wo, xm->bo);
	if (err || (err = sel(xm, xm->g, xm->g, NULL, r, w)))
		return err;
	for (int l = xm->n_layers; l-- > 0 && !err;)
		err = layer_backward(xm, l, batch);
	if (err || (err = linear_back(xm, dx, xm->g, xm->xs, r, w, xm->o.in, xm->we, xm->be)))
		return err;
	return dx ? sel(xm, dx, dx, NULL, r, xm->o.in) : 0;
}
