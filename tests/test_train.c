/*
 * test_train.c - tdtrain as a user runs it: real processes, real files.
 *
 * Every test runs build/tdtrain on the synthetic row task (8x8 cells, a
 * tiny model, 40 steps: well under a second a run) and reads what it
 * wrote: log.jsonl's weights line (FNV-1a 64 of the final weights),
 * checkpoint.bin, config.txt.
 *
 * What these tests guard: tdaudit mutate --list --file core/train.c,
 *   --list --file core/config.c and --list --file core/tdtrain_main.c
 */
#define _XOPEN_SOURCE 700
#include "tdtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>

#include "../core/config.h"
#include "../base/hash.h"
#include "../core/synth.h"
#include "../base/fileio.h"
#include "../core/train.h"
#include "../harness/confine.h"
#include "../harness/proc.h"
#include "fixture.h"

#ifndef TD_BUILD_DIR
#define TD_BUILD_DIR "build"
#endif

#define TINY "--set", "dataset=synth-row", "--set", "width=8", "--set", "layers=4", "--set", \
	     "steps=40", "--set", "warmup=5", "--set", "batch=8", "--set", "log_every=10",       \
	     "--set", "eval_every=20", "--quiet"

/*
 * Runs tdtrain with args in the current directory, output to
 * ../tdtrain.log. Each test first moves into a directory of its own inside
 * its temporary directory, so that log is the test's own.
 */
static int tdtrain(const char *const *args)
{
	const char *argv[48] = {TD_BUILD_DIR "/tdtrain"};
	int n = 1;

	while (args[n - 1] && n < 47) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	return fx_run(".", "tdtrain.log", argv);
}

static void enter(void)
{
	assert_int_equal(mkdir("w", 0755), 0);
	assert_int_equal(chdir("w"), 0);
}

/* The final weights hash a run wrote to DIR/log.jsonl (static buffer). */
static const char *weights(const char *dir)
{
	static char hex[17];
	char path[256];
	const char *p;

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	p = strstr(fx_slurp(path), "\"fnv1a64\":\"");
	assert_non_null(p);
	snprintf(hex, sizeof hex, "%.16s", p + 11);
	return hex;
}

static void test_different_seeds_give_different_initial_weights(void **state)
{
	const char *a[] = {"hash", TINY, NULL}, *b[] = {"hash", TINY, "--set", "seed=2", NULL};
	char first[64], again[64];

	(void)state;
	enter();
	assert_int_equal(tdtrain(a), 0);
	snprintf(first, sizeof first, "%s", fx_slurp("../tdtrain.log"));
	assert_int_equal(tdtrain(a), 0); /* a second process, the same seed */
	snprintf(again, sizeof again, "%s", fx_slurp("../tdtrain.log"));
	assert_string_equal(first, again);
	assert_int_equal(tdtrain(b), 0);
	assert_string_not_equal(first, fx_slurp("../tdtrain.log"));
}

static void test_one_seed_gives_one_run_whatever_the_thread_count(void **state)
{
	const char *a[] = {"train", TINY, "--out", "a", NULL};
	const char *b[] = {"train", TINY, "--out", "b", NULL};
	const char *c[] = {"train", TINY, "--threads", "2", "--out", "c", NULL};
	const char *d[] = {"train", TINY, "--set", "seed=3", "--out", "d", NULL};
	char wa[17];

	(void)state;
	enter();
	assert_int_equal(tdtrain(a), 0);
	assert_int_equal(tdtrain(b), 0);
	assert_int_equal(tdtrain(c), 0);
	assert_int_equal(tdtrain(d), 0);
	snprintf(wa, sizeof wa, "%s", weights("a"));
	assert_string_equal(wa, weights("b"));
	assert_string_equal(wa, weights("c"));
	assert_string_not_equal(wa, weights("d"));
}

