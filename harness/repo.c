/*
 * repo.c - read-only views of a git repository through libgit2 (repo.h).
 *
 * Must never write to the repository: no option that updates the index, no
 * checkout, no object written to .git/objects (a td_repo's object writes go
 * to memory; see writes_to_memory). Every libgit2 error is turned into a TD_E* code with libgit2's
 * own message.
 */
#include "repo.h"

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/error.h"
#include "../base/grow.h"
#include "../base/fileio.h"
#include "project.h"
#include "scratch.h"
#include "../base/strv.h"

static int git_fail(const char *what, const char *path)
{
	const git_error *e = git_error_last();

	return TD_FAIL(TD_EIO, "%s %s: %s", what, path, e && e->message ? e->message : "libgit2 error");
}

/*
 * Starts libgit2 (reference-counted: cheap after the first call). With
 * TDAUDIT_TRUST_OWNER=1 in the environment, owner validation is turned
 * off for this process: the user has said they trust repositories owned
 * by others (the setting is process-wide, so it covers every later open).
 */
static void init_libgit2(void)
{
	const char *trust = getenv("TDAUDIT_TRUST_OWNER");

	git_libgit2_init();
	if (trust && !strcmp(trust, "1"))
		git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
}

/*
 * Whether path failed to open only because another user owns it: opens it
 * again with owner validation off. libgit2 1.5.1 does not always say
 * GIT_EOWNER (it can report "config value 'safe.directory' was not found"
 * instead), so the answer is not read from the error code. *root gets the
 * repository's top-level directory for the message.
 */
static int owner_problem(char *root, size_t size, const char *path)
{
	git_repository *repo = NULL;
	int validating = 0, other = 0;

	if (git_libgit2_opts(GIT_OPT_GET_OWNER_VALIDATION, &validating) != 0 || !validating)
		return 0;
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	if (git_repository_open_ext(&repo, path, 0, NULL) == 0) {
		const char *wd = git_repository_workdir(repo);

		snprintf(root, size, "%s", wd ? wd : git_repository_path(repo));
		if (strlen(root) > 1 && root[strlen(root) - 1] == '/')
			root[strlen(root) - 1] = '\0';
		other = 1;
	}
	git_repository_free(repo);
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 1);
	return other;
}

/* The message for a repository refused because another user owns it. */
static int owner_fail(const char *root)
{
	struct stat st;
	char uid[32] = "another user";

	if (stat(root, &st) == 0)
		snprintf(uid, sizeof uid, "uid %u", (unsigned)st.st_uid);
	return TD_FAIL(TD_EINVAL, "the repository at %s is owned by another user (%s; you are uid %u), "
				  "and git refuses to read it as unsafe; if you trust it, run "
				  "`git config --global --add safe.directory %s`, or set "
				  "TDAUDIT_TRUST_OWNER=1 for tdaudit alone",
		       root, uid, (unsigned)geteuid(), root);
}

static int open_repo(git_repository **repo, const char *path)
{
	char root[PATH_MAX];

	init_libgit2();
	if (git_repository_open_ext(repo, path, 0, NULL) != 0) {
		int err = git_fail("not a git repository (or unreadable):", path);

		*repo = NULL;
		return owner_problem(root, sizeof root, path) ? owner_fail(root) : err;
	}
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

/* ---- history (reproduce and bisect) ------------------------------------- */

struct td_repo {
	git_repository *repo;
};

/*
 * Sends every object write of r's repository to memory (a mempack backend
 * above the real ones): merging in git_revert_commit writes the blobs it
 * merges by content, and they must not land in the user's .git/objects.
 * Reads still find every object the repository has.
 */
static int writes_to_memory(td_repo *r, const char *root)
{
	git_odb *odb = NULL;
	git_odb_backend *mem = NULL;
	int err = 0;

	if (git_repository_odb(&odb, r->repo) != 0 || git_mempack_new(&mem) != 0)
		err = git_fail("cannot set up the object database of", root);
	else if (git_odb_add_backend(odb, mem, 999) != 0) {
		mem->free(mem);
		err = git_fail("cannot set up the object database of", root);
	}
	git_odb_free(odb); /* the repository keeps its own reference, and the backend */
	return err;
}

int td_repo_open(td_repo **out, const char *root)
{
	td_repo *r = calloc(1, sizeof *r);
	int err;

	*out = NULL;
	if (!r)
		return TD_FAIL(TD_ENOMEM, "out of memory opening %s", root);
	err = open_repo(&r->repo, root);
	if (!err && git_repository_is_shallow(r->repo) == 1)
		err = TD_FAIL(TD_ENOTSUP, "%s is a shallow clone, and libgit2 1.5 cannot walk one; "
					  "fetch the full history (git fetch --unshallow) and run again",
			      root);
	if (!err)
		err = writes_to_memory(r, root);
	if (err)
		td_repo_free(r);
	else
		*out = r;
	return err;
}

void td_repo_free(td_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r);
}

