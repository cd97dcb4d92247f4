/*
 * test_xmodel.c - the executor's model (core/xmodel.c) on the host's
 * executor against td_model, the core, bit for bit: the orchestration the
 * GPU runs, checked on any machine. Models of the scan, flatten and
 * kernel families with the conv, the LRU, the complex LRU, the GRU, the
 * LSTM and attention (two heads, causal where the model has the MLP) on
 * a 4 x 5 lattice with two absent cells, with and without a mask per
 * example, the channel MLP and a head per cell; the mixers in block.c's
 * chunks (an exact multiple of lines, a short last call, a chunk past
 * the lines), models of one layer, lines of one step in the core's chunks
 * (the recurrences' maps, attention's value path), the batch's bounds and
 * the memory pool's arithmetic.
 *
 * Edits that make them fail (each tried): the residual add without its
 * selection (sel(xm, mid, h, NULL, ...)); layer l + 1's norm read with
 * layer l's gain; the MLP's second bias left out; the head per cell
 * reading cell 0's weights for every cell; the GRU's n without its bias
 * b_n (td_op_gru_step), its dc summed from dgx rather than dgh; the
 * LSTM's biases added one after the other rather than b + c; attention's
 * causal keys counted to i rather than i + 1 (td_op_attend), its rows not
 * reversed in a reverse sweep (td_op_attn_row as i), dv summed from the
 * weights of the key's row rather than its column, its parts summed over
 * the whole call rather than td_mixer_blocks's blocks, and its parts not
 * zeroed before a call's blocks add to them.
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
#include "../kernels/ops.h"

#if TD_EXEC_REDZONE
#include <sanitizer/asan_interface.h>
#endif

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
 * A model of layers plan steps over h and w, both ways: conv (3 taps),
 * lru or clru (5 states for 8 channels), attention (2 heads, causal with
 * the MLP), chunk lines a mixer call; make_model's: 4 layers, chunk 2.
 */
static td_model *make_sized(const td_lattice *lat, td_mixer_kind kind, size_t ffn, int per_cell,
			    td_block_family fam, int layers, size_t chunk)
{
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_plan *p = NULL;
	td_model *m = NULL;

	assert_int_equal(td_plan_cyclic(&p, hw, 2, layers, hw, 2), 0);
	o.family = fam, o.plan = fam == TD_BLOCK_SCAN ? p : NULL, o.n_layers = layers;
	o.mixer.kind = kind, o.mixer.kernel_size = 3, o.mixer.state = 5;
	o.in = 2, o.width = 8, o.out = 3, o.max_batch = 3, o.chunk = chunk;
	o.ffn = ffn, o.head_per_cell = per_cell;
	o.mixer.heads = 2, o.mixer.causal = ffn != 0; /* attention's */
	assert_int_equal(td_model_new(&m, lat, &o), 0);
	td_model_init(m, 11);
	/* every parameter its own value: gains of 1 and biases of 0 would hide a mix-up */
	fill(td_model_params(m), td_model_n_params(m), 3);
	td_plan_free(p);
	return m;
}

static td_model *make_model(const td_lattice *lat, td_mixer_kind kind, size_t ffn, int per_cell,
			    td_block_family fam)
{
	return make_sized(lat, kind, ffn, per_cell, fam, 4, 2);
}

/*
 * emask on both models; for flatten and kernel, refused by both with one
 * reason, as the core builds those families' masks once.
 */
static void set_example_mask(td_model *m, td_xmodel *xm, const uint8_t *emask,
			     td_block_family fam)
{
	const char *why = fam == TD_BLOCK_KERNEL ? "absent cells per example: the kernel family"
						 : "absent cells per example: the flatten family";

	if (fam == TD_BLOCK_SCAN) {
		assert_int_equal(td_model_set_example_mask(m, emask), 0);
		assert_int_equal(td_xmodel_set_example_mask(xm, emask), 0);
		return;
	}
	TD_ASSERT_REFUSED(td_xmodel_set_example_mask(xm, emask), TD_ENOTSUP, why);
	TD_ASSERT_REFUSED(td_model_set_example_mask(m, emask), TD_ENOTSUP, why);
}

