/*
 * test_axial.c - the lattice plumbing and the three composition families
 * one block at a time: folds against an argsort, selection against NaN and
 * infinities, the kernel family's renormaliser, the scan's direction and
 * axis, the flatten sequence.
 *
 * Independent references: an argsort of the fold (a sort, not a second
 * index formula), rows read with explicit row-major arithmetic, the
 * time-reversal identity reverse(x) = flip(forward(flip(x))), and inputs
 * whose renormalised answer is known in closed form (a constant stays
 * constant; a cancelled line is bounded by its absolute mass).
 *
 * What these tests guard: tdaudit mutate --list --file core/family_kernel.c
 *   and --list --file core/axial.c
 *   and --list --file core/block.c
 *   and --list --file core/family_flatten.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - the kernel backward's dK reduction zeroing rows from the first
 *     whatever its range, or its per-line sums stored by position in the
 *     range instead of in the batch
 *       -> every_family_gives_the_same_bits_for_any_thread_count
 *   - a kernel block's per-cell mixer calls in a workspace sized for
 *     chunk lines, not chunk times the longest axis's, or skipping the
 *     line after each call
 *       -> a_kernel_block_gives_each_cell_its_result_whatever_the_chunk
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/axial.h"
#include "../core/block.h"
#include "../base/error.h"
#include "../core/rng.h"

static td_lattice *lattice(int rank, const size_t *shape, const char *const *names,
			   const uint8_t *mask)
{
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;
	size_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= shape[i];
	s.rank = rank, s.shape = shape, s.names = names, s.mask = mask, s.mask_len = mask ? n : 0;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	return lat;
}

static const size_t shape3[] = {2, 3, 4};
static const char *const dhw[] = {"d", "h", "w"};

/* Pairs (value, position) sorted by value: position order is the argsort. */
typedef struct {
	size_t v, pos;
} pair;

static int by_value(const void *a, const void *b)
{
	const pair *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

static void test_a_folds_inverse_is_the_argsort_of_the_fold(void **state)
{
	td_lattice *lat = lattice(3, shape3, dhw, NULL);

	(void)state;
	for (int axis = 0; axis < 3; axis++) {
		td_fold *f;
		pair p[24];

		assert_int_equal(td_fold_new(&f, lat, axis), 0);
		for (size_t k = 0; k < 24; k++)
			p[k] = (pair){f->fold[k], k};
		qsort(p, 24, sizeof *p, by_value);
		for (size_t c = 0; c < 24; c++) {
			assert_int_equal(p[c].v, c); /* fold is a permutation */
			if (f->unfold[c] != p[c].pos)
				fail_msg("axis %d: unfold[%zu] = %zu, argsort says %zu", axis, c,
					 f->unfold[c], p[c].pos);
		}
		td_fold_free(f);
	}
	td_lattice_free(lat);
}

/*
 * td_fold_apply moves each cell's row to its folded position and
 * td_fold_undo moves it back, checked element by element against fold[]
 * itself (the copies go a run at a time: td_axial_runs); and the runs
 * cover every position once, each mapping consecutive positions to
 * consecutive cells.
 */
static void test_fold_apply_and_undo_move_every_row_where_fold_says(void **state)
{
	td_lattice *lat = lattice(3, shape3, dhw, NULL);
	enum { B = 2, C = 3, N = 24 };
	td_real x[B * N * C], xf[B * N * C], back[B * N * C];

	(void)state;
	for (size_t i = 0; i < B * N * C; i++)
		x[i] = (td_real)i;
	for (int axis = 0; axis < 3; axis++) {
		td_fold *f;
		size_t covered = 0;

		assert_int_equal(td_fold_new(&f, lat, axis), 0);
		td_fold_apply(f, B, C, x, xf);
		td_fold_undo(f, B, C, xf, back);
		for (size_t e = 0; e < B; e++)
			for (size_t k = 0; k < N; k++)
				for (size_t ch = 0; ch < C; ch++)
					if (xf[(e * N + k) * C + ch] != x[(e * N + f->fold[k]) * C + ch])
						fail_msg("axis %d: example %zu position %zu is not cell %zu",
							 axis, e, k, f->fold[k]);
		assert_memory_equal(back, x, sizeof x);
		for (size_t r = 0; r < f->n_runs; r++) {
			assert_int_equal(f->run[r].pos, covered);
			for (size_t i = 0; i < f->run[r].len; i++)
				assert_int_equal(f->fold[f->run[r].pos + i], f->run[r].cell + i);
			covered += f->run[r].len;
		}
		assert_int_equal(covered, N);
		td_fold_free(f);
	}
	td_lattice_free(lat);
}

/* The coordinate of cell on axis in a 2 x 3 x 4 lattice. */
static size_t coord(size_t cell, int axis)
{
	static const size_t stride[] = {12, 4, 1};

	return (cell / stride[axis]) % shape3[axis];
}

static void test_each_folded_line_runs_along_its_axis(void **state)
{
	td_lattice *lat = lattice(3, shape3, dhw, NULL);

	(void)state;
	for (int axis = 0; axis < 3; axis++) {
		td_fold *f;

		assert_int_equal(td_fold_new(&f, lat, axis), 0);
		assert_int_equal(f->length, shape3[axis]);
		assert_int_equal(f->lines * f->length, 24);
		for (size_t l = 0; l < f->lines; l++)
			for (size_t t = 0; t < f->length; t++) {
				size_t cell = f->fold[l * f->length + t], first = f->fold[l * f->length];

				assert_int_equal(coord(cell, axis), t);
				for (int o = 0; o < 3; o++)
					if (o != axis)
						assert_int_equal(coord(cell, o), coord(first, o));
			}
		td_fold_free(f);
	}
	td_lattice_free(lat);
}

static void test_selection_zeroes_nan_and_infinities_in_absent_cells(void **state)
{
	const uint8_t mask[] = {1, 0, 0, 1};
	td_real x[] = {(td_real)NAN, (td_real)NAN, (td_real)INFINITY, 2,
		       3,	     (td_real)-INFINITY, (td_real)1e30, (td_real)INFINITY};

	(void)state;
	td_select_present(mask, 4, 2, 1, x);
	assert_true(isnan(x[0]));     /* a NaN in a present cell stays: no laundering */
	assert_true(x[1] == 0 && !signbit(x[1]) && x[2] == 0 && x[3] == 2);
	assert_true(x[4] == 3 && x[5] == 0 && x[6] == 0 && isinf(x[7]));
}

static void test_the_canonical_axis_order_is_time_first_then_by_name(void **state)
{
	static const size_t s[] = {2, 2, 2, 2};
	static const char *const nm[] = {"w", "a", "t", "h"};
	td_lattice_spec spec = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;
	int order[TD_LATTICE_MAX_RANK];

	(void)state;
	spec.rank = 4, spec.shape = s, spec.names = nm, spec.time_axis = 2;
	assert_int_equal(td_lattice_new(&lat, &spec), 0);
	assert_int_equal(td_axial_order(lat, order), 4);
	assert_int_equal(order[0], 2); /* t */
	assert_int_equal(order[1], 1); /* a */
	assert_int_equal(order[2], 3); /* h */
	assert_int_equal(order[3], 0); /* w */
	td_lattice_free(lat);
}

/*
 * A map is cut into its maximal runs: consecutive cells at consecutive
 * positions, the first run growing like the others.
 */
static void test_a_map_is_cut_into_its_maximal_runs(void **state)
{
	const size_t map[] = {0, 1, 2, 7, 8, 3, 5};
	const td_run want[] = {{0, 0, 3}, {3, 7, 2}, {5, 3, 1}, {6, 5, 1}};
	td_run *run;
	size_t n;

	(void)state;
	assert_int_equal(td_axial_runs(&run, &n, map, 7), 0);
	assert_int_equal(n, 4);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(run[k].pos, want[k].pos);
		assert_int_equal(run[k].cell, want[k].cell);
		assert_int_equal(run[k].len, want[k].len);
	}
	free(run);
	assert_int_equal(td_axial_runs(&run, &n, map, 0), 0);
	assert_int_equal(n, 0);
	free(run);
}

