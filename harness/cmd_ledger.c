/*
 * cmd_ledger.c - tdaudit ledger check | export | merge: one table of
 * options for base/opt.c per subcommand, and what each runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/opt.h"
#include "../base/strv.h"
#include "../ledger/ledger.h"
#include "audit.h"
#include "commands.h"
#include "junit.h"
#include "ledgercheck.h"
#include "project.h"
#include "record.h"
#include "sarif.h"

/* What the options of check, export and merge set; zero: not given. */
typedef struct {
	const char *root;   /* --root DIR */
	const char *format; /* export --format md|json|sarif|junit */
	const char *out;    /* export's FILE, merge's OUT */
	const char *ledger; /* export --ledger DB */
} args;

/* --format md|json|sarif|junit. */
static int export_format(const td_opt *opt, void *a, const char *v, char *why, size_t why_size)
{
	(void)opt;
	if (strcmp(v, "md") && strcmp(v, "json") && strcmp(v, "sarif") && strcmp(v, "junit"))
		return snprintf(why, why_size, "is md, json, sarif or junit, not '%s'", v), 1;
	((args *)a)->format = v;
	return 0;
}

#define ROOT_OPT                                                                                   \
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),         \
	 .help = "the repository (default: the one holding the current directory)"}

static const td_opt check_opts[] = {ROOT_OPT, {0}};

static const td_opt export_opts[] = {
	{.name = "--format", .arg = "md|json|sarif|junit", .required = 1, .type = TD_OPT_CALL,
	 .call = export_format,
	 .help = "md is DEBUG.md's summary table, json the documented format of ledger/ledger.h, "
		 "sarif a SARIF 2.1.0 log for code scanning, junit JUnit XML for CI"},
	{.name = "--out", .short_name = 'o', .arg = "FILE", .type = TD_OPT_STRING,
	 .at = offsetof(args, out), .help = "write atomically to FILE (default: stdout)"},
	{.name = "--ledger", .arg = "DB", .type = TD_OPT_STRING, .at = offsetof(args, ledger),
	 .help = "export this ledger (a merged one, say) instead of the one tdaudit.lua names"},
	ROOT_OPT,
	{0},
};

static const td_opt merge_opts[] = {
	{.name = "--out", .short_name = 'o', .arg = "OUT", .required = 1, .type = TD_OPT_STRING,
	 .at = offsetof(args, out), .help = "the ledger merged into (created if missing)"},
	{0},
};

static const char about_check[] =
	"check   DEBUG.md against the ledger, the test runner, git history and the\n"
	"        catalogues; every problem names its DEBUG.md line (what CI runs)\n";
static const char about_export[] =
	"export  the ledger's findings: md is DEBUG.md's summary table, json the\n"
	"        documented format of ledger/ledger.h, sarif a SARIF 2.1.0 log (survivors,\n"
	"        mutants no test reaches, stale entries, killed-elsewhere and not-rebuilt\n"
	"        mutants, unverified guards, failed audits) for code scanning, junit the\n"
	"        latest mutate and audit runs as JUnit XML; to stdout or atomically to FILE\n";
static const char about_merge[] =
	"merge   shard ledgers into OUT (created if missing); merging the same ledger\n"
	"        twice adds nothing; shards of different commits or catalogues are\n"
	"        refused before anything is merged\n";

static const char after[] =
	"The ledger is the one tdaudit.lua names (default .tdaudit/ledger.db).\n"
	"exit status: 0 clean, 1 problems found, 2 usage or environment error.\n";

static const td_opt_cmd subs[] = {
	{.program = "tdaudit", .name = "ledger check", .hint = "tdaudit help ledger",
	 .opts = check_opts, .about = about_check, .after = after},
	{.program = "tdaudit", .name = "ledger export", .hint = "tdaudit help ledger",
	 .opts = export_opts, .about = about_export, .after = after},
	{.program = "tdaudit", .name = "ledger merge", .operands = "DB...",
	 .hint = "tdaudit help ledger", .opts = merge_opts, .about = about_merge, .after = after},
};
#define N_SUBS (sizeof subs / sizeof subs[0])

/* The three synopses, what each does, each one's options. */
void td_usage_ledger(FILE *f)
{
	for (size_t i = 0; i < N_SUBS; i++)
		td_opt_synopsis(f, &subs[i], i == 0);
	fprintf(f, "\n%s%s%s", about_check, about_export, about_merge);
	for (size_t i = 0; i < N_SUBS; i++) {
		fprintf(f, "\n%s:\n", subs[i].name + strlen("ledger "));
		td_opt_list(f, &subs[i]);
	}
	fprintf(f, "\n%s", after);
}

