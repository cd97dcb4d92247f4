/*
 * debugmd.c - reads the claims in DEBUG.md (the format is in debugmd.h) and
 * checks them against the ledger.
 *
 * One pass over the lines with a small state machine (table header, table
 * rows, inside a finding section, inside a code fence), then a pass over
 * the findings for what needs the whole file (a row without a section, a
 * reproduce commit that disagrees with the row). Must never skip a line that
 * looks like a claim without reporting it, and never report without a line.
 */
#include "debugmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/error.h"
#include "../base/grow.h"

#define TD_DEBUGMD_MAX_NUMBER 999999
#define TD_DEBUGMD_MAX_TEST 255

enum table_state { NO_TABLE, TABLE_DELIMITER, TABLE_ROWS, TABLE_DONE };

typedef struct {
	td_debugmd *doc;
	size_t cap_findings, cap_problems;
	int line;              /* the line being read, from 1 */
	enum table_state table;
	long section;          /* index of the finding whose section is open, or -1 */
	int in_fence;          /* inside ``` ... ``` */
	int field_line;        /* the field line that cited tests, while its paragraph runs; 0 */
	int field_pin;         /* that field is Pins */
} parser;

/* --- small helpers ------------------------------------------------------------ */

/* s without leading and trailing blanks (cut in place). */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* 4 to 40 hex digits. */
static int is_commit(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return s[n] == '\0' && n >= 4 && n <= 40;
}