/* Values of y whose bits differ between td_model_forward and the host executor's. */
static size_t forward_differ(td_mixer_kind kind, size_t ffn, int per_cell, int example_mask,
			     td_block_family fam)
{
	td_lattice *lat = grid();
	td_model *m = make_model(lat, kind, ffn, per_cell, fam);
	td_xmodel *xm = NULL;
	td_real x[3 * 20 * 2], y[3 * 20 * 3], y2[3 * 20 * 3];
	uint8_t emask[3 * 20];
	size_t differ = 0;

	for (size_t i = 0; i < sizeof emask; i++)
		emask[i] = i % 7 != 2;
	fill(x, sizeof x / sizeof x[0], 5);
	x[3 * 2] = (td_real)NAN; /* in an absent cell: must reach nothing */
	assert_int_equal(td_xmodel_new(&xm, td_exec_host(), m), 0);
	if (example_mask)
		set_example_mask(m, xm, emask, fam);
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
static const td_mixer_kind kinds[] = {TD_MIXER_CONV, TD_MIXER_LRU,  TD_MIXER_CLRU,
				      TD_MIXER_GRU,  TD_MIXER_LSTM, TD_MIXER_ATTENTION};
static const char *const kind_names[] = {"conv", "lru", "clru", "gru", "lstm", "attention"};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/*
 * Case c < 3 N_CASES: the family (scan, flatten, kernel), the mixer, the
 * MLP, the head, the mask per example.
 */
static const td_block_family families[] = {TD_BLOCK_SCAN, TD_BLOCK_FLATTEN, TD_BLOCK_KERNEL};
static const char *const family_names[] = {"scan", "flatten", "kernel"};
#define N_CASES ((int)N_KINDS * 8) /* a family's */
#define CASE_FAMILY(c) families[(c) / N_CASES]
#define CASE_ARGS(c)                                                                              \
	kinds[(c) % N_CASES >> 3], (c) & 1 ? 6 : 0, (c) >> 1 & 1, (c) >> 2 & 1, CASE_FAMILY(c)
#define CASE_FMT "%s %s, ffn %d, head per cell %d, example mask %d"
#define CASE_NAMES(c)                                                                             \
	family_names[(c) / N_CASES], kind_names[(c) % N_CASES >> 3], (c) & 1, (c) >> 1 & 1,           \
	    (c) >> 2 & 1

static void test_the_host_executors_forward_gives_the_models_bits(void **state)
{
	(void)state;
	for (int c = 0; c < 3 * N_CASES; c++)
		if (forward_differ(CASE_ARGS(c)))
			fail_msg(CASE_FMT ": y differs", CASE_NAMES(c));
}

/*
 * Values of dx and of the gradient slab whose bits differ between
 * td_model_backward and the host executor's, after two forward and
 * backward passes (batch 3, then 2) summed into the gradients.
 */
static size_t backward_differ(td_mixer_kind kind, size_t ffn, int per_cell, int example_mask,
			     td_block_family fam)
{
	td_lattice *lat = grid();
	td_model *m = make_model(lat, kind, ffn, per_cell, fam);
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
	if (example_mask)
		set_example_mask(m, xm, emask, fam);
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
	for (int c = 0; c < 3 * N_CASES; c++)
		if (backward_differ(CASE_ARGS(c)))
			fail_msg(CASE_FMT ": dx or a gradient differs", CASE_NAMES(c));
}

/*
 * Values of y, dx and the gradient slab whose bits differ between the
 * core and the executor x on m over lat (in 2, out 3, max_batch 3): a forward and
 * a backward of each batch 3, 2 and 1, the gradients summed over them,
 * from m's gradients as they were.
 */
static size_t model_differ(td_model *m, const td_lattice *lat, const td_exec *x)
{
	const size_t c = td_lattice_n_cells(lat), np = td_model_n_params(m);
	td_real *in = calloc(3 * c * 2, sizeof *in), *dx = calloc(3 * c * 2, sizeof *dx);
	td_real *dx2 = calloc(3 * c * 2, sizeof *dx2), *y = calloc(3 * c * 3, sizeof *y);
	td_real *y2 = calloc(3 * c * 3, sizeof *y2), *dy = calloc(3 * c * 3, sizeof *dy);
	td_real *grads = calloc(np, sizeof *grads);
	td_xmodel *xm = NULL;
	size_t differ = 0;

	assert_true(in && dx && dx2 && y && y2 && dy && grads);
	fill(in, 3 * c * 2, 5), fill(dy, 3 * c * 3, 9);
	assert_int_equal(td_xmodel_new(&xm, x, m), 0);
	assert_int_equal(x->upload(x, td_xmodel_grads(xm), td_model_grads(m), np * sizeof *grads), 0);
	for (size_t batch = 3; batch >= 1; batch--) {
		assert_int_equal(td_model_forward(m, y, in, batch), 0);
		assert_int_equal(td_model_backward(m, dx, dy, batch), 0);
		assert_int_equal(td_xmodel_forward(xm, y2, in, batch), 0);
		assert_int_equal(td_xmodel_backward(xm, dx2, dy, batch), 0);
		for (size_t i = 0; i < batch * c * 3; i++)
			differ += memcmp(&y[i], &y2[i], sizeof y[i]) != 0;
		for (size_t i = 0; i < batch * c * 2; i++)
			differ += memcmp(&dx[i], &dx2[i], sizeof dx[i]) != 0;
	}
	assert_int_equal(td_xmodel_download(xm, NULL, grads), 0);
	for (size_t i = 0; i < np; i++)
		differ += memcmp(&grads[i], &td_model_grads(m)[i], sizeof grads[i]) != 0;
	td_xmodel_free(xm);
	free(in), free(dx), free(dx2), free(y), free(y2), free(dy), free(grads);
	return differ;
}

/*
 * The recurrences' scans the counting executor was asked for (lru_scan
 * and clru_scan; the GRU's and the LSTM's first step forward and
 * backward).
 */
static size_t scans;

static int counting_lru_scan(const td_exec *x, td_real *h, const td_real *a, size_t lines,
			     size_t length, size_t n, int reverse, int adjoint)
{
	scans++;
	return td_exec_host()->lru_scan(x, h, a, lines, length, n, reverse, adjoint);
}

static int counting_clru_scan(const td_exec *x, td_real *h, const td_real *a, size_t lines,
			      size_t length, size_t n, int reverse, int adjoint)
{
	scans++;
	return td_exec_host()->clru_scan(x, h, a, lines, length, n, reverse, adjoint);
}

static int counting_gru_step(const td_exec *x, td_real *g, td_real *hs, const td_real *gh,
			     const td_real *b, const td_real *c, size_t lines, size_t length,
			     size_t h, size_t q, int reverse)
{
	scans += q == 0;
	return td_exec_host()->gru_step(x, g, hs, gh, b, c, lines, length, h, q, reverse);
}

static int counting_gru_step_back(const td_exec *x, td_real *dgx, td_real *dgh, td_real *carry,
				  const td_real *g, const td_real *dy, const td_real *hp,
				  size_t lines, size_t length, size_t h, size_t q, int reverse)
{
	scans += q == 0;
	return td_exec_host()->gru_step_back(x, dgx, dgh, carry, g, dy, hp, lines, length, h, q,
					     reverse);
}

static int counting_lstm_step(const td_exec *x, td_real *g, td_real *ss, td_real *ts,
			      td_real *hs, const td_real *gh, const td_real *b, const td_real *c,
			      size_t lines, size_t length, size_t h, size_t q, int reverse)
{
	scans += q == 0;
	return td_exec_host()->lstm_step(x, g, ss, ts, hs, gh, b, c, lines, length, h, q,
					 reverse);
}

static int counting_lstm_step_back(const td_exec *x, td_real *dg, const td_real *dh, td_real *ds,
				   const td_real *g, const td_real *ts, const td_real *sp,
				   const td_real *dy, size_t lines, size_t length, size_t h,
				   size_t q, int reverse)
{
	scans += q == 0;
	return td_exec_host()->lstm_step_back(x, dg, dh, ds, g, ts, sp, dy, lines, length, h, q,
					      reverse);
}

/*
 * The LRU and the complex LRU run call by call in block.c's chunks, and
 * in no others: on a 2 x 7 lattice (an axis of two cells is a line the
 * recurrence takes; 7 lines an example along h, 2 along w), with chunks
 * of 1 (every count of lines an exact multiple), 2 (14 lines exact, 7
 * and 21 not), 7 (exact along h, more than the lines along w) and 100
 * (more than every count), the host executor gives the core's bits and
 * calls one scan per chunk forward and one backward: no empty call after
 * an exact multiple, whose extra call a GPU pays as a launch and whose
 * failure the loop would not stop at.
 *
 * Seen failing with, in each of lru_forward, lru_backward, clru_forward
 * and clru_backward, the chunk loop's at < lines as at <= lines and its
 * !err && at < lines as !err || at < lines (a scan of no lines after an
 * exact multiple); and check_model refusing lines of two steps (< 3, <= 2).
 */
static void test_the_recurrences_run_in_block_cs_chunks_and_no_others(void **state)
{
	static const size_t two_by_seven[] = {2, 7}, chunks[] = {1, 2, 7, 100};
	td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
	td_lattice *lat = NULL;
	td_exec counting = *td_exec_host();

	(void)state;
	counting.lru_scan = counting_lru_scan, counting.clru_scan = counting_clru_scan;
	counting.gru_step = counting_gru_step, counting.gru_step_back = counting_gru_step_back;
	counting.lstm_step = counting_lstm_step;
	counting.lstm_step_back = counting_lstm_step_back;
	ls.rank = 2, ls.shape = two_by_seven, ls.names = hw;
	assert_int_equal(td_lattice_new(&lat, &ls), 0);
	for (size_t k = 1; k < N_KINDS; k++)
		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
			td_model *m = make_sized(lat, kinds[k], 0, 0, TD_BLOCK_SCAN, 4, chunks[c]);
			size_t want = 0;

			for (size_t b = 1; b <= 3; b++) /* layers h, w, h, w; forward and backward */
				want += 4 * ((7 * b + chunks[c] - 1) / chunks[c] +
					     (2 * b + chunks[c] - 1) / chunks[c]);
			scans = 0;
			if (model_differ(m, lat, &counting))
				fail_msg("%s, chunk %zu: y, dx or a gradient differs", kind_names[k],
					 chunks[c]);
			if (kinds[k] != TD_MIXER_ATTENTION && scans != want)
				fail_msg("%s, chunk %zu: %zu scans, block.c's chunks are %zu",
					 kind_names[k], chunks[c], scans, want);
			td_model_free(m);
		}
	td_lattice_free(lat);
}

