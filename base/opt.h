/*
 * opt.h - one table-driven option parser for every command of tdaudit and
 * tdtrain, and the usage text generated from the same table.
 *
 * A command is a td_opt_cmd: its program and name, the operands it takes,
 * its free text, and a table of td_opt, one per option, each naming where
 * its value goes: a field of the command's own arguments struct, by its
 * offset and type, so that the table is static const and the same table
 * prints the usage. td_opt_parse walks argv once and refuses, with a message
 * "PROGRAM COMMAND: ..." and exit status 2: an unknown option, an option
 * without its argument, an option given twice unless it is repeatable (the
 * last value would otherwise win without a word: DEBUG.md #21, #29), and a
 * number that does not parse in full or is out of range (#30), and a
 * required option left out. --help and -h print td_opt_usage and stop.
 *
 * Never: exit, or keep anything of argv but borrowed pointers (string
 * fields point into argv; string lists and operands are copies).
 */
#ifndef TD_OPT_H
#define TD_OPT_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
	TD_OPT_FLAG,     /* int: set to 1; takes no argument */
	TD_OPT_STRING,   /* const char *: the argument, borrowed from argv */
	TD_OPT_STRINGS,  /* char **: the argument appended (a td_strv; caller frees) */
	TD_OPT_POSITIVE, /* double: a number > 0 (and <= max when max > 0), all of it */
	TD_OPT_INT,      /* int: a whole number in min..max (max 0: INT_MAX), all of it */
	TD_OPT_LONG,     /* long long: the same, max 0: LLONG_MAX */
	TD_OPT_CALL,     /* none of its own: call() below takes the argument */
} td_opt_type;

typedef struct td_opt td_opt;

struct td_opt {
	const char *name;  /* the long spelling, "--only"; NULL ends a table */
	char short_name;   /* 'j' for -j N and -jN; 0: none */
	const char *arg;   /* the argument's name in the usage, "PATTERN"; NULL: a flag */
	const char *help;  /* what it does and its default: sentences, wrapped in the usage */
	int repeatable;    /* 1: may be given more than once; 0: the second time is refused */
	int required;      /* 1: refused when absent (and shown without brackets in the synopsis) */
	td_opt_type type;  /* the field's type (above) */
	size_t at;         /* offsetof(the arguments struct, the field the value goes to) */
	long long min;     /* TD_OPT_INT, _LONG: the smallest accepted */
	long long max;     /* TD_OPT_INT, _LONG, _POSITIVE: the largest; 0: no bound but the type's */
	const char *unit;  /* in the messages: "a positive number of seconds"; NULL: none */
	/*
	 * TD_OPT_CALL: takes the value (NULL for a flag) into args, the struct
	 * td_opt_parse was given; returns 0, or nonzero after writing to why
	 * what is wrong, as it reads after the option's name: "is fix or
	 * regression, not 'x'", printed as "PROGRAM COMMAND: --find is ...".
	 */
	int (*call)(const td_opt *opt, void *args, const char *value, char *why, size_t why_size);
};

typedef struct {
	const char *program;  /* "tdaudit" or "tdtrain" */
	const char *name;     /* "mutate", "ledger export": the messages' prefix after program */
	const char *operands; /* the synopsis's operands, "COMMIT" or "DB..."; NULL: none taken */
	const char *about;    /* paragraphs between the synopsis and the options; NULL: none */
	const char *after;    /* paragraphs after the options (the exit status); NULL: none */
	const char *hint;     /* where the options are; NULL: "PROGRAM NAME --help" */
	const td_opt *opts;   /* the table, ended by an entry whose name is NULL */
} td_opt_cmd;

/* What td_opt_parse returns when argv parsed and the command should run. */
#define TD_OPT_RUN (-1)

/*
 * Parses argv[1..argc-1] (argv[0] is the command's own name) against
 * cmd's table, writing each value to its field of args as it comes; a word that
 * does not start with '-' (or is "-") is an operand, appended to *operands
 * (a td_strv the caller frees, NULL when none came; operands may be NULL
 * only when cmd->operands is NULL, and then an operand is refused).
 * Returns TD_OPT_RUN; 0 after printing the usage to stdout for --help or
 * -h; 2 after printing a usage error to stderr. Targets given before an
 * error keep their values.
 */
int td_opt_parse(const td_opt_cmd *cmd, void *args, int argc, char **argv, char ***operands);

/*
 * Prints "PROGRAM NAME: <message>" and the hint line to stderr; returns 2,
 * the exit status of a usage error.
 */
int td_opt_error(const td_opt_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The usage: synopsis, about, the options (one entry each), after. */
void td_opt_usage(FILE *f, const td_opt_cmd *cmd);

/*
 * The synopsis line(s) alone, wrapped at 80 columns: "usage: " before the
 * first when first is 1, blanks of its width otherwise.
 */
void td_opt_synopsis(FILE *f, const td_opt_cmd *cmd, int first);

/* The options alone: "  -j, --jobs N  help..." per entry, help wrapped at 80 columns. */
void td_opt_list(FILE *f, const td_opt_cmd *cmd);

#endif
