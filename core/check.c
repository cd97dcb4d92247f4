/*
 * check.c - the conformance suite (see check.h).
 *
 * Independent references, never the code under test run twice: a bare
 * mixer built from the block's mixer options and fed through the
 * lattice's own gather/scatter (rank1), central finite differences of the
 * forward (gradient), the same model on the same data stored in the
 * reverse axis order (covariance), and a task whose target a loop states
 * directly (trainable).
 *
 * Must never: run a rank, density, time variant or width the caller did not
 * ask for; report a check it could not run as anything but a skip; train
 * on the batch it scores.
 */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axial.h"
#include "../base/error.h"
#include "../base/grow.h"
#include "rng.h"

/* ---- the report -------------------------------------------------------- */

static void report_add(td_check_report *r, const char *check, const char *where,
		       td_check_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void report_add(td_check_report *r, const char *check, const char *where,
		       td_check_status st, const char *fmt, ...)
{
	td_check_result *res;
	va_list ap;

	if (td_grow(&r->v, &r->cap, r->n + 1, sizeof *r->v)) {
		/* keep the count honest even when the text is lost */
		r->n_fail += st == TD_CHECK_FAIL, r->n_skip += st == TD_CHECK_SKIP;
		r->n_ok += st == TD_CHECK_OK;
		return;
	}
	res = &r->v[r->n++];
	snprintf(res->check, sizeof res->check, "%s", check);
	snprintf(res->where, sizeof res->where, "%s", where);
	res->status = st;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof res->why, fmt, ap);
	va_end(ap);
	r->n_ok += st == TD_CHECK_OK, r->n_fail += st == TD_CHECK_FAIL;
	r->n_skip += st == TD_CHECK_SKIP;
}

void td_check_report_free(td_check_report *r)
{
	if (!r)
		return;
	free(r->v);
	*r = (td_check_report)TD_CHECK_REPORT_INIT;
}

int td_check_report_format(const td_check_report *r, char **out)
{
	static const char *tag[] = {"[ok  ]", "[FAIL]", "[skip]"};
	size_t cap = 64 + r->n * 400, len = 0;
	char *s = malloc(cap);

	*out = NULL;
	if (!s)
		return TD_FAIL(TD_ENOMEM, "out of memory for a report of %zu results", r->n);
	s[0] = 0;
	for (size_t i = 0; i < r->n; i++) {
		const td_check_result *c = &r->v[i];

		len += (size_t)snprintf(s + len, cap - len, "%s %-10s  %-28s  %s\n",
					tag[c->status], c->check, c->where, c->why);
	}
	snprintf(s + len, cap - len, "%d ok, %d FAIL, %d skip\n", r->n_ok, r->n_fail, r->n_skip);
	*out = s;
	return 0;
}

const td_check_result *td_check_find(const td_check_report *r, const char *check,
				     const char *where)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].check, check) == 0 &&
		    (!where[0] || strcmp(r->v[i].where, where) == 0))
			return &r->v[i];
	return NULL;
}

/* ---- configurations and their lattices --------------------------------- */

typedef struct {
	int rank, sparse, time;
	char where[64];
} config;

static const size_t sizes[TD_CHECK_MAX_RANK][TD_CHECK_MAX_RANK] = {{5}, {3, 4}, {2, 3, 2}};
static const char *const names[2][TD_CHECK_MAX_RANK][TD_CHECK_MAX_RANK] = {
    {{"w"}, {"h", "w"}, {"d", "h", "w"}}, {{"t"}, {"t", "w"}, {"t", "h", "w"}}};

/* About a third absent, drawn from the seed; cell 0 present, the last absent. */
static void sparse_mask(uint8_t *mask, size_t n, uint64_t seed)
{
	if (n < 2)
		return;
	for (size_t c = 0; c < n; c++)
		mask[c] = td_rng_uniform(seed, 90, c) >= 0.33;
	mask[0] = 1, mask[n - 1] = 0;
}

/* Where original cell `cell` lives when the axes are stored in reverse order. */
static size_t rev_cell(const config *c, size_t cell)
{
	const size_t *s = sizes[c->rank - 1];
	size_t coord[TD_CHECK_MAX_RANK], key = 0;

	for (int i = c->rank; i-- > 0;) {
		coord[i] = cell % s[i];
		cell /= s[i];
	}
	for (int i = c->rank; i-- > 0;)
		key = key * s[i] + coord[i];
	return key;
}

