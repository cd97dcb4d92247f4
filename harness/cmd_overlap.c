/*
 * cmd_overlap.c - the command line of `tdaudit overlap` (see overlap.h for
 * what a run does): its table of options for base/opt.c, the report on
 * stdout and, with --json, the same report written atomically.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "overlap.h"
#include "../base/error.h"
#include "../base/fileio.h"
#include "../base/opt.h"
#include "../base/strv.h"

/* What overlap's options set; zero: not given (ngram starts at -1: not given). */
typedef struct {
	td_overlap_opts o;
	int ngram;         /* --ngram N; -1: not given */
	const char *json;  /* --json FILE */
} args;

static const td_opt opts[] = {
	{.name = "--ngram", .arg = "N", .type = TD_OPT_INT, .at = offsetof(args, ngram), .min = 0,
	 .max = 1000, .help = "words per n-gram (default 13); 0 turns the n-gram detector off "
			      "(id and exact matches only)"},
	{.name = "--threshold", .arg = "F", .type = TD_OPT_POSITIVE, .max = 1,
	 .at = offsetof(args, o.threshold), .unit = "share",
	 .help = "a B record passes when this share of its n-grams is in A (default 0.5); id and "
		 "exact matches always pass"},
	{.name = "--field", .arg = "NAME", .type = TD_OPT_STRING, .at = offsetof(args, o.field),
	 .help = "read both files as JSON lines, the record's text in the string field NAME "
		 "(default: text files, one record per line)"},
	{.name = "--id", .arg = "NAME", .type = TD_OPT_STRING, .at = offsetof(args, o.id_field),
	 .help = "with --field: the id field (a string or a number; default id); a record "
		 "without it has no id"},
	{.name = "--boilerplate", .arg = "N", .type = TD_OPT_LONG, .min = 1,
	 .at = offsetof(args, o.boilerplate),
	 .help = "an n-gram in more than N records of the indexed (smaller) side is "
		 "boilerplate, never overlap (default 100)"},
	{.name = "--jobs", .short_name = 'j', .arg = "N", .type = TD_OPT_INT, .min = 1, .max = 1024,
	 .at = offsetof(args, o.jobs),
	 .help = "threads streaming the larger side (default 1); the output is the same for any N"},
	{.name = "--json", .arg = "FILE", .type = TD_OPT_STRING, .at = offsetof(args, json),
	 .help = "also write the report as JSON (schema tdaudit.overlap/1) to FILE, atomically"},
	{0},
};

static const td_opt_cmd cmd = {
	.program = "tdaudit",
	.name = "overlap",
	.operands = "A B",
	.hint = "tdaudit help overlap",
	.opts = opts,
	.about = "Finds the records of B (evaluation) that overlap records of A (training):\n"
		 "the same id (JSON lines), the same text under normalisation norm/1 (ASCII\n"
		 "lowercase; every run of whitespace and punctuation one space), or shared\n"
		 "word n-grams. Prints each such B line with the A line it matched, the\n"
		 "detectors, the share of its n-grams found in A and its longest matched run\n"
		 "in words; says when one side is a prefix or a sub-range of the other.\n"
		 "The smaller file is indexed, the larger streamed. See docs/overlap.md.\n",
	.after = "exit status: 0 no B record passes the threshold; 1 one does (an id or exact\n"
		 "match always does); 2 usage or input error (a missing, empty or binary file,\n"
		 "invalid UTF-8, a JSON line that does not parse or lacks the field).\n",
};

void td_usage_overlap(FILE *f)
{
	td_opt_usage(f, &cmd);
}

/* Writes the JSON report to path atomically; 0 or 2. */
static int write_json(const char *path, const td_overlap_result *r)
{
	char *text = NULL;
	size_t len = 0;
	int err = td_overlap_report_json(&text, &len, r);

	if (!err)
		err = td_file_write_atomic(path, text, len, 0644);
	free(text);
	if (err)
		fprintf(stderr, "tdaudit overlap: %s\n", td_error_last());
	return err ? 2 : 0;
}

int td_cmd_overlap(int argc, char **argv)
{
	args a = {.ngram = -1};
	char **operands = NULL, *text = NULL;
	td_overlap_result *r = NULL;
	int rc = td_opt_parse(&cmd, &a, argc, argv, &operands);

	if (rc != TD_OPT_RUN)
		goto done;
	if (td_strv_len(operands) != 2) {
		rc = td_opt_error(&cmd, "give two files, A (training) and B (evaluation)");
		goto done;
	}
	if (a.o.id_field && !a.o.field) {
		rc = td_opt_error(&cmd, "--id needs --field: text files have no ids");
		goto done;
	}
	a.o.ngram = a.ngram < 0 ? 0 : a.ngram == 0 ? -1 : a.ngram;
	if (td_overlap_run(&r, operands[0], operands[1], &a.o) != 0 ||
	    td_overlap_report_text(&text, NULL, r) != 0) {
		fprintf(stderr, "tdaudit overlap: %s\n", td_error_last());
		rc = 2;
		goto done;
	}
	fputs(text, stdout);
	rc = a.json && write_json(a.json, r) ? 2 : r->n_passing ? 1 : 0;
done:
	free(text);
	td_overlap_result_free(r);
	td_strv_free(operands);
	return rc;
}
