/*
 * cmd_ledger.c - tdaudit ledger check | export | merge.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../ledger/ledger.h"
#include "commands.h"
#include "ledgercheck.h"
#include "project.h"
#include "record.h"

const char td_usage_ledger[] =
	"usage: tdaudit ledger check [--root DIR]\n"
	"       tdaudit ledger export --format md|json [-o FILE] [--root DIR]\n"
	"       tdaudit ledger merge DB... -o OUT\n"
	"\n"
	"check   DEBUG.md against the ledger, the test runner, git history and the\n"
	"        catalogues; every problem names its DEBUG.md line (what CI runs)\n"
	"export  the ledger's findings: md is DEBUG.md's summary table, json the\n"
	"        documented format of ledger/ledger.h; to stdout or atomically to FILE\n"
	"merge   shard ledgers into OUT (created if missing); merging the same ledger\n"
	"        twice adds nothing\n"
	"\n"
	"The ledger is the one tdaudit.lua names (default .tdaudit/ledger.db).\n"
	"exit status: 0 clean, 1 problems found, 2 usage or environment error.\n";

static int export(const char *root, const char *format, const char *out)
{
	td_project *p = NULL;
	td_ledger *lg = NULL;
	char path[8192], *text = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int err = td_project_load(&p, root);

	if (!err) {
		td_record_ledger_path(path, sizeof path, p);
		err = td_ledger_open(&lg, path, 0);
	}
	if (!err && !(f = open_memstream(&text, &len)))
		err = TD_FAIL(TD_ENOMEM, "out of memory");
	if (!err)
		err = !strcmp(format, "md") ? td_ledger_export_md(f, lg) : td_ledger_export_json(f, lg);
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

static int merge(int argc, char **argv)
{
	const char *out = NULL;
	int n_src = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc && out)
			return td_usage_error("ledger", "merge: -o is given twice; give it once%s", "");
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] == '-')
			return td_usage_error("ledger", "merge: unknown option '%s'", argv[i]);
		else
			n_src++;
	}
	if (!out || n_src == 0)
		return td_usage_error("ledger", "merge needs at least one DB and -o OUT%s", "");
	for (int i = 1; i < argc; i++) {
		long added = 0;

		if (!strcmp(argv[i], "-o")) {
			i++;
			continue;
		}
		if (td_ledger_merge(&added, out, argv[i]) != 0) {
			fprintf(stderr, "tdaudit ledger merge: %s: %s\n", argv[i], td_error_last());
			return 2;
		}
		printf("merged %s: %ld rows added\n", argv[i], added);
	}
	return 0;
}

int td_cmd_ledger(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "", *root_arg = NULL, *format = NULL, *out = NULL;
	td_opts_seen seen = {{NULL}, 0};
	char root[PATH_MAX];
	int rc;

	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		fputs(td_usage_ledger, stdout);
		return 0;
	}
	if (!strcmp(sub, "merge"))
		return merge(argc - 1, argv + 1);
	if (strcmp(sub, "check") && strcmp(sub, "export"))
		return td_usage_error("ledger", "no subcommand '%s' (check, export, merge)", sub);
	for (int i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if ((!strcmp(argv[i], "--root") || !strcmp(argv[i], "--format") ||
		     !strcmp(argv[i], "-o")) &&
		    td_option_once(&seen, "ledger", argv[i]))
			return 2;
		if (!strcmp(argv[i], "--root") && v)
			root_arg = v, i++;
		else if (!strcmp(argv[i], "--format") && v && !strcmp(sub, "export"))
			format = v, i++;
		else if (!strcmp(argv[i], "-o") && v && !strcmp(sub, "export"))
			out = v, i++;
		else
			return td_usage_error("ledger", "%s: unknown or incomplete option '%s'", sub, argv[i]);
	}
	rc = td_find_root(root, sizeof root, root_arg);
	if (rc)
		return rc;
	if (!strcmp(sub, "check"))
		return td_ledger_check(root);
	if (!format || (strcmp(format, "md") && strcmp(format, "json")))
		return td_usage_error("ledger", "export needs --format md or --format json%s", "");
	return export(root, format, out);
}