/* 1 to TD_DEBUGMD_MAX_TEST characters, none blank, control or backtick. */
static int is_test_name(const char *s, size_t n)
{
	if (n < 1 || n > TD_DEBUGMD_MAX_TEST)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '`' || isspace((unsigned char)s[i]) || iscntrl((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Decimal digits only, 1..TD_DEBUGMD_MAX_NUMBER; -1 otherwise. */
static long parse_number(const char *s)
{
	size_t n = strspn(s, "0123456789");
	long v;

	if (n == 0 || n > 6 || s[n] != '\0')
		return -1;
	v = strtol(s, NULL, 10);
	return v >= 1 && v <= TD_DEBUGMD_MAX_NUMBER ? v : -1;
}

/* --- problems ---------------------------------------------------------------- */

/* Appends a problem at line; keeps ps sorted by line, stable (insertion sort). */
static int add_problem(td_debugmd_problems *ps, size_t *cap, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int add_problem(td_debugmd_problems *ps, size_t *cap, int line, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	size_t i;
	int err;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if ((err = td_grow(&ps->v, cap, ps->n + 1, sizeof *ps->v)))
		return err;
	for (i = ps->n; i > 0 && ps->v[i - 1].line > line; i--)
		ps->v[i] = ps->v[i - 1];
	ps->v[i].line = line;
	ps->v[i].msg = strdup(buf);
	ps->n++;
	return ps->v[i].msg ? 0 : TD_FAIL(TD_ENOMEM, "out of memory for a DEBUG.md problem");
}

#define PROBLEM(p, line, ...) add_problem(&(p)->doc->problems, &(p)->cap_problems, (line), __VA_ARGS__)

static void problems_clear(td_debugmd_problems *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i].msg);
	free(ps->v);
}

void td_debugmd_problems_free(td_debugmd_problems *problems)
{
	if (!problems)
		return;
	problems_clear(problems);
	free(problems);
}

/* --- findings ---------------------------------------------------------------- */

/* *out = the index of finding number, appended (all fields empty) if new. */
static int finding_index(long *out, parser *p, int number)
{
	td_debugmd *d = p->doc;
	int err;

	for (size_t i = 0; i < d->n_findings; i++)
		if (d->findings[i].number == number)
			return *out = (long)i, 0;
	if ((err = td_grow(&d->findings, &p->cap_findings, d->n_findings + 1, sizeof *d->findings)))
		return err;
	memset(&d->findings[d->n_findings], 0, sizeof *d->findings);
	d->findings[d->n_findings].number = number;
	*out = (long)d->n_findings++;
	return 0;
}

/* *dst = a copy of s (NULL stays NULL). */
static int set_str(char **dst, const char *s)
{
	*dst = s ? strdup(s) : NULL;
	return !s || *dst ? 0 : TD_FAIL(TD_ENOMEM, "out of memory copying \"%s\"", s);
}

static void finding_clear(td_debugmd_finding *f)
{
	free(f->title), free(f->where), free(f->severity);
	free(f->found_by), free(f->status), free(f->commit);
	for (size_t i = 0; i < f->n_guards; i++)
		free(f->guards[i].name);
	for (size_t i = 0; i < f->n_pins; i++)
		free(f->pins[i].name);
	for (size_t i = 0; i < f->n_repro; i++)
		free(f->repro[i].commit);
	for (size_t i = 0; i < f->n_mentions; i++)
		free(f->mentions[i].name);
	free(f->guards), free(f->pins), free(f->repro), free(f->mentions);
}

void td_debugmd_free(td_debugmd *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->n_findings; i++)
		finding_clear(&doc->findings[i]);
	free(doc->findings);
	problems_clear(&doc->problems);
	free(doc);
}

const td_debugmd_finding *td_debugmd_find(const td_debugmd *doc, int n)
{
	for (size_t i = 0; doc && i < doc->n_findings; i++)
		if (doc->findings[i].number == n)
			return &doc->findings[i];
	return NULL;
}

/* --- the summary table --------------------------------------------------------- */

/*
 * Splits a table line "| a | b |" in place into trimmed cells, "\|" read as
 * a literal '|'. Stores at most max cells; returns how many there are, or
 * -1 when the line does not start and end with an unescaped '|'.
 */
static int split_cells(char *s, char **cells, int max)
{
	size_t len = strlen(s);
	char *w, *start;
	int n = 0;

	if (len < 2 || s[0] != '|' || s[len - 1] != '|' || s[len - 2] == '\\')
		return -1;
	s[len - 1] = '\0';
	w = start = s + 1;
	for (char *r = s + 1;; r++) {
		if (*r == '\\' && r[1] == '|') {
			*w++ = '|';
			r++;
		} else if (*r == '|' || *r == '\0') {
			int end = *r == '\0';

			*w = '\0';
			if (n < max)
				cells[n] = trim(start);
			n++;
			if (end)
				return n;
			w = start = r + 1;
		} else {
			*w++ = *r;
		}
	}
}

static int is_table_header(const char *line)
{
	static const char *const want[5] = {"#", "Where", "Severity", "Found by", "Status"};
	char buf[256], *c[5];

	if (strlen(line) >= sizeof buf)
		return 0;
	strcpy(buf, line);
	if (split_cells(buf, c, 5) != 5)
		return 0;
	for (int i = 0; i < 5; i++)
		if (strcmp(c[i], want[i]) != 0)
			return 0;
	return 1;
}

static int is_delimiter_row(char *line)
{
	char *c[5];

	if (split_cells(line, c, 5) != 5)
		return 0;
	for (int i = 0; i < 5; i++) {
		const char *s = c[i] + (c[i][0] == ':');
		size_t n = strspn(s, "-");

		if (n == 0 || !(s[n] == '\0' || (s[n] == ':' && s[n + 1] == '\0')))
			return 0;
	}
	return 1;
}

/*
 * Splits a Status cell "words" or "words, `COMMIT`" in place: *words and
 * *commit (NULL when none). 0 if it is neither form.
 */
static int parse_status(char **words, char **commit, char *cell)
{
	char *comma = strchr(cell, ',');
	char *w;

	*commit = NULL;
	if (comma) {
		char *c = trim(comma + 1);
		size_t n = strlen(c);

		*comma = '\0';
		if (n < 2 || c[0] != '`' || c[n - 1] != '`')
			return 0;
		c[n - 1] = '\0';
		if (!is_commit(c + 1))
			return 0;
		*commit = c + 1;
	}
	w = trim(cell);
	*words = w;
	for (; *w; w++)
		if (!isalpha((unsigned char)*w) && *w != ' ' && *w != '-')
			return 0;
	return **words != '\0';
}

/* Checks a row's cells: *ok = 1 if good, else 0 with the problem reported. */
static int check_row(int *ok, parser *p, char **c, int n, long *number, char **words, char **commit)
{
	static const char *const names[5] = {"#", "Where", "Severity", "Found by", "Status"};
	char shown[200];

	*ok = 0;
	if (n < 0)
		return PROBLEM(p, p->line, "summary table row does not start and end with '|'");
	if (n != 5)
		return PROBLEM(p, p->line, "summary table row has %d cells, not 5 (# | Where | Severity | "
					   "Found by | Status); write \\| for a '|' inside a cell", n);
	if ((*number = parse_number(c[0])) < 0)
		return PROBLEM(p, p->line, "summary table row: \"%s\" is not a finding number "
					   "(1..%d, digits only)", c[0], TD_DEBUGMD_MAX_NUMBER);
	for (int i = 1; i < 4; i++)
		if (!c[i][0])
			return PROBLEM(p, p->line, "summary table row %ld: the %s cell is empty", *number,
				       names[i]);
	snprintf(shown, sizeof shown, "%s", c[4]); /* parse_status cuts the cell */
	if (!parse_status(words, commit, c[4]))
		return PROBLEM(p, p->line, "summary table row %ld: status \"%s\" is not \"words\" or "
					   "\"words, `COMMIT`\" (4-40 hex digits)", *number, shown);
	*ok = 1;
	return 0;
}

static int parse_row(parser *p, char *line)
{
	char *c[5], *words, *commit;
	int n = split_cells(line, c, 5), ok, err;
	long number, i;
	td_debugmd_finding *f;

	if ((err = check_row(&ok, p, c, n, &number, &words, &commit)) || !ok)
		return err;
	if ((err = finding_index(&i, p, (int)number)))
		return err;
	f = &p->doc->findings[i];
	if (f->table_line)
		return PROBLEM(p, p->line, "finding %ld is listed twice in the summary table "
					   "(first on line %d)", number, f->table_line);
	f->table_line = p->line;
	if ((err = set_str(&f->where, c[1])) || (err = set_str(&f->severity, c[2])) ||
	    (err = set_str(&f->found_by, c[3])) || (err = set_str(&f->status, words)))
		return err;
	return set_str(&f->commit, commit);
}

/* The table's lines: the delimiter after the header, then rows. 1 if the line was the table's. */
static int table_line(int *err, parser *p, char *line)
{
	if (p->table == TABLE_DELIMITER) {
		p->table = TABLE_ROWS;
		if (is_delimiter_row(line))
			return 1;
		*err = PROBLEM(p, p->line, "the summary table's header must be followed by "
					   "|---|---|---|---|---|");
		if (*err)
			return 1;
	}
	if (p->table == TABLE_ROWS) {
		if (line[0] == '|')
			return *err = parse_row(p, line), 1;
		p->table = TABLE_DONE;
	}
	return 0;
}

/* --- finding sections ---------------------------------------------------------- */

/* A "# " or "## " heading outside a fence: closes the open section, may open one. */
static int heading(parser *p, char *line)
{
	char *s = line + 3, *end;
	long number, i;
	int err;

	p->section = -1, p->field_line = 0;
	if (!starts_with(line, "## ") || !isdigit((unsigned char)*s))
		return 0;
	end = s + strspn(s, "0123456789");
	if (end[0] != '.' || end[1] != ' ' || !*trim(end + 2))
		return PROBLEM(p, p->line, "a heading starting with a digit must read \"## N. Title\", "
					   "one finding per section: \"%s\"", line);
	*end = '\0';
	if ((number = parse_number(s)) < 0)
		return PROBLEM(p, p->line, "\"%s\" is not a finding number (1..%d)", s,
			       TD_DEBUGMD_MAX_NUMBER);
	if ((err = finding_index(&i, p, (int)number)))
		return err;
	if (p->doc->findings[i].section_line)
		return PROBLEM(p, p->line, "finding %ld has a second section (the first is at line %d); "
					   "this one is not read", number, p->doc->findings[i].section_line);
	p->doc->findings[i].section_line = p->line;
	p->section = i;
	return set_str(&p->doc->findings[i].title, trim(end + 2));
}

/* The line where name is already cited in f (as guard or pin), or 0. */
static int cited_at(const td_debugmd_finding *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->n_guards; i++)
		if (strlen(f->guards[i].name) == n && strncmp(f->guards[i].name, name, n) == 0)
			return f->guards[i].line;
	for (size_t i = 0; i < f->n_pins; i++)
		if (strlen(f->pins[i].name) == n && strncmp(f->pins[i].name, name, n) == 0)
			return f->pins[i].line;
	return 0;
}

