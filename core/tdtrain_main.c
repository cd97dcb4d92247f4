/*
 * tdtrain_main.c - the tdtrain command line.
 *
 *   tdtrain train [--config F] [--set k=v]... [--out DIR] [--threads N] [--resume CKPT]
 *   tdtrain eval --checkpoint F
 *   tdtrain hash [--config F] [--set k=v]...
 *
 * Exit status: 0 done, 1 the run stopped on its own grounds (the NaN
 * firewall), 2 usage, config or data errors. Only this file may exit.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../base/error.h"
#include "train.h"

static const char usage[] =
	"usage: tdtrain train [--config F] [--set key=value]... [--out DIR] [--threads N]\n"
	"                     [--resume CKPT] [--stop-after N] [--quiet]\n"
	"       tdtrain eval --checkpoint F\n"
	"       tdtrain hash [--config F] [--set key=value]...\n"
	"\n"
	"train  trains as the config says (defaults for keys it does not set) and writes\n"
	"       DIR/config.txt, DIR/log.jsonl and DIR/checkpoint.bin (default DIR: run);\n"
	"       --stop-after N stops after N steps with a checkpoint, as an interruption\n"
	"       would; --resume continues from one, bit for bit\n"
	"eval   scores a checkpoint's weights on its evaluation range\n"
	"hash   prints the FNV-1a 64 hash of the initial weights (no training)\n"
	"\n"
	"The keys and their ranges: core/config.c; an unknown key is refused with the\n"
	"nearest one suggested. exit status: 0 done, 1 the run stopped itself (two log\n"
	"windows without a finite step), 2 usage, config or data error.\n";

typedef struct {
	const char *config, *out, *resume, *checkpoint;
	const char *sets[64];
	size_t n_sets;
	char threads[32];
	int quiet;
	long long stop_after;
} args;

/*
 * Records option o in seen (n of them so far); 1 when it was there
 * already and is not --set, the one repeatable option: the last value
 * would otherwise silently win.
 */
static int given_before(const char **seen, int *n, const char *o)
{
	for (int j = 0; j < *n; j++)
		if (!strcmp(seen[j], o) && strcmp(o, "--set"))
			return 1;
	if (*n < 16)
		seen[(*n)++] = o;
	return 0;
}

/* 1 when all of s is a whole number >= 1 (put in *out), else 0. */
static int steps(long long *out, const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < 1 || !isdigit((unsigned char)*s))
		return 0;
	*out = v;
	return 1;
}

static int parse(args *a, int argc, char **argv)
{
	const char *seen[16];
	int n_seen = 0;

	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (given_before(seen, &n_seen, o)) {
			fprintf(stderr, "tdtrain %s: %s is given twice; give it once\n", argv[1], o);
			return 2;
		}
		if (!strcmp(o, "--quiet")) {
			a->quiet = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "tdtrain: %s needs a value\n%s", o, usage);
			return 2;
		}
		i++;
		if (!strcmp(o, "--config"))
			a->config = v;
		else if (!strcmp(o, "--out"))
			a->out = v;
		else if (!strcmp(o, "--resume"))
			a->resume = v;
		else if (!strcmp(o, "--checkpoint"))
			a->checkpoint = v;
		else if (!strcmp(o, "--stop-after")) {
			if (!steps(&a->stop_after, v)) {
				fprintf(stderr, "tdtrain %s: --stop-after needs a whole number of steps, "
						"1 or more, not '%s'\n", argv[1], v);
				return 2;
			}
		}
		else if (!strcmp(o, "--set") && a->n_sets < 63)
			a->sets[a->n_sets++] = v;
		else if (!strcmp(o, "--threads") && a->n_sets < 63) {
			snprintf(a->threads, sizeof a->threads, "threads=%s", v);
			a->sets[a->n_sets++] = a->threads;
		} else {
			fprintf(stderr, "tdtrain: unknown option '%s'\n%s", o, usage);
			return 2;
		}
	}
	return 0;
}

static int load(td_config **cfg, const args *a)
{
	td_config_spec spec = TD_CONFIG_SPEC_INIT;

	spec.path = a->config;
	spec.overrides = a->sets;
	spec.n_overrides = a->n_sets;
	if (td_config_new(cfg, &spec) != 0) {
		fprintf(stderr, "tdtrain: %s\n", td_error_last());
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	args a = {0};
	td_config *cfg = NULL;
	const char *cmd = argc > 1 ? argv[1] : "";
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(cmd, "train") && strcmp(cmd, "eval") && strcmp(cmd, "hash")) {
		fprintf(stderr, "tdtrain: no command '%s'\n%s", cmd, usage);
		return 2;
	}
	if ((rc = parse(&a, argc, argv)) != 0)
		return rc;
	if (!strcmp(cmd, "eval")) {
		td_train_eval_result r;

		if (!a.checkpoint) {
			fprintf(stderr, "tdtrain eval: --checkpoint F is required\n");
			return 2;
		}
		if (td_train_eval_checkpoint(&r, a.checkpoint) != 0) {
			fprintf(stderr, "tdtrain eval: %s\n", td_error_last());
			return 2;
		}
		printf("eval  loss %.6f  accuracy %.4f  (%lld examples)\n", r.loss, r.accuracy,
		       (long long)r.examples);
		return 0;
	}
	if ((rc = load(&cfg, &a)) != 0)
		return rc;
	if (!strcmp(cmd, "hash")) {
		uint64_t h;

		rc = td_train_hash(&h, cfg) ? 2 : 0;
		if (!rc)
			printf("%016llx\n", (unsigned long long)h);
	} else {
		td_train_opts o = TD_TRAIN_OPTS_INIT;

		o.out_dir = a.out ? a.out : "run", o.resume = a.resume, o.quiet = a.quiet;
		o.stop_after = a.stop_after;
		rc = td_train(cfg, &o);
		rc = rc == 0 ? 0 : rc == TD_ESTATE ? 1 : 2;
	}
	if (rc)
		fprintf(stderr, "tdtrain %s: %s\n", cmd, td_error_last());
	td_config_free(cfg);
	return rc;
}