static void test_a_resumed_run_equals_the_uninterrupted_run_bitwise(void **state)
{
	const char *whole[] = {"train", TINY, "--out", "whole", NULL};
	const char *half[] = {"train", TINY, "--stop-after", "20", "--out", "split", NULL};
	const char *rest[] = {"train", TINY, "--resume", "split/checkpoint.bin", "--out", "split", NULL};
	char *a, *b;
	size_t na, nb;

	(void)state;
	enter();
	assert_int_equal(tdtrain(whole), 0);
	assert_int_equal(tdtrain(half), 0);
	assert_int_equal(tdtrain(rest), 0);
	/* weights, optimizer state, step and config: the same bytes */
	assert_int_equal(td_file_read("whole/checkpoint.bin", &a, &na), 0);
	assert_int_equal(td_file_read("split/checkpoint.bin", &b, &nb), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

/* threads changes no bit, so a run may resume with another count (and log_every too). */
static void test_a_run_may_resume_with_another_thread_count(void **state)
{
	const char *whole[] = {"train", TINY, "--out", "whole", NULL};
	const char *half[] = {"train", TINY, "--stop-after", "20", "--out", "split", NULL};
	const char *rest[] = {"train", TINY, "--threads", "2", "--resume", "split/checkpoint.bin",
			      "--out", "split", NULL};

	(void)state;
	enter();
	assert_int_equal(tdtrain(whole), 0);
	assert_int_equal(tdtrain(half), 0);
	assert_int_equal(tdtrain(rest), 0);
	assert_string_equal(weights("whole"), weights("split"));
}

/* FNV-1a 64 over the hashes of dir/eval.jsonl, in order: what eval's content should be. */
static uint64_t eval_content(const char *dir)
{
	char path[256];
	uint64_t h = TD_FNV1A64_OFFSET, one;
	const char *p;

	snprintf(path, sizeof path, "%s/eval.jsonl", dir);
	for (p = strstr(fx_slurp(path), "\"hash\":\""); p; p = strstr(p + 1, "\"hash\":\"")) {
		one = strtoull(p + strlen("\"hash\":\""), NULL, 16);
		h = td_fnv1a64(h, &one, sizeof one);
	}
	return h;
}

static void test_the_final_eval_is_logged_and_scores_what_eval_scores(void **state)
{
	const char *run[] = {"train", TINY, "--out", "r", NULL};
	const char *eval[] = {"eval", "--checkpoint", "r/checkpoint.bin", NULL};
	char first[128], want[96];
	const char *final;
	double logged, loss;

	(void)state;
	enter();
	assert_int_equal(tdtrain(run), 0);
	final = strstr(fx_slurp("r/log.jsonl"), "\"final\":true");
	assert_non_null(final);
	final = strstr(fx_slurp("r/log.jsonl"), "{\"kind\":\"eval\",\"step\":40,\"loss\":");
	assert_non_null(final);
	logged = strtod(final + strlen("{\"kind\":\"eval\",\"step\":40,\"loss\":"), NULL);
	assert_int_equal(tdtrain(eval), 0);
	snprintf(first, sizeof first, "%s", fx_slurp("../tdtrain.log"));
	assert_int_equal(tdtrain(eval), 0); /* evaluation rewinds: the same bytes again */
	assert_string_equal(first, fx_slurp("../tdtrain.log"));
	assert_non_null(strstr(first, "(80 examples, content ")); /* 10 batches x 8, as read */
	assert_int_equal(sscanf(first, "eval  loss %lf", &loss), 1);
	assert_true(fabs(loss - logged) < 1e-6);
	/* the content: the manifest's hashes folded in order, and the log's */
	snprintf(want, sizeof want, "content %016llx)", (unsigned long long)eval_content("r"));
	assert_non_null(strstr(first, want));
	snprintf(want, sizeof want, "\"content\":\"%016llx\",\"final\":true",
		 (unsigned long long)eval_content("r"));
	assert_non_null(strstr(fx_slurp("r/log.jsonl"), want));
}

/*
 * tdtrain eval writes its config snapshot under $TMPDIR, so it runs where
 * a mutant's tests run: writes confined to the tree and a private TMPDIR
 * (it used to write /tmp/tdtrain-config-* whatever TMPDIR said).
 */
static void test_eval_writes_only_in_its_tmpdir_and_so_runs_confined(void **state)
{
	const char *run[] = {"train", TINY, "--out", "r", NULL};
	const char *argv[] = {TD_BUILD_DIR "/tdtrain", "eval", "--checkpoint", "r/checkpoint.bin", NULL};
	char cwd[4096], env_tmp[4300], tmp[4200], log[4200];
	const char *dirs[] = {tmp, NULL}, *env[] = {env_tmp, NULL}, *why = NULL;
	td_proc_opts po = {0};
	td_proc_result pr;

	(void)state;
	if (td_confine_abi(&why) <= 0)
		TD_SKIP("the kernel cannot confine writes here: %s", why);
	enter();
	assert_int_equal(tdtrain(run), 0);
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(tmp, sizeof tmp, "%s/tmp", cwd);
	snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
	snprintf(log, sizeof log, "%s/eval.log", cwd);
	assert_int_equal(mkdir(tmp, 0755), 0);
	po.argv = argv, po.env = env, po.write_dirs = dirs, po.out_path = log, po.timeout_s = 60;
	assert_int_equal(td_proc_run(&pr, &po), 0);
	if (!pr.exited || pr.status != 0)
		fail_msg("confined tdtrain eval failed: %s", fx_slurp(log));
	assert_non_null(strstr(fx_slurp(log), "eval  loss "));
}

/* The loss a step line of dir's log.jsonl reports for step, or NAN when there is none. */
static double step_loss(const char *dir, int step)
{
	char path[256], key[64];
	const char *p;

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	snprintf(key, sizeof key, "{\"kind\":\"step\",\"step\":%d,\"loss\":", step);
	p = strstr(fx_slurp(path), key);
	return p ? strtod(p + strlen(key), NULL) : NAN;
}

/*
 * A progress line's loss is the mean over the steps since the line before
 * (log_every changes no weight, so the run with log_every = 1 gives each
 * step's loss), not the last batch's alone. The last window is shorter.
 */
static void test_a_progress_line_reports_the_mean_loss_of_its_window(void **state)
{
#define WINDOW_RUN(every, dir)                                                                      \
	{"train", "--set", "dataset=synth-row", "--set", "width=8", "--set", "steps=10", "--set",  \
	 "warmup=2", "--set", "batch=8", "--set", "log_every=" every, "--quiet", "--out", dir, NULL}
	const char *each[] = WINDOW_RUN("1", "each"), *four[] = WINDOW_RUN("4", "four");
	double l[11];

	(void)state;
	enter();
	assert_int_equal(tdtrain(each), 0);
	assert_int_equal(tdtrain(four), 0);
	for (int i = 1; i <= 10; i++)
		assert_false(isnan(l[i] = step_loss("each", i)));
	assert_true(fabs(step_loss("four", 4) - (l[1] + l[2] + l[3] + l[4]) / 4) < 1e-12);
	assert_true(fabs(step_loss("four", 8) - (l[5] + l[6] + l[7] + l[8]) / 4) < 1e-12);
	assert_true(fabs(step_loss("four", 10) - (l[9] + l[10]) / 2) < 1e-12);
#undef WINDOW_RUN
}

/* The loss against hand-computed numbers: the mean runs over the example's present cells only. */
static void test_the_loss_averages_over_the_cells_present_in_the_example(void **state)
{
	const td_real y[] = {1, 0, 3, 2, 100, -100};
	const uint8_t present[] = {1, 1, 0};
	td_real dy[6];
	int best = -1;
	double loss;

	(void)state;
	loss = td_train_xent(dy, &best, y, present, 3, 2, 0, 0.5);
	/* logits (2, 1): loss = ln(1 + e^-1); dL/dlogit0 = sigmoid(1) - 1, over 2 cells, x 0.5 */
	assert_true(fabs(loss - 0.31326168751822286) < 1e-6);
	assert_int_equal(best, 0);
	assert_true(fabs((double)dy[0] - -0.26894142136999512 / 4) < 1e-6);
	assert_true(fabs((double)dy[3] - 0.26894142136999512 / 4) < 1e-6);
	assert_true(dy[4] == 0 && dy[5] == 0); /* the absent cell */
	loss = td_train_xent(dy, &best, y, present, 3, 2, 1, 1);
	assert_true(fabs(loss - 1.3132616875182228) < 1e-6); /* ln(1 + e) */
}

/*
 * synth-absent trains with each example's own mask: deterministic, its
 * eval rewinds, and it learns from present cells (a mask left all-absent
 * gives logits of exactly 0: loss ln 4).
 */
static void test_a_task_with_absent_cells_per_example_trains(void **state)
{
	const char *run[] = {"train", "--set", "dataset=synth-absent", "--set", "width=8", "--set",
			     "steps=60", "--set", "warmup=5", "--set", "batch=8", "--set", "ffn=8",
			     "--set", "eval_every=60", "--quiet", "--out", "r", NULL};
	const char *again[] = {"train", "--set", "dataset=synth-absent", "--set", "width=8", "--set",
			       "steps=60", "--set", "warmup=5", "--set", "batch=8", "--set", "ffn=8",
			       "--set", "eval_every=60", "--quiet", "--out", "s", NULL};
	const char *eval[] = {"eval", "--checkpoint", "r/checkpoint.bin", NULL};
	char first[128];
	double loss;

	(void)state;
	enter();
	assert_int_equal(tdtrain(run), 0);
	assert_int_equal(tdtrain(again), 0);
	assert_string_equal(weights("r"), weights("s"));
	assert_int_equal(tdtrain(eval), 0);
	snprintf(first, sizeof first, "%s", fx_slurp("../tdtrain.log"));
	assert_int_equal(tdtrain(eval), 0);
	assert_string_equal(first, fx_slurp("../tdtrain.log"));
	assert_int_equal(sscanf(first, "eval  loss %lf", &loss), 1);
	assert_true(fabs(loss - log(4.0)) > 1e-4);
}

static void test_the_resolved_config_is_written_beside_the_run(void **state)
{
	const char *run[] = {"train", TINY, "--out", "r", NULL};
	const char *text;

	(void)state;
	enter();
	assert_int_equal(tdtrain(run), 0);
	text = fx_slurp("r/config.txt");
	assert_non_null(strstr(text, "dataset = synth-row"));
	assert_non_null(strstr(text, "adam_beta2 = ")); /* a default, written too */
}

static void test_keys_this_version_cannot_honour_are_refused(void **state)
{
	const char *absent[] = {"train", TINY, "--set", "absent_fraction=0.3", "--out", "r", NULL};
	const char *masked_flat[] = {"train", "--set", "dataset=synth-absent", "--set",
				     "composition=flatten", "--set", "steps=40", "--set", "warmup=5",
				     "--out", "r", NULL};
	const char *typo[] = {"train", TINY, "--set", "wieght_decay=0.1", "--out", "r", NULL};
	const char *one_way[] = {"train", "--set", "dataset=synth-row", "--set", "layers=2", "--set",
				 "steps=40", "--set", "warmup=5", "--out", "r", NULL};

	(void)state;
	enter();
	assert_int_equal(tdtrain(absent), 2); /* Fashion-MNIST's pixels only, not synth-row's */
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "applies to dataset = fashion-mnist only"));
	assert_int_equal(tdtrain(masked_flat), 2); /* flatten cannot take a mask per example */
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "composition = axial_scan"));
	assert_int_equal(tdtrain(typo), 2);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "weight_decay"));
	assert_int_equal(tdtrain(one_way), 2); /* bidirectional with too few layers to flip */
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "bidirectional = true with layers = 2 does nothing"));
}