/* A fold is refused on an axis outside 0..rank-1, on either side, naming the range. */
static void test_a_fold_on_an_axis_outside_the_lattice_is_refused(void **state)
{
	td_lattice *lat = lattice(3, shape3, dhw, NULL);
	td_fold *f = (td_fold *)&f;

	(void)state;
	TD_ASSERT_REFUSED(td_fold_new(&f, lat, 3), TD_EINVAL, "axis 3 is outside 0..2");
	assert_null(f);
	TD_ASSERT_REFUSED(td_fold_new(&f, lat, -1), TD_EINVAL, "axis -1 is outside 0..2");
	assert_null(f);
	assert_int_equal(td_fold_new(&f, lat, 2), 0);
	td_fold_free(f);
	td_lattice_free(lat);
}

/*
 * Selection zeroes the first cell too; with a mask per example each
 * example takes its own mask, and nothing outside x is touched.
 */
static void test_selection_with_a_mask_per_example_keeps_to_each_example(void **state)
{
	const uint8_t one[] = {0, 1};
	struct {
		uint8_t before[3], mask[2][3], after[3];
	} m = {{1, 1, 1}, {{0, 1, 1}, {1, 1, 0}}, {0, 0, 0}};
	td_real x[2 + 2 * 3 * 2 + 2], y[] = {5, 6, 7, 8};

	(void)state;
	td_select_present(one, 2, 2, 1, y);
	assert_true(y[0] == 0 && y[1] == 6 && y[2] == 0 && y[3] == 8);
	for (size_t i = 0; i < sizeof x / sizeof *x; i++)
		x[i] = (td_real)(i + 1);
	td_select_present_each(m.mask[0], 3, 2, 2, x + 2);
	for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
		/* example 0 loses its cell 0 (x[2..3]), example 1 its cell 2 (x[12..13]) */
		td_real want = (i >= 2 && i < 4) || (i >= 12 && i < 14) ? 0 : (td_real)(i + 1);

		if (x[i] != want)
			fail_msg("x[%zu] is %g, not %g", i, (double)x[i], (double)want);
	}
}

/* The name hash is FNV-1a over the name's bytes: seeds drawn from it must not move. */
static void test_the_axis_name_hash_is_fnv_1a(void **state)
{
	(void)state;
	assert_true(td_axial_name_hash("") == 14695981039346656037u);
	assert_true(td_axial_name_hash("a") == 0xaf63dc4c8601ec8cu);
	assert_true(td_axial_name_hash("foobar") == 0x85944171f73967e8u);
}

