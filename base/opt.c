/*
 * opt.c - the table-driven option parser and its generated usage (see
 * opt.h). One pass over argv, one rule per refusal, and the messages
 * name the option as the user spelled it.
 */
#include "opt.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strv.h"

#define WIDTH 80     /* the usage's columns */
#define MAX_COL 22   /* an option's help starts after the widest left part up to this column */
#define MAX_OPTS 64  /* entries in one table */

static void vmessage(const td_opt_cmd *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s %s: ", cmd->program, cmd->name);
	vfprintf(stderr, fmt, ap);
	if (cmd->hint)
		fprintf(stderr, "\n(%s for the options)\n", cmd->hint);
	else
		fprintf(stderr, "\n(%s %s --help for the options)\n", cmd->program, cmd->name);
}

int td_opt_error(const td_opt_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

/* The entry for word (an option as given), or NULL; *attached gets "4" of "-j4". */
static const td_opt *find(const td_opt *t, const char *word, const char **attached)
{
	*attached = NULL;
	for (; t->name; t++) {
		if (!strcmp(word, t->name))
			return t;
		if (t->short_name && word[0] == '-' && word[1] == t->short_name) {
			if (!word[2])
				return t;
			if (t->arg) { /* -j4: the argument attached */
				*attached = word + 2;
				return t;
			}
		}
	}
	return NULL;
}

/* A whole number written in full (digits only: no sign, blank or suffix) into *out. */
static int whole(long long *out, const char *s)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return !*end && !errno;
}

/* The refusal of a number: says what is wanted and what came. */
static int bad_number(const td_opt_cmd *cmd, const char *as, const td_opt *o, long long max,
		      const char *v)
{
	const char *of = o->unit ? " of " : "", *unit = o->unit ? o->unit : "";

	if (o->type == TD_OPT_POSITIVE && o->max)
		return td_opt_error(cmd, "%s needs a positive number%s%s, at most %lld, not '%s'", as, of,
				    unit, o->max, v);
	if (o->type == TD_OPT_POSITIVE)
		return td_opt_error(cmd, "%s needs a positive number%s%s, not '%s'", as, of, unit, v);
	if (o->max)
		return td_opt_error(cmd, "%s needs a whole number%s%s %lld..%lld, not '%s'", as, of, unit,
				    o->min, max, v);
	return td_opt_error(cmd, "%s needs a whole number%s%s, %lld or more, not '%s'", as, of, unit,
			    o->min, v);
}

/* Writes v to o's field of args; 0, or 2 after the error. as: the option as spelled. */
static int take(const td_opt_cmd *cmd, const td_opt *o, void *args, const char *as, const char *v)
{
	void *field = (char *)args + o->at;
	long long n, max = o->max ? o->max : o->type == TD_OPT_INT ? INT_MAX : LLONG_MAX;
	char *end;
	double d;

	switch (o->type) {
	case TD_OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case TD_OPT_STRING:
		*(const char **)field = v;
		return 0;
	case TD_OPT_STRINGS:
		if (td_strv_push((char ***)field, v) != 0)
			return td_opt_error(cmd, "%s", td_error_last());
		return 0;
	case TD_OPT_POSITIVE:
		errno = 0;
		d = isspace((unsigned char)v[0]) ? -1 : strtod(v, &end);
		if (!v[0] || d < 0 || *end || errno || !isfinite(d) || d <= 0 || (o->max && d > (double)o->max))
			return bad_number(cmd, as, o, max, v);
		*(double *)field = d;
		return 0;
	case TD_OPT_INT:
	case TD_OPT_LONG:
		if (!whole(&n, v) || n < o->min || n > max)
			return bad_number(cmd, as, o, max, v);
		if (o->type == TD_OPT_INT)
			*(int *)field = (int)n;
		else
			*(long long *)field = n;
		return 0;
	case TD_OPT_CALL: {
		char why[256] = "is refused";

		if (o->call(o, args, v, why, sizeof why) != 0)
			return td_opt_error(cmd, "%s %s", as, why);
		return 0;
	}
	}
	return td_opt_error(cmd, "%s: its table entry has an unknown type %d", as, (int)o->type);
}

