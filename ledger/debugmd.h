/*
 * debugmd.h - the DEBUG.md parser and its cross-check against the ledger.
 *
 * DEBUG.md is prose for people, but some of its lines are claims a program
 * checks: the summary table, each finding's heading, the tests cited as
 * guards and pins, and the reproduce commands. This module reads exactly
 * those lines. A line that looks like one of them but does not parse is a
 * problem reported with its line number; nothing is skipped silently.
 *
 * THE FORMAT ACCEPTED (lines are numbered from 1; leading and trailing
 * blanks of a line are ignored unless said otherwise):
 *
 * 1. The summary table. Its header line is exactly these five cells:
 *
 *        | # | Where | Severity | Found by | Status |
 *
 *    (any spacing inside the cells). The next line must be the delimiter
 *    row, five cells of dashes with optional colons (|---|---|---|---|---|).
 *    Every following line that starts with '|' is a row; the table ends at
 *    the first line that does not. A row has exactly five cells, split on
 *    '|'; "\|" stands for a literal '|' inside a cell, and cells are trimmed:
 *      #          a finding number, decimal digits only, 1..999999
 *      Where      any non-empty text, kept verbatim (backticks included)
 *      Severity   any non-empty text
 *      Found by   any non-empty text
 *      Status     words (letters, spaces and '-', e.g. "open", "fixed",
 *                 "never shipped"), optionally followed by ", `COMMIT`"
 *                 where COMMIT is 4 to 40 hex digits:  fixed, `7c3f812`
 *    One summary table per file; a second header line is a problem.
 *
 * 2. Finding sections. A line "## N. Title" (N as in the table, a non-empty
 *    title) opens finding N's section. The section runs to the next line
 *    starting with "# " or "## " outside a code fence. Any other "## "
 *    heading that starts with a digit is a problem (e.g. "## 21 & 22. ...":
 *    give each finding its own section). Lines between ``` fences are code:
 *    headings and field labels inside them are not read, reproduce lines are.
 *
 * 3. Fields inside a finding section (outside code fences):
 *      **Guarded by** `test_a`, `test_b` ...
 *          Every backticked token on the line is a guard test; at least one.
 *          "**Guarded by** none" followed by anything (a reason) records no
 *          guard. A test name is 1 to 255 characters with no blank, no
 *          backtick and no control character.
 *      **Pins** `test_c` ...
 *          Tests that pass both before and after the fix: they pin the
 *          behaviour against overcorrection and are not guards. Same token
 *          rule; at least one.
 *    A line starting with "**Guarded" or "**Pin" (any case) that is not
 *    exactly one of these two labels is a problem, and so is a test cited
 *    twice in one section (as guard or pin).
 *    A field is its one line. The lines that continue it (up to a blank
 *    line, a heading, a fence or another field) are prose, but after a
 *    field that cited tests their backticked tokens are kept as mentions:
 *    ledger check reports each one that is a test the runners list and is
 *    not cited, since a wrapped line would otherwise drop it without a
 *    word. A "none" field's reason may name tests freely.
 *
 * 4. Reproduce lines, inside a finding section, in or out of a code fence:
 *          tdaudit reproduce COMMIT [ARGS...]
 *    optionally preceded by "$ ". COMMIT (4 to 40 hex digits) must come
 *    first; what follows it is kept for the harness, not read here. A line
 *    whose first two words are "tdaudit reproduce" and whose third is not a
 *    commit is a problem; so is a COMMIT that does not match the one in the
 *    finding's Status cell (when it has one).
 *
 * Also problems: a finding with a table row and no section, a section with
 * no table row, a number used twice, and a file with no summary table
 * (reported at line 0, meaning the file as a whole). Everything else is
 * prose and is not read.
 *
 * Never: report a problem without a line number; drop a line that looks
 * like a claim because it does not parse.
 */
#ifndef TD_DEBUGMD_H
#define TD_DEBUGMD_H

#include <stddef.h>

#include "ledger.h"

typedef struct {
	char *name; /* a test name */
	int line;   /* where it was cited */
} td_debugmd_test;

typedef struct {
	char *commit; /* the commit after "tdaudit reproduce" */
	int line;
} td_debugmd_repro;

/* A backticked token on a line that continues a field's line (see 3.). */
typedef struct {
	char *name;
	int line;       /* where it is */
	int field_line; /* the Guarded by or Pins line it continues */
	int pin;        /* that line is a Pins line */
} td_debugmd_mention;

typedef struct {
	int number;
	char *title;                     /* from the section heading; NULL without a section */
	char *where, *severity, *found_by, *status; /* from the table; NULL without a row */
	char *commit;                    /* from the Status cell; NULL when it has none */
	int table_line, section_line;    /* 0 where there is none */
	size_t n_guards, n_pins, n_repro, n_mentions;
	td_debugmd_test *guards, *pins;  /* in the order cited */
	td_debugmd_repro *repro;
	td_debugmd_mention *mentions;    /* not cited: ledger check reports those that are tests */
} td_debugmd_finding;

typedef struct {
	int line;  /* the DEBUG.md line it is about; 0 for the file as a whole */
	char *msg; /* one sentence: what is wrong and what to write instead */
} td_debugmd_problem;

typedef struct {
	size_t n;
	td_debugmd_problem *v; /* by line */
} td_debugmd_problems;

typedef struct {
	int table_line;                  /* the summary table's header line, 0 if none */
	size_t n_findings;
	td_debugmd_finding *findings;    /* sorted by number */
	td_debugmd_problems problems;    /* what did not parse; empty for a good file */
} td_debugmd;

/*
 * Parses len bytes of DEBUG.md text (need not be NUL-terminated). A file
 * that does not parse still returns 0, with its problems in
 * (*out)->problems; only running out of memory fails.
 * Caller frees *out with td_debugmd_free.
 */
int td_debugmd_parse(td_debugmd **out, const char *text, size_t len);

/* Reads and parses the file at path; TD_EIO if it cannot be read. As td_debugmd_parse. */
int td_debugmd_parse_file(td_debugmd **out, const char *path);

/* Frees doc and everything in it; accepts NULL. */
void td_debugmd_free(td_debugmd *doc);

/* The finding with number n, or NULL. Borrowed: valid until td_debugmd_free(doc). */
const td_debugmd_finding *td_debugmd_find(const td_debugmd *doc, int n);

/*
 * Compares doc with the ledger's findings. *out (possibly empty, sorted by
 * line) gets one problem per disagreement, each naming the DEBUG.md line:
 *   - a finding in DEBUG.md with no ledger row (at its table row, else its
 *     section heading);
 *   - a ledger finding missing from DEBUG.md (at the table's header line);
 *   - a status or fix commit that differs from the ledger's (at the row);
 *   - a test cited as a guard with no reproduction of the finding's fix
 *     commit whose verdict was "guard" (at the Guarded by line), including
 *     a guard of a finding that has no fix commit to reproduce.
 * Caller frees *out with td_debugmd_problems_free.
 */
int td_debugmd_check(td_debugmd_problems **out, const td_debugmd *doc, td_ledger *lg);

/* Frees problems (from td_debugmd_check) and its messages; accepts NULL. */
void td_debugmd_problems_free(td_debugmd_problems *problems);

#endif
