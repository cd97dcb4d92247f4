/*
 * pathglob.c - glob patterns on repository paths, with "**" (pathglob.h).
 *
 * Must never list a directory as a file, never enter a linked directory,
 * and never list a link that leads outside the root.
 */
#define _GNU_SOURCE
#include "pathglob.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/error.h"
#include "../base/strv.h"

/*
 * Matches c against the set at *p (just past its '['); on a match or not,
 * *p moves past the ']'. Returns 1 or 0, or -1 when the set has no ']' (the
 * '[' is then a plain character).
 */
static int match_set(const char **p, char c)
{
	const char *q = *p;
	int neg = *q == '!' || *q == '^', hit = 0;

	q += neg;
	for (int first = 1; *q && (first || *q != ']'); first = 0) {
		char lo = *q == '\\' && q[1] ? *++q : *q, hi = lo;

		if (q[1] == '-' && q[2] && q[2] != ']') {
			q += 2;
			hi = *q == '\\' && q[1] ? *++q : *q;
		}
		hit |= c >= lo && c <= hi;
		q++;
	}
	if (*q != ']')
		return -1;
	*p = q + 1;
	return c != '/' && c != '\0' && hit != neg;
}

/* p is matched from its component start when at_start; s is the rest of the path. */
static int match(const char *p, const char *s, int at_start)
{
	for (;;) {
		if (at_start && p[0] == '*' && p[1] == '*' && (p[2] == '/' || !p[2])) {
			if (!p[2])
				return 1; /* a trailing "**": everything below */
			for (const char *t = s;; t++) { /* "**" + "/": none or more directories */
				if ((t == s || t[-1] == '/') && match(p + 3, t, 1))
					return 1;
				if (!*t)
					return 0;
			}
		}
		at_start = 0;
		switch (*p) {
		case '\0':
			return *s == '\0';
		case '*':
			while (*p == '*')
				p++;
			for (const char *t = s;; t++) {
				if (match(p, t, 0))
					return 1;
				if (!*t || *t == '/')
					return 0;
			}
		case '?':
			if (!*s || *s == '/')
				return 0;
			p++, s++;
			break;
		case '[': {
			const char *q = p + 1;
			int r = match_set(&q, *s);

			if (r == 0)
				return 0;
			if (r > 0) {
				p = q, s++;
				break;
			}
			if (*s != '[')
				return 0;
			p++, s++;
			break;
		}
		case '\\':
			if (p[1])
				p++;
			/* fall through */
		default:
			if (*p != *s)
				return 0;
			at_start = *p == '/';
			p++, s++;
		}
	}
}

int td_pathglob_match(const char *pattern, const char *rel)
{
	return match(pattern, rel, 1);
}

int td_pathglob_check(const char *pattern)
{
	if (!pattern[0] || pattern[0] == '/')
		return TD_FAIL(TD_EINVAL, "glob '%s' must be relative to the repository root",
			       pattern);
	for (const char *c = pattern; c; c = strchr(c, '/')) {
		size_t n;

		c += *c == '/';
		n = strcspn(c, "/");
		if (n == 2 && !strncmp(c, "..", 2))
			return TD_FAIL(TD_EINVAL, "glob '%s' must not go up with '..'", pattern);
		if (memmem(c, n, "**", 2) && n != 2)
			return TD_FAIL(TD_EINVAL, "glob '%s': '**' must be a whole path component "
						  "(a/**/b); inside a name use '*'", pattern);
	}
	return 0;
}

typedef struct {
	const char *pattern;
	char real_root[PATH_MAX];
	char **found; /* td_strv */
	td_pathglob_skips skips;
} walk_t;

/*
 * Whether the directory dir (relative) may hold a match: the pattern's
 * first components, as many as dir has, match it and more follow, or a
 * "**" comes first.
 */