/* Appends test name[0..n) to f's guards (pin == 0) or pins, unless cited already. */
static int add_test(parser *p, td_debugmd_finding *f, int pin, const char *name, size_t n)
{
	td_debugmd_test **v = pin ? &f->pins : &f->guards;
	size_t *count = pin ? &f->n_pins : &f->n_guards;
	size_t cap = *count; /* not stored: a section cites a handful, one realloc each is fine */
	int first = cited_at(f, name, n), err;

	if (!is_test_name(name, n))
		return PROBLEM(p, p->line, "`%.*s` is not a test name (1-%d characters, no blanks)",
			       (int)n, name, TD_DEBUGMD_MAX_TEST);
	if (first)
		return PROBLEM(p, p->line, "test `%.*s` is cited twice in finding %d (also on line %d)",
			       (int)n, name, f->number, first);
	if ((err = td_grow(v, &cap, *count + 1, sizeof **v)))
		return err;
	(*v)[*count].line = p->line;
	(*v)[*count].name = strndup(name, n);
	if (!(*v)[(*count)++].name)
		return TD_FAIL(TD_ENOMEM, "out of memory for a test name");
	return 0;
}

/* The backticked tokens of a Guarded by (pin == 0) or Pins line, after its label. */
static int field_tests(parser *p, td_debugmd_finding *f, int pin, const char *rest)
{
	const char *label = pin ? "**Pins**" : "**Guarded by**";
	int found = 0, err = 0;

	for (const char *s = strchr(rest, '`'); s && !err; s = strchr(s + 1, '`')) {
		const char *e = strchr(s + 1, '`');

		if (!e)
			return PROBLEM(p, p->line, "%s line has an unmatched backtick", label);
		err = add_test(p, f, pin, s + 1, (size_t)(e - s - 1));
		found++;
		s = e;
	}
	if (!err && found)
		p->field_line = p->line, p->field_pin = pin; /* its continuation lines are watched */
	if (err || found)
		return err;
	rest += strspn(rest, " \t");
	if (!pin && strncmp(rest, "none", 4) == 0 && !isalnum((unsigned char)rest[4]))
		return 0;
	return PROBLEM(p, p->line, "%s must cite at least one test in backticks%s", label,
		       pin ? "" : ", or say \"none\" and why");
}