/* ---- blocks ---------------------------------------------------------------- */

static td_block *block(const td_lattice *lat, td_block_family fam, const char *axis, int reverse,
		       size_t width, size_t batch)
{
	td_block_opts o = TD_BLOCK_OPTS_INIT;
	td_block *b;

	o.family = fam, o.axis = axis, o.reverse = reverse, o.max_batch = batch;
	o.mixer.channels = width;
	o.chunk = 2; /* several mixer calls per forward */
	if (td_block_new(&b, lat, &o))
		fail_msg("td_block_new: %s", td_error_last());
	td_block_init(b, 7, 1 << 20);
	return b;
}

/* An LRU mixer that is the identity: B = C = 0, D = 1. */
static void make_identity(td_block *b)
{
	td_mixer *m = td_block_mixer(b);

	memset(td_mixer_params(m), 0, td_mixer_n_params(m) * sizeof(td_real));
	for (size_t t = 0; t < td_mixer_n_tensors(m); t++)
		if (strcmp(td_mixer_tensor_at(m, t)->name, "D") == 0)
			for (size_t e = 0; e < td_mixer_tensor_at(m, t)->count; e++)
				td_mixer_params(m)[td_mixer_tensor_at(m, t)->offset + e] = 1;
}

static td_real *kernels(td_block *b)
{
	assert_int_equal(td_block_n_groups(b), 2);
	assert_string_equal(td_block_group(b, 1).name, "kernels");
	return td_block_group(b, 1).value;
}

static const char *const w1[] = {"w"};

static void test_a_near_cancelled_kernel_line_is_not_amplified(void **state)
{
	static const size_t two[] = {2};
	td_lattice *lat = lattice(1, two, w1, NULL);
	td_block *b = block(lat, TD_BLOCK_KERNEL, NULL, 0, 1, 1);
	td_real *k = kernels(b), x[] = {(td_real)1.85, (td_real)-0.5}, y[2];
	const double bound = (1 + 0.9999) * 1.85; /* absolute mass x max |x| */

	(void)state;
	make_identity(b);
	k[0] = 1, k[1] = (td_real)-0.9999, k[2] = 1, k[3] = (td_real)-0.9999;
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	for (int i = 0; i < 2; i++)
		if (!(fabs((double)y[i]) <= bound))
			fail_msg("y[%d] = %g: the cancelled mass (1e-4 of 2) amplified it past %g", i,
				 (double)y[i], bound);
	td_block_free(b);
	td_lattice_free(lat);
}

static void test_a_genuinely_small_mass_still_renormalises_exactly(void **state)
{
	static const size_t three[] = {3};
	td_lattice *lat = lattice(1, three, w1, NULL);
	td_block *b = block(lat, TD_BLOCK_KERNEL, NULL, 0, 1, 1);
	td_real *k = kernels(b), x[] = {(td_real)0.75, (td_real)0.75, (td_real)0.75}, y[3];

	(void)state;
	make_identity(b);
	for (int i = 0; i < 9; i++)
		k[i] = (td_real)(1e-20 * (1 + i)); /* one sign, tiny: nothing cancelled */
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	for (int i = 0; i < 3; i++)
		if (fabs((double)y[i] - 0.75) > 1e-6)
			fail_msg("y[%d] = %g; a small mass of one sign must renormalise to 0.75", i,
				 (double)y[i]);
	td_block_free(b);
	td_lattice_free(lat);
}

static void test_a_nan_in_a_present_cell_leaves_the_kernel_contraction(void **state)
{
	static const size_t three[] = {3};
	td_lattice *lat = lattice(1, three, w1, NULL);
	td_block *b = block(lat, TD_BLOCK_KERNEL, NULL, 0, 1, 1);
	td_real x[] = {1, (td_real)NAN, 2}, y[3];

	(void)state;
	make_identity(b);
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	for (int i = 0; i < 3; i++)
		if (!isnan(y[i]))
			fail_msg("y[%d] = %g: the NaN that arrived did not leave", i, (double)y[i]);
	td_block_free(b);
	td_lattice_free(lat);
}

static void test_a_constant_input_stays_constant_over_holes(void **state)
{
	static const size_t s[] = {3, 4};
	static const char *const hw[] = {"h", "w"};
	static const uint8_t mask[] = {1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1};
	td_lattice *lat = lattice(2, s, hw, mask);
	td_block *b = block(lat, TD_BLOCK_KERNEL, NULL, 0, 2, 1);
	td_real x[24], y[24];

	(void)state;
	make_identity(b); /* kernels stay as drawn: positive, so no line cancels */
	for (int i = 0; i < 24; i++)
		x[i] = (td_real)-1.5;
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	for (int i = 0; i < 24; i++) {
		double want = mask[i / 2] ? -1.5 : 0;

		if (fabs((double)y[i] - want) > 1e-5)
			fail_msg("cell %d: %g, want %g (a convex combination of -1.5 is -1.5)",
				 i / 2, (double)y[i], want);
	}
	td_block_free(b);
	td_lattice_free(lat);
}