static size_t config_cells(const config *c)
{
	size_t n = 1;

	for (int i = 0; i < c->rank; i++)
		n *= sizes[c->rank - 1][i];
	return n;
}

/*
 * The configuration's lattice, its axes in storage order or reversed (the
 * same cells and the same mask, stored the other way round).
 */
static int config_lattice(td_lattice **out, const config *c, int reversed, uint64_t seed)
{
	size_t shape[TD_CHECK_MAX_RANK], n = config_cells(c);
	const char *nm[TD_CHECK_MAX_RANK];
	uint8_t mask[64], stored[64];
	td_lattice_spec spec = TD_LATTICE_SPEC_INIT;
	const int r = c->rank;

	for (int i = 0; i < r; i++) {
		int src = reversed ? r - 1 - i : i;

		shape[i] = sizes[r - 1][src], nm[i] = names[c->time][r - 1][src];
	}
	memset(mask, 1, n);
	if (c->sparse)
		sparse_mask(mask, n, seed);
	for (size_t k = 0; k < n; k++)
		stored[reversed ? rev_cell(c, k) : k] = mask[k];
	spec.rank = r, spec.shape = shape, spec.names = nm, spec.mask = stored, spec.mask_len = n;
	spec.time_axis = c->time ? (reversed ? r - 1 : 0) : -1;
	return td_lattice_new(out, &spec);
}

/* ---- one configuration's rig: lattice, model, buffers ----------------- */

typedef struct {
	const config *c;
	const td_check_opts *o;
	td_lattice *lat;
	td_model *m;
	size_t cells, n;    /* cells per example; values per buffer (batch * cells * width) */
	td_real *x, *y, *dy, *dx; /* [batch][cell][width] each */
	char err[200];      /* why the rig could not be built */
} rig;

static void rig_free(rig *g)
{
	td_model_free(g->m);
	td_lattice_free(g->lat);
	free(g->x), free(g->y), free(g->dy), free(g->dx);
	memset(g, 0, sizeof *g);
}

/* Builds and initialises the model over the lattice; fills x and dy from the seed. */
static int rig_new(rig *g, const config *c, const td_check_opts *o, td_check_factory f, void *ctx,
		   int reversed)
{
	td_check_shape shape;
	int err;

	memset(g, 0, sizeof *g);
	g->c = c, g->o = o;
	if ((err = config_lattice(&g->lat, c, reversed, o->seed)))
		goto fail;
	shape = (td_check_shape){g->lat, o->width, o->width, o->width, o->batch};
	if ((err = f(&g->m, &shape, ctx)))
		goto fail;
	td_model_init(g->m, o->seed);
	g->cells = td_lattice_n_cells(g->lat), g->n = o->batch * g->cells * o->width;
	g->x = calloc(g->n + 64, sizeof *g->x), g->y = calloc(g->n + 64, sizeof *g->y);
	g->dy = calloc(g->n + 64, sizeof *g->dy), g->dx = calloc(g->n + 64, sizeof *g->dx);
	if (!g->x || !g->y || !g->dy || !g->dx) {
		err = TD_FAIL(TD_ENOMEM, "out of memory for a check's buffers");
		goto fail;
	}
	td_rng_fill_uniform(o->seed, 91, 0, g->n, -1, 1, g->x);
	td_rng_fill_uniform(o->seed, 92, 0, g->n, -1, 1, g->dy);
	return 0;
fail:
	snprintf(g->err, sizeof g->err, "could not build the model: %s", td_error_last());
	rig_free(g);
	return err ? err : TD_EINVAL;
}

/* Forward then backward on the rig's x and dy, gradients zeroed first. */
static int rig_run(rig *g, const td_real *x, const td_real *dy)
{
	int err;

	td_model_zero_grads(g->m);
	if ((err = td_model_forward(g->m, g->y, x, g->o->batch)))
		return err;
	return td_model_backward(g->m, g->dx, dy, g->o->batch);
}

