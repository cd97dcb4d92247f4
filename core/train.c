/*
 * train.c - the training loop (see train.h).
 *
 * Classification over a 2-D lattice: the model maps each cell to one
 * logit per class, the logits are averaged over the present cells, and the
 * loss is the softmax cross-entropy of that average.
 *
 * Must never: draw anything from a source other than (seed, stream,
 * index); let an evaluation depend on what ran before it; write the run's
 * files in place (config and checkpoints go through td_file_write_atomic);
 * accept a config key it would then ignore.
 */
#include "train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adamw.h"
#include "checkpoint.h"
#include "counters.h"
#include "device.h"
#include "../kernels/backend.h"
#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/hash.h"
#include "idx.h"
#include "jsonl.h"
#include "model.h"
#include "plan.h"
#include "rng.h"
#include "synth.h"
#include "xtrain.h"

typedef struct {
	const td_config *cfg;
	int64_t seed, steps, batch, warmup, eval_every, eval_batches, log_every, threads, ckpt_every;
	int64_t inject;		 /* inject_nonfinite_every: 0 off */
	int64_t width, layers, ffn;
	double lr, wd, b1, b2, eps, clip;
	const char *plan, *mixer, *composition, *dataset, *head, *device;
	int bidir;
	double absent;		 /* Fashion-MNIST: the fraction of pixels marked absent */
	int masked;		 /* 1: examples carry their own absent cells (emask) */
	int fmnist;              /* 1: Fashion-MNIST; 0: a synthetic family */
	td_synth_family family;
	td_synth_range train_range, eval_range; /* synthetic: checked apart, then read */
	td_fmnist *train_set, *test_set;
	size_t n_cells, n_classes;
	td_lattice *lat;
	td_model *model;
	td_adamw *opt;
	td_adamw_opts opt_opts;
	td_device dev;
	const td_exec *own_exec; /* the CUDA executor this trainer made, to free */
	td_xtrain *xt;		 /* the steps on an executor; NULL: the core's, on the CPU */
	td_firewall fw;
	const char *fmnist_dir;	 /* where Fashion-MNIST is read; NULL: TD_FMNIST_DIR */
	td_counters *ctr;
	td_real *x;   /* [batch][cell] inputs */
	uint8_t *emask; /* [batch][cell] 1 present, when masked */
	uint8_t *lmask; /* [cell] the lattice's mask */
	uint8_t *present; /* [cell] one example's present cells (scratch) */
	td_real *y;   /* [batch][cell][class] outputs */
	td_real *dy;  /* [batch][cell][class] */
	int *labels;  /* [batch] */
	/* The manifests: one JSON line per example read, {"id":...,"hash":...}:
	 * every training example, and the first evaluation's examples. */
	td_json_buf train_manifest, eval_manifest;
	uint64_t eval_content; /* the evaluation being scored: its examples' hashes folded */
	int evaluated;	/* 1 once an evaluation has run: eval_manifest is complete */
	td_json_buf shown; /* the counters as the last text line printed them */
} trainer;

/* ---- config ------------------------------------------------------------- */

static int read_ints(trainer *t)
{
	const char *keys[] = {"seed", "steps", "batch", "warmup", "eval_every", "eval_batches",
			      "log_every", "threads", "checkpoint_every", "width", "layers", "ffn",
			      "inject_nonfinite_every"};
	int64_t *dst[] = {&t->seed, &t->steps, &t->batch, &t->warmup, &t->eval_every,
			  &t->eval_batches, &t->log_every, &t->threads, &t->ckpt_every, &t->width,
			  &t->layers, &t->ffn, &t->inject};
	int err = 0;

	for (size_t i = 0; !err && i < sizeof keys / sizeof keys[0]; i++)
		err = td_config_int(dst[i], t->cfg, keys[i]);
	return err;
}

/* The float, string and boolean keys; the first failure's code passed up unchanged. */
static int read_others(trainer *t)
{
	const char *fkeys[] = {"lr", "weight_decay", "adam_beta1", "adam_beta2", "adam_eps", "clip",
			       "absent_fraction"};
	double *fdst[] = {&t->lr, &t->wd, &t->b1, &t->b2, &t->eps, &t->clip, &t->absent};
	const char *skeys[] = {"plan", "mixer", "composition", "head", "dataset", "device"};
	const char **sdst[] = {&t->plan, &t->mixer, &t->composition, &t->head, &t->dataset,
			       &t->device};
	int err = 0;

	for (size_t i = 0; !err && i < sizeof fkeys / sizeof fkeys[0]; i++)
		err = td_config_float(fdst[i], t->cfg, fkeys[i]);
	for (size_t i = 0; !err && i < sizeof skeys / sizeof skeys[0]; i++)
		err = td_config_string(sdst[i], t->cfg, skeys[i]);
	return err ? err : td_config_bool(&t->bidir, t->cfg, "bidirectional");
}

