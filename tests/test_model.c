/*
 * test_model.c - the model around the blocks: refusals (chunk, plan, layer
 * count), the COUNTED plan/layer-count warning, absent cells zero in the
 * residual stream at every layer, one parameter slab, seeded init.
 *
 * What these tests guard: tdaudit mutate --list --file core/model.c
 *   and --list --file core/block.c
 *   and --list --file core/norm.c
 *   and --list --file core/mixer_conv.c
 *
 * Edits seen breaking these tests that the catalogue may not hold:
 *   - dropping the "a scan model needs a plan" refusal
 *       -> bad_model_options_are_refused_with_a_message
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../core/model.h"
#include "../core/rng.h"

static td_lattice *grid(const uint8_t *mask)
{
	static const size_t s[] = {3, 4};
	static const char *const hw[] = {"h", "w"};
	td_lattice_spec spec = TD_LATTICE_SPEC_INIT;
	td_lattice *lat;

	spec.rank = 2, spec.shape = s, spec.names = hw, spec.mask = mask, spec.mask_len = 12;
	assert_int_equal(td_lattice_new(&lat, &spec), 0);
	return lat;
}

static td_plan *plan_hw(int layers)
{
	static const char *const hw[] = {"h", "w"};
	td_plan *p;

	assert_int_equal(td_plan_cyclic(&p, hw, 2, layers, hw, 2), 0);
	return p;
}

static void test_chunk_must_be_at_least_1_and_the_refusal_names_it(void **state)
{
	td_lattice *lat = grid(NULL);
	td_plan *p = plan_hw(2);
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_model *m = (td_model *)&m;

	(void)state;
	o.plan = p, o.chunk = 0;
	TD_ASSERT_REFUSED(td_model_new(&m, lat, &o), TD_EINVAL, "chunk is 0");
	assert_null(m);
	o.chunk = 1;
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	td_model_free(m);
	td_plan_free(p);
	td_lattice_free(lat);
}

static void test_bad_model_options_are_refused_with_a_message(void **state)
{
	td_lattice *lat = grid(NULL);
	td_plan *p = plan_hw(2);
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_model *m;

	(void)state;
	TD_ASSERT_REFUSED(td_model_new(&m, lat, &o), TD_EINVAL, "needs a plan");
	o.plan = p, o.width = 0;
	TD_ASSERT_REFUSED(td_model_new(&m, lat, &o), TD_EINVAL, "width is 0");
	o.width = 8, o.mixer.channels = 4;
	TD_ASSERT_REFUSED(td_model_new(&m, lat, &o), TD_EINVAL, "mixer.channels");
	o.mixer.channels = 0, o.family = TD_BLOCK_KERNEL;
	TD_ASSERT_REFUSED(td_model_new(&m, lat, &o), TD_EINVAL, "plan is set");
	o.plan = NULL;
	TD_ASSERT_REFUSED(td_model_new(&m, lat, &o), TD_EINVAL, "n_layers is 0");
	td_plan_free(p);
	td_lattice_free(lat);
}

static void test_a_plan_that_disagrees_with_n_layers_is_counted_with_its_reason(void **state)
{
	td_lattice *lat = grid(NULL);
	td_plan *p = plan_hw(2);
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_model *m;
	const char *why;

	(void)state;
	o.plan = p, o.n_layers = 6;
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	assert_int_equal(td_model_n_layers(m), 2); /* the plan wins ... */
	assert_int_equal(td_counter_get(td_model_counters(m), "plan_overrides_n_layers"), 1);
	why = td_counter_why(td_model_counters(m), "plan_overrides_n_layers", 0);
	assert_non_null(why); /* ... and says so, with the numbers */
	assert_non_null(strstr(why, "n_layers is 6"));
	assert_non_null(strstr(why, "2 steps"));
	td_model_free(m);
	for (int n = 0; n <= 2; n += 2) { /* 0 (take the plan's) and 2 (agrees): nothing counted */
		o.n_layers = n;
		assert_int_equal(td_model_new(&m, lat, &o), 0);
		assert_int_equal(td_counter_get(td_model_counters(m), "plan_overrides_n_layers"), 0);
		td_model_free(m);
	}
	td_plan_free(p);
	td_lattice_free(lat);
}