/*
 * An option given twice is refused: with two --config files the second
 * used to be read and the first dropped without a word (DEBUG.md #29).
 */
static void test_tdtrain_refuses_an_option_given_twice(void **state)
{
	const char *config[] = {"hash", "--config", "a.cfg", "--config", "b.cfg", TINY, NULL};
	const char *out[] = {"train", TINY, "--out", "a", "--out", "b", NULL};

	(void)state;
	enter();
	fx_write(".", "a.cfg", "seed = 1\n");
	fx_write(".", "b.cfg", "seed = 2\n");
	assert_int_equal(tdtrain(config), 2);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "--config is given twice; give it once"));
	assert_int_equal(tdtrain(out), 2);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "--out is given twice; give it once"));
	assert_int_equal(access("a", F_OK), -1); /* refused before anything ran */
	assert_int_equal(access("b", F_OK), -1);
}

/*
 * --stop-after takes a whole number of steps, all of it: "abc" used to be
 * read as 0 (run to the end) and "10x" as 10, without a word (DEBUG.md #30).
 */
static void test_tdtrain_refuses_a_stop_after_that_is_not_a_whole_number(void **state)
{
	const char *bad[] = {"abc", "10x", "", "0", "-5", "2.5", NULL};
	const char *run[] = {"train", TINY, "--stop-after", NULL, "--out", "r", NULL};
	char want[96];

	(void)state;
	enter();
	for (int i = 0; bad[i]; i++) {
		run[sizeof run / sizeof run[0] - 4] = bad[i];
		assert_int_equal(tdtrain(run), 2);
		snprintf(want, sizeof want, "--stop-after needs a whole number of steps, 1 or more, not '%.8s'",
			 bad[i]);
		assert_non_null(strstr(fx_slurp("../tdtrain.log"), want));
		assert_int_equal(access("r", F_OK), -1); /* refused before anything ran */
	}
}

