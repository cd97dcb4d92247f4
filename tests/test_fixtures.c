/*
 * test_fixtures.c - the mixers against PyTorch.
 *
 * Independent reference: tests/fixtures/mixer-*.txt, written by
 * tests/fixtures/mixers.py from torch.nn.GRU, torch.nn.LSTM,
 * torch.nn.MultiheadAttention (causal through attn_mask), F.conv1d, a hand
 * loop for the LRU and one in torch's complex tensors for the complex LRU,
 * in float64, with autograd's gradients. Each file gives the parameters, x and
 * dy; the test runs our forward and backward and compares y, dx and every
 * parameter gradient. Tolerance: 1e-10 relative in the double build, 5e-5
 * in the float build (attention agrees to 1e-15 and 5e-7).
 *
 * What these tests guard: tdaudit mutate --list --file core/mixer_lstm.c
 *   and --list --file core/mixer_attention.c
 *   and --list --file core/mixer.c
 *   and --list --file core/mixer_clru.c
 *   and --list --file core/mixer_rnn.c
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/fileio.h"
#include "../core/mixer.h"

#ifdef TD_REAL_DOUBLE
#define TOL 1e-10
#else
#define TOL 5e-5
#endif

typedef struct {
	char *text, *at; /* the file, and the parse position */
	const char *path;
} reader;

static const char *word(reader *r)
{
	static char w[64];
	int n = 0;

	while (*r->at && (*r->at == ' ' || *r->at == '\n' || *r->at == '#')) {
		if (*r->at == '#') /* a comment runs to the end of its line */
			while (*r->at && *r->at != '\n')
				r->at++;
		else
			r->at++;
	}
	while (*r->at && *r->at != ' ' && *r->at != '\n' && n < 63)
		w[n++] = *r->at++;
	w[n] = '\0';
	return w;
}

static long number(reader *r)
{
	return strtol(word(r), NULL, 10);
}

static void expect(reader *r, const char *want)
{
	const char *got = word(r);

	if (strcmp(got, want))
		fail_msg("%s: expected '%s', found '%s'", r->path, want, got);
}

/* Reads n doubles into a fresh array. */
static double *doubles(reader *r, size_t n)
{
	double *v = malloc(n * sizeof *v);

	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = strtod(word(r), NULL);
	return v;
}

static void compare(const char *path, const char *what, const td_real *got, const double *want,
		    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(fabs((double)got[i] - want[i]) <= TOL * (1 + fabs(want[i]))))
			fail_msg("%s: %s[%zu] is %.17g, PyTorch says %.17g", path, what, i,
				 (double)got[i], want[i]);
}

static td_mixer *build(reader *r, size_t *lines, size_t *length)
{
	td_mixer_opts o = TD_MIXER_OPTS_INIT;
	const char *kind;
	td_mixer *m;

	expect(r, "mixer");
	kind = word(r);
	o.kind = !strcmp(kind, "lru")	      ? TD_MIXER_LRU
		 : !strcmp(kind, "clru")      ? TD_MIXER_CLRU
		 : !strcmp(kind, "conv")      ? TD_MIXER_CONV
		 : !strcmp(kind, "attention") ? TD_MIXER_ATTENTION
		 : !strcmp(kind, "lstm")      ? TD_MIXER_LSTM
		 : !strcmp(kind, "gru")	      ? TD_MIXER_GRU
					      : (td_mixer_kind)0;
	if (!o.kind)
		fail_msg("%s: mixer '%s' is not one this test knows", r->path, kind);
	expect(r, "reverse"), o.reverse = (int)number(r);
	expect(r, "lines"), *lines = (size_t)number(r);
	expect(r, "length"), *length = (size_t)number(r);
	expect(r, "channels"), o.channels = (size_t)number(r);
	expect(r, "state"), o.state = (size_t)number(r);
	expect(r, "kernel"), o.kernel_size = (size_t)number(r);
	expect(r, "dilation"), o.dilation = (size_t)number(r);
	expect(r, "heads"), o.heads = (size_t)number(r);
	expect(r, "causal"), o.causal = (int)number(r);
	if (!o.kernel_size)
		o.kernel_size = 1, o.dilation = 1;
	assert_int_equal(td_mixer_new(&m, &o), 0);
	return m;
}