/* A 2-layer model of family fam over lat, seeded. */
static td_model *model(const td_lattice *lat, td_block_family fam, uint64_t seed)
{
	td_plan *p = fam == TD_BLOCK_SCAN ? plan_hw(2) : NULL;
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_model *m;

	o.family = fam, o.plan = p, o.n_layers = p ? 0 : 2, o.in = 3, o.width = 4, o.out = 2;
	o.max_batch = 2;
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	td_model_init(m, seed);
	td_plan_free(p);
	return m;
}

static void test_the_residual_stream_is_zero_at_absent_cells_after_every_layer(void **state)
{
	static const uint8_t mask[] = {1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0};

	(void)state;
	for (int fam = TD_BLOCK_SCAN; fam <= TD_BLOCK_FLATTEN; fam++) {
		td_lattice *lat = grid(mask);
		td_model *m = model(lat, (td_block_family)fam, 3);
		td_real x[2 * 12 * 3], y[2 * 12 * 2];

		td_rng_fill_uniform(1, 1, 0, 72, -1, 1, x);
		for (size_t i = 0; i < 72; i++)
			if (!mask[(i / 3) % 12])
				x[i] = i % 2 ? (td_real)NAN : (td_real)INFINITY;
		assert_int_equal(td_model_forward(m, y, x, 2), 0);
		for (int l = 0; l <= td_model_n_layers(m); l++) {
			const td_real *h = td_model_stream(m, l);

			for (size_t i = 0; i < 2 * 12 * 4; i++)
				if (!mask[(i / 4) % 12] && h[i] != 0)
					fail_msg("family %d, layer %d: stream %g in absent cell %zu", fam,
						 l, (double)h[i], (i / 4) % 12);
				else if (mask[(i / 4) % 12] && !isfinite(h[i]))
					fail_msg("family %d, layer %d: a present cell is %g", fam, l,
						 (double)h[i]);
		}
		assert_null(td_model_stream(m, td_model_n_layers(m) + 1));
		td_model_free(m);
		td_lattice_free(lat);
	}
}

static void test_every_parameter_lives_in_one_slab(void **state)
{
	(void)state;
	for (int fam = TD_BLOCK_SCAN; fam <= TD_BLOCK_FLATTEN; fam++) {
		td_lattice *lat = grid(NULL);
		td_model *m = model(lat, (td_block_family)fam, 3);
		size_t at = 0;

		for (size_t i = 0; i < td_model_n_groups(m); i++) { /* the groups tile the slab */
			td_param_group g = td_model_group(m, i);

			assert_ptr_equal(g.value, td_model_params(m) + at);
			assert_ptr_equal(g.grad, td_model_grads(m) + at);
			at += g.count;
		}
		assert_int_equal(at, td_model_n_params(m));
		for (int l = 0; l < td_model_n_layers(m); l++) {
			td_block *b = td_model_block(m, l);

			for (size_t k = 0; k < td_block_n_groups(b); k++) {
				td_param_group g = td_block_group(b, k);

				assert_true(g.value >= td_model_params(m) &&
					    g.value + g.count <= td_model_params(m) + at);
			}
			assert_ptr_equal(td_mixer_params(td_block_mixer(b)),
					 td_block_group(b, 0).value);
		}
		td_model_free(m);
		td_lattice_free(lat);
	}
}

static void test_initial_weights_are_a_pure_function_of_the_seed(void **state)
{
	td_lattice *lat = grid(NULL);
	td_model *a = model(lat, TD_BLOCK_KERNEL, 5), *b = model(lat, TD_BLOCK_KERNEL, 5);
	td_model *c = model(lat, TD_BLOCK_KERNEL, 6);
	const size_t n = td_model_n_params(a);
	td_param_group l0 = td_block_group(td_model_block(a, 0), 0);
	td_param_group l1 = td_block_group(td_model_block(a, 1), 0);

	(void)state;
	assert_memory_equal(td_model_params(a), td_model_params(b), n * sizeof(td_real));
	td_model_init(b, 5); /* again: the same values */
	assert_memory_equal(td_model_params(a), td_model_params(b), n * sizeof(td_real));
	assert_memory_not_equal(td_model_params(a), td_model_params(c), n * sizeof(td_real));
	assert_int_equal(l0.count, l1.count); /* two layers never draw the same weights */
	assert_memory_not_equal(l0.value, l1.value, l0.count * sizeof(td_real));
	td_model_free(a), td_model_free(b), td_model_free(c);
	td_lattice_free(lat);
}