static int read_config(trainer *t)
{
	int err = read_ints(t);

	if (!err)
		err = read_others(t);
	if (!err) /* before any data is read or file written: never a silent CPU run */
		err = td_device_parse(&t->dev, t->device);
	if (!err)
		err = td_device_check(t->dev, NULL);
	if (err)
		return err;
	if (t->absent > 0 && strcmp(t->dataset, "fashion-mnist"))
		return TD_FAIL(TD_EINVAL, "absent_fraction = %g applies to dataset = fashion-mnist "
					  "only, not %s; remove it or set it to 0",
			       t->absent, t->dataset);
	t->masked = t->absent > 0 || !strcmp(t->dataset, "synth-absent");
	if (!strcmp(t->plan, "cyclic") && t->bidir && t->layers < 4 &&
	    !strcmp(t->composition, "axial_scan"))
		return TD_FAIL(TD_EINVAL, "bidirectional = true with layers = %lld does nothing: a cyclic "
					  "plan over 2 axes flips direction after a full cycle, so it needs "
					  "layers >= 4; set layers >= 4 or bidirectional = false",
			       (long long)t->layers);
	if (!strcmp(t->plan, "paired") && t->layers % 4)
		return TD_FAIL(TD_EINVAL, "plan = paired sweeps each of the 2 axes both ways: layers "
					  "must be a multiple of 4, not %lld", (long long)t->layers);
	return 0;
}

/* ---- data ----------------------------------------------------------------- */

static int setup_data(trainer *t)
{
	static const char *const names[] = {"h", "w"};
	td_lattice_spec s = TD_LATTICE_SPEC_INIT;
	size_t shape[2];
	int err;

	t->fmnist = !strcmp(t->dataset, "fashion-mnist");
	if (t->fmnist) {
		shape[0] = shape[1] = TD_FMNIST_SIDE;
		t->n_classes = TD_FMNIST_CLASSES;
		err = td_fmnist_load(&t->train_set, t->fmnist_dir, TD_FMNIST_TRAIN);
		if (!err)
			err = td_fmnist_load(&t->test_set, t->fmnist_dir, TD_FMNIST_TEST);
	} else {
		const td_synth_info *info;

		err = td_synth_family_named(&t->family, t->dataset + strlen("synth-"));
		info = err ? NULL : td_synth_info_of(t->family);
		if (!err) {
			shape[0] = info->shape[0], shape[1] = info->shape[1];
			t->n_classes = (size_t)info->n_classes;
			s.time_axis = info->time_axis;
			err = td_synth_ranges(&t->train_range, &t->eval_range,
					      (uint64_t)(t->steps * t->batch),
					      (uint64_t)(t->eval_batches * t->batch));
		}
		/* training and evaluation must not share an example, by id or content;
		 * fetch reads these very ranges, so the check covers what is read */
		if (!err)
			err = td_synth_check_split(t->family, (uint64_t)t->seed, t->train_range,
						   t->eval_range);
	}
	if (err)
		return err;
	s.rank = 2, s.shape = shape, s.names = names;
	t->n_cells = shape[0] * shape[1];
	return td_lattice_new(&t->lat, &s);
}

/*
 * Appends {"id":"<id>","hash":"<hex>"} to the training manifest, or to the
 * evaluation one during the first evaluation. The hash is FNV-1a 64 of what
 * the model sees (inputs, absent cells, label), so two ids with the same
 * content have the same hash.
 */
static void manifest_add(trainer *t, int eval, const char *id, const td_real *x,
			 const uint8_t *mask, int label)
{
	td_json_buf *b = eval ? &t->eval_manifest : &t->train_manifest;
	uint64_t h = td_fnv1a64(TD_FNV1A64_OFFSET, x, t->n_cells * sizeof *x);
	char hex[17];

	if (t->masked)
		h = td_fnv1a64(h, mask, t->n_cells);
	h = td_fnv1a64(h, &label, sizeof label);
	if (eval)
		t->eval_content = td_fnv1a64(t->eval_content, &h, sizeof h);
	if (eval && t->evaluated)
		return;
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
	td_json_put_raw(b, "{\"id\":");
	td_json_put_string(b, id);
	td_json_put_raw(b, ",\"hash\":\"");
	td_json_put_raw(b, hex);
	td_json_put_raw(b, "\"}\n");
}

