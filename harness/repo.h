/*
 * repo.h - what the harness needs to know about the user's git repository,
 * read with libgit2 and never written: no checkout, no index update, no ref
 * change. The user's working tree, index and HEAD are theirs.
 */
#ifndef TD_REPO_H
#define TD_REPO_H

#include <stddef.h>

/*
 * The files of the working tree that git would see: tracked files that
 * exist and untracked files that are not ignored, relative to the
 * repository root, sorted. Caller frees with td_strv_free.
 */
int td_repo_files(char ***out, const char *root);

/*
 * HEAD's commit id (40 hex digits, or "(no commit)" in a new repository)
 * into sha, and whether the working tree differs from it (*dirty).
 */
int td_repo_head(char sha[41], int *dirty, const char *root);

/* The repository's top-level directory for any path inside it. */
int td_repo_root(char *out, size_t size, const char *path);

#endif