static void test_a_kernel_row_that_sees_no_present_cell_gives_zero(void **state)
{
	static const size_t three[] = {3};
	static const uint8_t mask[] = {1, 1, 0};
	td_lattice *lat = lattice(1, three, w1, mask);
	td_block *b = block(lat, TD_BLOCK_KERNEL, NULL, 0, 1, 1);
	td_real *k = kernels(b), x[] = {1, 2, (td_real)NAN}, y[3];

	(void)state;
	make_identity(b);
	k[0] = 0, k[1] = 0, k[2] = 1; /* row 0 weighs only the absent cell: no mass at all */
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	if (y[0] != 0)
		fail_msg("y[0] = %g: a row with no present mass must give 0, not 0/0", (double)y[0]);
	assert_true(isfinite(y[1]) && y[2] == 0);
	td_block_free(b);
	td_lattice_free(lat);
}

/* sum of y dy over the block's forward of x, in double. */
static double kernel_loss(td_block *b, const td_real *x, const td_real *dy, size_t n)
{
	td_real y[48];
	double l = 0;

	assert_int_equal(td_block_forward(b, y, x, 2), 0);
	for (size_t i = 0; i < n; i++)
		l += (double)y[i] * (double)dy[i];
	return l;
}

/* Central difference of kernel_loss in v[i], step h; v is left as it was. */
static double kernel_slope(td_block *b, td_real *v, size_t i, const td_real *x, const td_real *dy,
			   size_t n)
{
	const td_real old = v[i], h = (td_real)1e-2;
	double up, down;

	v[i] = old + h, up = kernel_loss(b, x, dy, n);
	v[i] = old - h, down = kernel_loss(b, x, dy, n);
	v[i] = old;
	return (up - down) / (2 * (double)h);
}

/*
 * The contractions' backward, dK and dx, against central differences in
 * this build's precision (the conformance suite's check runs only in the
 * double build): a 3 x 4 lattice whose lines along both axes have holes,
 * an identity mixer, two examples of width 2.
 */
static void test_the_kernel_gradients_over_holes_agree_with_finite_differences(void **state)
{
	static const size_t s[] = {3, 4};
	static const char *const hw[] = {"h", "w"};
	static const uint8_t mask[] = {1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1};
	td_lattice *lat = lattice(2, s, hw, mask);
	td_block *b = block(lat, TD_BLOCK_KERNEL, NULL, 0, 2, 2);
	const size_t n = 48, nk = td_block_group(b, 1).count;
	td_real *k = kernels(b), *dk = td_block_group(b, 1).grad, x[48], dy[48], y[48], dx[48];

	(void)state;
	make_identity(b);
	for (size_t i = 0; i < n; i++) {
		x[i] = (td_real)sin(0.7 * (double)i + 0.3);
		dy[i] = (td_real)cos(1.3 * (double)i);
	}
	td_block_zero_grads(b);
	assert_int_equal(td_block_forward(b, y, x, 2), 0);
	assert_int_equal(td_block_backward(b, dx, dy, 2), 0);
	for (size_t i = 0; i < nk + n; i++) {
		double got = i < nk ? (double)dk[i] : (double)dx[i - nk];
		double num = i < nk ? kernel_slope(b, k, i, x, dy, n)
				    : kernel_slope(b, x, i - nk, x, dy, n);

		if (fabs(got - num) > 2e-3 * (1 + fabs(num)))
			fail_msg("%s %zu: backward %.6g, finite difference %.6g",
				 i < nk ? "kernel value" : "input", i < nk ? i : i - nk, got, num);
	}
	td_block_free(b);
	td_lattice_free(lat);
}

/* x reversed along w (the last axis) of a [1][h][w][c] buffer. */
static void flip_w(td_real *dst, const td_real *src, size_t h, size_t w, size_t c)
{
	for (size_t i = 0; i < h; i++)
		for (size_t j = 0; j < w; j++)
			memcpy(dst + (i * w + j) * c, src + (i * w + w - 1 - j) * c, c * sizeof *dst);
}

static void test_a_reverse_step_is_the_forward_step_over_the_flipped_axis(void **state)
{
	static const size_t s[] = {3, 4};
	static const char *const hw[] = {"h", "w"};
	td_lattice *lat = lattice(2, s, hw, NULL);
	td_block *fw = block(lat, TD_BLOCK_SCAN, "w", 0, 2, 1);
	td_block *bw = block(lat, TD_BLOCK_SCAN, "w", 1, 2, 1); /* same seed: same weights */
	td_real x[24], xf[24], y[24], yb[24], want[24];

	(void)state;
	td_rng_fill_uniform(3, 1, 0, 24, -1, 1, x);
	flip_w(xf, x, 3, 4, 2);
	assert_int_equal(td_block_forward(fw, y, xf, 1), 0);
	flip_w(want, y, 3, 4, 2);
	assert_int_equal(td_block_forward(bw, yb, x, 1), 0);
	assert_memory_equal(want, yb, sizeof want);
	assert_memory_not_equal(y, yb, sizeof y); /* and the directions do differ */
	td_block_free(fw), td_block_free(bw);
	td_lattice_free(lat);
}

/* Cell (h, w) of a 3 x 4 lattice, and position t of line l along axis a. */
static size_t cell_on_line(int a, size_t l, size_t t)
{
	return a == 0 ? t * 4 + l : l * 4 + t;
}