/*
 * A model of one layer: built from its only block, computed bit for bit
 * with each mixer. Seen failing with td_xmodel_new reading block 1 for
 * the cell count, the recurrence's state or the mask.
 */
static void test_a_model_of_one_layer_is_read_from_its_only_block(void **state)
{
	td_lattice *lat = grid();

	(void)state;
	for (size_t k = 0; k < N_KINDS; k++) {
		td_model *m = make_sized(lat, kinds[k], 6, 0, TD_BLOCK_SCAN, 1, 2);

		if (model_differ(m, lat, td_exec_host()))
			fail_msg("%s of one layer: y, dx or a gradient differs", kind_names[k]);
		td_model_free(m);
	}
	td_lattice_free(lat);
}

/*
 * td_xmodel_forward and td_xmodel_backward take batches of 1..max_batch:
 * 0 and max_batch + 1 refused (TD_EINVAL, the batch named), 1 and
 * max_batch computed. Seen failing with either check's batch < 1 as
 * batch < 0 or its || as &&, and the backward's batch < 1 as batch <= 1.
 */
static void test_a_batch_outside_one_to_max_batch_is_refused(void **state)
{
	td_lattice *lat = grid();
	td_model *m = make_model(lat, TD_MIXER_CONV, 0, 0, TD_BLOCK_SCAN);
	td_xmodel *xm = NULL;
	td_real x[4 * 20 * 2], y[4 * 20 * 3], dy[4 * 20 * 3], dx[4 * 20 * 2];

	(void)state;
	fill(x, sizeof x / sizeof x[0], 5), fill(dy, sizeof dy / sizeof dy[0], 9);
	assert_int_equal(td_xmodel_new(&xm, td_exec_host(), m), 0);
	TD_ASSERT_REFUSED(td_xmodel_forward(xm, y, x, 0), TD_EINVAL, "batch 0 is outside 1..3");
	TD_ASSERT_REFUSED(td_xmodel_backward(xm, dx, dy, 0), TD_EINVAL, "batch 0 is outside 1..3");
	TD_ASSERT_REFUSED(td_xmodel_forward(xm, y, x, 4), TD_EINVAL, "batch 4 is outside 1..3");
	TD_ASSERT_REFUSED(td_xmodel_backward(xm, dx, dy, 4), TD_EINVAL, "batch 4 is outside 1..3");
	for (size_t batch = 1; batch <= 3; batch += 2) {
		assert_int_equal(td_xmodel_forward(xm, y, x, batch), 0);
		assert_int_equal(td_xmodel_backward(xm, dx, dy, batch), 0);
	}
	td_xmodel_free(xm), td_model_free(m), td_lattice_free(lat);
}

