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
 * Workspace, for P = max_batch * n_cells * width and S spatial axes:
 *   z    [S+1][P]      z[0] the selected input, z[s+1] contraction s's output,
 *                      dense (saved)
 *   zf   [S][P]        contraction s's input, folded around its axis (saved)
 *   of   [S][P]        contraction s's output, folded (saved)
 *   den  [S][n_cells]  signed mass per folded position (saved)
 *   deg  [S][n_cells]  1 where the line is degenerate (saved)
 *   t1, t2 [P]         scratch (time fold, gradients)
 *   dk   [max n^2]     dL/dK summed whole before it is added (scratch)
 *   sk   [max_batch * n_cells * max n]  each line's R Z^T, n x n (backward
 *                      scratch)
 *   q    [max_batch * n_cells]  each line's q_i (backward scratch)
 *   mix  [...]         the mixer's chunk workspaces (saved)
 *
 * The contractions are GEMMs (gemm.h: each sum in a fixed order), one per
 * line; the loops around them run across channels innermost, where the
 * compiler vectorises them. Each function says in which order its sums
 * receive their terms. Lines are split across threads (td_pool_ranges);
 * dL/dK, the one sum across lines, is reduced afterwards in line order.
 *
 * Must never: clamp a signed denominator, compare it with an absolute
 * epsilon, or launder a NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block_int.h"
#include "error.h"
#include "fixedsum.h"
#include "gemm.h"
#include "pool.h"
#include "rng.h"

typedef struct {
	int n_sp;				   /* spatial axes */
	int axis[TD_LATTICE_MAX_RANK];		   /* spatial axis s's lattice axis */
	td_fold *fold[TD_LATTICE_MAX_RANK];	   /* around spatial axis s (canonical order) */
	uint8_t *mfold[TD_LATTICE_MAX_RANK];	   /* [n_cells] the mask, folded like fold[s] */
	size_t koff[TD_LATTICE_MAX_RANK];	   /* kernel s starts at params[koff[s]] */
	td_fold *time;				   /* around the time axis, or NULL */
	size_t p, kmax, n_params;		   /* P; the largest n^2; kernel values */
	size_t nmax;				   /* the largest spatial axis */
	size_t group;				   /* the kernels' parameter group: kernel s is
						      value[koff[s] .. + n^2], n x n row-major */
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
	td_real *z, *zf, *of, *den, *deg, *t1, *t2, *dk, *sk, *q, *mix;
} kern_ws;

static kern_ws carve(const td_block *b)
{
	const kern_state *s = b->fam;
	const size_t sp = (size_t)s->n_sp;
	kern_ws w;

	w.z = b->ws;
	w.zf = w.z + (sp + 1) * s->p;
	w.of = w.zf + sp * s->p;
	w.den = w.of + sp * s->p;
	w.deg = w.den + sp * b->n_cells;
	w.t1 = w.deg + sp * b->n_cells;
	w.t2 = w.t1 + s->p;
	w.dk = w.t2 + s->p;
	w.sk = w.dk + s->kmax;
	w.q = w.sk + b->o.max_batch * b->n_cells * s->nmax;
	w.mix = w.q + b->o.max_batch * b->n_cells;
	return w;
}

/* Folds and folded masks for the spatial axes; kernel offsets. */
static int setup_axes(td_block *b, kern_state *s)
{
	int order[TD_LATTICE_MAX_RANK], rank = td_axial_order(b->lat, order), err;

	for (int i = 0; i < rank; i++) {
		size_t n = td_lattice_size(b->lat, order[i]);
		td_fold *f;

		if (order[i] == td_lattice_time_axis(b->lat)) {
			if ((err = td_fold_new(&s->time, b->lat, order[i])))
				return err;
			continue;
		}
		if ((err = td_fold_new(&f, b->lat, order[i])))
			return err;
		s->fold[s->n_sp] = f;
		s->axis[s->n_sp] = order[i];
		if (!(s->mfold[s->n_sp] = malloc(b->n_cells)))
			return TD_FAIL(TD_ENOMEM, "out of memory for a folded mask");
		for (size_t k = 0; k < b->n_cells; k++)
			s->mfold[s->n_sp][k] = b->mask[f->fold[k]];
		s->koff[s->n_sp++] = s->n_params;
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
					"the kernel backward's per-line sums")) ||
	    (err = td_block_mix_ws(&mix, b, lines, length)))
		return err;
	b->ws_len = (3 * sp + 3) * s->p + 2 * sp * b->n_cells + s->kmax + sums + mix;
	return 0;
}

/* Kernel s uniform in (0, 2/n) from a stream keyed by its axis's name. */
static void kern_init(td_block *b, uint64_t seed, uint64_t stream)
{
	kern_state *s = b->fam;

	for (int a = 0; a < s->n_sp; a++) {
		const char *name = td_lattice_axis_name(b->lat, s->axis[a]);
		size_t n = s->fold[a]->length;
		uint64_t st = stream + 64 + td_axial_name_hash(name) % ((1u << 20) - 64);

		td_rng_fill_uniform(seed, st, 0, n * n, 0, (td_real)(2.0 / (double)n),
				    kparams(b) + s->koff[a]);
	}
}

