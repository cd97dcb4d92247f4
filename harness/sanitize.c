/*
 * sanitize.c - the sanitizers' options and their reports (see sanitize.h).
 *
 * Must never take a test's ordinary failure for a sanitizer's report: the
 * detail says "sanitizer:" only when the output holds one.
 */
#define _GNU_SOURCE
#include "sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/strv.h"

#define EXIT_STR "86" /* TD_SANITIZE_EXIT, as text */

static const char *const options[][2] = {
	{"ASAN_OPTIONS=", "halt_on_error=1:detect_leaks=1:exitcode=" EXIT_STR},
	{"UBSAN_OPTIONS=", "halt_on_error=1:print_stacktrace=1:exitcode=" EXIT_STR},
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Pushes "NAME=" old ":" ours, or NAME=ours when old is NULL, onto *env. */
static int push_option(char ***env, const char *name, const char *old, const char *ours)
{
	char *s = NULL;
	int err;

	if (asprintf(&s, "%s%s%s%s", name, old ? old : "", old ? ":" : "", ours) < 0)
		return TD_FAIL(TD_ENOMEM, "out of memory");
	err = td_strv_push(env, s);
	free(s);
	return err;
}

int td_sanitize_env(td_project *p, int v)
{
	char **old = p->variants[v].env, **env = NULL;
	int err = 0, have[2] = {0, 0};

	_Static_assert(TD_SANITIZE_EXIT == 86, "EXIT_STR spells TD_SANITIZE_EXIT");
	for (size_t i = 0; !err && old && old[i]; i++) {
		int k = -1;

		for (int o = 0; o < 2; o++)
			if (!strncmp(old[i], options[o][0], strlen(options[o][0])))
				k = o;
		if (k < 0) {
			err = td_strv_push(&env, old[i]);
			continue;
		}
		have[k] = 1;
		err = push_option(&env, options[k][0], old[i] + strlen(options[k][0]), options[k][1]);
	}
	for (int o = 0; !err && o < 2; o++)
		if (!have[o])
			err = push_option(&env, options[o][0], NULL, options[o][1]);
	if (!err && td_strv_len(env) > TD_VARIANT_ENV_MAX)
		err = TD_FAIL(TD_EINVAL, "variant %s: its env and the sanitizers' options make more "
					 "than %d variables; set fewer in its env",
			      p->variants[v].name, TD_VARIANT_ENV_MAX);
	if (err) {
		td_strv_free(env);
		return err;
	}
	qsort(env, td_strv_len(env), sizeof *env, by_name);
	td_strv_free(old);
	p->variants[v].env = env;
	return 0;
}

/* Whether line (len bytes) is the first line of a sanitizer's report. */
static int report_line(const char *line, size_t len)
{
	char buf[512];

	snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
	return (strstr(buf, "ERROR: ") && strstr(buf, "Sanitizer: ")) ||
	       strstr(buf, "WARNING: ThreadSanitizer: ") || strstr(buf, " runtime error: ");
}

/* Appends line (len bytes) to out[size] after sep, control bytes as spaces, cut to fit. */
static void put_line(char *out, size_t size, const char *sep, const char *line, size_t len)
{
	size_t n = strlen(out);

	if (n + 1 >= size)
		return;
	n += (size_t)snprintf(out + n, size - n, "%s", sep);
	for (size_t i = 0; i < len && n + 1 < size; i++)
		out[n++] = (unsigned char)line[i] < 0x20 || line[i] == 0x7f ? ' ' : line[i];
	out[n < size ? n : size - 1] = '\0';
}

/* The bytes of file path (NUL-terminated), or NULL; quiet. Caller frees. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long n = -1;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (text = malloc((size_t)n + 1)))
		text[fread(text, 1, (size_t)n, f)] = '\0';
	if (f)
		fclose(f);
	return text;
}

int td_sanitize_report(char *detail, size_t dsize, char *tail, size_t tsize, const char *log)
{
	char *text = slurp(log);
	const char *p = text, *end;
	int found = 0, lines = 0;

	for (; p && *p && lines < 3; p = *end ? end + 1 : end) {
		size_t len;

		end = strchr(p, '\n');
		end = end ? end : p + strlen(p);
		len = (size_t)(end - p);
		if (!found && report_line(p, len)) {
			const char *q = p;

			if (!strncmp(q, "==", 2) && (q = strstr(q + 2, "==")) && q < end)
				q += 2;
			else
				q = p;
			detail[0] = tail[0] = '\0';
			put_line(detail, dsize, "sanitizer: ", q, (size_t)(end - q));
			found = 1;
		} else if (found) {
			while (len && (*p == ' ' || *p == '\t'))
				p++, len--;
			if (len)
				put_line(tail, tsize, lines++ ? " / " : "", p, len);
		}
	}
	free(text);
	return found;
}