/*
 * Along an axis of one cell every line is one step long, and block.c
 * gives each mixer call more lines (chunk times the longest axis, or
 * every line where that product would not fit): the gradient's chunks
 * must be the same ones. On 1 x 40 with chunk 80 (3200 lines a call, all
 * of them), with chunk 2^64 / 40 rounded up (the product past SIZE_MAX:
 * all of them), on 40 x 1 with chunk 2 (the longest axis the first) and
 * on 1 x 40 with chunk 2 (80 a call); for every mixer: the LRU and the
 * CLRU are the map y = x M there, the GRU's and the LSTM's dU gets
 * nothing and the LSTM's forget gate is 0 (both checked by the next
 * test but one). Seen failing with build_layer's chunk as chunk / most, with its overflow check as
 * chunk > SIZE_MAX * most, with the longest axis looked for from axis 1,
 * with M's diagonal left out of map_make, with the CLRU's imaginary part
 * added instead of subtracted, and with dM's diagonal not added to dD.
 */
static void test_lines_of_one_step_sum_the_gradient_in_the_cores_chunks(void **state)
{
	static const size_t one_row[] = {1, 40}, one_column[] = {40, 1};
	static const struct {
		const size_t *shape;
		size_t chunk;
	} cases[] = {{one_row, 80}, {one_row, 461168601842738791u}, {one_column, 2}, {one_row, 2}};

	(void)state;
	for (size_t c = 0; c < N_KINDS * (sizeof cases / sizeof cases[0]); c++) {
		const size_t k = c % N_KINDS, at = c / N_KINDS;
		td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
		td_lattice *lat = NULL;
		td_model *m;

		ls.rank = 2, ls.shape = cases[at].shape, ls.names = hw;
		assert_int_equal(td_lattice_new(&lat, &ls), 0);
		m = make_sized(lat, kinds[k], 0, 0, TD_BLOCK_SCAN, 4, cases[at].chunk);
		if (model_differ(m, lat, td_exec_host()))
			fail_msg("%s, %zu x %zu, chunk %zu: y, dx or a gradient differs",
				 kind_names[k], cases[at].shape[0], cases[at].shape[1],
				 cases[at].chunk);
		td_model_free(m), td_lattice_free(lat);
	}
}