/* ---- the checks ---------------------------------------------------------- */

/* Index of the first value of [b][cell][0]. */
static size_t at(const rig *g, size_t b, size_t cell)
{
	return (b * g->cells + cell) * g->o->width;
}

static void check_shape(td_check_report *r, rig *g)
{
	const char *w = g->c->where;
	size_t bad_present = 0, bad_absent = 0;
	int err;

	if (td_model_in(g->m) != g->o->width || td_model_out(g->m) != g->o->width) {
		report_add(r, "shape", w, TD_CHECK_FAIL, "the model maps %zu to %zu channels; %zu asked",
			   td_model_in(g->m), td_model_out(g->m), g->o->width);
		return;
	}
	for (size_t i = 0; i < g->n + 64; i++)
		g->y[i] = i < g->n ? (td_real)NAN : 12345;
	if ((err = rig_run(g, g->x, g->dy))) {
		report_add(r, "shape", w, TD_CHECK_FAIL, "forward/backward failed: %s", td_error_last());
		return;
	}
	for (size_t i = g->n; i < g->n + 64; i++)
		if (g->y[i] != 12345) {
			report_add(r, "shape", w, TD_CHECK_FAIL, "wrote y[%zu], past the output", i);
			return;
		}
	for (size_t i = 0; i < g->n; i++) {
		int present = td_lattice_is_present(g->lat, (i / g->o->width) % g->cells);

		bad_present += present && isnan(g->y[i]);
		bad_absent += !present && g->y[i] != 0;
	}
	if (bad_present || bad_absent)
		report_add(r, "shape", w, TD_CHECK_FAIL,
			   "%zu present values left unwritten (NaN), %zu absent values nonzero",
			   bad_present, bad_absent);
	else
		report_add(r, "shape", w, TD_CHECK_OK, "%zu x %zu x %zu", g->o->batch, g->cells,
			   g->o->width);
}

/* The saved outputs of one run: y, dx and the gradient slab, back to back. */
static td_real *snapshot(rig *g)
{
	size_t np = td_model_n_params(g->m);
	td_real *s = malloc((2 * g->n + np) * sizeof *s);

	if (s) {
		memcpy(s, g->y, g->n * sizeof *s);
		memcpy(s + g->n, g->dx, g->n * sizeof *s);
		memcpy(s + 2 * g->n, td_model_grads(g->m), np * sizeof *s);
	}
	return s;
}

/* x and dy with every absent cell set to v. */
static void perturb(rig *g, td_real *x, td_real *dy, td_real v)
{
	for (size_t b = 0; b < g->o->batch; b++)
		for (size_t c = 0; c < g->cells; c++)
			if (!td_lattice_is_present(g->lat, c))
				for (size_t k = 0; k < g->o->width; k++)
					x[at(g, b, c) + k] = dy[at(g, b, c) + k] = v;
}

/* "" when absent inputs got exactly zero gradient, else a reason. */
static const char *absent_grad_zero(const rig *g)
{
	for (size_t b = 0; b < g->o->batch; b++)
		for (size_t c = 0; c < g->cells; c++)
			for (size_t k = 0; !td_lattice_is_present(g->lat, c) && k < g->o->width; k++)
				if (g->dx[at(g, b, c) + k] != 0)
					return "the gradient reaching an absent input is not zero";
	return "";
}

/* Compares one perturbed run with the base snapshot; "" when bitwise equal. */
static const char *compare_run(rig *g, const td_real *base, td_real v)
{
	td_real *x = malloc(g->n * sizeof *x), *dy = malloc(g->n * sizeof *dy), *now = NULL;
	const char *why = "out of memory";
	size_t np = td_model_n_params(g->m);

	if (x && dy) {
		memcpy(x, g->x, g->n * sizeof *x), memcpy(dy, g->dy, g->n * sizeof *dy);
		perturb(g, x, dy, v);
		why = rig_run(g, x, dy) ? "forward/backward refused the perturbed input" : "";
	}
	if (!why[0] && !(now = snapshot(g)))
		why = "out of memory";
	if (!why[0] && memcmp(now, base, g->n * sizeof *now) != 0)
		why = "perturbing absent cells changed the output";
	else if (!why[0] && memcmp(now + g->n, base + g->n, g->n * sizeof *now) != 0)
		why = "perturbing absent cells changed the input gradient";
	else if (!why[0] && memcmp(now + 2 * g->n, base + 2 * g->n, np * sizeof *now) != 0)
		why = "perturbing absent cells changed a parameter gradient";
	free(x), free(dy), free(now);
	return why;
}