static void test_a_corrupt_checkpoint_is_refused_on_resume(void **state)
{
	const char *run[] = {"train", TINY, "--stop-after", "10", "--out", "r", NULL};
	const char *resume[] = {"train", TINY, "--resume", "r/checkpoint.bin", "--out", "r", NULL};
	const char *other[] = {"train", TINY, "--set", "lr=0.5", "--resume", "r/checkpoint.bin",
			       "--out", "r", NULL};
	char *buf;
	size_t n;

	(void)state;
	enter();
	assert_int_equal(tdtrain(run), 0);
	assert_int_equal(tdtrain(other), 2); /* another config: refused, naming the key */
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "this run has lr = 0.5"));
	assert_int_equal(td_file_read("r/checkpoint.bin", &buf, &n), 0);
	buf[n / 2] ^= 1;
	assert_int_equal(td_file_write_atomic("r/checkpoint.bin", buf, n, 0644), 0);
	free(buf);
	assert_int_equal(tdtrain(resume), 2);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "checkpoint.bin"));
}

/*
 * Every mixer the config offers and every composition trains to the end,
 * each its own model: no two runs end with the same weights (a name that
 * fell through to another kind would).
 */
static void test_every_built_mixer_and_family_trains(void **state)
{
	static const char *const sets[] = {"mixer=lru",
					   "mixer=clru",
					   "mixer=gru",
					   "mixer=lstm",
					   "mixer=conv",
					   "mixer=attention",
					   "composition=axial_kernel",
					   "composition=flatten"};
	enum { N = sizeof sets / sizeof sets[0] };
	char hash[N][17];

	(void)state;
	enter();
	for (size_t i = 0; i < N; i++) {
		const char *args[] = {"train", TINY, "--set", sets[i], "--out", NULL, NULL};
		char dir[32], log[48];

		snprintf(dir, sizeof dir, "run-%zu", i);
		snprintf(log, sizeof log, "%s/log.jsonl", dir);
		args[sizeof args / sizeof args[0] - 2] = dir;
		if (tdtrain(args) != 0)
			fail_msg("--set %s: %s", sets[i], fx_slurp("../tdtrain.log"));
		assert_non_null(strstr(fx_slurp(log), "\"final\":true"));
		snprintf(hash[i], sizeof hash[i], "%s", weights(dir));
		for (size_t j = 0; j < i; j++)
			if (!strcmp(hash[i], hash[j]))
				fail_msg("--set %s ends with the weights of --set %s", sets[i],
					 sets[j]);
	}
}