/* den and deg for every folded position of one example (they do not depend on the data). */
static void masses(const td_block *b, const kern_state *s, int a, td_real *den, td_real *deg)
{
	const td_fold *f = s->fold[a];
	const td_real *k = kparams(b) + s->koff[a];
	const uint8_t *m = s->mfold[a];
	const size_t n = f->length;

	for (size_t l = 0; l < f->lines; l++)
		for (size_t i = 0; i < n; i++) {
			double sg = 0, ab = 0;

			for (size_t j = 0; j < n; j++)
				if (m[l * n + j]) {
					sg += (double)k[i * n + j];
					ab += fabs((double)k[i * n + j]);
				}
			den[l * n + i] = (td_real)sg;
			/* not (|den| > cancel * abs) covers NaN, a dead line and cancellation */
			deg[l * n + i] = !(fabs(sg) > b->o.cancel * ab);
		}
}

/* One contraction (axis a) over a range of folded lines: what a thread runs. */
typedef struct {
	const td_block *b;
	const kern_state *s;
	int a;
	const kern_ws *w;
	td_real *of, *dzf, *rows; /* forward output; backward output, and gf turned into R */
	const td_real *zf, *den, *deg;
	size_t lines; /* backward: folded lines in the batch */
} contract_job;

/*
 * of = the renormalised contraction of zf along spatial axis a, absent
 * outputs 0, for lines l0 .. l1-1. Each line's numerators are one GEMM, K
 * [n x n] times the line [n x c], whose sums run over j ascending from 0.
 */
static int contract_lines(void *arg, size_t l0, size_t l1)
{
	const contract_job *j = arg;
	const td_block *b = j->b;
	const kern_state *s = j->s;
	const int a = j->a;
	const td_fold *f = s->fold[a];
	const td_real *k = kparams(b) + s->koff[a], *zf = j->zf, *den = j->den, *deg = j->deg;
	td_real *of = j->of;
	const size_t n = f->length, c = b->width;
	const td_gemm_opts one = TD_GEMM_OPTS_INIT; /* one thread: the lines are many and small */
	int err;

	for (size_t line = l0; line < l1; line++) {
		if ((err = td_gemm(of + line * n * c, c, k, n, zf + line * n * c, c, n, c, n, &one)))
			return err;
		for (size_t i = 0; i < n; i++) {
			size_t at = (line % f->lines) * n + i; /* position within one example */
			td_real *restrict o = of + (line * n + i) * c;

			for (size_t ch = 0; ch < c; ch++) {
				o[ch] = deg[at] != 0 ? o[ch] : o[ch] / den[at];
				o[ch] = s->mfold[a][at] ? o[ch] : 0;
			}
		}
	}
	return 0;
}

static int contract(const td_block *b, const kern_state *s, int a, td_real *of, const td_real *zf,
		    const td_real *den, const td_real *deg, size_t batch)
{
	contract_job j = {b, s, a, NULL, of, NULL, NULL, zf, den, deg, 0};

	return td_pool_ranges(b->o.mixer.threads, batch * s->fold[a]->lines, contract_lines, &j);
}