static void check_absent(td_check_report *r, rig *g)
{
	static const char *label[] = {"NaN", "+inf", "-inf", "1e30"};
	const td_real vals[] = {(td_real)NAN, (td_real)INFINITY, (td_real)-INFINITY, (td_real)1e30};
	const char *why = "";
	td_real *base;
	int i;

	if (!g->c->sparse) {
		report_add(r, "absent", g->c->where, TD_CHECK_SKIP,
			   "a dense lattice has no absent cell to perturb");
		return;
	}
	if (rig_run(g, g->x, g->dy) || !(base = snapshot(g))) {
		report_add(r, "absent", g->c->where, TD_CHECK_FAIL, "the base run failed: %s",
			   td_error_last());
		return;
	}
	why = absent_grad_zero(g);
	for (i = 0; i < 4 && !why[0]; i++)
		why = compare_run(g, base, vals[i]);
	if (why[0])
		report_add(r, "absent", g->c->where, TD_CHECK_FAIL, "%s%s%s", why,
			   i > 0 ? " with " : "", i > 0 ? label[i - 1] : "");
	else
		report_add(r, "absent", g->c->where, TD_CHECK_OK,
			   "NaN, +inf, -inf, 1e30 in %zu absent cells: bitwise unchanged",
			   g->cells - td_lattice_n_present(g->lat));
	free(base);
}

static void check_covariance(td_check_report *r, rig *g, td_check_factory f, void *ctx)
{
	const char *w = g->c->where;
	rig h;
	size_t mism = 0;

	if (g->c->rank < 2) {
		report_add(r, "covariance", w, TD_CHECK_SKIP, "one axis has no other storage order");
		return;
	}
	if (rig_new(&h, g->c, g->o, f, ctx, 1)) {
		report_add(r, "covariance", w, TD_CHECK_FAIL, "reversed order: %s", h.err);
		return;
	}
	for (size_t b = 0; b < g->o->batch; b++)
		for (size_t c = 0; c < g->cells; c++)
			memcpy(h.x + at(&h, b, rev_cell(g->c, c)), g->x + at(g, b, c),
			       g->o->width * sizeof *h.x);
	if (td_model_forward(g->m, g->y, g->x, g->o->batch) ||
	    td_model_forward(h.m, h.y, h.x, g->o->batch)) {
		report_add(r, "covariance", w, TD_CHECK_FAIL, "forward failed: %s", td_error_last());
		rig_free(&h);
		return;
	}
	for (size_t b = 0; b < g->o->batch; b++)
		for (size_t c = 0; c < g->cells; c++)
			mism += memcmp(h.y + at(&h, b, rev_cell(g->c, c)), g->y + at(g, b, c),
				       g->o->width * sizeof *h.y) != 0;
	if (mism)
		report_add(r, "covariance", w, TD_CHECK_FAIL,
			   "%zu cells differ when the axes are stored in reverse order", mism);
	else
		report_add(r, "covariance", w, TD_CHECK_OK, "axes reversed: bitwise the same");
	rig_free(&h);
}

#ifdef TD_REAL_DOUBLE
/* sum_i dy[i] * y[i] over the forward of x. */
static double loss(rig *g)
{
	double s = 0;

	if (td_model_forward(g->m, g->y, g->x, g->o->batch))
		return NAN;
	for (size_t i = 0; i < g->n; i++)
		s += g->dy[i] * g->y[i];
	return s;
}

/* 1 when the analytic derivative in *a agrees with the central difference in *v. */
static int agrees(rig *g, td_real *v, double a, double *num)
{
	const double eps = 1e-6;
	td_real keep = *v;
	double up, down;

	*v = keep + eps, up = loss(g);
	*v = keep - eps, down = loss(g);
	*v = keep;
	*num = (up - down) / (2 * eps);
	return fabs(a - *num) <= 1e-6 * (1 + fabs(*num));
}

