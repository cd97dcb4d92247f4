/*
 * family_kernel.c - the axial kernel: contract every spatial axis with a
 * learned kernel, renormalised over present cells, then mix along time.
 *
 * For spatial axis a (size n, kernel K: n x n), along every line of a,
 * with z the (selected) input and m the mask:
 *   num_i = sum_j K_ij z_j          den_i = sum_j K_ij m_j   (signed mass)
 *   abs_i = sum_j |K_ij| m_j        (the absolute mass that went into den_i)
 *   out_i = num_i / den_i   unless |den_i| <= cancel * abs_i: then the line
 *                           is degenerate (almost all of its mass cancelled)
 *                           and out_i = num_i, unscaled
 *   out_i = 0 at absent i   (selection)
 * The guard is relative: a genuinely small mass (tiny K of one sign) still
 * renormalises exactly, while [1, -0.9999] over two present cells is
 * degenerate however large K is. A dead line (no present cell) has
 * num = den = abs = 0: degenerate, out = 0. Nothing maps a NaN to a
 * number: a NaN in a present z leaves through num.
 *
 * Spatial axes are contracted in td_axial_order (by name), never in
 * storage order: with absent cells the contractions do not commute. Each
 * kernel is drawn from a stream keyed by its axis name. Then the mixer runs
 * along the time axis, or over every cell as its own line of length 1 when
 * there is none.
 *
 * The contractions run on the dense buffers, without folding: cells are
 * row-major (lattice.h), so with `inner` the cells of one step along axis
 * a and `outer` the blocks before it, a block of one example is
 * [n][inner * c] with rows j, and contracting it is one GEMM, K [n x n]
 * times the block, whose sums run over j ascending from 0. The last axis
 * has inner 1 (one GEMM per line); the first has one GEMM per example.
 *
 * Workspace, for P = max_batch * n_cells * width and S spatial axes:
 *   z    [S+1][P]      z[0] the selected input, z[s+1] contraction s's output
 *                      (saved)
 *   den  [S][n_cells]  signed mass per cell of one example (saved)
 *   deg  [S][n_cells]  1 where the cell's line is degenerate (saved)
 *   g, t1, t2 [P]      the backward's gradient; scratch (time fold, R)
 *   dk   [max n^2]     dL/dK summed whole before it is added (scratch)
 *   sk   [max_batch * n_cells * max n]  each block's R Z^T, n x n (backward
 *                      scratch)
 *   q    [max_batch * n_cells]  each cell's q_i (backward scratch)
 *   mix  [...]         the mixer's chunk workspaces (saved)
 *
 * The loops around the GEMMs run across channels innermost, where the
 * compiler vectorises them. Each function says in which order its sums
 * receive their terms. Blocks are split across threads (td_pool_ranges);
 * dL/dK, the one sum across blocks, is reduced afterwards in block order.
 *
 * Must never: clamp a signed denominator, compare it with an absolute
 * epsilon, or launder a NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block_int.h"
#include "../base/error.h"
#include "fixedsum.h"
#include "gemm.h"
#include "pool.h"
#include "rng.h"

typedef struct {
	int axis;     /* the lattice axis */
	size_t n;     /* its size */
	size_t inner; /* cells of one step along it (the axes after it, multiplied) */
	size_t outer; /* n_cells / (n * inner): its blocks in one example */
	size_t koff;  /* its kernel is params[koff .. + n^2], n x n row-major */
	uint8_t *mt;  /* [outer][inner][n] the mask by lines: cell (o, j, in) at
			 (o * inner + in) n + j */
	uint8_t *full; /* [outer][inner] 1 where the line (o, in) has no absent cell */
} kern_axis;

typedef struct {
	int n_sp;			     /* spatial axes */
	kern_axis ax[TD_LATTICE_MAX_RANK];   /* the spatial axes, in canonical order */
	td_fold *time;			     /* around the time axis, or NULL */
	size_t p, kmax, n_params;	     /* P; the largest n^2; kernel values */
	size_t nmax;			     /* the largest spatial axis */
	size_t group;			     /* the kernels' parameter group */
} kern_state;

/* The kernels' slabs (they move when a model gathers its parameters). */
static td_real *kparams(const td_block *b)
{
	return b->group[((const kern_state *)b->fam)->group].value;
}