/* The commit with full id hex. */
static int lookup_commit(git_commit **out, td_repo *r, const char *hex)
{
	git_oid oid;

	if (git_oid_fromstr(&oid, hex) != 0 || git_commit_lookup(out, r->repo, &oid) != 0)
		return git_fail("cannot read commit", hex);
	return 0;
}

static int lookup_tree(git_tree **out, td_repo *r, const char *hex)
{
	git_commit *c = NULL;
	int err = lookup_commit(&c, r, hex);

	if (!err && git_commit_tree(out, c) != 0)
		err = git_fail("cannot read the tree of commit", hex);
	git_commit_free(c);
	return err;
}

int td_repo_commit_info(td_repo_commit *out, td_repo *r, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;
	git_commit *c;
	int err = 0;

	memset(out, 0, sizeof *out);
	if (git_revparse_single(&obj, r->repo, rev) != 0)
		return TD_FAIL(TD_EINVAL, "unknown commit '%s': no commit, branch or tag by that name "
					  "in this repository (git log --oneline lists them)",
			       rev);
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) != 0) {
		err = TD_FAIL(TD_EINVAL, "'%s' names a %s, not a commit", rev,
			      git_object_type2string(git_object_type(obj)));
		goto done;
	}
	c = (git_commit *)peeled;
	git_oid_tostr(out->id, sizeof out->id, git_commit_id(c));
	snprintf(out->short_id, sizeof out->short_id, "%.7s", out->id);
	out->n_parents = git_commit_parentcount(c);
	if (out->n_parents > 0)
		git_oid_tostr(out->parent, sizeof out->parent, git_commit_parent_id(c, 0));
	snprintf(out->summary, sizeof out->summary, "%s",
		 git_commit_summary(c) ? git_commit_summary(c) : "");
	out->time = (long long)git_commit_time(c);
done:
	git_object_free(peeled);
	git_object_free(obj);
	return err;
}

/* Whether id is rev or one of its ancestors (*yes); rev must name a commit. */
static int reaches(int *yes, td_repo *r, const char *rev, const git_oid *id, const char *range)
{
	td_repo_commit c;
	git_oid end;
	int rc;

	if (td_repo_commit_info(&c, r, rev) != 0)
		return TD_FAIL(TD_EINVAL, "variant range \"%s\": '%s' names no commit of this "
					  "repository (git log --oneline lists them)", range, rev);
	git_oid_fromstr(&end, c.id);
	if (git_oid_equal(&end, id)) {
		*yes = 1;
		return 0;
	}
	rc = git_graph_descendant_of(r->repo, &end, id);
	if (rc < 0)
		return git_fail("cannot walk the history for the variant range", range);
	*yes = rc == 1;
	return 0;
}

int td_repo_in_range(int *in, td_repo *r, const char *range, const char *id)
{
	const char *dots = strstr(range, "..");
	char a[256];
	git_oid oid;
	int from_b = 0, from_a = 0, err;

	*in = 0;
	if (!dots || (size_t)(dots - range) >= sizeof a)
		return TD_FAIL(TD_EINVAL, "variant range \"%s\" is not A..B", range);
	snprintf(a, sizeof a, "%.*s", (int)(dots - range), range);
	if (git_oid_fromstr(&oid, id) != 0)
		return TD_FAIL(TD_EINVAL, "'%s' is not a full commit id", id);
	err = reaches(&from_b, r, dots + 2, &oid, range);
	if (!err)
		err = reaches(&from_a, r, a, &oid, range);
	*in = !err && from_b && !from_a;
	return err;
}