static void test_a_scan_step_runs_the_mixer_along_its_own_axis(void **state)
{
	static const size_t s[] = {3, 4};
	static const char *const hw[] = {"h", "w"};
	td_lattice *lat = lattice(2, s, hw, NULL);
	td_real x[12], y[12], line[4], out[4], ws[256];

	(void)state;
	td_rng_fill_uniform(4, 1, 0, 12, -1, 1, x);
	for (int a = 0; a < 2; a++) {
		td_block *b = block(lat, TD_BLOCK_SCAN, hw[a], 0, 1, 1);
		size_t len = s[a], lines = 12 / len, ws_len;

		assert_int_equal(td_block_forward(b, y, x, 1), 0);
		assert_int_equal(td_mixer_ws_size(&ws_len, td_block_mixer(b), 1, len), 0);
		assert_true(ws_len <= 256);
		for (size_t l = 0; l < lines; l++) { /* the line read with plain arithmetic */
			for (size_t t = 0; t < len; t++)
				line[t] = x[cell_on_line(a, l, t)];
			assert_int_equal(
			    td_mixer_forward(td_block_mixer(b), out, line, 1, len, ws, ws_len), 0);
			for (size_t t = 0; t < len; t++)
				if (out[t] != y[cell_on_line(a, l, t)])
					fail_msg("axis %s, line %zu, step %zu: block %g, mixer %g",
						 hw[a], l, t, (double)y[cell_on_line(a, l, t)],
						 (double)out[t]);
		}
		td_block_free(b);
	}
	td_lattice_free(lat);
}

static void test_flatten_runs_the_present_cells_only_in_canonical_order(void **state)
{
	static const size_t s[] = {2, 3};
	static const char *const wh[] = {"w", "h"}; /* stored w-major; canonical is h-major */
	static const uint8_t mask[] = {1, 0, 1, 1, 1, 0};
	td_lattice *lat = lattice(2, s, wh, mask);
	td_block *b = block(lat, TD_BLOCK_FLATTEN, NULL, 0, 1, 1);
	td_mixer *m = td_block_mixer(b);
	/* present cells (w, h): (0,0) (0,2) (1,0) (1,1); by (h, w): (0,0) (1,0) (1,1) (0,2) */
	static const size_t seq[] = {0, 3, 4, 2};
	td_real x[6] = {1, (td_real)NAN, 3, 4, 5, (td_real)INFINITY}, y[6], in[4], out[4], ws[256];
	size_t ws_len;

	(void)state;
	for (int i = 0; i < 6; i++)
		y[i] = (td_real)NAN; /* whatever was there must not survive in an absent cell */
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	for (int p = 0; p < 4; p++)
		in[p] = x[seq[p]];
	assert_int_equal(td_mixer_ws_size(&ws_len, m, 1, 4), 0);
	assert_int_equal(td_mixer_forward(m, out, in, 1, 4, ws, ws_len), 0);
	for (int p = 0; p < 4; p++)
		assert_true(y[seq[p]] == out[p]);
	assert_true(y[1] == 0 && y[5] == 0);
	td_block_free(b);
	td_lattice_free(lat);
}

/*
 * With several channels and the present cells one run (the last cell
 * absent), flatten still clears every value of an absent cell, in y and
 * in dx, whatever they held.
 */
static void test_flatten_clears_every_channel_of_an_absent_cell(void **state)
{
	static const size_t s[] = {4};
	static const char *const w[] = {"w"};
	static const uint8_t mask[] = {1, 1, 1, 0};
	td_lattice *lat = lattice(1, s, w, mask);
	td_block *b = block(lat, TD_BLOCK_FLATTEN, NULL, 0, 2, 1);
	td_real x[8] = {1, 2, 3, 4, 5, 6, (td_real)NAN, (td_real)NAN}, y[8], dx[8];

	(void)state;
	for (int i = 0; i < 8; i++)
		y[i] = dx[i] = (td_real)NAN;
	assert_int_equal(td_block_forward(b, y, x, 1), 0);
	assert_true(y[6] == 0 && y[7] == 0);
	for (int i = 0; i < 6; i++)
		assert_false(isnan(y[i]));
	assert_int_equal(td_block_backward(b, dx, x, 1), 0);
	assert_true(dx[6] == 0 && dx[7] == 0);
	for (int i = 0; i < 6; i++)
		assert_false(isnan(dx[i]));
	td_block_free(b);
	td_lattice_free(lat);
}

/*
 * A flatten block's buffers may hold every value size_t counts: SIZE_MAX
 * of them (max_batch x 1 cell x 3 channels) pass that check, and the
 * block is refused further on, for the mixer's chunked workspace.
 */
static void test_flatten_buffers_of_size_max_values_pass_their_own_check(void **state)
{
	static const size_t s[] = {1};
	static const char *const w[] = {"w"};
	td_lattice *lat = lattice(1, s, w, NULL);
	td_block_opts o = TD_BLOCK_OPTS_INIT;
	td_block *b = (td_block *)&b;

	(void)state;
	o.family = TD_BLOCK_FLATTEN, o.max_batch = SIZE_MAX / 3, o.mixer.channels = 3;
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_ENOMEM, "the chunked workspace overflows");
	assert_null(b);
	td_lattice_free(lat);
}

/*
 * y, dx and every parameter gradient of one block after two forward and
 * backward passes (the second adds to the first's gradients), in one buffer.
 */