static td_real *kgrads(const td_block *b)
{
	return b->group[((const kern_state *)b->fam)->group].grad;
}

typedef struct {
	td_real *z, *den, *deg, *g, *t1, *t2, *dk, *sk, *q, *mix;
} kern_ws;

static kern_ws carve(const td_block *b)
{
	const kern_state *s = b->fam;
	const size_t sp = (size_t)s->n_sp;
	kern_ws w;

	w.z = b->ws;
	w.den = w.z + (sp + 1) * s->p;
	w.deg = w.den + sp * b->n_cells;
	w.g = w.deg + sp * b->n_cells;
	w.t1 = w.g + s->p;
	w.t2 = w.t1 + s->p;
	w.dk = w.t2 + s->p;
	w.sk = w.dk + s->kmax;
	w.q = w.sk + b->o.max_batch * b->n_cells * s->nmax;
	w.mix = w.q + b->o.max_batch * b->n_cells;
	return w;
}

/* The spatial axes' shapes and kernel offsets; the time fold. */
static int setup_axes(td_block *b, kern_state *s)
{
	int order[TD_LATTICE_MAX_RANK], rank = td_axial_order(b->lat, order), err;

	for (int i = 0; i < rank; i++) {
		kern_axis *x = &s->ax[s->n_sp];
		size_t n = td_lattice_size(b->lat, order[i]), inner = 1;

		if (order[i] == td_lattice_time_axis(b->lat)) {
			if ((err = td_fold_new(&s->time, b->lat, order[i])))
				return err;
			continue;
		}
		for (int a = order[i] + 1; a < td_lattice_rank(b->lat); a++)
			inner *= td_lattice_size(b->lat, a);
		*x = (kern_axis){order[i], n, inner, b->n_cells / (n * inner), s->n_params, NULL, NULL};
		s->n_sp++;
		x->mt = malloc(b->n_cells);
		x->full = malloc(b->n_cells / n);
		if (!x->mt || !x->full)
			return TD_FAIL(TD_ENOMEM, "out of memory for a kernel block's mask");
		for (size_t line = 0; line < b->n_cells / n; line++) {
			const size_t o = line / inner, in = line % inner;

			x->full[line] = 1;
			for (size_t j = 0; j < n; j++) {
				x->mt[line * n + j] = b->mask[(o * n + j) * inner + in];
				x->full[line] &= x->mt[line * n + j];
			}
		}
		s->n_params += n * n;
		s->kmax = n * n > s->kmax ? n * n : s->kmax;
		s->nmax = n > s->nmax ? n : s->nmax;
	}
	return 0;
}

static int kern_setup(td_block *b)
{
	kern_state *s = calloc(1, sizeof *s);
	size_t mix = 0, sums = 0, sp, lines, length;
	int err;

	if (!s)
		return TD_FAIL(TD_ENOMEM, "out of memory for a kernel block");
	b->fam = s;
	if ((err = setup_axes(b, s)))
		return err;
	if ((err = td_block_new_group(b, "kernels", s->n_params, &s->group)))
		return err;
	sp = (size_t)s->n_sp;
	lines = s->time ? b->o.max_batch * s->time->lines : b->o.max_batch * b->n_cells;
	length = s->time ? s->time->length : 1;
	if ((err = td_mixer_size_muladd(&s->p, b->o.max_batch * b->n_cells, b->width, 0,
					"the kernel buffers")) ||
	    (err = td_mixer_size_muladd(&sums, b->o.max_batch * b->n_cells, s->nmax + 1, 0,
					"the kernel backward's per-block sums")) ||
	    (err = td_block_mix_ws(&mix, b, lines, length)))
		return err;
	b->ws_len = (sp + 4) * s->p + 2 * sp * b->n_cells + s->kmax + sums + mix;
	return 0;
}

/* Kernel s uniform in (0, 2/n) from a stream keyed by its axis's name. */
static void kern_init(td_block *b, uint64_t seed, uint64_t stream)
{
	kern_state *s = b->fam;

	for (int a = 0; a < s->n_sp; a++) {
		const char *name = td_lattice_axis_name(b->lat, s->ax[a].axis);
		size_t n = s->ax[a].n;
		uint64_t st = stream + 64 + td_axial_name_hash(name) % ((1u << 20) - 64);

		td_rng_fill_uniform(seed, st, 0, n * n, 0, (td_real)(2.0 / (double)n),
				    kparams(b) + s->ax[a].koff);
	}
}