/* Example i of the training order (or of the evaluation range) into x and mask. */
static int fetch(trainer *t, int eval, uint64_t i, td_real *x, uint8_t *mask, int *label)
{
	td_synth_example *ex;
	uint64_t index;
	char id[96];
	int err;

	if (t->fmnist) {
		const td_fmnist *ds = eval ? t->test_set : t->train_set;
		size_t k = eval ? (size_t)i
				: (size_t)(td_rng_uniform((uint64_t)t->seed, TD_TRAIN_DATA_STREAM, i) *
					   (double)td_fmnist_count(ds));

		*label = td_fmnist_label(ds, k);
		err = t->masked ? td_fmnist_image_absent(x, mask, ds, k, (uint64_t)t->seed, t->absent)
				: td_fmnist_image(ds, k, x);
		snprintf(id, sizeof id, "fashion-mnist/%s/%zu", eval ? "test" : "train", k);
		if (!err)
			manifest_add(t, eval, id, x, mask, *label);
		return err;
	}
	index = (eval ? t->eval_range.first : t->train_range.first) + i;
	err = td_synth_example_new(&ex, t->family, (uint64_t)t->seed, index);
	if (err)
		return err;
	memcpy(x, ex->x, t->n_cells * sizeof *x);
	if (t->masked)
		memcpy(mask, ex->mask, t->n_cells);
	*label = ex->target;
	td_synth_example_free(ex);
	snprintf(id, sizeof id, "%s/%lld/%llu", t->dataset, (long long)t->seed,
		 (unsigned long long)index);
	manifest_add(t, eval, id, x, mask, *label);
	return 0;
}

/* ---- model ------------------------------------------------------------------ */

static int setup_model(trainer *t)
{
	static const char *const axes[] = {"h", "w"};
	td_model_opts o = TD_MODEL_OPTS_INIT;
	td_plan *plan = NULL;
	int err;

	o.family = !strcmp(t->composition, "axial_scan")     ? TD_BLOCK_SCAN
		   : !strcmp(t->composition, "axial_kernel") ? TD_BLOCK_KERNEL
							     : TD_BLOCK_FLATTEN;
	o.mixer.kind = !strcmp(t->mixer, "lru")		? TD_MIXER_LRU
		       : !strcmp(t->mixer, "clru")	? TD_MIXER_CLRU
		       : !strcmp(t->mixer, "gru")	? TD_MIXER_GRU
		       : !strcmp(t->mixer, "lstm")	? TD_MIXER_LSTM
		       : !strcmp(t->mixer, "attention") ? TD_MIXER_ATTENTION
							: TD_MIXER_CONV;
	o.mixer.heads = t->width % 4 == 0 ? 4 : 1; /* attention: 4 heads where they divide */
	o.mixer.threads = (int)t->threads;
	o.in = 1, o.width = (size_t)t->width, o.out = t->n_classes;
	o.max_batch = (size_t)t->batch;
	o.ffn = (size_t)t->ffn, o.head_per_cell = !strcmp(t->head, "per_cell");
	o.n_layers = (int)t->layers;
	if (o.family == TD_BLOCK_SCAN) {
		err = !strcmp(t->plan, "paired")
			      ? td_plan_paired(&plan, axes, 2, (int)t->layers / 4)
			      : td_plan_cyclic(&plan, axes, 2, (int)t->layers, axes, t->bidir ? 2 : 0);
		if (err)
			return err;
		o.plan = plan, o.n_layers = 0;
	}
	err = td_model_new(&t->model, t->lat, &o);
	td_plan_free(plan);
	if (!err)
		td_model_init(t->model, (uint64_t)t->seed);
	if (!err && t->masked) /* the kernel and flatten families refuse, saying so */
		err = td_model_set_example_mask(t->model, t->emask);
	return err;
}

static int setup_optimizer(trainer *t)
{
	td_adamw_opts o = TD_ADAMW_OPTS_INIT;

	o.lr = t->lr, o.lr_floor = 0, o.warmup = t->warmup, o.total_steps = t->steps;
	o.beta1 = t->b1, o.beta2 = t->b2, o.eps = t->eps, o.weight_decay = t->wd, o.clip = t->clip;
	t->opt_opts = o;
	return td_adamw_new(&t->opt, td_model_n_params(t->model), &o);
}

