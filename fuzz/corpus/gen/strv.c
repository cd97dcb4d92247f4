/*
 * strv.c - NULL-terminated string arrays (see strv.h).
 */
#include "strv.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "grow.h"

size_t td_strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/*
 * The capacity of a list of n entries (and its NULL) that td_strv_push
 * made: td_grow's, the first of 8, 16, 32 ... slots that holds n + 1; 0
 * for none. A list keeps no capacity of its own, so every list is made
 * by td_strv_push (strv.h): one allocated otherwise could be smaller.
 */
static size_t implied_cap(char *const *v, size_t n)
{
	size_t cap = 8;

	if (!v)
		return 0;
	while (cap < n + 1)
		cap *= 2;
	return cap;
}

int td_strv_push(char ***v, const char *s)
{
	size_t n = td_strv_len(*v), cap = implied_cap(*v, n);
	char *copy = strdup(s);
	int err = copy ? td_grow(v, &cap, n + 2, sizeof **v)
		       : TD_FAIL(TD_ENOMEM, "out of memory for a string list");

	if (err) {
		free(copy);
		return err;
	}
	(*v)[n] = copy;
	(*v)[n + 1] = NULL;
	return 0;
}

long td_strv_find(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return (long)i;
	return -1;
}

void td_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* s with every key replaced by value; NULL on out of memory. */
static char *replace_all(const char *s, const char *key, const char *value)
{
	size_t klen = strlen(key), vlen = strlen(value), n = 0;
	char *out, *o;

	for (const char *p = strstr(s, key); p; p = strstr(p + klen, key))
		n++;
	out = malloc(strlen(s) + n * vlen + 1);
	if (!out)
		return NULL;
	o = out;
	for (const char *p; (p = strstr(s, key)); s = p + klen) {
		memcpy(o, s, (size_t)(p - s));
		o += p - s;
		memcpy(o, value, vlen);
		o += vlen;
	}
	strcpy(o, s);
	return out;
}

int td_strv_subst(char ***out, char *const *argv, const char *key, const char *value)
{
	char **v = NULL;

	*out = NULL;
	for (size_t i = 0; argv && argv[i]; i++) {
		char *w = replace_all(argv[i], key, value);
		int err = w ? td_strv_push(&v, w) : TD_FAIL(TD_ENOMEM, "out of memory");

		free(w);
		if (err) {
			td_strv_free(v);
			return err;
		}
	}
	*out = v;
	return 0;
}