/*
 * den and deg for every cell of one example along axis x (they do not
 * depend on the data): cell (o, i, in) sums K_ij over the present cells
 * (o, j, in), j ascending.
 */
static void masses(const td_block *b, const kern_axis *x, td_real *den, td_real *deg)
{
	const td_real *k = kparams(b) + x->koff;
	const uint8_t *m = b->mask;
	const size_t n = x->n, inner = x->inner;

	for (size_t o = 0; o < x->outer; o++)
		for (size_t i = 0; i < n; i++)
			for (size_t in = 0; in < inner; in++) {
				const size_t at = (o * n + i) * inner + in;
				double sg = 0, ab = 0;

				for (size_t j = 0; j < n; j++)
					if (m[(o * n + j) * inner + in]) {
						sg += (double)k[i * n + j];
						ab += fabs((double)k[i * n + j]);
					}
				den[at] = (td_real)sg;
				/* not (|den| > cancel * abs) covers NaN, a dead line and cancellation */
				deg[at] = !(fabs(sg) > b->o.cancel * ab);
			}
}

/* One contraction (axis x) over a range of blocks: what a thread runs. */
typedef struct {
	const td_block *b;
	const kern_axis *x;
	const kern_ws *w;
	td_real *out;		  /* forward: the output; backward: dz (may be g) */
	const td_real *g;	  /* backward: the output's gradient */
	td_real *rows;		  /* backward: R */
	const td_real *z, *zo;	  /* the contraction's input and (backward) output */
	const td_real *den, *deg; /* the axis's masses */
	size_t blocks;		  /* backward: blocks in the batch */
} contract_job;

/* Block u's first value: example u / outer, block u % outer of it. */
static size_t block_at(const kern_axis *x, size_t u, size_t n_cells, size_t c)
{
	return ((u / x->outer) * n_cells + (u % x->outer) * x->n * x->inner) * c;
}

/*
 * out = the renormalised contraction of z along axis x, absent outputs 0,
 * for blocks u0 .. u1-1: one GEMM per block, K times [n][inner * c].
 */
static int contract_blocks(void *arg, size_t u0, size_t u1)
{
	const contract_job *j = arg;
	const td_block *b = j->b;
	const kern_axis *x = j->x;
	const td_real *k = kparams(b) + x->koff, *den = j->den, *deg = j->deg;
	const size_t n = x->n, c = b->width, ld = x->inner * c;
	const td_gemm_opts one = TD_GEMM_OPTS_INIT; /* one thread: the blocks are many */
	int err;

	for (size_t u = u0; u < u1; u++) {
		const size_t base = block_at(x, u, b->n_cells, c);
		const size_t cell0 = (u % x->outer) * n * x->inner; /* within one example */

		if ((err = td_gemm(j->out + base, ld, k, n, j->z + base, ld, n, ld, n, &one)))
			return err;
		for (size_t r = 0; r < n * x->inner; r++) {
			const size_t at = cell0 + r;
			const td_real d = den[at];
			td_real *restrict o = j->out + base + r * c;

			if (!b->mask[at]) /* selection: a NaN numerator at an absent cell goes too */
				memset(o, 0, c * sizeof *o);
			else if (deg[at] == 0)
				for (size_t ch = 0; ch < c; ch++)
					o[ch] = o[ch] / d;
		}
	}
	return 0;
}

/* The spatial contractions, z[0] (selected input) to z[S]. */
static int contract_all(td_block *b, const kern_ws *w, size_t batch)
{
	const kern_state *s = b->fam;
	int err;

	for (int a = 0; a < s->n_sp; a++) {
		const kern_axis *x = &s->ax[a];
		contract_job j = {b,
				  x,
				  w,
				  w->z + (size_t)(a + 1) * s->p,
				  NULL,
				  NULL,
				  w->z + (size_t)a * s->p,
				  NULL,
				  w->den + (size_t)a * b->n_cells,
				  w->deg + (size_t)a * b->n_cells,
				  0};

		masses(b, x, w->den + (size_t)a * b->n_cells, w->deg + (size_t)a * b->n_cells);
		if ((err = td_pool_ranges(b->o.mixer.threads, batch * x->outer, contract_blocks, &j)))
			return err;
	}
	return 0;
}