/* A valid value of k other than its default, as the --set text "name=value". */
static void other_value(char *buf, size_t size, const td_config_key *k, const char *base)
{
	if (k->type == TD_CFG_BOOL) {
		snprintf(buf, size, "%s=%s", k->name, strcmp(base, "true") ? "true" : "false");
	} else if (k->type == TD_CFG_INT) {
		long long v = atoll(base);

		snprintf(buf, size, "%s=%lld", k->name, v + 1 <= k->imax ? v + 1 : v - 1);
	} else if (k->type == TD_CFG_FLOAT) {
		double v = strtod(base, NULL);

		snprintf(buf, size, "%s=%.17g", k->name, v / 10 > k->fmin ? v / 10 : (v + k->fmax) / 2);
	} else { /* the first allowed value that is not the base */
		char opts[256], *save = NULL;

		snprintf(opts, sizeof opts, "%s", k->allowed);
		for (char *o = strtok_r(opts, "|", &save); o; o = strtok_r(NULL, "|", &save))
			if (strcmp(o, base)) {
				snprintf(buf, size, "%s=%s", k->name, o);
				return;
			}
	}
}

/* The value the TINY run gives key name (its --set, else the default). */
static const char *base_value(const td_config_key *k)
{
	static const char *const tiny[] = {TINY};

	for (size_t i = 0; i + 1 < sizeof tiny / sizeof tiny[0]; i++)
		if (!strcmp(tiny[i], "--set") && !strncmp(tiny[i + 1], k->name, strlen(k->name)) &&
		    tiny[i + 1][strlen(k->name)] == '=')
			return tiny[i + 1] + strlen(k->name) + 1;
	return k->def;
}