static td_real *run_block(const td_lattice *lat, td_block_family fam, td_mixer_kind kind,
			  int threads, size_t chunk, size_t *len)
{
	enum { B = 3, C = 4 };
	const size_t n = B * td_lattice_n_cells(lat) * C;
	td_block_opts o = TD_BLOCK_OPTS_INIT;
	td_block *b;
	td_real *x = malloc(n * sizeof *x), *dy = malloc(n * sizeof *dy), *out;
	size_t at = 2 * n;

	o.family = fam, o.axis = "w", o.max_batch = B, o.chunk = chunk;
	o.mixer.kind = kind, o.mixer.channels = C, o.mixer.threads = threads;
	assert_true(x && dy);
	if (td_block_new(&b, lat, &o))
		fail_msg("td_block_new: %s", td_error_last());
	td_block_init(b, 7, 1 << 20);
	td_rng_fill_normal(3, 1, 0, n, 0, 1, x);
	td_rng_fill_normal(3, 2, 0, n, 0, 1, dy);
	*len = 2 * n;
	for (size_t g = 0; g < td_block_n_groups(b); g++)
		*len += td_block_group(b, g).count;
	out = malloc(*len * sizeof *out);
	assert_non_null(out);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(td_block_forward(b, out, x, B), 0);
		assert_int_equal(td_block_backward(b, out + n, dy, B), 0);
	}
	for (size_t g = 0; g < td_block_n_groups(b); g++) {
		td_param_group pg = td_block_group(b, g);

		memcpy(out + at, pg.grad, pg.count * sizeof *out);
		at += pg.count;
	}
	td_block_free(b);
	free(x), free(dy);
	return out;
}

static void test_every_family_gives_the_same_bits_for_any_thread_count(void **state)
{
	static const size_t hw[] = {5, 6};
	static const char *const names[] = {"h", "w"};
	static const td_block_family fams[] = {TD_BLOCK_SCAN, TD_BLOCK_KERNEL, TD_BLOCK_FLATTEN};
	static const td_mixer_kind kinds[] = {TD_MIXER_GRU, TD_MIXER_LSTM, TD_MIXER_LRU};
	uint8_t mask[30];
	td_lattice *lat;

	(void)state;
	for (size_t k = 0; k < 30; k++)
		mask[k] = k % 7 != 3; /* holes on every row and column */
	lat = lattice(2, hw, names, mask);
	for (int f = 0; f < 3; f++)
		for (int k = 0; k < 3; k++) {
			size_t n1, n3;
			td_real *one = run_block(lat, fams[f], kinds[k], 1, 4, &n1);
			td_real *three = run_block(lat, fams[f], kinds[k], 3, 4, &n3);

			assert_int_equal(n1, n3);
			for (size_t i = 0; i < n1; i++)
				if (memcmp(&one[i], &three[i], sizeof *one) != 0)
					fail_msg("family %d, mixer %d: value %zu of %zu differs between 1 "
						 "and 3 threads", (int)fams[f], (int)kinds[k], i, n1);
			free(one), free(three);
		}
	td_lattice_free(lat);
}

/*
 * The kernel family's mixer on every cell, in calls of chunk times the
 * longest axis's cells (block.c's call_lines): with chunk 1 (15 calls of
 * 6 cells on 3 examples of 5 x 6) and chunk 1000 (one call) each cell's
 * y and dx are the same bits, and the parameter
 * gradients, summed call by call, agree to rounding. A workspace sized
 * for fewer lines than a call takes lets one call's saved state overwrite
 * the next's, which the backward then reads.
 */
static void test_a_kernel_block_gives_each_cell_its_result_whatever_the_chunk(void **state)
{
	static const size_t hw[] = {5, 6};
	static const char *const names[] = {"h", "w"};
	static const td_mixer_kind kinds[] = {TD_MIXER_GRU, TD_MIXER_LRU, TD_MIXER_ATTENTION};
	const size_t n = 2 * 3 * 30 * 4; /* run_block's y and dx */
	td_lattice *lat = lattice(2, hw, names, NULL);

	(void)state;
	for (int k = 0; k < 3; k++) {
		size_t n1, nbig;
		td_real *one = run_block(lat, TD_BLOCK_KERNEL, kinds[k], 1, 1, &n1);
		td_real *big = run_block(lat, TD_BLOCK_KERNEL, kinds[k], 1, 1000, &nbig);

		assert_int_equal(n1, nbig);
		for (size_t i = 0; i < n1; i++)
			if (i < n ? memcmp(&one[i], &big[i], sizeof *one) != 0
				  : !(fabs((double)one[i] - big[i]) <= 1e-4 * (1 + fabs((double)big[i]))))
				fail_msg("mixer %d: %s %zu is %g with chunk 1, %g with chunk 1000",
					 (int)kinds[k], i < n ? "output or input gradient" : "value",
					 i, (double)one[i], (double)big[i]);
		free(one), free(big);
	}
	td_lattice_free(lat);
}