static void gradcheck(td_check_report *r, rig *g)
{
	const size_t np = td_model_n_params(g->m);
	td_real *grad = malloc((np + g->n) * sizeof *grad), *p = td_model_params(g->m);
	size_t bad = 0;
	char first[160] = "";
	double num;

	if (!grad || rig_run(g, g->x, g->dy)) {
		report_add(r, "gradient", g->c->where, TD_CHECK_FAIL, "could not run: %s",
			   td_error_last());
		free(grad);
		return;
	}
	memcpy(grad, td_model_grads(g->m), np * sizeof *grad);
	memcpy(grad + np, g->dx, g->n * sizeof *grad);
	for (size_t i = 0; i < np + g->n; i++) {
		td_real *v = i < np ? &p[i] : &g->x[i - np];

		if (!agrees(g, v, grad[i], &num) && bad++ == 0)
			snprintf(first, sizeof first, "%s %zu: backward %.10g, finite difference %.10g",
				 i < np ? "parameter" : "input", i < np ? i : i - np, grad[i], num);
	}
	if (bad)
		report_add(r, "gradient", g->c->where, TD_CHECK_FAIL, "%zu of %zu disagree; first: %s",
			   bad, np + g->n, first);
	else
		report_add(r, "gradient", g->c->where, TD_CHECK_OK,
			   "%zu parameters and %zu inputs agree", np, g->n);
	free(grad);
}
#endif

/* The gradient check, or a skip that says why (a float build). */
static void check_gradient(td_check_report *r, rig *g)
{
#ifdef TD_REAL_DOUBLE
	gradcheck(r, g);
#else
	report_add(r, "gradient", g->c->where, TD_CHECK_SKIP,
		   "gradients are checked in double precision and this build's td_real is %s: "
		   "build with VARIANT=double",
		   TD_REAL_NAME);
#endif
}

/*
 * dst = src with absent cells 0 (scan, kernel); for flatten, src's present
 * cells packed (in), or spread back over the lattice with absent cells 0
 * (out).
 */
static int bare_copy(const rig *g, int flat, int in, const td_real *src, td_real *dst)
{
	const size_t wd = g->o->width;

	if (flat)
		return in ? td_lattice_gather(g->lat, g->o->batch, wd, src, dst)
			  : td_lattice_scatter(g->lat, g->o->batch, wd, src, dst);
	for (size_t i = 0; i < g->n; i++)
		dst[i] = td_lattice_is_present(g->lat, (i / wd) % g->cells) ? src[i] : 0;
	return 0;
}

/*
 * The bare mixer's answers for layer 0's block on rank-1 data x and output
 * gradient dy: y over the whole line with absent cells zero (scan,
 * kernel), or over the present cells only, through the lattice's gather
 * and scatter (flatten); dx likewise from the mixer's backward.
 */
static int bare_mixer(rig *g, td_block *blk, td_real *want, td_real *want_dx)
{
	const td_mixer *bm = td_block_mixer(blk);
	const size_t b = g->o->batch, np = td_lattice_n_present(g->lat);
	int flat = td_block_family_of(blk) == TD_BLOCK_FLATTEN;
	size_t len = flat ? np : g->cells, ws_len = 0;
	td_real *in = calloc(g->n, sizeof *in), *out = calloc(g->n, sizeof *out), *ws = NULL;
	td_mixer *m = NULL;
	int err = !in || !out ? TD_FAIL(TD_ENOMEM, "out of memory for the bare mixer") : 0;

	if (!err && !(err = td_mixer_new(&m, td_mixer_options(bm))))
		memcpy(td_mixer_params(m), td_mixer_params((td_mixer *)bm),
		       td_mixer_n_params(m) * sizeof(td_real));
	if (!err && !(err = td_mixer_ws_size(&ws_len, m, b, len)) &&
	    !(ws = calloc(ws_len, sizeof *ws)))
		err = TD_FAIL(TD_ENOMEM, "out of memory for the bare mixer's workspace");
	if (!err && !(err = bare_copy(g, flat, 1, g->x, in)) &&
	    !(err = td_mixer_forward(m, out, in, b, len, ws, ws_len)) &&
	    !(err = bare_copy(g, flat, 0, out, want)) && !(err = bare_copy(g, flat, 1, g->dy, in)) &&
	    !(err = td_mixer_backward(m, out, in, b, len, ws, ws_len)))
		err = bare_copy(g, flat, 0, out, want_dx);
	td_mixer_free(m);
	free(in), free(out), free(ws);
	return err;
}

