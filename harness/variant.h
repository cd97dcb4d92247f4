/*
 * variant.h - which build variants (tdaudit.lua's variant { }, project.h) a
 * command runs, and which one a commit gets when none is named.
 *
 * --variant NAME (repeatable) names them; --variants all (or a comma list)
 * names every one, "default" first. With neither, the choice is automatic:
 * per commit, the first declared variant whose before, since and range
 * (all that it gives) select the commit, else "default".
 */
#ifndef TD_VARIANT_H
#define TD_VARIANT_H

#include "project.h"
#include "repo.h"

typedef struct {
	int v[TD_PROJECT_MAX_VARIANTS]; /* indices into the project's variants, in run order */
	int n;
	int automatic;                  /* 1: none named; v[0] is 0 until a commit chooses */
} td_variant_set;

/*
 * The variants names (the --variant NAMEs, a td_strv, may be NULL) and
 * which (--variants: "all" or "a,b"; may be NULL) name, each once.
 * TD_EINVAL naming the variant when tdaudit.lua declares none of that
 * name, with the names it declares.
 */
int td_variant_pick(td_variant_set *out, const td_project *p, char *const *names,
		    const char *which);

/*
 * The variant the automatic choice gives commit c (*v), and why, into why
 * ("" for default; "dated before 2019-06-01", "in range A..B").
 */
int td_variant_for_commit(int *v, char *why, size_t size, const td_project *p, td_repo *r,
			  const td_repo_commit *c);

/*
 * Prints, after "tdaudit COMMAND: ", the variant the run builds with and
 * what it runs ("variant no-werror: make -j2 CFLAGS=-Wno-error"), when
 * tdaudit.lua declares any variant; why may be NULL or "".
 */
void td_variant_say(const char *command, const td_project *p, int v, const char *why);

/*
 * For commands that run once per variant (mutate, bisect): the names of
 * the variants --variant (names, a td_strv, may be NULL) and --variants
 * (which, may be NULL) give for the repository at root, in run order, into
 * *out (a td_strv; caller frees). *out is NULL when neither names one: the
 * command then chooses per commit. TD_EINVAL as td_variant_pick.
 */
int td_variant_names(char ***out, const char *root, char *const *names, const char *which);

/*
 * path with "-VARIANT" put before its extension, for a report file written
 * once per variant: "out/report.json" -> "out/report-strict.json",
 * "report" -> "report-strict". Returns buf.
 */
const char *td_variant_path(char *buf, size_t size, const char *path, const char *variant);

#endif