/* A "tdaudit reproduce COMMIT ..." line (after an optional "$ "); 0 if the line is not one. */
static int reproduce_line(parser *p, td_debugmd_finding *f, char *line)
{
	static const char cmd[] = "tdaudit reproduce";
	td_debugmd_repro *r;
	size_t cap = f->n_repro, n;
	char *c;
	int err;

	if (starts_with(line, "$ "))
		line = trim(line + 2);
	if (!starts_with(line, cmd) || (line[sizeof cmd - 1] && !isblank((unsigned char)line[sizeof cmd - 1])))
		return 0;
	c = line + sizeof cmd - 1;
	c += strspn(c, " \t");
	n = strcspn(c, " \t");
	c[n] = '\0';
	if (!is_commit(c))
		return PROBLEM(p, p->line, "\"tdaudit reproduce\" must be followed by the fix commit "
					   "(4-40 hex digits), not \"%s\"", c);
	if ((err = td_grow(&f->repro, &cap, f->n_repro + 1, sizeof *f->repro)))
		return err;
	r = &f->repro[f->n_repro++];
	r->line = p->line;
	return set_str(&r->commit, c);
}

/* The backticked tokens of a line that continues p->field_line's field, kept as mentions. */
static int continuation_line(parser *p, td_debugmd_finding *f, const char *line)
{
	const char *s = strchr(line, '`'), *e;

	for (; s && (e = strchr(s + 1, '`')); s = strchr(e + 1, '`')) {
		size_t cap = f->n_mentions, n = (size_t)(e - s - 1);
		td_debugmd_mention *m;
		int err;

		if (!is_test_name(s + 1, n) || cited_at(f, s + 1, n))
			continue;
		if ((err = td_grow(&f->mentions, &cap, f->n_mentions + 1, sizeof *f->mentions)))
			return err;
		m = &f->mentions[f->n_mentions];
		*m = (td_debugmd_mention){strndup(s + 1, n), p->line, p->field_line, p->field_pin};
		if (!m->name)
			return TD_FAIL(TD_ENOMEM, "out of memory for a test name");
		f->n_mentions++;
	}
	return 0;
}