/*
 * The executor the steps run on: x when given, the GPU's for device =
 * cuda, else none (the core's steps). The model and optimizer stay on the
 * host too: the initial weights are drawn there, and checkpoints are
 * written from there.
 */
static int setup_exec(trainer *t, const td_exec *x)
{
	int err = 0;

	if (!x && t->dev == TD_DEVICE_CUDA) {
		err = td_cuda_exec_new(&t->own_exec, sizeof(td_real));
		x = t->own_exec;
	}
	if (!err && x)
		err = td_xtrain_new(&t->xt, x, t->model, &t->opt_opts, t->opt, t->masked);
	if (err) {
		char why[512];

		snprintf(why, sizeof why, "%s", td_error_last());
		return TD_FAIL(err, "device = %s: %s", x ? x->name : t->device, why);
	}
	return 0;
}

static int setup_buffers(trainer *t)
{
	size_t n = (size_t)t->batch * t->n_cells;
	int err;

	t->x = calloc(n, sizeof *t->x);
	t->y = calloc(n * t->n_classes, sizeof *t->y);
	t->dy = calloc(n * t->n_classes, sizeof *t->dy);
	t->labels = calloc((size_t)t->batch, sizeof *t->labels);
	t->emask = calloc(n, 1);
	t->present = calloc(t->n_cells, 1);
	if ((err = td_lattice_mask(t->lat, &t->lmask)))
		return err;
	if (!t->x || !t->y || !t->dy || !t->labels || !t->emask || !t->present)
		return TD_FAIL(TD_ENOMEM, "out of memory for a batch of %lld", (long long)t->batch);
	return td_counters_new(&t->ctr, 32);
}

double td_train_xent(td_real *dy, int *best, const td_real *y, const uint8_t *present,
		     size_t n_cells, size_t k, int label, double scale)
{
	double logit[TD_TRAIN_MAX_CLASSES], mx = -INFINITY, z = 0;
	size_t np = 0;

	for (size_t i = 0; i < n_cells; i++)
		np += present[i] != 0;
	*best = 0;
	for (size_t c = 0; c < k; c++) {
		logit[c] = 0;
		for (size_t i = 0; i < n_cells; i++)
			if (present[i])
				logit[c] += (double)y[i * k + c];
		logit[c] /= (double)(np ? np : 1);
		mx = logit[c] > mx ? logit[c] : mx;
		*best = logit[c] > logit[*best] ? (int)c : *best;
	}
	for (size_t c = 0; c < k; c++)
		z += exp(logit[c] - mx);
	for (size_t c = 0; c < k; c++) {
		double g = (exp(logit[c] - mx) / z - (c == (size_t)label)) / (double)(np ? np : 1) *
			   scale;

		for (size_t i = 0; i < n_cells; i++)
			dy[i * k + c] = present[i] ? (td_real)g : 0;
	}
	return -(logit[label] - mx - log(z));
}

/* td_train_xent for example b over the cells present on the lattice and in b. */
static double example_loss(trainer *t, size_t b, size_t batch, int *correct)
{
	const size_t k = t->n_classes, n = t->n_cells;
	double loss;
	int best;

	for (size_t i = 0; i < n; i++)
		t->present[i] = t->lmask[i] && (!t->masked || t->emask[b * n + i]);
	loss = td_train_xent(t->dy + b * n * k, &best, t->y + b * n * k, t->present, n, k,
			     t->labels[b], 1 / (double)batch);
	*correct += best == t->labels[b];
	return loss;
}

/*
 * Forward (and backward when grad) of the n examples in t->x; mean loss.
 * On an executor, with grad the optimizer's step too, and the loss and
 * correct count are left there, in its sums (*loss 0).
 */
static int run_batch(trainer *t, size_t n, int grad, double *loss, int *correct)
{
	int err;

	if (t->xt) {
		*loss = 0;
		return td_xtrain_batch(t->xt, t->x, t->emask, t->labels, n, grad);
	}
	err = td_model_forward(t->model, t->y, t->x, n);

	*loss = 0;
	if (err)
		return err;
	memset(t->dy, 0, n * t->n_cells * t->n_classes * sizeof *t->dy);
	for (size_t b = 0; b < n; b++)
		*loss += example_loss(t, b, n, correct);
	*loss /= (double)n;
	if (!grad)
		return 0;
	td_model_zero_grads(t->model);
	return td_model_backward(t->model, NULL, t->dy, n);
}