/* Layer 0's block, forward and backward, against bare_mixer; leaves the gradients zero. */
static void check_rank1(td_check_report *r, rig *g)
{
	td_block *blk = td_model_block(g->m, 0);
	td_real *want = calloc(2 * g->n, sizeof *want);

	if (td_block_family_of(blk) == TD_BLOCK_KERNEL && !g->c->time)
		report_add(r, "rank1", g->c->where, TD_CHECK_SKIP,
			   "the kernel family contracts the spatial axis with a learned kernel: no "
			   "bare 1-D mixer equals it (request a time axis)");
	else if (!want || bare_mixer(g, blk, want, want + g->n) ||
		 td_block_forward(blk, g->y, g->x, g->o->batch) ||
		 td_block_backward(blk, g->dx, g->dy, g->o->batch))
		report_add(r, "rank1", g->c->where, TD_CHECK_FAIL, "could not run: %s",
			   td_error_last());
	else if (memcmp(want, g->y, g->n * sizeof *want) != 0 ||
		 memcmp(want + g->n, g->dx, g->n * sizeof *want) != 0)
		report_add(r, "rank1", g->c->where, TD_CHECK_FAIL,
			   "layer 0 on a rank-1 lattice differs from its bare %s mixer in its %s",
			   td_mixer_kind_name(td_block_mixer(blk)),
			   memcmp(want, g->y, g->n * sizeof *want) ? "output" : "input gradient");
	else
		report_add(r, "rank1", g->c->where, TD_CHECK_OK,
			   "forward and backward bitwise equal to the bare %s mixer",
			   td_mixer_kind_name(td_block_mixer(blk)));
	td_model_zero_grads(g->m);
	free(want);
}

/* Every check of one configuration. */
static int run_config(td_check_report *r, const config *c, const td_check_opts *o,
		      td_check_factory f, void *ctx)
{
	static const char *const all[] = {"shape", "absent", "covariance", "gradient", "rank1"};
	rig g;

	if (rig_new(&g, c, o, f, ctx, 0)) {
		for (int i = 0; i < 5; i++)
			if (i < 4 || c->rank == 1)
				report_add(r, all[i], c->where, TD_CHECK_FAIL, "%s", g.err);
		return td_error_code() == TD_ENOMEM ? TD_ENOMEM : 0;
	}
	check_shape(r, &g);
	check_absent(r, &g);
	check_covariance(r, &g, f, ctx);
	check_gradient(r, &g);
	if (c->rank == 1)
		check_rank1(r, &g);
	rig_free(&g);
	return 0;
}

static int check_opts(const td_check_opts *o)
{
	if (!o->ranks || o->n_ranks < 1)
		return TD_FAIL(TD_EINVAL, "no rank requested; list the ranks to check in ranks");
	for (int i = 0; i < o->n_ranks; i++)
		if (o->ranks[i] < 1 || o->ranks[i] > TD_CHECK_MAX_RANK)
			return TD_FAIL(TD_EINVAL, "rank %d is outside 1..%d", o->ranks[i],
				       TD_CHECK_MAX_RANK);
	if (o->width < 1 || o->batch < 1)
		return TD_FAIL(TD_EINVAL, "%s is 0; it must be >= 1",
			       o->width < 1 ? "width" : "batch");
	if (!(o->densities & 3) || !(o->times & 3))
		return TD_FAIL(TD_EINVAL, "no %s requested; set TD_CHECK_%s",
			       !(o->densities & 3) ? "density" : "time variant",
			       !(o->densities & 3) ? "DENSE or _SPARSE" : "NO_TIME or _TIME");
	return 0;
}

