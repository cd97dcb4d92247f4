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

#endif