/*
 * The kernel family with a time axis: h and w contracted, then the mixer
 * along t (3 x 4 x 5, cell 7 absent), and with time alone (6 steps, no
 * axis to contract), for each mixer: the core's bits. Seen failing with
 * every cell its own line of one step, as where there is no time axis.
 */
static void test_the_kernel_family_mixes_along_time_as_the_core_does(void **state)
{
	static const size_t thw[] = {3, 4, 5}, t[] = {6};
	static const char *const names[] = {"t", "h", "w"};
	uint8_t mask[60];

	(void)state;
	for (size_t i = 0; i < 60; i++)
		mask[i] = i != 7;
	for (size_t c = 0; c < 2 * N_KINDS; c++) {
		td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
		td_lattice *lat = NULL;
		td_model *m;

		const int both = c < N_KINDS;

		ls.rank = both ? 3 : 1, ls.shape = both ? thw : t, ls.names = names;
		ls.time_axis = 0, ls.mask = both ? mask : NULL, ls.mask_len = both ? 60 : 0;
		assert_int_equal(td_lattice_new(&lat, &ls), 0);
		m = make_sized(lat, kinds[c % N_KINDS], 0, 0, TD_BLOCK_KERNEL, 2, 2);
		if (model_differ(m, lat, td_exec_host()))
			fail_msg("%s, %s: y, dx or a gradient differs", kind_names[c % N_KINDS],
				 both ? "t x h x w" : "t alone");
		td_model_free(m), td_lattice_free(lat);
	}
}