/* The tree-to-tree diff of commits a and b. */
static int diff_commits(git_diff **out, td_repo *r, const char *a, const char *b)
{
	git_tree *ta = NULL, *tb = NULL;
	int err = lookup_tree(&ta, r, a);

	if (!err)
		err = lookup_tree(&tb, r, b);
	if (!err && git_diff_tree_to_tree(out, r->repo, ta, tb, NULL) != 0)
		err = git_fail("cannot diff against commit", a);
	git_tree_free(ta);
	git_tree_free(tb);
	return err;
}

/* Sorts v and drops repeated entries. */
static void sort_unique(char **v)
{
	size_t n = td_strv_len(v), k = 0;

	if (n == 0)
		return;
	qsort(v, n, sizeof *v, cmp_str);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(v[i], v[k]) == 0)
			free(v[i]);
		else
			v[++k] = v[i];
	}
	v[k + 1] = NULL;
}

int td_repo_changed(char ***out, td_repo *r, const char *a, const char *b)
{
	git_diff *diff = NULL;
	char **paths = NULL;
	int err = diff_commits(&diff, r, a, b);

	*out = NULL;
	for (size_t i = 0; !err && i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		err = td_strv_push(&paths, d->old_file.path);
		if (!err && strcmp(d->old_file.path, d->new_file.path) != 0)
			err = td_strv_push(&paths, d->new_file.path);
	}
	git_diff_free(diff);
	if (err) {
		td_strv_free(paths);
		return err;
	}
	sort_unique(paths);
	*out = paths;
	return 0;
}

/* ---- test functions named in a diff ---- */

typedef struct {
	const char *text;
	size_t len, n_lines;
	size_t *starts; /* offset of each line */
} blob_lines;

typedef struct {
	git_repository *repo;
	char *const *globs;
	char **names;
	git_blob *blob[2];  /* the current file, old and new side */
	blob_lines lines[2];
	int err;
} fn_scan;

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Pushes every identifier starting with "test_" in text[0..len). */
static void scan_names(fn_scan *s, const char *text, size_t len)
{
	for (size_t i = 0; i + 5 < len && !s->err; i++) {
		size_t j = i + 5;
		char name[256];

		if (strncmp(text + i, "test_", 5) != 0 || (i > 0 && ident_char(text[i - 1])))
			continue;
		while (j < len && ident_char(text[j]))
			j++;
		if (j - i < sizeof name && j > i + 5) {
			snprintf(name, sizeof name, "%.*s", (int)(j - i), text + i);
			s->err = td_strv_push(&s->names, name);
		}
		i = j;
	}
}

static void scan_drop_file(fn_scan *s)
{
	for (int k = 0; k < 2; k++) {
		git_blob_free(s->blob[k]);
		free(s->lines[k].starts);
		s->blob[k] = NULL;
		memset(&s->lines[k], 0, sizeof s->lines[k]);
	}
}

/* Loads blob id into side k and indexes its lines. */
static int scan_load(fn_scan *s, int k, const git_oid *id)
{
	blob_lines *b = &s->lines[k];
	size_t n = 1;

	if (git_blob_lookup(&s->blob[k], s->repo, id) != 0)
		return git_fail("cannot read a blob of", "the diff");
	b->text = git_blob_rawcontent(s->blob[k]);
	b->len = (size_t)git_blob_rawsize(s->blob[k]);
	for (size_t i = 0; i < b->len; i++)
		n += b->text[i] == '\n';
	if (!(b->starts = malloc(n * sizeof *b->starts)))
		return TD_FAIL(TD_ENOMEM, "out of memory reading a diff");
	b->starts[b->n_lines++] = 0;
	for (size_t i = 0; i + 1 < b->len; i++)
		if (b->text[i] == '\n')
			b->starts[b->n_lines++] = i + 1;
	return 0;
}