/* Loads examples first .. first + n - 1 of the training order (or eval range). */
static int load_batch(trainer *t, int eval, uint64_t first, size_t n)
{
	int err = 0;

	for (size_t b = 0; !err && b < n; b++)
		err = fetch(t, eval, first + b, t->x + b * t->n_cells, t->emask + b * t->n_cells,
			    &t->labels[b]);
	return err;
}

/* Scores the evaluation range from its first example, every time. */
static int evaluate(trainer *t, td_train_eval_result *r)
{
	uint64_t total = (uint64_t)(t->eval_batches * t->batch), i = 0;
	double sum = 0;
	int correct = 0, err = 0;

	if (t->fmnist && total > td_fmnist_count(t->test_set))
		total = td_fmnist_count(t->test_set);
	r->examples = 0;
	t->eval_content = TD_FNV1A64_OFFSET;
	if (t->xt)
		err = td_xtrain_zero_sums(t->xt, 0);
	while (!err && i < total) {
		size_t n = total - i < (uint64_t)t->batch ? (size_t)(total - i) : (size_t)t->batch;
		double loss = 0;

		err = load_batch(t, 1, i, n);
		if (!err)
			err = run_batch(t, n, 0, &loss, &correct);
		sum += loss * (double)n;
		r->examples += (int64_t)n; /* counted from what was read */
		i += n;
	}
	if (!err && t->xt) {
		td_xtrain_read_out x;

		err = td_xtrain_read(t->xt, &x, t->ctr, &t->fw);
		sum = x.eval.loss_sum, correct = (int)x.eval.correct;
	}
	t->evaluated = 1;
	r->content = t->eval_content;
	r->loss = r->examples ? sum / (double)r->examples : NAN;
	r->accuracy = r->examples ? (double)correct / (double)r->examples : NAN;
	return err;
}

/* ---- checkpoints ------------------------------------------------------------ */

static void signature(const trainer *t, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s w=%lld l=%lld ffn=%lld head=%s n=%zu", t->composition,
		 t->mixer, (long long)t->width, (long long)t->layers, (long long)t->ffn, t->head,
		 td_model_n_params(t->model));
}

/* The host's model and optimizer: the executor's, when the steps run there. */
static int to_host(trainer *t)
{
	return t->xt ? td_xtrain_store(t->xt, t->model, t->opt) : 0;
}

static int save(trainer *t, const char *path, int64_t step)
{
	td_checkpoint_data d = TD_CHECKPOINT_DATA_INIT;
	size_t len = td_adamw_state_size(t->opt);
	char sig[256], *text = NULL;
	void *state = malloc(len);
	int err = state ? to_host(t) : TD_FAIL(TD_ENOMEM, "out of memory");

	if (!err)
		err = td_adamw_export(t->opt, state, len);
	if (!err)
		err = td_config_serialize(&text, t->cfg);
	if (!err)
		err = td_config_hash(&d.config_hash, t->cfg);
	signature(t, sig, sizeof sig);
	d.signature = sig, d.weights = td_model_params(t->model);
	d.n_weights = td_model_n_params(t->model);
	d.optimizer = state, d.optimizer_len = len, d.step = step;
	d.data_position = d.rng_counter = (uint64_t)(step * t->batch);
	d.config_text = text;
	if (!err)
		err = td_checkpoint_write(path, &d);
	free(text);
	free(state);
	return err;
}

/* save(), and a {"kind":"checkpoint","step":N} line saying so. */
static int save_logged(trainer *t, td_jsonl *log, const char *path, int64_t step)
{
	int err = save(t, path, step);

	if (err)
		return err;
	td_jsonl_begin(log);
	td_jsonl_str(log, "kind", "checkpoint");
	td_jsonl_int(log, "step", step);
	return td_jsonl_end(log);
}

