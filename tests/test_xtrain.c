/*
 * test_xtrain.c - training steps on an executor (core/xtrain.c, and
 * core/train.c's path through it) against the core's CPU run.
 *
 * On the host executor a run goes through the GPU's code path: the model
 * on executor buffers (xmodel.c), the batch uploaded, the loss and AdamW
 * as executor operations, the loss sums and the firewall's skips left on
 * the executor and read at log points, evaluations and checkpoints. Its
 * run directory must equal the CPU run's byte for byte: log.jsonl (every
 * loss, rate, norm, evaluation, counter and the final weights' hash),
 * checkpoint.bin (weights, moments, steps), the manifests and config.txt.
 *
 * The negative control: the same path with the norm taken in parts of 64
 * (as the GPU takes it, in parts) rounds the norm otherwise; here that
 * changes the logged norm's last bit and no weight, and the comparison
 * must see it.
 *
 * Edits that make them fail (each tried by hand): a batch's mean divided
 * by the batch twice, or its evaluation sum not multiplied back
 * (td_op_xent_sums); td_xtrain_read not counting the skips; the firewall
 * told every step was applied (the firewall test); the window's sum not
 * zeroed at a log point; td_xtrain_load not uploading the moments (the
 * resume test); an upload's, a wait's or a layer's failure swallowed (the
 * failure test: each executor call failed in turn; the GRU's shift_prev
 * and the LSTM's lstm_step_back swallowed); the GRU's z without its bias
 * b_z, the LSTM's biases added one after the other rather than b + c,
 * the blocks' parts added last block first (each of gru-blocks and
 * lstm-blocks), calls of half block.c's chunk (the bitwise test:
 * synth-time at batch 24 takes calls of 256 and 128 lines, 4 and 2
 * blocks).
 */
#include "tdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../core/config.h"
#include "../core/exec.h"
#include "../core/plan.h"
#include "../core/train.h"
#include "../core/xtrain.h"
#include "../kernels/ops.h"
#include "fixture.h"

static int quiet_failures; /* 1: run() does not print a failure (the test that makes them) */

/* A run of the tiny synthetic task with sets (NULL-terminated "key=value"), into dir. */
static int run(const char *dir, const char *const *sets, const td_exec *x, int64_t stop_after,
	       const char *resume)
{
	const char *all[32] = {"dataset=synth-row", "width=8", "layers=4", "steps=30",
			       "warmup=5", "batch=8", "log_every=10", "eval_every=20",
			       "eval_batches=2", "clip=0.05"};
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_train_opts o = TD_TRAIN_OPTS_INIT;
	td_config *cfg = NULL;
	size_t n = 10;
	int err;

	for (; sets && *sets && n < 32; sets++) { /* a set replaces the base's value of its key */
		size_t i = 0, key = strcspn(*sets, "=") + 1;

		while (i < n && strncmp(all[i], *sets, key))
			i++;
		all[i] = *sets;
		n += i == n;
	}
	spec.overrides = all, spec.n_overrides = n;
	if ((err = td_config_new(&cfg, &spec))) {
		print_message("%s: %s\n", dir, td_error_last());
		return err;
	}
	o.out_dir = dir, o.quiet = 1, o.exec = x, o.stop_after = stop_after, o.resume = resume;
	err = td_train(cfg, &o);
	if (err && !quiet_failures)
		print_message("%s: %s\n", dir, td_error_last());
	td_config_free(cfg);
	return err;
}

/* 0 when every file of the run directories a and b holds the same bytes. */
static int differ(const char *a, const char *b)
{
	static const char *const files[] = {"log.jsonl", "checkpoint.bin", "train.jsonl",
					    "eval.jsonl", "config.txt"};
	int count = 0;

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char pa[256], pb[256], *da = NULL, *db = NULL;
		size_t na = 0, nb = 0;

		snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
		snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
		assert_int_equal(td_file_read(pa, &da, &na), 0);
		assert_int_equal(td_file_read(pb, &db, &nb), 0);
		if (na != nb || memcmp(da, db, na)) {
			print_message("%s differs between %s and %s\n", files[i], a, b);
			count++;
		}
		free(da), free(db);
	}
	return count;
}

/* 0 when the files a and b hold the same bytes. */
static int file_differs(const char *a, const char *b)
{
	char *da = NULL, *db = NULL;
	size_t na = 0, nb = 0;
	int d;

	assert_int_equal(td_file_read(a, &da, &na), 0);
	assert_int_equal(td_file_read(b, &db, &nb), 0);
	d = na != nb || memcmp(da, db, na);
	free(da), free(db);
	return d;
}

/*
 * The CPU run and the host executor's of sets, compared: NAME/cpu/run and
 * NAME/host/run, each run from its own directory, so that the paths the
 * logs quote are the same.
 */
