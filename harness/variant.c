/*
 * variant.c - choosing build variants (see variant.h).
 */
#define _GNU_SOURCE
#include "variant.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../base/error.h"
#include "../base/strv.h"

/* "a, b, c": the names tdaudit.lua declares, for messages. */
static const char *names_of(char *buf, size_t size, const td_project *p)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->n_variants && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "", p->variants[i].name);
	return buf;
}

static int add(td_variant_set *s, const td_project *p, const char *name, const char *opt)
{
	char all[1024];
	int v = td_project_variant(p, name);

	if (v < 0)
		return TD_FAIL(TD_EINVAL, "%s %s: tdaudit.lua declares no variant of that name (its "
					  "variants: %s)",
			       opt, name, names_of(all, sizeof all, p));
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return 0; /* named twice: run once */
	s->v[s->n++] = v;
	return 0;
}

int td_variant_pick(td_variant_set *out, const td_project *p, char *const *names,
		    const char *which)
{
	int err = 0;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; !err && names && names[i]; i++)
		err = add(out, p, names[i], "--variant");
	if (!err && which && !strcmp(which, "all")) {
		for (int i = 0; i < p->n_variants; i++)
			err = err ? err : add(out, p, p->variants[i].name, "--variants");
	} else if (!err && which) {
		char buf[1024], *save = NULL;

		if (!which[0])
			return TD_FAIL(TD_EINVAL, "--variants needs \"all\" or a comma list of names");
		snprintf(buf, sizeof buf, "%s", which);
		for (char *t = strtok_r(buf, ",", &save); t && !err; t = strtok_r(NULL, ",", &save))
			err = add(out, p, t, "--variants");
	}
	if (!err && out->n == 0)
		out->automatic = 1, out->n = 1;
	return err;
}

static void ymd(char *buf, size_t size, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, size, "%Y-%m-%d", &tm);
}

int td_variant_for_commit(int *v, char *why, size_t size, const td_project *p, td_repo *r,
			  const td_repo_commit *c)
{
	*v = 0;
	why[0] = '\0';
	for (int i = 1; i < p->n_variants; i++) {
		const td_variant *var = &p->variants[i];
		char d[16], reason[400] = "";
		int in = 1, err;

		if (!var->before && !var->since && !var->range)
			continue; /* chosen only by name */
		if (var->before) {
			in = in && c->time < var->before;
			ymd(d, sizeof d, var->before);
			snprintf(reason + strlen(reason), sizeof reason - strlen(reason),
				 "dated before %s", d);
		}
		if (var->since) {
			in = in && c->time >= var->since;
			ymd(d, sizeof d, var->since);
			snprintf(reason + strlen(reason), sizeof reason - strlen(reason),
				 "%sdated %s or later", reason[0] ? ", " : "", d);
		}
		if (in && var->range) {
			int yes = 0;

			if ((err = td_repo_in_range(&yes, r, var->range, c->id)))
				return err;
			in = yes;
			snprintf(reason + strlen(reason), sizeof reason - strlen(reason),
				 "%sin %s", reason[0] ? ", " : "", var->range);
		}
		if (in) {
			*v = i;
			snprintf(why, size, "chosen for %s: %s (%s)", c->short_id, reason, var->where);
			return 0;
		}
	}
	return 0;
}

void td_variant_say(const char *command, const td_project *p, int v, const char *why)
{
	char line[2048];

	if (p->n_variants < 2)
		return;
	printf("tdaudit %s: variant %s: %s%s%s%s\n", command, p->variants[v].name,
	       td_variant_describe(line, sizeof line, p, v), why && why[0] ? " [" : "",
	       why && why[0] ? why : "", why && why[0] ? "]" : "");
	fflush(stdout);
}

int td_variant_names(char ***out, const char *root, char *const *names, const char *which)
{
	td_project *p = NULL;
	td_variant_set vs;
	int err;

	*out = NULL;
	if (!(names && names[0]) && !which)
		return 0;
	err = td_project_load(&p, root);
	if (!err)
		err = td_variant_pick(&vs, p, names, which);
	for (int i = 0; !err && i < vs.n; i++)
		err = td_strv_push(out, p->variants[vs.v[i]].name);
	if (err) {
		td_strv_free(*out);
		*out = NULL;
	}
	td_project_free(p);
	return err;
}

const char *td_variant_path(char *buf, size_t size, const char *path, const char *variant)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');

	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
		dot = path + strlen(path); /* no extension (or a dot file): append */
	snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, variant, dot);
	return buf;
}