/* Restores weights and optimizer from path; *step gets the steps done. */
static int restore(trainer *t, const char *path, int64_t *step)
{
	td_checkpoint_expect e = TD_CHECKPOINT_EXPECT_INIT;
	td_checkpoint *ck = NULL;
	char sig[256];
	int err;

	signature(t, sig, sizeof sig);
	e.signature = sig, e.n_weights = td_model_n_params(t->model);
	err = td_checkpoint_load(&ck, path, &e);
	if (!err) /* threads, log_every ...: free to change; what shapes the weights is not */
		err = td_config_check_resume(t->cfg, td_checkpoint_get(ck)->config_text, path);
	if (!err) {
		const td_checkpoint_data *d = td_checkpoint_get(ck);

		memcpy(td_model_params(t->model), d->weights, d->n_weights * sizeof *d->weights);
		err = td_adamw_import(t->opt, d->optimizer, d->optimizer_len);
		if (!err && t->xt)
			err = td_xtrain_load(t->xt, t->model, t->opt);
		*step = d->step;
	}
	td_checkpoint_free(ck);
	return err;
}

/* ---- the loop ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int log_eval(trainer *t, td_jsonl *log, int64_t step, int final, int quiet)
{
	td_train_eval_result r;
	td_eval_record rec;
	char content[17];
	int err = evaluate(t, &r);

	if (err)
		return err;
	snprintf(content, sizeof content, "%016llx", (unsigned long long)r.content);
	rec.step = step, rec.loss = r.loss, rec.accuracy = r.accuracy;
	rec.examples = r.examples, rec.final = final, rec.content = content;
	if (!quiet)
		printf("eval  step %lld  loss %.4f  accuracy %.4f  (%lld examples, content %s)%s\n",
		       (long long)step, r.loss, r.accuracy, (long long)r.examples, content,
		       final ? "  final" : "");
	return td_jsonl_eval(log, &rec, t->ctr);
}

/* {"kind":"weights","step":N,"fnv1a64":"..."}: what determinism tests compare. */
static int log_weights(trainer *t, td_jsonl *log, int64_t step, int quiet)
{
	char hex[17];
	int err = to_host(t);

	if (err)
		return err;
	snprintf(hex, sizeof hex, "%016llx",
		 (unsigned long long)td_fnv1a64(TD_FNV1A64_OFFSET, td_model_params(t->model),
						td_model_n_params(t->model) * sizeof(td_real)));
	if (!quiet)
		printf("weights after step %lld: fnv1a64 %s\n", (long long)step, hex);
	td_jsonl_begin(log);
	td_jsonl_str(log, "kind", "weights");
	td_jsonl_int(log, "step", step);
	td_jsonl_str(log, "fnv1a64", hex);
	return td_jsonl_end(log);
}

/*
 * A progress line: loss is the mean over the steps since the last line;
 * speed and ETA come from busy, the seconds spent in training steps since
 * the run (or resume) began: evaluations and checkpoints are not steps.
 */
static int progress(trainer *t, td_jsonl *log, int64_t step, double loss, double lr, double norm,
		    double busy, int64_t first, int quiet)
{
	double per = busy / (double)(step - first);
	/* the JSON line first: writing it can count (a non-finite loss), and
	 * the text line must then carry that reason too */
	int err = td_jsonl_step(log, step, loss, lr, norm, t->ctr);

	if (!quiet) {
		td_json_buf_clear(&t->shown);
		td_counters_line(&t->shown, t->ctr);
		printf("step %lld/%lld  loss %.4f  %.0f ex/s  eta %.0fs%s%s\n", (long long)step,
		       (long long)t->steps, loss, (double)t->batch / per,
		       per * (double)(t->steps - step), t->shown.len ? "  " : "",
		       t->shown.len ? t->shown.s : "");
	}
	return err;
}

/*
 * The counters once more at the end of the run when they changed after the
 * last progress line (an evaluation, the last lines): every reason the
 * JSON log holds reaches the text output too.
 */
static void counters_tail(trainer *t, int quiet)
{
	td_json_buf line = TD_JSON_BUF_INIT;

	td_counters_line(&line, t->ctr);
	if (!quiet && line.len && (!t->shown.s || strcmp(line.s, t->shown.s)))
		printf("counters  %s\n", line.s);
	td_json_buf_free(&line);
}

/*
 * inject_nonfinite_every = N: every Nth step's first example gets a NaN in
 * its first present cell, as a corrupt input would: the loss and the
 * gradient turn non-finite and the firewall skips the step. Counted, with
 * the step, so an injected skip is never mistaken for a real one.
 */
static int inject(trainer *t, int64_t step)
{
	if (t->inject <= 0 || (step + 1) % t->inject)
		return 0;
	for (size_t i = 0; i < t->n_cells; i++)
		if (t->lmask[i] && (!t->masked || t->emask[i])) {
			t->x[i] = (td_real)NAN;
			return td_counter_addf(t->ctr, "nonfinite_injected",
					       "inject_nonfinite_every = %lld: step %lld's first "
					       "example, cell %zu",
					       (long long)t->inject, (long long)step + 1, i);
		}
	return 0;
}

