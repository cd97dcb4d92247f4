/*
 * repo.c - read-only views of a git repository through libgit2 (repo.h).
 *
 * Must never write to the repository: no option that updates the index, no
 * checkout. Every libgit2 error is turned into a TD_E* code with libgit2's
 * own message.
 */
#include "repo.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "strv.h"

static int git_fail(const char *what, const char *path)
{
	const git_error *e = git_error_last();

	return TD_FAIL(TD_EIO, "%s %s: %s", what, path, e && e->message ? e->message : "libgit2 error");
}

static int open_repo(git_repository **repo, const char *path)
{
	git_libgit2_init(); /* reference-counted: cheap after the first call */
	if (git_repository_open_ext(repo, path, 0, NULL) != 0)
		return git_fail("not a git repository (or unreadable):", path);
	if (git_repository_is_bare(*repo)) {
		git_repository_free(*repo);
		*repo = NULL;
		return TD_FAIL(TD_EINVAL, "%s is a bare repository; tdaudit needs a working tree", path);
	}
	return 0;
}

int td_repo_root(char *out, size_t size, const char *path)
{
	git_repository *repo;
	int err = open_repo(&repo, path);

	if (err)
		return err;
	snprintf(out, size, "%s", git_repository_workdir(repo));
	if (strlen(out) > 1 && out[strlen(out) - 1] == '/')
		out[strlen(out) - 1] = '\0';
	git_repository_free(repo);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int td_repo_files(char ***out, const char *root)
{
	git_status_options opts;
	git_repository *repo = NULL;
	git_status_list *list = NULL;
	char **files = NULL;
	int err;

	*out = NULL;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		     GIT_STATUS_OPT_INCLUDE_UNMODIFIED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	err = open_repo(&repo, root);
	if (err)
		return err;
	if (git_status_list_new(&list, repo, &opts) != 0) {
		err = git_fail("cannot list the files of", root);
		goto done;
	}
	for (size_t i = 0; i < git_status_list_entrycount(list) && !err; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;

		if (e->status & (GIT_STATUS_WT_DELETED | GIT_STATUS_IGNORED) || !d)
			continue;
		err = td_strv_push(&files, d->new_file.path);
	}
	if (!err && files)
		qsort(files, td_strv_len(files), sizeof *files, cmp_str);
done:
	git_status_list_free(list);
	git_repository_free(repo);
	if (err)
		td_strv_free(files);
	else
		*out = files;
	return err;
}

int td_repo_head(char sha[41], int *dirty, const char *root)
{
	git_status_options opts;
	git_repository *repo = NULL;
	git_status_list *list = NULL;
	git_oid oid;
	int err = open_repo(&repo, root);

	if (err)
		return err;
	if (git_reference_name_to_id(&oid, repo, "HEAD") == 0)
		git_oid_tostr(sha, 41, &oid);
	else
		snprintf(sha, 41, "(no commit)");
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &opts) != 0)
		err = git_fail("cannot read the status of", root);
	else
		*dirty = git_status_list_entrycount(list) > 0;
	git_status_list_free(list);
	git_repository_free(repo);
	return err;
}
