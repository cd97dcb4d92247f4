/*
 * cmd_report.c - the command line of `tdaudit report` (see html.h for the
 * page): its table of options for base/opt.c, the ledger and repository
 * it reads, and the atomic write of the page.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/opt.h"
#include "commands.h"
#include "html.h"
#include "project.h"
#include "record.h"
#include "repo.h"

/* What report's options set; zero: not given. */
typedef struct {
	const char *html;   /* --html FILE */
	const char *ledger; /* --ledger DB */
	const char *log;    /* --log FILE */
	const char *root;   /* --root DIR */
} args;

static const td_opt opts[] = {
	{.name = "--html", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, html),
	 .help = "write the report to FILE as one self-contained HTML page, atomically (required)"},
	{.name = "--ledger", .arg = "DB", .type = TD_OPT_STRING, .at = offsetof(args, ledger),
	 .help = "read this ledger (a merged one, say) instead of the one tdaudit.lua names"},
	{.name = "--log", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, log),
	 .help = "also chart the training and evaluation loss of this tdtrain log.jsonl"},
	{.name = "--root", .arg = "DIR", .type = TD_OPT_STRING, .at = offsetof(args, root),
	 .help = "the repository whose tdaudit.lua names the ledger and whose catalogues give "
		 "the survivors' edits (default: the one holding the current directory)"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "report",
	.hint = "tdaudit help report",
	.opts = opts,
	.about = "Writes the findings ledger as one HTML page that needs no network: the\n"
		 "latest mutation run's score, outcomes and survivors (with their edits and\n"
		 "why), the score over every mutation run, the findings and their guards'\n"
		 "verdicts, the gates, the latest audit run with its evidence, the kill\n"
		 "matrix, and with --log the training curves.\n",
	.after = "exit status: 0 written; 2 usage or environment error (no ledger, a log\n"
		 "or the page that cannot be read or written).\n",
};

void td_usage_report(FILE *f)
{
	td_opt_usage(f, &cmd);
}

/*
 * The ledger (--ledger, or the project's) and the repository the edits
 * come from (--root, or the one holding the current directory; "" when
 * there is none: the page says the edits need it).
 */
static int locate(char *ledger, size_t lsize, char *root, size_t rsize, const args *a)
{
	char cwd[PATH_MAX];
	td_project *p = NULL;
	int rc;

	root[0] = '\0';
	if (a->ledger) {
		snprintf(ledger, lsize, "%s", a->ledger);
		if (a->root)
			return td_find_root(root, rsize, a->root);
		if (!getcwd(cwd, sizeof cwd) || td_repo_root(root, rsize, cwd) != 0)
			root[0] = '\0';
		return 0;
	}
	if ((rc = td_find_root(root, rsize, a->root)))
		return rc;
	if (td_project_load(&p, root) != 0) {
		fprintf(stderr, "tdaudit report: %s\n", td_error_last());
		return 2;
	}
	td_record_ledger_path(ledger, lsize, p);
	td_project_free(p);
	return 0;
}

int td_cmd_report(int argc, char **argv)
{
	args a = {0};
	char ledger[8192], root[PATH_MAX];
	char *page = NULL;
	int rc = td_opt_parse(&cmd, &a, argc, argv, NULL);

	if (rc != TD_OPT_RUN)
		return rc;
	if (!a.html)
		return td_usage_error("report", "--html FILE is required: where to write the page");
	if ((rc = locate(ledger, sizeof ledger, root, sizeof root, &a)))
		return rc;
	if (access(ledger, F_OK) != 0) {
		fprintf(stderr, "tdaudit report: no ledger at %s: tdaudit mutate, reproduce and "
				"audit create it (or give --ledger DB)\n", ledger);
		return 2;
	}
	td_html_opts o = {.ledger = ledger, .root = *root ? root : NULL, .log = a.log};
	if (td_file_check_writable(a.html) != 0 || td_html_report(&page, &o) != 0 ||
	    td_file_write_atomic(a.html, page, strlen(page), 0644) != 0) {
		fprintf(stderr, "tdaudit report: %s\n", td_error_last());
		free(page);
		return 2;
	}
	printf("tdaudit report: wrote %s (%zu bytes)\n", a.html, strlen(page));
	free(page);
	return 0;
}