/* One optimizer step (step is 0-based); on an executor, queued. */
static int step_once(trainer *t, int64_t step, double *loss)
{
	int correct = 0, applied;
	int err = load_batch(t, 0, (uint64_t)(step * t->batch), (size_t)t->batch);

	if (!err)
		err = inject(t, step);
	if (!err)
		err = run_batch(t, (size_t)t->batch, 1, loss, &correct);
	if (err || t->xt)
		return err;
	applied = td_adamw_step(t->opt, td_model_params(t->model), td_model_grads(t->model), t->ctr);
	if (applied < 0)
		return applied;
	td_firewall_step(&t->fw, step + 1, applied);
	return 0;
}

/*
 * A log point's figures: the window's mean loss over since steps, and the
 * last step's rate and norm. On an executor, read from it (the only wait
 * of a log window besides evaluations and checkpoints) and its window's
 * sum zeroed.
 */
static int window_figures(trainer *t, double window, int64_t since, double *loss, double *lr,
			  double *norm)
{
	const td_adamw_stats *st = td_adamw_last(t->opt);
	td_xtrain_read_out x;
	int err;

	*loss = window / (double)since, *lr = st->lr, *norm = st->grad_norm;
	if (!t->xt)
		return 0;
	if ((err = td_xtrain_read(t->xt, &x, t->ctr, &t->fw)))
		return err;
	*loss = x.train.mean_sum / (double)since, *lr = x.lr, *norm = x.grad_norm;
	return td_xtrain_zero_sums(t->xt, 1);
}

static int loop(trainer *t, const td_train_opts *o, td_jsonl *log, int64_t first)
{
	char ckpt[4096];
	double busy = 0, loss = 0, window = 0, lr, norm;
	int64_t end = o->stop_after > 0 && o->stop_after < t->steps ? o->stop_after : t->steps;
	int err = 0;

	snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", o->out_dir);
	for (int64_t s = first; !err && s < end; s++) {
		int64_t done = s + 1, since = (done - 1) % t->log_every + 1;
		double t0 = now();

		err = step_once(t, s, &loss);
		busy += now() - t0;
		window += loss;
		if (!err && td_log_due(done, t->steps, t->log_every)) {
			/* the window is shorter after a resume or at the last step */
			since = since < done - first ? since : done - first;
			t0 = now(); /* on an executor, the wait for the window's steps */
			err = window_figures(t, window, since, &loss, &lr, &norm);
			busy += now() - t0;
			if (!err)
				err = progress(t, log, done, loss, lr, norm, busy, first, o->quiet);
			window = 0;
			if (!err)
				err = td_firewall_window_end(&t->fw, t->ctr, done);
		}
		if (!err && done < t->steps && td_log_due(done, t->steps, t->eval_every))
			err = log_eval(t, log, done, 0, o->quiet);
		if (!err && t->ckpt_every > 0 && done % t->ckpt_every == 0)
			err = save_logged(t, log, ckpt, done);
	}
	if (!err && end == t->steps)
		err = log_eval(t, log, t->steps, 1, o->quiet);
	if (!err)
		err = log_weights(t, log, end, o->quiet);
	if (!err)
		err = save_logged(t, log, ckpt, end);
	if (!err)
		counters_tail(t, o->quiet);
	return err;
}

/*
 * DIR/train.jsonl and DIR/eval.jsonl, atomically: what this process read
 * (after a resume, the resumed steps only; tdaudit overlap compares them).
 */
static int write_manifests(trainer *t, const char *dir)
{
	const td_json_buf *b[] = {&t->train_manifest, &t->eval_manifest};
	const char *name[] = {"train.jsonl", "eval.jsonl"};
	char path[4096];
	int err = 0;

	for (int k = 0; !err && k < 2; k++) {
		if (b[k]->err)
			return TD_FAIL(TD_ENOMEM, "out of memory for the manifest %s", name[k]);
		snprintf(path, sizeof path, "%s/%s", dir, name[k]);
		err = td_file_write_atomic(path, b[k]->s ? b[k]->s : "", b[k]->len, 0644);
	}
	return err;
}