/*
 * On lines of one step (a kernel model without time: every layer's) the
 * GRU's and the LSTM's dU gets nothing, not even a zero, and the LSTM's
 * forget gate is 0 whatever W says, its rows of dW 0 whatever dg holds
 * (mixer_lstm.c): from gradients of -0, dU keeps its -0, and a NaN in
 * every W_f row reaches the gradients as the core's does. Seen failing
 * with dU's parts added like the others (-0 + 0 is +0), with the forget
 * gate computed on such lines, and with dW's rows of f taken from dg.
 */
static void test_one_step_recurrences_leave_du_and_the_forget_gate_alone(void **state)
{
	td_lattice *lat = grid();

	(void)state;
	for (int c = 0; c < 2; c++) {
		td_model *m = make_sized(lat, c ? TD_MIXER_LSTM : TD_MIXER_GRU, 0, 0,
					 TD_BLOCK_KERNEL, 2, 2);
		const size_t h = td_model_options(m)->width;

		for (size_t i = 0; i < td_model_n_params(m); i++)
			td_model_grads(m)[i] = -0.0f;
		for (int l = 0; c && l < td_model_n_layers(m); l++) {
			td_mixer *mx = td_block_mixer(td_model_block(m, l));
			td_real *w = td_mixer_params(mx) + td_mixer_tensor_at(mx, 0)->offset;

			for (size_t e = h * h; e < 2 * h * h; e++) /* W's rows of f: [h, 2h) */
				w[e] = (td_real)NAN;
		}
		if (model_differ(m, lat, td_exec_host()))
			fail_msg("%s: y, dx or a gradient differs", c ? "lstm" : "gru");
		td_model_free(m);
	}
	td_lattice_free(lat);
}

/*
 * The host's conv backward over no lines runs no chunk, as the GPU's:
 * the gradient keeps its bits, a -0 in it included (an empty chunk adds
 * +0, which turns -0 into +0). Seen failing with host_conv_backward's
 * chunk loop as at <= lines.
 */
static void test_a_conv_backward_of_no_lines_leaves_the_gradient(void **state)
{
	const td_exec *x = td_exec_host();
	const td_op_conv s = {3, 1, 2, 4, 0};
	td_real g[4 * 2], dx[4 * 2] = {0}, dy[4 * 2] = {0}, in[4 * 2] = {0}, w[4 * 2] = {0};

	(void)state;
	for (size_t i = 0; i < 4 * 2; i++)
		g[i] = -0.0f;
	assert_int_equal(x->conv_backward(x, dx, g, dy, in, w, 0, 2, &s), 0);
	for (size_t i = 0; i < 4 * 2; i++)
		assert_true(g[i] == 0 && signbit(g[i]));
}

/*
 * Flatten's gather and scatter on the host executor: two examples of four
 * cells, cell 1 absent, the sequence 2, 0, 3 (not storage order); the
 * scatter back writes 0 at the absent cell whatever it held, which the
 * model's selection would hide. Seen failing with the scatter's 0 as
 * src[0].
 */