static int scan_file(const git_diff_delta *d, float progress, void *payload)
{
	fn_scan *s = payload;

	(void)progress;
	scan_drop_file(s);
	if (!td_project_matches(s->globs, d->status == GIT_DELTA_DELETED ? d->old_file.path
									 : d->new_file.path))
		return 0;
	if (d->old_file.flags & GIT_DIFF_FLAG_EXISTS)
		s->err = scan_load(s, 0, &d->old_file.id);
	if (!s->err && (d->new_file.flags & GIT_DIFF_FLAG_EXISTS))
		s->err = scan_load(s, 1, &d->new_file.id);
	return s->err;
}

/* Whether a line has more than blanks and braces (a line that can change behaviour). */
static int substantive(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n{};", text[i]))
			return 1;
	return 0;
}

/*
 * The function enclosing line n (1-based) of side k, found the C way: the
 * nearest line above starting at column 0 with an identifier and holding
 * a '(', unless a '}' at column 0 (the end of a function) comes first.
 */
static void scan_enclosing(fn_scan *s, int k, size_t n)
{
	const blob_lines *b = &s->lines[k];

	for (size_t i = n - 1; i >= 1 && i + 2000 > n && i <= b->n_lines; i--) {
		const char *line = b->text + b->starts[i - 1], *end = b->text + b->len;
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = (size_t)((nl ? nl : end) - line);

		if (len && line[0] == '}')
			return;
		if (len && ident_char(line[0]) && memchr(line, '(', len)) {
			scan_names(s, line, len);
			return;
		}
	}
}

static int scan_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l,
		     void *payload)
{
	fn_scan *s = payload;
	int k = l->origin == GIT_DIFF_LINE_ADDITION ? 1 : 0;
	int lineno = k ? l->new_lineno : l->old_lineno;

	(void)d, (void)h;
	if ((l->origin != GIT_DIFF_LINE_ADDITION && l->origin != GIT_DIFF_LINE_DELETION) ||
	    !s->blob[k] || !substantive(l->content, l->content_len))
		return 0;
	if (k)
		scan_names(s, l->content, l->content_len);
	if (lineno > 0)
		scan_enclosing(s, k, (size_t)lineno);
	return s->err;
}

int td_repo_test_functions(char ***out, td_repo *r, const char *a, const char *b,
			   char *const *globs)
{
	fn_scan s = {r->repo, globs, NULL, {NULL, NULL}, {{0}, {0}}, 0};
	git_diff *diff = NULL;
	int err = diff_commits(&diff, r, a, b);

	*out = NULL;
	if (!err && git_diff_foreach(diff, scan_file, NULL, NULL, scan_line, &s) != 0)
		err = s.err ? s.err : git_fail("cannot read the diff against", a);
	scan_drop_file(&s);
	git_diff_free(diff);
	if (err) {
		td_strv_free(s.names);
		return err;
	}
	sort_unique(s.names);
	*out = s.names;
	return 0;
}

int td_repo_first_parents(char ***out, td_repo *r, const char *from, const char *to)
{
	char **chain = NULL, hex[41];
	git_commit *c = NULL;
	int err = lookup_commit(&c, r, to), found = 0;

	*out = NULL;
	while (!err && c && !found) {
		git_commit *parent = NULL;

		git_oid_tostr(hex, sizeof hex, git_commit_id(c));
		err = td_strv_push(&chain, hex);
		found = from && strcmp(hex, from) == 0;
		if (!err && !found && git_commit_parentcount(c) > 0 && git_commit_parent(&parent, c, 0) != 0)
			err = git_fail("cannot read the first parent of", hex);
		git_commit_free(c);
		c = found ? NULL : parent;
		if (found)
			git_commit_free(parent);
	}
	git_commit_free(c);
	if (!err && from && !found)
		err = TD_FAIL(TD_EINVAL, "commit %.12s is not on the first-parent history of %.12s; "
					 "give an older --good on that line (git log --first-parent)",
			      from, to);
	if (err) {
		td_strv_free(chain);
		return err;
	}
	for (size_t i = 0, n = td_strv_len(chain); i < n / 2; i++) {
		char *t = chain[i];

		chain[i] = chain[n - 1 - i];
		chain[n - 1 - i] = t;
	}
	*out = chain;
	return 0;
}

/* ---- materialising one state of history into a scratch directory ---- */

typedef struct {
	char *path;
	git_oid oid;
	git_filemode_t mode;
} state_ent;

