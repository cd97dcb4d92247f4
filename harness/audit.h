/*
 * audit.h - tdaudit audit: Lua scripts that check a trainer's runs.
 *
 * An audit is a script audits/<name>.lua (tdaudit.lua's audits globs),
 * run in the same sandbox as the catalogues (luahost.h) with one more
 * table, `audit`, that only audit scripts get (docs/audit.md):
 *
 *   audit.trainer()            the trainer block of tdaudit.lua, resolved
 *                              (nil when there is none)
 *   audit.run(cmd, opts)       runs a trainer command ("init", "train",
 *                              "stop", "resume", "eval", "absent") or an
 *                              argv, in the audit's scratch directory
 *   audit.hash(path, vars)     FNV-1a 64 of a file in the scratch directory
 *   audit.jsonl(path, vars)    a JSON-lines file in it, as a list of tables
 *   audit.overlap(a, b, vars, opts)  tdaudit overlap's engine on two of its
 *                              files (overlap.h): what passes, and how
 *   audit.result{...}          the audit's result (once)
 *
 * Each audit gets a fresh scratch directory STATE/audit/<name> (STATE:
 * td_testrun_state_dir of the tree, outside it)
 * (emptied first): every command runs with it as its working directory,
 * and the files an audit may read are the ones in it. The user's tree is
 * never a child's working directory and never written.
 *
 * Never: let an audit read or run anything but through these calls, count
 * a skip as a pass, or report a result the script did not record.
 */
#ifndef TD_AUDIT_H
#define TD_AUDIT_H

#include <stddef.h>

#include "project.h"

/* What an audit found; "error" when the script failed or recorded nothing. */
enum td_audit_status { TD_AUDIT_PASS, TD_AUDIT_FAIL, TD_AUDIT_SKIP, TD_AUDIT_ERROR };

/* "pass", "fail", "skip", "error": the words of every report and the ledger. */
const char *td_audit_status_name(enum td_audit_status s);

typedef struct {
	char *name;               /* the script's stem: "seed" for audits/seed.lua */
	char *script;             /* the script, relative to the root */
	enum td_audit_status status;
	char *class_;             /* LOUD | COUNTED | SILENT | "-" (nothing found) */
	char *summary;            /* one line */
	char *reason;             /* why it failed, skipped or errored; NULL for a pass */
	char **evidence;          /* the script's evidence lines (a td_strv; may be NULL) */
	char **commands;          /* every command run: "argv -> exit 0 (0.02s) hash H" */
	double seconds;
} td_audit_result;

/* Frees what r owns (not r); accepts NULL. */
void td_audit_result_free(td_audit_result *r);

/*
 * The audits the project names: *names gets the stems, *scripts the
 * paths relative to p->root, both sorted by name (td_strvs the caller
 * frees; NULL when there are none). TD_EINVAL when two scripts share a stem.
 */
int td_audit_list(char ***names, char ***scripts, const td_project *p);

/*
 * Runs one audit script of project p in tree (the repository root, or a
 * mutant's scratch copy of it: commands run against tree's build, the
 * scratch directory is STATE/audit/<name>). Fills *out (caller
 * frees with td_audit_result_free). Returns 0 whatever the audit found
 * (read out->status); a Lua error or a missing result is out->status
 * TD_AUDIT_ERROR with the message in out->reason. TD_EIO / TD_ENOMEM
 * only when the scratch directory cannot be made.
 */
int td_audit_run_one(td_audit_result *out, const td_project *p, const char *tree,
		     const char *name, const char *script);

/* Zero is every default. */
typedef struct {
	char *const *names;  /* audits to run (stems); NULL: every one */
	int jobs;            /* audits run at once; 0: 1 */
	const char *json;    /* write the tdaudit.audit/1 report here (atomically); NULL: none */
	const char *junit;   /* write a JUnit XML report here (atomically); NULL: none */
	const char *command; /* the command line, for the ledger */
} td_audit_opts;

/*
 * tdaudit audit on the repository at root: runs the selected audits,
 * prints the table, writes the reports and the ledger run. Returns the
 * exit status: 0 every audit passed or skipped, 1 one failed, 2 usage or
 * environment error (an unknown name, an audit that errored, a report or
 * the ledger that could not be written).
 */
int td_audit(const char *root, const td_audit_opts *opts);

#endif