static void test_bad_block_options_are_refused_with_a_message(void **state)
{
	static const size_t s[] = {3};
	td_lattice *lat = lattice(1, s, w1, NULL);
	td_block_opts o = TD_BLOCK_OPTS_INIT;
	td_block *b = (td_block *)&b;

	(void)state;
	o.mixer.channels = 2, o.axis = "w";
	o.chunk = 0;
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_EINVAL, "chunk is 0");
	assert_null(b);
	o.chunk = 1, o.axis = "h";
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_EINVAL, "'h' is not an axis");
	o.axis = "w", o.mixer.reverse = 1;
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_EINVAL, "opts.reverse");
	o.mixer.reverse = 0, o.family = TD_BLOCK_KERNEL, o.cancel = 1;
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_EINVAL, "cancel");
	o.cancel = -0.01;
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_EINVAL, "cancel");
	o.cancel = 0.01, o.max_batch = 0;
	TD_ASSERT_REFUSED(td_block_new(&b, lat, &o), TD_EINVAL, "max_batch");
	o.max_batch = 1;
	TD_ASSERT_REFUSED(td_block_new(&b, NULL, &o), TD_EINVAL, "lat is NULL");
	assert_null(b);
	TD_ASSERT_REFUSED(td_block_new(&b, lat, NULL), TD_EINVAL, "opts is NULL");
	o.cancel = 0; /* the closed end of [0, 1): no line is ever degenerate */
	assert_int_equal(td_block_new(&b, lat, &o), 0);
	td_block_free(b);
	td_lattice_free(lat);
}

/*
 * A block's parameter groups: group 0 is its mixer's slabs, named
 * "mixer", as the mixer holds them until td_block_use_slabs; then the
 * family's own (the kernel family's "kernels"); an index past the last
 * gives the empty group: no name, no slabs, no values.
 */
static void test_a_blocks_groups_are_its_mixers_then_its_familys_and_none_past_them(void **state)
{
	static const size_t hw[] = {3, 4};
	static const char *const names[] = {"h", "w"};
	static const td_block_family fams[] = {TD_BLOCK_SCAN, TD_BLOCK_KERNEL, TD_BLOCK_FLATTEN};
	td_lattice *lat = lattice(2, hw, names, NULL);

	(void)state;
	for (int f = 0; f < 3; f++) {
		td_block *b = block(lat, fams[f], "w", 0, 4, 2);
		td_mixer *m = td_block_mixer(b);
		const size_t n = td_block_n_groups(b);
		td_param_group g0 = td_block_group(b, 0), past = td_block_group(b, n);

		assert_int_equal(n, fams[f] == TD_BLOCK_KERNEL ? 2 : 1);
		assert_string_equal(g0.name, "mixer");
		assert_ptr_equal(g0.value, td_mixer_params(m));
		assert_ptr_equal(g0.grad, td_mixer_grads(m));
		assert_int_equal(g0.count, td_mixer_n_params(m));
		assert_string_equal(past.name, "");
		assert_null(past.value);
		assert_null(past.grad);
		assert_int_equal(past.count, 0);
		td_block_free(b);
	}
	td_lattice_free(lat);
}

/* td_block_zero_grads sets every value of every group's gradient to exactly 0. */
static void test_zeroing_a_blocks_gradients_clears_every_group(void **state)
{
	static const size_t hw[] = {3, 4};
	static const char *const names[] = {"h", "w"};
	td_lattice *lat = lattice(2, hw, names, NULL);
	td_block *b = block(lat, TD_BLOCK_KERNEL, "w", 0, 4, 2);
	const size_t n = 2 * 12 * 4;
	td_real x[2 * 12 * 4], y[2 * 12 * 4], dx[2 * 12 * 4];

	(void)state;
	td_rng_fill_normal(5, 1, 0, n, 0, 1, x);
	assert_int_equal(td_block_forward(b, y, x, 2), 0);
	assert_int_equal(td_block_backward(b, dx, y, 2), 0); /* dy = y: every gradient nonzero */
	for (size_t g = 0; g < td_block_n_groups(b); g++) {
		td_param_group pg = td_block_group(b, g);
		size_t nonzero = 0;

		for (size_t k = 0; k < pg.count; k++)
			nonzero += pg.grad[k] != 0;
		assert_true(nonzero > 0);
	}
	td_block_zero_grads(b);
	for (size_t g = 0; g < td_block_n_groups(b); g++) {
		td_param_group pg = td_block_group(b, g);

		for (size_t k = 0; k < pg.count; k++)
			if (pg.grad[k] != 0)
				fail_msg("group %s: gradient %zu is %g after zeroing", pg.name, k,
					 (double)pg.grad[k]);
	}
	td_block_free(b);
	td_lattice_free(lat);
}

/*
 * td_block_use_slabs moves every group into the caller's slabs, back to
 * back in group order, with the values and the gradients it held: a
 * kernel block after a backward (every gradient nonzero) moved into slabs
 * of NaN holds the same bits there, and its groups point into them.
 */