/* The spatial contractions, z[0] (selected input) to z[S]. */
static int contract_all(td_block *b, const kern_ws *w, size_t batch)
{
	const kern_state *s = b->fam;
	int err;

	for (int a = 0; a < s->n_sp; a++) {
		td_real *zf = w->zf + (size_t)a * s->p, *of = w->of + (size_t)a * s->p;
		td_real *den = w->den + (size_t)a * b->n_cells, *deg = w->deg + (size_t)a * b->n_cells;

		masses(b, s, a, den, deg);
		td_fold_apply(s->fold[a], batch, b->width, w->z + (size_t)a * s->p, zf);
		if ((err = contract(b, s, a, of, zf, den, deg, batch)))
			return err;
		td_fold_undo(s->fold[a], batch, b->width, of, w->z + (size_t)(a + 1) * s->p);
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
 * The adjoint of contract for axis a: gf (folded, zero at absent outputs)
 * to dzf, adding dL/dK to the slab once. With r_i = 1 (degenerate) or
 * 1/den_i, R the line's rows r_i g_i and q_i = sum_ch R_i,ch out_i,ch
 * (0 when degenerate):
 *   dz = K^T R                                 (a GEMM, sums over i ascending)
 *   dK += R Z^T - q m^T, i.e. dK_ij += sum_ch R_i,ch z_j,ch - q_i m_j
 * Lines are independent but for dK: each line's R Z^T (a GEMM, sums over
 * channels ascending) and q are kept, and reduce_dk adds them line after
 * line in order, so that no sum's order depends on the thread count.
 */
static int back_lines(void *arg, size_t l0, size_t l1)
{
	const contract_job *j = arg;
	const kern_state *s = j->s;
	const td_fold *f = s->fold[j->a];
	const size_t n = f->length, c = j->b->width;
	const td_real *k = kparams(j->b) + s->koff[j->a], *den = j->den, *deg = j->deg;
	const td_real *of = j->w->of + (size_t)j->a * s->p;
	td_gemm_opts dz = TD_GEMM_OPTS_INIT, sk = TD_GEMM_OPTS_INIT; /* one thread each */
	int err;

	dz.trans_a = 1, sk.trans_b = 1;
	for (size_t line = l0; line < l1; line++) {
		const size_t base = (line % f->lines) * n; /* the line's first position in one example */
		td_real *rows = j->rows + line * n * c, *q = j->w->q + line * n;

		for (size_t i = 0; i < n; i++) {
			const td_real *oi = of + (line * n + i) * c;
			td_real *restrict r = rows + i * c; /* g_i, turned into r_i g_i in place */
			const int dg = deg[base + i] != 0;

			for (size_t ch = 0; ch < c; ch++)
				r[ch] = dg ? r[ch] : r[ch] / den[base + i];
			q[i] = dg ? 0 : (td_real)td_dot_fixed(r, oi, c);
		}
		if ((err = td_gemm(j->dzf + line * n * c, c, k, n, rows, c, n, c, n, &dz)) ||
		    (err = td_gemm(j->w->sk + line * n * n, n, rows, c, j->zf + line * n * c, c, n, n,
				   c, &sk)))
			return err;
	}
	return 0;
}

/* Rows i0 .. i1-1 of dK = sum over lines, in order, of R Z^T then - q m^T. */
static int reduce_dk(void *arg, size_t i0, size_t i1)
{
	const contract_job *j = arg;
	const td_fold *f = j->s->fold[j->a];
	const size_t n = f->length;

	memset(j->w->dk + i0 * n, 0, (i1 - i0) * n * sizeof *j->w->dk);
	for (size_t line = 0; line < j->lines; line++) {
		const td_real *sl = j->w->sk + line * n * n, *q = j->w->q + line * n;
		const uint8_t *m = j->s->mfold[j->a] + (line % f->lines) * n;

		for (size_t i = i0; i < i1; i++) {
			td_real *restrict d = j->w->dk + i * n;

			for (size_t jj = 0; jj < n; jj++)
				d[jj] += sl[i * n + jj];
			for (size_t jj = 0; jj < n; jj++)
				d[jj] -= m[jj] ? q[i] : 0;
		}
	}
	return 0;
}

static int contract_back(const td_block *b, const kern_state *s, int a, const kern_ws *w,
			 td_real *dzf, td_real *gf, size_t batch)
{
	const size_t n = s->fold[a]->length;
	contract_job j = {b,
			  s,
			  a,
			  w,
			  NULL,
			  dzf,
			  gf,
			  w->zf + (size_t)a * s->p,
			  w->den + (size_t)a * b->n_cells,
			  w->deg + (size_t)a * b->n_cells,
			  batch * s->fold[a]->lines};
	int err = td_pool_ranges(b->o.mixer.threads, j.lines, back_lines, &j);

	if (!err)
		err = td_pool_ranges(b->o.mixer.threads, n, reduce_dk, &j);
	if (err)
		return err;
	for (size_t e = 0; e < n * n; e++)
		kgrads(b)[s->koff[a] + e] += w->dk[e];
	return 0;
}

static int kern_backward(td_block *b, td_real *dx, const td_real *dy, size_t batch)
{
	kern_state *s = b->fam;
	kern_ws w = carve(b);
	const size_t n = batch * b->n_cells * b->width;
	td_real *g = w.z + (size_t)s->n_sp * s->p; /* z[S] is not needed by the backward */
	int err;

	memcpy(dx, dy, n * sizeof *dy);
	td_select_present(b->mask, b->n_cells, batch, b->width, dx);
	if ((err = time_mix(b, &w, 1, g, dx, batch)))
		return err;
	td_select_present(b->mask, b->n_cells, batch, b->width, g);
	for (int a = s->n_sp; a-- > 0;) {
		td_fold_apply(s->fold[a], batch, b->width, g, w.t1);
		if ((err = contract_back(b, s, a, &w, w.t2, w.t1, batch)))
			return err;
		td_fold_undo(s->fold[a], batch, b->width, w.t2, g);
		td_select_present(b->mask, b->n_cells, batch, b->width, g);
	}
	memcpy(dx, g, n * sizeof *g);
	return 0;
}

static void kern_free(td_block *b)
{
	kern_state *s = b->fam;

	for (int a = 0; a < TD_LATTICE_MAX_RANK; a++) {
		td_fold_free(s->fold[a]);
		free(s->mfold[a]);
	}
	td_fold_free(s->time);
	free(s);
}

const td_block_ops td_family_kernel_ops = {"kernel", kern_setup, kern_forward, kern_backward,
					   kern_init, kern_free};