/*
 * Every key the config accepts changes the run (its log, which records
 * every loss, eval, checkpoint and the final weights' hash) or is refused
 * for training; threads is the one key that must change nothing.
 */
static void test_every_config_key_changes_the_run_or_is_refused(void **state)
{
	const char *base[] = {"train", TINY, "--out", "base", NULL};
	char base_log[1 << 16];
	size_t n_keys;
	const td_config_key *keys = td_config_keys(&n_keys);
	int silent = 0;

	(void)state;
	enter();
	assert_int_equal(tdtrain(base), 0);
	snprintf(base_log, sizeof base_log, "%s", fx_slurp("base/log.jsonl"));
	for (size_t i = 0; i < n_keys; i++) {
		const char *args[] = {"train", TINY, "--set", NULL, "--out", NULL, NULL};
		char set[300], dir[64], log[80];
		int rc, same;

		other_value(set, sizeof set, &keys[i], base_value(&keys[i]));
		snprintf(dir, sizeof dir, "alt-%zu", i); /* a fresh run directory: logs append */
		snprintf(log, sizeof log, "%s/log.jsonl", dir);
		args[sizeof args / sizeof args[0] - 4] = set;
		args[sizeof args / sizeof args[0] - 2] = dir;
		rc = tdtrain(args);
		same = rc == 0 && !strcmp(base_log, fx_slurp(log));
		if (!strcmp(keys[i].name, "threads") ? (rc != 0 || !same) : (rc == 0 && same)) {
			print_message("  --set %s: %s\n", set,
				      rc ? "refused" : same ? "changed nothing" : "changed the run");
			silent++;
		}
	}
	assert_int_equal(silent, 0);
}

/* Lines of path (each ends in a newline). */
static int count_lines(const char *path)
{
	int n = 0;

	for (const char *p = fx_slurp(path); *p; p++)
		n += *p == '\n';
	return n;
}

/*
 * A run writes the manifests of what it read: one line per training
 * example (steps x batch) and one per example of the evaluation set
 * (eval_batches x batch), each {"id":"<dataset>/<seed>/<index>","hash":H}
 * where H is FNV-1a 64 of the inputs then the label, as docs/tdtrain.md
 * says; the evaluation's ids start at the evaluation range.
 */
static void test_the_manifests_list_every_example_the_run_read(void **state)
{
	const char *run[] = {"train", TINY, "--out", "r", NULL};
	td_synth_example *ex = NULL;
	char want[160];
	uint64_t h;
	int label;

	(void)state;
	enter();
	assert_int_equal(tdtrain(run), 0);
	assert_int_equal(count_lines("r/train.jsonl"), 40 * 8);
	assert_int_equal(count_lines("r/eval.jsonl"), 10 * 8);
	assert_int_equal(td_synth_example_new(&ex, TD_SYNTH_ROW, 1, 0), 0);
	label = ex->target;
	h = td_fnv1a64(TD_FNV1A64_OFFSET, ex->x, ex->n_cells * sizeof *ex->x);
	h = td_fnv1a64(h, &label, sizeof label);
	td_synth_example_free(ex);
	snprintf(want, sizeof want, "{\"id\":\"synth-row/1/0\",\"hash\":\"%016llx\"}\n",
		 (unsigned long long)h);
	assert_memory_equal(fx_slurp("r/train.jsonl"), want, strlen(want));
	snprintf(want, sizeof want, "{\"id\":\"synth-row/1/%llu\",",
		 (unsigned long long)TD_SYNTH_EVAL_FIRST);
	assert_memory_equal(fx_slurp("r/eval.jsonl"), want, strlen(want));
}

/*
 * inject_nonfinite_every = 10 puts a NaN in steps 10, 20, 30 and 40: each
 * is skipped by the firewall and both counters say why; the weights differ
 * from the run without it, since four steps were not applied.
 */
static void test_injected_nonfinite_inputs_are_skipped_and_counted(void **state)
{
	const char *base[] = {"train", TINY, "--out", "base", NULL};
	const char *run[] = {"train", TINY, "--set", "inject_nonfinite_every=10", "--out", "r", NULL};
	char base_hash[17];
	const char *log;

	(void)state;
	enter();
	assert_int_equal(tdtrain(base), 0);
	snprintf(base_hash, sizeof base_hash, "%s", weights("base"));
	assert_int_equal(tdtrain(run), 0);
	assert_string_not_equal(weights("r"), base_hash);
	log = fx_slurp("r/log.jsonl");
	assert_non_null(strstr(log, "\"nan_step_skipped\":{\"count\":4,"));
	assert_non_null(strstr(log, "\"nonfinite_injected\":{\"count\":4,\"why\":["
				    "\"inject_nonfinite_every = 10: step 10's first example, cell 0\""));
}