typedef struct {
	state_ent *v;
	size_t n, cap;
	char *const *globs;
	int take_matching; /* 1: only paths matching globs; 0: only the others */
	int err;
} state_list;

static int push_entry(state_list *l, const char *path, const git_oid *oid, git_filemode_t mode);

static int collect(const char *dir, const git_tree_entry *e, void *payload)
{
	state_list *l = payload;
	git_filemode_t mode = git_tree_entry_filemode(e);
	char path[PATH_MAX];

	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
	    mode != GIT_FILEMODE_LINK)
		return 0; /* trees are walked into; submodules are not ours to write */
	snprintf(path, sizeof path, "%s%s", dir, git_tree_entry_name(e));
	if (l->globs && td_project_matches(l->globs, path) != l->take_matching)
		return 0;
	return l->err = push_entry(l, path, git_tree_entry_id(e), mode);
}

static int walk_commit(state_list *l, td_repo *r, const char *commit)
{
	git_tree *t = NULL;
	int err = lookup_tree(&t, r, commit);

	if (!err && git_tree_walk(t, GIT_TREEWALK_PRE, collect, l) != 0)
		err = l->err ? l->err : git_fail("cannot walk the tree of", commit);
	git_tree_free(t);
	return err;
}

static int cmp_ent(const void *a, const void *b)
{
	return strcmp(((const state_ent *)a)->path, ((const state_ent *)b)->path);
}

static void state_free(state_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

/* Whether dst already holds blob (bytes, and type and exec bit as mode says). */
static int already_there(const char *dst, const git_blob *blob, git_filemode_t mode)
{
	size_t len = (size_t)git_blob_rawsize(blob);
	char link[PATH_MAX], *have = NULL;
	struct stat st;
	int same;

	if (lstat(dst, &st) != 0)
		return 0;
	if (mode == GIT_FILEMODE_LINK) {
		ssize_t n = S_ISLNK(st.st_mode) ? readlink(dst, link, sizeof link) : -1;

		return n >= 0 && (size_t)n == len && memcmp(link, git_blob_rawcontent(blob), len) == 0;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size != len ||
	    !(st.st_mode & 0100) != (mode != GIT_FILEMODE_BLOB_EXECUTABLE))
		return 0;
	same = td_file_read(dst, &have, NULL) == 0 && memcmp(have, git_blob_rawcontent(blob), len) == 0;
	free(have);
	return same;
}

/* Writes entry e under dst unless it is already there; *wrote = 1 if written. */
static int put_entry(td_repo *r, const char *dst, const state_ent *e, int *wrote)
{
	git_blob *blob = NULL;
	char path[PATH_MAX], parent[PATH_MAX];
	int err = 0;

	*wrote = 0;
	if (snprintf(path, sizeof path, "%s/%s", dst, e->path) >= (int)sizeof path)
		return TD_FAIL(TD_EINVAL, "path %s/%s is too long", dst, e->path);
	if (git_blob_lookup(&blob, r->repo, &e->oid) != 0)
		return git_fail("cannot read the blob of", e->path);
	if (already_there(path, blob, e->mode))
		goto done;
	snprintf(parent, sizeof parent, "%s", path);
	*strrchr(parent, '/') = '\0';
	if (unlink(path) != 0 && errno != ENOENT)
		err = TD_FAIL(TD_EIO, "cannot replace %s: %s", path, strerror(errno));
	if (!err)
		err = td_mkdirs(parent);
	if (!err && e->mode == GIT_FILEMODE_LINK) {
		char target[PATH_MAX];

		snprintf(target, sizeof target, "%.*s", (int)git_blob_rawsize(blob),
			 (const char *)git_blob_rawcontent(blob));
		if (symlink(target, path) != 0)
			err = TD_FAIL(TD_EIO, "cannot create link %s: %s", path, strerror(errno));
	} else if (!err) {
		err = td_scratch_put_mode(path, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
					  e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
	}
	*wrote = !err;
done:
	git_blob_free(blob);
	return err;
}

/* Removes the files the manifest lists that state l does not have. */
static int prune_state(size_t *n, const char *dst, const char *manifest, const state_list *l)
{
	char *old = NULL, path[PATH_MAX];

	if (td_file_read(manifest, &old, NULL) != 0)
		return 0; /* the first state written here */
	char *save = NULL; /* strtok_r: strtok has one cursor for all threads */
	for (char *line = strtok_r(old, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		state_ent key = {line, {{0}}, 0};

		if (bsearch(&key, l->v, l->n, sizeof *l->v, cmp_ent))
			continue;
		snprintf(path, sizeof path, "%s/%s", dst, line);
		if (unlink(path) == 0)
			(*n)++;
	}
	free(old);
	return 0;
}

/*
 * Sets the time of every file of state l to now. A removed file leaves
 * nothing newer than the outputs built from it (make would call a program
 * linked with it up to date), so after a removal every file is touched and
 * the next build is a full one, never a stale one.
 */
static int touch_all(const char *dst, const state_list *l)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < l->n; i++) {
		snprintf(path, sizeof path, "%s/%s", dst, l->v[i].path);
		if (utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) != 0)
			return TD_FAIL(TD_EIO, "cannot touch %s: %s", path, strerror(errno));
	}
	return 0;
}