/* Reads "param|grad NAME ROWS COLS values" for every tensor and checks the shape. */
static double *tensor_values(reader *r, const td_mixer *m, size_t i, const char *tag)
{
	const td_mixer_tensor *t = td_mixer_tensor_at(m, i);

	expect(r, tag);
	expect(r, t->name);
	if ((size_t)number(r) != t->rows || (size_t)number(r) != t->cols)
		fail_msg("%s: %s %s has another shape than ours", r->path, tag, t->name);
	return doubles(r, t->count);
}

static void check_file(const char *path)
{
	reader r = {NULL, NULL, path};
	size_t lines, length, n, ws_len;
	td_mixer *m;
	double *x, *dy, *y, *dx;
	td_real *rx, *rdy, *ry, *rdx, *ws;

	assert_int_equal(td_file_read(path, &r.text, NULL), 0);
	r.at = r.text;
	m = build(&r, &lines, &length);
	for (size_t i = 0; i < td_mixer_n_tensors(m); i++) {
		double *v = tensor_values(&r, m, i, "param");
		const td_mixer_tensor *t = td_mixer_tensor_at(m, i);

		for (size_t k = 0; k < t->count; k++)
			td_mixer_params(m)[t->offset + k] = (td_real)v[k];
		free(v);
	}
	n = lines * length * td_mixer_options(m)->channels;
	expect(&r, "x"), x = doubles(&r, n);
	expect(&r, "dy"), dy = doubles(&r, n);
	expect(&r, "y"), y = doubles(&r, n);
	expect(&r, "dx"), dx = doubles(&r, n);
	assert_int_equal(td_mixer_ws_size(&ws_len, m, lines, length), 0);
	rx = calloc(n, sizeof *rx), rdy = calloc(n, sizeof *rdy), ry = calloc(n, sizeof *ry);
	rdx = calloc(n, sizeof *rdx), ws = calloc(ws_len, sizeof *ws);
	for (size_t i = 0; i < n; i++)
		rx[i] = (td_real)x[i], rdy[i] = (td_real)dy[i];
	assert_int_equal(td_mixer_forward(m, ry, rx, lines, length, ws, ws_len), 0);
	compare(path, "y", ry, y, n);
	td_mixer_zero_grads(m);
	assert_int_equal(td_mixer_backward(m, rdx, rdy, lines, length, ws, ws_len), 0);
	compare(path, "dx", rdx, dx, n);
	for (size_t i = 0; i < td_mixer_n_tensors(m); i++) {
		const td_mixer_tensor *t = td_mixer_tensor_at(m, i);
		double *g = tensor_values(&r, m, i, "grad");

		compare(path, t->name, td_mixer_grads(m) + t->offset, g, t->count);
		free(g);
	}
	free(x), free(dy), free(y), free(dx);
	free(rx), free(rdy), free(ry), free(rdx), free(ws);
	free(r.text);
	td_mixer_free(m);
}

static void check_kind(const char *kind)
{
	char pat[4096];
	glob_t g;

	snprintf(pat, sizeof pat, "%s/tests/fixtures/mixer-%s*.txt", TD_SOURCE_DIR, kind);
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 2); /* forward and reverse */
	for (size_t i = 0; i < g.gl_pathc; i++)
		check_file(g.gl_pathv[i]);
	globfree(&g);
}

static void test_the_lru_matches_pytorch_forward_and_backward(void **state)
{
	(void)state;
	check_kind("lru");
}

static void test_the_conv_matches_pytorch_conv1d_forward_and_backward(void **state)
{
	(void)state;
	check_kind("conv");
}

static void test_the_gru_matches_torch_nn_gru_forward_and_backward(void **state)
{
	(void)state;
	check_kind("gru");
}

static void test_attention_matches_torch_nn_multiheadattention_forward_and_backward(void **state)
{
	(void)state;
	check_kind("attention"); /* causal and not, forward and reverse */
}

static void test_the_lstm_matches_torch_nn_lstm_forward_and_backward(void **state)
{
	(void)state;
	check_kind("lstm");
}

static void test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward(void **state)
{
	(void)state;
	check_kind("clru");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_lru_matches_pytorch_forward_and_backward),
	cmocka_unit_test(test_the_conv_matches_pytorch_conv1d_forward_and_backward),
	cmocka_unit_test(test_the_gru_matches_torch_nn_gru_forward_and_backward),
	cmocka_unit_test(test_attention_matches_torch_nn_multiheadattention_forward_and_backward),
	cmocka_unit_test(test_the_lstm_matches_torch_nn_lstm_forward_and_backward),
	cmocka_unit_test(test_the_complex_lru_matches_a_torch_complex_loop_forward_and_backward),
};
TD_TEST_GROUP(fixtures, tests);