static void trainer_free(trainer *t)
{
	free(t->x), free(t->y), free(t->dy), free(t->labels), free(t->emask);
	free(t->lmask), free(t->present);
	td_json_buf_free(&t->train_manifest);
	td_json_buf_free(&t->eval_manifest);
	td_json_buf_free(&t->shown);
	td_counters_free(t->ctr);
	td_xtrain_free(t->xt);
	td_cuda_exec_free(t->own_exec);
	td_adamw_free(t->opt);
	td_model_free(t->model);
	td_lattice_free(t->lat);
	td_fmnist_free(t->train_set);
	td_fmnist_free(t->test_set);
}

/* The trainer for cfg and o (may be NULL); with steps, its steps' executor too (setup_exec). */
static int trainer_setup(trainer *t, const td_config *cfg, int steps, const td_train_opts *o)
{
	int err;

	memset(t, 0, sizeof *t);
	t->cfg = cfg, t->fmnist_dir = o ? o->fmnist_dir : NULL;
	err = read_config(t);
	if (!err)
		err = setup_data(t);
	if (!err)
		err = setup_buffers(t);
	if (!err)
		err = setup_model(t);
	if (!err)
		err = setup_optimizer(t);
	if (!err && steps)
		err = setup_exec(t, o ? o->exec : NULL);
	return err;
}

int td_train(const td_config *cfg, const td_train_opts *o)
{
	trainer t;
	td_jsonl *log = NULL;
	char path[4096];
	int64_t first = 0;
	int err = trainer_setup(&t, cfg, 1, o);

	if (!err && !o->out_dir)
		err = TD_FAIL(TD_EINVAL, "no run directory given");
	if (!err)
		err = td_mkdirs(o->out_dir);
	snprintf(path, sizeof path, "%s/config.txt", o->out_dir ? o->out_dir : ".");
	if (!err)
		err = td_config_write(cfg, path);
	if (!err && o->resume)
		err = restore(&t, o->resume, &first);
	snprintf(path, sizeof path, "%s/log.jsonl", o->out_dir ? o->out_dir : ".");
	if (!err)
		err = td_jsonl_open(&log, path, t.ctr);
	if (!err)
		err = loop(&t, o, log, first);
	if (!err)
		err = write_manifests(&t, o->out_dir);
	td_jsonl_free(log);
	trainer_free(&t);
	return err;
}

int td_train_hash(uint64_t *out, const td_config *cfg)
{
	trainer t;
	int err = trainer_setup(&t, cfg, 0, NULL);

	if (!err)
		*out = td_fnv1a64(TD_FNV1A64_OFFSET, td_model_params(t.model),
				  td_model_n_params(t.model) * sizeof(td_real));
	trainer_free(&t);
	return err;
}

int td_train_eval_checkpoint(td_train_eval_result *out, const char *checkpoint,
			     const char *device)
{
	char set[64];
	const char *override = set;
	td_config_spec spec = TD_CONFIG_SPEC_INIT;
	td_checkpoint *ck = NULL;
	td_config *cfg = NULL;
	const char *dir = getenv("TMPDIR");
	char tmp[4200];
	trainer t;
	int64_t step;
	int err = td_checkpoint_load(&ck, checkpoint, NULL), fd = -1;

	memset(&t, 0, sizeof t);
	snprintf(tmp, sizeof tmp, "%.4096s/tdtrain-config-XXXXXX", dir && *dir ? dir : "/tmp");
	if (!err && (fd = mkstemp(tmp)) < 0)
		err = TD_FAIL(TD_EIO, "cannot make a temporary file for the config snapshot in %s: %s "
				      "(set TMPDIR to a writable directory)", dir && *dir ? dir : "/tmp",
			      strerror(errno));
	if (!err) {
		const char *text = td_checkpoint_get(ck)->config_text;

		err = td_file_write_atomic(tmp, text, strlen(text), 0600);
	}
	spec.path = tmp;
	if (device) {
		snprintf(set, sizeof set, "device=%.40s", device);
		spec.overrides = &override, spec.n_overrides = 1;
	}
	if (!err)
		err = td_config_new(&cfg, &spec);
	if (!err)
		err = trainer_setup(&t, cfg, 1, NULL);
	if (!err)
		err = restore(&t, checkpoint, &step);
	if (!err)
		err = evaluate(&t, out);
	if (fd >= 0)
		remove(tmp);
	trainer_free(&t);
	td_config_free(cfg);
	td_checkpoint_free(ck);
	return err;
}