static int write_state_manifest(const char *manifest, const state_list *l)
{
	size_t len = 0, cap = 1;
	char *buf;
	int err;

	for (size_t i = 0; i < l->n; i++)
		cap += strlen(l->v[i].path) + 1;
	if (!(buf = malloc(cap)))
		return TD_FAIL(TD_ENOMEM, "out of memory for the scratch manifest");
	for (size_t i = 0; i < l->n; i++)
		len += (size_t)sprintf(buf + len, "%s\n", l->v[i].path);
	err = td_file_write_atomic(manifest, buf, len, 0644);
	free(buf);
	return err;
}

/*
 * Writes state l (sorted; passed by value, it is a few words) into dst:
 * only files that differ are rewritten, files of the previous state
 * (manifest) that l lacks are removed, and after a removal every file is
 * touched. The one writer of every state (td_repo_materialise and
 * td_repo_materialise_revert).
 */
static int write_state(size_t *n_written, td_repo *r, const state_list l, const char *dst,
		       const char *manifest)
{
	size_t n = 0, n_kept;
	int err = td_mkdirs(dst);

	for (size_t i = 1; !err && i < l.n; i++)
		if (strcmp(l.v[i - 1].path, l.v[i].path) >= 0) /* one source per path, or which wins? */
			err = TD_FAIL(TD_ESTATE, "internal error: %s is listed twice in a state",
				      l.v[i].path);
	for (size_t i = 0; !err && i < l.n; i++) {
		int wrote;

		err = put_entry(r, dst, &l.v[i], &wrote);
		n += (size_t)wrote;
	}
	n_kept = n;
	if (!err)
		err = prune_state(&n, dst, manifest, &l);
	if (!err && n > n_kept)
		err = touch_all(dst, &l);
	if (!err)
		err = write_state_manifest(manifest, &l);
	if (n_written)
		*n_written = n;
	return err;
}

/* The list of state (base, with overlay's paths matching overlay_globs), sorted. */
static int list_commits(state_list *l, td_repo *r, const char *base, const char *overlay,
			char *const *overlay_globs)
{
	int err;

	l->globs = overlay ? overlay_globs : NULL;
	l->take_matching = 0;
	err = walk_commit(l, r, base);
	if (!err && overlay && overlay_globs) {
		l->take_matching = 1;
		err = walk_commit(l, r, overlay);
	}
	if (!err)
		qsort(l->v, l->n, sizeof *l->v, cmp_ent);
	return err;
}

int td_repo_materialise(size_t *n_written, td_repo *r, const char *base, const char *overlay,
			char *const *overlay_globs, const char *dst, const char *manifest)
{
	state_list l = {NULL, 0, 0, NULL, 0, 0};
	int err = list_commits(&l, r, base, overlay, overlay_globs);

	if (n_written)
		*n_written = 0;
	if (!err)
		err = write_state(n_written, r, l, dst, manifest);
	state_free(&l);
	return err;
}

/* ---- a fix reverted at HEAD, in memory ---- */