/* Writes lg in format to f; sarif locates audits at their scripts in p. */
static int write_format(FILE *f, const char *format, td_ledger *lg, const td_project *p)
{
	char **names = NULL, **scripts = NULL;
	int err;

	if (!strcmp(format, "md"))
		return td_ledger_export_md(f, lg);
	if (!strcmp(format, "json"))
		return td_ledger_export_json(f, lg);
	if (!strcmp(format, "junit"))
		return td_junit_write(f, lg);
	if ((err = td_audit_list(&names, &scripts, p)) == 0) {
		td_sarif_opts o = {.audit_names = names, .audit_scripts = scripts,
				   .tool_version = TD_TOOL_VERSION};

		err = td_sarif_write(f, lg, &o);
	}
	td_strv_free(names);
	td_strv_free(scripts);
	return err;
}

static int export(const char *root, const args *a)
{
	const char *format = a->format, *out = a->out;
	td_project *p = NULL;
	td_ledger *lg = NULL;
	char path[8192], *text = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int err = td_project_load(&p, root);

	if (!err) {
		if (a->ledger)
			snprintf(path, sizeof path, "%s", a->ledger);
		else
			td_record_ledger_path(path, sizeof path, p);
		err = td_ledger_open(&lg, path, 0);
	}
	if (!err && !(f = open_memstream(&text, &len)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		err = write_format(f, format, lg, p);
	if (f)
		fclose(f);
	if (!err && out)
		err = td_file_write_atomic(out, text, len, 0644);
	else if (!err)
		fwrite(text, 1, len, stdout);
	if (err)
		fprintf(stderr, "tdaudit ledger export: %s\n", td_error_last());
	free(text);
	td_ledger_free(lg);
	td_project_free(p);
	return err ? 2 : 0;
}

/*
 * Merges every source into a scratch ledger first (in a private directory
 * under TMPDIR), then the scratch into out in one transaction: out gets
 * all of them or, when any fails, none (a failure at a later source must
 * not leave the earlier ones merged, which a second try would count twice
 * as "0 rows added" and never say).
 */
static int merge(const td_opt_cmd *cmd, const char *out, char **dbs)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], scratch[4200];
	long added = 0;
	int err = 0;

	if (!dbs)
		return td_opt_error(cmd, "which ledgers? give at least one DB to merge into %s", out);
	if (td_ledger_check_shards((const char *const *)dbs, td_strv_len(dbs)) != 0) {
		fprintf(stderr, "tdaudit ledger merge: %s; nothing was merged\n", td_error_last());
		return 2;
	}
	snprintf(dir, sizeof dir, "%s/tdaudit-merge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "tdaudit ledger merge: cannot make a scratch directory %s: %s; nothing "
				"was merged\n", dir, strerror(errno));
		return 2;
	}
	snprintf(scratch, sizeof scratch, "%s/merge.db", dir);
	for (size_t i = 0; !err && dbs[i]; i++) {
		if ((err = td_ledger_merge(&added, scratch, dbs[i])) != 0)
			fprintf(stderr, "tdaudit ledger merge: %s: %s; nothing was merged into %s\n",
				dbs[i], td_error_last(), out);
		else
			printf("read %s: %ld rows\n", dbs[i], added);
	}
	if (!err && (err = td_ledger_merge(&added, out, scratch)) != 0)
		fprintf(stderr, "tdaudit ledger merge: %s: %s; nothing was merged\n", out,
			td_error_last());
	else if (!err)
		printf("merged %zu ledger%s into %s: %ld rows added\n", td_strv_len(dbs),
		       td_strv_len(dbs) == 1 ? "" : "s", out, added);
	for (const char *const *x = (const char *const[]){"", "-wal", "-shm", "-journal", NULL}; *x;
	     x++) {
		char f[4300];

		snprintf(f, sizeof f, "%s%s", scratch, *x);
		unlink(f);
	}
	rmdir(dir);
	return err ? 2 : 0;
}

int td_cmd_ledger(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	const td_opt_cmd *cmd = NULL;
	char root[PATH_MAX], **dbs = NULL;
	args a = {0};
	int rc;

	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		td_usage_ledger(stdout);
		return 0;
	}
	for (size_t i = 0; i < N_SUBS; i++)
		if (!strcmp(sub, subs[i].name + strlen("ledger ")))
			cmd = &subs[i];
	if (!cmd)
		return td_usage_error("ledger", "no subcommand '%s' (check, export, merge)", sub);
	rc = td_opt_parse(cmd, &a, argc - 1, argv + 1, cmd->operands ? &dbs : NULL);
	if (rc == TD_OPT_RUN && cmd == &subs[2])
		rc = merge(cmd, a.out, dbs);
	else if (rc == TD_OPT_RUN && !(rc = td_find_root(root, sizeof root, a.root)))
		rc = cmd == &subs[0] ? td_ledger_check(root) : export(root, &a);
	td_strv_free(dbs);
	return rc;
}