/*
 * A run whose every step is skipped stops at its second log window, and
 * the windows it names are the steps that ran, counted from 1: 1-10 in
 * the log, 11-20 in the error (they once read 0-10 and 10-20, DEBUG.md
 * #99).
 */
static void test_the_firewall_names_the_windows_it_stopped_on_by_their_steps(void **state)
{
	const char *run[] = {"train", TINY, "--set", "inject_nonfinite_every=1", "--out", "r", NULL};

	(void)state;
	enter();
	assert_int_not_equal(tdtrain(run), 0);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "windows (the last steps 11-20) had no"));
	assert_non_null(strstr(fx_slurp("r/log.jsonl"),
			       "\"window_without_finite_step\":{\"count\":1,\"why\":[\"steps 1-10: "
			       "all 10 gradients were NaN or inf\"]}"));
}

/*
 * Every reason a run counted reaches the text output as well as the JSON
 * log. A NaN in step 40, the last, makes the last progress line's JSON
 * count json_nonfinite_as_null while it is written: that reason used to
 * reach log.jsonl and never stdout (DEBUG.md #38).
 */
static void test_every_counted_reason_reaches_the_text_output(void **state)
{
	const char *run[] = {"train", "--set", "dataset=synth-row", "--set", "width=8", "--set",
			     "layers=4", "--set", "steps=40", "--set", "warmup=5", "--set",
			     "batch=8", "--set", "log_every=10", "--set", "eval_every=20", "--set",
			     "inject_nonfinite_every=40", "--out", "r", NULL};
	const char *p;
	char reason[256];

	(void)state;
	enter();
	assert_int_equal(tdtrain(run), 0);
	p = strstr(fx_slurp("r/log.jsonl"), "field 'loss' was nan in line");
	assert_non_null(p);
	/* copied out: fx_slurp reuses its buffer */
	snprintf(reason, sizeof reason, "%.*s", (int)strcspn(p, "\""), p);
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), reason));
	assert_non_null(strstr(fx_slurp("r/log.jsonl"), "gradient[0] was nan at step 40"));
	assert_non_null(strstr(fx_slurp("../tdtrain.log"), "gradient[0] was nan at step 40"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_different_seeds_give_different_initial_weights),
	cmocka_unit_test(test_one_seed_gives_one_run_whatever_the_thread_count),
	cmocka_unit_test(test_a_resumed_run_equals_the_uninterrupted_run_bitwise),
	cmocka_unit_test(test_a_run_may_resume_with_another_thread_count),
	cmocka_unit_test(test_the_final_eval_is_logged_and_scores_what_eval_scores),
	cmocka_unit_test(test_the_resolved_config_is_written_beside_the_run),
	cmocka_unit_test(test_the_loss_averages_over_the_cells_present_in_the_example),
	cmocka_unit_test(test_a_progress_line_reports_the_mean_loss_of_its_window),
	cmocka_unit_test(test_a_task_with_absent_cells_per_example_trains),
	cmocka_unit_test(test_keys_this_version_cannot_honour_are_refused),
	cmocka_unit_test(test_a_corrupt_checkpoint_is_refused_on_resume),
	cmocka_unit_test(test_eval_writes_only_in_its_tmpdir_and_so_runs_confined),
	cmocka_unit_test(test_tdtrain_refuses_an_option_given_twice),
	cmocka_unit_test(test_tdtrain_refuses_a_stop_after_that_is_not_a_whole_number),
	cmocka_unit_test(test_every_config_key_changes_the_run_or_is_refused),
	cmocka_unit_test(test_every_built_mixer_and_family_trains),
	cmocka_unit_test(test_the_manifests_list_every_example_the_run_read),
	cmocka_unit_test(test_injected_nonfinite_inputs_are_skipped_and_counted),
	cmocka_unit_test(test_every_counted_reason_reaches_the_text_output),
	cmocka_unit_test(test_the_firewall_names_the_windows_it_stopped_on_by_their_steps),
};
TD_TEST_GROUP(train, tests);
