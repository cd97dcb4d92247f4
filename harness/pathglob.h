/*
 * pathglob.h - the glob patterns of tdaudit.lua, catalogues and audits:
 * matching a relative path, and listing the files of a repository that
 * match.
 *
 * A pattern is matched against a path relative to the repository root,
 * component by component:
 *   *       any run of characters within one component (never a '/')
 *   ?       any one character but '/'
 *   [abc]   one of a set ([a-z] ranges, [!a] or [^a] negated; never '/')
 *   **      a whole component: any number of directories, none included
 *           (a/STARSTAR/b is a/b, a/x/b, a/x/y/b; src/STARSTAR every file
 *           under src/; STARSTAR being "**", which a C comment cannot hold
 *           before a '/')
 *   \c      the character c itself
 * A "**" inside a component ("a**b") is refused: it would read as two '*'.
 * Names starting with '.' match like any other; ".git" is never listed.
 */
#ifndef TD_PATHGLOB_H
#define TD_PATHGLOB_H

#include <stddef.h>

/* Whether rel matches pattern (both relative, '/'-separated). */
int td_pathglob_match(const char *pattern, const char *rel);

/*
 * 0 when pattern is one this module takes: relative, without a '..'
 * component, "**" only as a whole component. Otherwise TD_EINVAL with a
 * message naming the pattern.
 */
int td_pathglob_check(const char *pattern);

/* What td_pathglob_list left out, so that a caller can say so. */
typedef struct {
	size_t dirs;          /* directories that matched: never listed as files */
	size_t links_outside; /* links that lead outside the root, or nowhere */
} td_pathglob_skips;

/*
 * Appends to *files (a td_strv: caller frees with td_strv_free) the regular
 * files under root matching pattern, as paths relative to root, sorted, each
 * once. A link is listed only when it leads to a file inside root; the walk
 * never enters a linked directory, so no link lists files outside the
 * repository. skips (may be NULL) counts what matched but was left out.
 * Matching nothing is not an error here: callers that need a file say so.
 */
int td_pathglob_list(char ***files, const char *root, const char *pattern,
		     td_pathglob_skips *skips);

/*
 * td_pathglob_list, where the caller needs at least one file: matching no
 * file is TD_EINVAL, "WHAT glob 'PATTERN' matches no file" (with the
 * directories it matched, if any). what names the setting ("catalogues").
 */
int td_pathglob_need(char ***files, const char *root, const char *pattern, const char *what);

#endif