/* A line inside finding p->section's section. */
static int section_line(parser *p, char *line)
{
	td_debugmd_finding *f = &p->doc->findings[p->section];
	const int field = p->field_line;

	p->field_line = 0; /* kept only by a field line, or by a line that continues one */
	if (starts_with(line, "tdaudit reproduce") || starts_with(line, "$ "))
		return reproduce_line(p, f, line);
	if (p->in_fence || !*line)
		return 0;
	if (starts_with(line, "**Guarded by**"))
		return field_tests(p, f, 0, line + strlen("**Guarded by**"));
	if (starts_with(line, "**Pins**"))
		return field_tests(p, f, 1, line + strlen("**Pins**"));
	if (strncasecmp(line, "**Guarded", 9) == 0 || strncasecmp(line, "**Pin", 5) == 0)
		return PROBLEM(p, p->line, "unknown field label in \"%.40s\"; write **Guarded by** "
					   "or **Pins** followed by backticked tests", line);
	if (!field || starts_with(line, "**"))
		return 0;
	p->field_line = field;
	return continuation_line(p, f, line);
}

/* --- the line loop ------------------------------------------------------------- */

static int parse_line(parser *p, char *raw)
{
	char *line = trim(raw);
	int err = 0;

	if (table_line(&err, p, line))
		return err;
	if (starts_with(line, "```")) {
		p->in_fence = !p->in_fence;
		p->field_line = 0;
		return 0;
	}
	if (!p->in_fence && (starts_with(line, "# ") || starts_with(line, "## ")))
		return heading(p, line);
	if (!p->in_fence && is_table_header(line)) {
		if (p->table != NO_TABLE)
			return PROBLEM(p, p->line, "a second summary table (the first is at line %d); "
						   "keep one", p->doc->table_line);
		p->doc->table_line = p->line;
		p->table = TABLE_DELIMITER;
		return 0;
	}
	return p->section >= 0 ? section_line(p, line) : 0;
}

/* What needs the whole file: rows without sections and the reverse, reproduce commits. */
static int finish(parser *p)
{
	td_debugmd *d = p->doc;
	int err = 0;

	if (!d->table_line)
		err = PROBLEM(p, 0, "no summary table: add \"| # | Where | Severity | Found by | Status |\"");
	for (size_t i = 0; !err && i < d->n_findings; i++) {
		const td_debugmd_finding *f = &d->findings[i];

		if (!f->section_line)
			err = PROBLEM(p, f->table_line, "finding %d has a table row but no \"## %d. Title\" "
							"section", f->number, f->number);
		else if (!f->table_line)
			err = PROBLEM(p, f->section_line, "finding %d has a section but no summary table row",
				      f->number);
		for (size_t j = 0; !err && f->commit && j < f->n_repro; j++)
			if (!td_ledger_commits_match(f->commit, f->repro[j].commit))
				err = PROBLEM(p, f->repro[j].line, "finding %d: reproduce names %s but the "
								   "summary table's fix commit is %s",
					      f->number, f->repro[j].commit, f->commit);
	}
	return err;
}

static int by_number(const void *a, const void *b)
{
	int x = ((const td_debugmd_finding *)a)->number, y = ((const td_debugmd_finding *)b)->number;

	return (x > y) - (x < y);
}

int td_debugmd_parse(td_debugmd **out, const char *text, size_t len)
{
	parser p = {.section = -1};
	char *buf = NULL;
	size_t cap = 0;
	int err = 0;

	*out = NULL;
	if (!(p.doc = calloc(1, sizeof *p.doc)))
		return TD_FAIL(TD_ENOMEM, "out of memory parsing DEBUG.md");
	for (size_t i = 0; !err && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		if ((err = td_grow(&buf, &cap, n + 1, 1)))
			break;
		memcpy(buf, text + i, n);
		buf[n] = '\0';
		p.line++;
		err = parse_line(&p, buf);
		i += n + 1;
	}
	if (!err)
		err = finish(&p);
	free(buf);
	if (err) {
		td_debugmd_free(p.doc);
		return err;
	}
	if (p.doc->n_findings) /* qsort's array must not be NULL, even for 0 elements */
		qsort(p.doc->findings, p.doc->n_findings, sizeof *p.doc->findings, by_number);
	*out = p.doc;
	return 0;
}

