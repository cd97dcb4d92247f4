/*
 * diffrange.c - changed lines since a revision (see diffrange.h).
 *
 * Must never write to the repository: a diff of rev's tree against the
 * working directory, read-only.
 */
#include "diffrange.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "../base/error.h"
#include "../base/grow.h"

typedef struct {
	char *file;
	int line;
} changed_line;

struct td_diffrange {
	changed_line *v;
	long n;
	size_t cap;
};

static int add_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
		    const git_diff_line *line, void *payload)
{
	td_diffrange *d = payload;

	(void)hunk;
	if (line->origin != GIT_DIFF_LINE_ADDITION || line->new_lineno < 1)
		return 0;
	if (td_grow(&d->v, &d->cap, (size_t)d->n + 1, sizeof *d->v))
		return -1;
	d->v[d->n].file = strdup(delta->new_file.path);
	d->v[d->n].line = line->new_lineno;
	return d->v[d->n++].file ? 0 : -1;
}

int td_diffrange_new(td_diffrange **out, const char *root, const char *rev)
{
	git_diff_options opts;
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_diff *diff = NULL;
	td_diffrange *d = calloc(1, sizeof *d);
	int err = d ? 0 : TD_FAIL(TD_ENOMEM, "out of memory");

	*out = NULL;
	git_libgit2_init();
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		     GIT_DIFF_SHOW_UNTRACKED_CONTENT;
	opts.context_lines = 0;
	if (!err && git_repository_open(&repo, root) != 0)
		err = TD_FAIL(TD_EIO, "cannot open the repository at %s", root);
	if (!err && (git_revparse_single(&obj, repo, rev) != 0 ||
		     git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) != 0))
		err = TD_FAIL(TD_EINVAL, "--diff %s: no such revision in %s", rev, root);
	if (!err && git_diff_tree_to_workdir_with_index(&diff, repo, tree, &opts) != 0)
		err = TD_FAIL(TD_EIO, "cannot diff %s against the working tree: %s", rev,
			      git_error_last() ? git_error_last()->message : "libgit2 error");
	if (!err && git_diff_foreach(diff, NULL, NULL, NULL, add_line, d) != 0)
		err = TD_FAIL(TD_ENOMEM, "out of memory reading the diff");
	git_diff_free(diff);
	git_tree_free(tree);
	git_object_free(obj);
	git_repository_free(repo);
	if (err)
		td_diffrange_free(d);
	else
		*out = d;
	return err;
}

void td_diffrange_free(td_diffrange *d)
{
	for (long i = 0; d && i < d->n; i++)
		free(d->v[i].file);
	if (d)
		free(d->v);
	free(d);
}

int td_diffrange_has(const td_diffrange *d, const char *file, int line)
{
	for (long i = 0; i < d->n; i++)
		if (d->v[i].line == line && strcmp(d->v[i].file, file) == 0)
			return 1;
	return 0;
}

long td_diffrange_count(const td_diffrange *d)
{
	return d->n;
}