static int cpu_and_host_differ(const char *name, const char *const *sets)
{
	char a[64], b[64];

	snprintf(a, sizeof a, "%s/cpu/run", name), snprintf(b, sizeof b, "%s/host/run", name);
	assert_int_equal(td_mkdirs(a), 0);
	assert_int_equal(td_mkdirs(b), 0);
	assert_int_equal(chdir(name), 0);
	assert_int_equal(chdir("cpu"), 0);
	assert_int_equal(run("run", sets, NULL, 0, NULL), 0);
	assert_int_equal(chdir("../host"), 0);
	assert_int_equal(run("run", sets, td_exec_host(), 0, NULL), 0);
	assert_int_equal(chdir("../.."), 0);
	return differ(a, b);
}

static void test_the_host_executor_trains_the_cpu_run_bit_for_bit(void **state)
{
	const char *conv[] = {"mixer=conv", NULL};
	const char *lru[] = {"mixer=lru", "ffn=6", "head=per_cell", NULL};
	const char *clru[] = {"mixer=clru", NULL};
	const char *gru[] = {"mixer=gru", "dataset=synth-absent", "ffn=4", NULL};
	const char *gru_blocks[] = {"mixer=gru", "dataset=synth-time", "batch=24", NULL};
	const char *lstm[] = {"mixer=lstm", "dataset=synth-absent", "ffn=4", NULL};
	const char *lstm_blocks[] = {"mixer=lstm", "dataset=synth-time", "batch=24",
				     "head=per_cell", NULL};
	const char *absent[] = {"dataset=synth-absent", "mixer=conv", "ffn=4", NULL};
	const char *flatten[] = {"composition=flatten", "mixer=lru", "bidirectional=false", NULL};
	const char *att[] = {"mixer=attention", "dataset=synth-absent", "ffn=4", NULL};
	const char *att_blocks[] = {"mixer=attention", "dataset=synth-time", "batch=24",
				    "head=per_cell", NULL};

	(void)state;
	assert_int_equal(cpu_and_host_differ("conv", conv), 0);
	assert_int_equal(cpu_and_host_differ("lru", lru), 0);
	assert_int_equal(cpu_and_host_differ("clru", clru), 0);
	assert_int_equal(cpu_and_host_differ("gru", gru), 0);
	assert_int_equal(cpu_and_host_differ("gru-blocks", gru_blocks), 0);
	assert_int_equal(cpu_and_host_differ("lstm", lstm), 0);
	assert_int_equal(cpu_and_host_differ("lstm-blocks", lstm_blocks), 0);
	assert_int_equal(cpu_and_host_differ("absent", absent), 0);
	assert_int_equal(cpu_and_host_differ("flatten", flatten), 0);
	assert_int_equal(cpu_and_host_differ("attention", att), 0);
	assert_int_equal(cpu_and_host_differ("attention-blocks", att_blocks), 0);
}

/* Skipped steps: counted with their reasons, in the firewall's windows, as the CPU counts them. */
static void test_skipped_steps_are_counted_as_the_cpu_counts_them(void **state)
{
	const char *every3[] = {"mixer=conv", "inject_nonfinite_every=3", NULL};
	const char *log;

	(void)state;
	assert_int_equal(cpu_and_host_differ("skips", every3), 0);
	log = fx_slurp("skips/host/run/log.jsonl");
	assert_non_null(strstr(log, "\"nan_step_skipped\":{\"count\":10,"));
}

/* Every step skipped: the firewall stops the run at the same window, saying the same. */
static void test_the_firewall_stops_a_run_with_no_finite_step_as_on_the_cpu(void **state)
{
	const char *every1[] = {"mixer=conv", "inject_nonfinite_every=1", NULL};
	char why[512];

	(void)state;
	TD_ASSERT_REFUSED(run("dead-cpu", every1, NULL, 0, NULL), TD_ESTATE, "steps 11-20");
	snprintf(why, sizeof why, "%s", td_error_last());
	TD_ASSERT_REFUSED(run("dead-host", every1, td_exec_host(), 0, NULL), TD_ESTATE,
			  "steps 11-20");
	assert_string_equal(why, td_error_last());
}

/*
 * Runs of mixer in NAME/whole (the CPU, uninterrupted), NAME/split (the
 * host executor, stopped at step 20 and resumed on it) and NAME/cross
 * (stopped on it at 10, resumed on the CPU): 0 when the three end with
 * the same checkpoint.
 */
static int resumed_runs_differ(const char *mixer)
{
	char mset[32], whole[64], split[64], cross[64], ck[96];
	const char *sets[] = {mset, "checkpoint_every=10", NULL};

	snprintf(mset, sizeof mset, "mixer=%s", mixer);
	snprintf(whole, sizeof whole, "%s/whole", mixer);
	snprintf(split, sizeof split, "%s/split", mixer);
	snprintf(cross, sizeof cross, "%s/cross", mixer);
	assert_int_equal(run(whole, sets, NULL, 0, NULL), 0);
	assert_int_equal(run(split, sets, td_exec_host(), 20, NULL), 0);
	snprintf(ck, sizeof ck, "%s/checkpoint.bin", split);
	assert_int_equal(run(split, sets, td_exec_host(), 0, ck), 0);
	assert_int_equal(run(cross, sets, td_exec_host(), 10, NULL), 0);
	snprintf(ck, sizeof ck, "%s/checkpoint.bin", cross);
	assert_int_equal(run(cross, sets, NULL, 0, ck), 0);
	/* the resumed runs' logs hold only their own part; their checkpoints hold everything */
	snprintf(ck, sizeof ck, "%s/checkpoint.bin", whole);
	return file_differs(ck, strcat(split, "/checkpoint.bin")) +
	       file_differs(ck, strcat(cross, "/checkpoint.bin"));
}