/* Appends one entry to l. */
static int push_entry(state_list *l, const char *path, const git_oid *oid, git_filemode_t mode)
{
	int err = td_grow(&l->v, &l->cap, l->n + 1, sizeof *l->v);

	if (err)
		return err;
	if (!(l->v[l->n].path = strdup(path)))
		return TD_FAIL(TD_ENOMEM, "out of memory listing a state");
	git_oid_cpy(&l->v[l->n].oid, oid);
	l->v[l->n++].mode = mode;
	return 0;
}

/*
 * The non-test paths of a conflicted index, sorted, each once. A conflict
 * in a test file does not count: test files are taken from HEAD anyway.
 */
static int list_conflicts(char ***out, git_index *index, char *const *test_globs)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *e[3];
	char **paths = NULL;
	int err = 0, rc;

	if (git_index_conflict_iterator_new(&it, index) != 0)
		return git_fail("cannot list the conflicts of", "the revert");
	while (!err && (rc = git_index_conflict_next(&e[0], &e[1], &e[2], it)) == 0) {
		const git_index_entry *any = e[1] ? e[1] : e[2] ? e[2] : e[0];

		if (any && !td_project_matches(test_globs, any->path))
			err = td_strv_push(&paths, any->path);
	}
	if (!err && rc != GIT_ITEROVER)
		err = git_fail("cannot list the conflicts of", "the revert");
	git_index_conflict_iterator_free(it);
	if (err)
		td_strv_free(paths);
	else {
		sort_unique(paths);
		*out = paths;
	}
	return err;
}

/* Fills l from index (stage 0, non-test paths) and head's tree (test paths), sorted. */
static int list_reverted(state_list *l, td_repo *r, git_index *index, const char *head,
			 char *const *test_globs)
{
	int err = 0;

	for (size_t i = 0; !err && i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		git_filemode_t mode = (git_filemode_t)e->mode;

		if (git_index_entry_stage(e) != 0 || td_project_matches(test_globs, e->path) ||
		    (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
		     mode != GIT_FILEMODE_LINK))
			continue; /* conflicts are listed apart; submodules are not ours to write */
		err = push_entry(l, e->path, &e->id, mode);
	}
	l->globs = test_globs;
	l->take_matching = 1;
	if (!err)
		err = walk_commit(l, r, head);
	if (!err)
		qsort(l->v, l->n, sizeof *l->v, cmp_ent);
	return err;
}

/* Whether states a and b (sorted) hold the same paths, blobs and modes. */
static int same_state(const state_list *a, const state_list *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].path, b->v[i].path) || !git_oid_equal(&a->v[i].oid, &b->v[i].oid) ||
		    a->v[i].mode != b->v[i].mode)
			return 0;
	return 1;
}

/* git_revert_commit of fix onto head, in memory; *index is freed by the caller. */
static int revert_in_memory(git_index **index, td_repo *r, const char *head, const char *fix)
{
	git_commit *h = NULL, *f = NULL;
	int err = lookup_commit(&h, r, head);

	if (!err)
		err = lookup_commit(&f, r, fix);
	/* git_revert_commit, never git_revert: only this one leaves the user's index alone */
	if (!err && git_revert_commit(index, r->repo, f, h, git_commit_parentcount(f) > 1 ? 1 : 0,
				      NULL) != 0)
		err = git_fail("cannot revert at HEAD the commit", fix);
	git_commit_free(f);
	git_commit_free(h);
	return err;
}

int td_repo_materialise_revert(td_repo_revert *out, td_repo *r, const char *head, const char *fix,
			       char *const *test_globs, const char *dst, const char *manifest)
{
	state_list l = {NULL, 0, 0, NULL, 0, 0}, at_head = {NULL, 0, 0, NULL, 0, 0};
	git_index *index = NULL;
	int err = revert_in_memory(&index, r, head, fix);

	memset(out, 0, sizeof *out);
	if (!err && git_index_has_conflicts(index))
		err = list_conflicts(&out->conflicts, index, test_globs);
	if (err || out->conflicts)
		goto done;
	err = list_reverted(&l, r, index, head, test_globs);
	if (!err)
		err = list_commits(&at_head, r, head, NULL, NULL);
	if (!err && !(out->unchanged = same_state(&l, &at_head)))
		err = write_state(&out->n_written, r, l, dst, manifest);
done:
	state_free(&at_head);
	state_free(&l);
	git_index_free(index);
	return err;
}