int td_check_block(td_check_report *report, td_check_factory factory, void *ctx,
		   const td_check_opts *opts)
{
	int err, rank1 = 0;

	if (!report || !factory || !opts)
		return TD_FAIL(TD_EINVAL, "report, factory and opts must be given");
	if ((err = check_opts(opts)))
		return err;
	for (int i = 0; i < opts->n_ranks && !err; i++)
		for (int sp = 0; sp < 2 && !err; sp++)
			for (int t = 0; t < 2 && !err; t++) {
				config c = {opts->ranks[i], sp, t, ""};

				if (!(opts->densities & (1 << sp)) || !(opts->times & (1 << t)))
					continue;
				snprintf(c.where, sizeof c.where, "rank %d, %s, %s", c.rank,
					 sp ? "sparse" : "dense", t ? "time axis" : "no time axis");
				rank1 |= c.rank == 1;
				err = run_config(report, &c, opts, factory, ctx);
			}
	if (!err && !rank1)
		report_add(report, "rank1", "", TD_CHECK_SKIP,
			   "rank 1 was not requested: the bare-mixer equivalence needs a rank-1 "
			   "lattice");
	return err;
}

/* ---- trainability ----------------------------------------------------------- */

#define TASK_SIDE 4
#define TASK_CELLS (TASK_SIDE * TASK_SIDE)

int td_check_task_lattice(td_lattice **out)
{
	static const size_t shape[] = {TASK_SIDE, TASK_SIDE};
	static const char *const hw[] = {"h", "w"};
	td_lattice_spec spec = TD_LATTICE_SPEC_INIT;

	spec.rank = 2, spec.shape = shape, spec.names = hw;
	return td_lattice_new(out, &spec);
}

void td_check_task_batch(td_real *x, td_real *y, size_t batch, uint64_t seed, uint64_t index)
{
	td_rng_fill_uniform(seed, 93, index * batch * TASK_CELLS, batch * TASK_CELLS, -1, 1, x);
	for (size_t b = 0; b < batch; b++)
		for (size_t h = 0; h < TASK_SIDE; h++) {
			td_real s = 0;

			for (size_t w = 0; w < TASK_SIDE; w++) {
				size_t i = b * TASK_CELLS + h * TASK_SIDE + w;

				s += x[i];
				y[i] = s;
			}
		}
}

uint64_t td_check_train_index(int step)
{
	return (uint64_t)step + 1; /* index 0 is the held-out batch */
}

/* One Adam step (beta 0.9, 0.999) over the model's slab; t counts from 1. */
static void adam_step(td_model *m, td_real *mo, td_real *ve, int t, double lr)
{
	const size_t n = td_model_n_params(m);
	td_real *p = td_model_params(m);
	const td_real *g = td_model_grads(m);
	const double c1 = 1 - pow(0.9, t), c2 = 1 - pow(0.999, t);

	for (size_t i = 0; i < n; i++) {
		mo[i] = (td_real)(0.9 * mo[i] + 0.1 * g[i]);
		ve[i] = (td_real)(0.999 * ve[i] + 0.001 * (double)g[i] * (double)g[i]);
		p[i] -= (td_real)(lr * (mo[i] / c1) / (sqrt(ve[i] / c2) + 1e-8));
	}
}

/* Buffers for training: x, y, prediction and its gradient, [batch][16] each. */
typedef struct {
	td_real *x, *y, *p, *dp, *mo, *ve;
} train_bufs;

/* Sum of squared errors and of squared targets over n values; dp = d(mean sq. error)/dp. */
static void errors(const train_bufs *t, size_t n, double *se, double *sy)
{
	*se = *sy = 0;
	for (size_t i = 0; i < n; i++) {
		double d = (double)t->p[i] - (double)t->y[i];

		*se += d * d, *sy += (double)t->y[i] * (double)t->y[i];
		t->dp[i] = (td_real)(2 * d / (double)n);
	}
}