static void test_slabs_a_block_moves_into_hold_its_values_and_gradients(void **state)
{
	static const size_t hw[] = {3, 4};
	static const char *const names[] = {"h", "w"};
	td_lattice *lat = lattice(2, hw, names, NULL);
	td_block *b = block(lat, TD_BLOCK_KERNEL, "w", 0, 4, 2);
	const size_t n = 2 * 12 * 4, np = td_block_n_params(b);
	td_real x[2 * 12 * 4], y[2 * 12 * 4], dx[2 * 12 * 4];
	td_real *was = malloc(2 * np * sizeof *was), *params = malloc(np * sizeof *params),
		*grads = malloc(np * sizeof *grads);
	size_t at = 0;

	(void)state;
	assert_true(was && params && grads);
	td_rng_fill_normal(5, 1, 0, n, 0, 1, x);
	assert_int_equal(td_block_forward(b, y, x, 2), 0);
	assert_int_equal(td_block_backward(b, dx, y, 2), 0);
	for (size_t g = 0; g < td_block_n_groups(b); g++) {
		td_param_group pg = td_block_group(b, g);

		memcpy(was + at, pg.value, pg.count * sizeof *was);
		memcpy(was + np + at, pg.grad, pg.count * sizeof *was);
		at += pg.count;
	}
	assert_int_equal(at, np);
	for (size_t k = 0; k < np; k++)
		params[k] = grads[k] = (td_real)NAN;
	assert_int_equal(td_block_use_slabs(b, params, grads), 0);
	assert_memory_equal(params, was, np * sizeof *params);
	assert_memory_equal(grads, was + np, np * sizeof *grads);
	at = 0;
	for (size_t g = 0; g < td_block_n_groups(b); g++) {
		assert_ptr_equal(td_block_group(b, g).value, params + at);
		assert_ptr_equal(td_block_group(b, g).grad, grads + at);
		at += td_block_group(b, g).count;
	}
	td_block_free(b);
	free(was), free(params), free(grads);
	td_lattice_free(lat);
}

/* A NULL buffer, batch 0 and one past max_batch are refused, forward and backward. */
static void test_bad_block_calls_are_refused_with_a_message(void **state)
{
	static const size_t hw[] = {3, 4};
	static const char *const names[] = {"h", "w"};
	td_lattice *lat = lattice(2, hw, names, NULL);
	td_block *b = block(lat, TD_BLOCK_SCAN, "h", 0, 4, 2); /* folded: y is not the mixer's */
	td_real x[3 * 12 * 4] = {0}, y[3 * 12 * 4];

	(void)state;
	TD_ASSERT_REFUSED(td_block_forward(b, NULL, x, 1), TD_EINVAL, "the output is NULL");
	TD_ASSERT_REFUSED(td_block_forward(b, y, NULL, 1), TD_EINVAL, "the input is NULL");
	TD_ASSERT_REFUSED(td_block_forward(b, y, x, 0), TD_EINVAL, "batch 0 is outside 1..2");
	TD_ASSERT_REFUSED(td_block_forward(b, y, x, 3), TD_EINVAL, "batch 3 is outside 1..2");
	TD_ASSERT_REFUSED(td_block_backward(b, NULL, x, 1), TD_EINVAL, "the output is NULL");
	TD_ASSERT_REFUSED(td_block_backward(b, y, x, 3), TD_EINVAL, "batch 3 is outside 1..2");
	assert_int_equal(td_block_forward(b, y, x, 2), 0);
	td_block_free(b);
	td_lattice_free(lat);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_folds_inverse_is_the_argsort_of_the_fold),
    cmocka_unit_test(test_each_folded_line_runs_along_its_axis),
    cmocka_unit_test(test_fold_apply_and_undo_move_every_row_where_fold_says),
    cmocka_unit_test(test_selection_zeroes_nan_and_infinities_in_absent_cells),
    cmocka_unit_test(test_the_canonical_axis_order_is_time_first_then_by_name),
    cmocka_unit_test(test_a_map_is_cut_into_its_maximal_runs),
    cmocka_unit_test(test_a_fold_on_an_axis_outside_the_lattice_is_refused),
    cmocka_unit_test(test_selection_with_a_mask_per_example_keeps_to_each_example),
    cmocka_unit_test(test_the_axis_name_hash_is_fnv_1a),
    cmocka_unit_test(test_a_near_cancelled_kernel_line_is_not_amplified),
    cmocka_unit_test(test_a_genuinely_small_mass_still_renormalises_exactly),
    cmocka_unit_test(test_a_nan_in_a_present_cell_leaves_the_kernel_contraction),
    cmocka_unit_test(test_a_constant_input_stays_constant_over_holes),
    cmocka_unit_test(test_a_kernel_row_that_sees_no_present_cell_gives_zero),
    cmocka_unit_test(test_the_kernel_gradients_over_holes_agree_with_finite_differences),
    cmocka_unit_test(test_a_reverse_step_is_the_forward_step_over_the_flipped_axis),
    cmocka_unit_test(test_a_scan_step_runs_the_mixer_along_its_own_axis),
    cmocka_unit_test(test_flatten_runs_the_present_cells_only_in_canonical_order),
    cmocka_unit_test(test_flatten_clears_every_channel_of_an_absent_cell),
    cmocka_unit_test(test_flatten_buffers_of_size_max_values_pass_their_own_check),
    cmocka_unit_test(test_every_family_gives_the_same_bits_for_any_thread_count),
    cmocka_unit_test(test_a_kernel_block_gives_each_cell_its_result_whatever_the_chunk),
    cmocka_unit_test(test_bad_block_options_are_refused_with_a_message),
    cmocka_unit_test(test_a_blocks_groups_are_its_mixers_then_its_familys_and_none_past_them),
    cmocka_unit_test(test_zeroing_a_blocks_gradients_clears_every_group),
    cmocka_unit_test(test_slabs_a_block_moves_into_hold_its_values_and_gradients),
    cmocka_unit_test(test_bad_block_calls_are_refused_with_a_message),
};
TD_TEST_GROUP(axial, tests);
