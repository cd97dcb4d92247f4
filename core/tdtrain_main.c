/*
 * tdtrain_main.c - the tdtrain command line.
 *
 *   tdtrain train [--config F] [--set k=v]... [--out DIR] [--threads N] [--device D]
 *                 [--resume CKPT]
 *   tdtrain eval --checkpoint F [--device D]
 *   tdtrain hash [--config F] [--set k=v]... [--device D]
 *
 * Each command's options are a table for base/opt.c, which parses them
 * and prints the usage from the same table. Exit status: 0 done, 1 the run
 * stopped on its own grounds (the NaN firewall), 2 usage, config or data
 * errors. Only this file may exit.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../base/error.h"
#include "../base/opt.h"
#include "../base/strv.h"
#include "train.h"

/* What the options of every command set; zero: not given. */
typedef struct {
	const char *config, *out, *resume, *checkpoint, *device; /* device: eval's */
	char **sets; /* --set key=value, --threads N and --device D as key=value, in order (a td_strv) */
	int quiet;
	long long stop_after;
} args;

/*
 * --threads N and --device D: the shorthands of --set threads=N and --set
 * device=D, each in its place among the --set (the config checks the value).
 */
static int shorthand(const td_opt *opt, void *a, const char *value, char *why, size_t why_size)
{
	char kv[300];

	snprintf(kv, sizeof kv, "%s=%s", opt->name + 2, value);
	if (td_strv_push(&((args *)a)->sets, kv) != 0)
		return snprintf(why, why_size, "could not be kept: out of memory"), 1;
	return 0;
}

#define CONFIG_OPTS                                                                                \
	{.name = "--config", .arg = "F", .type = TD_OPT_STRING, .at = offsetof(args, config),     \
	 .help = "the config file (key = value lines); keys it does not set take their defaults"}, \
	{.name = "--set", .arg = "key=value", .repeatable = 1, .type = TD_OPT_STRINGS,             \
	 .at = offsetof(args, sets),                                                                \
	 .help = "one key, over the config file's (repeatable; a key set twice is refused)"},      \
	{.name = "--threads", .arg = "N", .type = TD_OPT_CALL, .call = shorthand,                  \
	 .help = "worker threads: the same as --set threads=N"},                                   \
	{.name = "--device", .arg = "D", .type = TD_OPT_CALL, .call = shorthand,                   \
	 .help = "cpu or cuda: the same as --set device=D; cuda is refused where it cannot run"}

static const char after[] =
	"The keys and their ranges: core/config.c; an unknown key is refused with the\n"
	"nearest one suggested. exit status: 0 done, 1 the run stopped itself (two log\n"
	"windows without a finite step), 2 usage, config or data error.\n";

static const td_opt train_opts[] = {
	CONFIG_OPTS,
	{.name = "--out", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, out),
	 .help = "the run directory (default: run)"},
	{.name = "--resume", .arg = "CKPT", .type = TD_OPT_STRING, .at = offsetof(args, resume),
	 .help = "continue from a checkpoint, bit for bit"},
	{.name = "--stop-after", .arg = "N", .type = TD_OPT_LONG, .at = offsetof(args, stop_after),
	 .min = 1, .unit = "steps",
	 .help = "stop after N steps with a checkpoint, as an interruption would"},
	{.name = "--quiet", .type = TD_OPT_FLAG, .at = offsetof(args, quiet),
	 .help = "no progress lines on stdout"},
	{0},
};

static const td_opt eval_opts[] = {
	{.name = "--checkpoint", .arg = "F", .required = 1, .type = TD_OPT_STRING,
	 .at = offsetof(args, checkpoint), .help = "the checkpoint to score"},
	{.name = "--device", .arg = "D", .type = TD_OPT_STRING, .at = offsetof(args, device),
	 .help = "cpu or cuda (default: the checkpoint's); cuda is refused where it cannot run"},
	{0},
};

static const td_opt hash_opts[] = {
	CONFIG_OPTS,
	{.name = "--quiet", .type = TD_OPT_FLAG, .at = offsetof(args, quiet),
	 .help = "accepted as train takes it; hash prints the hash alone either way"},
	{0},
};