int td_debugmd_parse_file(td_debugmd **out, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int err = 0;

	*out = NULL;
	if (!f)
		return TD_FAIL(TD_EIO, "cannot open %s: %s", path, strerror(errno));
	do {
		if ((err = td_grow(&text, &cap, len + 65536, 1)))
			goto done;
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		err = TD_FAIL(TD_EIO, "cannot read %s: %s", path, strerror(errno));
		goto done;
	}
	err = td_debugmd_parse(out, text, len);
done:
	free(text);
	fclose(f);
	return err;
}

/* --- the cross-check ------------------------------------------------------------- */

typedef struct {
	td_debugmd_problems *ps;
	size_t cap;
	td_ledger *lg;
} checker;

static const td_ledger_finding_row *ledger_row(const td_ledger_findings *fs, int number)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].number == number)
			return &fs->v[i];
	return NULL;
}

/* Each guard of f must have a reproduction of f's fix commit with verdict "guard". */
/*
 * A cited guard is verified by a reproduction of the fix commit with
 * verdict "guard", or by a mutant of this finding (a catalogue entry with
 * finding = N) that the guard killed: the evidence for fixes with nothing
 * to revert (test-only fixes, bugs fixed before they were committed).
 */
static int check_guards(checker *c, const td_debugmd_finding *f)
{
	int err = 0, by_repro, by_mutant;

	for (size_t i = 0; !err && i < f->n_guards; i++) {
		const td_debugmd_test *g = &f->guards[i];

		by_repro = 0;
		if (f->commit)
			err = td_ledger_guard_verified(&by_repro, c->lg, f->commit, g->name);
		if (!err)
			err = td_ledger_guard_killed(&by_mutant, c->lg, f->number, g->name);
		if (err || by_repro || by_mutant)
			continue;
		if (f->commit)
			err = add_problem(c->ps, &c->cap, g->line, "guard `%s` of finding %d has no "
				  "reproduction showing it fail before %s and pass after, and killed no "
				  "mutant of the finding; run tdaudit reproduce %s", g->name, f->number,
				  f->commit, f->commit);
		else
			err = add_problem(c->ps, &c->cap, g->line, "guard `%s` of finding %d is "
				  "unverified: the finding has no fix commit, and no mutant with finding = "
				  "%d was killed by it", g->name, f->number, f->number);
	}
	return err;
}

/* Finding f against the ledger's row for it (NULL if none). */
static int check_finding(checker *c, const td_debugmd_finding *f, const td_ledger_finding_row *r)
{
	int line = f->table_line ? f->table_line : f->section_line;
	int err = 0;

	if (!r)
		return add_problem(c->ps, &c->cap, line, "finding %d is in DEBUG.md but not in the ledger",
				   f->number);
	if (f->status && strcmp(f->status, r->status) != 0)
		err = add_problem(c->ps, &c->cap, line, "finding %d's status is \"%s\" here but \"%s\" "
			  "in the ledger", f->number, f->status, r->status);
	else if (f->status && (f->commit || r->fix_commit) && !td_ledger_commits_match(f->commit, r->fix_commit))
		err = add_problem(c->ps, &c->cap, line, "finding %d's fix commit is %s here but %s in "
			  "the ledger", f->number, f->commit ? f->commit : "none",
			  r->fix_commit ? r->fix_commit : "none");
	return err ? err : check_guards(c, f);
}

int td_debugmd_check(td_debugmd_problems **out, const td_debugmd *doc, td_ledger *lg)
{
	checker c = {calloc(1, sizeof *c.ps), 0, lg};
	td_ledger_findings *fs = NULL;
	int err;

	*out = NULL;
	if (!c.ps)
		return TD_FAIL(TD_ENOMEM, "out of memory checking DEBUG.md");
	if ((err = td_ledger_findings_load(&fs, lg)))
		goto done;
	for (size_t i = 0; !err && i < doc->n_findings; i++)
		err = check_finding(&c, &doc->findings[i], ledger_row(fs, doc->findings[i].number));
	for (size_t i = 0; !err && i < fs->n; i++)
		if (!td_debugmd_find(doc, fs->v[i].number))
			err = add_problem(c.ps, &c.cap, doc->table_line, "finding %d (\"%s\") is in the "
				  "ledger but not in DEBUG.md's summary table", fs->v[i].number,
				  fs->v[i].title);
done:
	td_ledger_findings_free(fs);
	if (err)
		td_debugmd_problems_free(c.ps);
	else
		*out = c.ps;
	return err;
}
