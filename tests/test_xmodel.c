/*
 * test_xmodel.c - the executor's model (core/xmodel.c) on the host's
 * executor against td_model, the core, bit for bit: the orchestration the
 * GPU runs, checked on any machine. Models of the scan family with the
 * conv, the LRU and the complex LRU mixer on a 4 x 5 lattice with two
 * absent cells, with and without a mask per example, the channel MLP and
 * a head per cell; and the refusals of what the executor path does not
 * compute yet.
 *
 * Edits that make them fail (each tried): the residual add without its
 * selection (sel(xm, mid, h, NULL, ...)); layer l + 1's norm read with
 * layer l's gain; the MLP's second bias left out; the head per cell
 * reading cell 0's weights for every cell.
 */
#include "tdtest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../core/exec.h"
#include "../core/model.h"
#include "../core/xmodel.h"

static const size_t shape[] = {4, 5};
static const char *const hw[] = {"h", "w"};

static td_lattice *grid(void)
{
	static const uint8_t mask[20] = {1, 1, 1, 0, 1, 1, 1, 1, 1, 1,
					 1, 1, 1, 1, 1, 1, 0, 1, 1, 1};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	td_lattice *lat = NULL;

	s.rank = 2, s.shape = shape, s.names = hw, s.mask = mask, s.mask_len = 20;
	assert_int_equal(td_lattice_new(&lat, &s), 0);
	return lat;
}

static void fill(td_real *x, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15u);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		x[i] = (td_real)((double)((z ^ (z >> 31)) >> 11) / 4503599627370496.0 * 4 - 2);
	}
}

/*
 * A model of 4 plan steps over h and w, both ways: conv (3 taps), lru or
 * clru (5 states for 8 channels).
 */
static td_model *make_model(const td_lattice *lat, td_mixer_kind kind, size_t ffn, int per_cell,
			    td_block_family fam)
{
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_plan *p = NULL;
	td_model *m = NULL;

	assert_int_equal(td_plan_cyclic(&p, hw, 2, 4, hw, 2), 0);
	o.family = fam, o.plan = fam == TD_BLOCK_SCAN ? p : NULL, o.n_layers = 4;
	o.mixer.kind = kind, o.mixer.kernel_size = 3, o.mixer.state = 5;
	o.in = 2, o.width = 8, o.out = 3, o.max_batch = 3, o.chunk = 2;
	o.ffn = ffn, o.head_per_cell = per_cell;
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	td_model_init(m, 11);
	/* every parameter its own value: gains of 1 and biases of 0 would hide a mix-up */
	fill(td_model_params(m), td_model_n_params(m), 3);
	td_plan_free(p);
	return m;
}

/* Values of y whose bits differ between td_model_forward and the host executor's. */
static size_t forward_differ(td_mixer_kind kind, size_t ffn, int per_cell, int example_mask)
{
	td_lattice *lat = grid();
	td_model *m = make_model(lat, kind, ffn, per_cell, TD_BLOCK_SCAN);
	td_xmodel *xm = NULL;
	td_real x[3 * 20 * 2], y[3 * 20 * 3], y2[3 * 20 * 3];
	uint8_t emask[3 * 20];
	size_t differ = 0;

	for (size_t i = 0; i < sizeof emask; i++)
		emask[i] = i % 7 != 2;
	fill(x, sizeof x / sizeof x[0], 5);
	x[3 * 2] = (td_real)NAN; /* in an absent cell: must reach nothing */
	assert_int_equal(td_xmodel_new(&xm, td_exec_host(), m), 0);
	if (example_mask) {
		assert_int_equal(td_model_set_example_mask(m, emask), 0);
		td_xmodel_set_example_mask(xm, emask);
	}
	for (size_t batch = 1; batch <= 3; batch += 2) {
		memset(y2, 0xff, sizeof y2);
		assert_int_equal(td_model_forward(m, y, x, batch), 0);
		assert_int_equal(td_xmodel_forward(xm, y2, x, batch), 0);
		for (size_t i = 0; i < batch * 20 * 3; i++)
			differ += memcmp(&y[i], &y2[i], sizeof y[i]) != 0;
	}
	td_xmodel_free(xm);
	td_model_free(m);
	td_lattice_free(lat);
	return differ;
}