static const td_opt_cmd commands[] = {
	{.program = "tdtrain", .name = "train", .opts = train_opts, .after = after,
	 .about = "Trains as the config says (defaults for keys it does not set) and writes\n"
		  "DIR/config.txt, DIR/log.jsonl, DIR/checkpoint.bin and the manifests of\n"
		  "what it read, DIR/train.jsonl and DIR/eval.jsonl.\n"},
	{.program = "tdtrain", .name = "eval", .opts = eval_opts, .after = after,
	 .about = "Scores a checkpoint's weights on its evaluation range.\n"},
	{.program = "tdtrain", .name = "hash", .opts = hash_opts, .after = after,
	 .about = "Prints the FNV-1a 64 hash of the initial weights (no training).\n"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		td_opt_synopsis(f, &commands[i], i == 0);
	fputs("\n"
	      "train  trains as the config says (defaults for keys it does not set) and writes\n"
	      "       DIR/config.txt, DIR/log.jsonl and DIR/checkpoint.bin (default DIR: run);\n"
	      "       --stop-after N stops after N steps with a checkpoint, as an interruption\n"
	      "       would; --resume continues from one, bit for bit\n"
	      "eval   scores a checkpoint's weights on its evaluation range\n"
	      "hash   prints the FNV-1a 64 hash of the initial weights (no training)\n"
	      "\n"
	      "tdtrain help CMD (or tdtrain CMD --help) prints the options of one command.\n",
	      f);
	fprintf(f, "\n%s", after);
}

static const td_opt_cmd *command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static int load(td_config **cfg, const args *a)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;

	spec.path = a->config;
	spec.overrides = (const char *const *)a->sets;
	spec.n_overrides = td_strv_len(a->sets);
	if (td_config_new(cfg, &spec) != 0) {
		fprintf(stderr, "tdtrain: %s\n", td_error_last());
		return 2;
	}
	return 0;
}

static int eval(const args *a)
{
	td_train_eval_result r;

	if (td_train_eval_checkpoint(&r, a->checkpoint, a->device) != 0) {
		fprintf(stderr, "tdtrain eval: %s\n", td_error_last());
		return 2;
	}
	printf("eval  loss %.6f  accuracy %.4f  (%lld examples, content %016llx)\n", r.loss,
	       r.accuracy, (long long)r.examples, (unsigned long long)r.content);
	return 0;
}

/* hash or train, as name says; the exit status. */
static int run(const char *name, const args *a)
{
	td_config *cfg = NULL;
	int rc = load(&cfg, a);

	if (rc)
		return rc;
	if (!strcmp(name, "hash")) {
		uint64_t h;

		rc = td_train_hash(&h, cfg) ? 2 : 0;
		if (!rc)
			printf("%016llx\n", (unsigned long long)h);
	} else {
		td_train_opts o = TD_TRAIN_OPTS_INIT;

		o.out_dir = a->out ? a->out : "run", o.resume = a->resume, o.quiet = a->quiet;
		o.stop_after = a->stop_after;
		rc = td_train(cfg, &o);
		rc = rc == 0 ? 0 : rc == TD_ESTATE ? 1 : 2;
	}
	if (rc)
		fprintf(stderr, "tdtrain %s: %s\n", name, td_error_last());
	td_config_free(cfg);
	return rc;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";
	const td_opt_cmd *cmd = command(name);
	args a = {0};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || (!strcmp(name, "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "help") && (cmd = command(argv[2]))) {
		td_opt_usage(stdout, cmd);
		return 0;
	}
	if (!cmd) {
		fprintf(stderr, "tdtrain: no command '%s'\n", !strcmp(name, "help") ? argv[2] : name);
		usage(stderr);
		return 2;
	}
	rc = td_opt_parse(cmd, &a, argc - 1, argv + 1, NULL);
	if (rc == TD_OPT_RUN)
		rc = !strcmp(name, "eval") ? eval(&a) : run(name, &a);
	td_strv_free(a.sets);
	return rc;
}
