/*
 * commands.h - the tdaudit commands, one file each (cmd_<name>.c), and the
 * helpers their argument parsing shares. A command takes argv starting at
 * its own name and returns the process exit status: 0 all good, 1
 * findings, 2 usage or environment error. Only main() exits.
 */
#ifndef TD_COMMANDS_H
#define TD_COMMANDS_H

#include <stddef.h>

#define TDAUDIT_VERSION "0.1.0"

int td_cmd_mutate(int argc, char **argv);
extern const char td_usage_mutate[];
int td_cmd_reproduce(int argc, char **argv);
extern const char td_usage_reproduce[];
int td_cmd_bisect(int argc, char **argv);
extern const char td_usage_bisect[];
int td_cmd_ledger(int argc, char **argv);
extern const char td_usage_ledger[];

/* Prints "tdaudit CMD: <message>" and the help hint; returns 2. */
int td_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The options one command's parser has seen, to refuse one given twice. */
typedef struct {
	const char *name[16];
	int n;
} td_opts_seen;

/*
 * Records option name (one spelling per option); returns 0, or 2 after a
 * usage error when it was given before, since the last value would
 * otherwise silently win.
 */
int td_option_once(td_opts_seen *s, const char *cmd, const char *name);

/* s as a positive number, or -1 when it is not one (NULL included). */
double td_positive(const char *s);

/* "tdaudit " + argv joined by spaces, into buf (truncated to size); returns buf. */
const char *td_command_line(char *buf, size_t size, int argc, char **argv);

/* The repository root for --root DIR (or the current directory); 0 or 2. */
int td_find_root(char *root, size_t size, const char *given);

#endif