#ifdef TD_REAL_DOUBLE
/* L = sum_i r[i] * y[i] for the fixed weights r; the model's forward of x. */
static double model_loss(td_model *m, const td_real *x, const td_real *r, td_real *y, size_t n)
{
	double s = 0;

	assert_int_equal(td_model_forward(m, y, x, 2), 0);
	for (size_t i = 0; i < n; i++)
		s += (double)r[i] * (double)y[i];
	return s;
}

/* Central difference of model_loss in *v; restores *v. */
static double model_numeric(td_model *m, td_real *v, const td_real *x, const td_real *r,
			    td_real *y, size_t n)
{
	const double eps = 1e-6;
	td_real keep = *v;
	double up, down;

	*v = keep + eps;
	up = model_loss(m, x, r, y, n);
	*v = keep - eps;
	down = model_loss(m, x, r, y, n);
	*v = keep;
	return (up - down) / (2 * eps);
}

/* Gradient mismatches of m (every parameter and every input), the first few printed. */
static int model_gradcheck(td_model *m, const char *label)
{
	const size_t nx = 2 * 12 * 3, ny = 2 * 12 * 2, np = td_model_n_params(m);
	td_real x[2 * 12 * 3], dx[2 * 12 * 3], r[2 * 12 * 2], y[2 * 12 * 2];
	int bad = 0;

	td_rng_fill_normal(11, 1, 0, nx, 0, 1, x);
	td_rng_fill_normal(11, 2, 0, ny, 0, 1, r);
	assert_int_equal(td_model_forward(m, y, x, 2), 0);
	td_model_zero_grads(m);
	assert_int_equal(td_model_backward(m, dx, r, 2), 0);
	for (size_t i = 0; i < np + nx; i++) {
		td_real *v = i < np ? td_model_params(m) + i : x + (i - np);
		double got = i < np ? (double)td_model_grads(m)[i] : (double)dx[i - np];
		double num = model_numeric(m, v, x, r, y, ny);

		if (fabs(got - num) > 1e-7 * (1 + fabs(num)) && bad++ < 3)
			print_message("  %s: d%s[%zu] = %.10g, finite difference %.10g\n", label,
				      i < np ? "param" : "x", i < np ? i : i - np, got, num);
	}
	return bad;
}
#endif

/*
 * The model's own ops (embedding, RMSNorm, residual, the channel MLP, both
 * heads) and the blocks under them, against central finite differences,
 * for every family, dense and with absent cells.
 */
static void test_model_gradients_agree_with_finite_differences(void **state)
{
	(void)state;
#ifdef TD_REAL_DOUBLE
	static const uint8_t holes[12] = {1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0};
	static const uint8_t each[24] = {0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1,
					 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1};
	int bad = 0;

	for (int fam = TD_BLOCK_SCAN; fam <= TD_BLOCK_FLATTEN; fam++)
		for (int v = 0; v < 4; v++) {
			td_lattice *lat = grid(v & 1 ? holes : NULL);
			td_plan *p = fam == TD_BLOCK_SCAN ? plan_hw(2) : NULL;
			td_model_opts o = TD_MODEL_OPTS_INIT;
			td_model *m;
			char label[64];

			o.family = (td_block_family)fam, o.plan = p, o.n_layers = p ? 0 : 2;
			o.in = 3, o.width = 4, o.out = 2, o.max_batch = 2;
			o.ffn = v & 2 ? 5 : 0, o.head_per_cell = v >> 1;
			assert_int_equal(td_model_new(&m, lat, &o), 0);
			td_model_init(m, 7);
			if (fam == TD_BLOCK_SCAN && v == 3) /* and holes per example */
				assert_int_equal(td_model_set_example_mask(m, each), 0);
			snprintf(label, sizeof label, "family %d%s%s", fam, v & 1 ? " sparse" : "",
				 v & 2 ? " ffn per-cell head" : "");
			bad += model_gradcheck(m, label);
			td_model_free(m);
			td_plan_free(p);
			td_lattice_free(lat);
		}
	assert_int_equal(bad, 0);
#else
	TD_SKIP("gradcheck runs in the double build (make double)");
#endif
}