static void test_a_run_resumed_on_the_executor_equals_the_whole_cpu_run(void **state)
{
	(void)state;
	assert_int_equal(resumed_runs_differ("conv"), 0);
	assert_int_equal(resumed_runs_differ("gru"), 0);
	assert_int_equal(resumed_runs_differ("lstm"), 0);
	assert_int_equal(resumed_runs_differ("attention"), 0);
}

/* The host executor, counting its optimizer steps and noting at which count each download came. */
static int steps_taken, n_downloads, download_at[64];

static int counting_opt_step(const td_exec *x, struct td_op_opt_state *st, td_real *p,
			     td_real *m, td_real *v, const td_real *g, size_t n, double *part,
			     size_t *bad, double lr, double clip, double weight_decay,
			     const double *bc1, const double *bc2)
{
	steps_taken++;
	return td_exec_host()->opt_step(x, st, p, m, v, g, n, part, bad, lr, clip, weight_decay,
					bc1, bc2);
}

static int counting_download(const td_exec *x, void *dst, const void *src, size_t bytes)
{
	if (n_downloads < 64)
		download_at[n_downloads] = steps_taken;
	n_downloads++;
	return td_exec_host()->download(x, dst, src, bytes);
}

/*
 * The host reads the executor only at log points (steps 10, 20, 30),
 * evaluations (20, and the final one) and checkpoints (the last): no
 * step downloads anything, the loss and the firewall's counts included.
 */
static void test_no_step_reads_the_executor_between_log_points(void **state)
{
	const char *conv[] = {"mixer=conv", "inject_nonfinite_every=4", NULL};
	td_exec counting = *td_exec_host();

	(void)state;
	counting.opt_step = counting_opt_step, counting.download = counting_download;
	steps_taken = n_downloads = 0;
	assert_int_equal(run("counted", conv, &counting, 0, NULL), 0);
	assert_int_equal(steps_taken, 30);
	assert_in_range(n_downloads, 3, 64);
	for (int i = 0; i < n_downloads; i++)
		assert_true(download_at[i] % 10 == 0 && download_at[i] > 0);
}

/* The host executor, counting its allocations of either kind and the bytes of the last. */
static int n_allocs, n_host_allocs;
static size_t alloc_bytes;

static int counting_alloc(const td_exec *x, void *out, size_t bytes)
{
	n_allocs++, alloc_bytes = bytes;
	return td_exec_host()->alloc(x, out, bytes);
}

static int counting_host_alloc(const td_exec *x, void *out, size_t bytes)
{
	n_host_allocs++;
	return td_exec_host()->host_alloc(x, out, bytes);
}

/*
 * A run's executor memory is one pool, allocated once when the model is
 * built: the model's parameters, gradients and activations, the batch,
 * the loss's and the optimizer's buffers; beside it only the two upload
 * stages in host memory. Nothing is allocated during the steps, the
 * evaluations or the checkpoints. LRU with the MLP, so that every kind of
 * buffer is there; the run still equals the CPU's.
 */
static void test_a_run_takes_its_executor_memory_in_one_allocation(void **state)
{
	const char *lru[] = {"mixer=lru", "ffn=2", "dataset=synth-absent", NULL};
	td_exec counting = *td_exec_host();

	(void)state;
	counting.alloc = counting_alloc, counting.host_alloc = counting_host_alloc;
	n_allocs = n_host_allocs = 0;
	assert_int_equal(run("counted", lru, &counting, 0, NULL), 0);
	assert_int_equal(n_allocs, 1);
	assert_int_equal(n_host_allocs, 2);
	assert_true(alloc_bytes > 2 * 8 * 64 * sizeof(td_real)); /* at least x and y of a batch */
	assert_int_equal(run("cpu", lru, NULL, 0, NULL), 0);
	assert_int_equal(differ("cpu", "counted"), 0);
}

/* The negative control: the norm in parts is another rounding, and the comparison sees it. */
static void test_the_comparison_sees_a_norm_taken_in_parts(void **state)
{
	const char *conv[] = {"mixer=conv", NULL};
	td_exec parts = *td_exec_host();

	(void)state;
	parts.norm_part = 64;
	assert_int_equal(run("plain", conv, NULL, 0, NULL), 0);
	assert_int_equal(run("parts", conv, &parts, 0, NULL), 0);
	assert_true(differ("plain", "parts") > 0);
}