static int may_hold(const char *pattern, const char *dir)
{
	char cut[PATH_MAX];
	const char *c = pattern;
	size_t k = 0;

	for (const char *d = dir; d; d = strchr(d + 1, '/')) {
		size_t n = strcspn(c, "/");

		if (n == 2 && !strncmp(c, "**", 2))
			return 1;
		if (!c[n] || k + n + 2 > sizeof cut)
			return 0; /* the pattern ends here: nothing below dir matches */
		memcpy(cut + k, c, n + 1); /* the component and its '/' */
		k += n + 1;
		c += n + 1;
	}
	cut[k - 1] = '\0';
	return match(cut, dir, 1);
}

/* Whether the link at full leads to a regular file inside the root. */
static int link_inside(const walk_t *w, const char *full, int *is_dir)
{
	char real[PATH_MAX];
	struct stat st;
	size_t n = strlen(w->real_root);

	*is_dir = 0;
	if (stat(full, &st) != 0 || !realpath(full, real))
		return 0;
	*is_dir = S_ISDIR(st.st_mode);
	return S_ISREG(st.st_mode) && !strncmp(real, w->real_root, n) && real[n] == '/';
}

/* Lists under dir (rel: its path from the root, "" for the root) what matches. */
static int walk(walk_t *w, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : TD_FAIL(TD_EIO, "cannot read the directory %s: %s", dir, strerror(errno));
	while (!err && (e = readdir(d))) {
		char full[PATH_MAX], sub[PATH_MAX];
		struct stat st;
		int hit, is_dir;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git"))
			continue;
		if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full ||
		    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
			    (int)sizeof sub) {
			err = TD_FAIL(TD_EINVAL, "a path under %s is too long for glob '%s'", dir,
				      w->pattern);
			break;
		}
		if (lstat(full, &st) != 0)
			continue; /* removed while we looked */
		hit = td_pathglob_match(w->pattern, sub);
		if (S_ISDIR(st.st_mode)) {
			w->skips.dirs += (size_t)hit;
			if (depth < 256 && may_hold(w->pattern, sub))
				err = walk(w, full, sub, depth + 1);
		} else if (hit && S_ISLNK(st.st_mode)) {
			if (link_inside(w, full, &is_dir))
				err = td_strv_push(&w->found, sub);
			else if (is_dir)
				w->skips.dirs++;
			else
				w->skips.links_outside++;
		} else if (hit && S_ISREG(st.st_mode)) {
			err = td_strv_push(&w->found, sub);
		}
	}
	closedir(d);
	return err;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int td_pathglob_list(char ***files, const char *root, const char *pattern,
		     td_pathglob_skips *skips)
{
	walk_t w = {.pattern = pattern};
	size_t n, had = td_strv_len(*files);
	int err = td_pathglob_check(pattern);

	if (err)
		return err;
	if (!realpath(root, w.real_root))
		return TD_FAIL(TD_EIO, "repository root %s: %s", root, strerror(errno));
	err = walk(&w, w.real_root, "", 0);
	n = td_strv_len(w.found);
	if (n)
		qsort(w.found, n, sizeof *w.found, by_name);
	for (size_t i = 0; !err && i < n; i++)
		if (!had || td_strv_find(*files, w.found[i]) < 0)
			err = td_strv_push(files, w.found[i]);
	td_strv_free(w.found);
	if (skips) {
		skips->dirs += w.skips.dirs;
		skips->links_outside += w.skips.links_outside;
	}
	return err;
}

int td_pathglob_need(char ***files, const char *root, const char *pattern, const char *what)
{
	td_pathglob_skips sk = {0};
	size_t had = td_strv_len(*files);
	char **mine = NULL;
	int err = td_pathglob_list(&mine, root, pattern, &sk);

	if (!err && !mine)
		err = TD_FAIL(TD_EINVAL, "%s glob '%s' matches no file%s%s", what, pattern,
			      sk.dirs ? ", only directories" : "",
			      sk.links_outside ? ", only links that lead outside the repository" : "");
	for (size_t i = 0; !err && mine && mine[i]; i++)
		if (!had || td_strv_find(*files, mine[i]) < 0)
			err = td_strv_push(files, mine[i]);
	td_strv_free(mine);
	return err;
}
