/*
 * commands.h - the tdaudit commands, one file each (cmd_<name>.c), and the
 * helpers they share. Each command's options are a table for base/opt.c,
 * which parses them and prints the usage from the same table. A command
 * takes argv starting at its own name and returns the process exit
 * status: 0 all good, 1 findings, 2 usage or environment error. Only
 * main() exits.
 */
#ifndef TD_COMMANDS_H
#define TD_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#define TDAUDIT_VERSION "0.1.0"

int td_cmd_mutate(int argc, char **argv);
void td_usage_mutate(FILE *f); /* the usage, as `tdaudit help mutate` prints it */
int td_cmd_reproduce(int argc, char **argv);
void td_usage_reproduce(FILE *f); /* the usage, as `tdaudit help reproduce` prints it */
int td_cmd_bisect(int argc, char **argv);
void td_usage_bisect(FILE *f); /* the usage, as `tdaudit help bisect` prints it */
int td_cmd_ledger(int argc, char **argv);
void td_usage_ledger(FILE *f); /* the usage, as `tdaudit help ledger` prints it */
int td_cmd_audit(int argc, char **argv);
void td_usage_audit(FILE *f); /* the usage, as `tdaudit help audit` prints it */
int td_cmd_overlap(int argc, char **argv);
int td_cmd_gates(int argc, char **argv);
void td_usage_gates(FILE *f); /* the usage, as `tdaudit help gates` prints it */
void td_usage_overlap(FILE *f); /* the usage, as `tdaudit help overlap` prints it */
int td_cmd_report(int argc, char **argv);
void td_usage_report(FILE *f); /* the usage, as `tdaudit help report` prints it */

/*
 * Prints "tdaudit CMD: <message>" and the help hint; returns 2. For what
 * the option tables cannot say alone (one COMMIT or --all, say).
 */
int td_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "tdaudit " + argv joined by spaces, into buf (truncated to size); returns buf. */
const char *td_command_line(char *buf, size_t size, int argc, char **argv);

/*
 * --fail-under SCORE: *out = SCORE, a percentage in [0, 100], all of the
 * argument; returns 0, or 1 after writing to why what is wrong (NaN, inf,
 * out of range, trailing text), as a TD_OPT_CALL reads it.
 */
int td_parse_score(double *out, const char *v, char *why, size_t why_size);

/* The repository root for --root DIR (or the current directory); 0 or 2. */
int td_find_root(char *root, size_t size, const char *given);

#endif