/* sum_i r[i] y[i] in double, y the model's forward of x (2 examples). */
static double weighted_output(td_model *m, const td_real *x, const td_real *r, td_real *y,
			      size_t n)
{
	double sum = 0;

	assert_int_equal(td_model_forward(m, y, x, 2), 0);
	for (size_t i = 0; i < n; i++)
		sum += (double)r[i] * (double)y[i];
	return sum;
}

/*
 * The parameter gradient g predicts the change of L = sum r y along g: the
 * central difference of L(p + e g) at 0 is |g|^2 (to 2%, in either build).
 * A float-build stand-in for the finite-difference test (double only) that
 * the mutation harness can run: a norm computed in the pass before it
 * with another layer's gain or saved scales (model.c's next_norm, the
 * MLP's norm) leaves the backward inconsistent with the forward, and g
 * then mispredicts L by far more than 2%. The parameters are drawn away
 * from their initial values, so that no two gains are equal. Every
 * family, with the MLP and without, 2 layers on a 3 x 4 lattice.
 */
static void test_the_gradient_predicts_the_output_s_change_along_it(void **state)
{
	(void)state;
	for (int fam = TD_BLOCK_SCAN; fam <= TD_BLOCK_FLATTEN; fam++)
		for (int ffn = 0; ffn < 2; ffn++) {
			const size_t nx = 2 * 12 * 3, ny = 2 * 12 * 2;
			td_real x[2 * 12 * 3], dx[2 * 12 * 3], r[2 * 12 * 2], y[2 * 12 * 2];
			td_lattice *lat = grid(NULL);
			td_plan *p = fam == TD_BLOCK_SCAN ? plan_hw(2) : NULL;
			td_model_opts o = TD_MODEL_OPTS_INIT;
			td_model *m;
			td_real *g, *v;
			double g2 = 0, step, up, down, slope;
			size_t np;

			o.family = (td_block_family)fam, o.plan = p, o.n_layers = p ? 0 : 2;
			o.in = 3, o.width = 4, o.out = 2, o.max_batch = 2, o.ffn = ffn ? 5 : 0;
			assert_int_equal(td_model_new(&m, lat, &o), 0);
			td_model_init(m, 7);
			np = td_model_n_params(m);
			g = malloc(np * sizeof *g), v = malloc(np * sizeof *v);
			assert_true(g && v);
			td_rng_fill_normal(11, 3, 0, np, 0, (td_real)0.2, g); /* every gain its own */
			for (size_t i = 0; i < np; i++)
				td_model_params(m)[i] += g[i];
			td_rng_fill_normal(11, 1, 0, nx, 0, 1, x);
			td_rng_fill_normal(11, 2, 0, ny, 0, 1, r);
			assert_int_equal(td_model_forward(m, y, x, 2), 0);
			td_model_zero_grads(m);
			assert_int_equal(td_model_backward(m, dx, r, 2), 0);
			memcpy(g, td_model_grads(m), np * sizeof *g);
			memcpy(v, td_model_params(m), np * sizeof *v);
			for (size_t i = 0; i < np; i++)
				g2 += (double)g[i] * (double)g[i];
			step = 1e-3 / sqrt(g2);
			for (size_t i = 0; i < np; i++)
				td_model_params(m)[i] = (td_real)((double)v[i] + step * (double)g[i]);
			up = weighted_output(m, x, r, y, ny);
			for (size_t i = 0; i < np; i++)
				td_model_params(m)[i] = (td_real)((double)v[i] - step * (double)g[i]);
			down = weighted_output(m, x, r, y, ny);
			slope = (up - down) / (2 * step);
			if (!(fabs(slope - g2) <= 0.02 * g2))
				fail_msg("family %d%s: L changes at %g along its gradient, |g|^2 is %g",
					 fam, ffn ? " with the MLP" : "", slope, g2);
			free(g), free(v);
			td_model_free(m);
			td_plan_free(p);
			td_lattice_free(lat);
		}
}

/*
 * A mask per example: a cell absent from its example cannot reach any
 * output however large or non-finite its value, its input gradient is
 * exactly 0, and the mask does change the output (it is not ignored).
 */
