/*
 * commands.c - what every tdaudit command shares: the usage error for what
 * the option tables cannot say alone, the repository root, the command line.
 */
#define _GNU_SOURCE
#include "commands.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"
#include "repo.h"

int td_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tdaudit%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(tdaudit help%s%s for the options)\n", cmd ? " " : "", cmd ? cmd : "");
	return 2;
}

int td_find_root(char *root, size_t size, const char *given)
{
	char cwd[PATH_MAX];

	if (!given && !getcwd(cwd, sizeof cwd)) {
		fprintf(stderr, "tdaudit: cannot read the current directory\n");
		return 2;
	}
	if (td_repo_root(root, size, given ? given : cwd) != 0) {
		fprintf(stderr, "tdaudit: %s\n", td_error_last());
		return 2;
	}
	return 0;
}


int td_parse_score(double *out, const char *v, char *why, size_t why_size)
{
	size_t digits = strspn(v, "0123456789");
	int plain = digits > 0 && (!v[digits] || (v[digits] == '.' &&
						  !v[digits + 1 + strspn(v + digits + 1, "0123456789")]));
	char *end = NULL;
	double s = plain ? strtod(v, &end) : -1; /* plain: no hex, exponent, sign or blank */

	if (!plain || *end || !(s >= 0 && s <= 100))
		return snprintf(why, why_size, "is a mutation score, a number from 0 to 100, not '%s'",
				v), 1;
	*out = s;
	return 0;
}

const char *td_command_line(char *buf, size_t size, int argc, char **argv)
{
	size_t len = (size_t)snprintf(buf, size, "tdaudit");

	for (int i = 0; i < argc && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, " %s", argv[i]);
	return buf;
}