/*
 * The host executor whose call number calls_left fails (counted down from
 * it over every operation but the releases; 0: none fails), as a GPU's
 * would: an allocation, a copy or a launch refused with the runtime's
 * reason.
 */
static int calls_left;

static int fail_now(void)
{
	return calls_left > 0 && --calls_left == 0;
}

#define FAILING(name, params, args)                                                         \
	static int failing_##name params                                                    \
	{                                                                                   \
		if (fail_now())                                                             \
			return TD_FAIL(TD_EIO, "injected: %s failed", #name);             \
		return td_exec_host()->name args;                                           \
	}

static int failing_alloc(const td_exec *x, void *out, size_t bytes)
{
	if (fail_now()) {
		*(void **)out = NULL;
		return TD_FAIL(TD_EIO, "injected: alloc failed");
	}
	return td_exec_host()->alloc(x, out, bytes);
}

static int failing_host_alloc(const td_exec *x, void *out, size_t bytes)
{
	if (fail_now()) {
		*(void **)out = NULL;
		return TD_FAIL(TD_EIO, "injected: host_alloc failed");
	}
	return td_exec_host()->host_alloc(x, out, bytes);
}

FAILING(mark, (const td_exec *x, int k), (x, k))
FAILING(wait_mark, (const td_exec *x, int k), (x, k))
FAILING(upload, (const td_exec *x, void *d, const void *s, size_t n), (x, d, s, n))
FAILING(download, (const td_exec *x, void *d, const void *s, size_t n), (x, d, s, n))
FAILING(zero, (const td_exec *x, void *p, size_t n), (x, p, n))
FAILING(gemm,
	(const td_exec *x, td_real *c, size_t ldc, const td_real *a, size_t lda, const td_real *b,
	 size_t ldb, size_t m, size_t n, size_t k, int ta, int tb, td_real alpha, td_real beta),
	(x, c, ldc, a, lda, b, ldb, m, n, k, ta, tb, alpha, beta))
FAILING(select,
	(const td_exec *x, td_real *d, const td_real *a, const td_real *b, const uint8_t *mask,
	 const uint8_t *emask, size_t n_cells, size_t rows, size_t channels),
	(x, d, a, b, mask, emask, n_cells, rows, channels))
FAILING(bias_add, (const td_exec *x, td_real *o, const td_real *b, size_t r, size_t n),
	(x, o, b, r, n))
FAILING(relu, (const td_exec *x, td_real *a, const td_real *p, size_t n), (x, a, p, n))
FAILING(relu_backward, (const td_exec *x, td_real *d, const td_real *p, size_t n), (x, d, p, n))
FAILING(bias_grad, (const td_exec *x, td_real *g, const td_real *d, size_t r, size_t n),
	(x, g, d, r, n))
FAILING(fold,
	(const td_exec *x, td_real *d, const td_real *s, const size_t *map, const uint8_t *mask,
	 const uint8_t *emask, size_t batch, size_t n_cells, size_t channels, int unfold),
	(x, d, s, map, mask, emask, batch, n_cells, channels, unfold))
FAILING(conv_forward,
	(const td_exec *x, td_real *y, const td_real *in, const td_real *w, size_t lines,
	 const struct td_op_conv *s),
	(x, y, in, w, lines, s))
FAILING(conv_backward,
	(const td_exec *x, td_real *dx, td_real *g, const td_real *dy, const td_real *in,
	 const td_real *w, size_t lines, size_t chunk, const struct td_op_conv *s),
	(x, dx, g, dy, in, w, lines, chunk, s))
FAILING(lru_scan,
	(const td_exec *x, td_real *h, const td_real *a, size_t lines, size_t length, size_t n,
	 int reverse, int adjoint),
	(x, h, a, lines, length, n, reverse, adjoint))
FAILING(shift_prev,
	(const td_exec *x, td_real *p, const td_real *s, size_t lines, size_t length, size_t width,
	 int reverse),
	(x, p, s, lines, length, width, reverse))
FAILING(gru_step,
	(const td_exec *x, td_real *g, td_real *hs, const td_real *gh, const td_real *b,
	 const td_real *c, size_t lines, size_t length, size_t h, size_t q, int reverse),
	(x, g, hs, gh, b, c, lines, length, h, q, reverse))
FAILING(gru_step_back,
	(const td_exec *x, td_real *dgx, td_real *dgh, td_real *carry, const td_real *g,
	 const td_real *dy, const td_real *hp, size_t lines, size_t length, size_t h, size_t q,
	 int reverse),
	(x, dgx, dgh, carry, g, dy, hp, lines, length, h, q, reverse))
FAILING(lstm_step,
	(const td_exec *x, td_real *g, td_real *ss, td_real *ts, td_real *hs, const td_real *gh,
	 const td_real *b, const td_real *c, size_t lines, size_t length, size_t h, size_t q,
	 int reverse),
	(x, g, ss, ts, hs, gh, b, c, lines, length, h, q, reverse))
FAILING(lstm_step_back,
	(const td_exec *x, td_real *dg, const td_real *dh, td_real *ds, const td_real *g,
	 const td_real *ts, const td_real *sp, const td_real *dy, size_t lines, size_t length,
	 size_t h, size_t q, int reverse),
	(x, dg, dh, ds, g, ts, sp, dy, lines, length, h, q, reverse))
FAILING(add_parts,
	(const td_exec *x, td_real *grad, const td_real *parts, size_t n, size_t stride,
	 size_t count),
	(x, grad, parts, n, stride, count))
FAILING(copy, (const td_exec *x, void *d, const void *s, size_t n), (x, d, s, n))
FAILING(products,
	(const td_exec *x, td_real *o, size_t ors, size_t oss, const td_real *p, size_t prs,
	 size_t pts, const td_real *q, size_t qrs, size_t qts, size_t nr, size_t ns, size_t nt,
	 const td_real *diag, int mode),
	(x, o, ors, oss, p, prs, pts, q, qrs, qts, nr, ns, nt, diag, mode))
FAILING(gemm_batched,
	(const td_exec *x, td_real *c, size_t ldc, size_t sc, const td_real *a, size_t lda,
	 size_t sa, const td_real *b, size_t ldb, size_t sb, size_t m, size_t n, size_t k,
	 size_t count, int ta, int tb, td_real alpha, td_real beta),
	(x, c, ldc, sc, a, lda, sa, b, ldb, sb, m, n, k, count, ta, tb, alpha, beta))
FAILING(diag_add, (const td_exec *x, td_real *g, const td_real *dm, size_t c), (x, g, dm, c))
FAILING(gather,
	(const td_exec *x, td_real *d, const td_real *s, const size_t *map, size_t batch,
	 size_t n_from, size_t n_to, size_t channels),
	(x, d, s, map, batch, n_from, n_to, channels))
FAILING(kernel_masses,
	(const td_exec *x, td_real *den, td_real *deg, const td_real *k, const uint8_t *mask,
	 size_t n_cells, size_t n, size_t inner, double cancel),
	(x, den, deg, k, mask, n_cells, n, inner, cancel))
FAILING(kernel_renorm,
	(const td_exec *x, td_real *o, const td_real *den, const td_real *deg,
	 const uint8_t *mask, size_t rows, size_t n_cells, size_t c),
	(x, o, den, deg, mask, rows, n_cells, c))
FAILING(kernel_rows,
	(const td_exec *x, td_real *r, td_real *q, const td_real *g, const td_real *o,
	 const td_real *den, const td_real *deg, size_t rows, size_t n_cells, size_t c),
	(x, r, q, g, o, den, deg, rows, n_cells, c))
FAILING(kernel_dk,
	(const td_exec *x, td_real *dk, const td_real *sk, const td_real *q, const uint8_t *mask,
	 size_t blocks, size_t outer, size_t n, size_t inner, size_t n_cells),
	(x, dk, sk, q, mask, blocks, outer, n, inner, n_cells))
FAILING(attend,
	(const td_exec *x, td_real *att, td_real *ctx, const td_real *qkv, size_t lines,
	 const struct td_op_attn *a),
	(x, att, ctx, qkv, lines, a))
FAILING(attend_backward,
	(const td_exec *x, td_real *dqkv, td_real *ds, const td_real *att, const td_real *qkv,
	 const td_real *dctx, size_t lines, const struct td_op_attn *a),
	(x, dqkv, ds, att, qkv, dctx, lines, a))
FAILING(xent,
	(const td_exec *x, td_real *dy, double *acc, double *loss, int *best, uint8_t *present,
	 const td_real *y, const int *labels, const uint8_t *mask, const uint8_t *emask,
	 size_t batch, size_t n_cells, size_t k),
	(x, dy, acc, loss, best, present, y, labels, mask, emask, batch, n_cells, k))
FAILING(opt_step,
	(const td_exec *x, struct td_op_opt_state *st, td_real *p, td_real *m, td_real *v,
	 const td_real *g, size_t n, double *part, size_t *bad, double lr, double clip,
	 double weight_decay, const double *bc1, const double *bc2),
	(x, st, p, m, v, g, n, part, bad, lr, clip, weight_decay, bc1, bc2))

/*
 * Every executor call of a run, failed in turn (a run per call, until a
 * run makes fewer calls than the one to fail): the run stops with that
 * failure, code and reason, whatever the call (building, uploading a
 * batch, a layer, the loss, the optimizer, a read at a log point, an
 * evaluation or a checkpoint); none is swallowed, and (under ASan) none
 * leaks or touches freed memory. Conv with the MLP and a head per cell,
 * the LRU with absent cells and skipped steps, the GRU, the LSTM and
 * attention, a flatten model, and a kernel model (its contractions, and
 * the LRU's map on lines of one step).
 */
static void test_an_executor_failure_anywhere_stops_the_run_with_its_reason(void **state)
{
	const char *conv[] = {"mixer=conv", "width=4", "layers=2", "bidirectional=false",
			      "steps=3", "warmup=1", "batch=2", "log_every=2", "eval_every=2",
			      "eval_batches=1", "checkpoint_every=2", "ffn=2", "head=per_cell",
			      NULL};
	const char *lru[] = {"mixer=lru", "dataset=synth-absent", "width=4", "layers=2",
			     "bidirectional=false", "steps=3", "warmup=1", "batch=2",
			     "log_every=2", "eval_every=2", "eval_batches=1",
			     "inject_nonfinite_every=2", NULL};
	const char *gru[] = {"mixer=gru", "width=4", "layers=2", "bidirectional=false", "steps=2",
			     "warmup=1", "batch=2", "log_every=2", "eval_every=2",
			     "eval_batches=1", NULL};
	const char *lstm[] = {"mixer=lstm", "dataset=synth-absent", "width=4", "layers=2",
			      "bidirectional=false", "steps=2", "warmup=1", "batch=2",
			      "log_every=2", "eval_every=2", "eval_batches=1", "ffn=2", NULL};
	const char *flat[] = {"composition=flatten", "mixer=conv", "width=4", "layers=2",
			      "bidirectional=false", "steps=2", "warmup=1", "batch=2",
			      "log_every=2", "eval_every=2", "eval_batches=1", NULL};
	const char *kern[] = {"composition=axial_kernel", "mixer=lru", "width=4", "layers=2",
			      "bidirectional=false", "steps=2", "warmup=1", "batch=2",
			      "log_every=2", "eval_every=2", "eval_batches=1", NULL};
	const char *att[] = {"mixer=attention", "width=4", "layers=2", "bidirectional=false",
			     "steps=2", "warmup=1", "batch=2", "log_every=2", "eval_every=2",
			     "eval_batches=1", NULL};
	const char *const *cases[] = {conv, lru, gru, lstm, flat, kern, att};
	td_exec failing = *td_exec_host();

	(void)state;
	failing.alloc = failing_alloc, failing.host_alloc = failing_host_alloc;
	failing.mark = failing_mark, failing.wait_mark = failing_wait_mark;
	failing.upload = failing_upload, failing.download = failing_download;
	failing.zero = failing_zero, failing.gemm = failing_gemm, failing.select = failing_select;
	failing.bias_add = failing_bias_add, failing.relu = failing_relu;
	failing.relu_backward = failing_relu_backward, failing.bias_grad = failing_bias_grad;
	failing.fold = failing_fold, failing.conv_forward = failing_conv_forward;
	failing.conv_backward = failing_conv_backward, failing.lru_scan = failing_lru_scan;
	failing.xent = failing_xent, failing.opt_step = failing_opt_step;
	failing.shift_prev = failing_shift_prev, failing.gru_step = failing_gru_step;
	failing.gru_step_back = failing_gru_step_back, failing.add_parts = failing_add_parts;
	failing.lstm_step = failing_lstm_step, failing.lstm_step_back = failing_lstm_step_back;
	failing.copy = failing_copy;
	failing.products = failing_products, failing.diag_add = failing_diag_add;
	failing.gather = failing_gather, failing.kernel_masses = failing_kernel_masses;
	failing.kernel_renorm = failing_kernel_renorm, failing.kernel_rows = failing_kernel_rows;
	failing.kernel_dk = failing_kernel_dk, failing.gemm_batched = failing_gemm_batched;
	failing.attend = failing_attend, failing.attend_backward = failing_attend_backward;
	quiet_failures = 1;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		int n = 1;

		for (;; n++) {
			int err;

			calls_left = n;
			err = run("failing", cases[c], &failing, 0, NULL);
			if (calls_left > 0) { /* fewer calls than n: every one has failed once */
				assert_int_equal(err, 0);
				break;
			}
			if (err != TD_EIO || !strstr(td_error_last(), "injected: "))
				fail_msg("call %d: %d, %s", n, err, td_error_last());
		}
		print_message("  %s: %d executor calls, each failed in turn\n", cases[c][0], n - 1);
	}
	quiet_failures = 0;
}

