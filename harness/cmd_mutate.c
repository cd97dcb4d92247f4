/*
 * cmd_mutate.c - the command line of `tdaudit mutate` (see mutate.h for
 * what a run does): its table of options for base/opt.c, which parses
 * them and prints the usage.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "mutate.h"
#include "variant.h"
#include "../base/error.h"
#include "../base/opt.h"
#include "../base/strv.h"

/* What mutate's options set; zero: not given. */
typedef struct {
	td_mutate_opts o;
	char **only;      /* the --only patterns (a td_strv) */
	char **catalogues; /* the --catalogue globs (a td_strv) */
	char **files;     /* the --file globs (a td_strv) */
	char **variants;  /* the --variant names (a td_strv) */
	const char *which; /* --variants */
	const char *root; /* --root DIR */
} args;

/*
 * --shard K/N: whole numbers 1 <= K <= N <= 10000, all of the argument.
 * "0/3", "4/3", "1/0", "1/", "a/b" and "1/3x" are refused, since a CI
 * matrix that passes a wrong index would otherwise run some other shard,
 * or none, and report it green.
 */
static int parse_shard(const td_opt *opt, void *a, const char *v, char *why, size_t why_size)
{
	char *end = NULL;
	long k, n = 0;

	(void)opt;
	k = strtol(v, &end, 10);
	if (end != v && *end == '/' && end[1] >= '0' && end[1] <= '9')
		n = strtol(end + 1, &end, 10);
	if (!n || *end || k < 1 || n < 1 || n > 10000 || k > n || v[0] < '0' || v[0] > '9')
		return snprintf(why, why_size, "is K/N, whole numbers with 1 <= K <= N <= 10000 "
					       "(shard K of N), not '%s'", v), 1;
	((args *)a)->o.shard_k = (int)k, ((args *)a)->o.shard_n = (int)n;
	return 0;
}

/* --fail-under SCORE (td_parse_score). */
static int parse_score(const td_opt *opt, void *a, const char *v, char *why, size_t why_size)
{
	(void)opt;
	return td_parse_score(&((args *)a)->o.fail_under, v, why, why_size);
}

static const td_opt opts[] = {
	{.name = "--catalogue", .arg = "GLOB", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, catalogues),
	 .help = "run the catalogues matching GLOB (relative to the repository, as tdaudit.lua's "
		 "globs) instead of those tdaudit.lua names: a generate { } over a whole tree for a "
		 "weekly job, kept out of every other run (repeatable; a glob that matches none is "
		 "refused)"},
	{.name = "--only", .arg = "PATTERN", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, only),
	 .help = "only mutants whose id matches the shell pattern (repeatable: those matching any; "
		 "a pattern that matches none is refused)"},
	{.name = "--file", .arg = "GLOB", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, files),
	 .help = "only mutants of files matching GLOB, as tdaudit.lua's globs match ('*' does not "
		 "cross '/'); with --list, also shows their guards: what breaks core/plan.c, and who "
		 "guards it? (repeatable: files matching any; a glob that matches none is refused)"},
	{.name = "--diff", .arg = "REV", .type = TD_OPT_STRING, .at = offsetof(args, o.diff),
	 .help = "only mutants on lines changed since REV (working tree included; not with --rev)"},
	{.name = "--rev", .arg = "REV", .type = TD_OPT_STRING, .at = offsetof(args, o.rev),
	 .help = "mutate the committed revision REV instead of the working tree (tdaudit.lua and "
		 "the catalogues still come from the working tree)"},
	{.name = "--jobs", .short_name = 'j', .arg = "N", .type = TD_OPT_INT,
	 .at = offsetof(args, o.jobs), .min = 1, .max = 64,
	 .help = "scratch workers (default: the number of cores)"},
	{.name = "--timeout", .arg = "S", .type = TD_OPT_POSITIVE, .at = offsetof(args, o.timeout),
	 .unit = "seconds", .help = "seconds per test (default: factor x its baseline time, floor)"},
	{.name = "--list", .type = TD_OPT_FLAG, .at = offsetof(args, o.list),
	 .help = "print the mutants (id, file:line, operator, state); run nothing"},
	{.name = "--guard", .arg = "TEST", .type = TD_OPT_STRING, .at = offsetof(args, o.guard),
	 .help = "with --list: only entries naming a guard matching the shell pattern TEST, with "
		 "their guards: what does this test guard? (a pattern that matches none is refused)"},
	{.name = "--json", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, o.json),
	 .help = "write the report as JSON (schema tdaudit.mutate/1)"},
	{.name = "--junit", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, o.junit),
	 .help = "write the report as JUnit XML (survivors are failures)"},
	{.name = "--ledger", .arg = "DB", .type = TD_OPT_STRING, .at = offsetof(args, o.ledger),
	 .help = "record the run in DB instead of the ledger tdaudit.lua names (a shard's own "
		 "ledger, for tdaudit ledger merge)"},
	{.name = "--variant", .arg = "NAME", .repeatable = 1, .type = TD_OPT_STRINGS,
	 .at = offsetof(args, variants),
	 .help = "build every mutant with the variant NAME of tdaudit.lua (\"default\": build { } "
		 "itself), recorded with the run; repeatable: one whole run per variant, each its own "
		 "ledger run, --json/--junit FILE written as FILE-NAME.EXT; default: the variant the "
		 "mutated commit's date or range chooses, else default"},
	{.name = "--variants", .arg = "WHICH", .type = TD_OPT_STRING, .at = offsetof(args, which),
	 .help = "\"all\": one run per variant of tdaudit.lua, default first; or a comma list of "
		 "names"},
	{.name = "--survivors", .type = TD_OPT_FLAG, .at = offsetof(args, o.survivors),
	 .help = "only the mutants that survived the previous run: the latest finished unsharded "
		 "mutate run in the ledger (survivors gone from the catalogues are listed; no such "
		 "run: exit 2; none survived: exit 0)"},
	{.name = "--sanitize", .type = TD_OPT_FLAG, .at = offsetof(args, o.sanitize),
	 .help = "build with tdaudit.lua's variant \"sanitize\" (or --variant's) and run under "
		 "ASAN_OPTIONS/UBSAN_OPTIONS that make every AddressSanitizer, LeakSanitizer or "
		 "UBSan report fail the test: a kill, with the report's first lines"},
	{.name = "--schemata", .type = TD_OPT_FLAG, .at = offsetof(args, o.schemata),
	 .help = "judge the generated mutants of each .c file in one build of the file's mutant "
		 "schema, each mutant chosen at run time (what a schema cannot hold, or a schema "
		 "that does not build or pass the suite unmutated, is built one by one, counted)"},
	{.name = "--keep-werror", .type = TD_OPT_FLAG, .at = offsetof(args, o.keep_werror),
	 .help = "build mutants with the project's -Werror (by default -Wno-error follows the flags "
		 "of every cc, gcc, clang, c++, g++ and clang++ a build runs by name)"},
	{.name = "--run-unreached", .type = TD_OPT_FLAG, .at = offsetof(args, o.run_unreached),
	 .help = "with --schemata, run the suite for a mutant that no test reached with no mutant "
		 "on (by default it is no-coverage, counted as a survivor, and nothing runs)"},
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),
	 .help = "the repository (default: the one holding the current directory)"},
	{.name = "--shard", .arg = "K/N", .type = TD_OPT_CALL, .call = parse_shard,
	 .help = "only shard K of N of the selected mutants, by a hash of each mutant's id (the "
		 "baseline runs in every shard; merge the shards' ledgers with tdaudit ledger merge)"},
	{.name = "--fail-under", .arg = "SCORE", .type = TD_OPT_CALL, .call = parse_score,
	 .help = "exit 1 when the mutation score, killed / (killed + killed-elsewhere + survived + "
		 "no-coverage + timeout) in percent, is below SCORE (0 to 100)"},
	{.name = "--cold", .type = TD_OPT_FLAG, .at = offsetof(args, o.cold),
	 .help = "the naive way, for benchmarks: a fresh copy, a clean build and the whole suite "
		 "for every mutant (same outcomes, much slower)"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "mutate",
	.hint = "tdaudit help mutate",
	.opts = opts,
	.about = "Runs every mutant of the catalogues named in tdaudit.lua in scratch copies\n"
		 "outside the repository (the working tree, index and HEAD are never touched):\n"
		 "build, run the guards, then the rest of the suite.\n",
	.after = "exit status: 0 every mutant caught; 1 a mutant survived, was stale, was\n"
		 "killed only by a test not named as its guard, was not rebuilt, was reached\n"
		 "by no test (no-coverage), or is a catalogue entry that\n"
		 "does not build, or the score is below --fail-under; 2 usage or environment\n"
		 "error (a red baseline included).\n",
};

