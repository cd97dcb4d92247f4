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

/* ---- history: commits, diffs, trees (reproduce and bisect) --------------- */

/*
 * An open repository for reading history. Opaque. td_repo_open refuses a
 * path that is not in a git repository, a bare repository (TD_EINVAL) and
 * a shallow clone (TD_ENOTSUP: libgit2 1.5 cannot walk one; fetch the full
 * history with `git fetch --unshallow`). Objects libgit2 writes through it
 * (a merge writes the blobs it merges by content) stay in memory and die
 * with it. Caller frees with td_repo_free.
 */
typedef struct td_repo td_repo;

int td_repo_open(td_repo **out, const char *root);
void td_repo_free(td_repo *r);

typedef struct {
	char id[41];        /* the commit, 40 hex digits */
	char short_id[13];  /* its first 7 hex digits (for messages) */
	char parent[41];    /* its first parent, or "" for a root commit */
	unsigned n_parents; /* 2 or more: a merge */
	char summary[200];  /* the first line of its message */
	long long time;     /* its committer time, seconds since the epoch (UTC) */
} td_repo_commit;

/*
 * *in = 1 when commit id (40 hex digits) lies in range "A..B": reachable
 * from B (B included) and not from A (A excluded), as git log A..B lists.
 * TD_EINVAL naming the range when A or B names no commit.
 */
int td_repo_in_range(int *in, td_repo *r, const char *range, const char *id);

/*
 * Resolves rev (a full or short id, a branch, HEAD~2 ...) to a commit.
 * TD_EINVAL naming rev when it names no commit.
 */
int td_repo_commit_info(td_repo_commit *out, td_repo *r, const char *rev);

/*
 * The paths that differ between the trees of commits a and b (full ids),
 * sorted; a path added, removed or changed on either side counts once.
 * Caller frees with td_strv_free (NULL when nothing differs).
 */
int td_repo_changed(char ***out, td_repo *r, const char *a, const char *b);

/*
 * The test functions a commit added or changed, read from the diff a -> b
 * of the files matching globs: every identifier starting with "test_" on
 * an added line, and on the header of the function enclosing each added
 * or removed line. The enclosing function is found the C way: the nearest
 * line above starting at column 0 with an identifier and holding a '(',
 * unless a '}' at column 0 comes first. Lines of blanks and braces alone
 * are ignored (a diff may align them with the neighbouring function).
 * Sorted, each once. A heuristic for C-like test files: callers keep only
 * the names a runner lists. Caller frees with td_strv_free (NULL: none).
 */
int td_repo_test_functions(char ***out, td_repo *r, const char *a, const char *b,
			   char *const *globs);

/*
 * The first-parent chain from commit `to` back to commit `from`, both
 * included, OLDEST FIRST. TD_EINVAL when `from` is not on that chain
 * (NULL from: back to the root). Caller frees with td_strv_free.
 */
int td_repo_first_parents(char ***out, td_repo *r, const char *from, const char *to);

/*
 * Makes directory dst hold one state of history, written from git blobs
 * (raw bytes, no filters), never through a checkout: the user's working
 * tree, index and HEAD are not touched. A path matching overlay_globs is
 * taken from commit overlay (present or absent there); every other path
 * from commit base. overlay NULL: base as it is. Files whose bytes and
 * executable bit are already right are not rewritten (builds in dst stay
 * incremental); files a previous call wrote (listed in manifest, a path
 * outside dst) that this state lacks are removed; build outputs are left.
 * When a file was removed, every file of the state is touched, so that no
 * build output made from the removed file looks up to date.
 * *n_written (may be NULL) gets the number of files written or removed.
 */
int td_repo_materialise(size_t *n_written, td_repo *r, const char *base, const char *overlay,
			char *const *overlay_globs, const char *dst, const char *manifest);

typedef struct {
	char **conflicts; /* non-test paths the fix does not revert cleanly; NULL: none */
	int unchanged;    /* 1: the reverted state is HEAD itself (nothing written) */
	size_t n_written; /* files written or removed */
} td_repo_revert;

/*
 * Makes dst hold commit head with commit fix reverted (git_revert_commit,
 * in memory; a merge fix is reverted against its first parent), written as
 * td_repo_materialise writes: non-test paths from the reverted index,
 * paths matching test_globs as they are at head. Nothing is written into
 * the repository: not its index, working tree or HEAD (git_revert, which
 * writes them, is never called), and not its object database.
 * When a non-test path does not revert cleanly, out->conflicts lists them
 * (sorted) and nothing is written; a conflict in a test path is ignored,
 * since test paths come from head anyway. When the reverted state equals
 * head's (the fix's changes are gone from head), out->unchanged = 1 and
 * nothing is written. Caller frees out->conflicts with td_strv_free.
 */
int td_repo_materialise_revert(td_repo_revert *out, td_repo *r, const char *head, const char *fix,
			       char *const *test_globs, const char *dst, const char *manifest);

#endif