/*
 * An optimizer step's scratch holds one norm part and one bad index per
 * part, ceil(n / norm_part) or 1 where norm_part is 0, as td_xtrain_new
 * allocates it: the host's step writes no further. n = 128 in parts of
 * 0 (one), 64 (two, an exact multiple) and 50 (three, the last short);
 * the value past the last part must stay. Seen failing with
 * host_opt_step's parts loop as i0 <= n (an empty part past the last).
 */
static void test_the_optimizer_step_writes_no_part_past_its_parts(void **state)
{
	static const size_t parts_of[] = {0, 64, 50}, n_parts[] = {1, 2, 3};
	static const double bc[] = {0, 0.1, 0.19};
	td_real p[128], m[128] = {0}, v[128] = {0}, g[128];

	(void)state;
	for (size_t c = 0; c < 3; c++) {
		td_exec x = *td_exec_host();
		td_op_opt_state st;
		double part[4] = {-1, -1, -1, -1};
		size_t bad[4] = {7, 7, 7, 7};
		int err;

		for (size_t i = 0; i < 128; i++)
			p[i] = (td_real)i / 128, g[i] = (td_real)(64 - (double)i) / 256;
		memset(&st, 0, sizeof st);
		x.norm_part = parts_of[c];
		err = x.opt_step(&x, &st, p, m, v, g, 128, part, bad, 1e-3, 1, 0.01, bc, bc);
		assert_int_equal(err, 0);
		assert_true(st.applied);
		if (part[n_parts[c]] != -1 || bad[n_parts[c]] != 7)
			fail_msg("norm_part %zu: a part written past the %zu", parts_of[c],
				 n_parts[c]);
	}
}