static void test_a_cell_absent_from_its_example_cannot_reach_any_output(void **state)
{
	static const uint8_t each[24] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1,
					 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};
	static const double poison[] = {NAN, INFINITY, -INFINITY, 1e30};
	td_lattice *lat = grid(NULL);
	td_plan *p = plan_hw(4);
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_real x[2 * 12 * 3], xp[2 * 12 * 3], dx[2 * 12 * 3], y[2 * 12 * 2], yp[2 * 12 * 2];
	td_model *m;

	(void)state;
	o.plan = p, o.in = 3, o.width = 4, o.out = 2, o.max_batch = 2, o.ffn = 3, o.head_per_cell = 1;
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	/* every parameter random, biases too: the MLP of a zeroed cell is then not 0 */
	td_rng_fill_normal(9, 7, 0, td_model_n_params(m), 0, 0.5, td_model_params(m));
	td_rng_fill_normal(9, 1, 0, 72, 0, 1, x);
	assert_int_equal(td_model_forward(m, y, x, 2), 0); /* without the mask */
	assert_int_equal(td_model_set_example_mask(m, each), 0);
	assert_int_equal(td_model_forward(m, yp, x, 2), 0);
	assert_memory_not_equal(y, yp, sizeof y); /* the mask is obeyed */
	for (size_t k = 0; k < sizeof poison / sizeof poison[0]; k++) {
		memcpy(xp, x, sizeof x);
		for (size_t i = 0; i < 24; i++)
			for (size_t c = 0; c < 3 && !each[i]; c++)
				xp[i * 3 + c] = (td_real)poison[k];
		assert_int_equal(td_model_forward(m, y, xp, 2), 0);
		assert_memory_equal(y, yp, sizeof y);
		for (int l = 0; l <= td_model_n_layers(m); l++) { /* the stream, residual included */
			const td_real *h = td_model_stream(m, l);

			for (size_t i = 0; i < 24; i++)
				for (size_t c = 0; c < 4 && !each[i]; c++)
					if (h[i * 4 + c] != 0)
						fail_msg("poison %zu: the stream entering layer %d holds "
							 "%g at cell %zu, absent from its example",
							 k, l, (double)h[i * 4 + c], i);
		}
	}
	for (size_t i = 0; i < 48; i++)
		y[i] = 1;
	assert_int_equal(td_model_backward(m, dx, y, 2), 0);
	for (size_t i = 0; i < 24; i++)
		for (size_t c = 0; c < 3 && !each[i]; c++)
			assert_true(dx[i * 3 + c] == 0 && !signbit(dx[i * 3 + c]));
	td_model_free(m);
	td_plan_free(p);
	td_lattice_free(lat);
}

/*
 * y, dx and every gradient of a scan model with conv mixers and an MLP,
 * after two forward and backward passes, with the given thread count: a
 * lattice with a hole, a mask per example, and a width of 40 (three
 * channel groups of the conv's weight gradients, the last one short).
 */
static td_real *run_model(int threads, size_t *len)
{
	static const uint8_t hole[12] = {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1};
	static const uint8_t each[24] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1,
					 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};
	enum { W = 40, N_IN = 2 * 12 * 3, N_OUT = 2 * 12 * 2 };
	td_lattice *lat = grid(hole);
	td_plan *p = plan_hw(4);
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_real x[N_IN], dy[N_OUT], *out;
	td_model *m;

	o.plan = p, o.in = 3, o.width = W, o.out = 2, o.max_batch = 2, o.ffn = 5;
	o.mixer.kind = TD_MIXER_CONV, o.mixer.kernel_size = 3, o.mixer.threads = threads;
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	assert_int_equal(td_model_set_example_mask(m, each), 0);
	td_rng_fill_normal(9, 7, 0, td_model_n_params(m), 0, 0.5, td_model_params(m));
	td_rng_fill_normal(9, 1, 0, N_IN, 0, 1, x);
	td_rng_fill_normal(9, 2, 0, N_OUT, 0, 1, dy);
	*len = N_OUT + N_IN + td_model_n_params(m);
	out = malloc(*len * sizeof *out);
	assert_non_null(out);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(td_model_forward(m, out, x, 2), 0);
		assert_int_equal(td_model_backward(m, out + N_OUT, dy, 2), 0);
	}
	memcpy(out + N_OUT + N_IN, td_model_grads(m), td_model_n_params(m) * sizeof *out);
	td_model_free(m);
	td_plan_free(p);
	td_lattice_free(lat);
	return out;
}