/*
 * One whole run per variant --variant / --variants name (a single run when
 * they name none or one), each recorded as its own ledger run; report files
 * get the variant's name when there are several. The worst exit status wins.
 */
static int run_variants(const char *root, args *a)
{
	char **names = NULL, json[4200], junit[4200];
	size_t n;
	int rc = 0, one;

	if (td_variant_names(&names, root, a->variants, a->which) != 0) {
		fprintf(stderr, "tdaudit mutate: %s\n", td_error_last());
		return 2;
	}
	n = td_strv_len(names);
	if (n <= 1 || a->o.list) { /* a listing is the same under every variant */
		a->o.variant = n ? names[0] : NULL;
		rc = td_mutate(root, &a->o);
		td_strv_free(names);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		td_mutate_opts o = a->o;

		printf("%stdaudit mutate: variant %s (%zu of %zu)\n", i ? "\n" : "", names[i], i + 1, n);
		fflush(stdout);
		o.variant = names[i];
		if (o.json)
			o.json = td_variant_path(json, sizeof json, o.json, names[i]);
		if (o.junit)
			o.junit = td_variant_path(junit, sizeof junit, o.junit, names[i]);
		one = td_mutate(root, &o);
		rc = one > rc ? one : rc;
	}
	td_strv_free(names);
	return rc;
}

void td_usage_mutate(FILE *f)
{
	td_opt_usage(f, &cmd);
}

int td_cmd_mutate(int argc, char **argv)
{
	args a = {0};
	char root[PATH_MAX], command[1024];
	int rc = td_opt_parse(&cmd, &a, argc, argv, NULL);

	if (rc != TD_OPT_RUN)
		goto done;
	rc = td_find_root(root, sizeof root, a.root);
	if (rc)
		goto done;
	a.o.catalogues = a.catalogues;
	a.o.files = a.files;
	a.o.only = (const char *const *)a.only;
	a.o.n_only = td_strv_len(a.only);
	a.o.color = isatty(1) && !getenv("NO_COLOR");
	a.o.command = td_command_line(command, sizeof command, argc, argv);
	rc = run_variants(root, &a);
done:
	td_strv_free(a.only);
	td_strv_free(a.catalogues);
	td_strv_free(a.files);
	td_strv_free(a.variants);
	return rc;
}