/* td_train_opts.fmnist_dir is where Fashion-MNIST is read: a directory without it is named. */
static void test_fashion_mnist_is_read_from_the_directory_given(void **state)
{
	const char *sets[] = {"dataset=fashion-mnist", "steps=2", "warmup=1"};
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_train_opts o = TD_TRAIN_OPTS_INIT;
	td_config *cfg = NULL;

	(void)state;
	spec.overrides = sets, spec.n_overrides = 3;
	assert_int_equal(td_config_new(&cfg, &spec), 0);
	o.out_dir = "r", o.quiet = 1, o.fmnist_dir = "no-fashion-here";
	assert_true(td_train(cfg, &o) < 0);
	assert_non_null(strstr(td_error_last(), "no-fashion-here/train-images-idx3-ubyte.gz"));
	td_config_free(cfg);
}

/* ---- td_xtrain itself, on the host executor --------------------------------- */

/*
 * A conv model over 8 x 8 cells with classes outputs, AdamW over steps
 * steps with warmup, and the steps on the host executor.
 */
typedef struct {
	td_lattice *lat;
	td_plan *plan;
	td_model *m;
	td_adamw *opt;
	td_adamw_opts ao;
	td_counters *c;
	td_firewall fw;
	td_xtrain *xt;
	td_real x[4 * 64];
	int labels[4];
} steps_on_host;