/* The mixer along time (or per cell), dense in to dense out; dir 1 is backward. */
static int time_mix(td_block *b, const kern_ws *w, int dir, td_real *out, const td_real *in,
		    size_t batch)
{
	const kern_state *s = b->fam;
	int err;

	if (!s->time)
		return dir ? td_block_mix_backward(b, out, in, batch * b->n_cells, 1, w->mix)
			   : td_block_mix_forward(b, out, in, batch * b->n_cells, 1, w->mix);
	td_fold_apply(s->time, batch, b->width, in, w->t1);
	err = dir ? td_block_mix_backward(b, w->t2, w->t1, batch * s->time->lines,
					  s->time->length, w->mix)
		  : td_block_mix_forward(b, w->t2, w->t1, batch * s->time->lines, s->time->length,
					 w->mix);
	if (!err)
		td_fold_undo(s->time, batch, b->width, w->t2, out);
	return err;
}

static int kern_forward(td_block *b, td_real *y, const td_real *x, size_t batch)
{
	const kern_state *s = b->fam;
	kern_ws w = carve(b);
	int err;

	memcpy(w.z, x, batch * b->n_cells * b->width * sizeof *x);
	td_select_present(b->mask, b->n_cells, batch, b->width, w.z);
	if ((err = contract_all(b, &w, batch)) ||
	    (err = time_mix(b, &w, 0, y, w.z + (size_t)s->n_sp * s->p, batch)))
		return err;
	td_select_present(b->mask, b->n_cells, batch, b->width, y);
	return 0;
}

/*
 * The adjoint of the contraction along axis x: g (zero at absent outputs)
 * to dz (g itself, or dx for the first axis), adding dL/dK to the slab
 * once. With r_i = 1
 * (degenerate) or 1/den_i, R the rows r_i g_i and q_i = sum_ch R_i,ch
 * out_i,ch (0 when degenerate), per block:
 *   dz = K^T R                                 (a GEMM, sums over i ascending)
 *   dK += R Z^T - q m^T, i.e. dK_ij += sum_(in,ch) R_(i,in),ch z_(j,in),ch
 *                                      - sum_in q_(i,in) m_(j,in)
 * Blocks are independent but for dK: each block's R Z^T (a GEMM, sums over
 * (in, ch) ascending) and q are kept, and reduce_dk adds them block after
 * block in order, so that no sum's order depends on the thread count.
 */
static int back_blocks(void *arg, size_t u0, size_t u1)
{
	const contract_job *j = arg;
	const kern_axis *x = j->x;
	const size_t n = x->n, c = j->b->width, ld = x->inner * c, n_cells = j->b->n_cells;
	const td_real *k = kparams(j->b) + x->koff, *den = j->den, *deg = j->deg;
	td_gemm_opts dz = TD_GEMM_OPTS_INIT, sk = TD_GEMM_OPTS_INIT; /* one thread each */
	int err;

	dz.trans_a = 1, sk.trans_b = 1;
	for (size_t u = u0; u < u1; u++) {
		const size_t base = block_at(x, u, n_cells, c);
		const size_t cell0 = (u % x->outer) * n * x->inner; /* within one example */
		td_real *q = j->w->q + base / c;

		for (size_t r = 0; r < n * x->inner; r++) {
			const size_t at = cell0 + r;
			const td_real *restrict g = j->g + base + r * c, *oi = j->zo + base + r * c;
			td_real *restrict rr = j->rows + base + r * c;
			const td_real dr = den[at];

			if (deg[at] != 0) {
				memcpy(rr, g, c * sizeof *rr);
				q[r] = 0;
				continue;
			}
			for (size_t ch = 0; ch < c; ch++)
				rr[ch] = g[ch] / dr;
			q[r] = (td_real)td_dot_fixed(rr, oi, c);
		}
		if ((err = td_gemm(j->out + base, ld, k, n, j->rows + base, ld, n, ld, n, &dz)) ||
		    (err = td_gemm(j->w->sk + u * n * n, n, j->rows + base, ld, j->z + base, ld, n, n,
				   ld, &sk)))
			return err;
	}
	return 0;
}