static void test_flatten_gathers_its_sequence_and_scatters_zeros_at_absent_cells(void **state)
{
	const td_exec *x = td_exec_host();
	const size_t seq[] = {2, 0, 3}, pos[] = {1, SIZE_MAX, 0, 2};
	const td_real cells[2 * 4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	const td_real want[2 * 4 * 2] = {1, 2, 0, 0, 5, 6, 7, 8, 9, 10, 0, 0, 13, 14, 15, 16};
	td_real sq[2 * 3 * 2], back[2 * 4 * 2];

	(void)state;
	for (size_t i = 0; i < 16; i++)
		back[i] = (td_real)NAN;
	assert_int_equal(x->gather(x, sq, cells, seq, 2, 4, 3, 2), 0);
	for (size_t e = 0; e < 2; e++)
		for (size_t p = 0; p < 3; p++)
			for (size_t ch = 0; ch < 2; ch++)
				assert_true(sq[(e * 3 + p) * 2 + ch] == cells[(e * 4 + seq[p]) * 2 + ch]);
	assert_int_equal(x->gather(x, back, sq, pos, 2, 3, 4, 2), 0);
	assert_memory_equal(back, want, sizeof want);
}

/* n up to the next multiple of TD_EXEC_ALIGN */
static size_t up(size_t n)
{
	return (n + TD_EXEC_ALIGN - 1) / TD_EXEC_ALIGN * TD_EXEC_ALIGN;
}

/*
 * A pool counted, then carved from a base, gives the same pieces: each at
 * the next multiple of TD_EXEC_ALIGN past the last piece (and its red
 * zone, under ASan), the count the carving's end; a piece of no bytes
 * has the next piece's place; while counting, none.
 */
static void test_a_pool_carves_the_pieces_it_counted(void **state)
{
	const size_t rz = TD_EXEC_REDZONE, at_b = up(3 + rz), at_c = up(at_b + TD_EXEC_ALIGN + rz),
		     at_d = up(at_c + rz);
	unsigned char *base = calloc(at_d + 20 + rz, 1);
	td_exec_pool p = {0};
	void *a = base, *b = base, *c = base, *d = base;

	(void)state;
	assert_non_null(base);
	td_exec_take(&p, &a, 3, 1), td_exec_take(&p, &b, 1, TD_EXEC_ALIGN);
	td_exec_take(&p, &c, 0, 8), td_exec_take(&p, &d, 5, 4);
	assert_null(a), assert_null(b), assert_null(c), assert_null(d);
	assert_int_equal(p.used, at_d + 20 + rz);
	p = (td_exec_pool){base, 0};
	td_exec_take(&p, &a, 3, 1), td_exec_take(&p, &b, 1, TD_EXEC_ALIGN);
	td_exec_take(&p, &c, 0, 8), td_exec_take(&p, &d, 5, 4);
	assert_ptr_equal(a, base), assert_ptr_equal(b, base + at_b);
	assert_ptr_equal(c, base + at_c), assert_ptr_equal(d, base + at_d);
	assert_int_equal(p.used, at_d + 20 + rz);
	if (!rz)
		assert_int_equal(at_d, 2 * TD_EXEC_ALIGN); /* the arithmetic above, pinned */
	free(base);
}

/*
 * A size that wraps, in the product or in the alignment, leaves the
 * pool's count at SIZE_MAX for good and yields no piece, counting or
 * carving; the largest size that fits does not.
 */
static void test_a_pool_whose_size_wraps_yields_nothing(void **state)
{
	const size_t rz = TD_EXEC_REDZONE, most = (SIZE_MAX - TD_EXEC_ALIGN - 2 * rz) / 2;
	static unsigned char base[1];
	td_exec_pool p = {0};
	void *a = base;

	(void)state;
	td_exec_take(&p, &a, 1, 1);
	td_exec_take(&p, &a, most, 2);
	assert_int_equal(p.used, up(1 + rz) + most * 2 + rz);
	p = (td_exec_pool){base, 1 + rz}; /* the same place, one element more */
	td_exec_take(&p, &a, most + 1, 2);
	assert_int_equal(p.used, SIZE_MAX), assert_null(a);
	a = base, td_exec_take(&p, &a, 0, 1);
	assert_int_equal(p.used, SIZE_MAX), assert_null(a);
	p = (td_exec_pool){base, SIZE_MAX - 1}, a = base; /* the alignment itself wraps */
	td_exec_take(&p, &a, 0, 1);
	assert_int_equal(p.used, SIZE_MAX), assert_null(a);
	/*
	 * The last multiple of TD_EXEC_ALIGN still takes a piece of no bytes,
	 * where it has no red zone after it (seen failing, in a build without
	 * ASan, with the alignment's bound SIZE_MAX - (TD_EXEC_ALIGN - rem)
	 * made SIZE_MAX - (TD_EXEC_ALIGN + rem)).
	 */
	p = (td_exec_pool){NULL, SIZE_MAX - 300};
	td_exec_take(&p, &a, 0, 1);
	assert_int_equal(p.used, rz ? SIZE_MAX : SIZE_MAX - (TD_EXEC_ALIGN - 1));
}

/*
 * Under AddressSanitizer the TD_EXEC_REDZONE bytes after each piece carved
 * from a base are poisoned and the piece itself is not, so that a body
 * writing past its buffer is reported (a skip elsewhere: there is no red
 * zone). Seen failing with td_exec_take's ASAN_POISON_MEMORY_REGION
 * removed.
 */
static void test_a_carved_piece_is_followed_by_a_poisoned_red_zone(void **state)
{
#if TD_EXEC_REDZONE
	const size_t bytes = 3 * TD_EXEC_ALIGN + 2 * TD_EXEC_REDZONE;
	unsigned char *base = calloc(bytes, 1);
	td_exec_pool p = {0};
	unsigned char *a, *b;

	(void)state;
	assert_non_null(base);
	p.base = base;
	td_exec_take(&p, &a, 5, 1), td_exec_take(&p, &b, 1, TD_EXEC_ALIGN);
	assert_ptr_equal(a, base), assert_ptr_equal(b, base + up(5 + TD_EXEC_REDZONE));
	assert_null(__asan_region_is_poisoned(a, 5));
	assert_null(__asan_region_is_poisoned(b, TD_EXEC_ALIGN));
	for (size_t i = 0; i + 8 <= TD_EXEC_REDZONE; i++) /* ASan poisons no partial last granule */
		if (!__asan_address_is_poisoned(a + 5 + i) ||
		    !__asan_address_is_poisoned(b + TD_EXEC_ALIGN + i))
			fail_msg("red-zone byte %zu after a piece is not poisoned", i);
	__asan_unpoison_memory_region(base, bytes);
	free(base);
#else
	(void)state;
	TD_SKIP("no red zones without AddressSanitizer (make VARIANT=asan has them)");
#endif
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_host_executors_forward_gives_the_models_bits),
	cmocka_unit_test(test_the_host_executors_backward_gives_the_models_bits),
	cmocka_unit_test(test_the_recurrences_run_in_block_cs_chunks_and_no_others),
	cmocka_unit_test(test_a_model_of_one_layer_is_read_from_its_only_block),
	cmocka_unit_test(test_a_batch_outside_one_to_max_batch_is_refused),
	cmocka_unit_test(test_lines_of_one_step_sum_the_gradient_in_the_cores_chunks),
	cmocka_unit_test(test_a_conv_backward_of_no_lines_leaves_the_gradient),
	cmocka_unit_test(test_flatten_gathers_its_sequence_and_scatters_zeros_at_absent_cells),
	cmocka_unit_test(test_the_kernel_family_mixes_along_time_as_the_core_does),
	cmocka_unit_test(test_one_step_recurrences_leave_du_and_the_forget_gate_alone),
	cmocka_unit_test(test_a_pool_carves_the_pieces_it_counted),
	cmocka_unit_test(test_a_pool_whose_size_wraps_yields_nothing),
	cmocka_unit_test(test_a_carved_piece_is_followed_by_a_poisoned_red_zone),
};
TD_TEST_GROUP(xmodel, tests);