/* One option word at argv[*i]; advances *i past its argument. 0, or 2 after the error. */
static int option(const td_opt_cmd *cmd, void *args, unsigned char *seen, int argc, char **argv,
		  int *i)
{
	const char *word = argv[*i], *v;
	char as[64];
	const td_opt *o = find(cmd->opts, word, &v);

	if (!o)
		return td_opt_error(cmd, "unknown option '%s'", word);
	snprintf(as, sizeof as, "%.*s", v ? (int)(v - word) : (int)strlen(word), word);
	if (seen[o - cmd->opts]++ && !o->repeatable)
		return td_opt_error(cmd, "%s is given twice; give it once", as);
	if (o->arg && !v) {
		if (*i + 1 >= argc)
			return td_opt_error(cmd, "%s needs a value (%s %s)", as, as, o->arg);
		v = argv[++*i];
	}
	return take(cmd, o, args, as, v);
}

int td_opt_parse(const td_opt_cmd *cmd, void *args, int argc, char **argv, char ***operands)
{
	unsigned char seen[MAX_OPTS] = {0};
	int n = 0;

	while (cmd->opts[n].name)
		n++;
	if (n > MAX_OPTS || (cmd->operands && !operands))
		return td_opt_error(cmd, "its option table has %d entries (at most %d) or operands and "
				    "nowhere to put them", n, MAX_OPTS);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			td_opt_usage(stdout, cmd);
			return 0;
		}
		if (a[0] != '-' || !a[1]) {
			if (!cmd->operands)
				return td_opt_error(cmd, "unknown option or argument '%s'", a);
			if (td_strv_push(operands, a) != 0)
				return td_opt_error(cmd, "%s", td_error_last());
			continue;
		}
		if (option(cmd, args, seen, argc, argv, &i))
			return 2;
	}
	for (int k = 0; k < n; k++)
		if (cmd->opts[k].required && !seen[k])
			return td_opt_error(cmd, "%s %s is required", cmd->opts[k].name,
					    cmd->opts[k].arg ? cmd->opts[k].arg : "");
	return TD_OPT_RUN;
}

/*
 * Writes the words of text from column col, one blank between them,
 * breaking before a word that would pass WIDTH; each line after the first
 * starts at column indent. Returns the column it ended at.
 */
static int wrap(FILE *f, const char *text, int col, int indent)
{
	int fresh = 1; /* no word of text on this line yet */

	for (const char *p = text; *p;) {
		int w = (int)strcspn(p, " ");

		if (!fresh && col + 1 + w > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent, fresh = 1;
		}
		col += fprintf(f, "%s%.*s", fresh ? "" : " ", w, p);
		fresh = 0;
		p += w;
		while (*p == ' ')
			p++;
	}
	return col;
}

void td_opt_synopsis(FILE *f, const td_opt_cmd *cmd, int first)
{
	char word[128];
	int indent, col;

	indent = col = fprintf(f, "%s%s %s", first ? "usage: " : "       ", cmd->program, cmd->name);
	if (cmd->operands)
		col += fprintf(f, " %s", cmd->operands);
	for (const td_opt *o = cmd->opts; o->name; o++) {
		snprintf(word, sizeof word, "%s%s%s%s%s%s", o->required ? "" : "[", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "", o->required ? "" : "]",
			 o->repeatable ? "..." : "");
		if (col + 1 + (int)strlen(word) > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		col += fprintf(f, " %s", word);
	}
	fputc('\n', f);
}

/* "  -j, --jobs N" of one entry, into buf; returns its length. */
static int left(char *buf, size_t size, const td_opt *o)
{
	char sh[8] = "";

	if (o->short_name)
		snprintf(sh, sizeof sh, "-%c, ", o->short_name);
	return snprintf(buf, size, "  %s%s%s%s", sh, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

void td_opt_list(FILE *f, const td_opt_cmd *cmd)
{
	char buf[128];
	int col = 0;

	for (const td_opt *o = cmd->opts; o->name; o++) { /* the widest left part that fits MAX_COL */
		int n = left(buf, sizeof buf, o) + 2;

		if (n <= MAX_COL && n > col)
			col = n;
	}
	for (const td_opt *o = cmd->opts; o->name; o++) {
		int n = left(buf, sizeof buf, o);

		fputs(buf, f);
		n += fprintf(f, "%*s", n + 2 > col ? 2 : col - n, "");
		wrap(f, o->help, n, col);
		fputc('\n', f);
	}
}

void td_opt_usage(FILE *f, const td_opt_cmd *cmd)
{
	td_opt_synopsis(f, cmd, 1);
	if (cmd->about)
		fprintf(f, "\n%s", cmd->about);
	if (cmd->opts[0].name) {
		fputc('\n', f);
		td_opt_list(f, cmd);
	}
	if (cmd->after)
		fprintf(f, "\n%s", cmd->after);
}