static int steps_new(steps_on_host *s, size_t classes, int64_t steps, int64_t warmup)
{
	static const size_t shape[] = {8, 8};
	static const char *const hw[] = {"h", "w"};
	td_lattice_spec ls = TD_LATTICE_SPEC_INIT;
	td_model_opts o = TD_MODEL_OPTS_INIT;

	memset(s, 0, sizeof *s);
	ls.rank = 2, ls.shape = shape, ls.names = hw;
	o.mixer.kind = TD_MIXER_CONV, o.width = 4, o.out = classes, o.max_batch = 4;
	s->ao = (td_adamw_opts)TD_ADAMW_OPTS_INIT;
	s->ao.total_steps = steps, s->ao.warmup = warmup;
	for (int i = 0; i < 4 * 64; i++)
		s->x[i] = (td_real)((i * 37 % 101) / 50.0 - 1);
	for (int i = 0; i < 4; i++)
		s->labels[i] = i % 2;
	assert_int_equal(td_lattice_new(&s->lat, &ls), 0);
	assert_int_equal(td_plan_cyclic(&s->plan, hw, 2, 2, hw, 0), 0);
	o.plan = s->plan;
	assert_int_equal(td_model_new(&s->m, s->lat, &o), 0);
	td_model_init(s->m, 3);
	assert_int_equal(td_adamw_new(&s->opt, td_model_n_params(s->m), &s->ao), 0);
	assert_int_equal(td_counters_new(&s->c, 8), 0);
	return td_xtrain_new(&s->xt, td_exec_host(), s->m, &s->ao, s->opt, 0);
}

static void steps_free(steps_on_host *s)
{
	td_xtrain_free(s->xt), td_counters_free(s->c), td_adamw_free(s->opt);
	td_model_free(s->m), td_plan_free(s->plan), td_lattice_free(s->lat);
}

static void test_the_executor_steps_refuse_what_they_cannot_take(void **state)
{
	steps_on_host s;

	(void)state;
	assert_int_equal(steps_new(&s, 64, 2, 1), 0); /* the loss takes 64 classes */
	TD_ASSERT_REFUSED(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 0, 1), TD_EINVAL,
			  "batch 0 is outside 1..4");
	TD_ASSERT_REFUSED(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 5, 0), TD_EINVAL,
			  "batch 5 is outside 1..4");
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 1), 0);
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 1, 1), 0);
	TD_ASSERT_REFUSED(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 1), TD_ESTATE,
			  "step 3 is past the schedule's 2 steps");
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 0), 0); /* evaluation */
	steps_free(&s);
	TD_ASSERT_REFUSED(steps_new(&s, 65, 2, 1), TD_EINVAL, "65 classes; the loss takes at most 64");
	assert_null(s.xt);
	steps_free(&s);
}

/*
 * What a read returns: nothing before the first step (rate 0); then the
 * training sums of two batches (the means, the means times 4, the correct
 * ones), the evaluation's apart; the firewall told of one skipped and one
 * applied step; and a load zeroes the sums.
 */