/* The norms, selections, folds and conv run split across threads: no bit may change. */
static void test_a_model_gives_the_same_bits_for_any_thread_count(void **state)
{
	size_t n1, n3;
	td_real *one = run_model(1, &n1), *three = run_model(3, &n3);

	(void)state;
	assert_int_equal(n1, n3);
	for (size_t i = 0; i < n1; i++)
		if (memcmp(&one[i], &three[i], sizeof *one) != 0)
			fail_msg("value %zu of %zu (y, dx, then gradients) differs between 1 and 3 "
				 "threads: %.9g vs %.9g", i, n1, (double)one[i], (double)three[i]);
	free(one), free(three);
}

/* The same contract for a scan block alone: poison in, nothing out; exactly 0 at absent cells. */
static void test_a_scan_block_obeys_a_mask_per_example(void **state)
{
	static const uint8_t each[24] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1,
					 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};
	td_lattice *lat = grid(NULL);
	td_block_opts o = TD_BLOCK_OPTS_INIT;
	td_real x[2 * 12 * 4], xp[2 * 12 * 4], y[2 * 12 * 4], yp[2 * 12 * 4];
	td_block *b;

	(void)state;
	o.mixer.channels = 4, o.axis = "w", o.max_batch = 2;
	assert_int_equal(td_block_new(&b, lat, &o), 0);
	td_block_init(b, 3, 0);
	td_rng_fill_normal(3, 1, 0, 96, 0, 1, x);
	memcpy(xp, x, sizeof x);
	for (size_t i = 0; i < 24; i++)
		for (size_t c = 0; c < 4 && !each[i]; c++)
			xp[i * 4 + c] = NAN;
	assert_int_equal(td_block_set_example_mask(b, each), 0);
	assert_int_equal(td_block_forward(b, y, x, 2), 0);
	assert_int_equal(td_block_forward(b, yp, xp, 2), 0);
	assert_memory_equal(y, yp, sizeof y);
	for (size_t i = 0; i < 24; i++)
		for (size_t c = 0; c < 4 && !each[i]; c++)
			assert_true(y[i * 4 + c] == 0);
	td_block_free(b);
	td_lattice_free(lat);
}

static void test_families_that_cannot_take_a_mask_per_example_refuse_it(void **state)
{
	static const uint8_t each[24] = {1};
	td_lattice *lat = grid(NULL);

	(void)state;
	for (int fam = TD_BLOCK_KERNEL; fam <= TD_BLOCK_FLATTEN; fam++) {
		td_model *m = model(lat, (td_block_family)fam, 1);

		TD_ASSERT_REFUSED(td_model_set_example_mask(m, each), TD_ENOTSUP,
				  "composition = axial_scan");
		assert_int_equal(td_model_set_example_mask(m, NULL), 0);
		td_model_free(m);
	}
	td_lattice_free(lat);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_chunk_must_be_at_least_1_and_the_refusal_names_it),
    cmocka_unit_test(test_bad_model_options_are_refused_with_a_message),
    cmocka_unit_test(test_a_plan_that_disagrees_with_n_layers_is_counted_with_its_reason),
    cmocka_unit_test(test_the_residual_stream_is_zero_at_absent_cells_after_every_layer),
    cmocka_unit_test(test_every_parameter_lives_in_one_slab),
    cmocka_unit_test(test_initial_weights_are_a_pure_function_of_the_seed),
    cmocka_unit_test(test_model_gradients_agree_with_finite_differences),
    cmocka_unit_test(test_the_gradient_predicts_the_output_s_change_along_it),
    cmocka_unit_test(test_a_cell_absent_from_its_example_cannot_reach_any_output),
    cmocka_unit_test(test_a_scan_block_obeys_a_mask_per_example),
    cmocka_unit_test(test_families_that_cannot_take_a_mask_per_example_refuse_it),
    cmocka_unit_test(test_a_model_gives_the_same_bits_for_any_thread_count),
};
TD_TEST_GROUP(model, tests);