/* The mixers the executor path computes, and their names; case c runs kinds[c >> 3]. */
static const td_mixer_kind kinds[] = {TD_MIXER_CONV, TD_MIXER_LRU, TD_MIXER_CLRU};
static const char *const kind_names[] = {"conv", "lru", "clru"};

static void test_the_host_executors_forward_gives_the_models_bits(void **state)
{
	(void)state;
	for (int c = 0; c < 24; c++)
		if (forward_differ(kinds[c >> 3], c & 1 ? 6 : 0, c >> 1 & 1, c >> 2 & 1))
			fail_msg("%s, ffn %d, head per cell %d, example mask %d: y differs",
				 kind_names[c >> 3], c & 1, c >> 1 & 1, c >> 2 & 1);
}

/*
 * Values of dx and of the gradient slab whose bits differ between
 * td_model_backward and the host executor's, after two forward and
 * backward passes (batch 3, then 2) summed into the gradients.
 */
static size_t backward_differ(td_mixer_kind kind, size_t ffn, int per_cell, int example_mask)
{
	td_lattice *lat = grid();
	td_model *m = make_model(lat, kind, ffn, per_cell, TD_BLOCK_SCAN);
	td_xmodel *xm = NULL;
	td_real x[3 * 20 * 2], y[3 * 20 * 3], dy[3 * 20 * 3], dx[3 * 20 * 2], dx2[3 * 20 * 2];
	td_real *grads = calloc(td_model_n_params(m), sizeof *grads);
	uint8_t emask[3 * 20];
	size_t differ = 0;

	assert_non_null(grads);
	for (size_t i = 0; i < sizeof emask; i++)
		emask[i] = i % 7 != 2;
	fill(x, sizeof x / sizeof x[0], 5), fill(dy, sizeof dy / sizeof dy[0], 9);
	assert_int_equal(td_xmodel_new(&xm, td_exec_host(), m), 0);
	if (example_mask) {
		assert_int_equal(td_model_set_example_mask(m, emask), 0);
		td_xmodel_set_example_mask(xm, emask);
	}
	for (size_t batch = 3; batch >= 2; batch--) {
		assert_int_equal(td_model_forward(m, y, x, batch), 0);
		assert_int_equal(td_model_backward(m, dx, dy, batch), 0);
		assert_int_equal(td_xmodel_forward(xm, y, x, batch), 0);
		assert_int_equal(td_xmodel_backward(xm, dx2, dy, batch), 0);
		for (size_t i = 0; i < batch * 20 * 2; i++)
			differ += memcmp(&dx[i], &dx2[i], sizeof dx[i]) != 0;
	}
	assert_int_equal(td_xmodel_download(xm, NULL, grads), 0);
	for (size_t i = 0; i < td_model_n_params(m); i++)
		differ += memcmp(&grads[i], &td_model_grads(m)[i], sizeof grads[i]) != 0;
	assert_int_equal(td_xmodel_zero_grads(xm), 0);
	assert_int_equal(td_xmodel_download(xm, NULL, grads), 0);
	for (size_t i = 0; i < td_model_n_params(m); i++)
		assert_true(grads[i] == 0);
	free(grads);
	td_xmodel_free(xm);
	td_model_free(m);
	td_lattice_free(lat);
	return differ;
}

static void test_the_host_executors_backward_gives_the_models_bits(void **state)
{
	(void)state;
	for (int c = 0; c < 24; c++)
		if (backward_differ(kinds[c >> 3], c & 1 ? 6 : 0, c >> 1 & 1, c >> 2 & 1))
			fail_msg("%s, ffn %d, head per cell %d, example mask %d: dx or a gradient "
				 "differs",
				 kind_names[c >> 3], c & 1, c >> 1 & 1, c >> 2 & 1);
}