static void test_a_read_returns_each_sum_where_it_belongs(void **state)
{
	steps_on_host s;
	td_xtrain_read_out r;
	td_real nan_x[4 * 64];

	(void)state;
	assert_int_equal(steps_new(&s, 2, 10, 0), 0); /* no warm-up: the first rate is the peak */
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_true(r.steps == 0 && r.lr == 0 && r.train.mean_sum == 0 && r.eval.loss_sum == 0);
	memcpy(nan_x, s.x, sizeof nan_x);
	nan_x[5] = (td_real)NAN;
	assert_int_equal(td_xtrain_batch(s.xt, nan_x, NULL, s.labels, 4, 1), 0);
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_true(r.steps == 1 && r.lr == td_adamw_lr(&s.ao, 0) && isnan(r.grad_norm));
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 1), 0);
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_int_equal(r.steps, 2);
	assert_true(r.lr == td_adamw_lr(&s.ao, 1));
	assert_true(s.fw.steps == 2 && s.fw.finite == 1 && s.fw.first == 1);
	assert_int_equal(td_counter_get(s.c, "nan_step_skipped"), 1);
	assert_true(isnan(r.train.mean_sum)); /* the NaN batch's loss is in the window */
	assert_true(r.eval.mean_sum == 0 && r.eval.loss_sum == 0 && r.eval.correct == 0);
	assert_int_equal(td_xtrain_zero_sums(s.xt, 1), 0);
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 1), 0);
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 2, 0), 0);
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_true(r.train.mean_sum > 0 && r.train.loss_sum == r.train.mean_sum * 4);
	assert_true(r.train.correct >= 0 && r.train.correct <= 4);
	assert_true(r.train.correct == floor(r.train.correct));
	assert_true(r.eval.mean_sum > 0 && r.eval.loss_sum == r.eval.mean_sum * 2);
	assert_true(r.eval.correct >= 0 && r.eval.correct <= 2);
	assert_true(r.eval.correct == floor(r.eval.correct));
	assert_true(r.train.mean_sum != r.eval.mean_sum);
	assert_int_equal(td_xtrain_store(s.xt, s.m, s.opt), 0);
	assert_int_equal(td_adamw_steps(s.opt), 3);
	assert_int_equal(td_adamw_skipped(s.opt), 1);
	assert_int_equal(td_xtrain_load(s.xt, s.m, s.opt), 0);
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_true(r.steps == 3 && r.train.mean_sum == 0 && r.eval.mean_sum == 0);
	steps_free(&s);
}

/* More skips between two reads than the executor describes: every one is counted. */
static void test_every_skip_is_counted_past_the_ones_described(void **state)
{
	steps_on_host s;
	td_xtrain_read_out r;
	td_json_buf j = TD_JSON_BUF_INIT;

	(void)state;
	assert_int_equal(steps_new(&s, 2, 30, 1), 0);
	s.x[0] = (td_real)NAN;
	for (int k = 0; k < 20; k++)
		assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 1), 0);
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_int_equal(td_counter_get(s.c, "nan_step_skipped"), 20);
	assert_true(s.fw.steps == 20 && s.fw.finite == 0);
	assert_int_equal(td_counters_json(&j, s.c), 0);
	/* 4 reasons kept, the 16 others distinct: each skip said once */
	assert_non_null(strstr(j.s, "\"why_more\":16"));
	assert_non_null(strstr(j.s, "\"gradient[0] was nan at step 1\""));
	td_json_buf_free(&j);
	s.x[0] = 0; /* read again: nothing new to count */
	assert_int_equal(td_xtrain_batch(s.xt, s.x, NULL, s.labels, 4, 1), 0);
	assert_int_equal(td_xtrain_read(s.xt, &r, s.c, &s.fw), 0);
	assert_int_equal(td_counter_get(s.c, "nan_step_skipped"), 20);
	steps_free(&s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_the_host_executor_trains_the_cpu_run_bit_for_bit),
	cmocka_unit_test(test_skipped_steps_are_counted_as_the_cpu_counts_them),
	cmocka_unit_test(test_the_firewall_stops_a_run_with_no_finite_step_as_on_the_cpu),
	cmocka_unit_test(test_a_run_resumed_on_the_executor_equals_the_whole_cpu_run),
	cmocka_unit_test(test_no_step_reads_the_executor_between_log_points),
	cmocka_unit_test(test_a_run_takes_its_executor_memory_in_one_allocation),
	cmocka_unit_test(test_the_comparison_sees_a_norm_taken_in_parts),
	cmocka_unit_test(test_the_optimizer_step_writes_no_part_past_its_parts),
	cmocka_unit_test(test_fashion_mnist_is_read_from_the_directory_given),
	cmocka_unit_test(test_an_executor_failure_anywhere_stops_the_run_with_its_reason),
	cmocka_unit_test(test_the_executor_steps_refuse_what_they_cannot_take),
	cmocka_unit_test(test_a_read_returns_each_sum_where_it_belongs),
	cmocka_unit_test(test_every_skip_is_counted_past_the_ones_described),
};

TD_TEST_GROUP(xtrain, tests);