/* Rows i0 .. i1-1 of dK = sum over blocks, in order, of R Z^T then - q m^T. */
static int reduce_dk(void *arg, size_t i0, size_t i1)
{
	const contract_job *j = arg;
	const kern_axis *x = j->x;
	const size_t n = x->n, inner = x->inner;

	memset(j->w->dk + i0 * n, 0, (i1 - i0) * n * sizeof *j->w->dk);
	for (size_t u = 0; u < j->blocks; u++) {
		const size_t cell0 = (u % x->outer) * n * inner;
		const td_real *sl = j->w->sk + u * n * n;
		const td_real *q = j->w->q + (u / x->outer) * j->b->n_cells + cell0;
		const size_t line0 = (u % x->outer) * inner; /* the block's first line */

		for (size_t i = i0; i < i1; i++) {
			td_real *restrict d = j->w->dk + i * n;

			for (size_t jj = 0; jj < n; jj++)
				d[jj] += sl[i * n + jj];
			for (size_t in = 0; in < inner; in++) {
				const td_real qi = q[i * inner + in];
				const uint8_t *m = x->mt + (line0 + in) * n;

				if (x->full[line0 + in]) /* the common case, vectorised */
					for (size_t jj = 0; jj < n; jj++)
						d[jj] -= qi;
				else
					for (size_t jj = 0; jj < n; jj++)
						d[jj] -= m[jj] ? qi : 0;
			}
		}
	}
	return 0;
}

/* dz (g itself, or another buffer) for axis a from g, and dK added to the slab. */
static int contract_back(const td_block *b, const kern_state *s, int a, const kern_ws *w,
			 td_real *dz, size_t batch)
{
	const kern_axis *x = &s->ax[a];
	contract_job j = {b,
			  x,
			  w,
			  dz,
			  w->g,
			  w->t1,
			  w->z + (size_t)a * s->p,
			  w->z + (size_t)(a + 1) * s->p,
			  w->den + (size_t)a * b->n_cells,
			  w->deg + (size_t)a * b->n_cells,
			  batch * x->outer};
	int err = td_pool_ranges(b->o.mixer.threads, j.blocks, back_blocks, &j);

	if (!err)
		err = td_pool_ranges(b->o.mixer.threads, x->n, reduce_dk, &j);
	if (err)
		return err;
	for (size_t e = 0; e < x->n * x->n; e++)
		kgrads(b)[x->koff + e] += w->dk[e];
	return 0;
}

static int kern_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch)
{
	kern_state *s = b->fam;
	kern_ws w = carve(b);
	const size_t n = batch * b->n_cells * b->width;
	const td_real *g = dy; /* dy selected: dy itself when no cell is absent */
	int err;

	if (td_lattice_n_present(b->lat) < b->n_cells) {
		memcpy(dx, dy, n * sizeof *dy);
		td_select_present(b->mask, b->n_cells, batch, b->width, dx);
		g = dx;
	}
	if ((err = time_mix(b, &w, 1, w.g, g, batch)))
		return err;
	td_select_present(b->mask, b->n_cells, batch, b->width, w.g);
	for (int a = s->n_sp; a-- > 0;) {
		td_real *dz = a > 0 ? w.g : dx; /* the last writes dx itself */

		if ((err = contract_back(b, s, a, &w, dz, batch)))
			return err;
		td_select_present(b->mask, b->n_cells, batch, b->width, dz);
	}
	if (s->n_sp == 0) /* time alone: nothing to contract */
		memcpy(dx, w.g, n * sizeof *w.g);
	return 0;
}

int td_block_kernel_axes(const td_block *b, td_block_kernel_axis *ax)
{
	const kern_state *s = b->fam;

	for (int a = 0; a < s->n_sp; a++) {
		const kern_axis *x = &s->ax[a];

		ax[a] = (td_block_kernel_axis){x->n, x->inner, x->outer, kparams(b) + x->koff,
					       kgrads(b) + x->koff};
	}
	return s->n_sp;
}

static void kern_free(td_block *b)
{
	kern_state *s = b->fam;

	for (int a = 0; a < s->n_sp; a++)
		free(s->ax[a].mt), free(s->ax[a].full);
	td_fold_free(s->time);
	free(s);
}

const td_block_ops td_family_kernel_ops = {"kernel", kern_setup, kern_forward, kern_backward,
					   kern_init, kern_free};