/*
 * Along an axis of one cell every line is one step long, and block.c
 * gives each mixer call more lines (chunk times the longest axis): the
 * gradient's chunks must be the same ones.
 */
static void test_lines_of_one_step_sum_the_gradient_in_the_cores_chunks(void **state)
{
	static const size_t one_row[] = {1, 40};
	td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
	td_lattice *lat = NULL;
	td_model *m;
	td_xmodel *xm = NULL;
	td_real x[3 * 40 * 2], y[3 * 40 * 3], dy[3 * 40 * 3], *grads;
	size_t differ = 0;

	(void)state;
	ls.rank = 2, ls.shape = one_row, ls.names = hw;
	assert_int_equal(td_lattice_new(&lat, &ls), 0);
	m = make_model(lat, TD_MIXER_CONV, 0, 0, TD_BLOCK_SCAN);
	assert_non_null(grads = calloc(td_model_n_params(m), sizeof *grads));
	fill(x, sizeof x / sizeof x[0], 5), fill(dy, sizeof dy / sizeof dy[0], 9);
	assert_int_equal(td_xmodel_new(&xm, td_exec_host(), m), 0);
	assert_int_equal(td_model_forward(m, y, x, 3), 0);
	assert_int_equal(td_model_backward(m, NULL, dy, 3), 0);
	assert_int_equal(td_xmodel_forward(xm, y, x, 3), 0);
	assert_int_equal(td_xmodel_backward(xm, NULL, dy, 3), 0);
	assert_int_equal(td_xmodel_download(xm, NULL, grads), 0);
	for (size_t i = 0; i < td_model_n_params(m); i++)
		differ += memcmp(&grads[i], &td_model_grads(m)[i], sizeof grads[i]) != 0;
	assert_int_equal(differ, 0);
	free(grads), td_xmodel_free(xm), td_model_free(m), td_lattice_free(lat);
}

static void test_what_the_executor_path_lacks_is_refused_by_name(void **state)
{
	static const size_t one_row[] = {1, 6};
	td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
	td_lattice *lat = grid(), *row = NULL;
	td_model *m = make_model(lat, TD_MIXER_CONV, 0, 0, TD_BLOCK_KERNEL);
	td_model *gru = make_model(lat, TD_MIXER_GRU, 0, 0, TD_BLOCK_SCAN), *lru, *clru;
	td_xmodel *xm = (td_xmodel *)&ls; /* must come back NULL */

	(void)state;
	TD_ASSERT_REFUSED(td_xmodel_new(&xm, td_exec_host(), m), TD_ENOTSUP, "axial_scan");
	assert_null(xm);
	TD_ASSERT_REFUSED(td_xmodel_new(&xm, td_exec_host(), gru), TD_ENOTSUP, "gru");
	ls.rank = 2, ls.shape = one_row, ls.names = hw;
	assert_int_equal(td_lattice_new(&row, &ls), 0);
	lru = make_model(row, TD_MIXER_LRU, 0, 0, TD_BLOCK_SCAN);
	TD_ASSERT_REFUSED(td_xmodel_new(&xm, td_exec_host(), lru), TD_ENOTSUP, "axis h of one cell");
	clru = make_model(row, TD_MIXER_CLRU, 0, 0, TD_BLOCK_SCAN);
	TD_ASSERT_REFUSED(td_xmodel_new(&xm, td_exec_host(), clru), TD_ENOTSUP,
			  "no clru on lines of one step");
	assert_null(xm);
	td_model_free(clru), td_model_free(lru), td_model_free(gru), td_model_free(m);
	td_lattice_free(row), td_lattice_free(lat);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_host_executors_forward_gives_the_models_bits),
	cmocka_unit_test(test_the_host_executors_backward_gives_the_models_bits),
	cmocka_unit_test(test_lines_of_one_step_sum_the_gradient_in_the_cores_chunks),
	cmocka_unit_test(test_what_the_executor_path_lacks_is_refused_by_name),
};
TD_TEST_GROUP(xmodel, tests);