/* Trains on a fresh batch per step; *score = the held-out batch's normalised error. */
static int train_loop(td_model *m, const train_bufs *t, const td_trainable_opts *o,
		      double *score)
{
	const size_t n = o->batch * TASK_CELLS;
	double se, sy;
	int err = 0;

	for (int s = 0; s < o->steps && !err; s++) {
		td_check_task_batch(t->x, t->y, o->batch, o->seed, td_check_train_index(s));
		td_model_zero_grads(m);
		if (!(err = td_model_forward(m, t->p, t->x, o->batch))) {
			errors(t, n, &se, &sy);
			err = td_model_backward(m, NULL, t->dp, o->batch);
		}
		if (!err)
			adam_step(m, t->mo, t->ve, s + 1, o->lr);
	}
	td_check_task_batch(t->x, t->y, o->batch, o->seed, TD_CHECK_HELDOUT_INDEX);
	if (!err && !(err = td_model_forward(m, t->p, t->x, o->batch))) {
		errors(t, n, &se, &sy);
		*score = se / sy;
	}
	return err;
}

/* Builds one model with its factory and trains it; the model is freed here. */
static int train_one(double *score, td_check_factory f, void *ctx, const td_lattice *lat,
		     const td_trainable_opts *o)
{
	td_check_shape shape = {lat, 1, o->width, 1, o->batch};
	const size_t n = o->batch * TASK_CELLS;
	train_bufs t = {NULL, NULL, NULL, NULL, NULL, NULL};
	td_model *m = NULL;
	int err;

	if ((err = f(&m, &shape, ctx)))
		return err;
	td_model_init(m, o->seed);
	t.x = calloc(n, sizeof *t.x), t.y = calloc(n, sizeof *t.y);
	t.p = calloc(n, sizeof *t.p), t.dp = calloc(n, sizeof *t.dp);
	t.mo = calloc(td_model_n_params(m), sizeof *t.mo);
	t.ve = calloc(td_model_n_params(m), sizeof *t.ve);
	if (!t.x || !t.y || !t.p || !t.dp || !t.mo || !t.ve)
		err = TD_FAIL(TD_ENOMEM, "out of memory for training");
	else
		err = train_loop(m, &t, o, score);
	free(t.x), free(t.y), free(t.p), free(t.dp), free(t.mo), free(t.ve);
	td_model_free(m);
	return err;
}

static int trainable_opts_ok(const td_trainable_opts *o)
{
	if (o->steps < 1 || o->batch < 1 || o->width < 1)
		return TD_FAIL(TD_EINVAL, "%s must be >= 1",
			       o->steps < 1 ? "steps" : o->batch < 1 ? "batch" : "width");
	if (!(o->lr > 0) || !(o->pass > 0))
		return TD_FAIL(TD_EINVAL, "%s must be > 0", !(o->lr > 0) ? "lr" : "pass");
	return 0;
}

int td_check_trainable(td_check_report *report, td_trainable_scores *scores,
		       td_check_factory model, void *model_ctx, td_check_factory control,
		       void *control_ctx, const td_trainable_opts *opts)
{
	td_trainable_scores s = {NAN, NAN};
	td_lattice *lat = NULL;
	int err, e1, e2;

	if (!report || !model || !control || !opts)
		return TD_FAIL(TD_EINVAL, "report, model, control and opts must be given");
	if ((err = trainable_opts_ok(opts)) || (err = td_check_task_lattice(&lat)))
		return err;
	if ((e1 = train_one(&s.model, model, model_ctx, lat, opts)))
		report_add(report, "trainable", "model", TD_CHECK_FAIL, "could not train: %s",
			   td_error_last());
	else
		report_add(report, "trainable", "model", s.model < opts->pass ? TD_CHECK_OK
									: TD_CHECK_FAIL,
			   "held-out error %.4f after %d fresh batches (learned when < %g)", s.model,
			   opts->steps, opts->pass);
	if ((e2 = train_one(&s.control, control, control_ctx, lat, opts)))
		report_add(report, "trainable", "control", TD_CHECK_FAIL, "could not train: %s",
			   td_error_last());
	else
		report_add(report, "trainable", "control",
			   s.control < opts->pass ? TD_CHECK_FAIL : TD_CHECK_OK,
			   "held-out error %.4f: %s", s.control,
			   s.control < opts->pass ? "the control learned the task, so the check "
						    "cannot tell a model that needs the axis"
						  : "the control cannot learn it, as it must not");
	if (scores)
		*scores = s;
	td_lattice_free(lat);
	return e1 == TD_ENOMEM || e2 == TD_ENOMEM ? TD_ENOMEM : 0;
}
